"""Neon Flip's bot: it beats random and plays every mode."""

from __future__ import annotations

from engine.core import SeatSpec
from engine.match import Match, make_bots, play_out
from engine.registry import get_game

GAME = get_game("neon_flip")


def test_bot_beats_random() -> None:
    # The bar: the bot beats a random player almost always (short games here).
    wins = 0
    for index in range(4):
        seed = bytes([index]) * 16
        kinds = ["bot", "random"] if index % 2 == 0 else ["random", "bot"]
        seats = [SeatSpec(k, k) for k in kinds]
        match = Match.start(GAME, seats, seed, {"rounds": 1})
        play_out(match, make_bots(match, kinds, seed))
        outcome = match.outcome
        assert outcome is not None
        wins += outcome.ranks[kinds.index("bot")] == 1
    assert wins == 4


def test_the_bot_plays_every_mode() -> None:
    # Every mode finishes with bots in every seat (decisions 12, 14, 18).
    for options, count, reasons in (
        ({"rounds": 1, "teams": True}, 4, {"rounds", "fifty"}),
        ({"mode": "overdrive", "rounds": 1}, 3, {"rounds", "fifty", "overdrive"}),
        ({"mode": "solo"}, 1, {"wiped", "fifty", "ai_deck_spent"}),
    ):
        seed = b"neon-flip-modes!"
        match = Match.start(GAME, [SeatSpec("b", "bot")] * count, seed, options)
        play_out(match, make_bots(match, ["bot"] * count, seed))
        assert match.outcome is not None and match.outcome.reason in reasons
