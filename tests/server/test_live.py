"""Live-play behaviour: a four-client Flash 8 race, stand-in bots, the turn clock, taking over
a bot seat, rematches, room expiry and graceful shutdown."""

from __future__ import annotations

import asyncio
import random
import time

import attrs
import pytest
from websockets.asyncio.client import connect as ws_connect

from clients.sdk import LuminClient, ServerError, bot, human
from server.app import LuminServer
from tests.server.test_play import play_seat
from tests.server.test_rooms import wait_over


async def test_flash8_race_with_four_clients_sliding_at_once(connect) -> None:
    clients: list[LuminClient] = [await connect(f"P{n}") for n in range(4)]
    spectator: LuminClient = await connect("Eve")
    room = await clients[0].create_room(
        "flash8",
        seats=[human() for _ in range(4)],
        options={"countdown": 0.2, "time_limit": 8},
        sit=0,
    )
    for seat, client in enumerate(clients[1:], start=1):
        await client.join(room, seat)
        await client.ready(room)
    await spectator.watch(room)
    await clients[0].start(room)
    await asyncio.wait_for(
        asyncio.gather(
            *(play_seat(c, room, random.Random(n), "flash8") for n, c in enumerate(clients))
        ),
        60,
    )
    over = clients[0].game_over[room]
    assert over.outcome.reason
    await wait_over(spectator, room)
    public = spectator.view(room)
    assert len(public["players"]) == 4 if "players" in public else public


async def test_disconnected_player_gets_a_stand_in_bot_and_returns(
    connect, server: LuminServer
) -> None:
    ada: LuminClient = await connect("Ada")
    bob: LuminClient = await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bob.join(room, 1)
    await bob.ready(room)
    await ada.start(room)
    token = bob.token
    await bob.close()
    # Ada keeps playing; after the 0.5 s grace period a bot plays Bob's seat.
    await asyncio.wait_for(play_seat(ada, room, random.Random(2), "flip_over_frog"), 60)
    live = server.hub.rooms[room]
    assert live.status == "finished"
    assert live.seats[1].user == bob.user, "the seat stays Bob's"
    assert any(r.seat == 1 for r in server.store.records(room)), "a bot played Bob's seat"
    back = await connect("Bob", token=token)
    await back.watch(room)
    assert back.view(room)["outcome"]


async def test_stand_in_stops_when_the_player_returns(connect, server: LuminServer) -> None:
    ada: LuminClient = await connect("Ada")
    bob: LuminClient = await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bob.join(room, 1)
    await bob.ready(room)
    await ada.start(room)
    token = bob.token
    await bob.close()
    await asyncio.sleep(0.8)
    assert (room, 1) in server.hub.bots.drivers
    again = await connect("Bob", token=token)
    await again.join(room, 1)
    assert (room, 1) not in server.hub.bots.drivers


async def test_a_player_who_leaves_during_the_game_gets_a_bot_at_once(
    connect, server: LuminServer
) -> None:
    # Leaving on purpose is not a lost connection: no grace period to wait out.
    server.hub.bots.settings = attrs.evolve(server.settings, grace=600.0)
    ada: LuminClient = await connect("Ada")
    bob: LuminClient = await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bob.join(room, 1)
    await bob.ready(room)
    await ada.start(room)
    await bob.leave(room)
    assert (room, 1) not in server.hub.bots.grace
    await asyncio.wait_for(play_seat(ada, room, random.Random(3), "flip_over_frog"), 30)
    assert server.hub.rooms[room].seats[1].user == bob.user, "the seat stays Bob's"
    assert any(r.seat == 1 for r in server.store.records(room)), "a bot played Bob's seat"


async def test_turn_clock_moves_for_a_player_who_takes_too_long(
    connect, server: LuminServer
) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0, turn_clock=0.3)
    await ada.start(room)
    live = server.hub.rooms[room]
    plays = live.state.plays
    started = time.monotonic()
    while live.state.plays < plays + 3 and time.monotonic() - started < 10:
        await asyncio.sleep(0.05)
    assert live.state.plays >= plays + 3, "the clock played Ada's turns for her"


async def test_a_person_takes_over_a_bot_seat_mid_game(connect, server: LuminServer) -> None:
    # Bots at 50 ms a move: at the tests' 0 s the two could finish before Ada joins.
    server.hub.bots.settings = attrs.evolve(server.settings, bot_delay=0.05)
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[bot(), bot()])
    await ada.watch(room)
    await ada.changed(room)
    await ada.join(room, 1)
    assert server.hub.rooms[room].seats[1].kind == "human"
    await asyncio.wait_for(play_seat(ada, room, random.Random(4), "flip_over_frog"), 60)
    assert room in ada.game_over


async def test_rematch_opens_a_new_room_with_the_same_seats(connect) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    with pytest.raises(ServerError) as refused:
        await ada.rematch(room)
    assert refused.value.code == "not_finished"
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(5), "flip_over_frog"), 60)
    new = await ada.rematch(room)
    assert new != room
    summary = next(r for r in await ada.list_rooms() if r.room == new)
    assert [s.kind for s in summary.seats] == ["human", "bot"] and summary.state == "waiting"


async def test_idle_waiting_rooms_expire(connect, server: LuminServer) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await ada.leave(room)
    server.hub.sweep(time.time() + server.settings.idle_expiry + 1)
    await asyncio.sleep(0.1)
    assert room not in server.hub.rooms
    assert server.store.room(room).status == "expired"


async def test_graceful_shutdown_closes_connections_with_going_away(
    server: LuminServer, url: str
) -> None:
    async with ws_connect(url) as socket:
        await server.stop()
        await socket.wait_closed()
        assert socket.close_code == 1001


async def test_finished_games_are_deleted_after_the_retention_period(
    connect, server: LuminServer
) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[bot(), bot()])
    await ada.watch(room)
    await wait_over(ada, room)
    await asyncio.sleep(0.1)
    server.hub.sweep(time.time())
    await asyncio.sleep(0.1)
    assert server.store.room(room) is not None, "kept within the retention period"
    server.hub.sweep(time.time() + server.settings.retention_days * 86400 + 1)
    await asyncio.sleep(0.1)
    assert server.store.room(room) is None
    assert list(server.store.records(room)) == []
