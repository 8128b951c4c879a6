"""A room's mailbox: the requests waiting for its task, one at a time, acts in batches.

Everything that changes a room goes through its mailbox and is run by the room's task in
arrival order, so a room never needs a lock. Each request comes with the future its sender
awaits. Acts that wait together are handed over together, so the room decides and commits
them as one batch (:mod:`server.batch`); a request of another kind behind them waits for the
next turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from protocol.errors import ErrorCode
from server.batch import QueuedAct
from server.errors import Refused

__all__ = ["Delivery", "Mailbox", "Work"]

#: A request for the room's task: a coroutine function, or an act to decide.
Work = Callable[[], Awaitable[Any]] | QueuedAct


@attrs.frozen
class Delivery:
    """What the room's task runs next: one request (``work``, answering ``answers[0]``), or
    the acts waiting together (``acts``, each with its future; ``answers`` are those futures)."""

    answers: list[asyncio.Future[Any]]
    work: Callable[[], Awaitable[Any]] | None = None
    acts: list[tuple[QueuedAct, asyncio.Future[Any]]] = attrs.field(factory=list)


class Mailbox:
    """See the module docstring."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[tuple[Work, asyncio.Future[Any]]] = asyncio.Queue()
        #: A request taken from the queue while gathering a batch of acts, delivered next.
        self._carry: tuple[Work, asyncio.Future[Any]] | None = None

    def put(self, work: Work) -> asyncio.Future[Any]:
        """Queue ``work``; the future gets its answer once the room has run it."""
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((work, answer))
        return answer

    async def next(self) -> Delivery:
        """The next request, or every act waiting in a row from here (waits for one); a
        request whose sender stopped waiting (its future cancelled) is skipped."""
        while True:
            item = self._carry or await self._queue.get()
            self._carry = None
            work, answer = item
            if answer.cancelled():
                continue
            if not isinstance(work, QueuedAct):
                return Delivery(answers=[answer], work=work)
            acts: list[tuple[QueuedAct, asyncio.Future[Any]]] = [(work, answer)]
            while not self._queue.empty():
                queued = self._queue.get_nowait()
                if not isinstance(queued[0], QueuedAct):
                    self._carry = queued
                    break
                if not queued[1].cancelled():
                    acts.append((queued[0], queued[1]))
            return Delivery(answers=[future for _, future in acts], acts=acts)

    def fail_all(self, error: Callable[[Work], BaseException]) -> None:
        """Answer everything waiting with the exception ``error`` makes for its work, instead
        of running it (the room moved to another node)."""
        if self._carry is not None:
            self._queue.put_nowait(self._carry)
            self._carry = None
        while not self._queue.empty():
            work, answer = self._queue.get_nowait()
            if not answer.done():
                answer.set_exception(error(work))

    def refuse_all(self, code: ErrorCode, message: str) -> None:
        """Answer everything waiting with :class:`Refused` (``code``, ``message``) instead of
        running it (the room is closing)."""
        if self._carry is not None:
            self._queue.put_nowait(self._carry)
            self._carry = None
        while not self._queue.empty():
            _, answer = self._queue.get_nowait()
            if not answer.done():
                answer.set_exception(Refused(code, message))
