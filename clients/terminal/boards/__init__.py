"""One board per game, by game id; a game the terminal does not know gets the generic board."""

from __future__ import annotations

from clients.terminal.boards.base import Board
from clients.terminal.boards.flash8 import Flash8Board
from clients.terminal.boards.frog import FrogBoard
from clients.terminal.boards.hex import HexBoard
from clients.terminal.boards.neon_flip import NeonFlipBoard

__all__ = ["board_for"]


def board_for(game: str) -> Board:
    """A fresh board for ``game`` (boards keep a little state, such as a running animation)."""
    boards: dict[str, type[Board]] = {
        "flip_over_frog": FrogBoard,
        "neon_hex": HexBoard,
        "flash8": Flash8Board,
        "neon_flip": NeonFlipBoard,
    }
    kind = boards.get(game)
    return kind() if kind is not None else Board(game=game)
