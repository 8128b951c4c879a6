"""The typed views of the client library (clients/sdk/views.py) against real views: every view
of every seat and of a spectator, at every step of random games of each game and mode, as a
client receives it (through msgpack), has exactly the keys its type names, of those types."""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin, get_type_hints, is_typeddict

import msgpack
import pytest

from clients.sdk.views import VIEWS
from engine.core import SeatSpec
from engine.match import Match, make_bots, play_out
from engine.registry import get_game


def problems(value: Any, kind: Any, path: str = "view") -> list[str]:
    """Where ``value`` does not have type ``kind`` (empty when it does)."""
    if kind is Any:
        return []
    origin = get_origin(kind)
    if is_typeddict(kind):
        if not isinstance(value, dict):
            return [f"{path} is not a map"]
        hints = get_type_hints(kind)
        found = [f"{path} lacks {key!r}" for key in sorted(kind.__required_keys__ - value.keys())]
        for key in sorted(value.keys() - hints.keys()):
            found.append(f"{path} has {key!r}, which {kind.__name__} does not name")
        for key in value.keys() & hints.keys():
            found += problems(value[key], hints[key], f"{path}.{key}")
        return found
    if origin in (Union, types.UnionType):
        branches = [problems(value, branch, path) for branch in get_args(kind)]
        return [] if any(not b for b in branches) else min(branches, key=len)
    if origin is list:
        if not isinstance(value, list):
            return [f"{path} is not a list"]
        (item,) = get_args(kind)
        return [p for n, v in enumerate(value) for p in problems(v, item, f"{path}[{n}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path} is not a map"]
        _, item = get_args(kind)
        return [p for k, v in value.items() for p in problems(v, item, f"{path}.{k}")]
    if kind is type(None):
        return [] if value is None else [f"{path} is {value!r}, not None"]
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    return [] if ok else [f"{path} is {value!r}, not {getattr(kind, '__name__', kind)}"]


GAMES = [
    ("flip_over_frog", {}, 2),
    ("flip_over_frog", {}, 4),
    ("neon_hex", {}, 3),
    ("flash8", {"mode": "race", "time_limit": 60.0}, 2),
    ("flash8", {"mode": "solo", "solo_seconds": 60.0}, 1),
    ("neon_flip", {"mode": "classic", "rounds": 1}, 2),
    ("neon_flip", {"mode": "overdrive", "teams": True}, 4),
    ("neon_flip", {"mode": "solo", "rounds": 1}, 1),
]


@pytest.mark.parametrize(("game_id", "options", "seats"), GAMES)
def test_every_view_of_a_random_game_has_its_type(
    game_id: str, options: dict[str, Any], seats: int
) -> None:
    game = get_game(game_id)
    kind = VIEWS[game_id]
    match = Match.start(game, [SeatSpec()] * seats, b"typed-view-seed!", options)
    seen: set[str] = set()

    def check(m: Match, *_: object) -> None:
        for viewer in (*range(seats), None):
            view = msgpack.unpackb(msgpack.packb(game.view(m.state, viewer)))
            found = problems(view, kind)
            assert found == [], (viewer, found[:5])
            seen.update(view)

    check(match)
    bots = make_bots(match, ["random"] * seats, b"typed-view-bots!")
    play_out(match, bots, on_step=check, bot_delay=0.5)
    assert match.outcome is not None
    assert "outcome" in seen
