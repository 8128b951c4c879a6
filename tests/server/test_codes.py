"""Private rooms' codes (``server/codes.py``): wrong guesses are limited per client address
and per room, the right code included once the limit is reached, over every request that
takes a code: ``watch_room``, ``join_seat``, ``resume``, ``open_replay`` and a finished
game's log over HTTP."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from typing import Any

import pytest

from clients.sdk import ServerError, human
from protocol.messages import OpenReplay, Resume
from server.codes import ADDRESS_BURST, ROOM_BURST, CodeGuesses
from server.errors import Refused
from tests.server.finished import finished_game


def refusal(check: Any) -> str:
    with pytest.raises(Refused) as refused:
        check()
    return str(refused.value.code)


def test_an_address_past_its_wrong_codes_is_refused_even_the_right_one() -> None:
    codes = CodeGuesses()
    for _ in range(ADDRESS_BURST):
        assert refusal(lambda: codes.check("r1", "WRONG1", "RIGHT1", "10.0.0.1")) == "bad_code"
    assert refusal(lambda: codes.check("r1", "RIGHT1", "RIGHT1", "10.0.0.1")) == "rate_limited"
    assert refusal(lambda: codes.check("r2", "RIGHT2", "RIGHT2", "10.0.0.1")) == "rate_limited"
    codes.check("r1", "RIGHT1", "RIGHT1", "10.0.0.2")  # another address opens the room
    assert refusal(lambda: codes.check("r1", None, "RIGHT1", "10.0.0.3")) == "bad_code"


def test_a_room_guessed_at_from_many_addresses_is_shut_for_everyone() -> None:
    codes = CodeGuesses()
    for n in range(ROOM_BURST):
        address = f"10.0.{n // 5}.{n % 5}"  # five guesses each: no address reaches its limit
        assert refusal(lambda a=address: codes.check("r1", "WRONG1", "RIGHT1", a)) == "bad_code"
    assert refusal(lambda: codes.check("r1", "RIGHT1", "RIGHT1", "10.9.9.9")) == "rate_limited"
    codes.check("r2", "RIGHT2", "RIGHT2", "10.9.9.9")  # other rooms are not shut


def test_no_code_at_all_is_not_a_guess() -> None:
    codes = CodeGuesses()
    for _ in range(3 * ADDRESS_BURST):
        assert refusal(lambda: codes.check("r1", None, "RIGHT1", "10.0.0.1")) == "bad_code"
    codes.check("r1", "RIGHT1", "RIGHT1", "10.0.0.1")


async def test_wrong_codes_over_the_wire_are_limited_for_every_request(connect, server) -> None:
    host = await connect("Host")
    room = await host.create_room("flip_over_frog", seats=[human(), human()], private=True, sit=0)
    right = host.codes[room]
    eve = await connect("Eve")
    refused: list[str] = []
    for n in range(ADDRESS_BURST):
        with pytest.raises(ServerError) as wrong:
            await eve.watch(room, code=f"WRONG{n}")
        refused.append(wrong.value.code)
    assert refused == ["bad_code"] * ADDRESS_BURST
    assert "That code is not this private room's" in wrong.value.message
    for attempt in (
        lambda: eve.watch(room, code=right),
        lambda: eve.join(room, 1, code=right),
        lambda: eve.request(Resume(room=room, seq=0, epoch="", code=right)),
    ):
        with pytest.raises(ServerError) as limited:
            await attempt()
        assert limited.value.code == "rate_limited", limited.value
    assert "Too many wrong room codes from your address" in limited.value.message


async def test_wrong_codes_for_a_finished_games_log_get_429_and_its_replay_too(
    connect, server
) -> None:
    game, records = finished_game("flip_over_frog", private=True, user="u-ada")
    await server.store.create_room(game)
    await server.store.append(game.id, *records)
    base = f"http://127.0.0.1:{server.port}/rooms/{game.id}/log?code="

    def get(code: str) -> int:
        try:
            with urllib.request.urlopen(base + code, timeout=10) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as error:
            return error.code

    statuses = [await asyncio.to_thread(get, f"WRONG{n}") for n in range(ADDRESS_BURST)]
    assert statuses == [403] * ADDRESS_BURST
    assert await asyncio.to_thread(get, game.code or "") == 429, "the right code waits too"
    eve = await connect("Eve")  # the same address, over the websocket
    with pytest.raises(ServerError) as limited:
        await eve.request(OpenReplay(room=game.id, code=game.code))
    assert limited.value.code == "rate_limited"
