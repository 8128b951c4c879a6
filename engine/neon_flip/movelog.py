"""What Neon Flip's move log (:mod:`engine.movelog`) notes of each event: public happenings
for everyone, and what only one seat saw (the objective it kept, the card it drew) for that
seat alone (decisions 9).

A cascade's flips join into one entry, so a long chain does not push the turn out of the log;
shuffles note no order and checkpoints no new pile.
"""

from __future__ import annotations

from typing import Any

import attrs

from engine.core import Event
from engine.movelog import Entry, record
from engine.neon_flip.cards import kind_of
from engine.neon_flip.messages import (
    AiCardPlayed,
    AiCascaded,
    AiOvercharged,
    CardBought,
    CardDiscarded,
    CardDrawn,
    CardPlayed,
    CascadeFlipped,
    CascadeStopped,
    Checkpoint,
    ClockExpired,
    DeckReshuffled,
    DominanceCounted,
    GameEnded,
    ManualFlipped,
    NodeLocked,
    ObjectiveChosen,
    TurnEnded,
    TurnStarted,
)
from engine.neon_flip.state import State

__all__ = ["PROTO_ZERO_SEAT", "noted"]

#: The seat an entry names for PROTO-ZERO's own moves (solo), as cards name it as a target.
PROTO_ZERO_SEAT = -1

#: A played card's targeting fields and the value each holds when the card does not use it.
_TARGETING = (("slot", 0), ("other", 0), ("line", ""), ("index", 0), ("step", 0), ("colour", ""))


def noted(before: State, event: Event) -> tuple[Entry, ...]:
    """The move log of the state ``event`` applies to, with ``event`` noted."""
    log = before.log
    if isinstance(event, ObjectiveChosen):
        return record(log, event.seat, "objective", private={"objective": event.objective})
    if isinstance(event, TurnStarted):
        return record(
            log,
            event.seat,
            "turn",
            {"turn": before.turns + 1, "income": event.income, "surcharge": event.surcharge},
        )
    if isinstance(event, CardPlayed):
        return record(log, event.seat, "card", _card_fields(event))
    if isinstance(event, ManualFlipped):
        return record(log, event.seat, "flip", {"slot": event.slot, "cost": event.cost})
    if isinstance(event, CardBought):
        return record(log, event.seat, "buy", _card(event.card))
    if isinstance(event, NodeLocked):
        return record(log, event.seat, "lock", {"slot": event.slot})
    if isinstance(event, CascadeFlipped):
        return _cascaded(log, event.seat, (event.slot,))
    if isinstance(event, CascadeStopped):
        return record(log, event.seat, "cascade_stop")
    if isinstance(event, TurnEnded):
        return record(log, event.seat, "end_turn")
    if isinstance(event, CardDiscarded):
        return record(log, event.seat, "discard", _card(event.card))
    if isinstance(event, CardDrawn):
        # Everyone sees a card taken (or owed, from an empty pile); only the drawer which.
        if not before.draw:
            return record(log, event.seat, "draw", {"owed": True})
        return record(log, event.seat, "draw", {"owed": False}, private=_card(before.draw[0]))
    if isinstance(event, DeckReshuffled):
        return record(log, None, "reshuffle", {"cards": len(event.order)})
    if isinstance(event, Checkpoint):
        return record(log, None, "checkpoint", {"number": event.number, "gains": event.gains})
    if isinstance(event, AiCardPlayed):
        return record(
            log,
            PROTO_ZERO_SEAT,
            "ai_card",
            {"card": event.card, "slots": event.slots, "energy": event.energy},
        )
    if isinstance(event, AiOvercharged):
        return record(log, PROTO_ZERO_SEAT, "ai_overcharge", {"slots": event.slots})
    if isinstance(event, AiCascaded):
        return _cascaded(log, PROTO_ZERO_SEAT, event.slots)
    if isinstance(event, DominanceCounted):
        return record(log, None, "dominance", {"gains": event.gains})
    if isinstance(event, ClockExpired):
        return record(log, None, "clock")
    if isinstance(event, GameEnded):
        return record(log, None, "end", {"reason": event.reason})
    return log


def _card(card: str) -> dict[str, Any]:
    """A card as the table tells it: its kind, never which copy (a copy played, bought or
    discarded may go back into the draw pile, where no one can follow it)."""
    kind = kind_of(card)
    return {"kind": kind.key, "name": kind.name}


def _card_fields(event: CardPlayed) -> dict[str, Any]:
    """A played card, its cost and the targets it used (a drained seat's ``target`` always:
    -1 is PROTO-ZERO)."""
    fields: dict[str, Any] = {**_card(event.card), "cost": event.cost}
    for name, unused in _TARGETING:
        value = getattr(event, name)
        if value != unused:
            fields[name] = value
    fields["target"] = event.target
    return fields


def _cascaded(log: tuple[Entry, ...], seat: int, slots: tuple[int, ...]) -> tuple[Entry, ...]:
    """A cascade's flips: joined onto the log's last entry when it is the same seat's
    cascade (renumbered, so a client sees it changed), else a new entry."""
    if log and log[-1].what == "cascade" and log[-1].seat == seat:
        last = log[-1]
        fields = dict(last.public)
        public = {"slots": (*fields["slots"], *slots)}
        return (*log[:-1], attrs.evolve(last, n=last.n + 1, public=tuple(public.items())))
    return record(log, seat, "cascade", {"slots": slots})
