"""Tablet geometry: slides (flash8.decisions 2) and seat orientation (decisions 5)."""

from __future__ import annotations

import random

import pytest

from engine.flash8.board import (
    FULL_SET,
    HANDICAP_SET,
    matches,
    random_tablet,
    remove_blue,
    seat_cell,
    slides,
    to_seat,
)
from engine.flash8.state import side_of


@pytest.mark.parametrize("side", range(4))
def test_seat_mapping_is_decision_5(side: int) -> None:
    # flash8.decisions 5: south (r, c); west (2 - c, r); north (2 - r, 2 - c); east (c, 2 - r)
    formulas = (
        lambda r, c: (r, c),
        lambda r, c: (2 - c, r),
        lambda r, c: (2 - r, 2 - c),
        lambda r, c: (c, 2 - r),
    )
    for r in range(3):
        for c in range(3):
            row, col = formulas[side](r, c)
            assert seat_cell(side, r * 3 + c) == row * 3 + col


def test_every_rotation_composes_quarter_turns() -> None:
    # flash8.decisions 5: each side sees the card a quarter turn more than the side before
    pattern = "BY-R--G-V"
    quarter = to_seat(1, pattern)
    assert to_seat(2, pattern) == to_seat(1, quarter)
    assert to_seat(3, pattern) == to_seat(1, to_seat(1, quarter))
    assert to_seat(1, to_seat(3, pattern)) == pattern
    assert to_seat(0, pattern) == pattern
    assert len({to_seat(side, pattern) for side in range(4)}) == 4


def test_rulebook_example_bottom_row_is_left_for_east() -> None:
    # rulebook "Game": "Player A reproduces configuration #1 at the bottom of their board,
    # while Player B reproduces it on their left"; decisions 5: south and east.
    card = "------BYR"
    south, east = to_seat(0, card), to_seat(3, card)
    assert south[6:] == "BYR"  # the south player's near (bottom) row
    # the east player's left column, from their far edge (the table's west) to them
    assert [east[cell] for cell in (0, 3, 6)] == list("BYR")
    assert all(east[cell] == "-" for cell in range(9) if cell % 3)
    # and the north player has it at their far edge, the west player on their right
    assert to_seat(2, card)[:3] == "RYB"
    assert [to_seat(1, card)[cell] for cell in (2, 5, 8)] == list("RYB")


def test_seats_sit_by_player_count() -> None:
    # flash8.decisions 5: 2 players south and north, 3 south, west and north
    assert [side_of(2, s) for s in range(2)] == [0, 2]
    assert [side_of(3, s) for s in range(3)] == [0, 1, 2]
    assert [side_of(4, s) for s in range(4)] == [0, 1, 2, 3]


def test_slides_go_into_adjacent_free_spaces() -> None:
    # flash8.decisions 2: one electron into an orthogonally adjacent free space
    assert sorted(slides("BBBYYRVG.")) == [(5, 8), (7, 8)]
    assert sorted(slides("BBBY.YRVG")) == [(1, 4), (3, 4), (5, 4), (7, 4)]
    assert sorted(slides(".BBYYRVG.")) == [(1, 0), (3, 0), (5, 8), (7, 8)]


def test_blank_cells_hold_anything() -> None:
    # flash8.decisions 3: a blank cell may hold any electron or nothing
    assert matches("BBBYYRVG.", "B-------.".replace(".", "-"))
    assert matches("BBBYYRVG.", "---------")
    assert not matches("BBBYYRVG.", "Y--------")


def test_handicap_removes_one_blue() -> None:
    # flash8.decisions 1: the handicap removes one blue, leaving two free spaces
    rng = random.Random(3)
    for _ in range(20):
        tablet = random_tablet(rng)
        assert sorted(tablet) == sorted(FULL_SET)
        weaker = remove_blue(tablet, rng)
        assert sorted(weaker) == sorted(HANDICAP_SET)
        assert sum(a != b for a, b in zip(tablet, weaker, strict=True)) == 1
