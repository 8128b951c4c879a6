"""The server: one port for the websocket endpoint (``/ws``), the health check (``/healthz``),
Prometheus metrics (``/metrics``), finished games' logs (``/rooms/<id>/log``) and the browser
client's static files (``/``), through websockets' HTTP hook.

Each websocket connection is a :class:`Client` on a :class:`~server.transport.ClientSocket`:
the sans-I/O :class:`ServerConnection` parses its messages, rate limits that outlive the
connection (:mod:`server.limits`) bound what it may ask, its input is parsed in slices against
a byte budget, and what it is sent is written without ever waiting for it, so a slow client is
dropped instead of slowing its rooms.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import gc
import json
import math
import mimetypes
import signal
import socket
import sqlite3
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

import attrs
import structlog
from websockets.asyncio.server import Server, serve
from websockets.asyncio.server import ServerConnection as Socket
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from protocol.codec import Limits, Peek, decode, encode_refusal, peek
from protocol.connection import InvalidState, ServerConnection
from protocol.connection import State as ConnectionState
from protocol.errors import ErrorCode, ProtocolError
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
    Start,
    UnwatchLobby,
    WatchLobby,
    WatchRoom,
    Welcome,
)
from server.batch import QueuedAct
from server.catalog import catalog
from server.config import Settings
from server.datalock import DataFolderInUse, DataLock
from server.errors import Refused
from server.hub import Hub
from server.limits import RateLimits, client_address, parse_networks
from server.metrics import Metrics
from server.replay import Replay, log_document, may_read
from server.room import Room
from server.store import EventStore
from server.transport import ClientSocket, bind, drop, write_frames

__all__ = ["Client", "LuminServer", "StartupError", "run"]

log = structlog.get_logger("lumin.server")

#: Bursts' worth of refusals in a row (without a calm moment) after which a flooding connection
#: is closed (1008).
FLOOD_CLOSE = 2

#: What one connection may hold open, so no client can grow the server without bound.
MAX_REPLAYS = 8
MAX_MUTED = 256


@functools.cache
def _limits_info(settings: Settings) -> LimitsInfo:
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


class Client:
    """One websocket connection (a :class:`~server.room.Peer` to the rooms it is in)."""

    def __init__(
        self, socket: ClientSocket, hub: Hub, settings: Settings, limits: RateLimits
    ) -> None:
        self.socket = socket
        self.hub = hub
        self.settings = settings
        self.limits = limits
        self.conn = ServerConnection(limits=Limits(max_frame=settings.max_frame))
        self.user = ""
        self.name = ""
        self.address = socket.address
        #: Whose rate limit this connection's messages count against: its own until
        #: ``hello``, then its identity's, shared by every connection of that identity.
        self.person = "c" + socket.id.hex
        self.muted: set[str] = set()
        self.rooms: dict[str, Room] = {}
        self.replays: dict[str, Replay] = {}
        #: Messages refused over the rate limit since the last calm moment.
        self.floods = 0
        self.dropped = False
        #: Frames made during this loop turn, written together at its end.
        self.frames: list[bytes] = []
        #: Acts taken straight from the socket (:meth:`_take`) that their room has not answered.
        self.inflight: set[asyncio.Future[Any]] = set()

    # -- sending (never blocks the caller) ------------------------------------------------------

    def send(self, message: Message) -> None:
        try:
            self.conn.send(message)
        except InvalidState:
            return
        self._flush()

    def _flush(self) -> None:
        for frame in self.conn.data_to_send():
            self.send_frame(frame)

    def send_frame(self, frame: bytes) -> None:
        """Queue one frame for this loop turn's write (see :meth:`_write`); never waits."""
        if self.dropped:
            return
        self.frames.append(frame)
        if len(self.frames) == 1:
            asyncio.get_running_loop().call_soon(self._write)

    def _write(self) -> None:
        """Write the frames of this loop turn in one go (one system call, not one per frame).

        They go into the connection's transport buffer, which the operating system drains as
        the client reads; a client whose unsent bytes pass ``send_buffer`` cannot keep up and
        is disconnected, so it never slows its room or holds the server's memory.
        """
        frames, self.frames = self.frames, []
        if not frames or self.dropped:
            return
        waiting = write_frames(self.socket, frames)
        if waiting is not None and waiting > self.settings.send_buffer:
            self.dropped = True
            self.hub.metrics.dropped.inc()
            log.info("slow_client_dropped", user=self.user)
            drop(self.socket, 1008, "too slow: unsent data passed the limit", grace=0.0)

    # -- receiving ------------------------------------------------------------------------------

    def _allow(self) -> bool:
        """Whether the rate limits let one more message of this person's through (see
        :class:`~server.limits.RateLimits`); a calm person is forgiven past floods."""
        now = time.monotonic()
        if not self.limits.message(self.person, self.address, now):
            return False
        if self.floods and self.limits.calm(self.person, self.address, now):
            self.floods = 0
        return True

    async def serve(self) -> None:
        """Read frames until the connection closes, answering each in turn.

        An ``act`` arriving while nothing else of this connection's waits or is being handled
        is taken at the socket instead (:meth:`_take`), without waking this task; a message
        that arrives while such acts are still in their rooms waits for their answers first,
        so requests are still handled in the order they arrive.
        """
        self.socket.take = self._take
        try:
            async for frame in self.socket:
                try:
                    if self.inflight:
                        await asyncio.wait(set(self.inflight))
                    if not await self._receive(frame):
                        break
                    if self.socket.queued > 1:
                        # More is waiting (websockets hands queued messages over without
                        # yielding): let every other connection and room have a turn first,
                        # so a client that sends a lot at once only ever holds the loop for
                        # one message.
                        await asyncio.sleep(0)
                finally:
                    self.socket.handled(frame)
        except ConnectionClosed:
            pass
        finally:
            self.socket.take = None
            self._goodbye()
            self._write()  # answers made just now (a bye's) go out before the close frame
            await self.socket.close(self.conn.close_code or 1000)

    def going_away(self) -> None:
        """Say ``bye`` (``going_away``) before the server closes this connection with 1001 as
        it shuts down; the frame is written at once."""
        self.send(Bye(code="going_away", message="The server is shutting down."))
        self._write()

    async def _receive(self, frame: bytes | str) -> bool:
        """Handle one message from the socket; ``False`` once the connection is to close."""
        if not self._allow():
            self.floods += 1
            self.hub.metrics.protocol_errors.labels(ErrorCode.RATE_LIMITED.value).inc()
            self._refuse_flood(frame)
            if self.floods > FLOOD_CLOSE * self.settings.burst:
                log.info("flood_closed", user=self.user, address=self.address)
                self._write()  # what was said before the close goes out first
                drop(self.socket, 1008, "flooding")
                return False
            # Read no faster than the limits allow: until a token is due, what the client
            # sends waits in its socket (TCP pushes back), so a flood costs this server a
            # bounded amount of work however fast it comes.
            self._write()
            await asyncio.sleep(self.limits.next_token(self.person, self.address, time.monotonic()))
            return True
        if isinstance(frame, str):
            self.send(
                Error(
                    code=ErrorCode.NOT_MSGPACK.value,
                    message="Frames are binary msgpack, not text.",
                )
            )
            return True
        self.conn.receive_data(frame)
        for event in self.conn.events_received():
            if isinstance(event, ProtocolError):
                self.hub.metrics.protocol_errors.labels(event.code.value).inc()
            else:
                await self._handle(event)
        self._flush()
        return not self.conn.close_expected()

    def _take(self, frame: bytes | bytearray | memoryview) -> bool:
        """The socket's ``take`` hook (:class:`~server.transport.ClientSocket`): decide at once
        whether ``frame`` is an ``act`` that can go straight to its room, and hand it over if
        so.

        It can when the connection is greeted, nothing of this connection's is waiting or
        being handled (so the order of requests holds) and the rate limit allows it. The
        room answers it as always; a refusal before the room is answered here. Anything else
        (another message, a bad frame, a flood) is left to :meth:`serve`, which reports it.
        Every move of a game is an ``act``, and this spares each one two task switches.
        """
        if (
            self.socket.queued
            or self.inflight
            or self.dropped
            or self.conn.state is not ConnectionState.OPEN
        ):
            return False
        try:
            request = decode(bytes(frame), sender="client", limits=self.conn.limits)
        except ProtocolError:
            return False
        if type(request) is not Act or not self._allow():
            return False
        try:
            answer = self._queue_act(request)
        except Exception:
            log.exception("request_failed", type=Act.TYPE, user=self.user)
            self._failed(request.id)
            return True
        if answer is not None:
            self.inflight.add(answer)
            answer.add_done_callback(functools.partial(self._acted, request))
        return True

    def _acted(self, request: Act, answer: asyncio.Future[Any]) -> None:
        """An act taken at the socket has its answer: a room's refusal is sent here (the
        rules' and the room's own answers were sent by the room)."""
        self.inflight.discard(answer)
        if answer.cancelled():
            return
        error = answer.exception()
        if isinstance(error, Refused):
            self._reject(request, error)
        elif error is not None:
            log.error("request_failed", type=Act.TYPE, user=self.user, error=repr(error))
            self._failed(request.id)

    def _failed(self, ref: int | None) -> None:
        """Answer a request the server failed on (a bug, logged by the caller)."""
        self.send(
            Error(
                code=ErrorCode.INTERNAL.value, message="The server failed on this request.", ref=ref
            )
        )

    def _refuse_flood(self, frame: bytes | str) -> None:
        """Answer a message over the rate limit, unexecuted and read no further than its
        ``type``, ``id`` and ``room`` (:func:`~protocol.codec.peek`): an ``act`` gets
        ``rejected``, another request an ``error``, each with its ``ref`` (so no request is
        left hanging); frames without an id get an error now and then."""
        seen = Peek() if isinstance(frame, str) else peek(frame, self.conn.limits)
        if seen.id is None and self.floods != 1 and self.floods % 100:
            return
        text = (
            f"At most {self.settings.rate:g} messages per second (bursts of"
            f" {self.settings.burst}) per person and {self.settings.address_rate:g} per address;"
            " this one was not executed."
        )
        room = seen.room if seen.type == Act.TYPE else None
        self.send_frame(encode_refusal(ErrorCode.RATE_LIMITED.value, text, seen.id, room))

    def _goodbye(self) -> None:
        self.hub.lobby.discard(self)
        for room in self.rooms.values():
            room.detach(self)
        self.rooms.clear()

    async def _handle(self, message: Message) -> None:
        handler = _HANDLERS.get(type(message))
        ref = getattr(message, "id", None)
        if handler is None:
            self.send(
                Error(
                    code=ErrorCode.UNKNOWN_TYPE.value,
                    message=f"{message.TYPE!r} is not a request.",
                    ref=ref,
                )
            )
            return
        try:
            await handler(self, message)
        except Refused as refusal:
            self.hub.metrics.protocol_errors.labels(refusal.code).inc()
            self.send(Error(code=refusal.code, message=refusal.message, ref=ref))
        except Exception:
            log.exception("request_failed", type=message.TYPE)
            self._failed(ref)

    # -- requests -------------------------------------------------------------------------------

    async def on_hello(self, hello: Hello) -> None:
        user, token, known = self.hub.identify(hello.name, hello.token)
        self.user, self.name, self.person = user, hello.name, user
        structlog.contextvars.bind_contextvars(user=user)
        if hello.token and not known:
            # No ref: the answer to hello is the welcome below, with the new identity.
            self.send(
                Error(
                    code=ErrorCode.BAD_TOKEN.value,
                    message="That token is unknown; this connection has a new identity.",
                )
            )
        assert self.conn.version is not None
        held = tuple(
            r.id
            for r in self.hub.rooms.values()
            if r.seat_of(user) is not None and r.status != "finished"
        )
        self.send(
            Welcome(
                ref=hello.id,
                version=self.conn.version,
                token=token,
                user=user,
                name=hello.name,
                server_time=time.time(),
                rooms=held,
                max_frame=self.settings.max_frame,
                limits=_limits_info(self.settings),
            )
        )

    async def on_ping(self, ping: Ping) -> None:
        self.send(Pong(ref=ping.id, client_time=ping.client_time, server_time=time.time()))

    async def on_watch_lobby(self, request: WatchLobby) -> None:
        self.hub.lobby.add(self)
        self.send(attrs.evolve(self.hub.summaries(), ref=request.id))

    async def on_unwatch_lobby(self, request: UnwatchLobby) -> None:
        self.hub.lobby.discard(self)
        self.send(Ok(ref=request.id))

    async def on_list_games(self, request: ListGames) -> None:
        self.send(Games(ref=request.id, games=catalog()))

    async def on_list_rooms(self, request: ListRooms) -> None:
        page = self.hub.summaries(request.game, request.offset, request.limit)
        self.send(attrs.evolve(page, ref=request.id))

    async def on_create_room(self, request: CreateRoom) -> None:
        room = await self.hub.create_room(self, request)
        self.send(
            RoomCreated(ref=request.id, room=room.id, code=room.code, commitment=room.commitment)
        )
        await self._enter(room, lambda: room.watch(self, room.code))
        if all(seat.kind == "bot" for seat in room.seats):
            await room.call(lambda: room.begin(None))

    def _room(self, room_id: str) -> Room:
        return self.hub.room(room_id)

    async def _enter(self, room: Room, work: Callable[[], Awaitable[None]]) -> None:
        """Run a join or watch, knowing the room from the start (its snapshot comes first)."""
        known = room.id in self.rooms
        self.rooms[room.id] = room
        try:
            await room.call(work)
        except Refused:
            if not known:
                self.rooms.pop(room.id, None)
                room.detach(self)  # a failure half-way must not leave this connection attached
            raise

    async def on_join_seat(self, request: JoinSeat) -> None:
        room = self._room(request.room)
        await self._enter(room, lambda: room.join(self, request.seat, request.code))
        self.send(Ok(ref=request.id, room=room.id))

    async def on_watch_room(self, request: WatchRoom) -> None:
        room = self._room(request.room)
        await self._enter(room, lambda: room.watch(self, request.code))
        self.send(Ok(ref=request.id, room=room.id))

    def _in(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise Refused(ErrorCode.NOT_IN_ROOM, f"Join or watch room {room_id!r} first.")
        return room

    async def on_ready(self, request: Ready) -> None:
        room = self._in(request.room)
        await room.call(lambda: room.ready(self, request.ready))
        self.send(Ok(ref=request.id, room=room.id))

    async def on_leave(self, request: Leave) -> None:
        room = self._in(request.room)
        await room.call(lambda: room.leave(self))
        self.rooms.pop(room.id, None)
        self.send(Ok(ref=request.id, room=room.id))

    async def on_start(self, request: Start) -> None:
        room = self._in(request.room)
        await room.call(lambda: room.begin(self))
        self.send(Ok(ref=request.id, room=room.id))

    async def on_kick(self, request: Kick) -> None:
        room = self._in(request.room)
        await room.call(lambda: room.kick(self, request.seat))
        self.send(Ok(ref=request.id, room=room.id))

    async def on_rematch(self, request: Rematch) -> None:
        room = self._in(request.room)
        new = await self.hub.rematch(self, room)
        self.send(Ok(ref=request.id, room=new.id))

    async def on_act(self, request: Act) -> None:
        """A game command. Every refusal, the room's (stale, not seated...) as well as the
        rules', is answered with ``rejected``; ``error`` is for malformed messages only."""
        answer = self._queue_act(request)
        if answer is None:
            return
        try:
            await answer
        except Refused as refusal:
            self._reject(request, refusal)

    def _queue_act(self, request: Act) -> asyncio.Future[Any] | None:
        """Queue ``request`` in its room, which answers it (``accepted`` or ``rejected``) once
        decided; a refusal before the room (not in it, not seated, closed) is answered here
        and gives ``None``."""
        try:
            room = self._in(request.room)
            seat = room.seat_of(self.user)
            if seat is None:
                raise Refused(ErrorCode.NOT_SEATED, "Spectators cannot act; join a seat to play.")
            return room.submit(QueuedAct(self, seat, request.command, request.id, request.seq))
        except Refused as refusal:
            self._reject(request, refusal)
            return None

    def _reject(self, request: Act, refusal: Refused) -> None:
        self.hub.metrics.rejections.labels(refusal.code).inc()
        self.send(
            CommandRejected(
                ref=request.id, room=request.room, code=refusal.code, message=refusal.message
            )
        )

    async def on_resume(self, request: Resume) -> None:
        room = self._room(request.room)
        known = room.seat_of(self.user) is not None or room.id in self.rooms
        if room.private and not known and request.code != room.code:
            raise Refused(ErrorCode.BAD_CODE, "This private room needs its code.")
        await self._enter(room, lambda: room.resume(self, request.seq, request.epoch, request.id))

    async def on_get_snapshot(self, request: GetSnapshot) -> None:
        room = self._in(request.room)
        await room.call(lambda: room.send_snapshot(self, request.id))

    async def on_chat_send(self, request: ChatSend) -> None:
        room = self._in(request.room)
        await room.call(lambda: room.chat(self, request.text))
        self.send(Ok(ref=request.id, room=room.id))

    async def on_mute(self, request: Mute) -> None:
        if request.muted:
            if len(self.muted) >= MAX_MUTED:
                raise Refused(ErrorCode.BAD_FIELD, f"At most {MAX_MUTED} people can be muted.")
            self.muted.add(request.user[:64])
        else:
            self.muted.discard(request.user)
        self.send(Ok(ref=request.id))

    def _replay_state(self, replay_id: str, replay: Replay, ref: int | None) -> None:
        self.send(
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

    def _replay(self, replay_id: str) -> Replay:
        replay = self.replays.get(replay_id)
        if replay is None:
            raise Refused(ErrorCode.NO_SUCH_ROOM, f"No open replay {replay_id!r}.")
        return replay

    async def on_open_replay(self, request: OpenReplay) -> None:
        if len(self.replays) >= MAX_REPLAYS:
            raise Refused(
                ErrorCode.BAD_FIELD, f"At most {MAX_REPLAYS} open replays; close one first."
            )
        replay = Replay(self.hub.store, request.room, request.viewer, request.code, self.user)
        replay_id = f"p{len(self.replays) + 1}"
        while replay_id in self.replays:
            replay_id += "x"
        self.replays[replay_id] = replay
        self._replay_state(replay_id, replay, request.id)

    async def on_replay_step(self, request: ReplayStep) -> None:
        replay = self._replay(request.replay)
        replay.seek(replay.position + request.steps)
        self._replay_state(request.replay, replay, request.id)

    async def on_replay_seek(self, request: ReplaySeek) -> None:
        replay = self._replay(request.replay)
        replay.seek(request.position)
        self._replay_state(request.replay, replay, request.id)

    async def on_replay_viewer(self, request: ReplayViewer) -> None:
        replay = self._replay(request.replay)
        replay.look_as(request.viewer)
        self._replay_state(request.replay, replay, request.id)

    async def on_close_replay(self, request: CloseReplay) -> None:
        self.replays.pop(request.replay, None)
        self.send(Ok(ref=request.id))

    async def on_bye(self, request: Bye) -> None:
        """The client is leaving; the read loop ends once this returns."""


_HANDLERS: dict[type[Message], Callable[[Client, Any], Awaitable[None]]] = {
    Hello: Client.on_hello,
    Ping: Client.on_ping,
    WatchLobby: Client.on_watch_lobby,
    UnwatchLobby: Client.on_unwatch_lobby,
    ListGames: Client.on_list_games,
    ListRooms: Client.on_list_rooms,
    CreateRoom: Client.on_create_room,
    JoinSeat: Client.on_join_seat,
    WatchRoom: Client.on_watch_room,
    Ready: Client.on_ready,
    Leave: Client.on_leave,
    Start: Client.on_start,
    Kick: Client.on_kick,
    Rematch: Client.on_rematch,
    Act: Client.on_act,
    Resume: Client.on_resume,
    GetSnapshot: Client.on_get_snapshot,
    ChatSend: Client.on_chat_send,
    Mute: Client.on_mute,
    OpenReplay: Client.on_open_replay,
    ReplayStep: Client.on_replay_step,
    ReplaySeek: Client.on_replay_seek,
    ReplayViewer: Client.on_replay_viewer,
    CloseReplay: Client.on_close_replay,
    Bye: Client.on_bye,
}


class StartupError(Exception):
    """The server cannot start, for a reason its operator can fix: the sentence says which
    (``lumin serve`` prints it as one line and exits 1)."""


class LuminServer:
    """The whole server: store, hub, websocket endpoint and HTTP routes.

    Building one takes the data folder's lock (:class:`~server.datalock.DataLock`) and opens
    its store; :meth:`start` rebuilds the rooms and listens. Either raises
    :class:`StartupError` when the folder is held by another server or cannot be written, or
    the address cannot be listened on."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.metrics = Metrics()
        self.lock = DataLock(settings.data)
        try:
            self.lock.acquire()
            self.store = EventStore(settings.database, settings.durability)
        except DataFolderInUse as error:
            raise StartupError(str(error)) from None
        except (OSError, sqlite3.Error) as error:
            self.lock.release()
            reason = getattr(error, "strerror", None) or str(error)
            raise StartupError(f"cannot use data folder {settings.data}: {reason}") from None
        self.hub = Hub(settings, self.store, self.metrics)
        self.limits = self.hub.limits
        self.proxies = parse_networks(settings.trusted_proxies)
        self.server: Server | None = None
        self._housekeeping: asyncio.Task[None] | None = None
        self.recovered = 0
        #: Every open connection, and how many each client address holds.
        self.clients: set[Client] = set()
        self.per_address: collections.Counter[str] = collections.Counter()

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """Whether a websocket request's Origin may connect: one of the configured origins, or,
        when none are configured, the page's own origin (the Origin names the host the request
        was sent to, so the browser client served by this server connects wherever it is
        reached, ``--host 0.0.0.0`` included). Clients that send no Origin (bots, terminal
        clients) are not browsers and may connect."""
        if origin is None:
            return True
        if self.settings.origins:
            return origin in self.settings.origins
        return host is not None and origin in (f"http://{host}", f"https://{host}")

    async def start(self) -> None:
        """Take the port (before any other work, so a port in use fails at once), load every
        game, rebuild rooms from the log, then accept connections."""
        try:
            listening = bind(self.settings.host, self.settings.port)
        except OSError as error:
            await self.stop()
            where = f"{self.settings.host}:{self.settings.port}"
            reason = (error.strerror or str(error)).lower()
            raise StartupError(f"cannot listen on {where}: {reason}") from None
        started = time.perf_counter()
        catalog()  # imports every game's rules now, not while the first visitor waits
        self.recovered = self.hub.recover()
        log.info("recovered", rooms=self.recovered, seconds=round(time.perf_counter() - started, 3))
        self.server = await self._listen(listening)
        self._housekeeping = asyncio.create_task(self.hub.housekeeping())
        log.info("listening", host=self.settings.host, port=self.port)

    async def _listen(self, listening: socket.socket) -> Server:
        return await serve(
            self._connection,
            sock=listening,
            process_request=self._http,
            # A message over twice the frame limit closes the connection (1009); one between
            # the two gets too_large. Together with ClientSocket's budget, this bounds what
            # one connection's input can hold.
            max_size=2 * self.settings.max_frame,
            max_queue=32,
            create_connection=ClientSocket,
            compression=None,  # frames are small msgpack; deflate would cost more than it saves
            ping_interval=20,
            ping_timeout=20,
            server_header="Lumin",
        )

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def _connection(self, socket: Socket) -> None:
        assert isinstance(socket, ClientSocket)  # serve(create_connection=ClientSocket)
        client = Client(socket, self.hub, self.settings, self.limits)
        self.clients.add(client)
        self.per_address[client.address] += 1
        self.metrics.connections.inc()
        structlog.contextvars.bind_contextvars(connection=socket.id.hex[:8])
        try:
            await client.serve()
        finally:
            self.clients.discard(client)
            self.per_address[client.address] -= 1
            if not self.per_address[client.address]:
                del self.per_address[client.address]
            self.metrics.connections.dec()

    def _http(self, connection: Socket, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            return self._handshake(connection, request)
        if path == "/healthz":
            body = json.dumps(
                {"status": "ok", "rooms": len(self.hub.rooms), "epoch": self.hub.epoch}
            )
            return _response(HTTPStatus.OK, body.encode(), "application/json")
        if path == "/metrics":
            return _response(HTTPStatus.OK, self.metrics.render(), "text/plain; version=0.0.4")
        if path == "/highscores":
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(request.path).query)
            player = query.get("player", [None])[0]
            body = json.dumps({"high_scores": self.store.high_scores(player)}).encode()
            return _response(HTTPStatus.OK, body, "application/json")
        if path.startswith("/rooms/") and path.endswith("/log"):
            return self._log(path.split("/")[2], request)
        return self._static(path)

    def _handshake(self, connection: Socket, request: Request) -> Response | None:
        """Admit a websocket upgrade (``None``), or refuse it: 403 for a foreign ``Origin``,
        429 with ``Retry-After`` when the client's address opens connections too fast."""
        assert isinstance(connection, ClientSocket)  # serve(create_connection=ClientSocket)
        peer = connection.remote_address[0] if connection.remote_address else ""
        address = client_address(peer, request.headers.get_all("X-Forwarded-For"), self.proxies)
        connection.address = address
        connection.budget = 4 * self.settings.max_frame
        origin = request.headers.get("Origin")
        if not self.origin_allowed(origin, request.headers.get("Host")):
            self.metrics.refused_connections.labels("origin").inc()
            body = f"Origin {origin} is not allowed to open a Lumin connection.\n"
            return _response(HTTPStatus.FORBIDDEN, body.encode(), "text/plain")
        held = self.per_address[address]
        if held >= self.settings.connections_per_address:
            self.metrics.refused_connections.labels("connections_per_address").inc()
            body = (
                f"Too many connections from {address}: {held} are open, at most"
                f" {self.settings.connections_per_address}; close one first.\n"
            )
            return _response(HTTPStatus.TOO_MANY_REQUESTS, body.encode(), "text/plain")
        wait = self.limits.connect(address, time.monotonic())
        if wait > 0:
            self.metrics.refused_connections.labels("connect_rate").inc()
            body = (
                f"Too many new connections from {address}: at most"
                f" {self.settings.connect_rate:g} per second (bursts of"
                f" {self.settings.connect_burst}); try again in {math.ceil(wait)} s.\n"
            )
            response = _response(HTTPStatus.TOO_MANY_REQUESTS, body.encode(), "text/plain")
            response.headers["Retry-After"] = str(math.ceil(wait))
            return response
        return None

    def _log(self, room_id: str, request: Request) -> Response:
        """A finished game's log; a private game's needs ``?code=`` or a player's token
        (``Authorization: Bearer TOKEN``), else 403."""
        row = self.store.room(room_id)
        if row is None or row.status != "finished":
            return _response(HTTPStatus.NOT_FOUND, b"no finished game with that id\n", "text/plain")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(request.path).query)
        code = query.get("code", [None])[0]
        if not may_read(row, code, self._bearer(request)):
            body = b"this private game's log needs its code (?code=) or a player's token\n"
            return _response(HTTPStatus.FORBIDDEN, body, "text/plain")
        document = log_document(row, list(self.store.records(room_id)))
        return _response(HTTPStatus.OK, json.dumps(document).encode(), "application/json")

    def _bearer(self, request: Request) -> str | None:
        """The user id of a known identity whose token the request carries, if any."""
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return self.hub.known_user(token.strip())

    def _static(self, path: str) -> Response:
        root = self.settings.static
        if root is None or not root.is_dir():
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
        base = root.resolve()
        target = (base / path.lstrip("/")).resolve()
        if not target.is_relative_to(base):
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            target = base / "index.html"  # the browser client routes its own paths
            if not target.is_file():
                return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return _response(HTTPStatus.OK, target.read_bytes(), kind)

    async def stop(self) -> None:
        """Graceful shutdown: stop accepting, finish appends, close connections with 1001."""
        if self._housekeeping is not None:
            self._housekeeping.cancel()
        if self.server is not None:
            self.server.close(close_connections=False)
        for room in list(self.hub.rooms.values()):
            await room.stop()
        if self.server is not None:
            for client in list(self.clients):
                client.going_away()
            sockets = list(self.server.connections)
            closing = [socket.close(1001, "going away") for socket in sockets]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 5.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.server.wait_closed(), timeout=5.0)
        self.store.close()
        self.lock.release()


def _response(status: HTTPStatus, body: bytes, kind: str) -> Response:
    headers = Headers(
        [("Content-Type", kind), ("Content-Length", str(len(body))), ("Cache-Control", "no-cache")]
    )
    return Response(status.value, status.phrase, headers, body)


async def run(settings: Settings, ready: Callable[[LuminServer], None] | None = None) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    server = LuminServer(settings)
    await server.start()
    # What start-up built (modules, recovered rooms, tables) lives as long as the process:
    # moved out of the collector's sight, full collections stay short during play.
    gc.collect()
    gc.freeze()
    if ready is not None:
        ready(server)
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(
            sig, lambda: stop.done() or stop.set_result(None)
        )
    await stop
    log.info("shutting_down")
    await server.stop()
