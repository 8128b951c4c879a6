"""Neon Flip's move log: what everyone saw for everyone, the objective a seat kept and the
card it drew for that seat alone (decisions 9), a cascade as one entry, never which copy of a
card (it may go back into the draw pile)."""

from __future__ import annotations

from typing import Any

from engine.core import SeatSpec
from engine.match import Match, make_bots, play_out
from engine.neon_flip.messages import ChooseObjective
from engine.registry import get_game
from tests.engine.movelog_checks import check_log
from tests.engine.neon_flip.helpers import run, start

GAME = get_game("neon_flip")


def test_a_kept_objective_is_logged_and_named_to_its_keeper_alone() -> None:
    state = start(2)
    kept = state.players[1].offers[0]
    state, _ = run(state, 1, ChooseObjective(kept))
    entry = {"n": 1, "seat": 1, "what": "objective"}
    assert GAME.view(state, 0)["log"] == [entry]
    assert GAME.view(state, None)["log"] == [entry]
    assert GAME.view(state, 1)["log"] == [{**entry, "objective": kept}]


def _played(options: dict[str, Any], seats: int) -> list[dict[str, Any]]:
    match = Match.start(GAME, [SeatSpec()] * seats, b"flip-log-seed-01", options)
    bots = make_bots(match, ["random"] * seats, b"flip-log-bots-01")
    seen: list[dict[str, Any]] = []

    def check(m: Match, *_: object) -> None:
        views = [GAME.view(m.state, v) for v in (None, *range(seats))]
        check_log(views, m.state.log)
        known = {e["n"] for e in seen}
        seen.extend(e for e in views[0]["log"] if e["n"] not in known)

    play_out(match, bots, on_step=check)
    return seen


def test_a_game_logs_turns_cards_and_draws_without_naming_a_copy() -> None:
    seen = _played({"mode": "classic", "rounds": 1}, 3)
    kinds = {e["what"] for e in seen}
    assert {"objective", "turn", "end_turn", "draw", "end"} <= kinds
    assert kinds & {"card", "flip", "buy", "lock"}
    for entry in seen:
        if entry["what"] in ("card", "buy", "discard"):
            assert "card" not in entry and entry["kind"] and entry["name"]
    cascades = [e for e in seen if e["what"] == "cascade"]
    assert all(e["seat"] is not None and e["slots"] for e in cascades)


def test_solo_logs_proto_zeros_moves() -> None:
    seen = _played({"mode": "solo", "rounds": 1}, 1)
    assert any(e["what"] == "ai_card" and e["seat"] == -1 for e in seen)
