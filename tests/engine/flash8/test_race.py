"""Race mode, clause by clause (rulebook "Setup", "Game", "End of the game"; decisions 1-10)."""

from __future__ import annotations

import random

import attrs
import pytest

from engine.core import Rejected
from engine.flash8.board import FULL_SET, HANDICAP_SET, to_seat
from engine.flash8.cards import CARDS, card_pattern
from engine.flash8.messages import (
    CardTaken,
    ClaimLate,
    ClaimLine,
    ClaimMissed,
    CountdownStarted,
    Ended,
    Flash,
    Hint,
    HintGiven,
    LockoutEnded,
    Slid,
    Slide,
    Started,
)
from engine.flash8.solver import distance, next_slide
from engine.flash8.state import RaceState, side_of
from engine.registry import get_game
from tests.engine.flash8.helpers import START, act, apply, complete, new_state, race, with_tablet

GAME = get_game("flash8")


def _refused(state: RaceState, seat: int, command: object, now: float) -> str:
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, seat, command, now, random.Random(0))  # type: ignore[arg-type]
    assert refused.value.message
    return refused.value.code


def _top(state: RaceState, stack: int) -> int:
    return state.stacks[stack][0]


def _matching(state: RaceState, seat: int, stack: int) -> str:
    """A tablet for ``seat`` matching the top of ``stack`` and no other top."""
    pattern = state.pattern(_top(state, stack), seat)
    electrons = HANDICAP_SET if state.handicap[seat] else FULL_SET
    return complete(pattern, electrons)


# --- setup -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_one_stack_of_ten_per_player(players: int) -> None:
    # rulebook "Setup": as many stacks of 10 as players; decisions 4
    state = new_state(players)
    assert isinstance(state, RaceState)
    assert [len(pile) for pile in state.stacks] == [10] * players
    dealt = [card for pile in state.stacks for card in pile]
    assert len(set(dealt)) == 10 * players
    for tablet in state.tablets:
        assert sorted(tablet) == sorted(FULL_SET)


def test_seat_counts() -> None:
    # decisions 4-5: 2-4 racers; rulebook "Solo Mode": one player
    assert GAME.seat_counts({"mode": "race"}) == range(2, 5)
    assert GAME.seat_counts({"mode": "solo"}) == range(1, 2)


def test_handicap_is_a_per_seat_choice() -> None:
    # rulebook "Setup" (a slower player); decisions 1: one blue fewer, two free spaces
    state = new_state(3, handicap=(False, True, False))
    assert isinstance(state, RaceState)
    assert state.handicap == (False, True, False)
    assert sorted(state.tablets[1]) == sorted(HANDICAP_SET)
    assert sorted(state.tablets[0]) == sorted(FULL_SET)


def test_same_start_puts_everyone_equally_far_from_every_card() -> None:
    # decisions 6: one arrangement in the table's frame, turned to each seat (decisions 5)
    state = new_state(4, seed=5, same_start=True)
    assert isinstance(state, RaceState)
    table = state.tablets[0]
    for seat in range(4):
        assert state.tablets[seat] == to_seat(side_of(4, seat), table)
    for card in range(0, len(CARDS), 5):
        far = {distance(state.tablets[s], state.pattern(card, s)) for s in range(4)}
        assert len(far) == 1


def test_random_starts_differ() -> None:
    # decisions 6: each tablet arranged at random by the server
    state = new_state(4, seed=2)
    assert isinstance(state, RaceState)
    assert len(set(state.tablets)) > 1


# --- the start ---------------------------------------------------------------------------------


def test_countdown_then_start_through_deadline_and_tick() -> None:
    # decisions 6: a short countdown, then one start for everyone
    state = new_state(2)
    assert GAME.deadline(state) == 0.0
    assert GAME.legal(state, 0) == []
    events = GAME.tick(state, 0.0, random.Random(0))
    assert events == [CountdownStarted(0.0, 3.0)]
    state = apply(state, events)
    assert GAME.deadline(state) == 3.0
    assert GAME.tick(state, 2.0, random.Random(0)) == []
    assert isinstance(state, RaceState)
    assert _refused(state, 0, Flash(), 1.0) == "not_started"
    events = GAME.tick(state, 3.0, random.Random(0))
    assert events == [Started(3.0, None)]
    state = apply(state, events)
    assert GAME.legal(state, 0)
    assert GAME.deadline(state) is None  # no limit, no lockout


# --- slides ------------------------------------------------------------------------------------


def test_slide_moves_one_electron_into_the_free_space_and_is_stamped() -> None:
    # decisions 2 (slides), decisions 9 (the server stamps every accepted slide)
    state = with_tablet(race(), 0, "BBBYYRVG.")
    state, events = act(state, 0, Slide(7, 8), START + 1.25)
    assert events == [Slid(0, START + 1.25, 7, 8)]
    assert isinstance(state, RaceState)
    assert state.tablets[0] == "BBBYYRV.G"
    assert state.slides == (1, 0)
    assert GAME.view(state, None)["seats"][0]["slides"] == 1


def test_a_slide_changes_only_its_own_seats_legal_commands() -> None:
    # engine.core.ViewPatcher.legal_seats: the server asks no other seat again
    before = with_tablet(race(), 0, "BBBYYRVG.")
    after, events = act(before, 0, Slide(7, 8), START + 1.25)
    assert GAME.legal_seats(before, after, events) == (0,)
    assert GAME.legal(after, 0) != GAME.legal(before, 0)
    assert GAME.legal(after, 1) == GAME.legal(before, 1)
    assert GAME.legal_seats(before, after, [*events, *events]) is None


def test_bad_slides_are_refused() -> None:
    # decisions 2: only an electron, only into an adjacent free space
    state = with_tablet(race(), 0, "BBBYYRVG.")
    assert _refused(state, 0, Slide(0, 1), START) == "space_occupied"
    assert _refused(state, 0, Slide(8, 7), START) == "no_electron"
    assert _refused(state, 0, Slide(2, 8), START) == "not_adjacent"
    state = with_tablet(state, 0, "BBBY.YRVG")
    assert _refused(state, 0, Slide(0, 4), START) == "not_adjacent"
    assert _refused(state, 0, Slide(0, 9), START) == "bad_cell"
    assert _refused(state, 0, ClaimLine(0, "star"), START) == "wrong_mode"


def test_handicapped_tablet_may_slide_into_either_free_space() -> None:
    # decisions 1-2: two free spaces; a slide names its destination
    state = with_tablet(race(), 1, "BBYYRV.G.")
    options = {(e["src"], e["dst"]) for e in GAME.legal(state, 1) if e["type"] == "slide"}
    assert options == {(3, 6), (7, 6), (5, 8), (7, 8)}


# --- FLASH -------------------------------------------------------------------------------------


def test_flash_takes_the_matching_top_and_reveals_the_next_card() -> None:
    # rulebook "Game": FLASH, take the card, reveal the next; decisions 7, 9
    state = race(3, seed=4)
    state = with_tablet(state, 1, _matching(state, 1, 2))
    card, below = state.stacks[2][0], state.stacks[2][1]
    state, events = act(state, 1, Flash(), START + 4.5)
    (taken,) = events
    assert isinstance(taken, CardTaken)
    assert (taken.seat, taken.stack, taken.card) == (1, 2, CARDS[card].id)
    assert taken.points == CARDS[card].points
    assert taken.took == pytest.approx(4.5)
    assert isinstance(state, RaceState)
    assert state.stacks[2][0] == below
    assert state.revealed_at[2] == START + 4.5
    top = GAME.view(state, None)["stacks"][2]
    assert top["top"]["card"] == CARDS[below].id and top["size"] == 9


def test_flash_naming_a_stack_checks_only_that_stack() -> None:
    # decisions 7: the named stack's top card only
    state = race(2, seed=6)
    state = with_tablet(state, 0, _matching(state, 0, 1))
    assert not any(
        isinstance(e, CardTaken) for e in GAME.decide(state, 0, Flash(0), START, random.Random(0))
    )
    _state2, events = act(state, 0, Flash(1), START + 1)
    assert isinstance(events[0], CardTaken) and events[0].stack == 1
    assert _refused(state, 0, Flash(5), START) == "no_such_stack"
    empty = attrs.evolve(state, stacks=(state.stacks[0], ()))
    assert _refused(empty, 0, Flash(1), START) == "stack_empty"


def test_cards_are_reproduced_from_the_players_own_side() -> None:
    # rulebook "Game": "according to YOUR position"; decisions 5
    state = race(2, seed=7)
    card = _top(state, 0)
    south = complete(card_pattern(card, 0))
    north = complete(card_pattern(card, 2))
    assert north == complete(to_seat(2, CARDS[card].pattern))
    assert state.pattern(card, 1) == card_pattern(card, 2)  # seat 1 of 2 sits north
    wrong = with_tablet(state, 1, south)
    right = with_tablet(state, 1, north)
    if south != north:
        _, events = act(wrong, 1, Flash(0), START + 1)
        assert isinstance(events[0], ClaimMissed)
    _, events = act(right, 1, Flash(0), START + 1)
    assert isinstance(events[0], CardTaken)


def test_wrong_claim_is_accepted_and_locks_out() -> None:
    # decisions 7: a claim matching nothing locks its player out (room option, default 2 s)
    state = race(2, seed=8)
    far = next(
        t
        for t in ("BBBYYRVG.", "GVRYYBBB.", ".BBBYYRVG", "BYBYBRVG.")
        if not any(pile and distance(t, state.pattern(pile[0], 0)) == 0 for pile in state.stacks)
    )
    state = with_tablet(state, 0, far)
    state, events = act(state, 0, Flash(), START + 1)
    assert events == [ClaimMissed(0, START + 1, START + 3, stack=None)]
    assert isinstance(state, RaceState)
    assert GAME.legal(state, 0) == []
    assert GAME.legal(state, 1)
    assert _refused(state, 0, Slide(7, 8), START + 2.9) == "locked_out"
    assert _refused(state, 0, Flash(), START + 2) == "locked_out"
    assert GAME.deadline(state) == START + 3
    assert GAME.view(state, 1)["seats"][0]["locked_until"] == START + 3
    events = GAME.tick(state, START + 3, random.Random(0))
    assert events == [LockoutEnded(0, START + 3)]
    state = apply(state, events)
    assert GAME.legal(state, 0)
    act(state, 0, Slide(7, 8), START + 3.1)


def test_lockout_length_is_a_room_option() -> None:
    # decisions 7: "for 2 seconds (a room option)"
    state = race(2, seed=8, lockout=5)
    state = with_tablet(state, 0, "BBBYYRVG.")
    # the seed is chosen so that this tablet matches no top card
    assert not any(distance("BBBYYRVG.", state.pattern(p[0], 0)) == 0 for p in state.stacks)
    _, events = act(state, 0, Flash(), START)
    assert isinstance(events[0], ClaimMissed) and events[0].until == START + 5


def test_first_claim_wins_and_a_close_second_costs_no_lockout() -> None:
    # decisions 7: the first received wins; the other, within half a second, no lockout
    state = race(2, seed=9)
    pattern = state.pattern(_top(state, 0), 0)
    state = with_tablet(state, 0, complete(pattern))
    state = with_tablet(state, 1, complete(to_seat(2, CARDS[_top(state, 0)].pattern)))
    card = CARDS[_top(state, 0)].id
    state, events = act(state, 0, Flash(), START + 2.0)
    assert isinstance(events[0], CardTaken)
    late_state = state
    assert isinstance(late_state, RaceState)
    # the seed is chosen so that seat 1's tablet matches no card now showing
    assert not any(
        distance(late_state.tablets[1], late_state.pattern(p[0], 1)) == 0 for p in late_state.stacks
    )
    _, events = act(late_state, 1, Flash(), START + 2.3)
    assert events == [ClaimLate(1, START + 2.3, card, 0, pytest.approx(0.3))]
    _, events = act(late_state, 1, Flash(0), START + 2.5)
    assert isinstance(events[0], ClaimLate)
    _, events = act(late_state, 1, Flash(), START + 2.6)
    assert isinstance(events[0], ClaimMissed)


def test_each_take_records_time_slides_and_the_optimum() -> None:
    # decisions 9: reveal-to-claim time; the report: slides used against the optimum
    state = race(2, seed=10)
    pattern = state.pattern(_top(state, 0), 0)
    start = state.tablets[0]
    best = distance(start, pattern)
    now = START
    while (step := next_slide(state.tablets[0], pattern)) is not None:
        now += 0.5
        state, _ = act(state, 0, Slide(*step), now)
        assert isinstance(state, RaceState)
    state, events = act(state, 0, Flash(0), now + 0.5)
    taken = events[0]
    assert isinstance(taken, CardTaken)
    assert taken.slides == best and taken.optimal == best
    assert taken.took == pytest.approx(now + 0.5 - START)
    report = GAME.view(state, 0)["takes"][0]
    assert report["slides"] == best and report["optimal"] == best


# --- end and score -----------------------------------------------------------------------------


def test_race_ends_when_every_stack_is_empty() -> None:
    # rulebook "End of the game"; decisions 8
    state = race(2, seed=11)
    state = attrs.evolve(state, stacks=(state.stacks[0][:1], ()))
    state = with_tablet(state, 1, _matching(state, 1, 0))
    state, events = act(state, 1, Flash(), START + 9)
    assert isinstance(events[0], CardTaken)
    assert events[1] == Ended(START + 9, "stacks_empty")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "stacks_empty"
    assert GAME.deadline(state) is None and GAME.legal(state, 0) == []
    assert "outcome" in GAME.view(state, None)
    assert _refused(state, 0, Slide(0, 1), START + 10) == "game_over"


def test_time_limit_ends_the_race() -> None:
    # decisions 8: the room's optional time limit (first received: no lag credit)
    state = race(2, seed=12, time_limit=60, credit_cap=0)
    assert state.ends_at == START + 60
    assert GAME.deadline(state) == START + 60
    events = GAME.tick(state, START + 60, random.Random(0))
    assert events == [Ended(START + 60, "time_up")]
    state = apply(state, events)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "time_up" and outcome.ranks == (1, 1)


def test_two_star_cards_score_two_and_equal_leaders_share() -> None:
    # rulebook "End of the game": 2 stars are 2 points, ties share the victory; decisions 8
    state = race(3, seed=13)
    two = next(c.number for c in CARDS if c.points == 2)
    ones = [c.number for c in CARDS if c.points == 1][:2]
    state = attrs.evolve(state, stacks=((two,), (ones[0],), (ones[1],)))
    state = with_tablet(state, 0, _matching(state, 0, 0))
    state, _ = act(state, 0, Flash(0), START + 1)
    assert isinstance(state, RaceState)
    state = with_tablet(state, 1, _matching(state, 1, 1))
    state, _ = act(state, 1, Flash(1), START + 2)
    assert isinstance(state, RaceState)
    state = with_tablet(state, 1, _matching(state, 1, 2))
    state, events = act(state, 1, Flash(2), START + 3)
    assert isinstance(events[-1], Ended)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == (2.0, 2.0, 0.0)
    assert outcome.ranks == (1, 1, 3)
    assert outcome.winners == (0, 1)
    report = outcome.details["players"]
    assert [p["cards"] for p in report] == [1, 2, 0]


# --- hints -------------------------------------------------------------------------------------


def test_hints_follow_the_room_option() -> None:
    # the issue: a hint the room can allow or forbid
    state = race(2, seed=14)
    assert _refused(state, 0, Hint(), START) == "hints_off"
    assert not any(e["type"] == "hint" for e in GAME.legal(state, 0))
    state = race(2, seed=14, hints=True)
    state2, events = act(state, 0, Hint(), START + 1)
    (hint,) = events
    assert isinstance(hint, HintGiven)
    far = min(distance(state.tablets[0], state.pattern(p[0], 0)) for p in state.stacks)
    assert hint.slides == far
    assert hint.src is not None and hint.dst is not None
    after, _ = act(state2, 0, Slide(hint.src, hint.dst), START + 2)
    assert isinstance(after, RaceState)
    pattern = state.pattern(state.stacks[hint.target][0], 0)
    assert distance(after.tablets[0], pattern) == far - 1


# --- views -------------------------------------------------------------------------------------
