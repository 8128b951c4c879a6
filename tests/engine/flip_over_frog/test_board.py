"""Flip Over Frog's tiles and board geometry (decisions 2, 3)."""

from __future__ import annotations

from engine.flip_over_frog.board import COLOURS, TILES, arrows_of, colour_of


def test_tile_set_has_orthogonal_and_diagonal_frogs_and_four_snakes() -> None:
    # decisions 2
    frogs = [t for t in TILES if not t.startswith("S")]
    assert len(TILES) == 36 and len(frogs) == 32
    for colour in COLOURS:
        mine = [t for t in frogs if colour_of(t) == colour]
        assert len(mine) == 8
        assert sum(arrows_of(t) == "orthogonal" for t in mine) == 4
