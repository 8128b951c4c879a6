"""What each viewer of a Flash 8 room sees, race or solo, and the view patch of a lone slide
(the race's most frequent step). Nothing is secret but the cards below each top (decisions 4,
12) and a held claim, which only its claimant sees until it is judged (decisions 17); card
patterns are drawn from the viewer's side of the table (decisions 5).
"""

from __future__ import annotations

from typing import Any

from engine.flash8.board import SIDES
from engine.flash8.cards import CARDS, card_pattern
from engine.flash8.messages import HintGiven
from engine.flash8.solo import LINE_NAMES, LINES, line_colours, possible, rank_name
from engine.flash8.state import RaceState, SoloState, side_of
from engine.movelog import log_view

__all__ = ["race_slide_patch", "race_view", "solo_slide_patch", "solo_view"]


def _card(state: RaceState, card: int, frame: int) -> dict[str, Any]:
    info = CARDS[card]
    return {
        "card": info.id,
        "pattern": card_pattern(card, frame),
        "points": info.points,
        "electrons": info.electrons,
    }


def race_view(state: RaceState, viewer: int | None) -> dict[str, Any]:
    """Every tablet and stack top, stack sizes, lockouts, clocks and takes; cards below a top
    stay hidden (decisions 2, 4). Card patterns are drawn from the viewer's side (decisions 5),
    from the south for a spectator. A seat with a claim held has ``held`` (its own claims
    only); no other view has the key, so a rival cannot tell a claim is held (decisions 17).
    The move log notes takes, late claims, ties and lockouts, never a held claim."""
    frame = 0 if viewer is None else side_of(state.players, viewer)
    stacks = []
    for index, pile in enumerate(state.stacks):
        stacks.append(
            {
                "stack": index,
                "size": len(pile),
                "top": _card(state, pile[0], frame) if pile else None,
                "revealed_at": state.revealed_at[index] if state.started_at is not None else None,
            }
        )
    seats = []
    for seat in range(state.players):
        hint = state.last_hint[seat]
        seats.append(
            {
                "seat": seat,
                "side": SIDES[side_of(state.players, seat)],
                "tablet": state.tablets[seat],
                "handicap": state.handicap[seat],
                "slides": state.slides[seat],
                "points": sum(t.points for t in state.takes if t.seat == seat),
                "cards": [CARDS[t.card].id for t in state.takes if t.seat == seat],
                "misses": state.misses[seat],
                "late": state.late[seat],
                "locked_until": state.locked_until[seat],
                "hint": _hint_view(hint),
            }
        )
    out: dict[str, Any] = {
        "game": "flash8",
        "mode": "race",
        "seat": viewer,
        "frame": {
            "side": SIDES[frame],
            "cells": "index = row * 3 + column; row 0 is the far edge, column 0 the left",
            "cards": f"patterns as seen from the {SIDES[frame]} side: where each electron "
            "must stand on that player's tablet ('-' may hold anything)",
            "tablets": "each tablet in its owner's frame ('.' is a free space)",
        },
        "phase": state.phase,
        "starts_at": state.starts_at,
        "started_at": state.started_at,
        "ends_at": state.ends_at,
        "ended_at": state.ended_at,
        "lockout": state.lockout,
        "hints": state.hints,
        "same_start": state.same_start,
        "stacks": stacks,
        "seats": seats,
        "takes": [
            {
                "card": CARDS[t.card].id,
                "seat": t.seat,
                "stack": t.stack,
                "at": t.at,
                "took": t.took,
                "slides": t.slides,
                "optimal": t.optimal,
                "points": t.points,
            }
            for t in state.takes
        ],
        "log": log_view(state.log, viewer),
    }
    if viewer is not None:
        held = [
            {
                "stack": claim.stack,
                "card": claim.card,
                "at": claim.at,
                "effective": claim.effective,
                "until": claim.until,
            }
            for hold in state.holds
            if hold is not None
            for claim in hold.claims
            if claim.seat == viewer
        ]
        if held:
            out["held"] = held
    return out


def race_slide_patch(state: RaceState, seat: int) -> list[list[Any]]:
    """What one slide by ``seat`` changes in every race view, a spectator's included: that
    seat's tablet and slide count (``state`` is after the slide; see :func:`race_view`)."""
    return [
        ["replace", f"/seats/{seat}/tablet", state.tablets[seat]],
        ["replace", f"/seats/{seat}/slides", state.slides[seat]],
    ]


def solo_view(state: SoloState, viewer: int | None) -> dict[str, Any]:
    """The grid's solo faces, the lines (with whether each could be reproduced), the token,
    the reserve's size and top face, the tablet, clocks and lockout; the reserve below its top
    stays hidden (decisions 12)."""
    colours = state.colours()
    top = state.reserve[0] if state.reserve else None
    score = len(state.reserve)
    hint = state.last_hint
    return {
        "game": "flash8",
        "mode": "solo",
        "seat": viewer,
        "frame": {
            "side": "south",
            "cells": "index = row * 3 + column; row 0 is the far edge, column 0 the left",
            "grid": "in place: a line is reproduced on the same cells of the tablet",
            "tablets": "'.' is a free space",
        },
        "phase": state.phase,
        "starts_at": state.starts_at,
        "started_at": state.started_at,
        "ends_at": state.ends_at,
        "ended_at": state.ended_at,
        "lockout": state.lockout,
        "hints": state.hints,
        "grid": [
            {
                "cell": cell,
                "card": CARDS[card].id,
                "colour": CARDS[card].colour,
                "shape": CARDS[card].shape,
                "depth": state.depth[cell],
            }
            for cell, card in enumerate(state.grid)
        ],
        "lines": [
            {
                "line": line,
                "name": LINE_NAMES[line],
                "cells": list(LINES[line]),
                "colours": line_colours(colours, line),
                "possible": possible(colours, line),
            }
            for line in range(len(LINES))
        ],
        "token": state.token,
        "reserve": {
            "size": len(state.reserve),
            "top": None
            if top is None
            else {"card": CARDS[top].id, "colour": CARDS[top].colour, "shape": CARDS[top].shape},
        },
        "seats": [
            {
                "seat": 0,
                "side": "south",
                "tablet": state.tablet,
                "handicap": False,
                "slides": state.slides,
                "misses": state.misses,
                "locked_until": state.locked_until,
                "hint": _hint_view(hint),
            }
        ],
        "claims": [
            {
                "line": c.line,
                "shape": c.shape,
                "covered": list(c.covered),
                "at": c.at,
                "took": c.took,
                "slides": c.slides,
                "optimal": c.optimal,
            }
            for c in state.claims
        ],
        "score": score,
        "rank": rank_name(score),
        "log": log_view(state.log, viewer),
    }


def solo_slide_patch(state: SoloState) -> list[list[Any]]:
    """What one slide changes in the solo view: the tablet and the slide count (``state`` is
    after the slide; see :func:`solo_view`)."""
    return [
        ["replace", "/seats/0/tablet", state.tablet],
        ["replace", "/seats/0/slides", state.slides],
    ]


def _hint_view(hint: HintGiven | None) -> dict[str, Any] | None:
    """A seat's standing hint as its view shows it (``None`` when it has none)."""
    if hint is None:
        return None
    return {
        "target": hint.target,
        "slides": hint.slides,
        "src": hint.src,
        "dst": hint.dst,
        "at": hint.at,
    }
