"""Bots across the two interfaces: the client library's (:class:`clients.sdk.Bot`, on the wire
form of a view and of ``legal``) and the engine's (:class:`engine.core.Bot`, on command objects).

- :class:`WireSeat` lets a client-library bot play an in-process game (``lumin arena``,
  ``lumin selfplay``): each time, it hands the bot the seat's view and ``legal`` entries as the
  server would send them (through msgpack, so lists are lists and maps are maps) and turns the
  bot's command map back into the game's command;
- :class:`EngineBot` lets one of Lumin's own bots play over the network (``lumin bot``).

The engine is imported here; the client library never is the other way round.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import msgpack

from clients.sdk import Bot as WireBot
from clients.sdk import BotFactory as WireFactory
from clients.sdk import Move, Turn, load_bot
from engine.core import Action, Command, Game, Rejected, expand_legal, from_wire, to_wire
from engine.core import Bot as EngineBotProtocol
from engine.match import Match, SeatFactory

__all__ = ["BotRefused", "EngineBot", "WireSeat", "command_fields", "seat_factories"]


class BotRefused(Exception):
    """A client-library bot sent a command its game does not have or allow (a bug of the
    bot; the message names the bot, the seat, the command and the rules' reason)."""


def command_fields(game: Game) -> dict[str, list[str]]:
    """Each command type's field names, as ``GameInfo.commands`` sends them."""
    return {cls.TYPE: [field.name for field in attrs.fields(cls)] for cls in game.commands}


def _wire(value: Any) -> Any:
    """``value`` as a client receives it: packed and unpacked by msgpack."""
    return msgpack.unpackb(msgpack.packb(value), strict_map_key=False)


class WireSeat:
    """A client-library bot seated in a :class:`~engine.match.Match`: an engine bot."""

    def __init__(self, name: str, bot: WireBot, match: Match, seat: int) -> None:
        self.name = name
        self.bot = bot
        self.match = match
        self.seat = seat
        self.commands = command_fields(match.game)

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        game = self.match.game
        legal = _wire(game.legal(self.match.state, self.seat))
        turn = Turn.of(game.id, self.seat, _wire(view), legal, now, self.commands)
        move = self.bot.act(turn)
        if move is None:
            return None
        try:
            command = from_wire(game.commands, move.command)
        except Rejected as error:
            raise BotRefused(
                f"bot {self.name} (seat {self.seat}) sent {dict(move.command)!r}: {error.message}"
            ) from None
        if command not in options:
            raise BotRefused(
                f"bot {self.name} (seat {self.seat}) sent {dict(move.command)!r}, which is not"
                " among its seat's legal commands now"
            )
        return Action(now if move.at is None else max(now, move.at), command)


def seat_factories(kinds: Sequence[str]) -> dict[str, SeatFactory]:
    """The engine-side factories (``factory(match, seat, rng)``) of the ``module:callable``
    kinds among ``kinds``; the others are the game's own bots. Raises
    :class:`clients.sdk.BadBot` for a spec that names no factory."""
    factories: dict[str, SeatFactory] = {}
    for kind in kinds:
        if ":" in kind and kind not in factories:
            factories[kind] = _seated(kind, load_bot(kind))
    return factories


def _seated(name: str, factory: WireFactory) -> SeatFactory:
    def make(match: Match, seat: int, rng: random.Random) -> EngineBotProtocol:
        return WireSeat(name, factory(match.game.id, seat, rng), match, seat)

    return make


class EngineBot:
    """One of Lumin's own bots (an engine bot of ``game``) as a client-library bot."""

    def __init__(self, game: Game, bot: EngineBotProtocol) -> None:
        self.game = game
        self.bot = bot

    def act(self, turn: Turn) -> Move | None:
        options = expand_legal(self.game, turn.legal)
        action = self.bot.act(turn.view, options, turn.now)
        if action is None:
            return None
        return Move(to_wire(action.command), action.at)
