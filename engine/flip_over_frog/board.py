"""Flip Over Frog's 36 tiles and 4 x 4 board geometry (flip-over-frog.decisions 2 and 3).

Tiles have short readable ids: ``R1``-``R8``, ``B1``-``B8``, ``G1``-``G8``, ``Y1``-``Y8`` for the
frogs (1-4 carry orthogonal arrows, 5-8 diagonal ones) and ``S1``-``S4`` for the snakes.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "COLOURS",
    "DIAGONAL",
    "ORTHOGONAL",
    "SIDE",
    "SPACES",
    "TILES",
    "arrows_of",
    "colour_of",
    "face",
    "is_snake",
    "targets",
]

COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow")
SIDE = 4
SPACES = SIDE * SIDE
ORTHOGONAL = "orthogonal"
DIAGONAL = "diagonal"

TILES: tuple[str, ...] = tuple(
    f"{colour[0].upper()}{number}" for colour in COLOURS for number in range(1, 9)
) + tuple(f"S{number}" for number in range(1, 5))

_COLOUR_BY_LETTER = {colour[0].upper(): colour for colour in COLOURS}

_STEPS = {
    ORTHOGONAL: ((-1, 0), (1, 0), (0, -1), (0, 1)),
    DIAGONAL: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
}


def is_snake(tile: str) -> bool:
    """Whether ``tile`` is one of the four Snakes."""
    return tile.startswith("S")


def colour_of(tile: str) -> str:
    """The colour of a Frog tile."""
    return _COLOUR_BY_LETTER[tile[0]]


def arrows_of(tile: str) -> str:
    """``orthogonal`` for Frogs 1-4 of a colour, ``diagonal`` for 5-8 (decisions 2)."""
    return ORTHOGONAL if int(tile[1:]) <= 4 else DIAGONAL


def targets(space: int, arrows: str) -> tuple[int, ...]:
    """The on-board spaces the four arrows of a Frog on ``space`` point at (decisions 5)."""
    row, col = divmod(space, SIDE)
    out = []
    for dr, dc in _STEPS[arrows]:
        r, c = row + dr, col + dc
        if 0 <= r < SIDE and 0 <= c < SIDE:
            out.append(r * SIDE + c)
    return tuple(out)


def face(tile: str) -> dict[str, Any]:
    """A tile's visible face, as views show it."""
    if is_snake(tile):
        return {"id": tile, "kind": "snake"}
    return {"id": tile, "kind": "frog", "colour": colour_of(tile), "arrows": arrows_of(tile)}
