"""Neon Flip's scoring: objectives, circuits, the final tally and its tie-breakers (rulebook
2.6, decisions 10, 13, 15)."""

from __future__ import annotations

import attrs
import pytest

from engine.neon_flip.scoring import OBJECTIVES, circuits, objective_met
from engine.registry import get_game
from tests.engine.neon_flip.helpers import grid, table
from tests.engine.neon_flip.test_rules import C, P

GAME = get_game("neon_flip")


def test_tie_breakers_and_shared_victory() -> None:
    # rulebook 2.6 tie-breakers, decisions 15
    board = grid("CPCPCP PCPCPC CPCPCP PCPCPC CPCPCP PCPCPC")
    state = table(board=board, energy=[0, 0])
    state = attrs.evolve(
        state,
        phase="over",
        ended="rounds",
        players=tuple(attrs.evolve(p, objective="full_row") for p in state.players),
    )
    outcome = GAME.outcome(state)
    assert outcome is not None
    # Cyan holds corners 1 and 36 only... both hold two corners: corners tie, energy ties.
    assert outcome.ranks == (1, 1) and outcome.tiebreak is None
    longer = attrs.evolve(
        state, players=(attrs.evolve(state.players[0], longest=2), state.players[1])
    )
    outcome = GAME.outcome(longer)
    assert outcome is not None and outcome.ranks == (1, 2)
    assert outcome.tiebreak == "longest_chain"
    richer = attrs.evolve(
        state, players=(state.players[0], attrs.evolve(state.players[1], energy=2))
    )
    outcome = GAME.outcome(richer)
    assert outcome is not None and outcome.ranks == (2, 1) and outcome.tiebreak == "energy"


def test_team_scores_are_sums() -> None:
    # decisions 2: a team's score is the sum of its players'
    state = table(4, teams=True, energy=[0, 0, 0, 0])
    players = tuple(
        attrs.evolve(p, vp=v) for p, v in zip(state.players, (10, 1, 10, 30), strict=True)
    )
    state = attrs.evolve(state, players=players, phase="over", ended="rounds")
    outcome = GAME.outcome(state)
    assert outcome is not None
    team = outcome.details["team_scores"]
    assert outcome.ranks[0] == outcome.ranks[2] and outcome.ranks[1] == outcome.ranks[3]
    assert (outcome.ranks[0] == 1) == (team[0] > team[1])


@pytest.mark.parametrize(
    ("key", "board", "players", "met"),
    [
        ("corner_control", "CPPPPC PPPPPP PPPPPP PPPPPP PPPPPP CPPPPC", 2, True),
        ("corner_control", "CPPPPC PPPPPP PPPPPP PPPPPP PPPPPP CPPPPP", 2, False),
        ("diagonal_link", "PPPPPP PPPPCP PPPCPP PPCPPP PCPPPP PPPPPP", 2, True),
        ("diagonal_link", "PPPPPP PPPPPP PPPCPP PPCPPP PCPPPP PPPPPP", 2, False),
        ("core_access", "PPPPPP PPPPPP PPCCPP PPCCPP PPPPPP PPPPPP", 2, True),
        ("full_row", "PPPPPP PPPPPP CCCCCC PPPPPP PPPPPP PPPPPP", 2, True),
        ("full_column", "PCPPPP PCPPPP PCPPPP PCPPPP PCPPPP PCPPPP", 2, True),
        ("full_column", "PCPPPP PCPPPP PCPPPP PCPPPP PCPPPP PPPPPP", 2, False),
        ("perimeter_hold", "CCCCCC CPPPPC CPPPPC CPPPPP CPPPPP PPPPPP", 2, True),
        ("perimeter_hold", "CCCCCC CPPPPC CPPPPC CPPPPP PPPPPP PPPPPP", 2, False),
        ("twin_circuits", "CCCCPP PPPPPP PPCCCC PPPPPP PPPPPP PPPPPP", 2, True),
        ("twin_circuits", "CCCCCC PPPPPP PPPPPP PPPPPP PPPPPP PPPPPP", 2, False),
        ("sector_lord", "PPPPPP PCCCPP PCCCPP PCCCPP PPPPPP PPPPPP", 2, True),
        ("spread_network", "CCCPPP CCCPPP CCCPPP CCCPPP CCCPPP CCCPPP", 2, True),
        ("spread_network", "CCPPPP CCPPPP CCPPPP CCPPPP CCPPPP CCPPPP", 2, False),
        ("spread_network", "CCPPPP CCPPPP CCPPPP CCPPPP CCPPPP CCPPPP", 3, True),
        ("pillar_network", "CCCCCC CCCCCC CCCCCC PPPPPP PPPPPP PPPPPP", 2, True),
        ("quadrant_sweep", "CCPCCP CCPCCP PPPPPP CCPCCP CCPCCP PPPPPP", 2, False),
        ("quadrant_sweep", "CCCCCC CCPCCP PPPPPP CCPCCP CCPCCP CCPCCP", 2, True),
        ("anchor_pair", "PPPPPP PPPPPP PPPPPP PPPPPP PPPPPP CPCCPC", 2, True),
        ("anchor_pair", "CPPPPP PPPPPP CPPPPP CPPPPP PPPPPP CPPPPP", 2, True),
    ],
)
def test_objectives(key: str, board: str, players: int, met: bool) -> None:
    # decisions 10: the 12 Target Objectives, counted in the player's colour
    assert objective_met(key, grid(board), C, players) is met


def test_twelve_objectives() -> None:
    # decisions 10: a separate deck of 12
    assert len(OBJECTIVES) == 12


def test_circuits_count_maximal_runs() -> None:
    # decisions 13: 3 per maximal straight run of 4+ along a row or column
    board = grid("CCCCCC PPPPPP CCCCPC PPPPPP PPPPPP PPPPPP")
    assert circuits(board, C) == 2
    # Pink: rows 2, 4, 5 and 6, and column 5 (rows 2-6); other columns hold 3 at most.
    assert circuits(board, P) == 5
