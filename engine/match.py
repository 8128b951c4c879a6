"""A game played in-process on a simulated clock: the harness behind self-play, the arena,
golden playthroughs and the contract tests.

A :class:`Match` holds what a room holds (options, seats, seed, the first state, the log and
the current state) without any I/O. :func:`play_out` lets bots play it to the end, advancing the
clock straight to the next thing that happens (a bot's chosen moment or an engine deadline), so
a real-time game runs as fast as the CPU allows.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from engine.core import (
    Action,
    Bot,
    Command,
    Event,
    Game,
    Outcome,
    SeatSpec,
    chance,
    expand_legal,
    first_state,
    validate_options,
    validate_seat_choices,
)

__all__ = ["Match", "SeatFactory", "Stalled", "StepHook", "make_bots", "play_out"]


class Stalled(RuntimeError):
    """A game that no bot and no deadline can move on: a bug in a game or a bot."""


@attrs.define
class Match:
    """One game's state and log; every change goes through :meth:`act` or :meth:`tick`."""

    game: Game
    options: dict[str, Any]
    seats: tuple[SeatSpec, ...]
    seed: bytes
    first: Any
    state: Any
    log: list[Event] = attrs.field(factory=list)
    commands: int = 0
    now: float = 0.0

    @classmethod
    def start(
        cls,
        game: Game,
        seats: Sequence[SeatSpec],
        seed: bytes,
        options: Mapping[str, Any] | None = None,
    ) -> Match:
        """Validate options and seat choices, deal the first state from the seed."""
        checked = validate_options(game, options or {})
        if len(seats) not in game.seat_counts(checked):
            counts = game.seat_counts(checked)
            raise ValueError(f"{game.id} takes {counts.start}-{counts.stop - 1} seats")
        specs = tuple(
            attrs.evolve(seat, choices=validate_seat_choices(game, seat.choices)) for seat in seats
        )
        first = first_state(game, checked, specs, seed)
        return cls(game, checked, specs, seed, first, first)

    def act(self, seat: int, command: Command, now: float | None = None) -> list[Event]:
        """Decide and apply one command from ``seat``; raises ``Rejected`` when refused."""
        if now is not None:
            self.now = max(self.now, now)
        rng = chance(self.seed, len(self.log))
        events = self.game.decide(self.state, seat, command, self.now, rng)
        self._apply(events)
        self.commands += 1
        return events

    def tick(self, now: float) -> list[Event]:
        """Move the clock to ``now`` and apply whatever the engine says is due."""
        self.now = max(self.now, now)
        rng = chance(self.seed, len(self.log))
        events = self.game.tick(self.state, self.now, rng)
        self._apply(events)
        return events

    def _apply(self, events: Sequence[Event]) -> None:
        for event in events:
            self.state = self.game.evolve(self.state, event)
            self.log.append(event)

    @property
    def outcome(self) -> Outcome | None:
        return self.game.outcome(self.state)

    def options_for(self, seat: int) -> list[Command]:
        """The concrete commands ``seat`` may send now."""
        return expand_legal(self.game, self.game.legal(self.state, seat))


#: Builds a bot that needs the match itself (a bot from outside the engine, which reads the
#: seat's ``legal`` entries as a client would): ``factory(match, seat, rng)``.
SeatFactory = Callable[["Match", int, random.Random], Bot]


def make_bots(
    match: Match,
    kinds: Sequence[str | None],
    seed: bytes,
    extra: Mapping[str, SeatFactory] | None = None,
) -> list[Bot | None]:
    """One bot per seat of the given kinds (``None`` leaves a seat empty), seeded per seat:
    the game's own kinds, or those ``extra`` builds."""
    bots: list[Bot | None] = []
    for seat, kind in enumerate(kinds):
        if kind is None:
            bots.append(None)
            continue
        rng = random.Random(chance(seed, f"bot{seat}").random())
        if extra is not None and kind in extra:
            bots.append(extra[kind](match, seat, rng))
            continue
        bots.append(match.game.bots[kind](match.game, seat, rng))
    return bots


#: Called after each step of :func:`play_out` with the match, the acting seat and command
#: (``None`` for a clock tick) and the events that followed.
StepHook = Callable[[Match, int | None, Command | None, list[Event]], None]


def play_out(
    match: Match,
    bots: Sequence[Bot | None],
    max_steps: int = 200_000,
    on_step: StepHook | None = None,
    bot_delay: float = 0.0,
) -> Match:
    """Let ``bots`` play ``match`` until it ends, on a simulated clock.

    At each step every bot whose seat has commands is asked for its next action; the earliest
    action, or the engine's deadline if that comes first, happens next. A bot that wants to act
    at once is paced by ``bot_delay`` simulated seconds, as the server paces its bot seats (an
    action the bot sets later than now keeps its own moment). Raises :class:`Stalled` when
    nothing can happen, and propagates ``Rejected`` from a bot's command (a bot bug).
    """
    game = match.game
    for _ in range(max_steps):
        if match.outcome is not None:
            return match
        best: tuple[float, int, Action] | None = None
        for seat, bot in enumerate(bots):
            if bot is None:
                continue
            options = match.options_for(seat)
            if not options:
                continue
            action = bot.act(game.view(match.state, seat), options, match.now)
            if action is None:
                continue
            at = action.at if action.at > match.now else match.now + bot_delay
            if best is None or at < best[0]:
                best = (at, seat, action)
        deadline = game.deadline(match.state)
        if deadline is not None and (best is None or deadline <= best[0]):
            events = match.tick(max(deadline, match.now))
            if on_step is not None:
                on_step(match, None, None, events)
            continue
        if best is None:
            raise Stalled(f"{game.id}: no bot acts and no deadline is set")
        at, seat, action = best
        events = match.act(seat, action.command, at)
        if on_step is not None:
            on_step(match, seat, action.command, events)
    raise Stalled(f"{game.id}: no end after {max_steps} steps")
