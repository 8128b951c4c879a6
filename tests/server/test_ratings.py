"""Ratings over the network on a real server: rated Flip Over Frog games between people move
their ratings (shown beside their names and announced at the end), games with bots are not
rated, a seat left on purpose counts as last; then every rated game's log is downloaded with
``lumin ratings download`` and every rating recomputed with ``lumin ratings recompute`` into
an empty store, equal to the server's; ``GET /leaderboard`` ranks the players."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.request
from pathlib import Path
from typing import Any

import attrs
import msgpack
import pytest
import websockets
from click.testing import CliRunner

from clients.sdk import LuminClient, ServerError, bot, human
from lumin.cli import main
from protocol.codec import encode
from protocol.messages import CreateRoom, Hello, RatingsChanged, RoomCreated, SeatChoice, WatchRoom
from server.app import LuminServer
from server.cluster import Cluster
from server.config import Settings
from server.ratings import Player, Ratings, counted_ranks
from server.store import EventStore
from tests.server.conftest import TEST_LIMITS
from tests.server.test_play import play_seat

GAME = "flip_over_frog"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        port=0, data=tmp_path / "data", bot_delay=0.0, grace=0.2, leaderboard_games=3,
        **TEST_LIMITS,
    )  # fmt: skip


async def http(server: LuminServer, path: str) -> Any:
    """``GET path`` on the server, from a thread (the server runs on this loop)."""

    def get() -> Any:
        url = f"http://127.0.0.1:{server.port}{path}"
        with urllib.request.urlopen(url, timeout=10) as answer:
            return json.load(answer)

    return await asyncio.to_thread(get)


async def play(players: list[LuminClient], rated: bool | None = None, bots: int = 0) -> str:
    """A Flip Over Frog game between ``players`` (and ``bots``), played at random to its end."""
    host = players[0]
    seats = tuple(human() for _ in players) + tuple(bot("random") for _ in range(bots))
    created = await host.request(CreateRoom(game=GAME, seats=seats, sit=0, rated=rated))
    assert isinstance(created, RoomCreated)
    room = created.room
    for n, other in enumerate(players[1:], start=1):
        await other.join(room, n)
        await other.ready(room)
    await host.start(room)
    await asyncio.wait_for(
        asyncio.gather(
            *(play_seat(p, room, random.Random(n), GAME) for n, p in enumerate(players))
        ),
        60,
    )
    return room


async def changes_of(client: LuminClient, room: str) -> RatingsChanged:
    while True:
        message = await asyncio.wait_for(client.messages.get(), 10)
        if isinstance(message, RatingsChanged) and message.room == room:
            return message


async def test_rated_games_recompute_from_their_logs_into_an_empty_store(
    server: LuminServer, connect, tmp_path: Path
) -> None:
    ada, bea, cy = [await connect(name) for name in ("Ada", "Bea", "Cy")]
    lineups = [[ada, bea], [bea, cy], [ada, bea, cy], [cy, ada], [bea, ada, cy]]
    for n, lineup in enumerate(lineups):
        room = last = await play(lineup)
        told = await changes_of(lineup[0], room)
        assert [c.user for c in told.changes] == [p.user for p in lineup]
        if n == 0:  # two newcomers: the winner rises above the loser
            ranks = lineup[0].game_over[room].outcome.ranks
            assert [c.before for c in told.changes] == [0.0, 0.0]
            first, second = told.changes
            if ranks[0] != ranks[1]:
                winner, loser = (first, second) if ranks[0] < ranks[1] else (second, first)
                assert winner.after > loser.after
    # A bot seated at the start makes a game unrated, even when the room asks for a rating.
    casual = await play([ada, bea], bots=1)
    asked = await play([ada, bea], rated=True, bots=1)
    history = (await http(server, f"/history?user={ada.user}"))["games"]
    assert {g["room"]: g["rated"] for g in history}[casual] is False
    assert {g["room"]: g["rated"] for g in history}[asked] is False
    assert history[0]["room"] == asked and history[0]["replay"] == f"/rooms/{asked}/log"
    # Ratings sit beside names in the room's seats.
    seats = ada.room_info[last].seats
    assert all(seat.rating is not None for seat in seats if seat.kind == "human")

    board = await http(server, f"/leaderboard?game={GAME}")
    assert board["game"] == GAME and board["pool"] == "standard"
    listed = board["players"]
    assert {p["name"] for p in listed} == {"Ada", "Bea", "Cy"}
    assert [p["rank"] for p in listed] == sorted(p["rank"] for p in listed)
    assert [p["rating"] for p in listed] == sorted((p["rating"] for p in listed), reverse=True)
    games = {p["name"]: p["games"] for p in listed}
    assert games == {"Ada": 4, "Bea": 4, "Cy": 4}
    assert (await http(server, "/leaderboard?game=flip_over_frog&limit=1"))["players"] == listed[:1]
    assert board["pools"] == ["standard"]
    assert await ada.leaderboard(GAME) == board, "the client library reads the same board"
    with pytest.raises(ServerError) as refused:
        await ada.leaderboard(GAME, pool="nonsense")
    assert refused.value.code == "http_404" and "standard" in refused.value.message

    logs = tmp_path / "logs"
    base = f"http://127.0.0.1:{server.port}"
    downloaded = await asyncio.to_thread(
        CliRunner().invoke, main, ["ratings", "download", base, str(logs)]
    )
    assert downloaded.exit_code == 0, downloaded.output
    assert len(list(logs.glob("*.json"))) == len(lineups)
    empty = tmp_path / "recomputed"
    done = await asyncio.to_thread(
        CliRunner().invoke, main, ["ratings", "recompute", str(logs), "--data", str(empty)]
    )
    assert done.exit_code == 0, done.output
    assert "3 ratings recomputed" in done.output
    recomputed = EventStore(empty / "lumin.sqlite3")
    try:
        assert await recomputed.get_ratings(GAME) == await server.store.get_ratings(GAME)
    finally:
        recomputed.close()
    again = await asyncio.to_thread(
        CliRunner().invoke, main, ["ratings", "recompute", str(logs), "--data", str(empty)]
    )
    assert again.exit_code == 1 and "empty" in again.output, "never into a store with ratings"


async def test_a_seat_left_on_purpose_counts_as_last(server: LuminServer, connect) -> None:
    ada, bea = await connect("Ada"), await connect("Bea")
    created = await ada.request(CreateRoom(game=GAME, seats=(SeatChoice(), SeatChoice()), sit=0))
    room = created.room
    await bea.join(room, 1)
    await bea.ready(room)
    await ada.start(room)
    await ada.leave(room)  # a stand-in plays Ada's seat after the grace period
    await asyncio.wait_for(play_seat(bea, room, random.Random(3), GAME), 60)
    told = await changes_of(bea, room)
    by_user = {c.user: c for c in told.changes}
    assert by_user[bea.user].after > by_user[ada.user].after
    (result,) = [g for g in (await http(server, f"/history?user={ada.user}"))["games"]]
    assert result["forfeit"] is True and result["rank"] == 2


def test_forfeits_share_the_last_rank_below_everyone() -> None:
    assert counted_ranks([1, 2, 3], [0]) == [3, 1, 2]
    assert counted_ranks([2, 1], [0]) == [2, 1] and counted_ranks([2, 1], [1]) == [1, 2]
    assert counted_ranks([1, 1, 2, 3], [1, 3]) == [1, 3, 2, 3]
    assert counted_ranks([2, 1], []) == [2, 1]


async def test_an_older_client_is_sent_seats_without_ratings(server: LuminServer, connect, url):
    ada, bea = await connect("Ada"), await connect("Bea")
    room = await play([ada, bea])
    await changes_of(ada, room)
    watcher = await connect("Eve")
    await watcher.watch(room)
    while room not in watcher.room_info:
        await watcher.changed(room, timeout=10)
    assert all(seat.rating is not None for seat in watcher.room_info[room].seats)
    async with websockets.connect(url) as socket:  # a version-3 client's own frames
        await socket.send(encode(Hello(versions=(1, 2, 3), name="Old", id=1)))
        await socket.send(encode(WatchRoom(room=room, id=2)))
        while True:
            frame = msgpack.unpackb(await asyncio.wait_for(socket.recv(), 10))
            if frame["type"] == "room_update":
                break
    assert frame["info"]["seats"] and all("rating" not in seat for seat in frame["info"]["seats"])


def test_leaderboard_refuses_unknown_games_and_pools() -> None:
    from http import HTTPStatus

    from server.leaderboards import leaderboard

    class NoStore:
        async def get_ratings(self, *args: Any, **kwargs: Any) -> list[Any]:
            return []

    status, body = asyncio.run(leaderboard(NoStore(), {"game": "chess"}, 5))  # type: ignore[arg-type]
    assert status == HTTPStatus.NOT_FOUND and "game is one of" in body["error"]
    status, body = asyncio.run(leaderboard(NoStore(), {"game": "neon_hex", "pool": "9p"}, 5))  # type: ignore[arg-type]
    assert status == HTTPStatus.NOT_FOUND and "2p" in body["error"]


async def test_the_ratings_held_in_memory_are_bounded(monkeypatch, tmp_path: Path) -> None:
    import server.ratings as ratings_module
    from server.playerrows import RatingRow
    from server.ratings import Ratings

    monkeypatch.setattr(ratings_module, "MAX_HELD", 2)
    store = EventStore(tmp_path / "held.sqlite3")
    try:
        await store.save_ratings(
            [RatingRow(f"u{n}", GAME, "standard", f"P{n}", 25.0 + n, 8.0, 1, 1.0) for n in range(3)]
        )
        held = Ratings(store)
        for n in range(3):
            await held.load(f"u{n}")
        assert len(held.held) == 2
        assert held.shown("u0", GAME, "standard") is None, "the oldest held is forgotten"
        assert held.shown("u2", GAME, "standard") == round(27.0 - 24.0, 2)
    finally:
        store.close()


async def test_history_never_lists_a_private_rooms_id(server: LuminServer, connect) -> None:
    """``/history`` is anyone's to read: a private room's game is left out of it (its id and
    replay are for its players, who hold its code), a public one is listed."""
    ada, bea = await connect("Ada"), await connect("Bea")
    public = await play([ada, bea])
    secret = await ada.request(
        CreateRoom(game=GAME, seats=(SeatChoice(), SeatChoice()), sit=0, private=True)
    )
    assert isinstance(secret, RoomCreated) and secret.code
    await bea.join(secret.room, 1, code=secret.code)
    await bea.ready(secret.room)
    await ada.start(secret.room)
    await asyncio.wait_for(
        asyncio.gather(
            play_seat(ada, secret.room, random.Random(1), GAME),
            play_seat(bea, secret.room, random.Random(2), GAME),
        ),
        60,
    )
    for _ in range(200):  # its results are being written (at most 10 s)
        results = await server.hub.store.get_results(player=ada.user)
        if secret.room in {r.room for r in results}:
            break
        await asyncio.sleep(0.05)
    assert secret.room in {r.room for r in results}, "the private game's results are kept"
    for user in (ada.user, bea.user):
        page = json.dumps(await http(server, f"/history?user={user}"))
        assert secret.room not in page
        assert public in page


async def test_two_games_of_one_player_ending_at_once_on_two_nodes_both_count(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    """Two nodes (two :class:`Ratings` on one store, each with its own cluster client) rate
    two games of Ada that ended at the same moment; each read of the store yields to the
    other node. The cluster's lock on the pool makes the second read what the first wrote:
    Ada's rating counts both games."""
    store = EventStore(tmp_path / "shared.sqlite3")
    clusters = [Cluster(redis_url, node, "ws://x/ws", prefix=redis_prefix) for node in "ab"]
    read = store.get_ratings

    async def slow_read(*args: Any, **kwargs: Any) -> Any:
        rows = await read(*args, **kwargs)
        await asyncio.sleep(0.1)  # the other node's update runs meanwhile
        return rows

    store.get_ratings = slow_read  # type: ignore[method-assign]
    try:
        nodes = [Ratings(store) for _ in clusters]
        for ratings, cluster in zip(nodes, clusters, strict=True):
            ratings.cluster = cluster
        games = [
            ratings.record(room, GAME, "standard", True,
                           [Player(0, "uada", "Ada"), Player(1, other, other)], [1, 2], [], 1.0)
            for ratings, room, other in zip(nodes, ("r1", "r2"), ("ubea", "ucy"), strict=True)
        ]  # fmt: skip
        await asyncio.gather(*games)
        (ada,) = [row for row in await read(player="uada")]
        assert ada.games == 2, "neither game's change was lost"
    finally:
        store.close()
        for cluster in clusters:
            await cluster.stop()


async def test_a_person_taking_over_a_bots_seat_mid_game_makes_it_unrated_and_says_so(
    server: LuminServer, connect
) -> None:
    # A rated game of two people; the operator removes Bea (a bot plays her seat on), and a
    # stranger takes that bot's seat over: the game no longer counts, which everyone is told.
    ada, bea, cy = [await connect(name) for name in ("Ada", "Bea", "Cy")]
    created = await ada.request(CreateRoom(game=GAME, seats=(human(), human()), sit=0))
    assert isinstance(created, RoomCreated)
    room = created.room
    await bea.join(room, 1)
    await bea.ready(room)
    await ada.start(room)
    live = server.hub.rooms[room]
    await live.call(lambda: live.kick_by_operator(1, "testing"))
    assert live.seats[1].kind == "bot"
    await cy.watch(room)
    await cy.join(room, 1)
    said = [line for line in ada.chat if line.user == ""]
    while not said:
        await ada.changed(room, timeout=10)
        said = [line for line in ada.chat if line.user == ""]
    assert said[-1].name == "Lumin" and said[-1].room == room
    assert (
        said[-1].text == "Cy took over the bot at seat 2. This game no longer counts for ratings."
    )
    await asyncio.wait_for(
        asyncio.gather(
            play_seat(ada, room, random.Random(1), GAME),
            play_seat(cy, room, random.Random(2), GAME),
        ),
        60,
    )
    await asyncio.sleep(0.2)  # the results are kept just after game_over
    history = (await http(server, f"/history?user={cy.user}"))["games"]
    assert [(g["room"], g["rated"]) for g in history] == [(room, False)]
    assert (await http(server, f"/ratings?user={ada.user}"))["ratings"] == []


async def test_a_turn_clock_below_the_servers_shortest_is_refused(
    server: LuminServer, connect
) -> None:
    ada = await connect("Ada")
    server.hub.settings = attrs.evolve(server.hub.settings, min_turn_clock=5.0)
    for clock in (1e-300, 4.99):
        with pytest.raises(ServerError) as refused:
            await ada.create_room(GAME, seats=[human(), bot()], sit=0, turn_clock=clock)
        assert refused.value.code == "bad_option"
        assert "turn_clock is a number of seconds from 5 to 86400" in refused.value.message
    await ada.create_room(GAME, seats=[human(), bot()], sit=0, turn_clock=5.0)
