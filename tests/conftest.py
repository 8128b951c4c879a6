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

Hypothesis runs without its per-example deadline everywhere: an example's time on a loaded
2-core machine says nothing about the code, and a test must not fail on it.
"""

from __future__ import annotations

from collections.abc import Iterator

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
