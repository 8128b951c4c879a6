"""Caps on what one person can make the server hold: open rooms per identity and per address,
playing rooms that nobody attends are stopped, and the lobby answers in pages."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import attrs
import pytest

from clients.sdk import LuminClient, ServerError, bot, human
from protocol.messages import ListRooms
from server.app import LuminServer
from server.config import Settings
from server.store import EventStore
from tests.server.conftest import TEST_LIMITS
from tests.server.test_rooms import wait_over


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        port=0,
        data=tmp_path / "data",
        bot_delay=0.0,
        grace=30.0,
        **{**TEST_LIMITS, "rooms_per_identity": 2, "rooms_per_address": 3},
        lobby_page=2,
        abandoned_after=5.0,
    )


def server_rooms(client: LuminClient) -> list[str]:
    return [room for room, info in client.room_info.items() if info.state != "finished"]


async def test_an_identity_may_hold_only_so_many_open_rooms(connect) -> None:
    ada: LuminClient = await connect("Ada")
    await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    with pytest.raises(ServerError) as refused:
        await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    assert refused.value.code == "too_many_rooms"
    assert "(2)" in refused.value.message
    assert len([r for r in server_rooms(ada)]) == 2


async def test_a_finished_room_no_longer_counts(connect, server: LuminServer) -> None:
    # Bots at 50 ms a move: at the tests' 0 s the bot-only room could finish before the cap
    # is tried.
    server.hub.bots.settings = attrs.evolve(server.settings, bot_delay=0.05)
    ada: LuminClient = await connect("Ada")
    quick = await ada.create_room("flip_over_frog", seats=[bot(), bot()])
    await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    with pytest.raises(ServerError):
        await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await wait_over(ada, quick, timeout=60)
    await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)


async def test_an_address_may_hold_only_so_many_open_rooms(connect) -> None:
    ada: LuminClient = await connect("Ada")
    bea: LuminClient = await connect("Bea")
    for client in (ada, ada, bea):
        await client.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    with pytest.raises(ServerError) as refused:
        await bea.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    assert refused.value.code == "too_many_rooms"
    assert "Your address" in refused.value.message


async def test_a_room_nobody_attends_is_stopped_and_one_watched_is_not(
    settings: Settings,
) -> None:
    server = LuminServer(attrs.evolve(settings, bot_delay=1.0))  # bots that take their time
    await server.start()
    try:
        ada = await LuminClient.connect(f"ws://127.0.0.1:{server.port}/ws", "Ada")
        lonely = await ada.create_room("flip_over_frog", seats=[bot(), bot()])
        watched = await ada.create_room("flip_over_frog", seats=[bot(), bot()])
        await ada.leave(lonely)  # the creator watched it since creating it
        now = time.monotonic()
        server.hub.abandon(now)  # someone was here a moment ago: nothing happens yet
        server.hub.abandon(now + 4.0)
        await asyncio.sleep(0.1)
        assert lonely in server.hub.rooms
        server.hub.abandon(now + 6.0)  # past abandoned_after with nobody there
        await asyncio.sleep(0.1)
        assert lonely not in server.hub.rooms
        assert watched in server.hub.rooms, "Ada still watches this one"
        assert server.hub.rooms[watched].status == "playing"
        await ada.close()
    finally:
        await server.stop()
    store = EventStore(settings.database)
    try:
        assert store.room(lonely).status == "abandoned"
    finally:
        store.close()


async def test_a_seated_human_within_their_grace_attends_their_room(
    connect, server: LuminServer
) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await ada.close()  # disconnected: her grace (30 s) runs
    await asyncio.sleep(0.1)
    server.hub.abandon(time.monotonic() + 10.0)
    await asyncio.sleep(0.1)
    assert room in server.hub.rooms
    assert server.hub.rooms[room].status == "playing"


async def test_a_rebuilt_room_is_not_judged_in_its_first_seconds(tmp_path: Path) -> None:
    settings = Settings(port=0, data=tmp_path / "data", bot_delay=1.0, abandoned_after=5.0)
    first = LuminServer(settings)
    await first.start()
    url = f"ws://127.0.0.1:{first.port}/ws"
    ada = await LuminClient.connect(url, "Ada")
    room = await ada.create_room("flip_over_frog", seats=[bot(), bot()])
    await ada.close()
    await first.stop()
    second = LuminServer(settings)
    await second.start()
    try:
        assert second.hub.rooms[room].status == "playing"
        second.hub.abandon(time.monotonic() + 1.0)  # just rebuilt, nobody back yet
        await asyncio.sleep(0.1)
        assert room in second.hub.rooms
        second.hub.abandon(time.monotonic() + 6.0)
        await asyncio.sleep(0.1)
        assert room not in second.hub.rooms
    finally:
        await second.stop()
    store = EventStore(settings.database)
    try:
        assert store.room(room).status == "abandoned"
    finally:
        store.close()


async def test_the_lobby_answers_in_pages_live_rooms_first(connect, server) -> None:
    clients = [await connect(f"P{n}") for n in range(3)]
    done = await clients[0].create_room("flip_over_frog", seats=[bot(), bot()])
    await wait_over(clients[0], done, timeout=60)
    live = []
    for client in clients:
        live.append(await client.create_room("flip_over_frog", seats=[human(), bot()], sit=0))
        await asyncio.sleep(0.01)  # distinct creation times
    pages, offset = [], 0
    while offset is not None:
        answer = await clients[0].request(ListRooms(offset=offset))
        assert len(answer.rooms) <= 2
        assert answer.total == 4
        pages.append([summary.room for summary in answer.rooms])
        offset = answer.next
    assert pages == [[live[2], live[1]], [live[0], done]]
    first = await clients[0].request(ListRooms(limit=50))  # the server's page size caps it
    assert len(first.rooms) == 2
    watched = await clients[1].watch_lobby()
    assert [summary.room for summary in watched] == [live[2], live[1]]
