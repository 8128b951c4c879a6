"""Flip Over Frog's views: what each viewer sees (decisions 1, 12)."""

from __future__ import annotations

import attrs

from engine.registry import get_game
from tests.engine.flip_over_frog.test_rules import table

GAME = get_game("flip_over_frog")


def test_views_hide_hands_colours_and_backs_until_the_final_reveal() -> None:
    # rulebook "Set Up" (secret colour and hand); decisions 1 and 12
    state = table([("R1", "R2", "R3"), ("B1", "B2", "B3")], board={4: (("G1", False),)})
    spectator = GAME.view(state, None)
    assert "hand" not in spectator and "colour" not in spectator
    assert all("colour" not in p for p in spectator["players"])
    assert spectator["board"][4] == {"height": 1, "top": {"kind": "back"}}
    mine = GAME.view(state, 0)
    assert [t["id"] for t in mine["hand"]] == ["R1", "R2", "R3"]
    assert mine["colour"] == "red" and "colour" not in mine["players"][1]
    assert mine["players"][1]["hand_size"] == 3 and mine["stack_size"] == 6
    over = GAME.view(attrs.evolve(state, ended="tiles_exhausted"), None)
    assert [p["colour"] for p in over["players"]] == ["red", "blue"]
    assert "hand" not in over and "outcome" in over
