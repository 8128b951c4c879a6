"""Neon Flip views: what each viewer sees (decisions 9); each test cites the decision it checks."""

from __future__ import annotations

from engine.registry import get_game
from tests.engine.neon_flip.helpers import table

GAME = get_game("neon_flip")


def test_views_show_own_hand_and_objective_only() -> None:
    # decisions 9: hands and kept objectives are secret; the rest is public
    state = table(3)
    mine = GAME.view(state, 0)
    theirs = GAME.view(state, 1)
    spectator = GAME.view(state, None)
    assert [c["id"] for c in mine["you"]["hand"]] == list(state.players[0].hand)
    assert mine["you"]["objective"]["id"] == state.players[0].objective
    assert "you" not in spectator
    assert [p["hand"] for p in spectator["players"]] == [len(p.hand) for p in state.players]
    for view in (theirs, spectator):
        text = repr(view)
        assert all(card not in text for card in state.players[0].hand)
        assert state.players[0].objective not in text
    for key in ("market", "discard", "locks", "board", "draw_pile"):
        assert mine[key] == spectator[key]
    assert [p["energy"] for p in spectator["players"]] == [p.energy for p in state.players]
