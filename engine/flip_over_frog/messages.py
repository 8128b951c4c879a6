"""Flip Over Frog's commands (what a seat sends) and events (what the rules decided).

Tiles are ids (``R1``, ``S2``...; see :mod:`engine.flip_over_frog.board`), spaces 0-15 row by
row; decisions are cited by number from ``flip-over-frog.decisions.md``.
"""

from __future__ import annotations

import attrs

from engine.core import Command, Event

__all__ = [
    "COMMANDS",
    "EVENTS",
    "DiscardSnake",
    "FrogPlaced",
    "GameEnded",
    "PlayTile",
    "SnakeDiscarded",
    "SnakePlayed",
    "TileDrawn",
    "TurnPassed",
]


# --- commands ----------------------------------------------------------------------------------


@attrs.frozen
class PlayTile(Command):
    """Play ``tile`` from the hand onto board ``space`` (0-15, row by row from the top left)."""

    TYPE = "play"
    tile: str
    space: int


@attrs.frozen
class DiscardSnake(Command):
    """Discard a Snake when the hand holds only Snakes and no Frog is face up (decisions 7)."""

    TYPE = "discard"
    tile: str


# --- events ------------------------------------------------------------------------------------


@attrs.frozen
class FrogPlaced(Event):
    """A Frog landed face up on ``space``; the spaces in ``flipped`` turned over (decisions 5)."""

    TYPE = "frog_placed"
    seat: int
    tile: str
    space: int
    flipped: tuple[int, ...]


@attrs.frozen
class SnakePlayed(Event):
    """A Snake took the face-up Frog ``frog`` off ``space``; both went to the discards."""

    TYPE = "snake_played"
    seat: int
    tile: str
    space: int
    frog: str


@attrs.frozen
class SnakeDiscarded(Event):
    """A Snake was discarded face up for want of a legal play (decisions 7)."""

    TYPE = "snake_discarded"
    seat: int
    tile: str


@attrs.frozen
class TileDrawn(Event):
    """``seat`` drew the top tile of the stack (decisions 8)."""

    TYPE = "tile_drawn"
    seat: int
    tile: str


@attrs.frozen
class TurnPassed(Event):
    """The turn passed to ``seat``."""

    TYPE = "turn_passed"
    seat: int


@attrs.frozen
class GameEnded(Event):
    """The game ended: ``board_full`` or ``tiles_exhausted`` (decisions 9)."""

    TYPE = "game_ended"
    reason: str


#: Every command Flip Over Frog takes, and every event it records.
COMMANDS: tuple[type[Command], ...] = (PlayTile, DiscardSnake)
EVENTS: tuple[type[Event], ...] = (
    FrogPlaced,
    SnakePlayed,
    SnakeDiscarded,
    TileDrawn,
    TurnPassed,
    GameEnded,
)
