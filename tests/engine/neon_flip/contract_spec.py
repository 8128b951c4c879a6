"""Neon Flip's hooks into the contract suite: every mode, short games (``rounds`` = 1)."""

from __future__ import annotations

import random

import attrs
from hypothesis import strategies as st

from engine.core import Command, Viewer
from engine.neon_flip.cards import DECK
from engine.neon_flip.messages import (
    BuyCard,
    Cascade,
    ChooseObjective,
    Discard,
    EndTurn,
    Lock,
    ManualFlip,
    PlayCard,
    StopCascade,
)
from engine.neon_flip.scoring import OBJECTIVES
from engine.neon_flip.state import State, locked_cells
from tests.contract.spec import ContractSpec
from tests.engine.movelog_checks import blur_private

ROOMS: list[tuple[dict[str, object], int]] = [
    ({"rounds": 1}, 2),
    ({"rounds": 1, "obstacles": True}, 2),
    ({"rounds": 1}, 3),
    ({"rounds": 1}, 4),
    ({"rounds": 1, "teams": True}, 4),
    ({"mode": "overdrive", "rounds": 1}, 2),
    ({"mode": "overdrive", "rounds": 1}, 3),
    ({"mode": "overdrive", "rounds": 1, "teams": True}, 4),
    ({"mode": "solo"}, 1),
]


def perturb(state: State, viewer: Viewer, rng: random.Random) -> State | None:
    """Re-deal every hand the viewer cannot see together with the draw pile, swap the hidden
    objectives (kept or offered) with the objective deck, reshuffle PROTO-ZERO's deck, and blur
    what only another seat saw in the move log (its objective, the card it drew)."""
    if state.phase == "over":
        return None
    others = [seat for seat in range(state.seats) if seat != viewer]
    cards = list(state.draw)
    objectives = list(state.objective_deck)
    for seat in others:
        player = state.players[seat]
        cards.extend(player.hand)
        if player.offers:
            objectives.extend(player.offers)
        elif player.objective:
            objectives.append(player.objective)
    rng.shuffle(cards)
    rng.shuffle(objectives)
    players = list(state.players)
    for seat in others:
        player = players[seat]
        size = len(player.hand)
        hand, cards = tuple(cards[:size]), cards[size:]
        offers: tuple[str, ...] = ()
        objective = ""
        if player.offers:
            offers, objectives = tuple(objectives[:2]), objectives[2:]
        elif player.objective:
            objective, objectives = objectives[0], objectives[1:]
        players[seat] = attrs.evolve(player, hand=hand, offers=offers, objective=objective)
    ai_deck = list(state.ai_deck)
    rng.shuffle(ai_deck)
    return attrs.evolve(
        state,
        players=tuple(players),
        draw=tuple(cards),
        objective_deck=tuple(objectives),
        ai_deck=tuple(ai_deck),
        log=blur_private(state.log, viewer, rng),
    )


def secrets(state: State, viewer: Viewer) -> set[object]:
    """Card ids in hidden hands and the draw pile; objectives the viewer was not dealt."""
    if state.phase == "over":
        return set()
    hidden: set[object] = set(state.draw)
    own: set[str] = set()
    for seat, player in enumerate(state.players):
        if seat == viewer:
            own.update(player.offers)
            own.add(player.objective)
        else:
            hidden.update(player.hand)
    hidden.update(key for key in OBJECTIVES if key not in own)
    return hidden


def illegal(state: State, seat: int, rng: random.Random) -> list[tuple[Command, str]]:
    """Commands the rules refuse now, with their codes."""
    if state.phase == "over":
        return [(EndTurn(), "game_over")]
    player = state.players[seat]
    missing = next(card for card in DECK if card not in player.hand)
    if state.phase == "objectives":
        out: list[tuple[Command, str]] = [(EndTurn(), "choose_objective_first")]
        if player.offers:
            other = next(key for key in OBJECTIVES if key not in player.offers)
            out.append((ChooseObjective(other), "not_offered"))
        else:
            out.append((ChooseObjective(next(iter(OBJECTIVES))), "already_chosen"))
        return out
    if seat != state.turn:
        return [(EndTurn(), "not_your_turn"), (ManualFlip(1), "not_your_turn")]
    if state.phase == "discard":
        return [(EndTurn(), "discard_first"), (Discard(missing), "not_in_hand")]
    if state.pending is not None:
        return [(EndTurn(), "cascade_pending"), (Cascade(0), "bad_cascade")]
    out = [
        (PlayCard(missing, slot=1), "not_in_hand"),
        (Discard(player.hand[0] if player.hand else missing), "not_discarding"),
        (StopCascade(), "no_cascade"),
        (BuyCard("no_such_card"), "not_in_market"),
    ]
    if state.manual_flips >= 2:
        out.append((ManualFlip(1), "flip_limit"))
    elif player.energy < 2 + state.surcharge:
        out.append((ManualFlip(1), "no_energy"))
    else:
        out.append((ManualFlip(37), "bad_slot"))
        locked = locked_cells(state)
        if locked:
            out.append((ManualFlip(min(locked) + 1), "locked"))
    foreign = [c for c in range(36) if state.board[c] != player.colour]
    if foreign:
        out.append((Lock(foreign[0] + 1), "not_your_colour"))
    return out


SPEC = ContractSpec(
    rooms=st.sampled_from(ROOMS),
    perturb=perturb,
    secrets=secrets,
    illegal=illegal,
    max_examples=24,
    check_every=4,
)
