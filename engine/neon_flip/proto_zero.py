"""PROTO-ZERO, the AI Mainframe of Cyber-Solitaire (rulebook 2.5.3, neon-flip.decisions 16-18).

PROTO-ZERO is not a seat: it is part of the engine. Its 24-card AI Protocol deck is data
(``ai_deck.json``, written by ``scripts/neon_flip_ai_deck.py`` from a committed seed) and is
shuffled from the room seed. Each card names a pattern and a target; PROTO-ZERO *sets* every
unlocked tile of it to Pink (it never toggles, never cascades).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources

import attrs

from engine.neon_flip.board import BLOCKS, CYAN, block_cells, cell_of, line_cells, pattern_cells

__all__ = [
    "AI_BY_ID",
    "AI_CARDS",
    "AI_CHECKPOINT_EVERY",
    "AI_OVERCHARGE",
    "AiCard",
    "overcharge_block",
]

#: Energy at which PROTO-ZERO overcharges a 3 x 3 block (decisions 16).
AI_OVERCHARGE = 4
#: A checkpoint scores the human's Cyan tiles after every 6th AI card (decisions 17).
AI_CHECKPOINT_EVERY = 6


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
