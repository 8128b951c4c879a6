"""Neon Flip's commands: what a seat may send (neon-flip.decisions 4, 7, 8, 10).

Slots are 1-36, row by row from the top left (decisions 3).
"""

from __future__ import annotations

import attrs

from engine.core import Command

__all__ = [
    "BuyCard",
    "Cascade",
    "ChooseObjective",
    "Discard",
    "EndTurn",
    "Lock",
    "ManualFlip",
    "PlayCard",
    "StopCascade",
]


@attrs.frozen
class ChooseObjective(Command):
    """Keep one of the two dealt Target Objectives; the other goes back (decisions 10)."""

    TYPE = "choose_objective"
    objective: str


@attrs.frozen
class PlayCard(Command):
    """Action A: pay a card's cost and resolve it. Fields a card does not use keep their
    defaults: ``slot`` (1-36: the target, a sector's top-left, a swap's first tile, a
    surge's start, the crossing of a hijack's row and column), ``other`` (a swap's second
    tile), ``line`` ("row"/"column") with ``index`` (1-6) and ``step`` (+1 right/down, -1
    left/up), ``target`` (the drained seat; -1 for PROTO-ZERO) and ``colour`` (a hijack's)."""

    TYPE = "play_card"
    card: str
    slot: int = 0
    other: int = 0
    line: str = ""
    index: int = 0
    step: int = 0
    target: int = -1
    colour: str = ""


@attrs.frozen
class ManualFlip(Command):
    """Action B: flip one tile for 2 Energy, at most twice a turn (decisions 7)."""

    TYPE = "manual_flip"
    slot: int


@attrs.frozen
class BuyCard(Command):
    """Action C: take a face-up market card for 1 Energy (decisions 7)."""

    TYPE = "buy_card"
    card: str


@attrs.frozen
class Lock(Command):
    """Action D: lock a tile showing your colour for 3 Energy (decisions 7)."""

    TYPE = "lock"
    slot: int


@attrs.frozen
class Cascade(Command):
    """Flip the next tile of the pending cascade (decisions 4)."""

    TYPE = "cascade"
    slot: int


@attrs.frozen
class StopCascade(Command):
    """End the pending cascade here (decisions 4)."""

    TYPE = "stop_cascade"


@attrs.frozen
class EndTurn(Command):
    """End Phase 2; Phase 3 follows (decisions 8)."""

    TYPE = "end_turn"


@attrs.frozen
class Discard(Command):
    """Phase 3: discard one card while holding more than 6 (decisions 8)."""

    TYPE = "discard"
    card: str
