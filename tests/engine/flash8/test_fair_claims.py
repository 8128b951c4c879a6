"""Lag-fair claims, clause by clause (flash8.decisions 17, revising the tie rule of 7).

A room is driven as the server drives it: each command decided with the chance of its log
position, the server's credit set on the claim, and every record replayed from its wire form
(decoded trusted, as the log is) to the same events and state.
"""

from __future__ import annotations

import random
from typing import Any

import attrs
import msgpack
import pytest

from clients.sdk.views import Flash8View
from engine.core import Command, Event, Rejected, chance, from_wire, server_set, to_wire
from engine.flash8.board import FULL_SET, random_tablet
from engine.flash8.messages import (
    CardTaken,
    ClaimHeld,
    ClaimLate,
    ClaimMissed,
    Ended,
    Flash,
    LimitReached,
    Slide,
    TieSettled,
)
from engine.flash8.solver import distance
from engine.flash8.state import RaceState
from engine.registry import get_game
from tests.clients.test_views import problems
from tests.engine.flash8.helpers import START, complete, race, with_tablet

GAME = get_game("flash8")
NEAR, FAR = 0, 1  # seat 0 sits by the server; seat 1 is 150 ms of round trip away
LAG = 0.15


class Room:
    """A race as a room holds it: a log of records replayable from their wire form."""

    def __init__(self, state: RaceState, seed: bytes = b"fair-race") -> None:
        self.first = state
        self.state: Any = state
        self.seed = seed
        self.position = 0
        self.records: list[tuple[int | None, dict[str, Any] | None, float, list[Event]]] = []

    def act(self, seat: int, command: Command, now: float) -> list[Event]:
        events = GAME.decide(self.state, seat, command, now, chance(self.seed, self.position))
        self._log(seat, to_wire(command), now, events)
        return events

    def claim(
        self, seat: int, now: float, credit: float = 0.0, rival_credit: float = 0.0
    ) -> list[Event]:
        """A FLASH on stack 0 as the server passes it on: with the credits it measured."""
        command = server_set(Flash(0), credit=credit, rival_credit=rival_credit)
        return self.act(seat, command, now)

    def tick(self, now: float) -> list[Event]:
        events = GAME.tick(self.state, now, chance(self.seed, self.position))
        self._log(None, None, now, events)
        return events

    def due(self) -> list[Event]:
        """The tick at the engine's next deadline."""
        when = GAME.deadline(self.state)
        assert when is not None
        return self.tick(when)

    def _log(
        self, seat: int | None, command: dict[str, Any] | None, now: float, events: list[Event]
    ) -> None:
        self.records.append((seat, command, now, events))
        for event in events:
            self.state = GAME.evolve(self.state, event)
        self.position += len(events)

    def replayed(self) -> Any:
        """Decide every record again from the first state, as ``lumin verify`` does."""
        state, position = self.first, 0
        for seat, command, now, events in self.records:
            rng = chance(self.seed, position)
            if command is None:
                again = GAME.tick(state, now, rng)
            else:
                decoded = from_wire(GAME.commands, command, trusted=True)
                assert seat is not None
                again = GAME.decide(state, seat, decoded, now, rng)
            assert [to_wire(e) for e in again] == [to_wire(e) for e in events]
            for event in again:
                state = GAME.evolve(state, event)
            position += len(again)
        return state


def _both_match(seed: int = 21, **options: Any) -> RaceState:
    """A two-player race 2 s in where both tablets match the top of stack 0 and no other top."""
    state = race(2, seed=seed, **options)
    for seat in (NEAR, FAR):
        tablet = complete(state.pattern(state.stacks[0][0], seat), FULL_SET)
        state = with_tablet(state, seat, tablet)
    assert not any(
        state.tablets[seat] == complete(state.pattern(state.stacks[1][0], seat), FULL_SET)
        for seat in (NEAR, FAR)
    )
    return state


def _far_from(state: RaceState, seat: int, slides: int) -> RaceState:
    """``state`` with ``seat``'s tablet at least ``slides`` slides from the top of stack 0."""
    rng = random.Random(5)
    pattern = state.pattern(state.stacks[0][0], seat)
    while True:
        tablet = random_tablet(rng)
        if distance(tablet, pattern) >= slides:
            return with_tablet(state, seat, tablet)


def _winner(events: list[Event]) -> int:
    (taken,) = [e for e in events if isinstance(e, CardTaken)]
    return taken.seat


T = START + 2.0  # when the near player's FLASH reaches the server


def test_a_near_player_who_completed_later_as_each_saw_it_loses_the_card() -> None:
    room = Room(_both_match())
    # The near claim is held while the far rival, credited up to 0.15 s, could still be earlier.
    (held,) = room.claim(NEAR, T, credit=0.0, rival_credit=LAG)
    assert isinstance(held, ClaimHeld) and held.until == pytest.approx(T + LAG)
    assert held.effective == T
    # The far player completed it 0.05 s sooner as they saw it; heard 0.1 s later.
    (joined,) = room.claim(FAR, T + 0.1, credit=LAG, rival_credit=0.0)
    assert isinstance(joined, ClaimHeld) and joined.effective == pytest.approx(T - 0.05)
    assert joined.until == held.until  # a hold never grows past its first claim's
    events = room.due()
    assert _winner(events) == FAR
    (late,) = [e for e in events if isinstance(e, ClaimLate)]
    assert late.seat == NEAR and late.by == FAR and late.behind == pytest.approx(0.05)
    (take,) = room.state.takes
    revealed = room.first.revealed_at[0]
    assert take.took == pytest.approx(T - 0.05 - revealed)  # the solve time is effective
    assert room.state.misses == (0, 0) and room.state.locked_until == (None, None)
    assert room.replayed() == room.state


def test_a_far_player_who_completed_later_as_each_saw_it_loses_too() -> None:
    room = Room(_both_match())
    room.claim(NEAR, T, rival_credit=LAG)
    # heard 0.2 s later with 0.15 s of credit: 0.05 s later as they saw it
    room.claim(FAR, T + 0.2 - 0.1, credit=LAG - 0.1)
    events = room.due()
    assert _winner(events) == NEAR
    assert room.replayed() == room.state


def test_compensation_off_the_first_claim_received_wins() -> None:
    # decisions 7 and 17: credit_cap 0 turns compensation off; no claim is ever held
    room = Room(_both_match(credit_cap=0.0))
    (taken,) = room.claim(NEAR, T, credit=0.0, rival_credit=LAG)
    assert isinstance(taken, CardTaken) and taken.seat == NEAR and taken.at == T
    # the far player completed it sooner as they saw it, but was heard later
    (late,) = room.claim(FAR, T + 0.1, credit=LAG)
    assert isinstance(late, ClaimLate) and late.by == NEAR
    assert late.behind == pytest.approx(0.1)  # received times: no credit
    assert room.replayed() == room.state


@pytest.mark.parametrize("seed", [b"tie-0", b"tie-1", b"tie-2", b"tie-3", b"tie-4", b"tie-5"])
def test_effective_times_within_two_hundredths_tie_and_the_rooms_chance_settles_it(
    seed: bytes,
) -> None:
    room = Room(_both_match(), seed)
    room.claim(NEAR, T, rival_credit=LAG)
    room.claim(FAR, T + LAG - 0.01, credit=LAG)  # effective 0.01 s earlier: a tie
    position = room.position
    events = room.due()
    tie = events[0]
    assert isinstance(tie, TieSettled) and tie.seats == (NEAR, FAR)
    expected = chance(seed, position).choice((NEAR, FAR))
    assert tie.winner == expected == _winner(events)
    assert room.replayed() == room.state


def test_the_rooms_chance_gives_a_tie_to_either_player() -> None:
    winners = set()
    for n in range(12):
        room = Room(_both_match(), f"either-{n}".encode())
        room.claim(NEAR, T, rival_credit=LAG)
        room.claim(FAR, T + LAG - 0.01, credit=LAG)
        winners.add(_winner(room.due()))
    assert winners == {NEAR, FAR}


def test_a_held_claim_is_shown_to_its_claimant_only() -> None:
    room = Room(_both_match())
    before = room.state
    room.claim(NEAR, T, rival_credit=LAG)
    held = room.state
    # the rival and a spectator see exactly what they saw before: nothing says a claim waits
    for viewer in (FAR, None):
        assert GAME.view(held, viewer) == GAME.view(before, viewer)
        assert "held" not in GAME.view(held, viewer)
    assert GAME.legal(held, FAR) == GAME.legal(before, FAR)
    mine = GAME.view(held, NEAR)["held"]
    assert mine == [
        {"stack": 0, "card": mine[0]["card"], "at": T, "effective": T, "until": T + LAG}
    ]
    # the client library's typed view names the key and its fields
    view = msgpack.unpackb(msgpack.packb(GAME.view(held, NEAR)), raw=False)
    assert problems(view, Flash8View) == []
    # no FLASH while it is judged; slides go on
    assert all(entry["type"] != "flash" for entry in GAME.legal(held, NEAR))
    with pytest.raises(Rejected) as refused:
        GAME.decide(held, NEAR, Flash(), T + 0.01, random.Random(0))
    assert refused.value.code == "claim_held"
    # once awarded, the key is gone from the claimant's view as well
    room.due()
    assert "held" not in GAME.view(room.state, NEAR)


def test_a_rival_joining_a_held_claim_learns_nothing_of_it() -> None:
    room = Room(_both_match())
    room.claim(NEAR, T, rival_credit=LAG)
    before_join = room.state
    room.claim(FAR, T + 0.05, credit=0.0)  # effective later: it will lose, but only at the end
    assert GAME.view(room.state, None) == GAME.view(before_join, None)
    assert GAME.view(room.state, NEAR) == GAME.view(before_join, NEAR)
    assert [h["at"] for h in GAME.view(room.state, FAR)["held"]] == [T + 0.05]


def test_no_hold_when_no_rival_could_still_complete_the_card() -> None:
    # a rival more slides away than anyone could make in the hold, or locked out through it
    state = _far_from(_both_match(), FAR, 5)
    room = Room(state)
    (taken,) = room.claim(NEAR, T, rival_credit=LAG)
    assert isinstance(taken, CardTaken)
    state = _both_match()
    locked = list(state.locked_until)
    locked[FAR] = T + 1.0
    room = Room(attrs.evolve(state, locked_until=tuple(locked)))
    (taken,) = room.claim(NEAR, T, rival_credit=LAG)
    assert isinstance(taken, CardTaken)


def test_a_claim_credited_at_least_its_rivals_is_taken_at_once() -> None:
    room = Room(_both_match())
    (taken,) = room.claim(FAR, T, credit=LAG, rival_credit=0.0)
    assert isinstance(taken, CardTaken) and taken.seat == FAR
    assert taken.took == pytest.approx(T - LAG - room.first.revealed_at[0])


@pytest.mark.parametrize("gap", [-0.1, 0.0, 0.05, 0.1, 0.2, 0.22, 0.28, 0.3, 0.4, 0.6])
@pytest.mark.parametrize("claimed", [0.25, 0.25 * 4, 1e9])
def test_a_client_delaying_its_probes_gains_at_most_the_cap(gap: float, claimed: float) -> None:
    # The abuser sits by the server but answers probes late, so the server credits it the
    # most it can (whatever it measured, the credit stops at the cap).
    cap = 0.25
    room = Room(_both_match())
    abuser, honest = FAR, NEAR
    events: list[Event] = []
    first, second = (honest, abuser) if gap >= 0 else (abuser, honest)
    credits = {honest: 0.0, abuser: claimed}
    at = {honest: T, abuser: T + gap}
    for seat in (first, second):
        other = honest if seat == abuser else abuser
        got = room.claim(seat, at[seat], credit=credits[seat], rival_credit=credits[other])
        events += got
        held = [e for e in got if isinstance(e, ClaimHeld)]
        assert all(h.until - h.at <= cap + 1e-9 for h in held)  # no claim waits past the cap
    if room.state.holds[0] is not None:
        events += room.due()
    won = _winner(events)
    if gap < cap - 0.02:
        # a claim it would have lost by less than the cap: the credit wins it
        assert won == abuser
    elif gap > cap + 0.02:
        # heard later than the honest claim by more than the cap: the credit cannot help
        assert won == honest
    assert room.replayed() == room.state


def test_lockouts_run_on_room_time_never_a_credited_one() -> None:
    state = race(2, seed=21)
    room = Room(state)
    (missed,) = room.claim(FAR, T, credit=LAG)  # the far player's tablet matches nothing
    assert isinstance(missed, ClaimMissed)
    assert missed.at == T and missed.until == T + state.lockout


def test_the_half_second_grace_is_judged_on_effective_times() -> None:
    state = _far_from(_both_match(), FAR, 5)
    room = Room(state)
    room.claim(NEAR, T)  # taken at once: the far rival was not close
    room.state = with_tablet(
        room.state, FAR, complete(state.pattern(state.stacks[0][0], FAR), FULL_SET)
    )
    # heard 0.6 s after the take, but 0.45 s after it as the far player saw it: late, no lockout
    (late,) = room.claim(FAR, T + 0.6, credit=LAG)
    assert isinstance(late, ClaimLate) and late.behind == pytest.approx(0.45)
    # the same claim without compensation is a wrong claim with its lockout
    off = Room(attrs.evolve(state, credit_cap=0.0))
    off.claim(NEAR, T)
    off.state = with_tablet(off.state, FAR, room.state.tablets[FAR])
    (missed,) = off.claim(FAR, T + 0.6, credit=LAG)
    assert isinstance(missed, ClaimMissed)


def test_the_time_limit_is_judged_on_effective_times() -> None:
    room = Room(_both_match(time_limit=10.0))
    limit = room.state.ends_at
    assert limit == START + 10.0 and GAME.deadline(room.state) == limit
    assert room.tick(limit) == [LimitReached(limit)]
    assert GAME.legal(room.state, NEAR) == [] and GAME.legal(room.state, FAR) == []
    assert GAME.deadline(room.state) == limit + 0.25
    # the near player's claim after the limit is after it as they saw it too
    with pytest.raises(Rejected) as refused:
        GAME.decide(room.state, NEAR, Flash(0), limit + 0.1, random.Random(0))
    assert refused.value.code == "time_up"
    # the far player's claim, made before the limit as they saw it, still counts
    (taken,) = room.claim(FAR, limit + 0.1, credit=LAG)
    assert isinstance(taken, CardTaken) and taken.seat == FAR
    assert room.due() == [Ended(limit + 0.25, "time_up")]
    assert room.replayed() == room.state


def test_a_time_limit_without_compensation_ends_at_the_limit() -> None:
    room = Room(_both_match(time_limit=10.0, credit_cap=0.0))
    limit = room.state.ends_at
    assert room.tick(limit) == [Ended(limit, "time_up")]


def test_a_credit_that_is_not_a_time_is_refused() -> None:
    state = _both_match()
    for credit in (-0.1, float("nan"), float("inf")):
        with pytest.raises(Rejected) as refused:
            GAME.decide(state, NEAR, Flash(0, credit=credit), T, random.Random(0))
        assert refused.value.code == "bad_command"


def test_slides_go_on_during_a_hold() -> None:
    room = Room(_both_match())
    room.claim(NEAR, T, rival_credit=LAG)
    slide = next(e for e in GAME.legal(room.state, NEAR) if e["type"] == "slide")
    room.act(NEAR, Slide(slide["src"], slide["dst"]), T + 0.05)
    events = room.due()
    assert _winner(events) == NEAR  # judged on the tablet it had when it called FLASH
    assert room.replayed() == room.state
