"""Self-play and arena statistics (``engine.selfplay``) and the ``lumin selfplay`` / ``lumin
arena`` JSON they print: the first mover, games that reached the clock, bot pacing, think time.
Small runs only: the full-size measures are ``benchmarks/neon_flip_measures.py``."""

from __future__ import annotations

import json

from click.testing import CliRunner

from engine.selfplay import DEFAULT_BOT_DELAY, GameResult, arena_summary, play_game
from lumin.cli import main


def _words(command: str) -> list[str]:
    return command.split()


def _result(index: int, kinds: tuple[str, ...], ranks: tuple[int, ...], first: int) -> GameResult:
    return GameResult(index, kinds, ranks, 10, 20, 5, 1.0, {}, "rounds", first)


def test_first_mover_counts_the_games_each_kind_moved_first() -> None:
    results = [
        _result(0, ("a", "b"), (1, 2), 0),  # a first, a wins
        _result(1, ("b", "a"), (1, 2), 1),  # a first, b wins
        _result(2, ("a", "b"), (2, 1), 1),  # b first, b wins
        _result(3, ("b", "a"), (1, 1), 0),  # b first, shared
    ]
    summary = arena_summary("x", results)
    a, b = summary["bots"]["a"]["first_mover"], summary["bots"]["b"]["first_mover"]
    assert (a["games"], a["wins"], a["win_rate"]) == (2, 1.0, 0.5)
    assert (b["games"], b["wins"], b["win_rate"]) == (2, 1.5, 0.75)
    assert 0 <= a["ci95"][0] <= 0.5 <= a["ci95"][1] <= 1


def test_neon_flip_reports_its_drawn_first_player() -> None:
    # neon-flip.decisions 3: the first player comes from the seed, not seat 0
    firsts = {
        play_game("neon_flip", ("easy", "easy"), 3, i, {"rounds": 1}).first_mover for i in range(6)
    }
    assert firsts == {0, 1}


def test_bots_are_paced_at_the_server_bot_delay() -> None:
    # issue 16: 0.8 s of simulated clock per command unless told otherwise
    assert DEFAULT_BOT_DELAY == 0.8
    from server.config import Settings

    assert Settings().bot_delay == DEFAULT_BOT_DELAY
    paced = play_game("flip_over_frog", ("bot", "bot"), 1, 0, {})
    unpaced = play_game("flip_over_frog", ("bot", "bot"), 1, 0, {}, bot_delay=0.0)
    assert unpaced.sim_seconds == 0.0
    assert abs(paced.sim_seconds - 0.8 * paced.commands) < 1e-6
    assert paced.ranks == unpaced.ranks  # a turn-based game plays the same, only slower


def test_a_short_overdrive_clock_is_reached_in_self_play() -> None:
    # neon-flip.decisions 14: the game clock ends the game after the current turn
    result = play_game("neon_flip", ("hard", "hard"), 8, 0, {"mode": "overdrive", "clock": 1})
    assert result.reason == "clock" and result.reached_clock


def test_selfplay_json_has_turns_and_clock_counts() -> None:
    ran = CliRunner().invoke(
        main,
        [
            "selfplay",
            "neon_flip",
            "--games",
            "3",
            "--seed",
            "8",
            "--players",
            "2",
            "--option",
            "mode=overdrive",
            "--json",
        ],
    )
    assert ran.exit_code == 0, ran.output
    summary = json.loads(ran.output)
    assert summary["finished"] == 3 and summary["bot"] == "bot" and summary["bot_delay"] == 0.8
    assert summary["avg_turns"] > 0 and summary["reached_clock"] == 0
    assert sum(summary["reasons"].values()) == 3


def test_arena_json_has_first_mover_and_think_time() -> None:
    ran = CliRunner().invoke(
        main,
        [
            "arena",
            "neon_flip",
            "--a",
            "hard",
            "--b",
            "hard",
            "--games",
            "2",
            "--seed",
            "9",
            "--option",
            "mode=overdrive",
            "--json",
        ],
    )
    assert ran.exit_code == 0, ran.output
    hard = json.loads(ran.output)["bots"]["hard"]
    assert hard["first_mover"]["games"] == 2
    assert hard["think"]["decisions"] > 0 and hard["think"]["mean_ms"] > 0


def test_arena_refuses_proto_zero_outside_solo() -> None:
    # neon-flip.decisions 16a: refused with bad_option outside solo rooms
    ran = CliRunner().invoke(
        main,
        [
            "arena",
            "neon_flip",
            "--a",
            "hard",
            "--b",
            "easy",
            "--games",
            "1",
            "--option",
            "proto_zero=overclocked",
        ],
    )
    assert ran.exit_code == 2 and "solo rooms only" in ran.output
