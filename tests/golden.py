"""Golden playthroughs: a seeded game between bots, recorded step by step.

A record holds the room (game, options, seat bots, seed) and, for every step, the command (or
clock tick) with its events in wire form and a digest of every viewer's view. Any change to
rules, views or bots shows up as a diff of these files; ``scripts/golden.py`` regenerates them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgpack

from engine.core import Command, Event, SeatSpec, outcome_to_wire, to_wire
from engine.match import Match, make_bots, play_out
from engine.registry import get_game

__all__ = ["digest", "dumps", "golden_dir", "record"]


def digest(view: Mapping[str, Any]) -> str:
    """A short stable fingerprint of a view (SHA-256 of its sorted msgpack form)."""
    packed = msgpack.packb(_sorted(view), use_bin_type=True)
    return hashlib.sha256(packed).hexdigest()[:16]


def _sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted(item) for item in value]
    return value


def golden_dir(game_id: str) -> Path:
    """Where a game's golden files live."""
    return Path(__file__).parent / "engine" / game_id / "golden"


def record(
    game_id: str, seed_hex: str, kinds: Sequence[str], options: Mapping[str, Any]
) -> dict[str, Any]:
    """Play one seeded game between bots of ``kinds`` and record every step."""
    game = get_game(game_id)
    seed = bytes.fromhex(seed_hex)
    seats = [SeatSpec(name=f"{kind}-{n}", bot=kind) for n, kind in enumerate(kinds)]
    match = Match.start(game, seats, seed, options)
    viewers: list[int | None] = [None, *range(len(seats))]
    steps: list[dict[str, Any]] = []

    def views(m: Match) -> dict[str, str]:
        return {
            "spectator" if v is None else str(v): digest(game.view(m.state, v)) for v in viewers
        }

    def on_step(m: Match, seat: int | None, command: Command | None, events: list[Event]) -> None:
        steps.append(
            {
                "time": round(m.now, 6),
                "seat": seat,
                "command": to_wire(command) if command is not None else None,
                "events": [to_wire(event) for event in events],
                "views": views(m),
            }
        )

    start = views(match)
    play_out(match, make_bots(match, list(kinds), seed), on_step=on_step)
    assert match.outcome is not None
    return {
        "game": game_id,
        "seed": seed_hex,
        "bots": list(kinds),
        "options": dict(options),
        "start_views": start,
        "steps": steps,
        "outcome": outcome_to_wire(match.outcome),
    }


def dumps(data: Mapping[str, Any]) -> str:
    """The file form of a record: JSON, one step per line for readable diffs."""
    head = {k: v for k, v in data.items() if k != "steps"}
    lines = [json.dumps(step, sort_keys=True) for step in data["steps"]]
    body = ",\n    ".join(lines)
    text = json.dumps(head, sort_keys=True, indent=2)
    return text[:-2] + ',\n  "steps": [\n    ' + body + "\n  ]\n}\n"
