"""PROTO-ZERO, the AI Mainframe of Cyber-Solitaire (rulebook 2.5.3, neon-flip.decisions 16-18).

PROTO-ZERO is not a seat: it is part of the engine. Its 24-card AI Protocol deck is data
(``ai_deck.json``, written by ``scripts/neon_flip_ai_deck.py`` from a committed seed) and is
shuffled from the room seed. Each card names a pattern and a target; PROTO-ZERO *sets* every
unlocked tile of it to Pink (it never toggles). At the ``standard`` level it never cascades;
``overclocked`` (decisions 16a) cascades after each card and each overcharge, taking a longest
chain (:func:`overclocked_chain`). The numbers of each level are in :data:`LEVELS`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources

import attrs

from engine.neon_flip.board import (
    BLOCKS,
    CYAN,
    PINK,
    block_cells,
    cell_of,
    line_cells,
    pattern_cells,
)
from engine.neon_flip.cards import CASCADE_LIMIT, cascade_choices

__all__ = [
    "AI_BY_ID",
    "AI_CARDS",
    "AI_CHECKPOINT_EVERY",
    "AI_OVERCHARGE",
    "LEVELS",
    "AiCard",
    "Level",
    "overcharge_block",
    "overclocked_chain",
]

#: Energy at which PROTO-ZERO overcharges a 3 x 3 block (decisions 16).
AI_OVERCHARGE = 4
#: A checkpoint scores the human's Cyan tiles after every 6th AI card (decisions 17).
AI_CHECKPOINT_EVERY = 6


@attrs.frozen
class Level:
    """One PROTO-ZERO level: the Energy each AI card gains, the Energy at which it overcharges
    (spending it all), and whether it cascades (decisions 16, 16a)."""

    energy: int
    overcharge: int
    cascades: bool


#: PROTO-ZERO's levels, the room option ``proto_zero`` (decisions 16a). Decision 16a lets only
#: ``overclocked``'s Energy per card and overcharge cost be tuned to meet its measure.
LEVELS: dict[str, Level] = {
    "standard": Level(energy=1, overcharge=AI_OVERCHARGE, cascades=False),
    "overclocked": Level(energy=1, overcharge=AI_OVERCHARGE, cascades=True),
}


@attrs.frozen
class AiCard:
    """One AI Protocol card: ``pattern`` is cross, diagonal, ring (``target`` a slot) or row,
    column (``target`` a line number 1-6)."""

    id: str
    pattern: str
    target: int

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the card covers, cut off at the edge."""
        if self.pattern in ("row", "column"):
            return line_cells(self.pattern, self.target)
        return pattern_cells(self.pattern, cell_of(self.target))


def _load() -> tuple[AiCard, ...]:
    data = json.loads(
        resources.files("engine.neon_flip").joinpath("ai_deck.json").read_text(encoding="utf-8")
    )
    return tuple(AiCard(c["id"], c["pattern"], c["target"]) for c in data["cards"])


#: The AI Protocol deck in its committed order (decisions 16).
AI_CARDS: tuple[AiCard, ...] = _load()
AI_BY_ID: dict[str, AiCard] = {card.id: card for card in AI_CARDS}


def overcharge_block(board: Sequence[int], locked: frozenset[int]) -> int:
    """The top-left cell of the 3 x 3 block holding the most unlocked Cyan tiles; ties go to
    the block whose top-left slot is lowest (decisions 16)."""
    best, best_count = BLOCKS[0], -1
    for top_left in BLOCKS:
        found = sum(
            1 for cell in block_cells(top_left) if board[cell] == CYAN and cell not in locked
        )
        if found > best_count:
            best, best_count = top_left, found
    return best


def overclocked_chain(
    board: Sequence[int], locked: frozenset[int], sources: Sequence[int]
) -> tuple[int, ...]:
    """The cascade an overclocked PROTO-ZERO makes (decisions 16a): up to 3 cells, each an
    unlocked Cyan tile orthogonally next to the last tile it turned Pink (the first next to any
    of ``sources``, the tiles its card or overcharge changed to Pink). Of every chain it could
    make, a longest one; among those, the one whose slots, in order, are lowest. Cells are
    tried in ascending order, so the first longest chain found is that one."""
    best: tuple[int, ...] = ()

    def walk(board: tuple[int, ...], sources: Sequence[int], path: tuple[int, ...]) -> bool:
        nonlocal best
        if len(path) > len(best):
            best = path
        if len(path) >= CASCADE_LIMIT:
            return True
        for cell in cascade_choices(board, locked, PINK, sources):
            after = (*board[:cell], PINK, *board[cell + 1 :])
            if walk(after, (cell,), (*path, cell)):
                return True
        return False

    if sources:
        walk(tuple(board), tuple(sources), ())
    return best
