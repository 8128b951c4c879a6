"""Flip Over Frog's move log: each play, Snake and draw leaves an entry in every view, the
drawn tile is named to its drawer alone, and the log stays bounded."""

from __future__ import annotations

from engine.core import SeatSpec
from engine.match import Match, make_bots, play_out
from engine.movelog import LOG_LENGTH
from engine.registry import get_game
from tests.engine.flip_over_frog.test_rules import play, table
from tests.engine.movelog_checks import check_log

GAME = get_game("flip_over_frog")


def test_a_frog_play_and_the_draw_after_it_are_logged() -> None:
    # R1 (orthogonal arrows) on space 5 turns over the Frog on space 6
    state = table([("R1", "R2", "R3"), ("B1", "B2", "B3")], board={6: (("G1", True),)})
    state, _ = play(state, 0, "R1", 5)
    frog, draw = GAME.view(state, None)["log"]
    assert frog == {
        "n": 1,
        "seat": 0,
        "what": "frog",
        "tile": "R1",
        "colour": "red",
        "space": 5,
        "flipped": [6],
    }
    assert draw == {"n": 2, "seat": 0, "what": "draw"}
    assert GAME.view(state, 1)["log"][1] == draw
    assert GAME.view(state, 0)["log"][1] == {**draw, "tile": "R8"}


def test_a_snake_leaves_a_trace_of_the_frog_it_took() -> None:
    state = table([("S1", "R2", "R3"), ("B1", "B2", "B3")], board={4: (("G1", True),)})
    state, _ = play(state, 0, "S1", 4)
    snake = GAME.view(state, 1)["log"][0]
    assert snake == {
        "n": 1,
        "seat": 0,
        "what": "snake",
        "tile": "S1",
        "space": 4,
        "frog": "G1",
        "colour": "green",
    }
    assert GAME.view(state, 1)["board"][4] == {"height": 0, "top": None}


def test_a_whole_game_keeps_the_last_entries_and_each_draw_private() -> None:
    match = Match.start(GAME, [SeatSpec()] * 3, b"frog-log-seed-01")
    bots = make_bots(match, ["random"] * 3, b"frog-log-bots-01")

    def check(m: Match, *_: object) -> None:
        views = [GAME.view(m.state, viewer) for viewer in (None, 0, 1, 2)]
        check_log(views, m.state.log)

    play_out(match, bots, on_step=check)
    log = GAME.view(match.state, None)["log"]
    assert len(log) == LOG_LENGTH
    assert log[-1] == {
        "n": log[-2]["n"] + 1,
        "seat": None,
        "what": "end",
        "reason": match.state.ended,
    }
