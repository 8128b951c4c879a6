"""A Lumin server on the PostgreSQL store (``--store postgresql://...``): a game is played
over real connections, the server stops mid-game and a new one on the same database rebuilds
the room and plays it to the end, and the finished game's replay, log download and lobby
entry come from PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.request

from clients.sdk import LuminClient, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from server.app import LuminServer
from server.config import Settings
from server.pgstore import PostgresStore
from tests.server.conftest import TEST_LIMITS
from tests.server.test_play import play_seat
from tests.server.test_store_contract import reset_postgres


async def test_a_game_outlives_its_server_on_postgresql(postgres_url: str, tmp_path) -> None:
    await reset_postgres(postgres_url)
    settings = Settings(
        port=0, data=tmp_path / "unused", store=postgres_url, bot_delay=0.0, **TEST_LIMITS
    )
    first = LuminServer(settings)
    await first.start()
    assert isinstance(first.store, PostgresStore) and first.lock is None
    url = f"ws://127.0.0.1:{first.port}/ws"
    ada = await LuminClient.connect(url, "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    rng, game, accepted = random.Random(5), get_game("flip_over_frog"), 0
    while accepted < 3:  # a few moves, each acknowledged only once PostgreSQL committed it
        while not ada.legal(room):
            await ada.changed(room)
        answer = await ada.act(room, to_wire(rng.choice(expand_legal(game, ada.legal(room)))))
        accepted += answer.TYPE == "accepted"
    token = ada.token
    await ada.close()
    await first.stop()

    second = LuminServer(settings)
    await second.start()
    try:
        assert second.recovered == 1 and room in second.hub.rooms
        kept = await second.store.get_records(room)
        assert len(kept) >= 3 and [r.seq for r in kept] == list(range(1, len(kept) + 1))
        url = f"ws://127.0.0.1:{second.port}/ws"
        back = await LuminClient.connect(url, "Ada", token=token)
        await back.join(room, 0)
        await asyncio.wait_for(play_seat(back, room, rng, "flip_over_frog"), 60)
        assert second.hub.rooms[room].status == "finished"
        for _ in range(100):  # the status is written just after the game's end is sent
            stored = await second.store.get_room(room)
            if stored is not None and stored.status == "finished":
                break
            await asyncio.sleep(0.05)
        assert stored is not None and stored.status == "finished"
        replay = await back.open_replay(room, viewer=0)
        assert replay.length == len(await second.store.get_records(room))
        listed = [r.room for r in await back.list_rooms("flip_over_frog")]
        assert room in listed
        log_url = f"http://127.0.0.1:{second.port}/rooms/{room}/log"
        document = json.loads(
            await asyncio.to_thread(lambda: urllib.request.urlopen(log_url).read())
        )
        assert document["room"] == room and len(document["records"]) == replay.length
        await back.close()
    finally:
        await second.stop()
        await reset_postgres(postgres_url)  # the worker's database is shared: leave it empty
