"""Neon Flip's grid: slots, corners and flip patterns (decisions 3, rulebook 2.2 and 2.7)."""

from __future__ import annotations

from engine.neon_flip.board import CORNERS, PATTERNS, cell_of, loop_cells, slot_of


def test_slots_and_corners() -> None:
    # decisions 3: slots 1-36 row by row; corners 1, 6, 31, 36
    assert [slot_of(c) for c in CORNERS] == [1, 6, 31, 36]
    assert cell_of(8) == 7


def test_patterns_cut_off_at_the_edge() -> None:
    # rulebook 2.2 patterns, 2.7 "Grid Boundaries"
    assert sorted(slot_of(c) for c in PATTERNS["cross"][cell_of(1)]) == [1, 2, 7]
    assert sorted(slot_of(c) for c in PATTERNS["diagonal"][cell_of(1)]) == [1, 8]
    assert sorted(slot_of(c) for c in PATTERNS["ring"][cell_of(36)]) == [29, 30, 35]
    assert sorted(slot_of(c) for c in PATTERNS["ring"][cell_of(8)]) == [1, 2, 3, 7, 9, 13, 14, 15]
    assert cell_of(8) not in PATTERNS["ring"][cell_of(8)]


def test_overcharge_loop_wraps() -> None:
    # decisions card table: Overcharge Loop wraps around the grid's edges
    assert sorted(slot_of(c) for c in loop_cells(cell_of(1))) == [1, 2, 6, 7, 8, 12, 31, 32, 36]
