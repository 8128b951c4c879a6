"""Nobody acts for a seat that is not theirs, tokens cannot be forged, foreign Origins are
refused, and private rooms need their code."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients.sdk import ServerError, bot, human
from protocol.messages import CommandRejected, Kick, OpenReplay
from tests.server.test_play import play_seat
from tests.server.test_rooms import wait_over


async def test_spectator_cannot_act(connect) -> None:
    ada, eve = await connect("Ada"), await connect("Eve")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot("bot")], sit=0)
    await ada.start(room)
    await eve.watch(room)
    answer = await eve.act(room, {"type": "play", "tile": "R1", "space": 0})
    assert isinstance(answer, CommandRejected) and answer.code == "not_seated"


async def test_a_player_cannot_act_for_another_seat(connect) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bob.join(room, 1)
    await bob.ready(room)
    await ada.start(room)
    view = ada.view(room)
    mover = ada if view["turn"] == 0 else bob
    waiter = bob if mover is ada else ada
    # The waiting player tries the mover's legal play: the server judges it as theirs.
    entry = mover.legal(room)[0]
    command = {"type": entry["type"], "tile": entry["tile"], "space": entry["choose"]["space"][0]}
    answer = await waiter.act(room, command)
    assert isinstance(answer, CommandRejected) and answer.code == "not_your_turn"
    # A command naming a tile from the other player's hand is refused as not in hand.
    other_tile = mover.view(room)["hand"][0]["id"]
    answer = await mover.act(room, {"type": "play", "tile": "S9", "space": 0})
    assert isinstance(answer, CommandRejected) and answer.code == "not_in_hand"
    assert other_tile not in str(waiter.view(room))


async def test_seat_held_by_someone_else_cannot_be_taken(connect) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    with pytest.raises(ServerError) as refused:
        await bob.join(room, 0)
    assert refused.value.code == "seat_taken"


async def test_token_reclaims_seat_but_forged_token_reclaims_nothing(connect) -> None:
    ada = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot("bot")], sit=0)
    await ada.start(room)
    token = ada.token
    await ada.close()
    again = await connect("Ada", token=token)
    assert again.user == ada.user and room in again.welcome.rooms
    await again.join(room, 0)
    assert "hand" in again.view(room)
    with pytest.raises(ServerError) as refused:
        await connect("Mallory", token=token[:-2] + "xx")
    assert refused.value.code == "bad_token"
    forged = await connect("Mallory", token=token[:-2] + "xx", new_identity=True)
    assert forged.token_refused is not None and forged.token_refused.code == "bad_token"
    assert forged.user != ada.user and forged.token != token
    assert room not in forged.welcome.rooms
    with pytest.raises(ServerError) as refused:
        await forged.join(room, 0)
    assert refused.value.code == "seat_taken"


async def test_foreign_origin_is_refused(server, url) -> None:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, origin="http://evil.example"):
            pass
    assert refused.value.response.status_code == 403
    own = f"http://127.0.0.1:{server.port}"
    async with connect(url, origin=own) as socket:
        assert socket.protocol.state.name == "OPEN"
    # The same page reached under another name is still its own origin.
    other_name = f"ws://localhost:{server.port}/ws"
    async with connect(other_name, origin=f"http://localhost:{server.port}") as socket:
        assert socket.protocol.state.name == "OPEN"
    with pytest.raises(InvalidStatus):
        async with connect(other_name, origin=own):
            pass


async def test_private_room_needs_its_code_and_is_not_listed(connect) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0, private=True)
    code = ada.last_created.code
    assert code and room not in [r.room for r in await bob.list_rooms()]
    with pytest.raises(ServerError) as refused:
        await bob.join(room, 1, code="WRONG1")
    assert refused.value.code == "bad_code"
    await bob.join(room, 1, code=code)


async def test_host_kicks_before_start_only(connect) -> None:
    ada, bob = await connect("Ada"), await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bob.join(room, 1)
    with pytest.raises(ServerError) as refused:
        await bob.start(room)
    assert refused.value.code == "not_host"
    with pytest.raises(ServerError) as refused:
        await ada.start(room)
    assert refused.value.code == "not_ready"
    await ada.request(Kick(room=room, seat=1))
    summary = next(r for r in await ada.list_rooms() if r.room == room)
    assert summary.seats[1].kind == "open"
    # Bob is told, and stays on as a spectator with the public copy.
    for _ in range(100):
        copy = bob.conn.views.get(room)
        if copy is not None and copy.seat is None:
            break
        await asyncio.sleep(0.01)
    assert copy is not None and copy.seat is None


def _get(url: str, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request) as answer:
            json.load(answer)
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


async def test_a_finished_private_game_replays_and_downloads_only_with_its_code(
    connect, server
) -> None:
    ada = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0, private=True)
    code = ada.last_created.code
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(3), "flip_over_frog"), 60)
    eve = await connect("Eve")
    with pytest.raises(ServerError) as refused:
        await eve.open_replay(room, viewer=0)  # Ada's hand at every step
    assert refused.value.code == "bad_code"
    replay = await eve.request(OpenReplay(room=room, viewer=0, code=code))
    assert replay.length > 0
    mine = await ada.open_replay(room, viewer=0)  # a player of the game needs no code
    assert mine.length == replay.length
    log = f"http://127.0.0.1:{server.port}/rooms/{room}/log"
    assert await asyncio.to_thread(_get, log) == 403
    assert await asyncio.to_thread(_get, f"{log}?code=WRONG1") == 403
    assert await asyncio.to_thread(_get, f"{log}?code={code}") == 200
    player = {"Authorization": f"Bearer {ada.token}"}
    assert await asyncio.to_thread(_get, log, player) == 200
    stranger = {"Authorization": f"Bearer {eve.token}"}
    assert await asyncio.to_thread(_get, log, stranger) == 403
    public = await ada.create_room("flip_over_frog", seats=[bot(), bot()])
    await wait_over(ada, public, timeout=60)
    await asyncio.sleep(0.1)
    url = f"http://127.0.0.1:{server.port}/rooms/{public}/log"
    assert await asyncio.to_thread(_get, url) == 200
    assert (await eve.open_replay(public, viewer=1)).length > 0
