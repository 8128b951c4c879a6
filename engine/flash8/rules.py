"""Flash 8: the rules object Lumin's registry hands out as ``flash8``.

Sources: ``flash8.rulebook.txt`` (cited by heading) and ``flash8.decisions.md`` (cited by
number). Two modes share one rules object: the race (:mod:`engine.flash8.race`, 2-4 players,
the default) and solo (:mod:`engine.flash8.solo`, one player against a 4-minute clock), chosen
by the room option ``mode``.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from engine.core import (
    BotFactory,
    Command,
    Event,
    OptionSpec,
    Outcome,
    PatchOp,
    Rejected,
    SeatSpec,
    Viewer,
    outcome_to_wire,
    replace,
)
from engine.flash8 import movelog, race, solo, views
from engine.flash8.messages import COMMANDS, EVENTS, Slid
from engine.flash8.state import SoloState, State

__all__ = ["GAME", "Flash8"]


class Flash8:
    """The rules object; every method dispatches on the state's mode."""

    id = "flash8"
    name = "Flash 8"
    commands: tuple[type[Command], ...] = COMMANDS
    events: tuple[type[Event], ...] = EVENTS
    options: tuple[OptionSpec, ...] = (
        OptionSpec(
            "mode", "choice", "race", "race (2-4 players) or solo (1 player)", ("race", "solo")
        ),
        OptionSpec(
            "lockout",
            "float",
            2.0,
            "seconds a wrong claim locks its player out (decisions 7)",
            minimum=0.0,
            maximum=60.0,
        ),
        OptionSpec(
            "time_limit",
            "float",
            0.0,
            "race time limit in seconds, 0 for none (decisions 8)",
            minimum=0.0,
            maximum=7200.0,
            when=(("mode", ("race",)),),
        ),
        OptionSpec(
            "countdown",
            "float",
            3.0,
            "seconds of countdown before the start (decisions 6)",
            minimum=0.0,
            maximum=60.0,
        ),
        OptionSpec(
            "same_start",
            "bool",
            False,
            "every racer starts from one arrangement turned to their seat (decisions 6)",
            when=(("mode", ("race",)),),
        ),
        OptionSpec(
            "credit_cap",
            "float",
            0.25,
            "the most lag in seconds a claim is credited, 0 for none: the first claim"
            " received wins (decisions 17)",
            minimum=0.0,
            maximum=0.5,
            when=(("mode", ("race",)),),
        ),
        OptionSpec("hints", "bool", False, "allow the hint command (the solver's next slide)"),
        OptionSpec(
            "solo_seconds",
            "float",
            240.0,
            "the solo clock in seconds (rulebook: 4 minutes)",
            minimum=5.0,
            maximum=3600.0,
            when=(("mode", ("solo",)),),
        ),
    )
    seat_options: tuple[OptionSpec, ...] = (
        OptionSpec(
            "handicap",
            "bool",
            False,
            "race with one blue electron fewer, two free spaces (rulebook 'Setup'; decisions 1)",
            when=(("mode", ("race",)),),
        ),
    )
    #: The rules alone have no bots: the registry attaches ``engine.flash8.bots.BOTS``.
    bots: Mapping[str, BotFactory] = MappingProxyType({})
    default_bot = "bot"

    def seat_counts(self, options: Mapping[str, Any]) -> range:
        """2-4 racers (decisions 4-5); one player in solo (rulebook "Solo Mode")."""
        return range(1, 2) if options.get("mode") == "solo" else range(2, 5)

    def check_seats(self, options: Mapping[str, Any], choices: Sequence[Mapping[str, Any]]) -> None:
        """The handicap is a race option: no solo seat takes it (decisions 1)."""
        if options["mode"] == "solo" and any(choice.get("handicap") for choice in choices):
            raise Rejected("bad_option", "The handicap is for races only.", rule="decisions 1")

    def setup(
        self, options: Mapping[str, Any], seats: Sequence[SeatSpec], rng: random.Random
    ) -> State:
        """Deal a race or a solo game (rulebook "Setup", "Solo Mode: Setup")."""
        self.check_seats(options, [seat.choices for seat in seats])
        if options["mode"] == "solo":
            return solo.setup(options, rng)
        return race.setup(options, seats, rng)

    def decide(
        self, state: State, seat: int, command: Command, now: float, rng: random.Random
    ) -> list[Event]:
        """The events a command causes; a wrong claim is accepted with a lockout (decisions 7)."""
        if isinstance(state, SoloState):
            return solo.decide(state, seat, command, now)
        return race.decide(state, seat, command, now, rng)

    def evolve(self, state: State, event: Event) -> State:
        """Apply one event (pure), noting it in the move log (:mod:`engine.flash8.movelog`);
        a slide, the most frequent, is never noted."""
        after: State = (
            solo.evolve(state, event) if isinstance(state, SoloState) else race.evolve(state, event)
        )
        if isinstance(event, Slid):
            return after
        log = movelog.noted(state, event)
        return after if log is state.log else replace(after, log=log)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """See :func:`engine.flash8.views.race_view` and :func:`engine.flash8.views.solo_view`;
        once the game is over it also holds the outcome with its report."""
        if isinstance(state, SoloState):
            out = views.solo_view(state, viewer)
        else:
            out = views.race_view(state, viewer)
        outcome = self.outcome(state)
        if outcome is not None:
            out["outcome"] = outcome_to_wire(outcome)
        return out

    def view_patch(
        self, before: State, after: State, events: Sequence[Event], viewer: Viewer
    ) -> list[PatchOp] | None:
        """A lone slide (the race's most frequent step) changes the same two values in every
        view; anything else is left to the server's diff (see ``engine.core.ViewPatcher``)."""
        if len(events) != 1 or not isinstance(events[0], Slid):
            return None
        if isinstance(after, SoloState):
            return views.solo_slide_patch(after)
        return views.race_slide_patch(after, events[0].seat)

    def legal_seats(
        self, before: State, after: State, events: Sequence[Event]
    ) -> Collection[int] | None:
        """A lone slide changes only its own seat's tablet, so only that seat's legal commands
        (stacks, phase and lockouts are untouched); anything else may change anyone's."""
        if len(events) != 1 or not isinstance(events[0], Slid):
            return None
        return (events[0].seat,)

    def legal(self, state: State, seat: int) -> list[dict[str, Any]]:
        """The commands ``seat`` may send now."""
        if isinstance(state, SoloState):
            return solo.legal(state, seat)
        return race.legal(state, seat)

    def deadline(self, state: State) -> float | None:
        """The next moment the clock matters (countdown, start, lockout end, time limit)."""
        if isinstance(state, SoloState):
            return solo.deadline(state)
        return race.deadline(state)

    def tick(self, state: State, now: float, rng: random.Random) -> list[Event]:
        """The events due at ``now``."""
        if isinstance(state, SoloState):
            return solo.tick(state, now)
        return race.tick(state, now, rng)

    def outcome(self, state: State) -> Outcome | None:
        """Race: most points wins, equal leaders share (decisions 8). Solo: the score is the
        reserve left, lower is better, with its rank (decisions 16)."""
        if state.phase != "over":
            return None
        if isinstance(state, SoloState):
            details = solo.report(state)
            return Outcome(
                ranks=(1,),
                scores=(float(details["score"]),),
                reason=state.ended_reason or "time_up",
                details=details,
            )
        points = [0] * state.players
        for take in state.takes:
            points[take.seat] += take.points
        ranks = tuple(1 + sum(1 for other in points if other > mine) for mine in points)
        return Outcome(
            ranks=ranks,
            scores=tuple(float(p) for p in points),
            reason=state.ended_reason or "stacks_empty",
            details={
                "slides": sum(state.slides),
                "cards_taken": len(state.takes),
                "duration": (state.ended_at or 0.0) - (state.started_at or 0.0),
                **race.report(state),
            },
        )


GAME = Flash8()
