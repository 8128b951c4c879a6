"""``/healthz`` and ``/readyz`` fail when they should, against real servers: liveness needs the
event loop to answer, readiness needs the store to take a write (SQLite's writer, or a
PostgreSQL that can be reached) and goes back to ready once it does again; a draining node is
not ready (tests/server/test_admin.py), nor one whose Redis is away
(tests/server/test_cluster.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.app import LuminServer
from server.config import Settings
from tests.server.test_store_contract import reset_postgres


def get(server: LuminServer, path: str, timeout: float = 5.0) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{server.port}{path}", timeout=timeout
        ) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def test_healthz_answers_only_while_the_event_loop_does(server: LuminServer) -> None:
    assert (await asyncio.to_thread(get, server, "/healthz"))[0] == 200

    def later() -> tuple[int, dict[str, Any]]:
        time.sleep(0.2)  # asked once the loop is stuck
        return get(server, "/healthz", 0.5)

    asking = asyncio.get_running_loop().run_in_executor(None, later)
    time.sleep(1.5)  # a stuck event loop: a handler that blocks
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        await asking
    status, body = await asyncio.to_thread(get, server, "/healthz")
    assert status == 200 and body["status"] == "ok", "alive again once the loop turns"


async def test_readyz_fails_when_sqlites_writer_cannot_take_a_write(server: LuminServer) -> None:
    status, body = await asyncio.to_thread(get, server, "/readyz")
    assert (status, body) == (200, {"status": "ready", "checks": {"store": "ok"}})
    server.store.close()  # the writer thread is gone: nothing can be committed
    status, body = await asyncio.to_thread(get, server, "/readyz")
    assert status == 503 and body["status"] == "not_ready"
    assert body["checks"]["store"].startswith("failing")
    assert (await asyncio.to_thread(get, server, "/healthz"))[0] == 200, "alive, not ready"
    server.store_open = False  # the fixture's stop finds it closed


class Cut:
    """A TCP relay from a local port to PostgreSQL that can be cut (every connection through
    it dropped, new ones refused) and mended, as a network between a node and its database."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.server: asyncio.Server | None = None
        self.pipes: set[asyncio.StreamWriter] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            writer.close()
            return
        self.pipes |= {writer, up_writer}

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    def cut(self) -> None:
        assert self.server is not None
        self.server.close()
        for pipe in self.pipes:
            pipe.transport.abort()
        self.pipes.clear()

    async def mend(self, port: int) -> None:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", port)

    async def close(self) -> None:
        self.cut()
        assert self.server is not None
        await self.server.wait_closed()


@pytest.fixture
async def cut(postgres_url: str) -> AsyncIterator[tuple[Cut, str]]:
    """A :class:`Cut` in front of the tests' PostgreSQL, and the URL through it."""
    await reset_postgres(postgres_url)
    host_port = postgres_url.split("@", 1)[-1].split("/", 1)[0]
    relay = Cut(int(host_port.rsplit(":", 1)[1]) if ":" in host_port else 5432)
    port = await relay.start()
    yield relay, postgres_url.replace(host_port, f"127.0.0.1:{port}")
    await relay.close()
    await reset_postgres(postgres_url)


async def test_readyz_fails_while_postgresql_is_out_of_reach_and_recovers(
    cut: tuple[Cut, str], tmp_path
) -> None:
    relay, through = cut
    server = LuminServer(Settings(port=0, data=tmp_path / "data", store=through, lease_ttl=1.0))
    await server.start()
    try:
        assert (await asyncio.to_thread(get, server, "/readyz"))[0] == 200
        port = relay.server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        relay.cut()
        status, body = await asyncio.to_thread(get, server, "/readyz")
        assert status == 503 and body["checks"]["store"].startswith("failing"), body
        assert (await asyncio.to_thread(get, server, "/healthz"))[0] == 200
        await relay.mend(port)
        deadline = time.monotonic() + 10
        while (await asyncio.to_thread(get, server, "/readyz"))[0] != 200:
            assert time.monotonic() < deadline, "ready again once PostgreSQL is back"
            await asyncio.sleep(0.2)
    finally:
        await server.stop()
