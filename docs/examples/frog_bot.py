"""A Flip Over Frog bot of docs/bots.md: greedy, one move ahead, from what its seat sees.

It reads its own colour and hand from the view and, from each legal entry's ``preview``, the
spaces a play would flip (docs/rules/flip-over-frog.md, "Legal commands"). A Frog of its
colour face up is worth 1 to it; a face-up Frog of another colour counts against it (a rival
may hold that colour). It plays the option worth the most after the play, ties broken at
random.

    lumin arena flip_over_frog --a frog_bot:make_bot --b random --games 200
    lumin bot ws://127.0.0.1:8700/ws ROOM --seat 1 --kind frog_bot:make_bot
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from clients.sdk import Bot, Move, Option, Turn

#: What a face-up Frog of another colour is worth to this bot: a rival may hold that colour.
RIVAL = -0.4


class FrogBot:
    """Plays the option that leaves the board best for its colour (see the module)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, turn: Turn) -> Move | None:
        if not turn.options:
            return None
        scored = [
            (self.score(turn.view, option), self.rng.random(), option) for option in turn.options
        ]
        best = max(scored, key=lambda item: (item[0], item[1]))
        return Move(best[2].command)

    def score(self, view: Mapping[str, Any], option: Option) -> float:
        """How much better the board is for this bot after the option than before."""
        if option.type != "play":
            return 0.0  # a discard: the only command left, nothing to compare
        mine = view["colour"]
        board = view["board"]
        tile = next(t for t in view["hand"] if t["id"] == option.command["tile"])
        space = option.command["space"]
        gain = 0.0
        if tile["kind"] == "snake":
            gain -= self.worth(board[space]["top"], mine)  # the Frog it lands on is discarded
        else:
            gain += 1.0 if tile["colour"] == mine else RIVAL
            for flipped in option.info("preview") or []:
                gain -= self.worth(board[flipped]["top"], mine)  # face up turns face down
        return gain

    @staticmethod
    def worth(top: Mapping[str, Any] | None, mine: str) -> float:
        """What a space's top tile is worth to the bot while it stays face up."""
        if top is None or top["kind"] != "frog":
            return 0.0
        return 1.0 if top["colour"] == mine else RIVAL


def make_bot(game: str, seat: int, rng: random.Random) -> Bot:
    """The bot factory ``lumin arena`` and ``lumin bot`` call: one bot per seat."""
    if game != "flip_over_frog":
        raise ValueError(f"frog_bot plays Flip Over Frog, not {game}")
    return FrogBot(rng)
