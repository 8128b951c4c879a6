"""The 52 Hacker Protocol cards: the deck as data, and one implementation per effect.

The table follows neon-flip.decisions ("The Protocol deck") line for line. Each card kind names
an :class:`Effect`; an effect lists the plays it allows on a board (for ``legal()``, with the
tiles each would change) and resolves one play into a :class:`Resolution` that the rules apply.
Patterns cut off at the edge except the Overcharge Loop; locked tiles never flip, swap or shift,
and a play that would change nothing on the board is refused (decisions, "The Protocol deck").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import attrs

from engine.core import Rejected
from engine.neon_flip.board import (
    CELLS,
    COLOURS,
    NEIGHBOURS,
    cell_of,
    flipped,
    line_cells,
    pattern_cells,
    shifted,
    slot_of,
    swapped,
)

__all__ = [
    "CARDS",
    "CASCADE_LIMIT",
    "CHAIN_REACTOR_CASCADE_LIMIT",
    "DECK",
    "KINDS",
    "PROTO_ZERO",
    "CardKind",
    "Context",
    "Drain",
    "Draw",
    "Effect",
    "Gain",
    "Hijack",
    "LineFlip",
    "PatternFlip",
    "Play",
    "Resolution",
    "Shift",
    "Surge",
    "Swap",
    "card_cost",
    "cascade_choices",
    "kind_of",
]

#: The target value of a System Drain aimed at PROTO-ZERO in Cyber-Solitaire.
PROTO_ZERO = -1


@attrs.frozen
class Play:
    """The targets of one card play, in slots (1-36) and seats, as the command carries them."""

    slot: int = 0
    other: int = 0
    line: str = ""
    index: int = 0
    step: int = 0
    target: int = -1
    colour: str = ""


@attrs.frozen
class Context:
    """What an effect needs to know: the board, locked cells, the player's colour, and who
    counts as an opponent (seats, or ``(-1,)`` for PROTO-ZERO in solo) with their colours."""

    board: tuple[int, ...]
    locked: frozenset[int]
    colour: int
    opponents: tuple[int, ...]
    opponent_colours: tuple[int, ...]


#: Cascade flips one action may chain: at most 3, 6 after a Chain Reactor (the Protocol deck's
#: card table), as neon-flip.decisions 4 (rulebook 2.2) says.
CASCADE_LIMIT = 3
CHAIN_REACTOR_CASCADE_LIMIT = 6


@attrs.frozen
class Resolution:
    """What a play does: the new board, the cells whose tile changed, the cells turned to the
    player's colour (where a cascade may start from), and any non-board effect."""

    board: tuple[int, ...]
    changed: tuple[int, ...] = ()
    sources: tuple[int, ...] = ()
    energy: int = 0
    draws: int = 0
    drain: int | None = None
    cascade_limit: int = CASCADE_LIMIT


def cascade_choices(
    board: Sequence[int], locked: frozenset[int], colour: int, sources: Sequence[int]
) -> tuple[int, ...]:
    """Cells a cascade may flip next: unlocked, showing the other face of the player's
    spectrum, orthogonally next to one of ``sources``. Sorted, no repeats.
    See neon-flip.decisions 4 ("Cascades", rulebook 2.2)."""
    other = colour ^ 1
    found = {
        n for source in sources for n in NEIGHBOURS[source] if board[n] == other and n not in locked
    }
    return tuple(sorted(found))


def _refuse(code: str, message: str) -> Rejected:
    return Rejected(code, message)


def _check_slot(slot: int) -> int:
    if not 1 <= slot <= CELLS:
        raise _refuse("bad_slot", "Slots are numbered 1 to 36 (decisions 3).")
    return cell_of(slot)


def _check_line(line: str, index: int) -> tuple[int, ...]:
    if line not in ("row", "column") or not 1 <= index <= 6:
        raise _refuse("bad_line", "A line is a row or a column numbered 1 to 6.")
    return line_cells(line, index)


def _flip_resolution(ctx: Context, cells: Sequence[int], limit: int = CASCADE_LIMIT) -> Resolution:
    free = tuple(sorted({cell for cell in cells if cell not in ctx.locked}))
    if not free:
        raise _refuse(
            "changes_nothing",
            "Every tile this play names is locked, so it would change nothing and is refused "
            "(rulebook 2.7, decisions: the Protocol deck).",
        )
    board = flipped(ctx.board, free)
    sources = tuple(cell for cell in free if board[cell] == ctx.colour)
    return Resolution(board=board, changed=free, sources=sources, cascade_limit=limit)


def _slots(cells: Sequence[int]) -> list[int]:
    return [slot_of(cell) for cell in cells]


class Effect(ABC):
    """One kind of card effect: its legal plays with previews, and its resolution."""

    @abstractmethod
    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        """Legal ``play_card`` entries for ``card`` (compact "choose" form with previews)."""

    @abstractmethod
    def resolve(self, ctx: Context, play: Play) -> Resolution:
        """The result of ``play``, or :class:`Rejected` naming the rule it breaks."""


class PatternFlip(Effect):
    """Flip a pattern around (or from) a target slot: Single Flip, Cross Flip, Diagonal X,
    Perimeter Ring, Grid Overcharge (a sector by its top-left slot), Overcharge Loop (wraps),
    Chain Reactor (a Cross Flip whose cascade may run to ``limit`` flips)."""

    def __init__(self, pattern: str, limit: int = CASCADE_LIMIT) -> None:
        self.pattern = pattern
        self.limit = limit

    def _cells(self, cell: int) -> tuple[int, ...]:
        return pattern_cells(self.pattern, cell)

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        slots: list[int] = []
        previews: list[list[int]] = []
        for cell in range(CELLS):
            cells = self._cells(cell)
            free = sorted(c for c in cells if c not in ctx.locked)
            if free:
                slots.append(slot_of(cell))
                previews.append(_slots(free))
        if not slots:
            return []
        return [{"type": "play_card", "card": card, "choose": {"slot": slots}, "preview": previews}]

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        cell = _check_slot(play.slot)
        cells = self._cells(cell)
        if not cells:
            raise _refuse(
                "bad_slot", "A 3 x 3 sector is named by its top-left slot, in rows and columns 1-4."
            )
        return _flip_resolution(ctx, cells, self.limit)


class LineFlip(Effect):
    """Linear Sweep: flip a whole row or column."""

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for line in ("row", "column"):
            indexes: list[int] = []
            previews: list[list[int]] = []
            for index in range(1, 7):
                free = [c for c in line_cells(line, index) if c not in ctx.locked]
                if free:
                    indexes.append(index)
                    previews.append(_slots(free))
            if indexes:
                out.append(
                    {
                        "type": "play_card",
                        "card": card,
                        "line": line,
                        "choose": {"index": indexes},
                        "preview": previews,
                    }
                )
        return out

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        return _flip_resolution(ctx, _check_line(play.line, play.index))


class Swap(Effect):
    """Node Swap: exchange two tiles without flipping them. Both must be unlocked, and two
    tiles showing the same colour would change nothing, so that pair is refused."""

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        board = ctx.board
        for a in range(CELLS):
            if a in ctx.locked:
                continue
            others = [
                slot_of(b)
                for b in range(a + 1, CELLS)
                if b not in ctx.locked and board[b] != board[a]
            ]
            if others:
                out.append(
                    {
                        "type": "play_card",
                        "card": card,
                        "slot": slot_of(a),
                        "choose": {"other": others},
                        "preview": [[slot_of(a), b] for b in others],
                    }
                )
        return out

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        a, b = _check_slot(play.slot), _check_slot(play.other)
        if a in ctx.locked or b in ctx.locked:
            raise _refuse("locked", "Locked tiles cannot be swapped (rulebook 2.7).")
        if ctx.board[a] == ctx.board[b]:
            raise _refuse(
                "changes_nothing",
                "Swapping two tiles showing the same colour changes nothing and is refused "
                "(decisions: the Protocol deck).",
            )
        return Resolution(board=swapped(ctx.board, a, b), changed=tuple(sorted((a, b))))


class Shift(Effect):
    """Node Shift: slide a row or column one slot (``step`` +1 = right/down, -1 = left/up);
    the tile pushed off one end enters at the other. Refused for a line holding a locked
    tile, or one whose tiles all show one colour (it would change nothing)."""

    @staticmethod
    def _movable(ctx: Context, cells: Sequence[int]) -> bool:
        if any(c in ctx.locked for c in cells):
            return False
        return len({ctx.board[c] for c in cells}) > 1

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for line in ("row", "column"):
            indexes = [i for i in range(1, 7) if self._movable(ctx, line_cells(line, i))]
            if not indexes:
                continue
            for step in (1, -1):
                out.append(
                    {
                        "type": "play_card",
                        "card": card,
                        "line": line,
                        "step": step,
                        "choose": {"index": indexes},
                        "preview": [_slots(line_cells(line, i)) for i in indexes],
                    }
                )
        return out

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        cells = _check_line(play.line, play.index)
        if play.step not in (1, -1):
            raise _refuse("bad_step", "A Node Shift slides one slot: step is 1 or -1.")
        if any(c in ctx.locked for c in cells):
            raise _refuse(
                "locked", "A row or column holding a locked tile cannot be shifted (decisions)."
            )
        if len({ctx.board[c] for c in cells}) == 1:
            raise _refuse(
                "changes_nothing", "Shifting a line of one colour changes nothing (decisions)."
            )
        board = shifted(ctx.board, cells, play.step)
        return Resolution(board=board, changed=tuple(c for c in cells if board[c] != ctx.board[c]))


class Surge(Effect):
    """Cascade Surge: start a cascade from a tile showing the player's colour, as if it had
    just been flipped to it. A tile with nothing to cascade into would change nothing."""

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        slots: list[int] = []
        chains: list[list[int]] = []
        for cell in range(CELLS):
            if ctx.board[cell] != ctx.colour:
                continue
            choices = cascade_choices(ctx.board, ctx.locked, ctx.colour, (cell,))
            if choices:
                slots.append(slot_of(cell))
                chains.append(_slots(choices))
        if not slots:
            return []
        return [
            {
                "type": "play_card",
                "card": card,
                "choose": {"slot": slots},
                "preview": [[] for _ in slots],
                "cascade": chains,
            }
        ]

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        cell = _check_slot(play.slot)
        if ctx.board[cell] != ctx.colour:
            raise _refuse(
                "not_your_colour", "A Cascade Surge starts from a tile showing your colour."
            )
        if not cascade_choices(ctx.board, ctx.locked, ctx.colour, (cell,)):
            raise _refuse(
                "changes_nothing",
                "No unlocked tile of the other face lies next to that tile, so the surge "
                "would change nothing (decisions 4).",
            )
        return Resolution(board=ctx.board, sources=(cell,))


class Gain(Effect):
    """Power Surge: gain Energy."""

    def __init__(self, amount: int) -> None:
        self.amount = amount

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        return [{"type": "play_card", "card": card, "preview": []}]

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        return Resolution(board=ctx.board, energy=self.amount)


class Draw(Effect):
    """Overclock: draw cards."""

    def __init__(self, count: int) -> None:
        self.count = count

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        return [{"type": "play_card", "card": card, "preview": []}]

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        return Resolution(board=ctx.board, draws=self.count)


class Drain(Effect):
    """System Drain: an opponent's next turn costs 1 more Energy per card and Manual Flip;
    in solo (``target`` -1) PROTO-ZERO gains no Energy from its next AI card."""

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        if not ctx.opponents:
            return []
        return [
            {
                "type": "play_card",
                "card": card,
                "choose": {"target": list(ctx.opponents)},
                "preview": [[] for _ in ctx.opponents],
            }
        ]

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        if play.target not in ctx.opponents:
            raise _refuse(
                "not_an_opponent",
                "System Drain targets an opponent; a teammate or yourself is not one "
                "(decisions 2).",
            )
        return Resolution(board=ctx.board, drain=play.target)


class Hijack(Effect):
    """Mainframe Hijack: choose an opponent's colour, a row and a column (the slot where they
    cross); flip every unlocked tile of that colour in them."""

    @staticmethod
    def _cells(ctx: Context, cell: int, colour: int) -> list[int]:
        row, column = divmod(cell, 6)
        line = set(line_cells("row", row + 1)) | set(line_cells("column", column + 1))
        return sorted(c for c in line if ctx.board[c] == colour and c not in ctx.locked)

    def entries(self, ctx: Context, card: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for colour in sorted(set(ctx.opponent_colours)):
            slots: list[int] = []
            previews: list[list[int]] = []
            for cell in range(CELLS):
                cells = self._cells(ctx, cell, colour)
                if cells:
                    slots.append(slot_of(cell))
                    previews.append(_slots(cells))
            if slots:
                out.append(
                    {
                        "type": "play_card",
                        "card": card,
                        "colour": COLOURS[colour],
                        "choose": {"slot": slots},
                        "preview": previews,
                    }
                )
        return out

    def resolve(self, ctx: Context, play: Play) -> Resolution:
        cell = _check_slot(play.slot)
        if play.colour not in COLOURS or COLOURS.index(play.colour) not in ctx.opponent_colours:
            raise _refuse(
                "not_an_opponent", "Mainframe Hijack names an opponent's colour (decisions 2)."
            )
        cells = self._cells(ctx, cell, COLOURS.index(play.colour))
        if not cells:
            raise _refuse(
                "changes_nothing",
                "No unlocked tile of that colour lies in that row or column (decisions).",
            )
        return _flip_resolution(ctx, cells)


@attrs.frozen
class CardKind:
    """One line of the card table: how many, what it is called, what it costs, what it does."""

    key: str
    name: str
    count: int
    cost: int
    text: str
    effect: Effect = attrs.field(eq=False, repr=False)


#: The Protocol deck, as decisions' table gives it (52 cards).
KINDS: tuple[CardKind, ...] = (
    CardKind("single_flip", "Single Flip", 4, 1, "Flip one tile.", PatternFlip("single")),
    CardKind(
        "cross_flip",
        "Cross Flip",
        4,
        1,
        "Flip a target and its four orthogonal neighbours.",
        PatternFlip("cross"),
    ),
    CardKind(
        "diagonal_x",
        "Diagonal X",
        4,
        1,
        "Flip a target and its four diagonal neighbours.",
        PatternFlip("diagonal"),
    ),
    CardKind(
        "linear_sweep", "Linear Sweep", 4, 2, "Flip a whole row or a whole column.", LineFlip()
    ),
    CardKind(
        "perimeter_ring",
        "Perimeter Ring",
        4,
        2,
        "Flip the eight tiles around a target, not the target.",
        PatternFlip("ring"),
    ),
    CardKind(
        "node_swap",
        "Node Swap",
        6,
        2,
        "Swap the places of any two tiles, without flipping them.",
        Swap(),
    ),
    CardKind(
        "node_shift",
        "Node Shift",
        6,
        1,
        "Slide a row or column one slot either way; the tile pushed off one end enters at the "
        "other. Nothing flips.",
        Shift(),
    ),
    CardKind(
        "cascade_surge",
        "Cascade Surge",
        4,
        1,
        "Start a cascade from any tile showing your colour, as if it had just been flipped to it.",
        Surge(),
    ),
    CardKind("power_surge", "Power Surge", 4, 0, "Gain 2 Energy.", Gain(2)),
    CardKind("overclock", "Overclock", 2, 1, "Draw 2 cards.", Draw(2)),
    CardKind(
        "system_drain",
        "System Drain",
        2,
        2,
        "Choose an opponent: during their next turn each Protocol Card and Manual Flip costs "
        "them 1 more Energy. Two Drains add 2. In solo: PROTO-ZERO gains no Energy from its "
        "next AI card.",
        Drain(),
    ),
    CardKind(
        "grid_overcharge",
        "Grid Overcharge",
        3,
        4,
        "Flip every tile of a 3 x 3 sector (any 3 x 3 block of the grid).",
        PatternFlip("sector"),
    ),
    CardKind(
        "overcharge_loop",
        "Overcharge Loop",
        2,
        3,
        "Flip the 3 x 3 block centred on a target, wrapping around the grid's edges.",
        PatternFlip("loop"),
    ),
    CardKind(
        "chain_reactor",
        "Chain Reactor",
        2,
        4,
        "A Cross Flip whose cascade may run to 6 flips instead of 3.",
        PatternFlip("cross", limit=CHAIN_REACTOR_CASCADE_LIMIT),
    ),
    CardKind(
        "mainframe_hijack",
        "Mainframe Hijack",
        1,
        5,
        "Choose an opponent's colour, a row and a column: flip every tile of that colour in them.",
        Hijack(),
    ),
)

CARDS: dict[str, CardKind] = {kind.key: kind for kind in KINDS}

#: Card ids of the whole deck in table order: ``"<kind>.<n>"`` with n from 1.
DECK: tuple[str, ...] = tuple(f"{kind.key}.{n}" for kind in KINDS for n in range(1, kind.count + 1))

_KIND_OF: dict[str, CardKind] = {card: CARDS[card.rsplit(".", 1)[0]] for card in DECK}


def kind_of(card: str) -> CardKind:
    """The kind of a card id; ``KeyError`` for an id not in the deck."""
    return _KIND_OF[card]


def card_cost(card: str, overdrive: bool) -> int:
    """A card's printed cost, 1 less in Neon Overdrive, never below 0 (decisions)."""
    cost = kind_of(card).cost
    return max(0, cost - 1) if overdrive else cost


assert len(DECK) == 52, "decisions: the Protocol deck has 52 cards"
