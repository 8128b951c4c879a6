"""Neon Hex's hooks into the contract suite. Nothing is hidden in Neon Hex (every viewer sees
the whole table), so there is nothing to perturb; the illegal commands cover every refusal."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from engine.core import Command, Viewer
from engine.neon_hex.board import NEIGHBOURS, SIZE
from engine.neon_hex.messages import EndTurn, Expand
from engine.neon_hex.rules import bonus_candidates, frontier
from engine.neon_hex.state import State
from tests.contract.spec import ContractSpec


def perturb(state: State, viewer: Viewer, rng: random.Random) -> State | None:
    """Nothing in Neon Hex is secret."""
    return None


def illegal(state: State, seat: int, rng: random.Random) -> list[tuple[Command, str]]:
    """Expansions the rules refuse right now, with their codes."""
    if state.ended is not None:
        return [(EndTurn(), "game_over"), (Expand(0), "game_over")]
    if seat != state.current:
        return [(EndTurn(), "not_your_turn"), (Expand(0), "not_your_turn")]
    owners = state.owners
    energy = state.factions[seat].energy
    targets = frontier(owners, seat)
    mine = [h for h in range(SIZE) if owners[h] == seat]
    out: list[tuple[Command, str]] = [
        (Expand(SIZE), "bad_hex"),
        (Expand(-1), "bad_hex"),
        (Expand(mine[0]), "not_neutral"),
        (Expand(targets[0], "wild"), "bad_kind"),
    ]
    far = [h for h in range(SIZE) if owners[h] == -1 and h not in targets]
    if far:
        out.append((Expand(rng.choice(far)), "not_adjacent"))
    target = rng.choice(targets)
    foreign = [h for h in range(SIZE) if owners[h] != seat]
    out.append((Expand(target, source=rng.choice(foreign)), "not_your_hex"))
    distant = [h for h in mine if h not in NEIGHBOURS[target]]
    if distant:
        out.append((Expand(target, source=distant[0]), "not_adjacent"))
    if energy < 1:
        out.append((Expand(target), "not_enough_energy"))
    if energy < 2:
        out.append((Expand(target, "risk"), "not_enough_energy"))
    else:
        out.append((Expand(target, "risk", (target,)), "bad_bonus"))
        candidates = bonus_candidates(owners, target)
        if candidates:
            out.append((Expand(target, "risk", (candidates[0], candidates[0])), "bad_bonus"))
        out.append((Expand(target, "risk", (0, 1, 2)), "bad_bonus"))
    if energy >= 1:
        out.append((Expand(target, "safe", (target,)), "bad_bonus"))
    return out


SPEC = ContractSpec(
    rooms=st.tuples(st.just({}), st.integers(min_value=2, max_value=5)),
    perturb=perturb,
    illegal=illegal,
    max_examples=30,
    check_every=1,
)
