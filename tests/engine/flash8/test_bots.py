"""The solver bots: they pace themselves, never claim wrong, and faster beats slower."""

from __future__ import annotations

import itertools

from engine.core import SeatSpec
from engine.flash8.bots import HUMAN_PACE, SolverBot
from engine.flash8.messages import CardTaken, ClaimMissed, LineClaimed, Slid
from engine.match import Match, make_bots, play_out
from engine.registry import get_game
from tests.engine.flash8.helpers import START, race

GAME = get_game("flash8")


def _play(kinds: list[str], seed: bytes, **options: object) -> Match:
    seats = [SeatSpec(name=kind, bot=kind) for kind in kinds]
    match = Match.start(GAME, seats, seed, dict(options))
    play_out(match, make_bots(match, kinds, seed))
    return match


def test_bots_finish_a_race_at_their_pace_without_wrong_claims() -> None:
    match = _play(["bot", "fast"], b"pace" * 4)
    outcome = match.outcome
    assert outcome is not None and outcome.reason == "stacks_empty"
    assert not any(isinstance(e, ClaimMissed) for e in match.log)
    for seat, pace in ((0, HUMAN_PACE), (1, 10.0)):
        times = [e.at for e in match.log if isinstance(e, Slid | CardTaken) and e.seat == seat]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert min(gaps) >= 1 / pace - 1e-9
    assert sum(outcome.scores) == sum(e.points for e in match.log if isinstance(e, CardTaken))
    report = outcome.details["players"]
    assert all(p["slides_on_cards"] >= p["optimal_on_cards"] for p in report)


def test_faster_bot_wins_most_races() -> None:
    wins = 0
    for n in range(6):
        match = _play(["bot", "fast"], bytes([n]) * 16)
        assert match.outcome is not None
        wins += match.outcome.ranks[1] == 1
    assert wins >= 5


def test_bot_keeps_its_moment_when_asked_again() -> None:
    # engine.match.play_out re-asks every bot after every event
    state = race(2, seed=3)
    bot = SolverBot(0, HUMAN_PACE)
    view = GAME.view(state, 0)
    options = [object()]
    first = bot.act(view, options, START)  # type: ignore[arg-type]
    again = bot.act(view, options, START + 0.1)  # type: ignore[arg-type]
    assert first is not None and again is not None
    assert first.at == again.at == START + 1 / HUMAN_PACE
    assert first.command == again.command


def test_solo_bot_claims_only_matching_lines() -> None:
    match = _play(["bot"], b"solo" * 4, mode="solo", solo_seconds=60.0)
    outcome = match.outcome
    assert outcome is not None
    claims = [e for e in match.log if isinstance(e, LineClaimed)]
    assert claims and not any(isinstance(e, ClaimMissed) for e in match.log)
    assert all(c.slides == c.optimal for c in claims)  # the grid only changes on a claim
    assert outcome.details["score"] == 43 - sum(len(c.covered) for c in claims)


def test_random_bot_waits_between_moves() -> None:
    match = _play(["random", "random"], b"rand" * 4, time_limit=5.0)
    times = [e.at for e in match.log if isinstance(e, Slid)]
    assert times and all(b > a for a, b in itertools.pairwise(times))
    assert match.now >= START + 5.0  # the simulated clock reached the time limit
