"""Shared helpers for the Flash 8 tests: rooms at a given moment, tablets built to order."""

from __future__ import annotations

import random
from typing import Any

import attrs

from engine.core import Event, SeatSpec, validate_options, validate_seat_choices
from engine.flash8.board import BLANK, FULL_SET
from engine.flash8.state import RaceState, SoloState, State
from engine.registry import get_game

GAME = get_game("flash8")

START = 3.0  # the default countdown: the race starts at room time 3.0


def complete(pattern: str, electrons: str = FULL_SET) -> str:
    """A tablet holding ``electrons`` that matches ``pattern`` (leftovers fill the blanks)."""
    rest = list(electrons)
    for item in pattern:
        if item != BLANK:
            rest.remove(item)
    cells = []
    for item in pattern:
        cells.append(rest.pop(0) if item == BLANK else item)
    return "".join(cells)


def apply(state: State, events: list[Event]) -> State:
    for event in events:
        state = GAME.evolve(state, event)
    return state


def new_state(
    players: int = 2,
    seed: int = 1,
    handicap: tuple[bool, ...] = (),
    **options: Any,
) -> State:
    """A freshly dealt room (before the countdown)."""
    checked = validate_options(GAME, options)
    seats = [
        SeatSpec(
            name=f"p{n}",
            choices=validate_seat_choices(
                GAME, {"handicap": handicap[n]} if n < len(handicap) else {}
            ),
        )
        for n in range(players)
    ]
    return GAME.setup(checked, seats, random.Random(seed))


def started(state: State) -> State:
    """Run the countdown: the first tick starts it, the next starts play."""
    state = apply(state, GAME.tick(state, 0.0, random.Random(0)))
    begin = GAME.deadline(state)
    assert begin is not None
    return apply(state, GAME.tick(state, begin, random.Random(0)))


def race(players: int = 2, seed: int = 1, **options: Any) -> RaceState:
    state = started(new_state(players, seed, **options))
    assert isinstance(state, RaceState)
    return state


def solo_game(seed: int = 1, **options: Any) -> SoloState:
    state = started(new_state(1, seed, mode="solo", **options))
    assert isinstance(state, SoloState)
    return state


def act(state: State, seat: int, command: Any, now: float) -> tuple[State, list[Event]]:
    events = GAME.decide(state, seat, command, now, random.Random(0))
    return apply(state, events), events


def with_tablet(state: RaceState, seat: int, tablet: str) -> RaceState:
    tablets = list(state.tablets)
    tablets[seat] = tablet
    return attrs.evolve(state, tablets=tuple(tablets))
