"""Building Neon Flip positions for rule tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

from engine.core import Command, Event, SeatSpec, validate_options
from engine.neon_flip.state import State
from engine.registry import get_game

GAME = get_game("neon_flip")

LETTERS = {"C": 0, "P": 1, "G": 2, "Y": 3}


def grid(text: str) -> tuple[int, ...]:
    """A board from six rows of C/P/G/Y letters separated by spaces or slashes."""
    letters = [ch for ch in text if ch in LETTERS]
    assert len(letters) == 36, len(letters)
    return tuple(LETTERS[ch] for ch in letters)


ALL_PINK = grid("PPPPPP " * 6)
ALL_CYAN = grid("CCCCCC " * 6)


def start(seats: int = 2, seed: int = 1, **options: Any) -> State:
    """A freshly dealt room (objectives not yet chosen)."""
    checked = validate_options(GAME, options)
    return GAME.setup(checked, [SeatSpec(f"p{n}") for n in range(seats)], random.Random(seed))


def table(
    seats: int = 2,
    board: Sequence[int] | None = None,
    hands: Sequence[Sequence[str]] | None = None,
    energy: int | Sequence[int] = 4,
    turn: int = 0,
    seed: int = 1,
    **options: Any,
) -> State:
    """A room in Phase 2 of ``turn``'s turn: objectives kept, hands and board as given."""
    state = start(seats, seed, **options)
    energies = [energy] * seats if isinstance(energy, int) else list(energy)
    market, draw = state.market, state.draw
    if hands is not None:
        given = {card for hand in hands for card in hand}
        rest = [card for card in (*state.market, *state.draw) if card not in given]
        rest += [
            card for p in state.players for card in p.hand if card not in given and card not in rest
        ]
        market, draw = tuple(rest[:3]), tuple(rest[3:])
    players = []
    for seat, player in enumerate(state.players):
        hand = tuple(hands[seat]) if hands is not None else player.hand
        players.append(
            attrs.evolve(
                player, offers=(), objective=player.offers[0], hand=hand, energy=energies[seat]
            )
        )
    return attrs.evolve(
        state,
        players=tuple(players),
        board=tuple(board) if board is not None else state.board,
        market=market,
        draw=draw,
        phase="main",
        turn=turn,
        turns=1,
    )


def run(state: State, seat: int, command: Command, now: float = 0.0) -> tuple[State, list[Event]]:
    """Decide and apply one command."""
    events = GAME.decide(state, seat, command, now, random.Random(0))
    for event in events:
        state = GAME.evolve(state, event)
    return state, events


def slots_of(board: Sequence[int], colour: int) -> list[int]:
    """Slots (1-36) showing ``colour``."""
    return [cell + 1 for cell, c in enumerate(board) if c == colour]
