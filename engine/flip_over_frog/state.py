"""Flip Over Frog's state: the table (colours, hands, draw pile, board stacks, whose turn) and
the queries over it that the rules and the views share.

Decisions are cited by number from ``flip-over-frog.decisions.md``, the rulebook by heading.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from engine.flip_over_frog.board import COLOURS, colour_of, is_snake
from engine.movelog import Entry

__all__ = ["Stack", "State", "face_up_frog", "frog_counts", "top"]

#: A board space: its stack of ``(tile, face_up)`` pairs, bottom first (decisions 3).
Stack = tuple[tuple[str, bool], ...]


@attrs.frozen
class State:
    """Everything on and around the table. ``stack`` is the draw pile, top first; ``log`` the
    recent happenings (:mod:`engine.movelog`)."""

    colours: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    stack: tuple[str, ...]
    board: tuple[Stack, ...]
    discards: tuple[str, ...] = ()
    turn: int = 0
    plays: int = 0
    ended: str | None = None
    log: tuple[Entry, ...] = ()

    @property
    def players(self) -> int:
        return len(self.colours)


def top(stack: Stack) -> tuple[str, bool] | None:
    """The visible tile of a space, with whether it is face up."""
    return stack[-1] if stack else None


def face_up_frog(stack: Stack) -> str | None:
    """The face-up Frog showing on a space, if one does."""
    shown = top(stack)
    if shown is None or not shown[1] or is_snake(shown[0]):
        return None
    return shown[0]


def frog_counts(board: Sequence[Stack]) -> dict[str, int]:
    """Face-up Frogs of each colour on the board (rulebook "End of Game")."""
    counts = dict.fromkeys(COLOURS, 0)
    for stack in board:
        frog = face_up_frog(stack)
        if frog is not None:
            counts[colour_of(frog)] += 1
    return counts
