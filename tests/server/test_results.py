"""Protocol version 6 over the network: a finished game's lobby entry carries its result (when
it ended, who won and each seat's score, the same from the room held in memory and from the
store once it is unloaded), and the catalogue says when each option applies; clients older
than version 6 get the same entries and catalogue without them."""

from __future__ import annotations

import asyncio

import msgpack
import websockets

from clients.sdk import LuminClient, bot
from protocol.codec import encode
from protocol.messages import Hello, ListGames, ListRooms, ResultInfo
from server.app import LuminServer
from server.hub import stored_summary
from tests.server.test_rooms import wait_over


async def finished_room(client: LuminClient) -> str:
    room = await client.create_room("flip_over_frog", seats=[bot(), bot()])
    await client.watch(room)
    await wait_over(client, room)
    return room


async def test_a_finished_games_lobby_entry_says_when_it_ended_who_won_and_the_scores(
    connect, server: LuminServer
) -> None:
    ada = await connect("Ada")
    room = await finished_room(ada)
    over = ada.game_over[room].outcome
    (listed,) = [r for r in await ada.list_rooms("flip_over_frog") if r.room == room]
    held = server.hub.rooms[room]
    assert listed.state == "finished"
    assert listed.result == ResultInfo(
        finished=held.finished,
        winners=over.winners,
        scores=over.scores,
        reason=over.reason,
    )
    assert held.finished is not None and held.finished >= listed.created
    # Unloaded, the room is listed from the store: the same result.
    for _ in range(100):
        rows = [row for row in await server.hub.store.get_finished(10, None) if row.id == room]
        if rows and "result" in rows[0].meta:
            break
        await asyncio.sleep(0.05)
    assert stored_summary(rows[0]).result == listed.result


async def test_a_client_older_than_version_6_gets_finished_entries_without_the_result(
    connect, url: str
) -> None:
    room = await finished_room(await connect("Ada"))
    async with websockets.connect(url) as socket:  # a version-5 client's own frames
        await socket.send(encode(Hello(versions=(4, 5), name="Old", id=1)))
        await socket.send(encode(ListRooms(game="flip_over_frog", id=2)))
        while True:
            frame = msgpack.unpackb(await asyncio.wait_for(socket.recv(), 10))
            if frame["type"] == "room_list":
                break
    (entry,) = [r for r in frame["rooms"] if r["room"] == room]
    assert entry["state"] == "finished" and "result" not in entry


async def test_the_catalogue_says_when_options_apply_from_version_6_only(connect, url) -> None:
    games = {game.id: game for game in await (await connect("Ada")).list_games()}
    flip = {option.name: option for option in games["neon_flip"].options}
    assert flip["proto_zero"].when == {"mode": ["solo"]}
    assert flip["teams"].when == {"mode": ["classic", "overdrive"], "seats": [4]}
    assert flip["mode"].when == {}
    (handicap,) = games["flash8"].seat_options
    assert handicap.when == {"mode": ["race"]}
    async with websockets.connect(url) as socket:
        await socket.send(encode(Hello(versions=(5,), name="Old", id=1)))
        await socket.send(encode(ListGames(id=2)))
        while True:
            frame = msgpack.unpackb(await asyncio.wait_for(socket.recv(), 10))
            if frame["type"] == "games":
                break
    options = [
        o
        for game in frame["games"]
        for o in (*game.get("options", ()), *game.get("seat_options", ()))
    ]
    assert options and not any("when" in option for option in options)
