"""The batch decision: which of the commands waiting in a room together the rules accept.

Commands queued in a room while it was busy are decided together (one commit, one delta per
viewer): in order, each against the state the ones before it made, as if committed one by
one. Pure: from the room's state, ``seq``, log position and seed, its legal-command cache and
the queued acts, :func:`decide_batch` gives the records to append, the step each makes and
each command's outcome; the room commits, applies and answers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

import attrs

from engine.core import Event, Game, Rejected, ViewPatcher, chance, from_wire, to_wire
from protocol.errors import ErrorCode
from server.errors import Refused
from server.store import Record

__all__ = ["Batch", "QueuedAct", "Step", "decide_batch", "make_step"]


@attrs.frozen
class QueuedAct:
    """A command waiting in a room's queue: who sent it (``peer``; bots have none), for which
    seat, the command's wire form, the request's id and the ``seq`` the sender acted on."""

    peer: Any
    seat: int
    data: Mapping[str, Any]
    ref: int | None = None
    seen: int | None = None


class Step(NamedTuple):
    """One record's effect: the state before, its events, the state after, and the seats whose
    legal commands may have changed (``None``: any)."""

    before: Any
    events: list[Event]
    after: Any
    changed: Collection[int] | None


def make_step(game: Game, patcher: ViewPatcher | None, before: Any, events: list[Event]) -> Step:
    """``events`` applied to ``before``, with the seats whose legal commands they may change
    when the game says (``patcher``: the game itself when it is a
    :class:`~engine.core.ViewPatcher`, looked up once by the caller)."""
    after = before
    for event in events:
        after = game.evolve(after, event)
    changed = patcher.legal_seats(before, after, events) if patcher is not None else None
    return Step(before, events, after, changed)


@attrs.frozen
class Batch:
    """What :func:`decide_batch` decided: the ``records`` to append (consecutive, from the
    room's ``seq`` + 1), one ``step`` each, per command its ``outcome`` (the refusal, or the
    ``seq`` its record got), the seats whose legal commands the steps may have changed
    (``None``: any), and the log position after the batch."""

    records: list[Record]
    steps: list[Step]
    outcomes: list[Rejected | Refused | int]
    changed: set[int] | None
    position: int


def decide_batch(
    game: Game,
    patcher: ViewPatcher | None,
    state: Any,
    seq: int,
    position: int,
    seed: bytes,
    started: bool,
    legal: Mapping[int, Any],
    legal_since: Mapping[int, int],
    acts: Sequence[QueuedAct],
    now: float,
) -> Batch:
    """Decide ``acts`` in order (see the module docstring). A command is refused by the room
    before the rules see it when the game has not ``started`` (``not_started``), or when its
    ``seen`` seq is older than the last change of its seat's legal commands (``legal_since``;
    changes made by commands earlier in the batch count) or past the room's (``stale``); by the
    rules with their own :class:`~engine.core.Rejected`. Chance is drawn from the seed at the
    log position each command starts at."""
    steps: list[Step] = []
    records: list[Record] = []
    outcomes: list[Rejected | Refused | int] = []
    # Seats whose legal commands the steps so far may have changed (None: any seat).
    changed: set[int] | None = set()
    for act in acts:
        try:
            if not started:
                raise Refused(ErrorCode.NOT_STARTED, "The game has not started yet.")
            since = legal_since.get(act.seat, 0)
            # Commands decided earlier in this batch may have changed this seat's legal
            # commands, as if they had been committed one by one.
            if (
                steps
                and act.seen is not None
                and (changed is None or act.seat in changed)
                and game.legal(state, act.seat) != legal.get(act.seat)
            ):
                since = seq
            if act.seen is not None and act.seen < since:
                raise Refused(
                    ErrorCode.STALE,
                    f"Your legal commands changed at seq {since}; you acted on seq {act.seen}.",
                )
            if act.seen is not None and act.seen > seq:
                raise Refused(
                    ErrorCode.STALE,
                    f"You acted on seq {act.seen}, which this room has not reached (it is at"
                    f" {seq}); resume to get its view.",
                )
            command = from_wire(game.commands, act.data)
            events = game.decide(state, act.seat, command, now, chance(seed, position))
        except (Rejected, Refused) as refusal:
            outcomes.append(refusal)
            continue
        records.append(
            Record(
                seq=seq + 1,
                position=position,
                seat=act.seat,
                command=to_wire(command),
                at=now,
                events=tuple(to_wire(event) for event in events),
            )
        )
        step = make_step(game, patcher, state, events)
        steps.append(step)
        state = step.after
        if step.changed is None:
            changed = None
        elif changed is not None:
            changed.update(step.changed)
        seq += 1
        position += len(events)
        outcomes.append(seq)
    return Batch(records, steps, outcomes, changed, position)
