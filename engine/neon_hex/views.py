"""What each viewer of a Neon Hex table sees: everything, since nothing is hidden (every
viewer sees the same board, Energy and dice); only ``you`` differs.
"""

from __future__ import annotations

from typing import Any

from engine.core import Viewer
from engine.movelog import log_view
from engine.neon_hex.board import HEXES, corner_hex
from engine.neon_hex.state import NEUTRAL, RISK_ODDS, WIN_HEXES, State, income

__all__ = ["view"]


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """The whole table (nothing is hidden in Neon Hex) with its move log, plus who is looking;
    the rules add the outcome once the game is over."""
    counts = [state.hexes(seat) for seat in range(state.players)]
    view: dict[str, Any] = {
        "game": "neon_hex",
        "you": viewer,
        "board": {"radius": 3, "hexes": [[q, r] for q, r in HEXES]},
        "owners": [None if owner == NEUTRAL else owner for owner in state.owners],
        "factions": [
            {
                "seat": seat,
                "name": faction.name,
                "role": faction.role,
                "colour": faction.colour,
                "corner": faction.corner,
                "home": corner_hex(faction.corner),
                "energy": faction.energy,
                "hexes": counts[seat],
                "income": income(counts[seat]),
            }
            for seat, faction in enumerate(state.factions)
        ],
        "current": None if state.ended is not None else state.current,
        "turn": state.turn,
        "claimed_this_turn": state.claimed,
        "quiet_turns": state.quiet,
        "last_roll": None,
        "win_hexes": WIN_HEXES,
        "risk_odds": list(RISK_ODDS),
        "log": log_view(state.log, viewer),
    }
    if state.last_roll is not None:
        seat, target, first, second, success = state.last_roll
        view["last_roll"] = {
            "seat": seat,
            "target": target,
            "dice": [first, second],
            "total": first + second,
            "success": bool(success),
        }
    return view
