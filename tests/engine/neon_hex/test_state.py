"""Neon Hex's state and the numbers its readers share: income (decisions 4)."""

from __future__ import annotations

from engine.neon_hex.state import income


def test_income_is_one_plus_one_per_four_hexes() -> None:
    # rulebook "Turn and Energy Rules"; decisions 4
    assert [income(h) for h in (1, 3, 4, 7, 8, 11, 12)] == [1, 1, 2, 2, 3, 3, 4]
