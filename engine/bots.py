"""Bots every game offers: the random player, the floor any real bot must beat."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Action, Bot, Command, Game

__all__ = ["RandomBot", "random_bot"]


class RandomBot:
    """Picks uniformly among the commands its seat may send, ``delay`` seconds after now."""

    def __init__(self, rng: random.Random, delay: float = 0.0) -> None:
        self.rng = rng
        self.delay = delay

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        if not options:
            return None
        return Action(now + self.delay, self.rng.choice(options))


def random_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """The random player, acting at once (for turn-based games)."""
    return RandomBot(rng)
