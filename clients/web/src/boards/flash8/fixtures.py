"""Dump real Flash 8 views and legal commands for the board's unit tests.

Every fixture comes from the engine itself (``engine.registry.get_game("flash8")``), so the
tests draw exactly the shapes the server sends: the view of one viewer at one moment and that
viewer's ``legal`` list (compact entries with ``choose`` left as the server sends them).

Run from the repository root::

    .venv/bin/python clients/web/src/boards/flash8/fixtures.py

It writes ``fixtures.json`` next to this file: ``{name: {"view": ..., "legal": [...]}}``.
Room times are small numbers (the countdown starts at 0.0, play at ``START``); the tests fake
``serverNow()`` on the same clock. The output is deterministic (fixed seeds and times).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[5]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from clients.web.scripts.board_fixtures import fixture, write_fixtures  # noqa: E402
from engine.core import SeatSpec, validate_options, validate_seat_choices  # noqa: E402
from engine.flash8.board import matches  # noqa: E402
from engine.flash8.cards import CARDS  # noqa: E402
from engine.flash8.messages import ClaimLine, Flash, Hint, Slide  # noqa: E402
from engine.flash8.solo import LINES, line_pattern  # noqa: E402
from engine.flash8.solver import distance, next_slide  # noqa: E402
from engine.registry import get_game  # noqa: E402

GAME = get_game("flash8")
#: The countdown used by every fixture: it starts at room time 0.0, play at START.
START = 3.0


def _apply(state: Any, events: list[Any]) -> Any:
    for event in events:
        state = GAME.evolve(state, event)
    return state


def new_state(players: int, seed: int, handicap: tuple[bool, ...] = (), **options: Any) -> Any:
    """A freshly dealt room, phase ``waiting``."""
    checked = validate_options(GAME, {"countdown": START, **options})
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


def tick(state: Any, now: float) -> Any:
    return _apply(state, GAME.tick(state, now, random.Random(0)))


def act(state: Any, seat: int, command: Any, now: float) -> Any:
    return _apply(state, GAME.decide(state, seat, command, now, random.Random(0)))


def counting(state: Any) -> Any:
    """The first tick: the countdown runs from 0.0 to START."""
    return tick(state, 0.0)


def running(state: Any) -> Any:
    return tick(counting(state), START)


def snap(state: Any, viewer: int | None) -> dict[str, Any]:
    """One fixture: the view of ``viewer`` and its legal commands."""
    return fixture(GAME, state, viewer)


def race_step(state: Any, seat: int, now: float) -> Any:
    """One move of a solver player: FLASH a matching top (naming it), else slide toward the
    nearest top."""
    me = state.tablets[seat]
    best: tuple[int, str] | None = None
    far = 10**9
    for index, pile in enumerate(state.stacks):
        if not pile:
            continue
        pattern = state.pattern(pile[0], seat)
        if matches(me, pattern):
            return act(state, seat, Flash(index), now)
        d = distance(me, pattern)
        if d < far:
            best, far = (index, pattern), d
    if best is None:
        return state
    step = next_slide(me, best[1])
    return state if step is None else act(state, seat, Slide(*step), now)


def play_race(state: Any, now: float, until_takes: int | None = None) -> tuple[Any, float]:
    """Both/all seats move in turn (0.1 s apart) until the race ends or enough takes."""
    while state.phase == "running":
        if until_takes is not None and len(state.takes) >= until_takes:
            break
        for seat in range(state.players):
            if state.phase != "running":
                break
            now += 0.1
            # Seat 0 is slower: it moves every other round, so the scores differ.
            if seat == 0 and round(now * 10) % 3 == 0:
                continue
            state = race_step(state, seat, now)
    return state, now


def solo_step(state: Any, now: float) -> Any:
    """One move of a solo solver: claim a matching line (shape of its first card), else slide
    toward the nearest claimable line."""
    colours = state.colours()
    best: tuple[int, str] | None = None
    far = 10**9
    for line in range(len(LINES)):
        if line == state.token:
            continue
        pattern = line_pattern(colours, line)
        d = distance(state.tablet, pattern)
        if d == 0:
            shape = CARDS[state.grid[LINES[line][0]]].shape
            return act(state, 0, ClaimLine(line, shape), now)
        if d < far:
            best, far = (line, pattern), d
    if best is None:
        return state
    step = next_slide(state.tablet, best[1])
    return state if step is None else act(state, 0, Slide(*step), now)


def wrong_flash(state: Any, seat: int, now: float) -> Any:
    """A FLASH that matches nothing: a wrong claim, which locks ``seat`` out."""
    for pile in state.stacks:
        if pile and matches(state.tablets[seat], state.pattern(pile[0], seat)):
            raise RuntimeError("pick another seed: the tablet matches a top")
    return act(state, seat, Flash(), now)


def build() -> dict[str, Any]:
    out: dict[str, Any] = {}

    # --- race, two players (south and north), hints on, a time limit ---------------------------
    base = new_state(2, seed=7, hints=True, time_limit=300.0, lockout=2.0)
    out["race_waiting"] = snap(base, 0)
    out["race_countdown"] = snap(counting(base), 0)
    race = running(base)
    out["race_running"] = snap(race, 0)
    out["race_running_north"] = snap(race, 1)
    out["race_running_spectator"] = snap(race, None)

    # One slide by seat 0: the view before and after (for the slide animation).
    first = GAME.legal(race, 0)[0]
    slid = act(race, 0, Slide(first["src"], first["dst"]), START + 0.5)
    out["race_after_slide"] = snap(slid, 0)

    # A race in the middle: a few cards taken, a hint given to seat 0.
    middle, now = play_race(race, START, until_takes=3)
    middle = act(middle, 0, Hint(), now)
    out["race_middle"] = snap(middle, 0)

    # Seat 0 makes a wrong claim: locked out for 2 s, nothing legal.
    locked = wrong_flash(middle, 0, now + 1.0)  # past the grace window
    out["race_locked"] = snap(locked, 0)
    out["race_locked_other"] = snap(locked, 1)

    # The race played to the end.
    finished, _ = play_race(race, START)
    out["race_finished"] = snap(finished, 0)

    # --- race, four players, seat 1 (west) handicapped; seen by the west seat ------------------
    four = running(new_state(4, seed=11, handicap=(False, True, False, False)))
    out["race4_west_handicap"] = snap(four, 1)
    out["race4_east"] = snap(four, 3)

    # --- solo ----------------------------------------------------------------------------------
    lone = new_state(1, seed=5, mode="solo", hints=True, solo_seconds=240.0)
    out["solo_countdown"] = snap(counting(lone), 0)
    solo = running(lone)
    out["solo_running"] = snap(solo, 0)
    # Play until the first claim: the token stands by a line.
    now = START
    claimed = solo
    while not claimed.claims and claimed.phase == "running":
        now += 0.2
        claimed = solo_step(claimed, now)
    out["solo_claimed"] = snap(claimed, 0)
    # A wrong claim: the first line the tablet does not reproduce.
    colours = claimed.colours()
    wrong = next(
        line
        for line in range(len(LINES))
        if line != claimed.token and not matches(claimed.tablet, line_pattern(colours, line))
    )
    out["solo_locked"] = snap(act(claimed, 0, ClaimLine(wrong, "circle"), now + 0.1), 0)
    # Played to the end (reserve empty, dead end or time up).
    ended = claimed
    while ended.phase == "running":
        now += 0.2
        before = ended
        ended = solo_step(ended, now)
        if ended is before:  # nothing to do: let the clock run out
            ended = tick(ended, ended.ends_at)
    out["solo_finished"] = snap(ended, 0)
    # A short clock that runs out with cards left in the reserve (a slow player).
    short = running(new_state(1, seed=9, mode="solo", solo_seconds=5.0))
    now = START
    while short.phase == "running" and now + 1.0 < short.ends_at:
        now += 1.0
        short = solo_step(short, now)
    out["solo_time_up"] = snap(tick(short, short.ends_at), 0)
    return out


if __name__ == "__main__":
    write_fixtures(build, __file__)
