"""The 3 x 3 tablet: cells, slides and the seat orientations of decisions 1, 2 and 5.

A tablet is a 9-character string, cells row by row from the owner's far edge (row 0) and left
(column 0): ``B`` blue, ``Y`` yellow, ``R`` red, ``V`` violet, ``G`` green, ``.`` a free space.
A card's multiplayer face (a *pattern*) is a 9-character string in the same layout with ``-``
for a blank cell, which may hold anything (decisions 3).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = [
    "BLANK",
    "COLOURS",
    "FREE",
    "FULL_SET",
    "HANDICAP_SET",
    "LIMITS",
    "NEIGHBOURS",
    "SIDES",
    "fits",
    "matches",
    "random_tablet",
    "remove_blue",
    "seat_cell",
    "slides",
    "to_seat",
]

COLOURS = "BYRVG"
FREE = "."
BLANK = "-"
#: The eight electrons of a tablet and its free space (decisions 1).
FULL_SET = "BBBYYRVG."
#: A handicapped tablet: one blue fewer, two free spaces (decisions 1).
HANDICAP_SET = "BBYYRVG.."
#: How many electrons of each colour a full tablet holds.
LIMITS = {"B": 3, "Y": 2, "R": 1, "V": 1, "G": 1}
#: The table's sides, by seat (decisions 5).
SIDES = ("south", "west", "north", "east")


def _neighbours(cell: int) -> tuple[int, ...]:
    row, col = divmod(cell, 3)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < 3 and 0 <= c < 3:
            out.append(r * 3 + c)
    return tuple(out)


#: Orthogonally adjacent cells of each cell (decisions 2).
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(cell) for cell in range(9))


def seat_cell(seat: int, cell: int) -> int:
    """Where the card (table-frame) cell ``cell`` must appear on the tablet of ``seat``:
    south (r, c); west (2 - c, r); north (2 - r, 2 - c); east (c, 2 - r).
    See flash8.decisions 5 ("Seats and orientation")."""
    r, c = divmod(cell, 3)
    side = seat % 4
    if side == 0:
        return r * 3 + c
    if side == 1:
        return (2 - c) * 3 + r
    if side == 2:
        return (2 - r) * 3 + (2 - c)
    return c * 3 + (2 - r)


_MAPS = tuple(tuple(seat_cell(seat, cell) for cell in range(9)) for seat in range(4))


def to_seat(seat: int, table: str) -> str:
    """A 9-cell string in the table's frame (a card as printed, decisions 5) turned into the
    frame of ``seat``: what that player must see on their own tablet."""
    out = [""] * 9
    for cell, where in enumerate(_MAPS[seat % 4]):
        out[where] = table[cell]
    return "".join(out)


def matches(tablet: str, pattern: str) -> bool:
    """True when every cell the pattern shows holds that colour on the tablet (decisions 3)."""
    return all(want in (BLANK, have) for have, want in zip(tablet, pattern, strict=True))


def fits(pattern: str, electrons: str = FULL_SET) -> bool:
    """True when the pattern asks for no more electrons of a colour than ``electrons`` holds."""
    return all(pattern.count(colour) <= electrons.count(colour) for colour in COLOURS)


def slides(tablet: str) -> list[tuple[int, int]]:
    """Every legal slide ``(src, dst)``: an electron into an adjacent free space (decisions 2),
    ordered by destination then source."""
    out = []
    for dst, here in enumerate(tablet):
        if here == FREE:
            for src in NEIGHBOURS[dst]:
                if tablet[src] != FREE:
                    out.append((src, dst))
    return out


def random_tablet(rng: random.Random, electrons: str = FULL_SET) -> str:
    """A uniformly random arrangement of ``electrons`` (decisions 6)."""
    cells = list(electrons)
    rng.shuffle(cells)
    return "".join(cells)


def remove_blue(tablet: str, rng: random.Random) -> str:
    """The handicap: one of the tablet's blues, drawn from ``rng``, leaves (decisions 1)."""
    blues: Sequence[int] = [cell for cell, here in enumerate(tablet) if here == "B"]
    cell = blues[rng.randrange(len(blues))]
    return tablet[:cell] + FREE + tablet[cell + 1 :]
