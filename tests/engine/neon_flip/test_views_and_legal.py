"""Neon Flip views, legal() and the bot; each test cites the decision it checks."""

from __future__ import annotations

import random

import attrs

from engine.core import Rejected, SeatSpec, expand_legal
from engine.match import Match, make_bots, play_out
from engine.neon_flip.board import cell_of
from engine.neon_flip.cards import kind_of
from engine.neon_flip.messages import PlayCard, StopCascade
from engine.registry import get_game
from tests.engine.neon_flip.helpers import ALL_PINK, run, table

GAME = get_game("neon_flip")

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


def test_legal_previews_are_the_tiles_that_change() -> None:
    # decisions, card table: each entry carries what each target would flip
    hands = [["cross_flip.1", "node_swap.1", "linear_sweep.1"], []]
    state = table(board=ALL_PINK, hands=hands, energy=10)
    state, _ = run(state, 0, PlayCard("cross_flip.1", slot=36))
    state, _ = run(state, 0, StopCascade())
    fields = {field.name for field in attrs.fields(PlayCard)}
    checked = 0
    for entry in GAME.legal(state, 0):
        if entry["type"] != "play_card" or "choose" not in entry:
            continue
        ((field, values),) = entry["choose"].items()
        fixed = {k: v for k, v in entry.items() if k in fields}
        for value, preview in zip(values, entry["preview"], strict=True):
            command = PlayCard(**{**fixed, field: value})
            events = GAME.decide(state, 0, command, 0.0, random.Random(0))
            after = GAME.evolve(state, events[0])
            changed = [
                s for s in range(1, 37) if after.board[cell_of(s)] != state.board[cell_of(s)]
            ]
            assert changed == sorted(preview), (command, preview)
            checked += 1
    assert checked > 100


def test_every_offered_card_play_is_accepted() -> None:
    # decisions, "The Protocol deck": legal() lists exactly playable targets
    kinds = ("node_shift", "cascade_surge", "mainframe_hijack", "overcharge_loop", "diagonal_x")
    hands = [[f"{k}.1" for k in kinds], []]
    state = table(hands=hands, energy=10)
    offered = expand_legal(GAME, GAME.legal(state, 0))
    played = {kind_of(c.card).key for c in offered if isinstance(c, PlayCard)}
    assert played == set(kinds)
    for command in offered:
        GAME.decide(state, 0, command, 0.0, random.Random(0))


def test_obstacle_tiles_count_for_no_one() -> None:
    # decisions 2: with obstacles, B tiles flip but belong to no one
    state = table(2, obstacles=True)
    b_tiles = sum(1 for c in state.board if c >= 2)
    assert b_tiles == 12
    spectator = GAME.view(state, None)
    assert sum(p["tiles"] for p in spectator["players"]) == 36 - b_tiles


def test_a_refused_play_pays_nothing() -> None:
    # decisions: a play that changes nothing is refused and nothing is paid
    state = table(hands=[["node_swap.1"], []])
    try:
        run(state, 0, PlayCard("node_swap.1", slot=1, other=1))
    except Rejected as refused:
        assert refused.code == "changes_nothing"
    else:
        raise AssertionError("swapping a tile with itself was accepted")


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
