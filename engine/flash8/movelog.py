"""What Flash 8's move log (:mod:`engine.movelog`) notes: the race's start, takes, late claims,
ties, lockouts and its end; solo's start, claims, lockouts and end. Slides are never noted
(the tablets show them), nor a held claim, which only its claimant may know of until it is
judged (decisions 17): its take, or its late claim, is noted then.
"""

from __future__ import annotations

from engine.core import Event
from engine.flash8.messages import (
    CardTaken,
    ClaimLate,
    ClaimMissed,
    Ended,
    LimitReached,
    LineClaimed,
    Started,
    TieSettled,
)
from engine.flash8.solo import LINE_NAMES
from engine.flash8.state import State
from engine.movelog import Entry, record

__all__ = ["noted"]


def noted(before: State, event: Event) -> tuple[Entry, ...]:
    """The move log of the state ``event`` applies to, with ``event`` noted (the same log
    when the event is not one the log notes)."""
    log = before.log
    if isinstance(event, CardTaken):
        return record(
            log,
            event.seat,
            "take",
            {
                "stack": event.stack,
                "card": event.card,
                "points": event.points,
                "took": event.took,
                "slides": event.slides,
                "optimal": event.optimal,
            },
        )
    if isinstance(event, LineClaimed):
        return record(
            log,
            event.seat,
            "claim",
            {
                "line": event.line,
                "name": LINE_NAMES[event.line],
                "shape": event.shape,
                "covered": len(event.covered),
                "took": event.took,
                "slides": event.slides,
            },
        )
    if isinstance(event, ClaimMissed):
        where = {"stack": event.stack} if event.line is None else {"line": event.line}
        return record(log, event.seat, "miss", {**where, "until": event.until})
    if isinstance(event, ClaimLate):
        return record(
            log, event.seat, "late", {"card": event.card, "by": event.by, "behind": event.behind}
        )
    if isinstance(event, TieSettled):
        return record(
            log,
            event.winner,
            "tie",
            {"stack": event.stack, "card": event.card, "seats": event.seats},
        )
    if isinstance(event, Started):
        return record(log, None, "start", {"at": event.at, "ends_at": event.ends_at})
    if isinstance(event, LimitReached):
        return record(log, None, "limit", {"at": event.at})
    if isinstance(event, Ended):
        return record(log, None, "end", {"at": event.at, "reason": event.reason})
    return log
