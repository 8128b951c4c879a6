"""The Neon Hex board: 37 hexes forming a hexagon of radius 3 (neon-hex.decisions 2).

Hexes are named by an id 0-36, row by row from the top (``r`` from -3 to 3, ``q`` rising within
a row); :data:`HEXES` gives each id's axial coordinates ``(q, r)``. Neighbour lists are in the
fixed direction order of decisions 2, which is also the order Risk bonus hexes are taken in.
"""

from __future__ import annotations

__all__ = [
    "CORNERS",
    "DIRECTIONS",
    "DIRECTION_NAMES",
    "HEXES",
    "INDEX",
    "NEIGHBOURS",
    "RADIUS",
    "SIZE",
    "corner_hex",
    "corners_for",
    "distance",
]

RADIUS = 3

#: east, north-east, north-west, west, south-west, south-east (decisions 2).
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIRECTION_NAMES = ("east", "north-east", "north-west", "west", "south-west", "south-east")


def _on_board(q: int, r: int) -> bool:
    return abs(q) <= RADIUS and abs(r) <= RADIUS and abs(q + r) <= RADIUS


#: Axial ``(q, r)`` of each hex id.
HEXES: tuple[tuple[int, int], ...] = tuple(
    (q, r)
    for r in range(-RADIUS, RADIUS + 1)
    for q in range(-RADIUS, RADIUS + 1)
    if _on_board(q, r)
)
SIZE = len(HEXES)

#: The id of each ``(q, r)``.
INDEX: dict[tuple[int, int], int] = {qr: i for i, qr in enumerate(HEXES)}

#: Each hex's neighbours (distance 1), in direction order.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(INDEX[(q + dq, r + dr)] for dq, dr in DIRECTIONS if _on_board(q + dq, r + dr))
    for q, r in HEXES
)


def distance(a: int, b: int) -> int:
    """Hex distance between two hex ids."""
    (q1, r1), (q2, r2) = HEXES[a], HEXES[b]
    dq, dr = q1 - q2, r1 - r2
    return max(abs(dq), abs(dr), abs(dq + dr))


def corner_hex(corner: int) -> int:
    """Corner ``k`` is 3 steps from the centre in direction ``k`` (decisions 3)."""
    dq, dr = DIRECTIONS[corner]
    return INDEX[(RADIUS * dq, RADIUS * dr)]


#: The corners in play for each number of factions (decisions 3).
CORNERS: dict[int, tuple[int, ...]] = {
    2: (0, 3),
    3: (0, 2, 4),
    4: (0, 1, 3, 4),
    5: (0, 1, 2, 3, 4),
}


def corners_for(factions: int) -> tuple[int, ...]:
    """The corner numbers used by a game of ``factions`` factions."""
    return CORNERS[factions]
