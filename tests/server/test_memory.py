"""What a burst can make the server hold is bounded: a flooding connection's input waits in
its socket (the server holds at most its budget of parsed messages and one read of unparsed
bytes), a message over twice the frame limit closes the connection, and once a burst is over
nothing of it stays: no connection, no per-address count, no rate-limit bucket, no identity
waiting to be stored."""

from __future__ import annotations

import asyncio
import contextlib
import time

import msgpack
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from server.app import LuminServer
from server.config import Settings
from server.transport import SLICE

#: What asyncio's and uvloop's transports read at most in one go.
READ_SIZE = 256 * 1024


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Default limits, a small frame limit (so its budget is quickly reached)."""
    return Settings(host="127.0.0.1", port=0, data=tmp_path / "data", max_frame=16 * 1024)


async def test_a_flood_waits_in_its_socket_not_in_the_server(server: LuminServer, url) -> None:
    budget = 4 * server.settings.max_frame
    frame = msgpack.packb({"type": "ping", "id": 1, "pad": "x" * 2000})
    held: list[tuple[int, int]] = []
    async with ws_connect(url, compression=None) as socket:
        await socket.send(msgpack.packb({"type": "hello", "versions": [1], "name": "Flood"}))
        await socket.recv()
        (client,) = server.clients
        sent = 0
        deadline = time.monotonic() + 2.0

        async def watch() -> None:
            while time.monotonic() < deadline:
                held.append((client.socket.queued_bytes, len(client.socket.backlog)))
                await asyncio.sleep(0.005)

        watcher = asyncio.create_task(watch())
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2.0):
                while True:  # until the server stops taking what it is sent
                    await socket.send(frame)
                    sent += len(frame)
        await watcher
    most_queued = max(queued for queued, _ in held)
    most_unparsed = max(unparsed for _, unparsed in held)
    assert most_queued > budget // 2, "the flood did fill the budget"
    assert most_queued <= budget + SLICE + len(frame)
    assert most_unparsed <= READ_SIZE + SLICE
    assert sent > 4 * (budget + READ_SIZE), "the rest waited in the socket"


async def test_a_message_over_twice_the_frame_limit_closes_the_connection(url, server) -> None:
    limit = server.settings.max_frame
    async with ws_connect(url, compression=None) as socket:
        await socket.send(msgpack.packb({"type": "hello", "versions": [1], "name": "Big"}))
        await socket.recv()
        await socket.send(msgpack.packb({"type": "ping", "id": 2, "pad": "x" * (limit + 100)}))
        answer = msgpack.unpackb(await socket.recv())
        assert (answer["type"], answer["code"]) == ("error", "too_large")
        await socket.send(b"\x00" * (2 * limit + 1))
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(socket.recv(), 5)
        assert socket.close_code == 1009


async def test_nothing_of_a_burst_stays_once_it_is_over(server: LuminServer, url) -> None:
    hub = server.hub
    sockets = []
    for n in range(15):  # fifteen passers-by, each a new identity
        # (max_queue=None: they read nothing, and their own queue must not stop the close)
        socket = await ws_connect(url, compression=None, max_queue=None)
        await socket.send(msgpack.packb({"type": "hello", "versions": [1], "name": f"g{n}"}))
        for _ in range(30):
            await socket.send(msgpack.packb({"type": "ping"}))
        sockets.append(socket)
    assert len(server.clients) == 15
    assert server.per_address["127.0.0.1"] == 15
    for socket in sockets:
        await socket.close()
    for _ in range(100):
        if not server.clients:
            break
        await asyncio.sleep(0.02)
    assert not server.clients and not server.per_address
    assert not hub._saving, "every new identity is in the store"
    assert len(hub.limits.people) > 0 and len(hub.limits.addresses) > 0
    hub.limits.prune(time.monotonic() + 3600)  # an hour later every bucket has refilled
    assert len(hub.limits.people) == len(hub.limits.addresses) == 0
    assert len(hub.limits.connections) == 0
