"""Neon Flip rule tests; each cites the rulebook section or decision it checks."""

from __future__ import annotations

import random

import attrs
import pytest

from engine.core import Rejected, expand_legal
from engine.neon_flip.board import cell_of, slot_of
from engine.neon_flip.cards import DECK, kind_of
from engine.neon_flip.messages import (
    AiCardPlayed,
    AiCascaded,
    AiOvercharged,
    BuyCard,
    Cascade,
    CascadeFlipped,
    Checkpoint,
    ChooseObjective,
    Discard,
    DominanceCounted,
    EndTurn,
    GameEnded,
    Lock,
    ManualFlip,
    PlayCard,
    StopCascade,
    TurnStarted,
)
from engine.registry import get_game
from tests.engine.neon_flip.helpers import ALL_CYAN, ALL_PINK, grid, run, start, table

GAME = get_game("neon_flip")


C, P, G, Y = 0, 1, 2, 3


# --- setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options", "a_tiles"),
    [
        (2, {}, 36),  # decisions 2: 2 players, all A tiles
        (2, {"obstacles": True}, 24),  # decisions 2: obstacles, 24 A + 12 B
        (3, {}, 18),  # decisions 2: 3 players, 18 A + 18 B
        (4, {}, 18),
        (4, {"teams": True}, 18),
        (1, {"mode": "solo"}, 36),  # decisions 2: solo, all A
    ],
)
def test_tiles_per_player_count(seats: int, options: dict, a_tiles: int) -> None:
    # decisions 1-3: spectra by player count, random faces from the seed
    state = start(seats, **options)
    assert sum(1 for c in state.board if c < 2) == a_tiles
    assert [p.colour for p in state.players] == list(range(seats))
    assert start(seats, **options).board == state.board
    assert start(seats, seed=2, **options).board != state.board


def test_setup_deals_hands_market_energy_objectives() -> None:
    # rulebook 2.1: 4 Energy, 4 cards, a market of 3; decisions 10: 2 objectives each
    state = start(4)
    assert all(len(p.hand) == 4 and p.energy == 4 and len(p.offers) == 2 for p in state.players)
    assert len(state.market) == 3 and len(state.draw) == 52 - 16 - 3
    dealt = [o for p in state.players for o in p.offers]
    assert len(set(dealt)) == 8 and len(state.objective_deck) == 4
    assert 0 <= state.turn < 4  # decisions 3: first player from the seed
    assert start(2, mode="overdrive").players[0].energy == 6  # rulebook 2.5.2


def test_seat_counts_follow_options() -> None:
    # decisions 2: teams need 4 seats, obstacles 2, solo 1
    assert list(GAME.seat_counts({"mode": "classic"})) == [2, 3, 4]
    assert list(GAME.seat_counts({"mode": "classic", "teams": True})) == [4]
    assert list(GAME.seat_counts({"mode": "overdrive", "obstacles": True})) == [2]
    assert list(GAME.seat_counts({"mode": "solo"})) == [1]


def test_objectives_are_chosen_before_the_first_turn() -> None:
    # rulebook 2.1, decisions 10: keep one of two, the other goes back
    state = start(2)
    with pytest.raises(Rejected) as refused:
        run(state, state.turn, EndTurn())
    assert refused.value.code == "choose_objective_first"
    kept = state.players[0].offers[1]
    state, _ = run(state, 0, ChooseObjective(kept))
    assert state.players[0].objective == kept and state.players[0].offers == ()
    assert state.objective_deck[-1] == start(2).players[0].offers[0]
    state, events = run(state, 1, ChooseObjective(state.players[1].offers[0]))
    assert isinstance(events[-1], TurnStarted) and state.phase == "main"


# --- card plays ------------------------------------------------------------------------------


def test_cross_flip_flips_and_pays() -> None:
    # rulebook 2.3 Action A: pay, discard, resolve
    state = table(board=ALL_PINK, hands=[["cross_flip.1"], []])
    state, _ = run(state, 0, PlayCard("cross_flip.1", slot=8))
    assert [slot_of(c) for c, col in enumerate(state.board) if col == C] == [2, 7, 8, 9, 14]
    assert state.players[0].energy == 3
    assert state.discard[-1] == "cross_flip.1" and "cross_flip.1" not in state.players[0].hand


def test_locked_tiles_are_skipped_and_a_play_on_locks_alone_is_refused() -> None:
    # rulebook 2.7 "Locked Tiles"; decisions: a play that changes nothing is refused, unpaid
    board = list(ALL_PINK)
    board[cell_of(8)] = C
    state = table(board=board, hands=[["single_flip.1", "cross_flip.1"], []])
    state, _ = run(state, 0, Lock(8))
    assert state.players[0].energy == 1
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("single_flip.1", slot=8))
    assert refused.value.code == "changes_nothing"
    assert state.players[0].energy == 1
    state = attrs.evolve(
        state, players=(attrs.evolve(state.players[0], energy=5), state.players[1])
    )
    state, _ = run(state, 0, PlayCard("cross_flip.1", slot=8))
    assert state.board[cell_of(8)] == C  # locked: not flipped
    assert all(state.board[cell_of(s)] == C for s in (2, 7, 9, 14))


def test_node_swap_and_shift_respect_locks() -> None:
    # decisions: locked tiles cannot be swapped or shifted; a line holding one cannot shift
    board = grid("CPPPPP PPPPPP PPPPPP PPPPPP PPPPPP PPPPPC")
    state = table(board=board, hands=[["node_swap.1", "node_shift.1"], []], energy=10)
    state, _ = run(state, 0, Lock(1))
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("node_swap.1", slot=1, other=2))
    assert refused.value.code == "locked"
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("node_shift.1", line="row", index=1, step=1))
    assert refused.value.code == "locked"
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("node_swap.1", slot=2, other=3))
    assert refused.value.code == "changes_nothing"
    after, _ = run(state, 0, PlayCard("node_shift.1", line="row", index=6, step=1))
    assert after.board[cell_of(31)] == C and after.board[cell_of(36)] == P  # wraps around
    after, _ = run(state, 0, PlayCard("node_swap.1", slot=36, other=2))
    assert after.board[cell_of(2)] == C and after.board[cell_of(36)] == P


def test_linear_sweep_grid_overcharge_and_hijack() -> None:
    # decisions card table: Linear Sweep, Grid Overcharge (top-left), Mainframe Hijack
    hands = [["linear_sweep.1", "grid_overcharge.1", "mainframe_hijack.1"], []]
    state = table(board=ALL_PINK, hands=hands, energy=20)
    after, _ = run(state, 0, PlayCard("linear_sweep.1", line="column", index=2))
    assert [s for s in range(1, 37) if after.board[cell_of(s)] == C] == [2, 8, 14, 20, 26, 32]
    after, _ = run(state, 0, PlayCard("grid_overcharge.1", slot=22))
    assert sum(1 for c in after.board if c == C) == 9 and after.board[cell_of(36)] == C
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("grid_overcharge.1", slot=23))
    assert refused.value.code == "bad_slot"
    after, _ = run(state, 0, PlayCard("mainframe_hijack.1", colour="pink", slot=1))
    assert sum(1 for c in after.board if c == C) == 11
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("mainframe_hijack.1", colour="cyan", slot=1))
    assert refused.value.code == "not_an_opponent"


def test_power_surge_and_overclock() -> None:
    # decisions card table: Power Surge gains 2, Overclock draws 2
    state = table(hands=[["power_surge.1", "overclock.1"], []], energy=1)
    state, _ = run(state, 0, PlayCard("power_surge.1"))
    assert state.players[0].energy == 3
    top = state.draw[:2]
    state, _ = run(state, 0, PlayCard("overclock.1"))
    assert state.players[0].hand == top and state.players[0].energy == 2


# --- turns ---------------------------------------------------------------------------------


def test_income_bonus_and_lock_removal() -> None:
    # decisions 6: +2, +1 with 10 tiles of your colour, your locks go
    board = grid("CCCCCC CCCCPP PPPPPP PPPPPP PPPPPP PPPPPP")
    state = table(board=board, hands=[["single_flip.1"], ["single_flip.2"]], energy=3)
    state, _ = run(state, 0, Lock(1))
    assert state.players[0].locks == (cell_of(1),)
    state, _ = run(state, 0, EndTurn())
    assert state.turn == 1 and state.players[1].energy == 3 + 3  # 26 Pink tiles: bonus
    state, events = run(state, 1, EndTurn())
    started = next(e for e in events if isinstance(e, TurnStarted))
    assert started.income == 3 and state.players[0].energy == 0 + 3
    assert state.players[0].locks == ()


def test_manual_flip_limit_and_cost() -> None:
    # rulebook 2.3 Action B, decisions 7: 2 Energy, twice a turn
    state = table(board=ALL_CYAN, energy=10)
    state, _ = run(state, 0, ManualFlip(1))
    state, _ = run(state, 0, ManualFlip(2))
    assert state.players[0].energy == 6
    with pytest.raises(Rejected) as refused:
        run(state, 0, ManualFlip(3))
    assert refused.value.code == "flip_limit"


def test_lock_rules() -> None:
    # rulebook 2.3 Action D: your colour, 3 Energy, at most 2 locks
    state = table(board=ALL_CYAN, energy=10)
    with pytest.raises(Rejected) as refused:
        run(state, 1, Lock(1))
    assert refused.value.code == "not_your_turn"
    state, _ = run(state, 0, Lock(1))
    state, _ = run(state, 0, Lock(2))
    with pytest.raises(Rejected) as refused:
        run(state, 0, Lock(3))
    assert refused.value.code == "lock_limit"
    with pytest.raises(Rejected) as refused:
        run(state, 0, ManualFlip(1))
    assert refused.value.code == "locked"
    other = table(board=ALL_PINK, energy=10)
    with pytest.raises(Rejected) as refused:
        run(other, 0, Lock(1))
    assert refused.value.code == "not_your_colour"


def test_market_buy_refills() -> None:
    # rulebook 2.3 Action C, decisions 7
    state = table()
    card, top = state.market[1], state.draw[0]
    state, _ = run(state, 0, BuyCard(card))
    assert card in state.players[0].hand and state.market[1] == top
    assert state.players[0].energy == 3


def test_system_drain_surcharge_stacks() -> None:
    # decisions card table: System Drain +1 per drain on the opponent's next turn
    hands = [["system_drain.1", "system_drain.2"], ["single_flip.1"]]
    state = table(board=ALL_CYAN, hands=hands, energy=[10, 0])
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("system_drain.1", target=0))
    assert refused.value.code == "not_an_opponent"
    state, _ = run(state, 0, PlayCard("system_drain.1", target=1))
    state, _ = run(state, 0, PlayCard("system_drain.2", target=1))
    assert state.players[1].drain_next == 2
    state, _ = run(state, 0, EndTurn())
    assert state.surcharge == 2 and state.players[1].energy == 2
    with pytest.raises(Rejected) as refused:
        run(state, 1, PlayCard("single_flip.1", slot=1))  # 1 + 2 > 2
    assert refused.value.code == "no_energy"
    state, _ = run(state, 1, EndTurn())
    assert state.surcharge == 0 and state.players[1].drain_next == 0


def test_drain_surcharge_applies_to_cards_and_flips() -> None:
    # decisions card table: each Protocol Card and Manual Flip costs 1 more per drain
    hands = [["system_drain.1"], ["single_flip.1"]]
    state = table(board=ALL_CYAN, hands=hands, energy=[10, 1])
    state, _ = run(state, 0, PlayCard("system_drain.1", target=1))
    state, _ = run(state, 0, EndTurn())
    assert state.surcharge == 1 and state.players[1].energy == 3
    legal = {e["type"]: e for e in GAME.legal(state, 1)}
    assert legal["manual_flip"]["cost"] == 3
    state, _ = run(state, 1, PlayCard("single_flip.1", slot=1))
    assert state.players[1].energy == 1
    state, _ = run(state, 1, StopCascade())
    with pytest.raises(Rejected) as refused:
        run(state, 1, ManualFlip(2))
    assert refused.value.code == "no_energy"


def test_drain_never_targets_a_teammate() -> None:
    # decisions 2: a teammate is never an opponent
    state = table(4, hands=[["system_drain.1"], [], [], []], teams=True)
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("system_drain.1", target=2))
    assert refused.value.code == "not_an_opponent"
    entry = next(e for e in GAME.legal(state, 0) if e.get("card") == "system_drain.1")
    assert entry["choose"] == {"target": [1, 3]}


def test_discard_down_to_six_then_draw() -> None:
    # rulebook 2.3 Phase 3, decisions 8: the player chooses the discards, then draws 1
    hand = [c for c in DECK if c.startswith(("single", "cross"))][:8]
    state = table(hands=[hand, []])
    top = state.draw[0]
    state, _ = run(state, 0, EndTurn())
    assert state.phase == "discard" and GAME.legal(state, 0)[0]["type"] == "discard"
    with pytest.raises(Rejected) as refused:
        run(state, 0, EndTurn())
    assert refused.value.code == "discard_first"
    state, _ = run(state, 0, Discard(hand[0]))
    assert state.phase == "discard"
    state, _ = run(state, 0, Discard(hand[1]))
    assert state.turn == 1 and state.players[0].hand == (*hand[2:], top)


# --- cascades ------------------------------------------------------------------------------


def test_cascade_is_offered_one_flip_at_a_time_and_stops_at_three() -> None:
    # decisions 4: adjacent to the last tile turned, at most 3, the player chooses
    state = table(board=ALL_PINK, energy=4)
    state, _ = run(state, 0, ManualFlip(1))
    offered = GAME.legal(state, 0)
    assert offered[0]["choose"] == {"slot": [2, 7]} and offered[1] == {"type": "stop_cascade"}
    with pytest.raises(Rejected) as refused:
        run(state, 0, EndTurn())
    assert refused.value.code == "cascade_pending"
    with pytest.raises(Rejected) as refused:
        run(state, 0, Cascade(8))
    assert refused.value.code == "bad_cascade"
    state, _ = run(state, 0, Cascade(2))
    assert GAME.legal(state, 0)[0]["choose"] == {"slot": [3, 8]}  # from 2, not from 1
    state, _ = run(state, 0, Cascade(3))
    state, events = run(state, 0, Cascade(4))
    assert state.pending is None and state.players[0].longest == 3
    assert [type(e) for e in events] == [CascadeFlipped]


def test_cascade_stop_records_the_chain() -> None:
    # decisions 4-5: the player may stop; the longest chain is recorded
    state = table(board=ALL_PINK, energy=4)
    state, _ = run(state, 0, ManualFlip(1))
    state, _ = run(state, 0, Cascade(7))
    state, _ = run(state, 0, StopCascade())
    assert state.pending is None and state.players[0].longest == 1
    with pytest.raises(Rejected) as refused:
        run(state, 0, StopCascade())
    assert refused.value.code == "no_cascade"


def test_chain_reactor_runs_to_six() -> None:
    # decisions card table: Chain Reactor's cascade may run to 6
    state = table(board=ALL_PINK, hands=[["chain_reactor.1"], []], energy=4)
    state, _ = run(state, 0, PlayCard("chain_reactor.1", slot=1))
    for slot in (3, 4, 5, 6, 12, 18):
        assert state.pending is not None
        state, _ = run(state, 0, Cascade(slot))
    assert state.pending is None and state.players[0].longest == 6


def test_cascade_surge_starts_from_your_tile() -> None:
    # decisions card table and 4: a surge starts a chain from the named tile
    board = list(ALL_PINK)
    board[cell_of(15)] = C
    state = table(board=board, hands=[["cascade_surge.1"], []])
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("cascade_surge.1", slot=1))
    assert refused.value.code == "not_your_colour"
    state, _ = run(state, 0, PlayCard("cascade_surge.1", slot=15))
    assert GAME.legal(state, 0)[0]["choose"] == {"slot": [9, 14, 16, 21]}


def test_cascade_only_flips_the_other_face_of_your_spectrum() -> None:
    # decisions 1, 4: Cyan cascades into Pink only, never into Green or Yellow
    board = grid("PGGGGG YGGGGG GGGGGG GGGGGG GGGGGG GGGGGG")
    state = table(3, board=board, energy=4)
    state, _ = run(state, 0, ManualFlip(1))
    assert state.board[0] == C and state.pending is None


# --- rounds, checkpoints and the end ----------------------------------------------------------


def test_round_ends_when_a_draw_finds_the_pile_empty() -> None:
    # decisions 11: checkpoint at the end of that turn, reshuffle, owed draws made in order
    state = table(board=ALL_CYAN)
    state = attrs.evolve(state, draw=(), discard=tuple(DECK[40:50]))
    market_card = state.market[0]
    state, _ = run(state, 0, BuyCard(market_card))
    assert state.round_over and state.market[0] == "" and state.owed == (("market", 0),)
    state, events = run(state, 0, EndTurn())
    checkpoint = next(e for e in events if isinstance(e, Checkpoint))
    assert checkpoint.gains == (36, 0) and state.players[0].vp == 36
    assert state.market[0] != "" and len(state.players[0].hand) == 6
    assert len(state.draw) == 10 - 2 and state.checkpoints == 1 and not state.round_over


def test_game_ends_at_the_last_checkpoint_with_the_final_tally() -> None:
    # decisions 12-13: the rounds option, circuits, objective, surplus
    state = table(board=ALL_CYAN, energy=[7, 0], rounds=1)
    state = attrs.evolve(state, draw=(), discard=tuple(DECK[40:50]))
    state, events = run(state, 0, EndTurn())
    assert isinstance(events[-1], GameEnded) and events[-1].reason == "rounds"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == (1, 2)
    tally = outcome.details["tallies"][0]
    assert tally["circuits"] == 12 * 3 and tally["surplus"] == 2
    assert tally["total"] == 36 + 36 + tally["objective_points"] + 2
    assert outcome.details["turns"] == 1
    with pytest.raises(Rejected) as refused:
        run(state, 1, EndTurn())
    assert refused.value.code == "game_over"
    assert "outcome" in GAME.view(state, None)


def test_fifty_vp_ends_the_game_at_a_checkpoint() -> None:
    # decisions 12: any checkpoint where a player has 50 VP or more
    state = table(board=ALL_CYAN, rounds=4)
    state = attrs.evolve(
        state,
        draw=(),
        discard=tuple(DECK[40:50]),
        players=(attrs.evolve(state.players[0], vp=20), state.players[1]),
    )
    state, events = run(state, 0, EndTurn())
    assert events[-1] == GameEnded("fifty")


# --- Neon Overdrive ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options", "faces"),
    [
        (2, {}, {C: 18, P: 18}),
        (2, {"obstacles": True}, {C: 12, P: 12, G: 6, Y: 6}),
        (3, {}, {C: 9, P: 9, G: 9, Y: 9}),
        (4, {}, {C: 9, P: 9, G: 9, Y: 9}),
        (4, {"teams": True}, {C: 9, P: 9, G: 9, Y: 9}),
    ],
)
def test_overdrive_deal_is_balanced(seats: int, options: dict, faces: dict) -> None:
    # decisions 14 (revised), "The deal is balanced, in Overdrive only": each spectrum's tiles
    # split evenly between its two faces; places and faces otherwise shuffled from the seed
    for seed in range(20):
        state = start(seats, seed, mode="overdrive", **options)
        assert {c: state.board.count(c) for c in faces} == faces
    assert (
        start(seats, 1, mode="overdrive", **options).board
        != start(seats, 2, mode="overdrive", **options).board
    )


def test_classic_keeps_random_faces() -> None:
    # decisions 14 (revised): "Classic keeps decision 3's random faces"
    cyan = {start(2, seed).board.count(C) for seed in range(20)}
    assert len(cyan) > 1 and cyan != {18}


def test_overdrive_threshold_per_table() -> None:
    # decisions 14 (revised): two thirds of the tiles a side's colours can ever show
    from engine.neon_flip.state import threshold

    assert threshold(start(2, mode="overdrive")) == 24
    assert threshold(start(2, mode="overdrive", obstacles=True)) == 16
    assert threshold(start(3, mode="overdrive")) == 12
    assert threshold(start(4, mode="overdrive")) == 12
    assert threshold(start(4, mode="overdrive", teams=True)) == 24


def test_overdrive_threshold_reached_by_an_action_does_not_end_the_game() -> None:
    # decisions 14 (revised): "Control" means holding it through the rivals' replies; the
    # first reading's end after any action is gone
    board = grid("CCCCCC CCCCCC CCCCCC CCCPPP PPPPPP PPPPPP")  # 21 Cyan
    state = table(board=board, mode="overdrive")
    state, _ = run(state, 0, ManualFlip(22))
    state, _ = run(state, 0, Cascade(23))
    state, _ = run(state, 0, Cascade(24))  # 24 Cyan: the threshold
    state, events = run(state, 0, StopCascade())  # the whole action is over
    assert state.pending is None and state.phase == "main"
    assert not any(isinstance(e, GameEnded | DominanceCounted) for e in events)
    state, events = run(state, 0, EndTurn())
    # the check is made for the player about to move (Pink), who does not show it
    assert isinstance(events[-1], TurnStarted) and events[-1].seat == 1
    assert state.phase == "main" and state.turn == 1


def test_overdrive_ends_when_the_threshold_is_held_through_the_reply() -> None:
    # decisions 14 (revised): checked at the start of every turn, before Phase 1, for the
    # player about to move; the end adds a Grid Dominance count to the final tally
    board = grid("CCCCCC CCCCCC CCCCCC CCCCCC PPPPPP PPPPPP")  # 24 Cyan
    state = table(board=board, mode="overdrive", turn=1)
    energy = state.players[0].energy
    state, events = run(state, 1, EndTurn())  # Pink's reply changes nothing
    assert isinstance(events[-2], DominanceCounted) and events[-1] == GameEnded("overdrive")
    assert events[-2].gains == (24, 12)
    assert not any(isinstance(e, TurnStarted) for e in events)  # before Phase 1: no income
    assert state.players[0].energy == energy and state.players[0].vp == 24
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "overdrive" and outcome.ranks == (1, 2)


def test_overdrive_threshold_lost_in_the_reply_plays_on() -> None:
    # decisions 14 (revised): a player must keep the threshold through a turn of every other
    board = grid("CCCCCC CCCCCC CCCCCC CCCCCC PPPPPP PPPPPP")  # 24 Cyan
    state = table(board=board, mode="overdrive", turn=1, energy=6)
    state, _ = run(state, 1, ManualFlip(1))  # Pink takes a corner: 23 Cyan
    state, _ = run(state, 1, StopCascade())
    state, events = run(state, 1, EndTurn())
    assert isinstance(events[-1], TurnStarted) and events[-1].seat == 0
    assert state.phase == "main"


def test_overdrive_threshold_must_survive_every_rival() -> None:
    # decisions 14 (revised): with 3 players the check waits for the threshold-holder's own
    # turn, so both rivals reply first; a rival at its turn is checked for itself only
    board = grid("CCCCCC CCCCCC PPPPPP PPPPPP GGGGGG GGGGGG")  # 12 of each, 12 = threshold
    state = table(3, board=board, mode="overdrive", turn=0)
    state, events = run(state, 0, EndTurn())
    # Pink is about to move and shows 12: Pink held it through Green's and Cyan's turns
    assert events[-1] == GameEnded("overdrive")


def test_overdrive_teams_are_checked_as_a_team() -> None:
    # decisions 14 (revised): with teams, for the mover's team; 24 of 36 for a team
    board = grid("CCCCCC CCCCCC CCCCCC GGGGGG GGGGGG PPPPPP")  # Cyan 18 + Green 12
    state = table(4, board=board, mode="overdrive", teams=True, turn=1)
    state, events = run(state, 1, EndTurn())  # Pink ends; Green (Cyan's team) is to move
    assert events[-1] == GameEnded("overdrive")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == (1, 2, 1, 2)


def test_overdrive_end_is_ranked_by_the_tally() -> None:
    # decisions 14 (revised): "controlling the board is how the game ends, not a separate
    # win": the game is ranked by the final tally (rulebook 2.6)
    board = grid("CCCCCC CCCCCC CCCCCC CCCCCC PPPPPP PPPPPP")
    state = table(board=board, mode="overdrive", turn=1)
    state = attrs.evolve(state, players=(state.players[0], attrs.evolve(state.players[1], vp=60)))
    state, events = run(state, 1, EndTurn())
    assert events[-1] == GameEnded("overdrive")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == (2, 1)


def test_overdrive_clock_ends_the_game_after_the_turn() -> None:
    # decisions 14: the clock runs out, the game ends after the current turn
    state = start(2, mode="overdrive", clock=1)
    state, _ = run(state, 0, ChooseObjective(state.players[0].offers[0]), now=5.0)
    state, _ = run(state, 1, ChooseObjective(state.players[1].offers[0]), now=5.0)
    assert GAME.deadline(state) == 65.0
    assert GAME.tick(state, 64.0, random.Random(0)) == []
    events = GAME.tick(state, 65.0, random.Random(0))
    for event in events:
        state = GAME.evolve(state, event)
    assert state.clock_out and GAME.deadline(state) is None and state.phase == "main"
    state, events = run(state, state.turn, EndTurn(), now=70.0)
    assert isinstance(events[-2], DominanceCounted) and events[-1] == GameEnded("clock")


# --- Cyber-Solitaire -------------------------------------------------------------------------


def test_proto_zero_sets_tiles_to_pink_and_overcharges() -> None:
    # decisions 16: set (not toggle), +1 Energy, at 4 the block with most Cyan
    state = table(1, board=grid("CCCPPP " * 6), mode="solo")
    state = attrs.evolve(state, ai_deck=("ai01", *state.ai_deck[1:]), ai_energy=3)
    card_cells = {cell_of(s) for s in (15, 9, 21, 14, 16)}  # ai01: cross on 15
    state, events = run(state, 0, EndTurn())
    played = next(e for e in events if isinstance(e, AiCardPlayed))
    assert played.energy == 1 and set(played.slots) == {9, 14, 15, 21}  # 16 was Pink already
    over = next(e for e in events if isinstance(e, AiOvercharged))
    assert over.block == 19  # rows 4-6, columns 1-3 hold the most Cyan left; lowest wins ties
    assert all(state.board[c] == P for c in card_cells)
    assert state.ai_energy == 0


def test_drained_proto_zero_gains_nothing() -> None:
    # decisions card table: in solo, PROTO-ZERO gains no Energy from its next AI card
    state = table(1, board=grid("CCCPPP " * 6), hands=[["system_drain.1"]], mode="solo")
    state, _ = run(state, 0, PlayCard("system_drain.1", target=-1))
    state, events = run(state, 0, EndTurn())
    played = next(e for e in events if isinstance(e, AiCardPlayed))
    assert played.energy == 0 and state.ai_energy == 0


def test_solo_checkpoints_every_six_cards_and_loss_when_spent() -> None:
    # decisions 17-18: checkpoint after every 6th AI card; loss when the deck is spent
    state = table(1, board=grid("CCCCCP " * 6), mode="solo")
    state = attrs.evolve(state, ai_deck=state.ai_deck[-1:], ai_played=state.ai_deck[:23])
    state, events = run(state, 0, EndTurn())
    assert any(isinstance(e, Checkpoint) for e in events)
    assert events[-1] == GameEnded("ai_deck_spent")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == (2,)
    assert outcome.details["winner"] == "proto_zero"


def test_solo_win_by_wiping_pink() -> None:
    # rulebook 2.5.3, decisions 18: no Pink tile left wins at once
    board = list(ALL_CYAN)
    board[cell_of(36)] = P
    state = table(1, board=board, mode="solo")
    state, events = run(state, 0, ManualFlip(36))
    assert events[-1] == GameEnded("wiped")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == (1,)


def _solo_with_top(board: tuple[int, ...], card: str, level: str, **changes: object):
    state = table(1, board=board, mode="solo", proto_zero=level)
    rest = tuple(c for c in state.ai_deck if c != card)
    return attrs.evolve(state, ai_deck=(card, *rest), **changes)


def test_proto_zero_level_is_a_solo_option() -> None:
    # decisions 16a: `proto_zero` is an option of solo rooms, refused with bad_option elsewhere
    from engine.core import validate_options, validate_seats

    for mode in ("classic", "overdrive"):
        options = validate_options(GAME, {"mode": mode, "proto_zero": "overclocked"})
        with pytest.raises(Rejected) as refused:
            validate_seats(GAME, options, [{}, {}])
        assert refused.value.code == "bad_option"
        with pytest.raises(Rejected):
            start(2, mode=mode, proto_zero="overclocked")
    options = validate_options(GAME, {"mode": "solo", "proto_zero": "overclocked"})
    validate_seats(GAME, options, [{}])
    assert start(1, mode="solo").proto_zero == "standard"  # decisions 16a: the default
    assert start(1, mode="solo", proto_zero="overclocked").proto_zero == "overclocked"
    with pytest.raises(Rejected):
        validate_options(GAME, {"mode": "solo", "proto_zero": "turbo"})


def test_standard_proto_zero_never_cascades() -> None:
    # decisions 16: "At this level, `standard`, PROTO-ZERO never cascades"
    state = _solo_with_top(grid("CCCPPP " * 6), "ai01", "standard")
    state, events = run(state, 0, EndTurn())
    assert not any(isinstance(e, AiCascaded) for e in events)


def test_overclocked_proto_zero_cascades_after_its_card() -> None:
    # decisions 16a: a chain of up to 3, each an unlocked Cyan tile next to the last tile it
    # turned Pink (the first next to any tile the card changed); among longest chains, the one
    # whose slots in order are lowest
    state = _solo_with_top(grid("CCCPPP " * 6), "ai01", "overclocked")  # ai01: cross on 15
    state, events = run(state, 0, EndTurn())
    played = next(e for e in events if isinstance(e, AiCardPlayed))
    assert set(played.slots) == {9, 14, 15, 21}
    cascade = next(e for e in events if isinstance(e, AiCascaded))
    assert cascade.slots == (3, 2, 1)  # from 9: 3, then 2, then 1
    assert all(state.board[cell_of(s)] == P for s in (1, 2, 3))


def test_overclocked_proto_zero_takes_a_longest_chain() -> None:
    # decisions 16a: "Of all chains it could make it takes a longest one (each flip removes
    # one Cyan tile)": 3 from slot 9 leads nowhere, 10 -> 11 -> 12 is longer
    board = [P] * 36
    for slot in (9, 3, 10, 11, 12):
        board[cell_of(slot)] = C
    state = _solo_with_top(tuple(board), "ai01", "overclocked")
    state, events = run(state, 0, EndTurn())
    assert next(e for e in events if isinstance(e, AiCardPlayed)).slots == (9,)
    assert next(e for e in events if isinstance(e, AiCascaded)).slots == (10, 11, 12)


def test_overclocked_proto_zero_skips_locked_tiles() -> None:
    # decisions 16a: each flip turns an *unlocked* Cyan tile (rulebook 2.7)
    board = [P] * 36
    for slot in (9, 3, 10, 11, 12):
        board[cell_of(slot)] = C
    state = _solo_with_top(tuple(board), "ai01", "overclocked")
    state = attrs.evolve(state, players=(attrs.evolve(state.players[0], locks=(cell_of(11),)),))
    state, events = run(state, 0, EndTurn())
    assert next(e for e in events if isinstance(e, AiCascaded)).slots == (3,)


def test_overclocked_order_card_cascade_energy_overcharge_cascade_checkpoint() -> None:
    # decisions 16a: the AI card's pattern, its cascade, the Energy gain, the overcharge if
    # Energy reached 4, that overcharge's cascade, then the checkpoint of decisions 17
    state = _solo_with_top(grid("CCCPPP " * 6), "ai01", "overclocked", ai_energy=3)
    state = attrs.evolve(state, ai_played=state.ai_deck[-5:], ai_deck=state.ai_deck[:-5])
    state, events = run(state, 0, EndTurn())
    kinds = [type(e) for e in events if isinstance(e, AiCardPlayed | AiCascaded | AiOvercharged)]
    assert kinds == [AiCardPlayed, AiCascaded, AiOvercharged, AiCascaded]
    checkpoint = next(e for e in events if isinstance(e, Checkpoint))
    assert events.index(checkpoint) > max(
        i for i, e in enumerate(events) if isinstance(e, AiCascaded)
    )
    assert checkpoint.gains == (sum(1 for c in state.board if c == C),)
    assert state.ai_energy == 0


# --- more rules ----------------------------------------------------------------------------


def test_green_cascades_into_the_neutral_yellow_face() -> None:
    # decisions 4: the other face of the player's spectrum, neutral where it is no one's
    board = grid("YCCCCC YCCCCC CCCCCC CCCCCC CCCCCC CCCCCC")
    state = table(3, board=board, energy=4, turn=2)
    state, _ = run(state, 2, ManualFlip(1))
    assert state.board[0] == G
    assert GAME.legal(state, 2)[0]["choose"] == {"slot": [7]}


def test_hijack_offers_only_opponent_colours() -> None:
    # decisions 2: in teams Mainframe Hijack never names a teammate's colour
    state = table(4, hands=[["mainframe_hijack.1"], [], [], []], energy=5, teams=True)
    colours = {e["colour"] for e in GAME.legal(state, 0) if e.get("card") == "mainframe_hijack.1"}
    assert colours <= {"pink", "yellow"} and colours
    with pytest.raises(Rejected) as refused:
        run(state, 0, PlayCard("mainframe_hijack.1", colour="green", slot=15))
    assert refused.value.code == "not_an_opponent"


def test_overclock_on_an_empty_pile_owes_the_draws() -> None:
    # decisions 11: Overclock is one of the draws that end a round on an empty pile
    state = table(hands=[["overclock.1"], []])
    state = attrs.evolve(state, draw=(), discard=tuple(DECK[44:52]))
    state, _ = run(state, 0, PlayCard("overclock.1"))
    assert state.round_over and state.owed == (("hand", 0), ("hand", 0))
    state, events = run(state, 0, EndTurn())
    assert any(isinstance(e, Checkpoint) for e in events)
    assert len(state.players[0].hand) == 3  # two owed draws and the end-of-turn draw
    assert state.turn == 1


def test_every_seat_chooses_its_objective_at_once() -> None:
    # rulebook 2.1: objectives are kept before play, by every player, in any order
    state = start(3)
    assert all(GAME.legal(state, seat)[0]["type"] == "choose_objective" for seat in range(3))
    state, _ = run(state, 2, ChooseObjective(state.players[2].offers[1]))
    assert GAME.legal(state, 2) == [] and state.phase == "objectives"
    with pytest.raises(Rejected) as refused:
        run(state, 2, ChooseObjective(state.players[2].objective))
    assert refused.value.code == "already_chosen"


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
