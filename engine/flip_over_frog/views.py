"""What each viewer of a Flip Over Frog table sees: the board with face-down tiles as plain
backs, hand sizes for all, and a seat's own colour and hand for that seat only (decisions 1, 12).
"""

from __future__ import annotations

from typing import Any

from engine.core import Viewer
from engine.flip_over_frog.board import face
from engine.flip_over_frog.state import State, frog_counts, top
from engine.movelog import log_view

__all__ = ["view"]


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """The table as ``viewer`` sees it: the board (face-down tiles as plain backs), the
    discards, hand sizes and the stack's size for everyone; a seat's own hand and colour
    for that seat only; every dealt colour once the game is over (decisions 1, 12); the move
    log (the tile a seat drew named to that seat alone). The rules
    add the outcome once the game is over."""
    over = state.ended is not None
    board: list[dict[str, Any]] = []
    for stack in state.board:
        shown = top(stack)
        if shown is None:
            board.append({"height": 0, "top": None})
        else:
            tile, up = shown
            board.append({"height": len(stack), "top": face(tile) if up else {"kind": "back"}})
    players = []
    for seat in range(state.players):
        entry: dict[str, Any] = {"seat": seat, "hand_size": len(state.hands[seat])}
        if over or seat == viewer:
            entry["colour"] = state.colours[seat]
        players.append(entry)
    view: dict[str, Any] = {
        "game": "flip_over_frog",
        "seat": viewer,
        "turn": None if over else state.turn,
        "plays": state.plays,
        "board": board,
        "discards": [face(tile) for tile in state.discards],
        "stack_size": len(state.stack),
        "frogs_face_up": frog_counts(state.board),
        "players": players,
        "log": log_view(state.log, viewer),
    }
    if viewer is not None:
        view["colour"] = state.colours[viewer]
        view["hand"] = [face(tile) for tile in state.hands[viewer]]
    return view
