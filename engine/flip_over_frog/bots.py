"""The Flip Over Frog bot: plays for its own colour without giving it away.

It reads only its own view. It remembers what lies under each face-down back (decisions 12
allows it, as a player at the table may), guesses each rival's colour from how they play, and
scores every legal play one move ahead:

- its own colour's face-up Frogs count for it, and a face-down tile of its colour that a play
  turns face up is a gain (it reveals its colour on the board);
- each other colour counts against it in proportion to how likely a rival holds it, so Snakes
  go to rival colours and flips hide rival Frogs;
- playing a Frog of its own colour face up tells the table something, so among near-equal plays
  it prefers those that also raise another colour (it hides its colour), and it keeps Frogs of
  its own colour in hand for spaces where they cannot be flipped back at once.

``easy`` (:class:`EasyFrogBot`) is that bot with a short attention span: on each play, with
probability :data:`EASY_SLIP`, it plays a legal tile at random instead of its best, so a
newcomer's first game is winnable. Both draw only from their seeded generator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.bots import random_bot
from engine.core import Action, Bot, BotFactory, Command, Game
from engine.flip_over_frog.board import (
    COLOURS,
    SPACES,
    TILES,
    arrows_of,
    colour_of,
    is_snake,
    targets,
)
from engine.flip_over_frog.messages import DiscardSnake, PlayTile

__all__ = [
    "BOTS",
    "EASY_SLIP",
    "EasyFrogBot",
    "FrogBot",
    "Known",
    "easy_frog_bot",
    "frog_bot",
]

#: How often ``easy`` plays at random instead of its best.
EASY_SLIP = 0.55

#: One remembered space: ``(tile or None if unknown, face_up)``, bottom first.
Known = list[tuple[str | None, bool]]


class FrogBot:
    """See the module docstring. ``rng`` breaks ties between equal plays."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self.memory: list[Known] = [[] for _ in range(SPACES)]
        self.last_plays = -1
        self.last_counts: dict[str, int] = dict.fromkeys(COLOURS, 0)
        self.last_turn: int | None = None
        # Evidence, per rival seat, that they hold each colour.
        self.evidence: dict[int, dict[str, float]] = {}

    # -- memory ---------------------------------------------------------------------------------

    def observe(self, view: Mapping[str, Any]) -> None:
        """Bring memory up to date with a view: stacks under backs, and rivals' colours."""
        if view["plays"] == self.last_plays:
            return
        for space, shown in enumerate(view["board"]):
            self.memory[space] = self._reconcile(self.memory[space], shown)
        counts = dict(view["frogs_face_up"])
        mover = self.last_turn
        if mover is not None and mover != self.seat:
            # Whatever the last player made of the board says something of their colour.
            seen = self.evidence.setdefault(mover, dict.fromkeys(COLOURS, 0.0))
            for colour in COLOURS:
                seen[colour] += counts[colour] - self.last_counts[colour]
        self.last_counts = counts
        self.last_turn = view["turn"]
        self.last_plays = view["plays"]

    @staticmethod
    def _reconcile(known: Known, shown: Mapping[str, Any]) -> Known:
        height, face = shown["height"], shown["top"]
        if height == 0:
            return []
        up_tile = face.get("id") if face["kind"] != "back" else None
        if len(known) == height:
            if up_tile is not None and known[-1][0] == up_tile and known[-1][1]:
                return known
            flipped = [(tile, not up) for tile, up in reversed(known)]
            if up_tile is None or flipped[-1][0] == up_tile:
                if up_tile is not None:
                    flipped[-1] = (up_tile, True)
                return flipped
        if len(known) == height - 1 and up_tile is not None:
            return [*known, (up_tile, True)]
        if len(known) == height + 1 and height >= 1:
            return known[:height]
        # Something we could not follow: keep only what is visible now.
        return [(None, False)] * (height - 1) + [(up_tile, up_tile is not None)]

    # -- judging plays --------------------------------------------------------------------------

    def _weights(self, view: Mapping[str, Any]) -> dict[str, float]:
        """How much each colour's face-up Frogs are worth to us: +1 ours, minus the chance a
        rival holds it for every other colour."""
        mine = view["colour"]
        others = [c for c in COLOURS if c != mine]
        rivals = len(view["players"]) - 1
        belief = dict.fromkeys(others, 1.0)
        for seat, seen in self.evidence.items():
            if seat == self.seat:
                continue
            ranked = sorted(others, key=lambda c: seen[c], reverse=True)
            if seen[ranked[0]] > 0:
                belief[ranked[0]] += 1.0
        total = sum(belief.values())
        weights = {c: -rivals * belief[c] / total for c in others}
        weights[mine] = 1.0
        return weights

    def _expected_flip_gain(
        self, known: Known, weights: Mapping[str, float], unseen: dict[str, float]
    ) -> float:
        """The change in value when a remembered stack turns over."""
        before = _value_of_top(known, weights, unseen)
        after = _value_of_top([(tile, not up) for tile, up in reversed(known)], weights, unseen)
        return after - before

    def score(
        self,
        view: Mapping[str, Any],
        command: Command,
        weights: Mapping[str, float],
        unseen: dict[str, float],
    ) -> float:
        """The value of ``command`` to this bot, one move ahead."""
        if isinstance(command, DiscardSnake):
            return 0.0
        assert isinstance(command, PlayTile)
        tile, space = command.tile, command.space
        if is_snake(tile):
            frog = view["board"][space]["top"]
            below = self.memory[space][:-1]
            value = -weights[frog["colour"]]
            value += _value_of_top(below, weights, unseen)
            return value
        value = weights[colour_of(tile)]
        for target in targets(space, arrows_of(tile)):
            if view["board"][target]["height"]:
                value += self._expected_flip_gain(self.memory[target], weights, unseen)
        # A Frog of our colour on an exposed space is likely flipped or eaten next turn.
        if colour_of(tile) == view["colour"]:
            exposure = sum(1 for n in _neighbours(space) if view["board"][n]["height"] == 0)
            value -= 0.08 * exposure
            # Keep our own Frogs out of sight while another play is nearly as good.
            value -= 0.15
        return value

    def _unseen(self, view: Mapping[str, Any]) -> dict[str, float]:
        """The chance that an unknown face-down tile is a Frog of each colour."""
        seen: set[str] = {t["id"] for t in view["hand"]} | {t["id"] for t in view["discards"]}
        for known in self.memory:
            seen.update(tile for tile, _ in known if tile is not None)
        pool = [t for t in TILES if t not in seen]
        frogs = [t for t in pool if not is_snake(t)]
        if not pool:
            return dict.fromkeys(COLOURS, 0.0)
        return {c: sum(1 for t in frogs if colour_of(t) == c) / len(pool) for c in COLOURS}

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        """Play the best-scoring legal command, ties broken at random."""
        self.observe(view)
        if not options:
            return None
        weights = self._weights(view)
        unseen = self._unseen(view)
        best: list[Command] = []
        best_score = float("-inf")
        for command in options:
            value = self.score(view, command, weights, unseen)
            if value > best_score + 1e-9:
                best, best_score = [command], value
            elif abs(value - best_score) <= 1e-9:
                best.append(command)
        return Action(now, self.rng.choice(best))


def _value_of_top(known: Known, weights: Mapping[str, float], unseen: Mapping[str, float]) -> float:
    if not known:
        return 0.0
    tile, up = known[-1]
    if not up:
        return 0.0
    if tile is None:
        return sum(unseen[c] * weights[c] for c in COLOURS)
    if is_snake(tile):
        return 0.0
    return weights[colour_of(tile)]


def _neighbours(space: int) -> list[int]:
    return list(targets(space, "orthogonal")) + list(targets(space, "diagonal"))


class EasyFrogBot(FrogBot):
    """``bot`` that slips: with probability :data:`EASY_SLIP` a random legal play. It keeps
    its memory up to date either way."""

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        if options and self.rng.random() < EASY_SLIP:
            self.observe(view)
            return Action(now, self.rng.choice(list(options)))
        return super().act(view, options, now)


def frog_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """The Flip Over Frog bot for ``seat``."""
    return FrogBot(seat, rng)


def easy_frog_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """The easy Flip Over Frog bot for ``seat``: ``bot``, playing at random 55% of the time."""
    return EasyFrogBot(seat, rng)


#: Every bot kind Flip Over Frog offers, by the name a seat asks for.
BOTS: dict[str, BotFactory] = {"bot": frog_bot, "easy": easy_frog_bot, "random": random_bot}
