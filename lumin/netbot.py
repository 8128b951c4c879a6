"""``lumin bot URL ROOM --seat N``: one of Lumin's bots playing a seat over the network.

It connects with the Python client library like any player, joins the seat (or reclaims it with
a saved token), and whenever its live view changes asks the game's bot for an action, waits
until the action's moment and sends the command. It only ever sees what its seat sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time

from clients.sdk import LuminClient, ServerError
from engine.core import Action, expand_legal, to_wire
from engine.registry import get_game
from protocol.messages import CommandRejected

__all__ = ["play_over_network"]


async def play_over_network(
    url: str,
    room: str,
    seat: int,
    kind: str | None = None,
    name: str = "Lumin bot",
    token: str | None = None,
    code: str | None = None,
    seed: int = 0,
) -> dict[str, object]:
    """Play ``seat`` of ``room`` until the game ends; returns the game-over outcome."""
    async with await LuminClient.connect(url, name, token=token) as client:
        await client.join(room, seat, code=code)
        with contextlib.suppress(ServerError):  # once the game runs, there is nothing to ready
            await client.ready(room)
        while room not in client.room_info:
            await client.changed(room)
        game = get_game(client.room_info[room].game)
        brain = game.bots[kind or game.default_bot](game, seat, random.Random(seed))
        while room not in client.game_over:
            legal = client.legal(room)
            view = client.view(room)
            action: Action | None = None
            if legal and view is not None:
                action = brain.act(view, expand_legal(game, legal), time.time())
            if action is None:
                with contextlib.suppress(TimeoutError):
                    await client.changed(room, timeout=5.0)
                continue
            wait = action.at - time.time()
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    await client.changed(room, timeout=wait)
                    continue  # the view moved while we waited: think again
            answer = await client.act(room, to_wire(action.command))
            if isinstance(answer, CommandRejected):
                # Stale or refused: think again once the view changes (never a tight loop).
                with contextlib.suppress(TimeoutError):
                    await client.changed(room, timeout=1.0)
        over = client.game_over[room]
        return {"ranks": list(over.outcome.ranks), "scores": list(over.outcome.scores)}


def run(url: str, room: str, seat: int, **kwargs: object) -> dict[str, object]:
    """Blocking wrapper for the command line."""
    return asyncio.run(play_over_network(url, room, seat, **kwargs))  # type: ignore[arg-type]
