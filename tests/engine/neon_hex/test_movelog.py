"""Neon Hex's move log: every turn, claim, Risk roll and turn's end is logged, the same for
every viewer (nothing is hidden), the newest 12 kept."""

from __future__ import annotations

from engine.core import SeatSpec
from engine.match import Match, make_bots, play_out
from engine.movelog import LOG_LENGTH
from engine.neon_hex.messages import RiskRolled
from engine.registry import get_game
from tests.engine.movelog_checks import check_log

GAME = get_game("neon_hex")


def test_each_roll_is_logged_with_its_dice_and_result_for_everyone() -> None:
    match = Match.start(GAME, [SeatSpec()] * 3, b"hex-log-seed-001")
    bots = make_bots(match, ["easy", "medium", "random"], b"hex-log-bots-001")
    rolls = 0

    def check(m: Match, seat: int | None, command: object, events: list) -> None:
        nonlocal rolls
        views = [GAME.view(m.state, viewer) for viewer in (None, 0, 1, 2)]
        check_log(views, m.state.log)
        assert all(view["log"] == views[0]["log"] for view in views)
        for event in events:
            if isinstance(event, RiskRolled):
                rolls += 1
                entry = [e for e in views[0]["log"] if e["what"] == "risk"][-1]
                assert entry["seat"] == event.seat and entry["target"] == event.target
                assert entry["dice"] == list(event.dice)
                assert entry["success"] == event.success
                assert entry["claimed"] == list(event.claimed)

    play_out(match, bots, on_step=check)
    assert rolls > 0
    log = GAME.view(match.state, None)["log"]
    assert len(log) == LOG_LENGTH and log[-1]["what"] == "end"
    assert {e["what"] for e in log} <= {"turn", "safe", "risk", "end_turn", "end"}
