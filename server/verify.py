"""``lumin verify``: recompute a game from its downloaded log.

The log document (``GET /rooms/<id>/log``) reveals the room's seed and salt. Verification
checks that the published commitment is SHA-256(salt + seed), deals the first state from the
seed, and re-decides every record — each command with ``chance(seed, position)`` at its
recorded time, each clock tick likewise — checking that the rules give exactly the recorded
events, at the recorded log positions, and that the game ends.

A log can also be of a game that has not ended: the operator's (``lumin admin log``) says the
room's ``status``, and one ``waiting`` or ``playing`` (:data:`LIVE`), or stopped before its end
(:data:`STOPPED`: expired, abandoned, closed by the operator), is checked as far as it goes;
that it stops before an outcome is then no mismatch, only not over (:attr:`Report.over`). A
live log that keeps the seed secret (``seed`` null) can only show its commitment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from engine.core import Rejected, chance, first_state, from_wire, to_wire
from engine.registry import get_game
from protocol.fairness import verify as check_commitment
from server.seats import seat_specs

__all__ = ["LIVE", "STOPPED", "Report", "verify_document"]

#: A log's ``status`` while its game goes on, and once it was stopped before its end.
LIVE = frozenset({"waiting", "playing"})
STOPPED = frozenset({"expired", "abandoned", "aborted"})


@attrs.frozen
class Report:
    """What verification found: ``ok`` when ``problems`` is empty; ``over`` when the records
    reach the game's outcome (a whole game checked), ``status`` the room's as the log says
    it (``None`` in a public log, which is a finished game's), ``sealed`` when the log keeps
    the seed secret (nothing recomputed)."""

    game: str
    records: int
    events: int
    problems: tuple[str, ...]
    over: bool = True
    status: str | None = None
    sealed: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_document(document: Mapping[str, Any]) -> Report:
    """Check a downloaded log document (see the module docstring)."""
    problems: list[str] = []
    game_id = str(document.get("game"))
    status = document.get("status")
    status = status if isinstance(status, str) else None
    unfinished = status in LIVE or status in STOPPED
    if unfinished and document.get("seed") is None:
        records = len(document["records"])
        return Report(game_id, records, 0, (), over=False, status=status, sealed=True)
    if not check_commitment(document["seed"], document["salt"], document["commitment"]):
        problems.append("the seed and salt do not match the room's published commitment")
    game = get_game(game_id)
    seed = bytes.fromhex(document["seed"])
    state = first_state(game, document["options"], seat_specs(document["seats"]), seed)
    position = 0
    over = False
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
                command = from_wire(game.commands, record["command"], trusted=True)
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
        over = game.outcome(state) is not None
        if not over and not unfinished:
            problems.append("the log ends before the game does")
    return Report(
        game=game_id,
        records=len(document["records"]),
        events=position,
        problems=tuple(problems),
        over=over,
        status=status,
    )
