"""What the server does with each request a client sends, once the connection has parsed it.

Every handler is a function of the :class:`Session` that sent the request (one connection:
:class:`server.client.Client`) and the request; it answers through ``session.send`` and
refuses by raising :class:`~server.errors.Refused`, which :func:`handle` turns into an
``error`` with the request's ``ref``. ``act`` is the exception: every refusal of a game
command, the room's as well as the rules', is answered with ``rejected`` (:func:`reject`).
The handlers touch no socket, so they are tested with a stand-in session
(``tests/server/test_handlers.py``).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import attrs
import structlog

from protocol.connection import ServerConnection
from protocol.errors import ErrorCode
from protocol.messages import (
    Act,
    Bye,
    ChatSend,
    CloseReplay,
    CommandRejected,
    CreateRoom,
    Error,
    Games,
    GetSnapshot,
    Hello,
    JoinSeat,
    Kick,
    Leave,
    LimitsInfo,
    ListGames,
    ListRooms,
    Message,
    Moved,
    Mute,
    Ok,
    OpenReplay,
    Ping,
    Pong,
    Ready,
    Rematch,
    ReplaySeek,
    ReplayState,
    ReplayStep,
    ReplayViewer,
    Resume,
    RoomCreated,
    SetName,
    Start,
    UnwatchLobby,
    WatchLobby,
    WatchRoom,
    Welcome,
)
from protocol.versions import MOVED_VERSION, NAME_VERSION
from server.bans import banned_sentence
from server.batch import QueuedAct
from server.catalog import catalog
from server.config import Settings
from server.errors import Moved as RoomElsewhere
from server.errors import Refused
from server.hub import Hub
from server.replay import Replay
from server.room import Peer, Room

__all__ = [
    "HANDLERS",
    "MAX_MUTED",
    "MAX_NAME",
    "MAX_REPLAYS",
    "Session",
    "failed",
    "handle",
    "limits_info",
    "queue_act",
    "reject",
    "send_moved",
]

log = structlog.get_logger("lumin.server")

#: What one connection may hold open, so no client can grow the server without bound.
MAX_REPLAYS = 8
MAX_MUTED = 256
#: The longest name ``set_name`` takes, in characters.
MAX_NAME = 40


class Session(Peer, Protocol):
    """One client connection as the request handlers see it."""

    hub: Hub
    settings: Settings
    #: The sans-I/O connection (its negotiated ``version``).
    conn: ServerConnection
    #: Whose rate limit this connection's messages count against (its identity once greeted).
    person: str
    #: The rooms this connection has joined or watches, by id.
    rooms: dict[str, Room]
    #: The replays this connection has open, by replay id.
    replays: dict[str, Replay]

    def banish(self, message: str, bye: bool = True) -> None:
        """Close the connection of a banned identity or address (1008)."""
        ...


@functools.cache
def limits_info(settings: Settings) -> LimitsInfo:
    """The limits ``welcome`` announces (docs/protocol.md, "Limits")."""
    return LimitsInfo(
        rate=settings.rate,
        burst=settings.burst,
        address_rate=settings.address_rate,
        address_burst=settings.address_burst,
        chat_length=settings.chat_length,
        chat_rate=settings.chat_rate,
        rooms=settings.rooms_per_identity,
        replays=MAX_REPLAYS,
        lobby_page=settings.lobby_page,
    )


async def handle(session: Session, message: Message) -> None:
    """Answer one parsed message: its handler's answer, ``unknown_type`` for a message that
    is not a request, the refusal's ``error``, or ``internal`` when the server fails (logged)."""
    handler = HANDLERS.get(type(message))
    ref = getattr(message, "id", None)
    if handler is None:
        session.send(
            Error(
                code=ErrorCode.UNKNOWN_TYPE.value,
                message=f"{message.TYPE!r} is not a request.",
                ref=ref,
            )
        )
        return
    try:
        await handler(session, message)
    except Refused as refusal:
        session.hub.metrics.protocol_errors.labels(refusal.code).inc()
        session.send(Error(code=refusal.code, message=refusal.message, ref=ref))
    except RoomElsewhere as elsewhere:
        send_moved(session, elsewhere.room, elsewhere.url, ref)
    except Exception:
        log.exception("request_failed", type=message.TYPE)
        failed(session, ref)


def send_moved(session: Session, room: str | None, url: str, ref: int | None) -> None:
    """Send the client on to the node at ``url`` that plays ``room`` (or should create it):
    ``moved`` from protocol version 2, else ``try_again`` naming the URL."""
    if session.conn.version is not None and session.conn.version >= MOVED_VERSION:
        session.send(Moved(ref=ref, room=room, url=url))
        return
    what = f"Room {room} is" if room is not None else "New rooms are"
    session.send(
        Error(
            code=ErrorCode.TRY_AGAIN.value,
            message=f"{what} played on another node of this cluster, at {url}; connect there.",
            ref=ref,
        )
    )


def failed(session: Session, ref: int | None) -> None:
    """Answer a request the server failed on (a bug, logged by the caller)."""
    session.send(
        Error(code=ErrorCode.INTERNAL.value, message="The server failed on this request.", ref=ref)
    )


async def on_hello(session: Session, hello: Hello) -> None:
    ban = session.hub.bans.of_address(session.address)  # before any identity is made for it
    user, token, known = "", "", False
    if ban is None:
        user, token, known = await session.hub.identify(hello.name, hello.token)
        ban = session.hub.bans.of_user(user)
    if ban is not None:
        refusal = Error(
            ref=hello.id, code=ErrorCode.BANNED.value, message=banned_sentence(ban), fatal=True
        )
        session.send(refusal)
        session.banish("", bye=False)
        return
    session.user, session.name, session.person = user, hello.name, user
    structlog.contextvars.bind_contextvars(user=user)
    if hello.token and not known:
        # No ref: the answer to hello is the welcome below, with the new identity.
        session.send(
            Error(
                code=ErrorCode.BAD_TOKEN.value,
                message="That token is unknown; this connection has a new identity.",
            )
        )
    assert session.conn.version is not None
    held = tuple(
        r.id
        for r in session.hub.rooms.values()
        if r.seat_of(user) is not None and r.status != "finished"
    )
    session.send(
        Welcome(
            ref=hello.id,
            version=session.conn.version,
            token=token,
            user=user,
            name=hello.name,
            server_time=time.time(),
            rooms=held,
            max_frame=session.settings.max_frame,
            limits=limits_info(session.settings),
        )
    )


async def on_ping(session: Session, ping: Ping) -> None:
    session.send(Pong(ref=ping.id, client_time=ping.client_time, server_time=time.time()))


async def on_set_name(session: Session, request: SetName) -> None:
    """Play under a new name from now on (version 4): this connection's chat lines and the
    identity's seats in this node's rooms not finished take it; their members get
    ``room_update``."""
    if (session.conn.version or 0) < NAME_VERSION:
        raise Refused(
            ErrorCode.UNKNOWN_TYPE,
            f"'set_name' needs protocol version {NAME_VERSION}; reconnect with the new name.",
        )
    name = request.name.strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise Refused(ErrorCode.BAD_FIELD, f"set_name.name: a name has 1 to {MAX_NAME} characters.")
    session.name = name
    for room in list(session.hub.rooms.values()):
        room.rename(session.user, name)
    session.send(Ok(ref=request.id))


async def on_watch_lobby(session: Session, request: WatchLobby) -> None:
    session.hub.lobby.add(session)
    session.send(attrs.evolve(await session.hub.summaries(), ref=request.id))


async def on_unwatch_lobby(session: Session, request: UnwatchLobby) -> None:
    session.hub.lobby.discard(session)
    session.send(Ok(ref=request.id))


async def on_list_games(session: Session, request: ListGames) -> None:
    session.send(Games(ref=request.id, games=catalog()))


async def on_list_rooms(session: Session, request: ListRooms) -> None:
    page = await session.hub.summaries(request.game, request.offset, request.limit)
    session.send(attrs.evolve(page, ref=request.id))


async def on_create_room(session: Session, request: CreateRoom) -> None:
    room = await session.hub.create_room(session, request)
    session.send(
        RoomCreated(ref=request.id, room=room.id, code=room.code, commitment=room.commitment)
    )
    await _enter(session, room, lambda: room.watch(session, room.code))
    if all(seat.kind == "bot" for seat in room.seats):
        await room.call(lambda: room.begin(None))


async def _room(session: Session, room_id: str, watching: bool = False) -> Room:
    """The live room, on this node (:meth:`Hub.locate`: ``moved`` when another plays it,
    unless ``watching``: a spectator watches it relayed here)."""
    room = await session.hub.locate(room_id, session.user if watching else None)
    return room  # type: ignore[return-value]  # a RemoteRoom answers a spectator's requests


async def _enter(session: Session, room: Room, work: Callable[[], Awaitable[None]]) -> None:
    """Run a join or watch, knowing the room from the start (its snapshot comes first)."""
    known = room.id in session.rooms
    session.rooms[room.id] = room
    try:
        await room.call(work)
    except Refused:
        if not known:
            session.rooms.pop(room.id, None)
            room.detach(session)  # a failure half-way must not leave this connection attached
        raise


async def on_join_seat(session: Session, request: JoinSeat) -> None:
    room = await _room(session, request.room)
    await _enter(session, room, lambda: room.join(session, request.seat, request.code))
    session.send(Ok(ref=request.id, room=room.id))


async def on_watch_room(session: Session, request: WatchRoom) -> None:
    room = await _room(session, request.room, watching=True)
    await _enter(session, room, lambda: room.watch(session, request.code))
    session.send(Ok(ref=request.id, room=room.id))


def _in(session: Session, room_id: str) -> Room:
    room = session.rooms.get(room_id)
    if room is None:
        raise Refused(ErrorCode.NOT_IN_ROOM, f"Join or watch room {room_id!r} first.")
    return room


async def on_ready(session: Session, request: Ready) -> None:
    room = _in(session, request.room)
    await room.call(lambda: room.ready(session, request.ready))
    session.send(Ok(ref=request.id, room=room.id))


async def on_leave(session: Session, request: Leave) -> None:
    room = _in(session, request.room)
    await room.call(lambda: room.leave(session))
    session.rooms.pop(room.id, None)
    session.send(Ok(ref=request.id, room=room.id))


async def on_start(session: Session, request: Start) -> None:
    room = _in(session, request.room)
    await room.call(lambda: room.begin(session))
    session.send(Ok(ref=request.id, room=room.id))


async def on_kick(session: Session, request: Kick) -> None:
    room = _in(session, request.room)
    await room.call(lambda: room.kick(session, request.seat))
    session.send(Ok(ref=request.id, room=room.id))


async def on_rematch(session: Session, request: Rematch) -> None:
    room = _in(session, request.room)
    new = await session.hub.rematch(session, room)
    session.send(Ok(ref=request.id, room=new.id))


async def on_act(session: Session, request: Act) -> None:
    """A game command. Every refusal, the room's (stale, not seated...) as well as the
    rules', is answered with ``rejected``; ``error`` is for malformed messages only."""
    answer = queue_act(session, request)
    if answer is None:
        return
    try:
        await answer
    except Refused as refusal:
        reject(session, request, refusal)


def queue_act(session: Session, request: Act) -> asyncio.Future[Any] | None:
    """Queue ``request`` in its room, which answers it (``accepted`` or ``rejected``) once
    decided; a refusal before the room (not in it, not seated, closed) is answered here
    and gives ``None``."""
    try:
        room = _in(session, request.room)
        seat = room.seat_of(session.user)
        if seat is None:
            raise Refused(ErrorCode.NOT_SEATED, "Spectators cannot act; join a seat to play.")
        return room.submit(QueuedAct(session, seat, request.command, request.id, request.seq))
    except Refused as refusal:
        reject(session, request, refusal)
        return None


def reject(session: Session, request: Act, refusal: Refused) -> None:
    session.hub.metrics.rejections.labels(refusal.code).inc()
    session.send(
        CommandRejected(
            ref=request.id, room=request.room, code=refusal.code, message=refusal.message
        )
    )


async def on_resume(session: Session, request: Resume) -> None:
    room = await _room(session, request.room, watching=True)
    known = room.seat_of(session.user) is not None or room.id in session.rooms
    if room.private and not known and request.code != room.code:
        room.detach(session)  # a room relayed for this request alone stops being relayed
        raise Refused(ErrorCode.BAD_CODE, "This private room needs its code.")
    await _enter(
        session, room, lambda: room.resume(session, request.seq, request.epoch, request.id)
    )


async def on_get_snapshot(session: Session, request: GetSnapshot) -> None:
    room = _in(session, request.room)
    await room.call(lambda: room.send_snapshot(session, request.id))


async def on_chat_send(session: Session, request: ChatSend) -> None:
    room = _in(session, request.room)
    await room.call(lambda: room.chat(session, request.text))
    session.send(Ok(ref=request.id, room=room.id))


async def on_mute(session: Session, request: Mute) -> None:
    if request.muted:
        if len(session.muted) >= MAX_MUTED:
            raise Refused(ErrorCode.BAD_FIELD, f"At most {MAX_MUTED} people can be muted.")
        session.muted.add(request.user[:64])
    else:
        session.muted.discard(request.user)
    session.send(Ok(ref=request.id))


def _replay_state(session: Session, replay_id: str, replay: Replay, ref: int | None) -> None:
    session.send(
        ReplayState(
            ref=ref,
            replay=replay_id,
            room=replay.row.id,
            position=replay.position,
            length=replay.length,
            viewer=replay.viewer,
            view=replay.view(),
            at=replay.at,
        )
    )


def _replay(session: Session, replay_id: str) -> Replay:
    replay = session.replays.get(replay_id)
    if replay is None:
        raise Refused(ErrorCode.NO_SUCH_ROOM, f"No open replay {replay_id!r}.")
    return replay


async def on_open_replay(session: Session, request: OpenReplay) -> None:
    if len(session.replays) >= MAX_REPLAYS:
        raise Refused(ErrorCode.BAD_FIELD, f"At most {MAX_REPLAYS} open replays; close one first.")
    replay = await Replay.open(
        session.hub.store, request.room, request.viewer, request.code, session.user
    )
    replay_id = f"p{len(session.replays) + 1}"
    while replay_id in session.replays:
        replay_id += "x"
    session.replays[replay_id] = replay
    _replay_state(session, replay_id, replay, request.id)


async def on_replay_step(session: Session, request: ReplayStep) -> None:
    replay = _replay(session, request.replay)
    replay.seek(replay.position + request.steps)
    _replay_state(session, request.replay, replay, request.id)


async def on_replay_seek(session: Session, request: ReplaySeek) -> None:
    replay = _replay(session, request.replay)
    replay.seek(request.position)
    _replay_state(session, request.replay, replay, request.id)


async def on_replay_viewer(session: Session, request: ReplayViewer) -> None:
    replay = _replay(session, request.replay)
    replay.look_as(request.viewer)
    _replay_state(session, request.replay, replay, request.id)


async def on_close_replay(session: Session, request: CloseReplay) -> None:
    session.replays.pop(request.replay, None)
    session.send(Ok(ref=request.id))


async def on_bye(session: Session, request: Bye) -> None:
    """The client is leaving; the read loop ends once this returns."""


#: A request handler: answers ``request`` for ``session``.
Handler = Callable[[Session, Any], Awaitable[None]]

#: The handler of every request type; a message type not here is not a request.
HANDLERS: Mapping[type[Message], Handler] = {
    Hello: on_hello,
    Ping: on_ping,
    SetName: on_set_name,
    WatchLobby: on_watch_lobby,
    UnwatchLobby: on_unwatch_lobby,
    ListGames: on_list_games,
    ListRooms: on_list_rooms,
    CreateRoom: on_create_room,
    JoinSeat: on_join_seat,
    WatchRoom: on_watch_room,
    Ready: on_ready,
    Leave: on_leave,
    Start: on_start,
    Kick: on_kick,
    Rematch: on_rematch,
    Act: on_act,
    Resume: on_resume,
    GetSnapshot: on_get_snapshot,
    ChatSend: on_chat_send,
    Mute: on_mute,
    OpenReplay: on_open_replay,
    ReplayStep: on_replay_step,
    ReplaySeek: on_replay_seek,
    ReplayViewer: on_replay_viewer,
    CloseReplay: on_close_replay,
    Bye: on_bye,
}
