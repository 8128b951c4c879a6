"""Flash 8's hooks into the contract suite: both modes, short clocks, hidden cards.

Random players rarely complete a card, so race rooms use a short time limit and the random bot
waits a quarter second between moves, letting the simulated clock reach it. Cards below each
stack's top (race) and the reserve below its top (solo) are the only secrets.
"""

from __future__ import annotations

import random
from typing import Any

import attrs
from hypothesis import strategies as st

from engine.core import Command, Viewer
from engine.flash8.board import FREE, NEIGHBOURS
from engine.flash8.cards import CARDS, card_pattern
from engine.flash8.messages import ClaimLine, Flash, Hint, Slide
from engine.flash8.state import RaceState, SoloState, State, side_of
from tests.contract.spec import ContractSpec


def _race_rooms() -> st.SearchStrategy[tuple[dict[str, Any], int]]:
    options = st.fixed_dictionaries(
        {
            "mode": st.just("race"),
            "time_limit": st.sampled_from([4.0, 6.0]),
            "lockout": st.sampled_from([0.0, 0.5, 2.0]),
            "countdown": st.sampled_from([0.0, 1.0]),
            "same_start": st.booleans(),
            "hints": st.booleans(),
        }
    )
    return st.tuples(options, st.integers(min_value=2, max_value=4))


def _solo_rooms() -> st.SearchStrategy[tuple[dict[str, Any], int]]:
    options = st.fixed_dictionaries(
        {
            "mode": st.just("solo"),
            "solo_seconds": st.sampled_from([5.0, 8.0]),
            "lockout": st.sampled_from([0.0, 0.5]),
            "hints": st.booleans(),
        }
    )
    return st.tuples(options, st.just(1))


def perturb(state: State, viewer: Viewer, rng: random.Random) -> State | None:
    """Reshuffle every card nobody sees: below the stack tops together with the cards left in
    the box (race), or the reserve below its top (solo)."""
    if isinstance(state, SoloState):
        hidden = list(state.reserve[1:])
        if len(hidden) < 2:
            return None
        rng.shuffle(hidden)
        return attrs.evolve(state, reserve=(*state.reserve[:1], *hidden))
    seen = {take.card for take in state.takes} | {pile[0] for pile in state.stacks if pile}
    pool = [card for card in range(len(CARDS)) if card not in seen]
    rng.shuffle(pool)
    stacks = []
    for pile in state.stacks:
        below = len(pile) - 1 if pile else 0
        stacks.append((*pile[:1], *pool[:below]))
        pool = pool[below:]
    return attrs.evolve(state, stacks=tuple(stacks))


def secrets(state: State, viewer: Viewer) -> set[Any]:
    """Ids of the cards nobody sees, and (race) their patterns as this viewer would see them."""
    if isinstance(state, SoloState):
        return {CARDS[card].id for card in state.reserve[1:]}
    seen = {take.card for take in state.takes} | {pile[0] for pile in state.stacks if pile}
    side = 0 if viewer is None else side_of(state.players, viewer)
    out: set[Any] = set()
    for card in range(len(CARDS)):
        if card not in seen:
            out.add(CARDS[card].id)
            out.add(card_pattern(card, side))
    return out


def _bad_slides(tablet: str) -> list[tuple[Command, str]]:
    free = tablet.index(FREE)
    occupied = next(cell for cell in range(9) if tablet[cell] != FREE)
    far = next(cell for cell in range(9) if tablet[cell] != FREE and cell not in NEIGHBOURS[free])
    return [
        (Slide(free, occupied), "no_electron"),
        (Slide(far, free), "not_adjacent"),
        (Slide(occupied, 9), "bad_cell"),
    ]


def illegal(state: State, seat: int, rng: random.Random) -> list[tuple[Command, str]]:
    """Commands the rules refuse now, with their codes."""
    if state.phase == "over":
        return [(Slide(0, 1), "game_over"), (Hint(), "game_over")]
    if state.phase != "running":
        return [(Slide(0, 1), "not_started")]
    if isinstance(state, SoloState):
        out: list[tuple[Command, str]] = [
            (Flash(), "wrong_mode"),
            (ClaimLine(6, "star"), "no_such_line"),
        ]
        if state.locked_until is not None:
            return [(Slide(0, 1), "locked_out")]
        out += _bad_slides(state.tablet)
        out.append((ClaimLine(0, "hexagon"), "no_such_shape"))
        if state.token is not None:
            out.append((ClaimLine(state.token, "star"), "reminder_token"))
        if not state.hints:
            out.append((Hint(), "hints_off"))
        return out
    assert isinstance(state, RaceState)
    out = [(ClaimLine(0, "star"), "wrong_mode")]
    if state.locked_until[seat] is not None:
        return [*out, (Flash(), "locked_out")]
    out += _bad_slides(state.tablets[seat])
    out.append((Flash(state.players), "no_such_stack"))
    if not state.hints:
        out.append((Hint(), "hints_off"))
    return out


SPEC = ContractSpec(
    rooms=st.one_of(_race_rooms(), _solo_rooms()),
    perturb=perturb,
    secrets=secrets,
    illegal=illegal,
    max_examples=16,
    check_every=3,
)
