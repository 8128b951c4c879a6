"""Neon Hex's views: everything is public (decisions 9)."""

from __future__ import annotations

from engine.neon_hex.messages import Expand
from engine.registry import get_game
from tests.engine.neon_hex.test_rules import Dice, hx, run, table

GAME = get_game("neon_hex")


def test_everyone_sees_the_same_table_and_the_dice() -> None:
    # rulebook "2d6 Risk Expansion"; decisions 6: both dice are shown to everyone
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [4, 3])
    state = run(state, 0, Expand(hx(2, 0), "risk"), Dice(6, 5))
    views = [GAME.view(state, viewer) for viewer in (None, 0, 1)]
    for view in views:
        assert view["last_roll"] == {
            "seat": 0,
            "target": hx(2, 0),
            "dice": [6, 5],
            "total": 11,
            "success": True,
        }
        assert {k: v for k, v in view.items() if k != "you"} == {
            k: v for k, v in views[0].items() if k != "you"
        }
    assert views[1]["factions"][0]["hexes"] == 4 and views[1]["you"] == 0
