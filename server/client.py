"""One websocket connection: what it reads, what it is sent, and how fast it may ask.

A :class:`Client` sits on a :class:`~server.transport.ClientSocket`: the sans-I/O
:class:`~protocol.connection.ServerConnection` parses its messages, which go to the request
handlers (:mod:`server.handlers`); rate limits that outlive the connection
(:mod:`server.limits`) bound what it may ask, and a flood is refused unexecuted and read no
faster than the limits allow; what it is sent is written once per loop turn without ever
waiting for it, so a slow client is dropped instead of slowing its rooms.
"""

from __future__ import annotations

import asyncio
import functools
import re
import time
import unicodedata
from typing import Any

import structlog
from websockets.exceptions import ConnectionClosed

from protocol.codec import Limits, Peek, decode, encode_refusal, peek
from protocol.connection import InvalidState, ServerConnection
from protocol.connection import State as ConnectionState
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Act, Bye, Error, Hello, Message, Moved
from protocol.versions import MOVED_VERSION
from server.accounts import MAX_NAME
from server.bans import banned_sentence
from server.config import Settings
from server.errors import Moved as RoomElsewhere
from server.errors import Refused
from server.handlers import act_moved, failed, handle, queue_act, reject
from server.hub import Hub
from server.limits import RateLimits
from server.replay import Replay
from server.room import Room
from server.store import Ban
from server.transport import ClientSocket, drop, write_frames

__all__ = ["FLOOD_CLOSE", "Client", "software_name"]

log = structlog.get_logger("lumin.server")

#: Seconds a connection from a banned address may take to say ``hello`` (and be refused).
BANNED_WAIT = 5.0
#: Bursts' worth of refusals in a row (without a calm moment) after which a flooding connection
#: is closed (1008).
FLOOD_CLOSE = 2


def software_name(said: str | None) -> str | None:
    """The ``hello``'s ``client`` (free text naming the client's software) as the server logs
    it, by a person's name's rule: control and invisible characters dropped, spaces collapsed,
    at most :data:`~server.accounts.MAX_NAME` characters; ``None`` when nothing is left."""
    if said is None:
        return None
    shown = "".join(c for c in said if not unicodedata.category(c).startswith("C"))
    shown = re.sub(r"\s+", " ", shown).strip()[:MAX_NAME].rstrip()
    return shown or None


class Client:
    """One websocket connection: a :class:`~server.handlers.Session` to the request handlers
    and a :class:`~server.room.Peer` to the rooms it is in."""

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
        self.address_key = socket.address_key
        self.opened = time.time()
        #: This connection in log lines (``connection``): its id's first 8 hex digits.
        self.connection = socket.id.hex[:8]
        #: Why the server closed the connection, when it did for a reason of its own
        #: (``flood``, ``slow``, ``version``): ``lumin_connections_closed_total``'s reason.
        self.closed_for: str | None = None
        #: Whose rate limit this connection's messages count against: its own until
        #: ``hello``, then its identity's, shared by every connection of that identity.
        self.person = "c" + socket.id.hex
        self.muted: set[str] = set()
        #: The identity's token hash, the token said or given in ``welcome``, and the
        #: account session's token hash (``None`` for a guest): see :mod:`server.accounts`.
        self.identity = ""
        self.token = ""
        self.session_hash: str | None = None
        self.hello_token_hash: str | None = None
        self.rooms: dict[str, Room] = {}
        self.replays: dict[str, Replay] = {}
        #: Messages refused over the rate limit since the last calm moment.
        self.floods = 0
        self.dropped = False
        #: Frames made during this loop turn, written together at its end.
        self.frames: list[bytes] = []
        #: Acts taken straight from the socket (:meth:`_take`) that their room has not answered.
        self.inflight: set[asyncio.Future[Any]] = set()
        #: Resolved once the request being handled now (if any) has been answered.
        self._turn: asyncio.Future[None] | None = None
        #: Rooms that moved to another node under this connection, with the new owner's URL
        #: once known: a request for one is answered ``moved`` (see :meth:`room_moved`).
        self.moved: dict[str, str | None] = {}

    @property
    def version(self) -> int | None:
        """The protocol version negotiated (``None`` before ``hello``)."""
        return self.conn.version

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
            self.closed_for = "slow"
            self.hub.metrics.dropped.inc()
            log.info("slow_client_dropped", user=self.user, unsent=waiting)
            drop(self.socket, 1008, "too slow: unsent data passed the limit", grace=0.0)

    # -- receiving ------------------------------------------------------------------------------

    def _allow(self) -> bool:
        """Whether the rate limits let one more message of this person's through (see
        :class:`~server.limits.RateLimits`); a calm person is forgiven past floods."""
        now = time.monotonic()
        if not self.limits.message(self.person, self.address_key, now):
            return False
        if self.floods and self.limits.calm(self.person, self.address_key, now):
            self.floods = 0
        return True

    async def serve(self) -> None:
        """Read frames until the connection closes, answering each in turn.

        An ``act`` arriving while nothing else of this connection's waits or is being handled
        is taken at the socket instead (:meth:`_take`), without waking this task; a message
        that arrives while such acts are still in their rooms waits for their answers first,
        so requests are still handled in the order they arrive.

        A connection from a banned address gets its ``hello`` refused (a fatal ``banned``
        error, which a browser can read, unlike an HTTP refusal of its upgrade); one that says
        no ``hello`` within :data:`BANNED_WAIT` seconds is closed all the same.
        """
        ban = self.hub.bans.of_address(self.address)
        if ban is not None:
            self.hub.metrics.refused_connections.labels("banned").inc()
            unwelcome = asyncio.get_running_loop().call_later(BANNED_WAIT, self._unwelcome, ban)
            self.socket.connection_lost_waiter.add_done_callback(lambda _: unwelcome.cancel())
        self.socket.take = self._take
        try:
            async for frame in self.socket:
                try:
                    if self.inflight:
                        await asyncio.wait(set(self.inflight))
                    self._turn = asyncio.get_running_loop().create_future()
                    try:
                        received = await self._receive(frame)
                    finally:
                        self._turn.set_result(None)
                        self._turn = None
                    if not received:
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

    def room_moved(self, room: str, url: str | None = None) -> None:
        """``room`` moved to another node of the cluster (at ``url``, when the caller knows
        it; else looked up): send the client on with ``moved`` when the new owner can be
        named (protocol version 2), else say ``bye`` (``going_away``) and close with 1001, so
        the client reconnects (through any node) and resumes there.

        Requests of this connection under way are answered first (the request being handled
        and the acts in their rooms: each gets its one answer before the client is sent on),
        and a request for the room from now on is answered ``moved`` (handlers' ``_in``)."""
        if self.dropped:
            return
        self.rooms.pop(room, None)
        self.moved[room] = url
        self.hub.spawn(self._send_on_after_answers(room, url))

    async def _send_on_after_answers(self, room: str, url: str | None) -> None:
        waiting: set[asyncio.Future[Any]] = set(self.inflight)
        if self._turn is not None:
            waiting.add(self._turn)
        if waiting:
            await asyncio.wait(waiting)
        if url is None:
            url = await self.hub.owner_url(room)
            if room in self.moved:
                self.moved[room] = url
        if not self.dropped:
            self._send_on(room, url)

    def _send_on(self, room: str, url: str | None) -> None:
        if url is not None and (self.conn.version or 0) >= MOVED_VERSION:
            self.send(Moved(room=room, url=url))
            self._write()
            return
        self.send(
            Bye(code="going_away", message=f"Room {room} moved to another server; reconnect.")
        )
        self._write()
        self.hub.spawn(self.socket.close(1001, "room moved"))

    def banish(self, message: str, bye: bool = True) -> None:
        """The server's operator banned this connection's identity or address: say ``bye``
        (``banned``, with ``message``) unless the caller already said why, then close with
        1008 at once."""
        if self.dropped:
            return
        if bye:
            self.send(Bye(code="banned", message=message))
        self._write()
        self.dropped = True
        self.closed_for = "banned"
        log.info("banned_connection_closed", user=self.user, address=self.address)
        drop(self.socket, 1008, "banned")

    def _unwelcome(self, ban: Ban) -> None:
        if not self.user:  # no hello in time (one would have been refused, or let in)
            self.banish(banned_sentence(ban))

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
                self.closed_for = "flood"
                self.hub.metrics.refused_connections.labels("flood").inc()
                log.info("flood_closed", user=self.user, address=self.address)
                self._write()  # what was said before the close goes out first
                drop(self.socket, 1008, "flooding")
                return False
            # Read no faster than the limits allow: until a token is due, what the client
            # sends waits in its socket (TCP pushes back), so a flood costs this server a
            # bounded amount of work however fast it comes.
            self._write()
            rest = self.limits.next_token(self.person, self.address_key, time.monotonic())
            await asyncio.sleep(rest)
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
                if event.code is ErrorCode.UNSUPPORTED_VERSION:
                    self.closed_for = "version"
                    self.hub.metrics.refused_connections.labels("version").inc()
                    log.info("hello_refused", reason="version", detail=event.message)
            else:
                started = time.perf_counter()
                await handle(self, event)
                # Dropped at once below debug (structlog's filtering logger).
                log.debug("request", type=event.TYPE, room=getattr(event, "room", None),
                          seconds=round(time.perf_counter() - started, 6))  # fmt: skip
                if type(event) is Hello and self.user:
                    log.info("greeted", user=self.user, name=self.name,
                             version=self.conn.version,
                             client=software_name(event.client))  # fmt: skip
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
            answer = queue_act(self, request)
        except Exception:
            log.exception("request_failed", type=Act.TYPE, user=self.user)
            failed(self, request.id)
            return True
        if answer is not None:
            self.inflight.add(answer)
            answer.add_done_callback(functools.partial(self._acted, request, time.perf_counter()))
        return True

    def _acted(self, request: Act, started: float, answer: asyncio.Future[Any]) -> None:
        """An act taken at the socket has its answer: a room's refusal is sent here (the
        rules' and the room's own answers were sent by the room)."""
        self.inflight.discard(answer)
        log.debug(
            "request",
            type=Act.TYPE,
            room=request.room,
            user=self.user,
            connection=self.connection,
            seconds=round(time.perf_counter() - started, 6),
        )
        if answer.cancelled():
            return
        error = answer.exception()
        if isinstance(error, Refused):
            reject(self, request, error)
        elif isinstance(error, RoomElsewhere):
            act_moved(self, request, error)
        elif error is not None:
            log.error("request_failed", type=Act.TYPE, user=self.user, error=repr(error))
            failed(self, request.id)

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

    def signed_out(self, message: str = "This session was revoked; sign in again.") -> None:
        """The account session of this connection was revoked, or ended: say ``bye``
        (``signed_out``) with ``message`` and close (1000)."""
        if self.dropped:
            return
        self.send(Bye(code="signed_out", message=message))
        self._write()
        self.hub.spawn(self.socket.close(1000, "session revoked"))

    def _goodbye(self) -> None:
        if self.session_hash is not None:
            held = self.hub.signed_in.get(self.session_hash)
            if held is not None:
                held.discard(self)
                if not held:
                    del self.hub.signed_in[self.session_hash]
        self.hub.lobby.discard(self)
        self.hub.quickplay.left(self)
        for room in self.rooms.values():
            room.detach(self)
        self.rooms.clear()
