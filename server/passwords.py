"""Password hashes with a node-wide bound: Argon2id (argon2-cffi's defaults) on a few worker
threads of their own, at the lowest scheduling priority, so hashing never takes the cores
from the event loop that runs every game.

One Argon2id hash takes about a tenth of a second of several cores (its four lanes run on
threads of their own), and every ``claim_name`` and ``sign_in`` needs one. At most
``concurrency`` hashes run at once; up to ``queue`` more wait their turn, first come first
served; past that a request is refused at once with ``try_again`` and a sentence, so a crowd
of sign-ins neither stalls the node nor makes anyone wait for long.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TypeVar

import argon2

from protocol.errors import ErrorCode
from server.errors import Refused
from server.threads import yielding_pool

__all__ = ["PasswordHashes"]

T = TypeVar("T")


class PasswordHashes:
    """Hashes and checks passwords, ``concurrency`` at a time, with ``queue`` waiting at most."""

    def __init__(self, concurrency: int, queue: int) -> None:
        self.concurrency = concurrency
        self.queue = queue
        self.hasher = argon2.PasswordHasher()
        self._pool = yielding_pool(concurrency, "lumin-hash")
        #: Hashes running or waiting for a thread.
        self.pending = 0

    async def hash(self, password: str) -> str:
        """``password``'s Argon2id hash (``try_again`` when the queue is full)."""
        return await self._run(self.hasher.hash, password)

    async def verify(self, hashed: str, password: str) -> bool:
        """Whether ``password`` is the one ``hashed`` was made from (``try_again`` when the
        queue is full); a hash that is not an Argon2 one matches nothing."""
        return await self._run(self._matches, hashed, password)

    def _matches(self, hashed: str, password: str) -> bool:
        try:
            return self.hasher.verify(hashed, password)
        except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
            return False

    async def _run(self, work: Callable[..., T], *args: str) -> T:
        if self.pending >= self.concurrency + self.queue:
            raise Refused(
                ErrorCode.TRY_AGAIN,
                f"The server is checking {self.pending} passwords already; try again in a few"
                " seconds.",
            )
        loop = asyncio.get_running_loop()
        self.pending += 1
        future = self._pool.submit(work, *args)
        # Counted until the thread is done with it: a request that gives up (its connection
        # closed) takes its hash out of the queue, but one already running runs to its end.
        future.add_done_callback(lambda _: _call_soon(loop, self._done))
        return await asyncio.wrap_future(future)

    def _done(self) -> None:
        self.pending -= 1

    def close(self) -> None:
        """Let the running hashes finish on their own and drop the waiting ones."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """``callback`` on ``loop``, from any thread; nothing once the loop is closed."""
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody counts any more
        loop.call_soon_threadsafe(callback)
