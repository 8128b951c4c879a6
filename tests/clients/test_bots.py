"""The client library's bot interface: bots of a user's file in ``lumin arena`` and ``lumin
selfplay`` (``module:callable``, seated through lumin/adapters.py), their mistakes reported in
one line, and the event stream of a whole game against a real server."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from clients.sdk import (
    Chat,
    Ended,
    LuminClient,
    Move,
    Problem,
    RandomBot,
    RoomChanged,
    RoomGone,
    Turn,
    Update,
    bot,
    human,
    play_seat,
)
from lumin.cli import main

ARENA = ["arena", "flip_over_frog"]

RANDOM_BOT = """
import random
from clients.sdk import Move, RandomBot

def make(game, seat, rng):
    assert game == "flip_over_frog" and isinstance(rng, random.Random)
    return RandomBot(rng)

class Cheat:
    def act(self, turn):
        return Move({"type": "play", "tile": "R9", "space": 99})

def cheat(game, seat, rng):
    return Cheat()
"""


@pytest.fixture
def bot_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request) -> str:
    """A bot module in the current folder; its name is unique to the test."""
    name = "user_bot_" + re.sub(r"\W", "_", request.node.name)
    (tmp_path / f"{name}.py").write_text(RANDOM_BOT)
    monkeypatch.chdir(tmp_path)
    return name


def test_arena_plays_a_users_bot_against_a_kind_of_the_game(bot_file: str) -> None:
    ran = CliRunner().invoke(
        main,
        [
            "arena",
            "flip_over_frog",
            "--a",
            f"{bot_file}:make",
            "--b",
            "bot",
            "--games",
            "20",
            "--json",
        ],
    )
    assert ran.exit_code == 0, ran.output
    summary = json.loads(ran.output)
    assert summary["games"] == 20 and summary["seats"] == [f"{bot_file}:make", "bot"]
    assert summary["a"]["wins"] + summary["b"]["wins"] == pytest.approx(20)
    assert summary["a"]["think"]["decisions"] > 0


def test_arena_takes_a_bot_by_file_path(bot_file: str, tmp_path: Path) -> None:
    spec = f"{tmp_path / bot_file}.py:make"
    ran = CliRunner().invoke(
        main, ["arena", "flip_over_frog", "--seats", f"{spec},random,random", "--games", "3"]
    )
    assert ran.exit_code == 0, ran.output
    assert f"{spec}: wins" in ran.output


def test_selfplay_seats_the_bot_asked_for(bot_file: str) -> None:
    ran = CliRunner().invoke(
        main, ["selfplay", "flip_over_frog", "--bot", f"{bot_file}:make", "--games", "5", "--json"]
    )
    assert ran.exit_code == 0, ran.output
    summary = json.loads(ran.output)
    assert summary["bot"] == f"{bot_file}:make" and summary["finished"] == 5
    ran = CliRunner().invoke(main, ["selfplay", "flip_over_frog", "--bot", "nope"])
    assert ran.exit_code == 2 and "Flip Over Frog has no bot 'nope'" in ran.output


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("no_such_module_here:make", "cannot import no_such_module_here"),
        ("{bot}:missing", "has no callable 'missing'"),
        ("just_a_name", "Flip Over Frog has no bot 'just_a_name'"),
        (":make", "is not MODULE:CALLABLE"),
        ("./nowhere.py:make", "there is no file ./nowhere.py"),
    ],
)
def test_a_bot_spec_that_names_no_factory_is_one_clear_error(
    bot_file: str, spec: str, words: str
) -> None:
    spec = spec.format(bot=bot_file)
    ran = CliRunner().invoke(
        main, ["arena", "flip_over_frog", "--a", spec, "--b", "random", "--games", "2"]
    )
    assert ran.exit_code == 2, ran.output
    assert words in ran.output, ran.output


def test_a_bot_that_sends_a_command_its_seat_may_not_send_stops_the_arena_in_one_line(
    bot_file: str,
) -> None:
    ran = CliRunner().invoke(
        main,
        ["arena", "flip_over_frog", "--a", f"{bot_file}:cheat", "--b", "random", "--games", "2"],
    )
    assert ran.exit_code == 1
    (line,) = ran.output.strip().splitlines()[-1:]
    assert line.startswith(f"lumin arena: bot {bot_file}:cheat (seat "), line
    assert "'tile': 'R9'" in line


async def test_the_event_stream_tells_a_whole_game_in_order(connect) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot("random")], sit=0)
    await ada.say(room, "good luck")
    await ada.send_raw(b"\xc1")  # not msgpack: the server's error answers no request
    await ada.start(room)
    over = await asyncio.wait_for(
        play_seat(ada, room, 0, RandomBot(random.Random(1)), "flip_over_frog"), 60
    )
    events = []
    async with asyncio.timeout(10):
        async for event in ada.stream():
            events.append(event)
            if isinstance(event, Ended):
                break
    kinds = [type(event) for event in events]
    assert kinds[-1] is Ended and events[-1].over == over
    assert Chat in kinds and events[kinds.index(Chat)].line.text == "good luck"
    assert any(isinstance(e, Problem) and e.code == "not_msgpack" for e in events), events
    assert RoomChanged in kinds
    updates = [event for event in events if isinstance(event, Update)]
    assert [u.seq for u in updates] == sorted(u.seq for u in updates)
    assert updates[-1].seq == ada.seq(room) and updates[-1].view == ada.view(room)
    await ada.close()
    async with asyncio.timeout(5):  # a closed client's stream hands over what is left, and ends
        rest = [event async for event in ada.stream()]
    assert Ended not in map(type, rest)
    assert [event async for event in ada.stream()] == []


class Idle:
    """A bot that never moves (its game goes on only by what others do)."""

    def act(self, turn: Turn) -> Move | None:
        return None


async def test_play_seat_ends_with_room_gone_when_the_seat_is_taken(connect, server) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    bea: LuminClient = await connect("Bea")
    await bea.join(room, 1)
    await bea.ready(room)
    await ada.ready(room)
    await ada.start(room)
    playing = asyncio.create_task(play_seat(bea, room, 1, Idle(), "flip_over_frog"))
    live = server.hub.rooms[room]
    await live.call(lambda: live.kick_by_operator(1, "testing"))
    with pytest.raises(RoomGone) as gone:
        await asyncio.wait_for(playing, 10)
    assert gone.value.code == "kicked" and bea.closed[room].reason == "kicked"
