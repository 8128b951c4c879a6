"""PostgreSQL and Redis for the tests that need them, one of each per run and xdist worker.

- ``postgres_url`` (session): a fresh, empty database ``lumin_test_<pid>_<worker>`` on the server
  ``LUMIN_TEST_POSTGRES`` names (default ``postgresql://postgres@127.0.0.1:5432``, trust auth);
  its URL, ``postgresql://postgres@127.0.0.1:5432/lumin_test_...``. Dropped at the end. Tests of
  one worker share it: leave no tables behind (or work in a schema of your own).
- ``redis_url`` (session): the Redis ``LUMIN_TEST_REDIS`` names (default
  ``redis://127.0.0.1:6379/0``), checked with PING.
- ``redis_prefix`` (each test): ``lumin-test:<pid>:<worker>:<hash of the test id>:``; every key
  under it is deleted after the test.

An engine that does not answer fails the test that asks for it (never a skip: CI must not pass
without them); ``make services`` starts both (``scripts/services.py``).

An asyncio test still running 20 s before pytest-timeout's limit prints the stack of every task
of its loop (to the captured standard error, shown with the failure): the timeout itself shows
only the threads, which for a hung await is the event loop's idle ``select``.

Hypothesis runs without its per-example deadline everywhere: an example's time on a loaded
2-core machine says nothing about the code, and a test must not fail on it.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import settings

from scripts.services import postgres_server
from scripts.services import redis_url as configured_redis_url
from tests.services import (
    create_database,
    database_name,
    delete_prefix,
    drop_database,
    prefix_for,
    redis_client,
)

settings.register_profile("lumin", deadline=None)
settings.load_profile("lumin")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if inspect.iscoroutinefunction(getattr(item, "function", None)):
            item.fixturenames.append("_task_stacks_before_timeout")  # type: ignore[attr-defined]


@pytest.fixture
async def _task_stacks_before_timeout(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    marker = request.node.get_closest_marker("timeout")
    limit = float(marker.args[0] if marker and marker.args else request.config.getini("timeout"))
    if limit <= 0:
        yield
        return
    handle = asyncio.get_running_loop().call_later(
        max(limit - 20.0, limit / 2), _print_task_stacks, request.node.nodeid
    )
    yield
    handle.cancel()


def _print_task_stacks(test: str) -> None:
    """Print every task of the running loop with the whole chain of awaits it is suspended in
    (a test about to time out)."""
    lines = [f"{test} is about to time out; its tasks:"]
    for task in asyncio.all_tasks():
        lines.append(f"- {task!r}")
        awaited: object = task.get_coro()
        while awaited is not None:
            frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
            if frame is not None:
                lines.append(
                    f"    {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"
                )
            awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    print("\n".join(lines), file=sys.stderr)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    server, name = postgres_server(), database_name()
    url = create_database(server, name)
    yield url
    drop_database(server, name)


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = configured_redis_url()
    redis_client(url).close()
    return url


@pytest.fixture
def redis_prefix(redis_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    prefix = prefix_for(request.node.nodeid)
    yield prefix
    client = redis_client(redis_url)
    try:
        delete_prefix(client, prefix)
    finally:
        client.close()
