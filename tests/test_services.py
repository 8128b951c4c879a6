"""The test infrastructure for PostgreSQL and Redis: the fixtures of ``tests/conftest.py`` give
each process its own empty database and each test its own key prefix, and
``scripts/services.py`` (``make services``) finds both engines up here and knows what it would run
on a machine without them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest
import redis
import redis.asyncio

from scripts.services import (
    POSTGRES_ENV,
    REDIS_ENV,
    Cluster,
    Probe,
    Services,
    ServicesError,
    parse_clusters,
    postgres_server,
    trusting_hba,
)
from tests.services import (
    create_database,
    delete_prefix,
    prefix_for,
    redis_client,
    worker_id,
)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "services.py"

# --- PostgreSQL -----------------------------------------------------------------------------


def test_the_database_is_this_process_s_own(postgres_url: str) -> None:
    parts = urlsplit(postgres_url)
    name = parts.path.lstrip("/")
    assert name == f"lumin_test_{os.getpid()}_{worker_id()}"
    # a second xdist worker is another process with another id: another database
    assert name.endswith("_" + os.environ.get("PYTEST_XDIST_WORKER", "main"))
    assert postgres_url == f"{postgres_server()}/{name}"


async def test_the_database_is_there_and_empty(postgres_url: str) -> None:
    connection = await asyncpg.connect(postgres_url)
    try:
        assert await connection.fetchval("SELECT current_database()") == urlsplit(
            postgres_url
        ).path.lstrip("/")
        relations = await connection.fetch(
            "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n"
            " ON n.oid = c.relnamespace"
            " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')"
            " AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'"
        )
        assert [tuple(row) for row in relations] == []
    finally:
        await connection.close()


async def test_the_database_takes_a_table(postgres_url: str) -> None:
    connection = await asyncpg.connect(postgres_url)
    try:
        await connection.execute("CREATE TABLE services_check (id int PRIMARY KEY, name text)")
        try:
            await connection.executemany(
                "INSERT INTO services_check VALUES ($1, $2)", [(1, "Ada"), (2, "Grace")]
            )
            rows = await connection.fetch("SELECT id, name FROM services_check ORDER BY id")
            assert [tuple(row) for row in rows] == [(1, "Ada"), (2, "Grace")]
        finally:  # the database stays empty for the next test of this worker
            await connection.execute("DROP TABLE services_check")
    finally:
        await connection.close()


def test_an_unreachable_postgres_fails_with_a_clear_message() -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        create_database("postgresql://postgres@127.0.0.1:1", "lumin_test_never")
    message = str(failed.value)
    assert "PostgreSQL is not reachable at postgresql://postgres@127.0.0.1:1" in message
    assert "make services" in message and POSTGRES_ENV in message


# --- Redis ------------------------------------------------------------------------------------


async def test_redis_answers_under_the_prefix(redis_url: str, redis_prefix: str) -> None:
    client = redis.asyncio.Redis.from_url(redis_url)
    try:
        assert await client.ping()
        await client.set(f"{redis_prefix}greeting", "hello")
        assert await client.get(f"{redis_prefix}greeting") == b"hello"
    finally:
        await client.aclose()


def test_each_test_has_its_own_prefix(redis_prefix: str, request: pytest.FixtureRequest) -> None:
    assert redis_prefix == prefix_for(request.node.nodeid)
    assert redis_prefix.startswith(f"lumin-test:{os.getpid()}:{worker_id()}:")
    assert redis_prefix.endswith(":")
    assert prefix_for("tests/a.py::test_one") != prefix_for("tests/a.py::test_two")


#: The prefixes the test below wrote under, checked once its fixtures are torn down.
WRITTEN: list[tuple[str, list[bytes]]] = []


@pytest.fixture
def checked_after_teardown(redis_url: str) -> Iterator[list[tuple[str, list[bytes]]]]:
    """Set up before ``redis_prefix``, so torn down after it: this teardown sees what the
    prefix's cleanup left, whichever worker runs the test (pytest-xdist hands consecutive tests
    to different workers, so a second test could not be sure to see the first's record)."""
    yield WRITTEN
    client = redis.Redis.from_url(redis_url)
    try:
        for prefix, keys in WRITTEN:
            assert keys, "the test wrote nothing"
            assert client.exists(*keys) == 0, f"keys under {prefix!r} left after the test"
            assert list(client.scan_iter(match=prefix + "*")) == []
    finally:
        client.close()
        WRITTEN.clear()


def test_keys_under_the_prefix_are_removed_after_the_test(
    checked_after_teardown: list[tuple[str, list[bytes]]], redis_prefix: str, redis_url: str
) -> None:
    client = redis.Redis.from_url(redis_url)
    try:
        keys = [f"{redis_prefix}{n}".encode() for n in range(25)]
        for key in keys:
            client.set(key, "x")
        client.hset(f"{redis_prefix}room", "seat", "1")
        keys.append(f"{redis_prefix}room".encode())
        assert client.exists(*keys) == len(keys)
        checked_after_teardown.append((redis_prefix, keys))
    finally:
        client.close()


def test_deleting_a_prefix_leaves_other_keys(redis_url: str, redis_prefix: str) -> None:
    client = redis_client(redis_url)
    neighbour = redis_prefix[:-1] + "-other:"  # shares every character but the last
    try:
        for n in range(3):
            client.set(f"{redis_prefix}{n}", n)
        client.set(f"{neighbour}kept", 1)
        assert delete_prefix(client, redis_prefix) == 3
        assert client.get(f"{neighbour}kept") == b"1"
        assert delete_prefix(client, redis_prefix) == 0
    finally:
        client.delete(f"{neighbour}kept")
        client.close()


def test_an_unreachable_redis_fails_with_a_clear_message() -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        redis_client("redis://127.0.0.1:1/0")
    message = str(failed.value)
    assert "Redis is not reachable at redis://127.0.0.1:1/0" in message
    assert "make services" in message and REDIS_ENV in message


# --- scripts/services.py ---------------------------------------------------------------------


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )


def test_the_script_finds_both_engines_up() -> None:
    result = _script("--check")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("services: PostgreSQL: up, PostgreSQL "), lines
    assert lines[1].startswith("services: Redis: up, Redis "), lines


def test_the_scripts_dry_run_here_has_nothing_to_do() -> None:
    result = _script("--dry-run")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "would" not in result.stdout
    assert result.stdout.splitlines()[-1] == "services: dry run, nothing was changed"


def _bare_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PG_CLUSTER_CONF_ROOT", raising=False)  # the clusters' files in /etc
    down = Probe(up=False, listening=False, detail="nothing answers (a test)")
    monkeypatch.setattr("scripts.services.probe_postgres", lambda server: down)
    monkeypatch.setattr("scripts.services.probe_redis", lambda url: down)


def test_the_dry_run_on_a_machine_without_the_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    _bare_machine(monkeypatch)
    said: list[str] = []
    monkeypatch.setattr(Services, "installed_versions", lambda self: [])
    services = Services(dry_run=True, environ={}, out=said.append, which=lambda name: None)
    lines = services.ensure()
    assert [line for line in said if line.startswith("would run: ")] == [
        "would run: apt-get update",
        "would run: DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql redis-server",
        "would run: pg_ctlcluster VERSION main start",
        "would run: pg_ctlcluster VERSION main reload",
        "would run: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save ''",
    ]
    assert any(line.startswith("would put first in /etc/postgresql/VERSION/main/") for line in said)
    assert lines[0].startswith("PostgreSQL: would be started")
    assert lines[1].startswith("Redis: would be started")


def test_the_dry_run_with_the_packages_but_nothing_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _bare_machine(monkeypatch)
    monkeypatch.setattr(Services, "clusters", lambda self: [Cluster("15", "main", 5432, "down")])
    monkeypatch.setattr(Services, "installed_versions", lambda self: ["15"])
    said: list[str] = []
    Services(
        dry_run=True, environ={}, out=said.append, which=lambda name: f"/usr/bin/{name}"
    ).ensure()
    assert [line for line in said if line.startswith("would run: ")] == [
        "would run: pg_ctlcluster 15 main start",
        "would run: pg_ctlcluster 15 main reload",
        "would run: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save ''",
    ]


def test_a_server_named_by_the_environment_is_only_checked() -> None:
    said: list[str] = []
    services = Services(
        environ={POSTGRES_ENV: "postgresql://postgres@127.0.0.1:1"},
        out=said.append,
        which=lambda name: None,
    )
    with pytest.raises(ServicesError, match=f"{POSTGRES_ENV}=postgresql://postgres@127.0.0.1:1"):
        services.ensure()
    assert not [line for line in said if line.startswith(("running", "would"))]


def test_a_wait_is_bounded_and_says_what_is_missing() -> None:
    services = Services(timeout=0.3, out=lambda line: None)
    never = Probe(up=False, listening=False, detail="nothing answers on 127.0.0.1:6379")
    with pytest.raises(ServicesError) as failed:
        services.wait(lambda: never, "Redis on 127.0.0.1:6379", "start it with `redis-server`")
    assert str(failed.value) == (
        "Redis on 127.0.0.1:6379 is not there after 0.3 s: nothing answers on 127.0.0.1:6379; "
        "start it with `redis-server`"
    )


DEBIAN_HBA = """\
# Database administrative login by Unix domain socket
local   all             postgres                                peer
local   all             all                                     peer
host    all             all             127.0.0.1/32            scram-sha-256
host    all             all             ::1/128                 scram-sha-256
"""


def test_the_trust_lines_go_first_once() -> None:
    trusted = trusting_hba(DEBIAN_HBA)
    rules = [line.split() for line in trusted.splitlines() if line and not line.startswith("#")]
    assert rules[0] == ["local", "all", "all", "trust"]
    assert rules[1] == ["host", "all", "all", "127.0.0.1/32", "trust"]
    assert trusted.endswith(DEBIAN_HBA)
    assert trusting_hba(trusted) == trusted


def test_the_clusters_are_read_from_pg_lsclusters() -> None:
    text = (
        "15  main    5432 online postgres /var/lib/postgresql/15/main "
        "/var/log/postgresql/postgresql-15-main.log\n"
        "16  main    5433 down   postgres /var/lib/postgresql/16/main "
        "/var/log/postgresql/postgresql-16-main.log\n"
    )
    assert parse_clusters(text) == [
        Cluster("15", "main", 5432, "online"),
        Cluster("16", "main", 5433, "down"),
    ]
    assert parse_clusters("") == []
