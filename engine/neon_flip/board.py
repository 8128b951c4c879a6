"""The Lumin Grid: 36 dual-faced tiles, their colours, and the flip patterns.

Cells are numbered 0-35 inside the engine; commands, events and views use slots 1-36, row by row
from the top left (neon-flip.decisions 3), so ``slot = cell + 1``. A tile shows one of four
colours: an A tile shows Cyan or Pink, a B tile Green or Yellow (decisions 1), so flipping a tile
is ``colour ^ 1`` and a tile's spectrum is ``colour // 2``.

Patterns are sets of cells that cut off at the grid's edge (rulebook 2.7), except the Overcharge
Loop's block, which wraps around (decisions, card table).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "BLOCKS",
    "CELLS",
    "CENTRE",
    "COLOURS",
    "COLUMNS",
    "CORNERS",
    "CYAN",
    "DIAGONALS",
    "EDGES",
    "GREEN",
    "NEIGHBOURS",
    "PATTERNS",
    "PINK",
    "QUADRANTS",
    "ROWS",
    "SIZE",
    "WINDOWS",
    "YELLOW",
    "block_cells",
    "cell_of",
    "colour_index",
    "flipped",
    "line_cells",
    "loop_cells",
    "pattern_cells",
    "runs",
    "shifted",
    "slot_of",
    "swapped",
]

SIZE = 6
CELLS = SIZE * SIZE

CYAN, PINK, GREEN, YELLOW = 0, 1, 2, 3
#: Colour names by index; ``COLOURS[c ^ 1]`` is the other face of the same tile.
COLOURS = ("cyan", "pink", "green", "yellow")


def colour_index(name: str) -> int:
    """The index of a colour name; ``ValueError`` when it is not one of the four."""
    return COLOURS.index(name)


def slot_of(cell: int) -> int:
    """The 1-36 slot number of an engine cell."""
    return cell + 1


def cell_of(slot: int) -> int:
    """The engine cell of a 1-36 slot number."""
    return slot - 1


def _rc(row: int, column: int) -> int:
    return row * SIZE + column


def _inside(row: int, column: int) -> bool:
    return 0 <= row < SIZE and 0 <= column < SIZE


ROWS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rc(r, c) for c in range(SIZE)) for r in range(SIZE)
)
COLUMNS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rc(r, c) for r in range(SIZE)) for c in range(SIZE)
)
#: Slots 1, 6, 31 and 36 (rulebook 2.4, decisions 3).
CORNERS: tuple[int, ...] = (0, 5, 30, 35)
#: The central 2 x 2 (Core Access, decisions 10).
CENTRE: tuple[int, ...] = (14, 15, 20, 21)
#: The 20 edge tiles (Perimeter Hold, decisions 10).
EDGES: tuple[int, ...] = tuple(
    cell for cell in range(CELLS) if cell // SIZE in (0, 5) or cell % SIZE in (0, 5)
)
#: The four fixed 3 x 3 quadrants (Quadrant Sweep, decisions 10).
QUADRANTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rc(r0 + r, c0 + c) for r in range(3) for c in range(3)) for r0 in (0, 3) for c0 in (0, 3)
)

_ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
_DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))

#: Orthogonal neighbours of each cell (cascades, decisions 4).
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        _rc(cell // SIZE + dr, cell % SIZE + dc)
        for dr, dc in _ORTHOGONAL
        if _inside(cell // SIZE + dr, cell % SIZE + dc)
    )
    for cell in range(CELLS)
)


def _around(cell: int, steps: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    row, column = divmod(cell, SIZE)
    return tuple(_rc(row + dr, column + dc) for dr, dc in steps if _inside(row + dr, column + dc))


def block_cells(top_left: int) -> tuple[int, ...]:
    """The 3 x 3 block whose top-left cell is ``top_left`` (its row and column at most 3)."""
    row, column = divmod(top_left, SIZE)
    return tuple(_rc(row + r, column + c) for r in range(3) for c in range(3))


def loop_cells(centre: int) -> tuple[int, ...]:
    """The 3 x 3 block centred on ``centre``, wrapping around the grid's edges."""
    row, column = divmod(centre, SIZE)
    return tuple(
        _rc((row + dr) % SIZE, (column + dc) % SIZE) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
    )


#: Top-left cells of the 16 3 x 3 blocks of the grid.
BLOCKS: tuple[int, ...] = tuple(_rc(r, c) for r in range(4) for c in range(4))

#: Slot-targeted patterns by name, precomputed for every cell: rulebook 2.2's four patterns
#: plus the single tile, the wrapping loop and the 3 x 3 sector (only for valid top-left cells).
PATTERNS: dict[str, tuple[tuple[int, ...], ...]] = {
    "single": tuple((cell,) for cell in range(CELLS)),
    "cross": tuple((cell, *_around(cell, _ORTHOGONAL)) for cell in range(CELLS)),
    "diagonal": tuple((cell, *_around(cell, _DIAGONAL)) for cell in range(CELLS)),
    "ring": tuple(_around(cell, _ORTHOGONAL + _DIAGONAL) for cell in range(CELLS)),
    "loop": tuple(loop_cells(cell) for cell in range(CELLS)),
    "sector": tuple(block_cells(cell) if cell in BLOCKS else () for cell in range(CELLS)),
}


def pattern_cells(pattern: str, cell: int) -> tuple[int, ...]:
    """The cells a slot-targeted pattern covers (empty for a sector with a bad corner)."""
    return PATTERNS[pattern][cell]


def line_cells(line: str, index: int) -> tuple[int, ...]:
    """Row or column ``index`` (1-6) as cells; ``line`` is ``"row"`` or ``"column"``."""
    return (ROWS if line == "row" else COLUMNS)[index - 1]


def flipped(board: Sequence[int], cells: Iterable[int]) -> tuple[int, ...]:
    """The board with each of ``cells`` turned to its other face (each once)."""
    out = list(board)
    for cell in set(cells):
        out[cell] ^= 1
    return tuple(out)


def swapped(board: Sequence[int], a: int, b: int) -> tuple[int, ...]:
    """The board with the tiles on cells ``a`` and ``b`` exchanged, faces kept."""
    out = list(board)
    out[a], out[b] = out[b], out[a]
    return tuple(out)


def shifted(board: Sequence[int], cells: Sequence[int], step: int) -> tuple[int, ...]:
    """The board with the tiles of a line slid ``step`` (+1 or -1) slots along it, the tile
    pushed off one end entering at the other (Node Shift)."""
    out = list(board)
    count = len(cells)
    for position, cell in enumerate(cells):
        out[cells[(position + step) % count]] = board[cell]
    return tuple(out)


def _diagonal_lines() -> tuple[tuple[int, ...], ...]:
    lines: list[tuple[int, ...]] = []
    for start in range(-(SIZE - 1), SIZE):
        down = tuple(_rc(r, r - start) for r in range(SIZE) if 0 <= r - start < SIZE)
        up = tuple(
            _rc(r, start + SIZE - 1 - r) for r in range(SIZE) if 0 <= start + SIZE - 1 - r < SIZE
        )
        for line in (down, up):
            if len(line) >= 4:
                lines.append(line)
    return tuple(lines)


#: Diagonals of length 4 or more, both directions (Diagonal Link, decisions 10).
DIAGONALS: tuple[tuple[int, ...], ...] = _diagonal_lines()

#: Every straight window of 4 cells along a row or column (Twin Circuits, decisions 10).
WINDOWS: tuple[tuple[int, ...], ...] = tuple(
    line[start : start + 4] for line in ROWS + COLUMNS for start in range(SIZE - 3)
)


def runs(board: Sequence[int], colour: int, lines: Iterable[Sequence[int]]) -> list[int]:
    """The lengths of the maximal runs of ``colour`` along each of ``lines``."""
    out: list[int] = []
    for line in lines:
        length = 0
        for cell in line:
            if board[cell] == colour:
                length += 1
            else:
                if length:
                    out.append(length)
                length = 0
        if length:
            out.append(length)
    return out
