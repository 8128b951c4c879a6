"""Neon Hex AI factions: they follow the same rules as humans, decide reproducibly, and judge
Risk by the race to 12 (neon-hex.decisions 8)."""

from __future__ import annotations

import random

import pytest

from engine.core import SeatSpec, expand_legal, to_wire
from engine.match import Match, make_bots, play_out
from engine.neon_hex.board import INDEX, NEIGHBOURS, SIZE
from engine.neon_hex.bots import (
    HardBot,
    MediumBot,
    RaceModel,
    position_from_view,
    projected_territory,
    race_model,
)
from engine.neon_hex.messages import Expand
from engine.registry import get_game
from engine.selfplay import play_game
from tests.engine.neon_hex.test_rules import table

GAME = get_game("neon_hex")


def hx(q: int, r: int) -> int:
    return INDEX[(q, r)]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_every_level_finishes_games_through_offered_commands(players: int) -> None:
    # decisions 8: AI factions follow exactly the same rules (play_out refuses nothing)
    kinds = ["hard", "medium", "easy", "random", "hard"][:players]
    for index in range(3):
        seed = bytes([players, index]) * 8
        match = Match.start(GAME, [SeatSpec(k, bot=k) for k in kinds], seed)
        play_out(match, make_bots(match, kinds, seed))
        assert match.outcome is not None


def test_decisions_are_reproducible_from_the_seed() -> None:
    # docs/engine.md "Bots": bots think within node budgets, never clocks
    def log(seed: bytes) -> list[dict[str, object]]:
        kinds = ["hard", "medium", "easy"]
        match = Match.start(GAME, [SeatSpec(k, bot=k) for k in kinds], seed)
        play_out(match, make_bots(match, kinds, seed))
        return [to_wire(event) for event in match.log]

    assert log(b"r" * 16) == log(b"r" * 16)


def test_race_model_is_a_probability_and_sure_wins_are_certain() -> None:
    # rulebook "Victory condition": 12 hexes win; Safe claims for sure
    model = RaceModel(0.3)
    values = model.actions(10, 2, 5, 0)
    assert values["safe"] == 1.0
    for a, ea, b, eb in [(1, 4, 5, 0), (5, 2, 9, 1), (7, 3, 7, 0)]:
        for value in model.actions(a, ea, b, eb).values():
            assert 0.0 <= value <= 1.0
    spread = model.rival_turn(5, 4)
    assert abs(sum(spread.values()) - 1.0) < 1e-9
    assert RaceModel(0.0).rival_turn(5, 4) == {9: 1.0}


def test_behind_a_safe_rival_the_race_calls_for_risk() -> None:
    # rulebook "2d6 Risk Expansion": 9+ on 2d6 (10/36) is the only way to catch up
    safe_rival = race_model(0.0)
    behind = safe_rival.actions(1, 4, 5, 0)
    assert behind["risk"] > behind["safe"]
    ahead = safe_rival.actions(5, 2, 5, 0)
    assert ahead["safe"] > ahead["risk"]


def test_hard_reads_a_rivals_risk_rate_from_what_it_spent() -> None:
    # decisions 6: a failed Risk spends 2 Energy for nothing, visible in the view
    bot = HardBot(0, random.Random(0))
    first = GAME.view(table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [4, 3]), 0)
    bot.observe(first, position_from_view(first))
    baseline = bot.rate(1)
    safe = table({0: [hx(3, 0)], 1: [hx(-3, 0), hx(-2, 0), hx(-1, 0)]}, [4, 2], turn=3)
    view = GAME.view(safe, 0)
    bot.observe(view, position_from_view(view))
    assert bot.rate(1) < baseline
    wasteful = HardBot(0, random.Random(0))
    wasteful.observe(first, position_from_view(first))
    lost = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [4, 0], turn=3)
    view = GAME.view(lost, 0)
    wasteful.observe(view, position_from_view(view))
    assert wasteful.rate(1) > baseline


def test_medium_rolls_when_a_rival_threatens_to_win() -> None:
    # rulebook "Roles, Factions, and Difficulty": levels differ in when they take risks
    rival = [h for h in range(SIZE) if h < 10]
    state = table({0: [hx(0, 3)], 1: rival}, [3, 1])
    view = GAME.view(state, 0)
    bot = MediumBot(0, random.Random(0))
    assert bot.choose(position_from_view(view))[0] == "risk"
    calm = table({0: [hx(0, 3)], 1: [hx(-3, 0)]}, [3, 1])
    assert bot.choose(position_from_view(GAME.view(calm, 0)))[0] == "safe"


def test_projected_territory_counts_every_hex_once() -> None:
    owners = [-1] * SIZE
    owners[hx(3, 0)] = 0
    owners[hx(-3, 0)] = 1
    score = projected_territory(owners, 2)
    assert abs(sum(score) - SIZE) < 1e-9 and abs(score[0] - score[1]) < 1e-9


def test_hard_answers_with_an_offered_risk_command() -> None:
    # decisions 6: a Risk with more than two bonus candidates is offered with named bonus
    state = table({0: [hx(0, 0)], 1: [hx(-3, 0)]}, [2, 3])
    commands = expand_legal(GAME, GAME.legal(state, 0))
    bot = HardBot(0, random.Random(0))
    wanted = bot._command(("risk", hx(1, 0), (NEIGHBOURS[hx(1, 0)][0],)), commands)
    assert isinstance(wanted, Expand) and wanted in commands and wanted.kind == "risk"


def test_hard_beats_random() -> None:
    # decisions 8: a random player is the floor
    wins = 0.0
    for index in range(20):
        kinds = ("hard", "random") if index % 2 == 0 else ("random", "hard")
        result = play_game("neon_hex", kinds, 99, index, {})
        winners = [s for s, rank in enumerate(result.ranks) if rank == 1]
        wins += sum(1 for s in winners if kinds[s] == "hard") / len(winners)
    assert wins >= 15
