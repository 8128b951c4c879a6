"""Neon Hex's board: the radius-3 hexagon, its neighbours and corners (decisions 2, 3)."""

from __future__ import annotations

from engine.neon_hex.board import DIRECTIONS, HEXES, NEIGHBOURS, SIZE, corner_hex, distance
from tests.engine.neon_hex.test_rules import hx


def test_board_is_a_radius_three_hexagon() -> None:
    # decisions 2: 37 hexes with |q|, |r|, |q + r| <= 3, adjacent at distance 1
    assert SIZE == 37
    assert all(max(abs(q), abs(r), abs(q + r)) <= 3 for q, r in HEXES)
    for h in range(SIZE):
        assert all(distance(h, n) == 1 for n in NEIGHBOURS[h])
        assert sum(1 for o in range(SIZE) if distance(h, o) == 1) == len(NEIGHBOURS[h])
    assert len(NEIGHBOURS[hx(0, 0)]) == 6


def test_neighbours_follow_the_direction_order() -> None:
    # decisions 2: east, north-east, north-west, west, south-west, south-east
    centre = hx(0, 0)
    assert [HEXES[n] for n in NEIGHBOURS[centre]] == list(DIRECTIONS)


def test_corners_are_three_steps_out_in_their_direction() -> None:
    # decisions 3: corner k is 3 steps from the centre in direction k
    assert [HEXES[corner_hex(k)] for k in range(6)] == [
        (3, 0),
        (3, -3),
        (0, -3),
        (-3, 0),
        (-3, 3),
        (0, 3),
    ]
