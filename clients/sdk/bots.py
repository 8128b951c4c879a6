"""The bot interface: one seat's player, reading what the seat sees over the network.

A bot is any object with ``act(turn) -> Move | None`` (:class:`Bot`). A :class:`Turn` holds the
seat's view and its ``legal`` entries exactly as the server sends them (the wire form; each
game's view is documented in ``docs/rules/<game>.md``), the concrete :class:`Option` s they
expand to, and the room clock. ``act`` is called whenever the seat's view may have changed; it
returns the command to send and when, or ``None`` to wait for the next change.

A bot file offers a factory, ``factory(game, seat, rng) -> Bot`` (:data:`BotFactory`): the game
id, the seat it plays and a seeded :class:`random.Random`, its only source of chance. The same
factory plays on a live server (:func:`play_seat`, ``lumin bot --kind module:callable``) and
in-process (``lumin arena``/``lumin selfplay`` with ``module:callable`` as a kind), where the
arena hands it the same wire forms. ``docs/bots.md`` walks through writing one.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

import attrs

from clients.sdk.client import ConnectionLost, LuminClient, RoomGone, ServerError
from clients.sdk.legal import Option, expand
from protocol.messages import CommandRejected, GameOver

__all__ = [
    "BadBot",
    "Bot",
    "BotFactory",
    "Move",
    "RandomBot",
    "Turn",
    "load_bot",
    "play_seat",
    "random_bot",
]


@attrs.frozen
class Move:
    """What a bot wants to do: send ``command`` (a map with ``type``, as an option's
    :attr:`~Option.command`) at room time ``at``, or at once when ``at`` is ``None`` or past."""

    command: Mapping[str, Any]
    at: float | None = None


@attrs.frozen
class Turn:
    """What a seat sees at one moment: ``view`` and ``legal`` as the server sent them,
    ``options`` (``legal`` expanded into concrete commands), ``now`` on the room clock (the
    clock of the view's deadlines), the ``game`` id and the ``seat``."""

    game: str
    seat: int
    view: Mapping[str, Any]
    legal: Sequence[Mapping[str, Any]]
    options: Sequence[Option]
    now: float

    @classmethod
    def of(
        cls,
        game: str,
        seat: int,
        view: Mapping[str, Any],
        legal: Sequence[Mapping[str, Any]],
        now: float,
        commands: Mapping[str, Sequence[str]] | None = None,
    ) -> Turn:
        """The turn for a view and its legal entries; ``commands`` is ``GameInfo.commands``
        (which keys of an entry are command fields; see :func:`~clients.sdk.legal.expand`)."""
        return cls(game, seat, view, tuple(legal), tuple(expand(legal, commands)), now)


@runtime_checkable
class Bot(Protocol):
    """A player for one seat (see the module docstring)."""

    def act(self, turn: Turn) -> Move | None:
        """The next move, or ``None`` to wait until the seat's view changes."""
        ...


#: Builds the bot of one seat: ``factory(game_id, seat, rng)``.
BotFactory = Callable[[str, int, random.Random], Bot]


class BadBot(Exception):
    """A ``module:callable`` that names no bot factory (the message says why)."""


class RandomBot:
    """Sends one of its seat's options, uniformly at random, at once."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, turn: Turn) -> Move | None:
        if not turn.options:
            return None
        return Move(self.rng.choice(turn.options).command)


def random_bot(game: str, seat: int, rng: random.Random) -> Bot:
    """The random player, for any game."""
    return RandomBot(rng)


def load_bot(spec: str) -> BotFactory:
    """The factory ``spec`` names: ``module:callable`` (a module importable from the current
    folder or the installed packages, as ``python -m`` finds it) or ``path/to/file.py:callable``.
    Raises :class:`BadBot` saying what is wrong."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise BadBot(f"{spec!r} is not MODULE:CALLABLE (such as my_bot:make_bot)")
    try:
        module = _module(where)
    except FileNotFoundError:
        raise BadBot(f"{spec!r}: there is no file {where}") from None
    except ImportError as error:
        raise BadBot(f"{spec!r}: cannot import {where} ({error})") from None
    factory = getattr(module, name, None)
    if not callable(factory):
        raise BadBot(f"{spec!r}: {where} has no callable {name!r}")
    return cast(BotFactory, factory)


def _module(where: str) -> Any:
    """The module at a file path (``*.py``) or of a dotted name (the current folder first)."""
    if where.endswith(".py") or os.sep in where or "/" in where:
        path = Path(where).resolve()
        if not path.is_file():
            raise FileNotFoundError(where)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return module
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(where)


async def _changed_within(client: LuminClient, room: str, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``room`` to change; whether it did."""
    try:
        await client.changed(room, timeout=seconds)
    except TimeoutError:
        return False
    return True


async def play_seat(
    client: LuminClient,
    room: str,
    seat: int,
    bot: Bot,
    game: str,
    commands: Mapping[str, Sequence[str]] | None = None,
) -> GameOver:
    """Let ``bot`` play ``seat`` of ``room`` (the client holds the seat already) until the
    game is over; returns the ``game_over``.

    Whenever the seat's view changes the bot is asked for a move; a move set for later waits
    for its moment unless the view changes first (then the bot thinks again). A refused
    command is thought over once the view changes (or after a second), never in a tight loop.
    A request that fails because the connection dropped waits for the resume, which the
    client makes by itself; giving up (``gave_up``) propagates. When the room is closed to the
    client before the game is over (``room_closed``, the seat ``kicked``, the room given up
    after a reconnect: :attr:`LuminClient.closed`), raises :class:`~clients.sdk.RoomGone`
    with the reason as its code.
    """
    while room not in client.game_over:
        if room in client.closed:
            raise RoomGone(client.closed[room])
        view = client.view(room)
        legal = client.legal(room)
        now = client.room_time(room)
        move = None
        if legal and view is not None:
            move = bot.act(Turn.of(game, seat, view, legal, now, commands))
        if move is None:
            await _changed_within(client, room, 5.0)
            continue
        wait = (move.at - now) if move.at is not None else 0.0
        if wait > 0 and await _changed_within(client, room, wait):
            continue
        try:
            answer = await client.act(room, move.command)
        except ConnectionLost as lost:
            if lost.code != "disconnected":
                raise
            await client.changed(room)  # the resume after the reconnect wakes this
            continue
        except ServerError:
            if room in client.closed:  # refused because the room closed meanwhile
                raise RoomGone(client.closed[room]) from None
            raise
        if isinstance(answer, CommandRejected):
            await _changed_within(client, room, 1.0)
    return client.game_over[room]
