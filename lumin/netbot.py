"""``lumin bot URL ROOM --seat N``: one of Lumin's bots playing a seat over the network.

It connects with the Python client library like any player, looks the room up (it watches it
first, to learn its game), checks that the game has the bot kind asked for, and only then joins
the seat (or reclaims it with a saved token). Whenever its live view changes it asks the game's
bot for an action, waits until the action's moment and sends the command. It only ever sees
what its seat sees. When the server goes away, the client library reconnects and resumes for
up to ``give_up`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

from clients.sdk import ConnectionLost, LuminClient, ServerError
from engine.core import Action, Bot, Game, expand_legal, to_wire
from engine.registry import get_game
from protocol.messages import CommandRejected, RoomSummary

__all__ = ["CannotPlay", "play_over_network", "run"]


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
) -> dict[str, object]:
    """Play ``seat`` of ``room`` until the game ends; returns the game-over outcome.

    Raises :class:`CannotPlay` when it cannot take the seat (nothing was joined), then
    :class:`~clients.sdk.ConnectionLost` (``gave_up``) when the server stays away longer than
    ``give_up`` seconds, or :class:`~clients.sdk.ServerError` for another refusal mid-game.
    """
    try:
        client = await LuminClient.connect(url, name, token=token, give_up=give_up)
    except ServerError as error:
        raise CannotPlay(str(error)) from error
    async with client:
        game, brain = await _take_seat(client, room, seat, kind, code, seed)
        return await _play(client, room, game, brain)


async def _take_seat(
    client: LuminClient, room: str, seat: int, kind: str | None, code: str | None, seed: int
) -> tuple[Game, Bot]:
    """Watch ``room`` to learn its game, check ``kind`` against the game's bots, then join
    ``seat`` and say ready; returns the game and the bot. Raises :class:`CannotPlay` before
    joining when anything is refused or unknown."""
    try:
        await client.watch(room, code=code)
        summary = await _summary(client, room)
        try:
            game = get_game(summary.game)
        except KeyError:
            raise CannotPlay(f"this Lumin has no rules for {summary.game!r}") from None
        chosen = kind or game.default_bot
        if chosen not in game.bots:
            kinds = ", ".join(sorted(game.bots))
            raise CannotPlay(f"{game.name} has no bot {chosen!r} (its bots: {kinds})")
        await client.join(room, seat, code=code)
    except ServerError as error:
        raise CannotPlay(str(error)) from error
    with contextlib.suppress(ServerError):  # once the game runs, there is nothing to ready
        await client.ready(room)
    return game, game.bots[chosen](game, seat, random.Random(seed))


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


async def _changed_within(client: LuminClient, room: str, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``room`` to change; whether it did."""
    try:
        await client.changed(room, timeout=seconds)
    except TimeoutError:
        return False
    return True


async def _play(client: LuminClient, room: str, game: Game, brain: Bot) -> dict[str, object]:
    """Act for the seat until the game is over; returns its outcome."""
    while room not in client.game_over:
        legal = client.legal(room)
        view = client.view(room)
        action: Action | None = None
        if legal and view is not None:
            action = brain.act(view, expand_legal(game, legal), time.time())
        if action is None:
            await _changed_within(client, room, 5.0)
            continue
        wait = action.at - time.time()
        if wait > 0 and await _changed_within(client, room, wait):
            continue  # the view moved while we waited: think again
        try:
            answer = await client.act(room, to_wire(action.command))
        except ConnectionLost as lost:
            if lost.code != "disconnected":
                raise
            await client.changed(room)  # the resume after the reconnect wakes this
            continue
        if isinstance(answer, CommandRejected):
            # Stale or refused: think again once the view changes (never a tight loop).
            await _changed_within(client, room, 1.0)
    over = client.game_over[room]
    return {"ranks": list(over.outcome.ranks), "scores": list(over.outcome.scores)}


def run(url: str, room: str, seat: int, **kwargs: Any) -> dict[str, object]:
    """Blocking wrapper for the command line."""
    return asyncio.run(play_over_network(url, room, seat, **kwargs))
