"""What a game tells the contract suite about itself: how to pick rooms, what each viewer may
not see, and some commands that must be refused.

Each game has ``tests/engine/<game id>/contract_spec.py`` defining ``SPEC``.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterable
from typing import Any

import attrs
from hypothesis import strategies as st

from engine.core import Command, Viewer

__all__ = ["ContractSpec", "load_spec"]


def _nothing_secret(state: Any, viewer: Viewer) -> set[Any]:
    return set()


def _no_illegal(state: Any, seat: int, rng: random.Random) -> Iterable[tuple[Command, str]]:
    return ()


@attrs.frozen
class ContractSpec:
    """One game's hooks into the contract suite.

    - ``rooms``: a Hypothesis strategy of ``(options, seat count)`` pairs to play.
    - ``perturb(state, viewer, rng)``: a state that differs only in what ``viewer`` cannot
      see (other hands re-dealt, the draw pile reshuffled...); the viewer's view must not move.
      Return ``None`` when nothing is hidden from that viewer at this point.
    - ``secrets(state, viewer)``: values (strings, ids) that must appear nowhere in that
      viewer's view, keys included.
    - ``illegal(state, seat, rng)``: commands that must be refused now, with their codes.
    - ``bots``: the bot kind that plays each seat in the random games (``random`` by default).
    - ``max_examples`` and ``check_every``: how many games, and how often (in steps) to run the
      per-view checks, so a long game stays quick.
    """

    rooms: st.SearchStrategy[tuple[dict[str, Any], int]]
    perturb: Callable[[Any, Viewer, random.Random], Any | None]
    secrets: Callable[[Any, Viewer], set[Any]] = _nothing_secret
    illegal: Callable[[Any, int, random.Random], Iterable[tuple[Command, str]]] = _no_illegal
    bots: str = "random"
    max_examples: int = 25
    check_every: int = 1


def load_spec(game_id: str) -> ContractSpec:
    """The ``SPEC`` a game defines for the contract suite."""
    module = importlib.import_module(f"tests.engine.{game_id}.contract_spec")
    spec = module.SPEC
    assert isinstance(spec, ContractSpec)
    return spec
