"""``lumin verify``: recompute a finished game from its downloaded log.

The log document (``GET /rooms/<id>/log``) reveals the room's seed and salt. Verification
checks that the published commitment is SHA-256(salt + seed), deals the first state from the
seed, and re-decides every record — each command with ``chance(seed, position)`` at its
recorded time, each clock tick likewise — checking that the rules give exactly the recorded
events, at the recorded log positions, and that the game ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from engine.core import Rejected, chance, first_state, from_wire, to_wire
from engine.registry import get_game
from protocol.fairness import verify as check_commitment
from server.seats import seat_specs

__all__ = ["Report", "verify_document"]


@attrs.frozen
class Report:
    """What verification found: ``ok`` when ``problems`` is empty."""

    game: str
    records: int
    events: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_document(document: Mapping[str, Any]) -> Report:
    """Check a downloaded log document (see the module docstring)."""
    problems: list[str] = []
    game_id = str(document.get("game"))
    if not check_commitment(document["seed"], document["salt"], document["commitment"]):
        problems.append("the seed and salt do not match the room's published commitment")
    game = get_game(game_id)
    seed = bytes.fromhex(document["seed"])
    state = first_state(game, document["options"], seat_specs(document["seats"]), seed)
    position = 0
    for record in document["records"]:
        label = f"record {record['seq']}"
        if record["position"] != position:
            problems.append(f"{label}: at log position {record['position']}, expected {position}")
            break
        rng = chance(seed, position)
        try:
            if record["command"] is None:
                events = game.tick(state, record["at"], rng)
            else:
                command = from_wire(game.commands, record["command"])
                events = game.decide(state, record["seat"], command, record["at"], rng)
        except Rejected as refusal:
            problems.append(f"{label}: the rules refuse it ({refusal.code}: {refusal.message})")
            break
        if [to_wire(event) for event in events] != list(record["events"]):
            problems.append(f"{label}: the rules give other events than the log records")
            break
        for event in events:
            state = game.evolve(state, event)
        position += len(events)
    else:
        if game.outcome(state) is None:
            problems.append("the log ends before the game does")
    return Report(
        game=game_id,
        records=len(document["records"]),
        events=position,
        problems=tuple(problems),
    )
