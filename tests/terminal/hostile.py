"""A hostile Lumin server for ``lumin play``'s tests: it speaks the protocol with the real codec
and messages and answers what the terminal asks (hello, the games, the lobby, watching a room,
a ping), but every id, name, sentence and word of a view it makes up holds markup, terminal
escape sequences and other control characters (:data:`EVIL`).

A real Lumin server may come to refuse such names; this one is what the terminal must survive
from any server, or from anyone between it and the server."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

import attrs
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from protocol.codec import decode, encode
from protocol.errors import ProtocolError
from protocol.messages import (
    ChatMessage,
    Error,
    Games,
    Hello,
    ListGames,
    Message,
    Ok,
    Ping,
    Pong,
    RoomList,
    RoomSummary,
    RoomUpdate,
    SeatInfo,
    Snapshot,
    WatchLobby,
    WatchRoom,
    Welcome,
)
from protocol.versions import PROTOCOL_VERSION
from server.catalog import catalog

__all__ = ["EVIL", "ROOM", "hostile_server"]

#: What a hostile server puts in every string: an OSC 8 hyperlink, a screen clear, a C1 CSI,
#: a bell, a right-to-left override, markup that would close a tag that is not open, and an
#: action.
EVIL = (
    "\x1b]8;;http://evil.example/\x07link\x1b]8;;\x07\x1b[2J\x9b31m\x07\u202e[/][@click=app.quit]q"
)
#: The room it lists and lets anyone watch.
ROOM = "r-evil\x1b[5m"
#: A game it hosts that ``lumin play`` has no board for (drawn by the generic board, which
#: shows the view's fields as they come).
GAME = "evil\x1b[8m"


def _summary() -> RoomSummary:
    return RoomSummary(
        room=ROOM,
        game=GAME,
        seats=(
            SeatInfo(seat=0, kind="human", name=f"Eve{EVIL}", user="u-eve", connected=True),
            SeatInfo(seat=1, kind="bot", name=f"Bot{EVIL}", bot=f"kind{EVIL}", ready=True),
            SeatInfo(seat=2, kind="open"),
        ),
        state="playing",
        host="u-eve",
        created=time.time(),
    )


def _answers(request: Message) -> list[Message]:
    """What the hostile server sends for ``request``."""
    ref = getattr(request, "id", None)
    if isinstance(request, Hello):
        return [
            Welcome(
                ref=ref,
                version=PROTOCOL_VERSION,
                token="tk_hostile",
                user="u-ada",
                name=f"Ada{EVIL}",
                server_time=time.time(),
                max_frame=65536,
            )
        ]
    if isinstance(request, ListGames):
        games = tuple(attrs.evolve(game, name=f"{game.name}{EVIL}") for game in catalog())
        return [Games(ref=ref, games=games)]
    if isinstance(request, WatchLobby):
        return [RoomList(ref=ref, rooms=(_summary(),), total=1)]
    if isinstance(request, WatchRoom):
        view = {f"field{EVIL}": f"value{EVIL}", "turn": f"Eve{EVIL}"}
        return [
            Snapshot(room=ROOM, epoch="e1", seq=1, seat=None, view=view),
            RoomUpdate(info=_summary()),
            ChatMessage(
                room=ROOM,
                channel="players",
                user="u-eve",
                name=f"Eve{EVIL}",
                seat=0,
                text=f"hello{EVIL}",
                server_time=time.time(),
            ),
            Ok(ref=ref, room=ROOM),
        ]
    if isinstance(request, Ping):
        return [Pong(ref=ref, client_time=request.client_time, server_time=time.time())]
    return [Error(code=f"bad{EVIL}", message=f"Refused: {EVIL}", ref=ref)]


async def _speak(socket: ServerConnection) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for frame in socket:
            if isinstance(frame, str):
                continue
            try:
                # not sender="client": a client asks again for the ids this server made up,
                # control characters and all (a Lumin server never hands them out)
                request = decode(frame)
            except ProtocolError:
                continue
            for answer in _answers(request):
                await socket.send(encode(answer))


@contextlib.asynccontextmanager
async def hostile_server() -> AsyncIterator[str]:
    """Run the hostile server on a free loopback port; yields its websocket URL."""
    async with serve(_speak, "127.0.0.1", 0) as listening:
        port = next(iter(listening.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws"
