"""``lumin bot URL ROOM --seat N``: a bot playing a seat over the network.

It connects with the Python client library like any player, looks the room up (it watches it
first, to learn its game), finds the bot asked for, and only then joins the seat (or reclaims
it with a saved token). The bot is a client-library bot (:mod:`clients.sdk.bots`): a
``module:callable`` of the user's, ``random``, or one of the game's own bots from Lumin's engine
(:class:`lumin.adapters.EngineBot`), which a client-only install does not have. It only ever
sees what its seat sees. When the server goes away, the client library reconnects and resumes
for up to ``give_up`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from typing import Any

from clients.sdk import BadBot, Bot, LuminClient, ServerError, load_bot, play_seat, random_bot
from protocol.messages import GameInfo, RoomSummary

__all__ = ["CannotPlay", "choose_bot", "play_over_network", "run"]


class CannotPlay(Exception):
    """The bot did not take its seat: the server was unreachable, or refused the token, room,
    code or seat, or the room's game has no bot of the kind asked for (the message says
    which)."""


async def play_over_network(
    url: str,
    room: str,
    seat: int,
    kind: str | None = None,
    name: str = "Lumin bot",
    token: str | None = None,
    code: str | None = None,
    seed: int = 0,
    give_up: float = 60.0,
    seated: Callable[[], None] | None = None,
) -> dict[str, object]:
    """Play ``seat`` of ``room`` until the game ends; returns the game-over outcome.
    ``seated`` is called once the seat is taken.

    Raises :class:`CannotPlay` when it cannot take the seat (nothing was joined), then
    :class:`~clients.sdk.ConnectionLost` (``gave_up``) when the server stays away longer than
    ``give_up`` seconds, or :class:`~clients.sdk.ServerError` for another refusal mid-game.
    """
    try:
        client = await LuminClient.connect(url, name, token=token, give_up=give_up)
    except ServerError as error:
        raise CannotPlay(str(error)) from error
    async with client:
        info, brain = await _take_seat(client, room, seat, kind, code, seed)
        if seated is not None:
            seated()
        over = await play_seat(client, room, seat, brain, info.id, info.commands)
    return {"ranks": list(over.outcome.ranks), "scores": list(over.outcome.scores)}


def choose_bot(info: GameInfo, seat: int, kind: str | None, rng: random.Random) -> Bot:
    """The bot ``kind`` names for ``seat`` of a game of ``info``: ``module:callable``, or one
    of the game's own bots through Lumin's engine, or (without the engine) ``random``. The
    default is the game's default bot, or ``random`` without the engine. Raises
    :class:`CannotPlay` saying what is wrong."""
    if kind is not None and ":" in kind:
        try:
            return load_bot(kind)(info.id, seat, rng)
        except BadBot as error:
            raise CannotPlay(str(error)) from None
    try:
        from engine.registry import get_game
        from lumin.adapters import EngineBot
    except ImportError:  # a client-only install: no rules engine, so no engine bots
        if kind in (None, "random"):
            return random_bot(info.id, seat, rng)
        raise CannotPlay(
            f"{info.name}'s bot {kind!r} needs Lumin's rules engine, which this install has not"
            " (install 'lumin[server]'); give --kind random or MODULE:CALLABLE"
        ) from None
    try:
        game = get_game(info.id)
    except KeyError:
        raise CannotPlay(f"this Lumin has no rules for {info.id!r}") from None
    chosen = kind or game.default_bot
    if chosen not in game.bots:
        kinds = ", ".join(sorted(game.bots))
        raise CannotPlay(f"{game.name} has no bot {chosen!r} (its bots: {kinds})")
    return EngineBot(game, game.bots[chosen](game, seat, rng))


async def _take_seat(
    client: LuminClient, room: str, seat: int, kind: str | None, code: str | None, seed: int
) -> tuple[GameInfo, Bot]:
    """Watch ``room`` to learn its game, find the bot ``kind`` names, then join ``seat`` and
    say ready; returns the game's ``GameInfo`` and the bot. Raises :class:`CannotPlay` before
    joining when anything is refused or unknown."""
    try:
        await client.watch(room, code=code)
        summary = await _summary(client, room)
        games = {game.id: game for game in await client.list_games()}
        if summary.game not in games:
            raise CannotPlay(f"the server does not describe the game {summary.game!r}")
        info = games[summary.game]
        brain = choose_bot(info, seat, kind, random.Random(seed))
        await client.join(room, seat, code=code)
    except ServerError as error:
        raise CannotPlay(str(error)) from error
    with contextlib.suppress(ServerError):  # once the game runs, there is nothing to ready
        await client.ready(room)
    return info, brain


async def _summary(client: LuminClient, room: str) -> RoomSummary:
    """The room's summary, which the server sends right after a watch (within the client's
    request timeout, else :class:`CannotPlay`)."""
    try:
        async with asyncio.timeout(client.timeout):
            while room not in client.room_info:
                await client.changed(room)
    except TimeoutError:
        raise CannotPlay(f"the server sent no summary of room {room!r}") from None
    return client.room_info[room]


def run(url: str, room: str, seat: int, **kwargs: Any) -> dict[str, object]:
    """Blocking wrapper for the command line."""
    return asyncio.run(play_over_network(url, room, seat, **kwargs))
