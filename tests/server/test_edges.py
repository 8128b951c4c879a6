"""Edge cases of seats, resume and shutdown that once went wrong."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import time
from typing import Any

import attrs
import msgpack
import pytest
import websockets.asyncio.client as ws_client
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from clients.sdk import LuminClient, ServerError, bot, human
from engine.core import from_wire
from protocol.messages import Delta, Resume, RoomUpdate, Snapshot
from server.app import LuminServer
from server.batch import QueuedAct
from server.config import Settings
from server.errors import Refused
from server.room import Room
from tests.server.conftest import TEST_LIMITS
from tests.server.test_play import play_seat
from tests.server.test_rooms import play_one


async def test_resume_of_a_viewer_nobody_watched_gets_a_snapshot(connect, server) -> None:
    """Past the resume window (none here), a viewer's deltas are no longer made."""
    server.hub.settings = attrs.evolve(server.hub.settings, resume_window=0.0)
    ada: LuminClient = await connect("Ada")
    eve: LuminClient = await connect("Eve")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await eve.watch(room)
    await ada.start(room)
    await eve.changed(room)
    seen, epoch = eve.seq(room), eve.conn.views[room].epoch
    await eve.close()  # nobody watches the public view while Ada plays on
    rng = random.Random(3)
    for _ in range(3):
        while not ada.legal(room):
            await ada.changed(room)
        await play_one(ada, room, rng)
    back: LuminClient = await connect("Eve2")
    answer = await back.request(Resume(room=room, seq=seen, epoch=epoch))
    assert isinstance(answer, Snapshot) and answer.seq > seen
    assert back.seq(room) == answer.seq and back.view(room) == answer.view


async def test_leaving_a_seat_takes_its_view_from_every_tab(connect, server) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=1)
    tab = await connect("Ada", token=ada.token)
    await tab.watch(room)
    await ada.leave(room)
    await bob.join(room, 1)
    await bob.ready(room)
    host = await connect("Host")
    await host.join(room, 0)
    live = server.hub.rooms[room]
    assert live.peers[next(p for p in live.peers if p.user == tab.user)] is None
    assert tab.user == ada.user


async def test_a_person_absent_at_the_start_gets_a_stand_in(connect, server) -> None:
    ada: LuminClient = await connect("Ada")
    bob: LuminClient = await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bob.join(room, 1)
    await bob.ready(room)
    await bob.close()
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(8), "flip_over_frog"), 60)
    assert server.hub.rooms[room].status == "finished"
    assert any(r.seat == 1 for r in server.store.records(room)), "a bot played Bob's seat"


async def test_rematch_is_for_players_and_asking_twice_gives_one_room(connect) -> None:
    ada: LuminClient = await connect("Ada")
    eve: LuminClient = await connect("Eve")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await eve.watch(room)
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(9), "flip_over_frog"), 60)
    with pytest.raises(ServerError) as refused:
        await eve.rematch(room)
    assert refused.value.code == "not_seated"
    assert await ada.rematch(room) == await ada.rematch(room)


async def test_shutdown_with_requests_in_flight_finishes(connect, server: LuminServer) -> None:
    clients = [await connect(f"P{n}") for n in range(4)]
    rooms = [
        await c.create_room("flip_over_frog", seats=[human(), human()], sit=0) for c in clients
    ]

    async def spam(client: LuminClient, room: str) -> None:
        with pytest.raises(ServerError):
            while True:
                await client.ready(room, True)

    tasks = [asyncio.create_task(spam(c, r)) for c, r in zip(clients, rooms, strict=True)]
    await asyncio.sleep(0.2)
    started = time.monotonic()
    await asyncio.wait_for(server.stop(), 15)
    assert time.monotonic() - started < 10
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_client_that_stops_reading_is_dropped_and_its_room_plays_on(tmp_path) -> None:
    """A connection whose unsent bytes pass ``send_buffer`` is closed as too slow; the room and
    its other viewers do not notice (issue: slow clients never slow their room)."""
    settings = Settings(
        host="127.0.0.1",
        port=0,
        data=tmp_path / "data",
        bot_delay=0.0,
        **{**TEST_LIMITS, "rate": 100_000.0, "burst": 100_000},
        send_buffer=256 * 1024,
    )
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    try:
        ada = await LuminClient.connect(url, "Ada")
        room = await ada.create_room("neon_flip", seats=[human(), bot()], sit=0)
        await ada.start(room)
        # A client that asks for snapshot after snapshot and reads none of them: a tiny
        # receive buffer, and websockets stops reading once 4 messages wait unread.
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        raw.connect(("127.0.0.1", lumin.port))
        slow = await connect(url, sock=raw, max_queue=4, compression=None)
        await slow.send(msgpack.packb({"type": "hello", "versions": [1], "name": "Sloth"}))
        resume = msgpack.packb({"type": "resume", "room": room, "seq": 0, "epoch": ""})
        deadline = time.monotonic() + 20
        while not lumin.hub.metrics.dropped._value.get() and time.monotonic() < deadline:
            with contextlib.suppress(ConnectionClosed):
                for _ in range(200):
                    await slow.send(resume)
            await asyncio.sleep(0.01)
        assert lumin.hub.metrics.dropped._value.get() == 1
        # Ada's game goes on: her moves are accepted and her views keep coming.
        await asyncio.wait_for(play_seat(ada, room, random.Random(5), "neon_flip"), 60)
        assert room in ada.game_over
        slow.transport.abort()
    finally:
        await lumin.stop()


async def test_a_crowd_of_spectators_costs_a_few_room_updates_not_one_each(connect) -> None:
    """Room updates are throttled per room (Room._changed): 30 arrivals, everyone learns the
    final count, and the player gets far fewer than 30 updates."""
    ada = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await asyncio.sleep(0.3)  # past the throttle interval of the creation's own updates
    while not ada.messages.empty():
        ada.messages.get_nowait()
    crowd = [await connect(f"Fan{n}") for n in range(30)]
    await asyncio.gather(*(fan.watch(room) for fan in crowd))
    counts: list[int] = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (not counts or counts[-1] != 30):
        message = await asyncio.wait_for(ada.messages.get(), 5)
        if isinstance(message, RoomUpdate) and message.info.room == room:
            counts.append(message.info.spectators)
    assert counts[-1] == 30
    assert len(counts) < 10, counts


async def _quiet_race(
    ada: LuminClient, server: LuminServer, *watchers: LuminClient
) -> tuple[str, Room]:
    """A running Flash 8 race of Ada's against a bot whose driver is stopped, so that only
    the test's commands reach the room; ``watchers`` watch it from before the start."""
    room_id = await ada.create_room(
        "flash8", seats=[human(), bot()], options={"countdown": 0.0}, sit=0
    )
    for watcher in watchers:
        await watcher.watch(room_id)
    await ada.start(room_id)
    while not any(entry["type"] == "slide" for entry in ada.legal(room_id)):
        await ada.changed(room_id)
    room = server.hub.room(room_id)
    server.hub.bots.stop_room(room)
    return room_id, room


def _three_slides(room: Room) -> tuple[list[dict[str, Any]], Any]:
    """Three slides seat 0 may make one after the other in a running Flash 8 race, and the
    state they lead to."""
    game, state = room.game, room.state
    commands = []
    for _ in range(3):
        entry = next(e for e in game.legal(state, 0) if e["type"] == "slide")
        command = {"type": "slide", "src": entry["src"], "dst": entry["dst"]}
        commands.append(command)
        for event in game.decide(state, 0, from_wire(game.commands, command), time.time(), None):
            state = game.evolve(state, event)
    return commands, state


async def test_acts_queued_together_are_decided_in_order_and_committed_once(
    connect, server: LuminServer
) -> None:
    """Room.act_batch: three slides waiting in the queue at once are decided one after the
    other, committed in one store batch, and answered in order with consecutive seqs; a
    fourth, chosen from the legal commands the first one changed, is stale."""
    _, room = await _quiet_race(await connect("Ada"), server)
    seen = room.seq
    commands, state = _three_slides(room)
    stale = {"type": "flash"}
    batches = server.hub.store.batches
    results = await asyncio.gather(
        # The first names the seq it saw; the next two, sent without one, are never stale.
        *(
            room.call(QueuedAct(None, 0, command, None, seen if n == 0 else None))
            for n, command in enumerate(commands)
        ),
        room.call(QueuedAct(None, 0, stale, None, seen)),
        return_exceptions=True,
    )
    assert results[:3] == [None, None, None]
    assert isinstance(results[3], Refused) and results[3].code == "stale"
    assert room.seq == seen + 3 and room.state == state
    assert server.hub.store.batches == batches + 1


async def test_a_batch_reaches_each_viewer_as_one_delta(
    connect, server: LuminServer, url: str
) -> None:
    """Room._refresh_views: three slides committed in one batch reach a spectator as one
    delta from the seq before the batch to the seq after it, which brings its copy to the
    room's view. Resuming from a seq inside the batch, which no client ever held, is answered
    with a snapshot; resuming from the seq before the batch, with that one delta."""
    ada, bea = await connect("Ada"), await connect("Bea")
    room_id, room = await _quiet_race(ada, server, bea)
    while bea.seq(room_id) != room.seq:
        await bea.changed(room_id)
    while not bea.messages.empty():
        bea.messages.get_nowait()
    seen = room.seq
    commands, state = _three_slides(room)
    results = await asyncio.gather(
        *(room.call(QueuedAct(None, 0, command, None, None)) for command in commands)
    )
    assert results == [None, None, None] and room.seq == seen + 3 and room.state == state
    while bea.seq(room_id) != seen + 3:
        await bea.changed(room_id)
    deltas = []
    while not bea.messages.empty():
        message = bea.messages.get_nowait()
        if isinstance(message, Delta) and message.room == room_id:
            deltas.append(message)
    assert [(d.base, d.seq) for d in deltas] == [(seen, seen + 3)]
    assert deltas[0].ops and bea.view(room_id) == room.game.view(state, None)

    async with ws_client.connect(url, compression=None) as raw:

        async def ask(message: dict[str, Any]) -> list[dict[str, Any]]:
            """Send ``message`` and return the frames up to and including its answer, but
            ``room_update``: Cy's arrival changes the spectator count, and that update is
            throttled (Room._changed), so it may come in the middle of the next answer."""
            await raw.send(msgpack.packb(message))
            frames = [msgpack.unpackb(await raw.recv())]
            while frames[-1].get("ref") != message["id"]:
                frames.append(msgpack.unpackb(await raw.recv()))
            return [frame for frame in frames if frame["type"] != "room_update"]

        await ask({"type": "hello", "versions": [1], "name": "Cy", "id": 1})
        epoch = server.hub.epoch
        inside = await ask(
            {"type": "resume", "room": room_id, "seq": seen + 1, "epoch": epoch, "id": 2}
        )
        assert [(f["type"], f.get("seq")) for f in inside] == [("snapshot", seen + 3)]
        before = await ask(
            {"type": "resume", "room": room_id, "seq": seen, "epoch": epoch, "id": 3}
        )
        assert [(f["type"], f.get("base"), f.get("seq")) for f in before] == [
            ("delta", seen, seen + 3),
            ("ok", None, None),
        ]


async def test_requests_behind_an_act_are_answered_in_order(
    connect, server: LuminServer, url: str
) -> None:
    """Client._take: acts are taken straight from the socket when nothing else of the
    connection's waits, yet the answers keep the order of the requests: slides and pings
    written back to back are answered in that order, the slides with consecutive seqs. An act
    for a room the connection is not in is refused with ``not_in_room``."""
    ada = await connect("Ada")
    room_id, room = await _quiet_race(ada, server)
    async with ws_client.connect(url, compression=None) as raw:

        async def until(ref: int) -> list[dict[str, Any]]:
            """The frames up to and including the answer with ``ref``."""
            frames = [msgpack.unpackb(await raw.recv())]
            while frames[-1].get("ref") != ref:
                frames.append(msgpack.unpackb(await raw.recv()))
            return frames

        await raw.send(
            msgpack.packb(
                {"type": "hello", "versions": [1], "name": "Ada", "token": ada.token, "id": 1}
            )
        )
        await until(1)
        await raw.send(
            msgpack.packb(
                {"type": "act", "room": "r-elsewhere", "id": 2, "command": {"type": "flash"}}
            )
        )
        (refused,) = [f for f in await until(2) if f.get("ref") == 2]
        assert (refused["type"], refused["code"]) == ("rejected", "not_in_room")
        await raw.send(
            msgpack.packb({"type": "resume", "room": room_id, "seq": 0, "epoch": "", "id": 3})
        )
        await until(3)
        seen = room.seq
        commands, state = _three_slides(room)
        ping = {"type": "ping", "client_time": 1.0}
        # One act and a ping, then two acts and a ping, each group written back to back.
        for ref, message in enumerate(
            [
                {"type": "act", "room": room_id, "command": commands[0]},
                ping,
                {"type": "act", "room": room_id, "command": commands[1]},
                {"type": "act", "room": room_id, "command": commands[2]},
                ping,
            ],
            start=4,
        ):
            await raw.send(msgpack.packb({**message, "id": ref}))
        answers = [f for f in await until(8) if f.get("ref") is not None]
    assert [(a["type"], a["ref"], a.get("seq")) for a in answers] == [
        ("accepted", 4, seen + 1),
        ("pong", 5, None),
        ("accepted", 6, seen + 2),
        ("accepted", 7, seen + 3),
        ("pong", 8, None),
    ]
    assert room.state == state
