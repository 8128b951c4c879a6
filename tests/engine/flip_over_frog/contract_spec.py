"""Flip Over Frog's hooks into the contract suite: what each viewer must not see."""

from __future__ import annotations

import random

import attrs
from hypothesis import strategies as st

from engine.core import Command, Viewer
from engine.flip_over_frog.board import COLOURS, TILES, is_snake
from engine.flip_over_frog.messages import DiscardSnake, PlayTile
from engine.flip_over_frog.state import State
from tests.contract.spec import ContractSpec
from tests.engine.movelog_checks import blur_private


def seen(state: State) -> set[str]:
    """Tiles the move log names to everyone: each was face up when played, and anyone may
    remember what lies under a back (decisions 12)."""
    return {
        value
        for entry in state.log
        for key, value in entry.public
        if key in ("tile", "frog") and isinstance(value, str)
    }


def perturb(state: State, viewer: Viewer, rng: random.Random) -> State:
    """Re-deal other players' colours (while the game runs), other hands and the stack
    together, shuffle which tile lies under each face-down back the log does not name, and
    blur what only another seat saw in the move log (the tile it drew)."""
    colours = list(state.colours)
    if state.ended is None:
        others = [s for s in range(state.players) if s != viewer]
        pool = [c for c in COLOURS if viewer is None or c != state.colours[viewer]]
        rng.shuffle(pool)
        for seat, colour in zip(others, pool, strict=False):
            colours[seat] = colour
    hidden = list(state.stack)
    for seat in range(state.players):
        if seat != viewer:
            hidden.extend(state.hands[seat])
    rng.shuffle(hidden)
    hands = list(state.hands)
    for seat in range(state.players):
        if seat != viewer:
            size = len(hands[seat])
            hands[seat], hidden = tuple(hidden[:size]), hidden[size:]
    remembered = seen(state)
    backs = [
        (space, depth)
        for space, stack in enumerate(state.board)
        for depth, (tile, up) in enumerate(stack)
        if not up and tile not in remembered
    ]
    tiles = [state.board[space][depth][0] for space, depth in backs]
    rng.shuffle(tiles)
    board = [list(stack) for stack in state.board]
    for (space, depth), tile in zip(backs, tiles, strict=True):
        board[space][depth] = (tile, False)
    return attrs.evolve(
        state,
        log=blur_private(state.log, viewer, rng),
        colours=tuple(colours),
        hands=tuple(hands),
        stack=tuple(hidden),
        board=tuple(tuple(stack) for stack in board),
    )


def secrets(state: State, viewer: Viewer) -> set[object]:
    """Ids of every tile the viewer cannot see: other hands, the stack, every face-down tile
    the move log does not name."""
    visible = set(state.discards) | seen(state)
    if viewer is not None:
        visible.update(state.hands[viewer])
    for stack in state.board:
        if stack and stack[-1][1]:
            visible.add(stack[-1][0])
    return set(TILES) - visible


def illegal(state: State, seat: int, rng: random.Random) -> list[tuple[Command, str]]:
    """Plays the rules refuse right now, with their codes."""
    if state.ended is not None:
        return [(PlayTile("R1", 0), "game_over")]
    if seat != state.turn:
        hand = state.hands[seat] or ("R1",)
        return [(PlayTile(hand[0], 0), "not_your_turn")]
    hand = state.hands[seat]
    out: list[tuple[Command, str]] = []
    missing = next(t for t in TILES if t not in hand)
    out.append((PlayTile(missing, 0), "not_in_hand"))
    out.append((PlayTile(hand[0], 16), "bad_space"))
    for tile in hand:
        for space, stack in enumerate(state.board):
            face_up = bool(stack) and stack[-1][1]
            if not is_snake(tile) and face_up:
                out.append((PlayTile(tile, space), "space_face_up"))
                break
            if is_snake(tile) and not face_up:
                out.append((PlayTile(tile, space), "snake_needs_frog"))
                break
    if any(not is_snake(t) for t in hand):
        out.append((DiscardSnake(hand[0]), "discard_not_allowed"))
    return out


SPEC = ContractSpec(
    rooms=st.tuples(st.just({}), st.integers(min_value=2, max_value=4)),
    perturb=perturb,
    secrets=secrets,
    illegal=illegal,
    max_examples=20,
    check_every=1,
)
