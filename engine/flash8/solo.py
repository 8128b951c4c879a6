"""Solo mode: one player, a 3 x 3 grid of solo faces, a reserve to empty in four minutes.

Sources: the rulebook ("Solo Mode": "Setup", "Game", "Solo End of game") and flash8.decisions
11-16. The grid is in the table's frame, which is the solo player's own (they sit south).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import Event, Rejected, replace
from engine.flash8.board import BLANK, FREE, LIMITS, matches, random_tablet, slides
from engine.flash8.cards import CARDS, SHAPES
from engine.flash8.messages import (
    ClaimLine,
    ClaimMissed,
    CountdownStarted,
    Ended,
    Hint,
    HintGiven,
    LineClaimed,
    LockoutEnded,
    Slid,
    Slide,
    Started,
)
from engine.flash8.race import check_active, check_slide
from engine.flash8.solver import distance, next_slide
from engine.flash8.state import GRID, Claim, SoloState

__all__ = [
    "LINES",
    "LINE_NAMES",
    "RANKS",
    "dead_end",
    "deadline",
    "decide",
    "evolve",
    "legal",
    "line_colours",
    "line_pattern",
    "possible",
    "rank_name",
    "report",
    "setup",
    "targets",
    "tick",
]

#: The grid's lines, cells in reading order: rows top to bottom, then columns left to right.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
)
LINE_NAMES = ("top row", "middle row", "bottom row", "left column", "middle column", "right column")
#: Score bands and their ranks (decisions 16): (highest score of the band, rank).
RANKS = ((0, "TACHYON"), (8, "PHOTON"), (16, "NEUTRINO"), (24, "ELECTRON"), (32, "QUARK"))
_SINGLES = ("R", "V", "G")


def rank_name(score: int) -> str:
    """The rank of a solo score: 0 TACHYON ... 33 and more GLUON (decisions 16)."""
    for top, name in RANKS:
        if score <= top:
            return name
    return "GLUON"


def line_colours(colours: str, line: int) -> str:
    """The three colours of ``line``, in reading order."""
    return "".join(colours[cell] for cell in LINES[line])


def line_pattern(colours: str, line: int) -> str:
    """The tablet pattern that reproduces ``line`` in place (decisions 13)."""
    pattern = [BLANK] * GRID
    for cell in LINES[line]:
        pattern[cell] = colours[cell]
    return "".join(pattern)


def possible(colours: str, line: int) -> bool:
    """False when the line needs more electrons of a colour than a tablet holds (decisions 15)."""
    shown = line_colours(colours, line)
    return all(shown.count(colour) <= limit for colour, limit in LIMITS.items())


def dead_end(colours: str, token: int | None) -> bool:
    """True when no line other than the reminder token's could ever be reproduced."""
    return not any(possible(colours, line) for line in range(len(LINES)) if line != token)


def _deal(rng: random.Random) -> tuple[list[int], list[int]]:
    """One deal: a grid filled in reading order, where a card that would be the fourth red,
    violet or green goes to the bottom of the deck (decisions 12); returns grid and rest."""
    deck = list(range(len(CARDS)))
    rng.shuffle(deck)
    grid: list[int] = []
    while len(grid) < GRID:
        card = deck.pop(0)
        colour = CARDS[card].colour
        if colour in _SINGLES and sum(1 for c in grid if CARDS[c].colour == colour) >= 3:
            deck.append(card)
            continue
        grid.append(card)
    return grid, deck


def setup(options: Mapping[str, Any], rng: random.Random) -> SoloState:
    """Deal the grid, redealing the whole deck while no line could ever be reproduced, and
    arrange the tablet at random (rulebook "Solo Mode: Setup"; decisions 12)."""
    deals = 1
    grid, rest = _deal(rng)
    while dead_end("".join(CARDS[c].colour for c in grid), None):
        deals += 1
        grid, rest = _deal(rng)
    tablet = random_tablet(rng)
    return SoloState(
        lockout=float(options["lockout"]),
        seconds=float(options["solo_seconds"]),
        countdown=float(options["countdown"]),
        hints=bool(options["hints"]),
        tablet=tablet,
        grid=tuple(grid),
        reserve=tuple(rest),
        deals=deals,
        mark_tablet=tablet,
    )


# --- decide ------------------------------------------------------------------------------------


def decide(state: SoloState, seat: int, command: Any, now: float) -> list[Event]:
    """Check a solo command and say what happens (rulebook "Solo Mode: Game"; decisions 13-15)."""
    if state.phase == "over":
        raise Rejected("game_over", "The solo game is over.", rule="decisions 15")
    if seat != 0:
        raise Rejected("bad_seat", "Solo mode has one seat, seat 0.")
    if not isinstance(command, Slide | ClaimLine | Hint):
        raise Rejected("wrong_mode", f"{command.TYPE!r} is not a solo command.")
    check_active(state.phase, state.locked_until, now)
    if isinstance(command, Slide):
        check_slide(state.tablet, command)
        return [Slid(seat, now, command.src, command.dst)]
    if isinstance(command, Hint):
        return [_hint(state, now)]
    return _claim(state, command, now)


def _claim(state: SoloState, command: ClaimLine, now: float) -> list[Event]:
    line, shape = command.line, command.shape
    if not 0 <= line < len(LINES):
        raise Rejected("no_such_line", "Lines are 0-2 (rows, top down) and 3-5 (columns).")
    if shape not in SHAPES:
        raise Rejected("no_such_shape", f"Shapes are {', '.join(SHAPES)}.", rule="rulebook 'Game'")
    if line == state.token:
        raise Rejected(
            "reminder_token",
            "The reminder token stands by that line: it may not be reproduced twice in a row .",
            rule='rulebook "Solo Mode: Game" 1; decisions 13',
        )
    colours = state.colours()
    if not matches(state.tablet, line_pattern(colours, line)):
        return [ClaimMissed(0, now, now + max(0.0, state.lockout), line=line)]
    showing = [cell for cell in LINES[line] if CARDS[state.grid[cell]].shape == shape]
    covered = tuple(showing[: len(state.reserve)])
    claimed = LineClaimed(
        seat=0,
        at=now,
        line=line,
        shape=shape,
        covered=covered,
        took=now - state.mark_at,
        slides=state.slides - state.mark_slides,
        optimal=distance(state.mark_tablet, line_pattern(state.colours(), line)),
    )
    after = evolve(state, claimed)
    if not after.reserve:
        return [claimed, Ended(now, "reserve_empty")]
    if dead_end(after.colours(), after.token):
        return [claimed, Ended(now, "dead_end")]
    return [claimed]


def targets(colours: str, token: int | None) -> list[int]:
    """The lines that may be claimed next and could be reproduced."""
    return [line for line in range(len(LINES)) if line != token and possible(colours, line)]


def _hint(state: SoloState, now: float) -> HintGiven:
    if not state.hints:
        raise Rejected("hints_off", "This room does not allow hints.")
    colours = state.colours()
    best: tuple[int, int] | None = None
    for line in targets(colours, state.token):
        far = distance(state.tablet, line_pattern(colours, line))
        if best is None or far < best[1]:
            best = (line, far)
    if best is None:
        raise Rejected("dead_end", "No line can be reproduced.", rule="decisions 15")
    line, far = best
    step = next_slide(state.tablet, line_pattern(colours, line))
    return HintGiven(
        0, now, line, far, None if step is None else step[0], None if step is None else step[1]
    )


# --- evolve ------------------------------------------------------------------------------------


def evolve(state: SoloState, event: Event) -> SoloState:
    """Apply one solo event (pure)."""
    if isinstance(event, Slid):
        tablet = list(state.tablet)
        tablet[event.dst], tablet[event.src] = tablet[event.src], FREE
        return replace(state, tablet="".join(tablet), slides=state.slides + 1)
    if isinstance(event, LineClaimed):
        grid, depth = list(state.grid), list(state.depth)
        reserve = state.reserve
        for cell in event.covered:
            grid[cell], reserve = reserve[0], reserve[1:]
            depth[cell] += 1
        claim = Claim(
            event.line,
            event.shape,
            event.covered,
            event.at,
            event.took,
            event.slides,
            event.optimal,
        )
        return replace(
            state,
            grid=tuple(grid),
            depth=tuple(depth),
            reserve=reserve,
            token=event.line,
            claims=(*state.claims, claim),
            mark_at=event.at,
            mark_tablet=state.tablet,
            mark_slides=state.slides,
        )
    if isinstance(event, ClaimMissed):
        return replace(
            state,
            locked_until=event.until if event.until > event.at else None,
            misses=state.misses + 1,
        )
    if isinstance(event, LockoutEnded):
        return replace(state, locked_until=None)
    if isinstance(event, HintGiven):
        return replace(state, hints_given=state.hints_given + 1, last_hint=event)
    if isinstance(event, CountdownStarted):
        return replace(state, phase="countdown", starts_at=event.starts_at)
    if isinstance(event, Started):
        return replace(
            state,
            phase="running",
            started_at=event.at,
            ends_at=event.ends_at,
            mark_at=event.at,
            mark_tablet=state.tablet,
            mark_slides=state.slides,
        )
    if isinstance(event, Ended):
        return replace(
            state, phase="over", ended_reason=event.reason, ended_at=event.at, locked_until=None
        )
    raise TypeError(f"not a Flash 8 solo event: {event!r}")


# --- clock -------------------------------------------------------------------------------------


def deadline(state: SoloState) -> float | None:
    """The countdown's start (at once), the start, a lockout's end, the 4-minute end."""
    if state.phase == "over":
        return None
    if state.phase == "waiting":
        return 0.0
    if state.phase == "countdown":
        return state.starts_at
    times = [t for t in (state.locked_until, state.ends_at) if t is not None]
    return min(times) if times else None


def tick(state: SoloState, now: float) -> list[Event]:
    """The events due at ``now`` (rulebook "Solo End of game" 2; decisions 15)."""
    if state.phase == "waiting":
        return [CountdownStarted(now, now + max(0.0, state.countdown))]
    if state.phase == "countdown":
        if state.starts_at is not None and now >= state.starts_at:
            return [Started(now, now + state.seconds)]
        return []
    if state.phase != "running":
        return []
    events: list[Event] = []
    if state.locked_until is not None and state.locked_until <= now:
        events.append(LockoutEnded(0, now))
    if state.ends_at is not None and now >= state.ends_at:
        events.append(Ended(now, "time_up"))
    return events


# --- views and legal commands ------------------------------------------------------------------


def legal(state: SoloState, seat: int) -> list[dict[str, Any]]:
    """Slides, a claim of any line but the token's with any shape, and a hint where allowed;
    nothing before the start, during a lockout or after the end."""
    if state.phase != "running" or state.locked_until is not None or seat != 0:
        return []
    entries: list[dict[str, Any]] = [
        {"type": Slide.TYPE, "src": src, "dst": dst} for src, dst in slides(state.tablet)
    ]
    for line in range(len(LINES)):
        if line != state.token:
            entries.append(
                {"type": ClaimLine.TYPE, "line": line, "choose": {"shape": list(SHAPES)}}
            )
    if state.hints:
        entries.append({"type": Hint.TYPE})
    return entries


def report(state: SoloState) -> dict[str, Any]:
    """The end-of-game summary: score, rank, claims, and slides used against the optimum."""
    score = len(state.reserve)
    return {
        "score": score,
        "rank": rank_name(score),
        "claims": len(state.claims),
        "covered": sum(len(c.covered) for c in state.claims),
        "slides": state.slides,
        "slides_on_lines": sum(c.slides for c in state.claims),
        "optimal_on_lines": sum(c.optimal for c in state.claims),
        "misses": state.misses,
        "hints": state.hints_given,
        "deals": state.deals,
    }
