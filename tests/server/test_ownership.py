"""Rooms owned by lease across two Lumin nodes on one PostgreSQL (``server/ownership.py``): a
node that stops renewing (a pause past its lease) loses its room to the other, which rebuilds
it from the log and plays on; the old owner's next append is fenced, so it lets the room go and
tells its client to reconnect (``bye`` ``going_away``, close 1001); no acknowledged command is
lost and the log never forks. A node stopping gracefully lets its rooms go at once."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import msgpack
import pytest
from websockets.asyncio.client import connect as ws_connect

from clients.sdk import LuminClient, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from server.app import LuminServer
from server.config import Settings
from tests.server.conftest import TEST_LIMITS
from tests.server.test_play import play_seat
from tests.server.test_store_contract import reset_postgres

TTL = 1.0


@pytest.fixture
async def nodes(postgres_url: str, tmp_path: Path) -> AsyncIterator[Callable[..., object]]:
    """Starts Lumin nodes on this test's PostgreSQL database, each with its node id."""
    await reset_postgres(postgres_url)
    started: list[LuminServer] = []

    async def start(node: str) -> LuminServer:
        settings = Settings(
            port=0, data=tmp_path / node, store=postgres_url, node_id=node, lease_ttl=TTL,
            bot_delay=0.0, **TEST_LIMITS,
        )  # fmt: skip
        server = LuminServer(settings)
        await server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        await server.stop()
    await reset_postgres(postgres_url)  # the worker's database is shared: leave it empty


async def until(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def _hello(socket, token: str) -> None:
    await socket.send(
        msgpack.packb({"type": "hello", "versions": [1], "name": "Ada", "token": token})
    )
    while msgpack.unpackb(await socket.recv())["type"] != "welcome":
        pass


async def test_a_paused_owner_loses_its_room_and_its_next_append_is_fenced(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    ada = await LuminClient.connect(f"ws://127.0.0.1:{a.port}/ws", "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    game, rng = get_game("flip_over_frog"), random.Random(3)
    acked: list[dict] = []
    while len(acked) < 2:
        while not ada.legal(room):
            await ada.changed(room)
        command = to_wire(rng.choice(expand_legal(game, ada.legal(room))))
        if (await ada.act(room, command)).TYPE == "accepted":
            acked.append(command)
    assert a.hub.rooms[room].lease_epoch == 1 and room not in b.hub.rooms
    token = ada.token
    await ada.close()

    # Ada on node A, on a socket of her own, to see exactly what A says.
    socket = await ws_connect(f"ws://127.0.0.1:{a.port}/ws")
    await _hello(socket, token)
    await socket.send(msgpack.packb({"type": "join_seat", "id": 2, "room": room, "seat": 0}))
    # Node A pauses past its lease: it stops renewing; node B claims the room and rebuilds it.
    await a.hub.ownership.stop()
    await until(lambda: room in b.hub.rooms, 10 * TTL)
    assert b.hub.rooms[room].lease_epoch == 2
    assert b.hub.rooms[room].seq == a.hub.rooms[room].seq, "rebuilt from the same log"

    # A, not knowing yet, takes Ada's next move: its append is fenced and A lets the room go.
    live = a.hub.rooms[room]
    legal = expand_legal(game, game.legal(live.state, 0))
    late = to_wire(legal[0]) if legal else None
    if late is not None:
        await socket.send(
            msgpack.packb({"type": "act", "id": 3, "room": room, "command": late, "seq": live.seq})
        )
    else:  # not Ada's turn: the bot's move on A is what gets fenced
        a.hub.bots.poke(live)
    seen: list[dict] = []
    while True:
        try:
            seen.append(msgpack.unpackb(await asyncio.wait_for(socket.recv(), 10)))
        except Exception:
            break
    assert socket.close_code == 1001
    assert {"type": "bye", "code": "going_away"}.items() <= seen[-1].items()
    assert not any(m.get("type") == "accepted" and m.get("ref") == 3 for m in seen)
    assert room not in a.hub.rooms

    # Ada reconnects through node B and finishes the game there.
    back = await LuminClient.connect(f"ws://127.0.0.1:{b.port}/ws", "Ada", token=token)
    await back.join(room, 0)
    await asyncio.wait_for(play_seat(back, room, rng, "flip_over_frog"), 60)
    log = await b.store.get_records(room)
    assert [r.seq for r in log] == list(range(1, len(log) + 1)), "one log, no fork"
    ours = [r.command for r in log if r.seat == 0]
    assert ours[: len(acked)] == acked, "every acknowledged command is in the log"
    await back.close()
    await socket.close()


async def test_a_node_stopping_lets_its_rooms_go_at_once(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    ada = await LuminClient.connect(f"ws://127.0.0.1:{a.port}/ws", "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await ada.close()
    lease = await b.store.lease(room)
    assert lease is not None and (lease.node, lease.epoch) == ("node-a", 1)
    stopped = time.monotonic()
    await a.stop()
    await until(lambda: room in b.hub.rooms, 5 * TTL)
    assert time.monotonic() - stopped < TTL, "claimed within a renewal round, not a TTL"
    lease = await b.store.lease(room)
    assert lease is not None and (lease.node, lease.epoch) == ("node-b", 2)


async def test_a_room_created_on_a_node_is_leased_to_it(nodes) -> None:
    a = await nodes("node-a")
    ada = await LuminClient.connect(f"ws://127.0.0.1:{a.port}/ws", "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    lease = await a.store.lease(room)
    assert lease is not None and (lease.node, lease.epoch) == ("node-a", 1)
    assert lease.expires > time.time()
    assert a.hub.ownership.epochs == {room: 1}
    await ada.close()


async def test_a_lease_another_node_took_is_noticed_at_renewal_and_the_room_let_go(
    nodes,
) -> None:
    a = await nodes("node-a")
    ada = await LuminClient.connect(f"ws://127.0.0.1:{a.port}/ws", "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    live = a.hub.rooms[room]
    # Another node takes the room while node A's lease has lapsed (A was slow to renew): no
    # renewal of A's runs between the lapse and the claim.
    async with a.hub.ownership._renewing:
        await a.store.release(room, "node-a", 1)
        assert await a.store.claim(room, "node-x", ttl=30) == 2
    await until(lambda: room not in a.hub.rooms, 3 * TTL)
    assert live.closed and a.hub.ownership.epochs == {}
    await until(lambda: live._task is not None and live._task.done(), TTL)
    await ada.close()
