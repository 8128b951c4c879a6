"""Lobby, resume, chat, replays and logs, over real websockets."""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.error
import urllib.request

import pytest

from clients.sdk import LuminClient, ServerError, bot, human
from protocol.messages import LobbyUpdate, Mute
from server.app import LuminServer
from server.hub import UNATTENDED
from server.verify import verify_document
from tests.server.test_play import play_seat


async def bots_only(client: LuminClient, game: str = "flip_over_frog", seats: int = 2) -> str:
    return await client.create_room(game, seats=[bot() for _ in range(seats)])


async def wait_over(client: LuminClient, room: str, timeout: float = 30) -> None:
    async def until() -> None:
        while room not in client.game_over:
            await client.changed(room)

    await asyncio.wait_for(until(), timeout)


async def test_lobby_lists_rooms_and_sends_live_updates(connect) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    before = await bob.watch_lobby()
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    update = None
    while update is None:
        message = await asyncio.wait_for(bob.messages.get(), 5)
        if isinstance(message, LobbyUpdate) and any(r.room == room for r in message.rooms):
            update = message
    summary = next(r for r in update.rooms if r.room == room)
    assert summary.game == "flip_over_frog" and summary.state == "waiting"
    assert [s.kind for s in summary.seats] == ["human", "bot"]
    assert room not in [r.room for r in before]
    assert room in [r.room for r in await bob.list_rooms("flip_over_frog")]


async def test_a_room_made_while_the_lobby_is_read_is_never_lost_to_its_watcher(
    connect, server, monkeypatch
) -> None:
    # The lobby's first page waits for the store (finished games, read off the loop); a room
    # made meanwhile must end up in that page or in an update sent after it, never in an
    # update the page then overwrites.
    ada, bob = await connect("Ada"), await connect("Bob")
    reading, go = asyncio.Event(), asyncio.Event()
    count = server.hub.store.get_finished_count

    async def slow_count(game: str | None = None) -> int:
        reading.set()
        await go.wait()
        return await count(game)

    monkeypatch.setattr(server.hub.store, "get_finished_count", slow_count)
    watching = asyncio.create_task(bob.watch_lobby())
    await asyncio.wait_for(reading.wait(), 5)
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await asyncio.sleep(0.3)  # the room's lobby update goes out while the page waits
    go.set()
    listed = [summary.room for summary in await asyncio.wait_for(watching, 5)]
    while not bob.messages.empty():  # what came before the page: the page replaces it
        bob.messages.get_nowait()
    if room not in listed:

        async def updated() -> None:
            while True:
                message = await bob.messages.get()
                if isinstance(message, LobbyUpdate) and any(r.room == room for r in message.rooms):
                    return

        await asyncio.wait_for(updated(), 5)


async def test_a_waiting_room_everyone_left_leaves_the_lobby_until_someone_returns(
    connect,
) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    await bob.watch_lobby()
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    assert room in [r.room for r in await bob.list_rooms()]
    token = ada.token
    await ada.close()  # the only person in it closed the page

    async def told(check) -> None:
        while True:
            message = await bob.messages.get()
            if isinstance(message, LobbyUpdate) and check(message):
                return

    await asyncio.wait_for(told(lambda m: room in m.removed), 5)
    assert room not in [r.room for r in await bob.list_rooms()]
    back = await connect("Ada", token=token)
    await back.watch(room)
    await asyncio.wait_for(told(lambda m: any(r.room == room for r in m.rooms)), 5)
    assert room in [r.room for r in await bob.list_rooms()]


async def test_a_rematch_nobody_opened_leaves_the_lobby_after_five_minutes(connect, server) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(7), "flip_over_frog"), 60)
    new = await ada.rematch(room)
    await ada.close()
    rematch = server.hub.rooms[new]
    assert not rematch.peers and new in [r.room for r in await bob.list_rooms()], "just made"
    await bob.watch_lobby()
    rematch.touched -= UNATTENDED + 1  # five minutes on, nobody has opened it
    server.hub.sweep(time.time())
    while True:
        message = await asyncio.wait_for(bob.messages.get(), 5)
        if isinstance(message, LobbyUpdate) and new in message.removed:
            break
    assert new not in [r.room for r in await bob.list_rooms()]
    assert not rematch.closed, "it waits on, to its idle expiry, for whoever has its link"


async def test_rooms_rebuilt_at_start_up_are_listed_once_someone_is_back(settings) -> None:
    first = LuminServer(settings)
    await first.start()
    url = f"ws://127.0.0.1:{first.port}/ws"
    ada = await LuminClient.connect(url, "Ada")
    waiting = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await ada.close()
    await first.stop()
    again = LuminServer(settings)
    await again.start()
    url = f"ws://127.0.0.1:{again.port}/ws"
    try:
        bob = await LuminClient.connect(url, "Bob")
        assert waiting in again.hub.rooms, "rebuilt"
        assert waiting not in [r.room for r in await bob.list_rooms()], "nobody is back yet"
        back = await LuminClient.connect(url, "Ada", token=ada.token)
        await back.watch(waiting)
        assert waiting in [r.room for r in await bob.list_rooms()]
        await back.close()
        await bob.close()
    finally:
        await again.stop()


async def test_games_lists_every_game_with_what_a_room_of_it_may_have(connect) -> None:
    """A client builds its create-room form from ``list_games`` alone: a room made from the
    listed seat counts, bots and options is accepted."""
    ada = await connect("Ada")
    games = {game.id: game for game in await ada.list_games()}
    assert set(games) == {"flip_over_frog", "neon_hex", "flash8", "neon_flip"}
    flash8 = games["flash8"]
    assert flash8.name == "Flash 8" and flash8.default_bot in flash8.bots
    assert [o.name for o in flash8.seat_options] == ["handicap"]
    mode = next(o for o in flash8.options if o.name == "mode")
    assert mode.kind == "choice" and set(mode.choices) == {"race", "solo"}
    assert [(r["when"], r["min"], r["max"]) for r in flash8.seats] == [
        ({"mode": "race"}, 2, 4),
        ({"mode": "solo"}, 1, 1),
    ]
    assert flash8.commands["slide"] == ["src", "dst"]
    assert "preview" not in {f for fields in games["neon_flip"].commands.values() for f in fields}
    hex_seats = games["neon_hex"].seats
    assert hex_seats == ({"when": {}, "min": 2, "max": 5},)
    for game in games.values():
        rule = game.seats[0]
        options = {o.name: o.default for o in game.options} | rule["when"]
        seats = [bot(kind) for kind in game.bots][: rule["max"]]
        seats += [bot(game.default_bot)] * (rule["min"] - len(seats))
        room = await ada.create_room(game.id, seats=seats, options=options)
        (summary,) = [r for r in await ada.list_rooms(game.id) if r.room == room]
        assert summary.game == game.id
        assert {name: summary.options[name] for name in options} == options
        assert [(s.kind, s.bot) for s in summary.seats] == [("bot", s.bot) for s in seats]
        assert summary.state in ("waiting", "playing", "finished"), "a bot-only room starts"


async def test_bot_only_room_plays_itself_to_the_end_for_spectators(connect) -> None:
    ada, eve = await connect("Ada"), await connect("Eve")
    room = await bots_only(ada, seats=4)
    await eve.watch(room)
    await wait_over(eve, room)
    over = eve.game_over[room]
    assert len(over.outcome.ranks) == 4 and over.seed and over.salt


async def test_who_arrives_or_returns_after_the_end_gets_the_outcome(connect) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    room = await bots_only(ada)
    await ada.watch(room)
    await wait_over(ada, room)
    await bob.watch(room)
    await wait_over(bob, room, timeout=5)
    assert bob.game_over[room].seed == ada.game_over[room].seed
    # Coming back with an up-to-date copy: no deltas to send, then the outcome again.
    again = await connect("Ada", token=ada.token)
    await again.resume(room, ada.seq(room), ada.conn.views[room].epoch)
    await wait_over(again, room, timeout=5)


async def test_resume_sends_missed_deltas_or_a_snapshot(connect, server) -> None:
    ada = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    rng = random.Random(3)
    # Play a few moves, remember where we were, play on, then come back on a new connection.
    for _ in range(2):
        while not ada.legal(room):
            await ada.changed(room)
        await play_one(ada, room, rng)
    seen, epoch, view_then = ada.seq(room), ada.conn.views[room].epoch, ada.view(room)
    for _ in range(2):
        while not ada.legal(room):
            await ada.changed(room)
        await play_one(ada, room, rng)
    now_view = ada.view(room)
    token = ada.token
    await ada.close()
    again = await connect("Ada", token=token)
    # Give the new connection the old copy, as a client that kept it would have.
    from protocol.views import RoomView

    again.conn.views[room] = RoomView(
        room=room, epoch=epoch, seq=seen, seat=0, view=view_then, legal=(), clock_origin=0.0
    )
    await again.resume(room, seen, epoch)
    live = server.hub.rooms[room]
    assert again.seq(room) == live.seq and again.view(room) == live.views[0]
    assert live.seq > seen and now_view != view_then
    # From another epoch (as after a restart), the answer is a full snapshot.
    other = await connect("Ada", token=token)
    await other.resume(room, seen, "stale-epoch")
    assert other.seq(room) == server.hub.rooms[room].seq


async def play_one(client: LuminClient, room: str, rng: random.Random) -> None:
    from engine.core import expand_legal, to_wire
    from engine.registry import get_game

    game = get_game(client.view(room)["game"])
    command = rng.choice(expand_legal(game, client.legal(room)))
    await client.act(room, to_wire(command))


async def test_chat_players_to_all_spectators_to_spectators_with_mute_and_limits(connect) -> None:
    ada, eve, zed = await connect("Ada"), await connect("Eve"), await connect("Zed")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await eve.watch(room)
    await zed.watch(room)
    await zed.request(Mute(user=eve.user))
    await ada.say(room, "good luck")
    await eve.say(room, "go Ada")
    await asyncio.sleep(0.2)
    assert [m.text for m in eve.chat] == ["good luck", "go Ada"]
    assert [m.text for m in ada.chat] == ["good luck"], "players do not see spectator chat"
    assert [m.text for m in zed.chat] == ["good luck"], "Zed muted Eve"
    with pytest.raises(ServerError) as refused:
        await ada.say(room, "x" * 501)
    assert refused.value.code == "chat_too_long"
    with pytest.raises(ServerError) as refused:
        for n in range(10):
            await ada.say(room, f"spam {n}")
    assert refused.value.code == "rate_limited"


async def test_finished_game_replays_and_its_log_verifies(connect, server) -> None:
    ada = await connect("Ada")
    room = await bots_only(ada, seats=3)
    await ada.watch(room)
    await wait_over(ada, room)
    await asyncio.sleep(0.1)
    state = await ada.open_replay(room)
    assert state.position == 0 and state.length > 10 and state.viewer is None
    end = await ada.replay_seek(state.replay, state.length)
    assert end.view["outcome"] is not None
    as_seat = await ada.replay_viewer(state.replay, 1)
    assert "hand" in as_seat.view
    step = await ada.replay_step(state.replay, -as_seat.position + 3)
    assert step.position == 3
    # The replay's clock is the game's: the start at 0, then each step's own time.
    assert state.at is not None and state.at <= step.at <= end.at <= time.time()
    url = f"http://127.0.0.1:{server.port}/rooms/{room}/log"
    document = await asyncio.to_thread(lambda: json.load(urllib.request.urlopen(url)))
    report = verify_document(document)
    assert report.ok, report.problems
    assert report.records == state.length
    assert step.at == document["records"][2]["at"] and state.at == document["started"]
    document["records"][2]["events"][0]["space"] = (
        document["records"][2]["events"][0].get("space", 0) + 1
    ) % 16
    assert not verify_document(document).ok


async def test_health_and_metrics_endpoints(server) -> None:
    base = f"http://127.0.0.1:{server.port}"
    health = await asyncio.to_thread(lambda: json.load(urllib.request.urlopen(base + "/healthz")))
    assert health["status"] == "ok"
    # No metrics on the game port of a server without an admin token: Prometheus scrapes
    # --metrics-listen (tests/server/test_metrics.py)
    with pytest.raises(urllib.error.HTTPError) as refused:
        await asyncio.to_thread(urllib.request.urlopen, base + "/metrics")
    assert refused.value.code == 404
    assert b"--metrics-listen" in refused.value.read()


async def test_flash8_solo_results_are_kept_as_high_scores(connect, server) -> None:
    ada = await connect("Ada")
    room = await ada.create_room(
        "flash8", seats=[bot()], options={"mode": "solo", "countdown": 0.1, "solo_seconds": 5}
    )
    await ada.watch(room)
    await wait_over(ada, room)
    await asyncio.sleep(0.1)
    url = f"http://127.0.0.1:{server.port}/highscores"
    scores = await asyncio.to_thread(lambda: json.load(urllib.request.urlopen(url)))
    (best,) = scores["high_scores"]
    assert best["room"] == room and best["score"] == ada.game_over[room].outcome.scores[0]
    assert best["rank"] in ("TACHYON", "PHOTON", "NEUTRINO", "ELECTRON", "QUARK", "GLUON")


async def test_finished_games_stay_listed_for_replay_after_leaving_memory(connect, server) -> None:
    ada = await connect("Ada")
    room = await bots_only(ada, seats=2)
    await ada.watch(room)
    await wait_over(ada, room)
    await ada.leave(room)
    await asyncio.sleep(0.1)
    server.hub.sweep(time.time() + 3600)  # nobody in it for an hour: it leaves memory
    await asyncio.sleep(0.1)
    assert room not in server.hub.rooms
    listed = {r.room: r for r in await ada.list_rooms()}
    assert listed[room].state == "finished" and listed[room].game == "flip_over_frog"
    replay = await ada.open_replay(room)
    assert replay.length > 0
