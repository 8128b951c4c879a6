"""Make sure the PostgreSQL and Redis that Lumin's tests use are there (``make services``).

The tests talk to PostgreSQL at 127.0.0.1:5432 (user ``postgres``, trust auth) and Redis at
127.0.0.1:6379, or to the servers ``LUMIN_TEST_POSTGRES`` (a server URL without a database) and
``LUMIN_TEST_REDIS`` name. Running ones are used as they are. A missing one at the standard port is
installed from Debian's packages and started, as the Makefile does Chromium:

1. ``apt-get update`` and ``apt-get install -y postgresql redis-server`` (only what is missing);
2. PostgreSQL: the cluster ``pg_lsclusters`` lists on port 5432 (``pg_createcluster`` makes one
   when there is none), ``pg_ctlcluster VERSION NAME start`` when it is down; if it then refuses
   user ``postgres`` without a password, two ``trust`` lines (the local socket and 127.0.0.1/32)
   go first in that cluster's ``pg_hba.conf`` and it is reloaded;
3. Redis: ``redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save ''``;
4. each wait for an engine to answer is bounded (``--timeout``, 30 s) and ends, on failure, in one
   line naming what is missing and how to start it.

A server named by an environment variable is only checked, never installed or started.

``--check`` only looks (exit 1 when an engine is not reachable); ``--dry-run`` looks and prints
what it would run, changing nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "POSTGRES_ENV",
    "REDIS_ENV",
    "Cluster",
    "Probe",
    "Services",
    "ServicesError",
    "database_url",
    "main",
    "parse_clusters",
    "postgres_server",
    "probe_postgres",
    "probe_redis",
    "redis_url",
    "trusting_hba",
]

POSTGRES_ENV = "LUMIN_TEST_POSTGRES"
REDIS_ENV = "LUMIN_TEST_REDIS"
POSTGRES_DEFAULT = "postgresql://postgres@127.0.0.1:5432"
REDIS_DEFAULT = "redis://127.0.0.1:6379/0"
POSTGRES_PORT = 5432
REDIS_PORT = 6379
REDIS_START = ("redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", "6379")
REDIS_START += ("--save", "")
#: What goes first in pg_hba.conf (first match wins) when the cluster refuses ``postgres``.
HBA_MARK = "# Lumin's tests (scripts/services.py): trust on the local socket and 127.0.0.1"
HBA_LINES = (
    HBA_MARK,
    "local   all   all                  trust",
    "host    all   all   127.0.0.1/32   trust",
)
#: A probe's own time limit, seconds (a wait is made of many probes).
PROBE_TIMEOUT = 3.0


class ServicesError(Exception):
    """A one-line reason the engines could not be made available."""


def postgres_server(environ: dict[str, str] | None = None) -> str:
    """The PostgreSQL server URL (no database) the tests use."""
    env = os.environ if environ is None else environ
    return (env.get(POSTGRES_ENV) or POSTGRES_DEFAULT).rstrip("/")


def redis_url(environ: dict[str, str] | None = None) -> str:
    """The Redis URL the tests use."""
    env = os.environ if environ is None else environ
    return env.get(REDIS_ENV) or REDIS_DEFAULT


def database_url(server: str, database: str) -> str:
    """``server`` (a URL without a database, query kept) pointed at ``database``."""
    parts = urlsplit(server)
    return urlunsplit(parts._replace(path=f"/{database}"))


@dataclass(frozen=True)
class Probe:
    """What one look at an engine found: ``up``, or ``listening`` (something answers on the port
    but not as the tests need), or neither (nothing listens)."""

    up: bool
    listening: bool
    detail: str


def _port_open(host: str, port: int, timeout: float = PROBE_TIMEOUT) -> str | None:
    """``None`` when a TCP connection to ``host:port`` opens, else why not."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return str(exc) or type(exc).__name__


def probe_postgres(server: str) -> Probe:
    """Can the tests connect to ``server`` (its ``postgres`` database) with what the URL holds
    (at the standard port: user ``postgres`` and no password, so trust auth)?"""
    parts = urlsplit(server)
    host, port = parts.hostname or "127.0.0.1", parts.port or POSTGRES_PORT
    if (why := _port_open(host, port)) is not None:
        return Probe(False, False, f"nothing answers on {host}:{port} ({why})")
    import asyncpg

    async def connect() -> str:
        connection = await asyncpg.connect(database_url(server, "postgres"), timeout=PROBE_TIMEOUT)
        try:
            return str(await connection.fetchval("SHOW server_version"))
        finally:
            await connection.close()

    try:
        version = asyncio.run(connect())
    except Exception as exc:  # any refusal: auth, missing role, TLS, a server that is no PostgreSQL
        return Probe(False, True, f"{host}:{port} answers but refuses {server}: {exc}")
    return Probe(True, True, f"PostgreSQL {version} at {host}:{port}")


def probe_redis(url: str) -> Probe:
    """Does the Redis at ``url`` answer PING?"""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or REDIS_PORT
    if (why := _port_open(host, port)) is not None:
        return Probe(False, False, f"nothing answers on {host}:{port} ({why})")
    import redis

    client = redis.Redis.from_url(
        url, socket_timeout=PROBE_TIMEOUT, socket_connect_timeout=PROBE_TIMEOUT
    )
    try:
        client.ping()
        version = client.info("server").get("redis_version", "?")
    except Exception as exc:  # NOAUTH, a server that is no Redis, a timeout
        return Probe(False, True, f"{host}:{port} answers but not as Redis to {url}: {exc}")
    finally:
        client.close()
    return Probe(True, True, f"Redis {version} at {host}:{port}")


@dataclass(frozen=True)
class Cluster:
    """One line of ``pg_lsclusters``."""

    version: str
    name: str
    port: int
    status: str

    @property
    def hba(self) -> Path:
        root = Path(os.environ.get("PG_CLUSTER_CONF_ROOT", "/etc/postgresql"))
        return root / self.version / self.name / "pg_hba.conf"

    @property
    def log(self) -> Path:
        return Path("/var/log/postgresql") / f"postgresql-{self.version}-{self.name}.log"


def parse_clusters(text: str) -> list[Cluster]:
    """The clusters in ``pg_lsclusters --no-header`` output (``Ver Cluster Port Status ...``)."""
    clusters = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2].isdigit():
            clusters.append(Cluster(fields[0], fields[1], int(fields[2]), fields[3]))
    return clusters


def trusting_hba(text: str) -> str:
    """``pg_hba.conf`` text with Lumin's trust lines first (unchanged if they are there)."""
    if HBA_MARK in text:
        return text
    return "\n".join(HBA_LINES) + "\n\n" + text


class Services:
    """Brings the engines up, or with ``dry_run`` only says what it would run."""

    def __init__(
        self,
        *,
        dry_run: bool = False,
        timeout: float = 30.0,
        environ: dict[str, str] | None = None,
        out: Callable[[str], None] = print,
        which: Callable[[str], str | None] = shutil.which,
    ) -> None:
        self.dry_run = dry_run
        self.timeout = timeout
        self.environ = dict(os.environ if environ is None else environ)
        self.out = out
        self.which = which
        self.updated = False

    # --- doing, or saying what would be done --------------------------------------------------

    def run(
        self, command: Sequence[str], *, env: dict[str, str] | None = None, root: bool = True
    ) -> None:
        shown = " ".join(part if part else "''" for part in command)
        if env:
            shown = " ".join(f"{key}={value}" for key, value in env.items()) + " " + shown
        if self.dry_run:
            self.out(f"would run: {shown}")
            return
        self.out(f"running: {shown}")
        if root:
            self._need_root(shown)
        result = subprocess.run(list(command), env={**os.environ, **(env or {})}, check=False)
        if result.returncode != 0:
            raise ServicesError(f"`{shown}` failed with exit code {result.returncode}")

    def _need_root(self, what: str) -> None:
        if os.geteuid() != 0:
            raise ServicesError(f"{what} needs root: run `sudo make services` once")

    def apt_install(self, packages: Sequence[str]) -> None:
        if not self.updated:
            self.run(["apt-get", "update"])
            self.updated = True
        self.run(["apt-get", "install", "-y", *packages], env={"DEBIAN_FRONTEND": "noninteractive"})

    def wait(self, probe: Callable[[], Probe], what: str, hint: str) -> Probe:
        """Probe until up, at most ``timeout`` seconds; else a one-line error with ``hint``."""
        if self.dry_run:
            self.out(f"would wait up to {self.timeout:g} s for {what}")
            return Probe(True, True, f"{what} (dry run)")
        deadline = time.monotonic() + self.timeout
        while True:
            found = probe()
            if found.up or time.monotonic() >= deadline:
                break
            time.sleep(0.25)
        if not found.up:
            raise ServicesError(
                f"{what} is not there after {self.timeout:g} s: {found.detail}; {hint}"
            )
        return found

    # --- the engines --------------------------------------------------------------------------

    def ensure(self) -> list[str]:
        """Both engines up (or, with ``dry_run``, the plan printed); one line per engine."""
        server, url = postgres_server(self.environ), redis_url(self.environ)
        postgres, redis = probe_postgres(server), probe_redis(url)
        if postgres.up and redis.up:
            return [f"PostgreSQL: up, {postgres.detail}", f"Redis: up, {redis.detail}"]
        if not postgres.up and POSTGRES_ENV in self.environ:
            raise ServicesError(
                f"PostgreSQL at {POSTGRES_ENV}={server} is not reachable: {postgres.detail}; "
                f"start that server, or unset {POSTGRES_ENV} to use 127.0.0.1:5432"
            )
        if not redis.up and REDIS_ENV in self.environ:
            raise ServicesError(
                f"Redis at {REDIS_ENV}={url} is not reachable: {redis.detail}; "
                f"start that server, or unset {REDIS_ENV} to use 127.0.0.1:6379"
            )
        for name, probe in (("PostgreSQL", postgres), ("Redis", redis)):
            if not probe.up:
                self.out(f"{name}: {probe.detail}")
        if not postgres.up and postgres.listening and self.which("pg_lsclusters") is None:
            raise ServicesError(
                f"PostgreSQL: {postgres.detail}, and it is no Debian cluster: let it trust user "
                f"postgres on 127.0.0.1, free port 5432, or set {POSTGRES_ENV}"
            )
        if not redis.up and redis.listening:
            raise ServicesError(
                f"Redis: {redis.detail}; free port 6379 or set {REDIS_ENV} to a Redis to use"
            )
        missing = []
        if not postgres.up and not self.postgres_installed():
            missing.append("postgresql")
        if not redis.up and self.which("redis-server") is None:
            missing.append("redis-server")
        if missing:
            self.apt_install(missing)
        started = "would be started" if self.dry_run else "started"
        lines = []
        if postgres.up:
            lines.append(f"PostgreSQL: up, {postgres.detail}")
        else:
            lines.append(f"PostgreSQL: {started}, {self.start_postgres(server, postgres).detail}")
        if redis.up:
            lines.append(f"Redis: up, {redis.detail}")
        else:
            lines.append(f"Redis: {started}, {self.start_redis(url).detail}")
        return lines

    def clusters(self) -> list[Cluster]:
        if self.which("pg_lsclusters") is None:
            if self.dry_run:  # it would be there after the install above
                self.out("would read the cluster's VERSION from pg_lsclusters")
                return [Cluster("VERSION", "main", POSTGRES_PORT, "down")]
            raise ServicesError("pg_lsclusters is missing after installing postgresql")
        result = subprocess.run(
            ["pg_lsclusters", "--no-header"], capture_output=True, text=True, check=False
        )
        return parse_clusters(result.stdout)

    def installed_versions(self) -> list[str]:
        """The PostgreSQL servers installed: ``/usr/lib/postgresql/VERSION/bin/postgres``."""
        found = Path("/usr/lib/postgresql").glob("*/bin/postgres")
        return sorted((path.parts[-3] for path in found if path.parts[-3].isdigit()), key=int)

    def postgres_installed(self) -> bool:
        """A server and postgresql-common's cluster tools (pg_lsclusters, pg_ctlcluster)."""
        return self.which("pg_ctlcluster") is not None and bool(self.installed_versions())

    def newest_version(self) -> str:
        versions = self.installed_versions()
        if not versions:
            if self.dry_run:
                return "VERSION"
            raise ServicesError("no PostgreSQL server in /usr/lib/postgresql: install postgresql")
        return versions[-1]

    def start_postgres(self, server: str, found: Probe) -> Probe:
        clusters = self.clusters()
        on_port = [c for c in clusters if c.port == POSTGRES_PORT]
        if on_port:
            cluster = on_port[0]
        elif clusters:
            listed = ", ".join(f"{c.version}/{c.name} on {c.port}" for c in clusters)
            raise ServicesError(
                f"PostgreSQL: no cluster on port 5432 ({listed}); move one there "
                f"(/etc/postgresql/VERSION/NAME/postgresql.conf) or set {POSTGRES_ENV}"
            )
        else:
            version = self.newest_version()
            self.run(["pg_createcluster", version, "main", "--port", str(POSTGRES_PORT)])
            cluster = Cluster(version, "main", POSTGRES_PORT, "down")
        start = f"pg_ctlcluster {cluster.version} {cluster.name} start"
        if cluster.status != "online":
            if found.listening:  # something else holds the port
                raise ServicesError(
                    f"PostgreSQL: {found.detail}, and cluster {cluster.version}/{cluster.name} "
                    f"is {cluster.status}: free port 5432 or set {POSTGRES_ENV}"
                )
            self.run(start.split())
        self.wait(
            lambda: (
                Probe(True, True, "port open")
                if (why := _port_open("127.0.0.1", POSTGRES_PORT, 1.0)) is None
                else Probe(False, False, f"nothing answers on 127.0.0.1:5432 ({why})")
            ),
            "PostgreSQL on 127.0.0.1:5432",
            f"see {cluster.log}, or start it with `{start}`",
        )
        if self.dry_run:
            self.out("then, if it refuses user postgres without a password:")
            self.trust(cluster)
            return Probe(True, True, "PostgreSQL on 127.0.0.1:5432 (dry run)")
        now = probe_postgres(server)
        if now.up:
            return now
        self.trust(cluster)
        return self.wait(
            lambda: probe_postgres(server),
            "PostgreSQL trusting user postgres on 127.0.0.1:5432",
            f"check {cluster.hba} (Lumin's trust lines must come first)",
        )

    def trust(self, cluster: Cluster) -> None:
        """Lumin's trust lines first in the cluster's pg_hba.conf, then a reload."""
        if self.dry_run:
            self.out(f"would put first in {cluster.hba}: " + " | ".join(HBA_LINES[1:]))
        else:
            self._need_root(f"editing {cluster.hba}")
            text = cluster.hba.read_text()
            if HBA_MARK in text:
                raise ServicesError(
                    f"PostgreSQL still refuses user postgres without a password although "
                    f"{cluster.hba} starts with Lumin's trust lines: see {cluster.log}"
                )
            self.out(f"putting first in {cluster.hba}: " + " | ".join(HBA_LINES[1:]))
            cluster.hba.write_text(trusting_hba(text))
        self.run(["pg_ctlcluster", cluster.version, cluster.name, "reload"])

    def start_redis(self, url: str) -> Probe:
        if not self.dry_run and (now := probe_redis(url)).up:  # the package's service started
            return now
        self.run(REDIS_START, root=False)
        return self.wait(
            lambda: probe_redis(url),
            "Redis on 127.0.0.1:6379",
            "start it with `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save ''`",
        )


def check(environ: dict[str, str] | None = None) -> tuple[bool, list[str]]:
    """Whether both engines answer as the tests need, and one line per engine."""
    postgres = probe_postgres(postgres_server(environ))
    redis = probe_redis(redis_url(environ))
    lines = [
        f"PostgreSQL: {'up' if postgres.up else 'DOWN'}, {postgres.detail}",
        f"Redis: {'up' if redis.up else 'DOWN'}, {redis.detail}",
    ]
    return postgres.up and redis.up, lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="only look; exit 1 if one is down")
    mode.add_argument("--dry-run", action="store_true", help="print what would run, run nothing")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each")
    args = parser.parse_args(argv)
    if args.check:
        ok, lines = check()
        for line in lines:
            print(f"services: {line}")
        return 0 if ok else 1
    services = Services(dry_run=args.dry_run, timeout=args.timeout)
    try:
        lines = services.ensure()
    except ServicesError as exc:
        print(f"services: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        print(f"services: {line}")
    if args.dry_run:
        print("services: dry run, nothing was changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
