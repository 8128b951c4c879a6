"""The client library's legal expansion (clients/sdk/legal.py) against the engine's: on states
of real games, the options it makes from the wire form of ``legal`` are, as the server reads
them, exactly the engine's commands (a field left at its default is left out of the map), with
``GameInfo.commands`` and with the documented information keys."""

from __future__ import annotations

import random

import msgpack
import pytest

from clients.sdk import Option, expand
from engine.core import SeatSpec, expand_legal, from_wire
from engine.match import Match
from engine.registry import game_ids, get_game
from lumin.adapters import command_fields


def test_an_entry_with_choose_makes_one_option_per_value_with_its_information() -> None:
    entry = {"type": "play", "tile": "R3", "choose": {"space": [4, 7]}, "preview": [[5], []]}
    first, second = expand([entry])
    assert first == Option({"type": "play", "tile": "R3", "space": 4}, entry, "space", 0)
    assert second.command == {"type": "play", "tile": "R3", "space": 7}
    assert first.info("preview") == [5] and second.info("preview") == []
    assert first.type == "play" and first.info("odds", 0.5) == 0.5


def test_only_the_aligned_keys_are_read_per_choice() -> None:
    # A Neon Hex Risk with three neutral candidates offers three pairs: its bonus_hexes (the
    # whole entry's) is as long as the choices, and still not one item per choice.
    entry = {
        "type": "risk",
        "hex": 9,
        "cost": 2,
        "odds": [10, 36],
        "bonus_hexes": [4, 5, 6],
        "choose": {"bonus": [[4, 5], [4, 6], [5, 6]]},
    }
    options = expand([entry], {"risk": ["hex", "bonus"]})
    assert [o.command["bonus"] for o in options] == [[4, 5], [4, 6], [5, 6]]
    assert all(o.info("bonus_hexes") == [4, 5, 6] for o in options)
    assert all(o.info("odds") == [10, 36] for o in options)
    flip = {"type": "play", "card": 1, "choose": {"tile": [3, 8]}, "cascade": [[2], [7, 9]]}
    assert [o.info("cascade") for o in expand([flip])] == [[2], [7, 9]]


def test_the_commands_map_names_the_fields_and_leaves_every_other_key_out() -> None:
    entry = {"type": "risk", "hex": 3, "odds": 0.25, "novel": True}
    (option,) = expand([entry], {"risk": ["hex"]})
    assert option.command == {"type": "risk", "hex": 3}
    (guessed,) = expand([entry])  # without the map: only the documented keys are left out
    assert guessed.command == {"type": "risk", "hex": 3, "novel": True}


@pytest.mark.parametrize("game_id", game_ids())
def test_the_wire_expansion_is_the_engines_on_real_games(game_id: str) -> None:
    game = get_game(game_id)
    counts = game.seat_counts({})
    match = Match.start(game, [SeatSpec()] * counts.start, b"legal-expansion!")
    rng = random.Random(7)
    fields = command_fields(game)
    checked = 0
    for _ in range(40):
        if match.outcome is not None:
            break
        movers = [s for s in range(counts.start) if game.legal(match.state, s)]
        if not movers:
            deadline = game.deadline(match.state)
            assert deadline is not None
            match.tick(deadline)
            continue
        for seat in movers:
            legal = game.legal(match.state, seat)
            wire = msgpack.unpackb(msgpack.packb(legal))
            engine = expand_legal(game, legal)
            for commands in (fields, None):
                read = [from_wire(game.commands, o.command) for o in expand(wire, commands)]
                assert read == engine
            checked += 1
        seat = rng.choice(movers)
        match.act(seat, rng.choice(match.options_for(seat)))
    assert checked > 0
