"""Games played to the end over real websockets on loopback, with spectators watching."""

from __future__ import annotations

import asyncio
import random

from clients.sdk import LuminClient, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game


async def play_seat(client: LuminClient, room: str, rng: random.Random, game_id: str) -> None:
    """Play one seat with random legal commands until the game is over."""
    game = get_game(game_id)
    while room not in client.game_over:
        legal = client.legal(room)
        if not legal:
            await client.changed(room)
            continue
        command = rng.choice(expand_legal(game, legal))
        await client.act(room, to_wire(command))


async def test_flip_over_frog_human_against_bot_with_a_spectator(connect) -> None:
    ada: LuminClient = await connect("Ada")
    eve: LuminClient = await connect("Eve")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot("bot")], sit=0)
    await eve.watch(room)
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(1), "flip_over_frog"), 30)
    over = ada.game_over[room]
    assert sorted(over.outcome.ranks)[0] == 1
    for _ in range(50):
        if room in eve.game_over:
            break
        await eve.changed(room)
    assert eve.game_over[room].seed == over.seed
    public = eve.view(room)
    assert "hand" not in public and "outcome" in public
    assert ada.view(room)["outcome"] == public["outcome"]


async def test_network_bot_plays_a_seat_like_a_person(connect, url) -> None:
    from lumin.netbot import play_over_network

    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[bot("bot"), human()])
    remote = asyncio.create_task(play_over_network(url, room, 1, name="Remote bot"))
    # The bot joins, then says ready: start only once both are seen.
    while not ada.room_info.get(room) or not ada.room_info[room].seats[1].ready:
        await ada.watch(room)
        await ada.changed(room)
    assert ada.room_info[room].seats[1].kind == "human"
    await ada.start(room)
    result = await asyncio.wait_for(remote, 60)
    assert sorted(result["ranks"])[0] == 1
