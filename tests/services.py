"""The PostgreSQL database and Redis key prefix each test run and xdist worker gets (the fixtures
are in ``tests/conftest.py``; ``make services`` brings the engines up, ``scripts/services.py``).

Names carry the process id and the xdist worker (``gw0``..., ``main`` without xdist), so two
runs on one machine, or two workers of one run, never share a database or a key.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections.abc import Coroutine
from typing import Any, NoReturn, TypeVar

import asyncpg
import pytest
import redis

from scripts.services import POSTGRES_ENV, REDIS_ENV, database_url

__all__ = [
    "create_database",
    "database_name",
    "delete_prefix",
    "drop_database",
    "prefix_for",
    "redis_client",
    "run_sync",
    "worker_id",
]

T = TypeVar("T")

#: Seconds to wait for an engine before a fixture fails.
CONNECT_TIMEOUT = 5.0
#: At most this many SCAN rounds when deleting a prefix (each round deletes what it finds).
SCAN_ROUNDS = 1000


def worker_id() -> str:
    """This process's pytest-xdist worker (``gw0``, ``gw1``...), ``main`` without xdist."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def database_name() -> str:
    """``lumin_test_<pid>_<worker>``: this process's own database."""
    return f"lumin_test_{os.getpid()}_{worker_id()}"


def prefix_for(nodeid: str) -> str:
    """``lumin-test:<pid>:<worker>:<hash of the test id>:``: one test's Redis key prefix."""
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:12]
    return f"lumin-test:{os.getpid()}:{worker_id()}:{digest}:"


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to the end on its own loop in its own thread, leaving this thread's
    event loop (pytest-asyncio's) alone, whether or not one is running."""
    result: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coroutine))
        except BaseException as exc:
            error.append(exc)

    thread = threading.Thread(target=target, name="lumin-test-services")
    thread.start()
    thread.join()
    if error:
        raise error[0]
    return result[0]


def _unreachable(what: str, where: str, env: str, exc: BaseException) -> NoReturn:
    """Fail (never skip: a run without the engines must not pass) naming what is missing."""
    reason = str(exc).rstrip(".") or "no answer"
    pytest.fail(
        f"{what} is not reachable at {where}: {type(exc).__name__}: {reason}. "
        f"Run `make services` to start it, or point {env} at one.",
        pytrace=False,
    )


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


async def _maintenance(server: str) -> asyncpg.Connection:
    try:
        return await asyncpg.connect(database_url(server, "postgres"), timeout=CONNECT_TIMEOUT)
    except Exception as exc:
        error = exc
    _unreachable("PostgreSQL", server, POSTGRES_ENV, error)  # outside the except: no chain


def create_database(server: str, name: str) -> str:
    """A fresh, empty database ``name`` on ``server``; its URL. A database of that name left by
    an earlier process with the same id (one that died before its teardown) is dropped first."""

    async def create() -> None:
        connection = await _maintenance(server)
        try:
            await connection.execute(f"DROP DATABASE IF EXISTS {_quote(name)} WITH (FORCE)")
            await connection.execute(f"CREATE DATABASE {_quote(name)}")
        finally:
            await connection.close()

    run_sync(create())
    return database_url(server, name)


def drop_database(server: str, name: str) -> None:
    """Drop ``name`` on ``server``, closing whatever connections are still open to it."""

    async def drop() -> None:
        connection = await _maintenance(server)
        try:
            await connection.execute(f"DROP DATABASE IF EXISTS {_quote(name)} WITH (FORCE)")
        finally:
            await connection.close()

    run_sync(drop())


def redis_client(url: str) -> redis.Redis:
    """A synchronous client for ``url`` that has answered PING, else the fixture fails."""
    client = redis.Redis.from_url(
        url, socket_timeout=CONNECT_TIMEOUT, socket_connect_timeout=CONNECT_TIMEOUT
    )
    try:
        client.ping()
        return client
    except Exception as exc:
        error = exc
    client.close()
    _unreachable("Redis", url, REDIS_ENV, error)  # outside the except: no chain


def _glob_escape(text: str) -> str:
    return "".join("\\" + char if char in "*?[]\\" else char for char in text)


def delete_prefix(client: redis.Redis, prefix: str) -> int:
    """Delete every key that starts with ``prefix`` (SCAN, at most :data:`SCAN_ROUNDS` rounds,
    and DEL); how many were deleted."""
    pattern = _glob_escape(prefix) + "*"
    deleted, cursor = 0, 0
    for _ in range(SCAN_ROUNDS):
        cursor, keys = client.scan(cursor=cursor, match=pattern, count=1000)
        if keys:
            deleted += client.delete(*keys)
        if cursor == 0:
            return deleted
    raise AssertionError(f"keys under {prefix!r} still being found after {SCAN_ROUNDS} SCANs")
