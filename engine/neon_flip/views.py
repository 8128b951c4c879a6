"""What each viewer of a Neon Flip table sees (neon-flip.decisions 9): the board, locks,
market, discards and every dashboard for everyone, hands as counts, a seat's own hand and
objective for that seat only; the pending cascade's choices, the Overdrive clock and
PROTO-ZERO's dashboard where they apply.
"""

from __future__ import annotations

from typing import Any

from engine.core import Viewer
from engine.movelog import log_view
from engine.neon_flip.board import COLOURS, PINK, slot_of
from engine.neon_flip.cards import card_cost, cascade_choices, kind_of
from engine.neon_flip.proto_zero import AI_BY_ID
from engine.neon_flip.scoring import OBJECTIVE_NAMES, count
from engine.neon_flip.state import (
    MANUAL_FLIPS_PER_TURN,
    State,
    clock_deadline,
    locked_cells,
    team_of,
    threshold,
)

__all__ = ["view"]


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """What ``viewer`` sees (decisions 9): the board, locks, market, discards, Energy, VP
    and drains of everyone; hands as counts; its own hand and objective; the move log (what
    one seat alone saw, to that seat alone). Objectives are
    revealed once the game is over, when the rules add the outcome."""
    locks = [
        {"slot": slot_of(cell), "seat": seat}
        for seat, p in enumerate(state.players)
        for cell in p.locks
    ]
    over = state.phase == "over"
    players = []
    for seat, p in enumerate(state.players):
        entry: dict[str, Any] = {
            "seat": seat,
            "colour": COLOURS[p.colour],
            "team": team_of(state, seat),
            "energy": p.energy,
            "vp": p.vp,
            "tiles": count(state.board, p.colour),
            "hand": len(p.hand),
            "locks": [slot_of(c) for c in p.locks],
            "longest_chain": p.longest,
            "drain_next": p.drain_next,
            "objective_chosen": p.objective != "",
        }
        if over:
            entry["objective"] = p.objective
        players.append(entry)
    data: dict[str, Any] = {
        "mode": state.mode,
        "teams": state.teams,
        "obstacles": state.obstacles,
        "rounds": state.rounds,
        "seats": state.seats,
        "board": [COLOURS[c] for c in state.board],
        "locks": locks,
        "players": players,
        "phase": state.phase,
        "turn": state.turn if state.phase != "objectives" else None,
        "turns": state.turns,
        "surcharge": state.surcharge,
        "manual_flips_left": MANUAL_FLIPS_PER_TURN - state.manual_flips,
        "market": [_card_view(c, state.overdrive) if c else None for c in state.market],
        "discard": [_card_view(c, state.overdrive) for c in state.discard],
        "draw_pile": len(state.draw),
        "round_over": state.round_over,
        "checkpoints": state.checkpoints,
        "threshold": threshold(state) if state.overdrive else None,
        "pending_cascade": None,
        "log": log_view(state.log, viewer),
    }
    if state.pending is not None:
        pending = state.pending
        colour = state.players[pending.seat].colour
        choices = cascade_choices(state.board, locked_cells(state), colour, pending.sources)
        data["pending_cascade"] = {
            "seat": pending.seat,
            "from": [slot_of(c) for c in pending.sources],
            "made": pending.made,
            "limit": pending.limit,
            "choices": [slot_of(c) for c in choices],
        }
    if state.overdrive:
        deadline = clock_deadline(state)
        data["clock"] = {
            "minutes": state.clock,
            "started": state.clock_start,
            "deadline": deadline,
            "expired": state.clock_out,
        }
    if state.solo:
        data["proto_zero"] = {
            "colour": COLOURS[PINK],
            "level": state.proto_zero,
            "energy": state.ai_energy,
            "drained": state.ai_drained,
            "cards_left": len(state.ai_deck),
            "played": [_ai_card_view(c) for c in state.ai_played],
        }
    if viewer is not None and 0 <= viewer < state.seats:
        me = state.players[viewer]
        data["you"] = {
            "seat": viewer,
            "colour": COLOURS[me.colour],
            "hand": [_card_view(c, state.overdrive) for c in me.hand],
            "objective": _objective_view(me.objective) if me.objective else None,
            "offers": [_objective_view(o) for o in me.offers],
        }
    return data


def _card_view(card: str, overdrive: bool) -> dict[str, Any]:
    kind = kind_of(card)
    return {"id": card, "kind": kind.key, "name": kind.name, "cost": card_cost(card, overdrive)}


def _objective_view(key: str) -> dict[str, str]:
    return {"id": key, "name": OBJECTIVE_NAMES[key]}


def _ai_card_view(card: str) -> dict[str, Any]:
    ai = AI_BY_ID[card]
    return {"id": ai.id, "pattern": ai.pattern, "target": ai.target}
