"""Neon Hex rules, clause by clause (neon-hex.rulebook.txt headings, neon-hex.decisions.md
numbers)."""

from __future__ import annotations

import random

import attrs
import pytest

from engine.core import Rejected, SeatSpec, chance, expand_legal
from engine.match import Match
from engine.neon_hex.board import HEXES, INDEX, NEIGHBOURS, SIZE, corner_hex
from engine.neon_hex.messages import (
    EndTurn,
    Expand,
    Expanded,
    GameEnded,
    RiskRolled,
    TurnEnded,
    TurnStarted,
)
from engine.neon_hex.state import Faction, State, income
from engine.registry import get_game

GAME = get_game("neon_hex")


N = -1


class Dice(random.Random):
    """A generator whose two-dice rolls are fixed."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def table(
    owned: dict[int, list[int]], energy: list[int], current: int = 0, **extra: object
) -> State:
    """A state with the given hexes owned by each seat and Energy per seat."""
    owners = [N] * SIZE
    for seat, hexes in owned.items():
        for h in hexes:
            owners[h] = seat
    factions = tuple(
        Faction(name=f"p{s}", role="builder", colour="cyan", corner=s, energy=e)
        for s, e in enumerate(energy)
    )
    return State(factions=factions, owners=tuple(owners), current=current, **extra)  # type: ignore[arg-type]


def hx(q: int, r: int) -> int:
    return INDEX[(q, r)]


def run(state: State, seat: int, command: object, rng: random.Random | None = None) -> State:
    events = GAME.decide(state, seat, command, 0.0, rng or random.Random(0))  # type: ignore[arg-type]
    for event in events:
        state = GAME.evolve(state, event)
    return state


def start(players: int, seed: bytes = b"neon", **choices: dict[str, str]) -> State:
    seats = [SeatSpec(name=f"p{n}", choices=choices.get(f"s{n}", {})) for n in range(players)]
    return Match.start(GAME, seats, seed).state


# --- the board -------------------------------------------------------------------------------


# --- setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "corners"),
    [(2, {0, 3}), (3, {0, 2, 4}), (4, {0, 1, 3, 4}), (5, {0, 1, 2, 3, 4})],
)
def test_factions_start_on_their_corners(players: int, corners: set[int]) -> None:
    # decisions 3: the corners used for each number of factions; one hex each
    state = start(players)
    assert {f.corner for f in state.factions} == corners
    for seat, faction in enumerate(state.factions):
        assert state.owners[corner_hex(faction.corner)] == seat
        assert state.hexes(seat) == 1


def test_corner_assignment_is_shuffled_from_the_seed() -> None:
    # decisions 3: which seat gets which corner is shuffled from the room seed
    layouts = {tuple(f.corner for f in start(5, bytes([n])).factions) for n in range(12)}
    assert len(layouts) > 1
    assert start(5, b"same").factions == start(5, b"same").factions


def test_start_energy_and_first_turn_income() -> None:
    # decisions 3 and 4: 3 Energy each; seat 0 moves first and its first income is paid
    state = start(3)
    assert state.current == 0 and state.turn == 1
    assert [f.energy for f in state.factions] == [4, 3, 3]


def test_roles_and_colours_are_per_seat_choices() -> None:
    # rulebook "Roles, Factions, and Difficulty"; decisions 1: roles only identify a faction
    state = start(2, s0={"role": "diplomat", "colour": "amber"})
    assert (state.factions[0].role, state.factions[0].colour) == ("diplomat", "amber")
    assert (state.factions[1].role, state.factions[1].colour) == ("technologist", "magenta")
    with pytest.raises(Rejected) as refused:
        start(2, s0={"role": "wizard"})
    assert refused.value.code == "bad_option"


def test_two_to_five_factions() -> None:
    # decisions 1
    assert GAME.seat_counts({}) == range(2, 6)


# --- income and turns ------------------------------------------------------------------------


def test_end_turn_pays_the_next_faction_and_energy_carries_over() -> None:
    # decisions 4: income at the start of each turn; no cap, unspent Energy carries over
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0), hx(-2, 0), hx(-3, 1), hx(-2, 1)]}, [2, 5])
    events = GAME.decide(state, 0, EndTurn(), 0.0, random.Random(0))
    assert events == [TurnEnded(0, "ended"), TurnStarted(1, 2, 2)]
    after = run(state, 0, EndTurn())
    assert after.current == 1 and [f.energy for f in after.factions] == [2, 7]


def test_faction_without_neutral_neighbours_is_skipped() -> None:
    # decisions 5: the server ends the turn of a faction with no possible expansion
    corner = hx(-3, 0)
    walls = NEIGHBOURS[corner]
    state = table({0: [hx(3, 0), *walls], 1: [corner], 2: [hx(0, -3)]}, [1, 3, 3])
    events = GAME.decide(state, 0, EndTurn(), 0.0, random.Random(0))
    assert events == [
        TurnEnded(0, "ended"),
        TurnStarted(1, 2, 1),
        TurnEnded(1, "no_expansion"),
        TurnStarted(2, 3, 1),
    ]


def test_turn_ends_by_itself_when_an_expansion_leaves_no_target() -> None:
    # decisions 5: after its last possible expansion the faction's turn ends by itself
    corner = hx(3, -3)
    free = NEIGHBOURS[corner][0]
    others = [n for n in NEIGHBOURS[corner] if n != free] + [
        n for n in NEIGHBOURS[free] if n != corner
    ]
    state = table({0: [corner], 1: [*others, hx(-3, 0)]}, [3, 0])
    events = GAME.decide(state, 0, Expand(free), 0.0, random.Random(0))
    assert events[:2] == [Expanded(0, free, 1), TurnEnded(0, "no_expansion")]
    assert events[2] == TurnStarted(1, 2, income(len(others) + 1))


def test_only_the_current_faction_acts() -> None:
    # decisions 3: seats move in order
    state = start(2)
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 1, EndTurn(), 0.0, random.Random(0))
    assert refused.value.code == "not_your_turn"


# --- expansions ------------------------------------------------------------------------------


def test_safe_expansion_costs_one_and_claims_the_target() -> None:
    # rulebook "Safe Expansion"
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [4, 3])
    after = run(state, 0, Expand(hx(2, 0)))
    assert after.owners[hx(2, 0)] == 0 and after.factions[0].energy == 3
    assert after.claimed and after.current == 0


def test_any_number_of_expansions_while_energy_lasts() -> None:
    # decisions 5
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [3, 3])
    for target in (hx(2, 0), hx(1, 0), hx(0, 0)):
        state = run(state, 0, Expand(target))
    assert state.hexes(0) == 4 and state.factions[0].energy == 0 and state.current == 0
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 0, Expand(hx(-1, 0)), 0.0, random.Random(0))
    assert refused.value.code == "not_enough_energy"


def test_risk_success_claims_target_and_two_bonus_hexes_and_refunds() -> None:
    # rulebook "2d6 Risk Expansion"; decisions 6: unnamed bonus hexes in direction order
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [4, 3])
    target = hx(1, 0)
    state = run(state, 0, Expand(hx(2, 0)))
    events = GAME.decide(state, 0, Expand(target, "risk"), 0.0, Dice(4, 5))
    expected = [n for n in NEIGHBOURS[target] if state.owners[n] == N][:2]
    assert events == [RiskRolled(0, target, (4, 5), True, (target, *expected), 2, 1)]
    after = GAME.evolve(state, events[0])
    assert after.factions[0].energy == 2 and after.hexes(0) == 5
    assert after.last_roll == (0, target, 4, 5, 1)


def test_risk_bonus_may_be_named() -> None:
    # decisions 6: the command may name the bonus hexes
    state = table({0: [hx(0, 0)], 1: [hx(-3, 0)]}, [2, 3])
    target = hx(1, 0)
    named = (hx(1, 1), hx(2, -1))
    (event,) = GAME.decide(state, 0, Expand(target, "risk", named), 0.0, Dice(6, 6))
    assert isinstance(event, RiskRolled) and event.claimed == (target, *named)
    one = (hx(1, 1),)
    (event,) = GAME.decide(state, 0, Expand(target, "risk", one), 0.0, Dice(3, 6))
    assert isinstance(event, RiskRolled)
    assert event.claimed == (target, hx(1, 1), hx(2, 0))  # the rest in direction order


def test_risk_bonus_is_limited_to_available_neutral_hexes() -> None:
    # rulebook "2d6 Risk Expansion": up to two available neutral hexes
    corner = hx(3, -3)
    target = NEIGHBOURS[corner][0]
    blocked = [n for n in NEIGHBOURS[target] if n != corner][1:]
    state = table({0: [corner], 1: [*blocked, hx(-3, 0)]}, [2, 0])
    (event, *_) = GAME.decide(state, 0, Expand(target, "risk"), 0.0, Dice(5, 5))
    assert isinstance(event, RiskRolled) and len(event.claimed) == 2


def test_risk_failure_spends_two_and_claims_nothing() -> None:
    # rulebook "2d6 Risk Expansion": on failure the 2 Energy is spent
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [4, 3])
    events = GAME.decide(state, 0, Expand(hx(2, 0), "risk"), 0.0, Dice(6, 2))
    assert events == [RiskRolled(0, hx(2, 0), (6, 2), False, (), 2, 0)]
    after = GAME.evolve(state, events[0])
    assert after.factions[0].energy == 2 and after.hexes(0) == 1 and not after.claimed


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (Expand(hx(-3, 0)), "not_neutral"),
        (Expand(hx(0, 0)), "not_adjacent"),
        (Expand(99), "bad_hex"),
        (Expand(hx(2, 0), "sneaky"), "bad_kind"),
        (Expand(hx(2, 0), source=hx(-3, 0)), "not_your_hex"),
        (Expand(hx(2, -1), source=hx(3, 0)), "not_adjacent"),
        (Expand(hx(2, 0), "safe", (hx(1, 0),)), "bad_bonus"),
        (Expand(hx(2, 0), "risk", (hx(0, 0),)), "bad_bonus"),
        (Expand(hx(2, 0), "risk", (hx(1, 0), hx(1, 0))), "bad_bonus"),
    ],
)
def test_refused_expansions(command: Expand, code: str) -> None:
    # decisions 6: a neutral target beside the faction's territory, a source it owns,
    # bonus hexes neutral and beside the target
    state = table({0: [hx(3, 0), hx(3, -1)], 1: [hx(-3, 0)]}, [4, 3])
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 0, command, 0.0, random.Random(0))
    assert refused.value.code == code and refused.value.rule is not None
    assert refused.value.rule.startswith("decisions ") and "decisions" not in refused.value.message


def test_risk_needs_two_energy() -> None:
    # rulebook "2d6 Risk Expansion": it costs 2 Energy
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [1, 3])
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 0, Expand(hx(2, 0), "risk"), 0.0, random.Random(0))
    assert refused.value.code == "not_enough_energy"


# --- winning ---------------------------------------------------------------------------------


def eleven() -> list[int]:
    return [h for h in range(SIZE) if HEXES[h][0] >= 1][:11]


def test_twelve_hexes_win_at_once_mid_turn() -> None:
    # rulebook "Victory condition"; decisions 7: even in the middle of a turn
    mine = eleven()
    state = table({0: mine, 1: [hx(-3, 0)]}, [3, 3])
    target = next(h for h in range(SIZE) if state.owners[h] == N and HEXES[h][0] == 0)
    events = GAME.decide(state, 0, Expand(target), 0.0, random.Random(0))
    assert events[-1] == GameEnded("twelve_hexes")
    after = run(state, 0, Expand(target))
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.ranks == (1, 2) and outcome.winners == (0,)
    assert outcome.scores == (12.0, 1.0)


def test_risk_bonus_can_win() -> None:
    # decisions 7: a Risk bonus may carry a faction to 12
    mine = eleven()[:9]
    state = table({0: mine, 1: [hx(-3, 0)]}, [2, 3])
    target = next(
        h
        for h in range(SIZE)
        if state.owners[h] == N
        and any(state.owners[n] == 0 for n in NEIGHBOURS[h])
        and sum(1 for n in NEIGHBOURS[h] if state.owners[n] == N) >= 2
    )
    events = GAME.decide(state, 0, Expand(target, "risk"), 0.0, Dice(5, 4))
    assert events[-1] == GameEnded("twelve_hexes")


def test_full_board_goes_to_the_largest_territory() -> None:
    # decisions 7: if every hex is claimed first, the largest territory wins
    owners = [0] * 10 + [1] * 9 + [2] * 9 + [N] + [2] * 8
    last = owners.index(N)
    ones = [h for h in range(SIZE) if owners[h] == 1]
    owners = [1 if h == last else o for h, o in enumerate(owners)]
    owners[ones[0]] = N
    state = table({}, [0, 3, 0], current=1)
    state = attrs.evolve(state, owners=tuple(owners))
    assert any(state.owners[n] == 1 for n in NEIGHBOURS[ones[0]])
    after = run(state, 1, Expand(ones[0]))
    assert after.ended == "board_full"
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert outcome.scores == (10.0, 10.0, 17.0) and outcome.ranks == (2, 2, 1)


def test_equal_leaders_draw() -> None:
    # rulebook "How to Play": equal leaders produce a draw
    owners = tuple([0] * 18 + [1] * 18 + [N])
    state = attrs.evolve(table({}, [0, 0]), owners=owners, ended="board_full")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == (1, 1) and outcome.winners == (0, 1)


def test_a_quiet_round_ends_the_game() -> None:
    # decisions 7: a full round of turns in which no faction claims a hex ends the game
    state = table({0: [hx(3, 0), hx(2, 0)], 1: [hx(-3, 0)]}, [3, 3])
    state = run(state, 0, EndTurn())
    assert state.ended is None and state.quiet == 1
    events = GAME.decide(state, 1, EndTurn(), 0.0, random.Random(0))
    assert events == [TurnEnded(1, "ended"), GameEnded("stalled")]
    after = run(state, 1, EndTurn())
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.reason == "stalled" and outcome.ranks == (1, 2)


def test_a_failed_risk_is_not_a_claim() -> None:
    # decisions 7: only claiming a hex breaks a quiet round
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [3, 3], quiet=1)
    state = run(state, 0, Expand(hx(2, 0), "risk"), Dice(1, 1))
    assert state.ended is None
    assert run(state, 0, EndTurn()).ended == "stalled"


def test_a_claim_resets_the_quiet_count() -> None:
    # decisions 7
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [3, 3], quiet=1)
    state = run(run(state, 0, Expand(hx(2, 0))), 0, EndTurn())
    assert state.quiet == 0 and state.ended is None


def test_finished_game_refuses_everything() -> None:
    # decisions 7: the game is over
    state = attrs.evolve(table({0: [0], 1: [36]}, [3, 3]), ended="stalled")
    assert GAME.legal(state, 0) == []
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 0, EndTurn(), 0.0, random.Random(0))
    assert refused.value.code == "game_over"
    assert "outcome" in GAME.view(state, None)


# --- offers and views ------------------------------------------------------------------------


def test_legal_lists_every_expansion_with_odds_and_bonus_choices() -> None:
    # decisions 6: targets, kinds and Risk bonus choices; odds 10/36 as client information
    state = table({0: [hx(0, 0)], 1: [hx(-3, 0)]}, [2, 3])
    entries = GAME.legal(state, 0)
    assert entries[-1] == {"type": "end_turn"}
    safe = [e for e in entries if e.get("kind") == "safe"]
    risk = [e for e in entries if e.get("kind") == "risk"]
    assert sorted(e["target"] for e in safe) == sorted(NEIGHBOURS[hx(0, 0)])
    assert all(e["odds"] == [10, 36] for e in risk)
    east = next(e for e in risk if e["target"] == hx(1, 0))
    assert east["bonus_hexes"] == [n for n in NEIGHBOURS[hx(1, 0)] if n != hx(0, 0)]
    assert len(east["choose"]["bonus"]) == 10  # 5 neutral neighbours: choose 2 of 5
    commands = expand_legal(GAME, entries)
    assert len(commands) == 6 + 6 * 10 + 1
    assert GAME.legal(state, 1) == []


def test_legal_without_a_choice_offers_the_forced_bonus() -> None:
    # decisions 6: with two or fewer neutral neighbours the bonus takes them all
    corner = hx(3, -3)
    target = NEIGHBOURS[corner][0]
    blocked = [n for n in NEIGHBOURS[target] if n != corner][1:]
    blocked += [n for n in NEIGHBOURS[corner] if n != target]
    state = table({0: [corner], 1: [*blocked, hx(-3, 0)]}, [2, 0])
    (risk,) = [e for e in GAME.legal(state, 0) if e.get("kind") == "risk"]
    assert "choose" not in risk and len(risk["bonus_hexes"]) == 1
    assert expand_legal(GAME, [risk]) == [Expand(target, "risk")]


def test_legal_respects_energy() -> None:
    # decisions 6: Safe costs 1, Risk 2
    state = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [1, 3])
    kinds = {e.get("kind") for e in GAME.legal(state, 0)}
    assert kinds == {"safe", None}
    broke = table({0: [hx(3, 0)], 1: [hx(-3, 0)]}, [0, 3])
    assert GAME.legal(broke, 0) == [{"type": "end_turn"}]


def test_setup_draws_only_from_the_setup_generator() -> None:
    # docs/engine.md "The rules object": the first state is dealt from the seed
    seats = [SeatSpec("a"), SeatSpec("b"), SeatSpec("c")]
    one = GAME.setup({}, seats, chance(b"x", "setup"))
    two = GAME.setup({}, seats, chance(b"x", "setup"))
    assert one == two
