"""Flash 8's move log: takes, missed and late claims are logged for everyone, a held claim
only once it is judged (decisions 17), and slides never."""

from __future__ import annotations

from typing import Any

from engine.core import SeatSpec
from engine.match import Match, make_bots, play_out
from engine.registry import get_game
from tests.engine.flash8.test_fair_claims import FAR, LAG, NEAR, Room, T, _both_match
from tests.engine.movelog_checks import check_log

GAME = get_game("flash8")


def test_a_held_claim_is_logged_once_judged_and_for_everyone() -> None:
    room = Room(_both_match())
    before = room.state
    room.claim(NEAR, T, rival_credit=LAG)
    # while held, even the claimant's log is unchanged: its view's ``held`` says it waits
    for viewer in (NEAR, FAR, None):
        assert GAME.view(room.state, viewer)["log"] == GAME.view(before, viewer)["log"]
    room.due()
    card = room.state.takes[-1]
    for viewer in (NEAR, FAR, None):
        last = GAME.view(room.state, viewer)["log"][-1]
        assert last["what"] == "take" and last["seat"] == NEAR
        assert last["stack"] == 0 and last["points"] == card.points


def _played(options: dict[str, Any], seats: int) -> tuple[Match, list[str]]:
    match = Match.start(GAME, [SeatSpec()] * seats, b"flash-log-seed-1", options)
    bots = make_bots(match, ["random"] * seats, b"flash-log-bots-1")
    kinds: list[str] = []

    def check(m: Match, *_: object) -> None:
        check_log([GAME.view(m.state, v) for v in (None, *range(seats))], m.state.log)
        kinds.extend(e.what for e in m.state.log if e.what not in kinds)

    play_out(match, bots, on_step=check)
    return match, kinds


def test_a_race_logs_its_start_claims_and_end_never_a_slide() -> None:
    match, kinds = _played({"mode": "race", "time_limit": 60.0}, 3)
    assert {"start", "end"} <= set(kinds)
    assert set(kinds) <= {"start", "take", "miss", "late", "tie", "limit", "end"}
    assert any(kind in kinds for kind in ("take", "miss"))
    takes = [e for e in GAME.view(match.state, 0)["log"] if e["what"] == "take"]
    shown = {(t.seat, t.stack, t.points) for t in match.state.takes}
    assert all((e["seat"], e["stack"], e["points"]) in shown for e in takes)


def test_a_solo_game_logs_its_claims_and_lockouts() -> None:
    _, kinds = _played({"mode": "solo", "solo_seconds": 60.0}, 1)
    assert {"start", "end"} <= set(kinds)
    assert set(kinds) <= {"start", "claim", "miss", "end"}
