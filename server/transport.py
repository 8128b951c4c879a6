"""Lumin's websocket transport: every use of websockets' internals in one place.

The server runs on websockets' asyncio server, and reaches past its public API in three
places, all here, each for a measured reason:

- :class:`ClientSocket` is websockets' ``ServerConnection`` (``serve(create_connection=...)``)
  with its ``data_received`` and ``process_event`` overridden: input is parsed in slices and
  against a byte budget (so no client can hold the event loop or the server's memory), and a
  complete message is first offered to a ``take`` hook (an ``act`` goes to its room without
  waking the connection's task).
- :func:`write_frames` writes a loop turn's frames to the transport in one call, framing them
  itself (:func:`framed`) when the connection has no extensions, so a delta that a room's
  viewers share is framed once.
- :func:`drop` closes a connection without waiting for the client's closing handshake.
- :func:`bind` makes the listening socket, so that a port in use fails before start-up work.

websockets' ``ServerConnection`` attributes used: ``protocol`` (its sans-I/O state:
``state``, ``extensions``, ``expect_continuation_frame``, ``send_binary``, ``data_to_send``),
``transport``, ``loop``, ``recv_messages`` (its ``Assembler``: ``paused`` and the ``resume``
callback) and ``process_event``. A websockets upgrade that changes them shows in
``tests/server``.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import socket
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from websockets.asyncio.server import ServerConnection
from websockets.frames import DATA_OPCODES, Frame, Opcode
from websockets.protocol import Event, State

from server.limits import Opening

__all__ = ["SLICE", "ClientSocket", "bind", "drop", "framed", "write_frames"]

#: Bytes of a client's backlog parsed at a time, and slices parsed per turn of the event loop
#: over all connections together (see ClientSocket).
SLICE = 2048
SLICES_PER_TURN = 2


class _Backlogs:
    """The connections of one event loop with input waiting to be parsed, served in turn:
    at most :data:`SLICES_PER_TURN` slices per turn of the loop, however many connections
    send at once, so that bulk input from many clients together cannot hold the loop either.
    (Input that arrives in small pieces, as a player's does, is parsed at once and never
    waits here.)"""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.waiting: collections.deque[ClientSocket] = collections.deque()
        self.scheduled = False

    def add(self, connection: ClientSocket) -> None:
        self.waiting.append(connection)
        if not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self._run)

    def _run(self) -> None:
        for _ in range(min(SLICES_PER_TURN, len(self.waiting))):
            self.waiting.popleft()._parse_slice()
        if self.waiting:
            self.loop.call_soon(self._run)
        else:
            self.scheduled = False


_backlogs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Backlogs] = (
    weakref.WeakKeyDictionary()
)


def _backlogs_of(loop: asyncio.AbstractEventLoop) -> _Backlogs:
    backlogs = _backlogs.get(loop)
    if backlogs is None:
        backlogs = _backlogs[loop] = _Backlogs(loop)
    return backlogs


class ClientSocket(ServerConnection):
    """One client's websocket connection (see the module docstring).

    Input is parsed at most :data:`SLICE` bytes at a time, a few slices per turn of the
    event loop over all connections (:class:`_Backlogs`), and only while
    the messages parsed and not yet handled by the reader hold less than ``budget`` bytes and
    websockets' own message queue has room: a client that sends a lot at once (a flood, a
    backlog released after a pause) can neither hold the loop, and every room, for longer
    than one slice takes to parse, nor make the server hold more than about ``budget`` bytes
    of its input. Meanwhile the transport stops reading, so what the client sends waits in
    its socket (TCP pushes back); what was read already waits, in order, in ``backlog``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Offered every complete binary message first; keeps it by returning True.
        self.take: Callable[[bytes | bytearray | memoryview], bool] | None = None
        #: Messages queued for the reader, not yet handled (see :meth:`handled`), and their
        #: bytes.
        self.queued = 0
        self.queued_bytes = 0
        #: Bytes of parsed messages the reader may have waiting before parsing stops.
        self.budget = 256 * 1024
        #: The client's address (``X-Forwarded-For`` when a trusted proxy sent the request),
        #: and the bucket its per-address limits count it in (:func:`server.limits.address_key`),
        #: set during the handshake.
        self.address = ""
        self.address_key = ""
        #: Bytes read from the client, not parsed yet.
        self.backlog = bytearray()
        self._scheduled = False

    #: The server's count of connections still opening (:class:`server.limits.Opening`), set
    #: on the class :meth:`serving` makes; ``None``: not counted.
    opening: ClassVar[Opening | None] = None
    #: Told when a connection is closed at once for its address's opening connections.
    on_refused: ClassVar[Callable[[str], None] | None] = None

    @classmethod
    def serving(cls, opening: Opening, on_refused: Callable[[str], None]) -> type[ClientSocket]:
        """This class, for one server: its connections are counted in ``opening`` until their
        HTTP request is read (:meth:`request_read`), and closed at once past its cap."""
        return type(
            "ServedSocket", (cls,), {"opening": opening, "on_refused": staticmethod(on_refused)}
        )

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.recv_messages.resume = self._go_on
        self._opening: str | None = None
        if self.opening is not None:
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if peer else ""
            self._opening = self.opening.enter(address, time.monotonic())
            if self._opening is None:  # too many opening from there: not even a request read
                if self.on_refused is not None:
                    self.on_refused(address)
                transport.abort()

    def request_read(self) -> None:
        """The HTTP request has arrived (or the connection is gone): it no longer counts as
        opening."""
        if self._opening is not None and self.opening is not None:
            self.opening.leave(self._opening)
        self._opening = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.request_read()
        super().connection_lost(exc)

    def _holding(self) -> bool:
        """Whether parsing waits for the reader (websockets' queue full, or the budget)."""
        return self.recv_messages.paused or self.queued_bytes > self.budget

    def data_received(self, data: bytes) -> None:
        if self.backlog or len(data) > SLICE or self._holding():
            self.backlog += data
            self.transport.pause_reading()
            self._go_on()
        else:
            super().data_received(data)

    def _parse_slice(self) -> None:
        self._scheduled = False
        if self.protocol.state is State.CLOSED or self.transport.is_closing():
            self.backlog.clear()
            return
        if self._holding():
            return  # the reader catches up first: _go_on resumes
        head = bytes(self.backlog[:SLICE])
        del self.backlog[:SLICE]
        super().data_received(head)
        self._go_on()

    def _go_on(self) -> None:
        """Parse the next slice on the next turn, or read again once the backlog is gone."""
        if self._holding() or self._scheduled:
            return
        if self.backlog:
            self._scheduled = True
            _backlogs_of(self.loop).add(self)
        elif not self.transport.is_closing():
            self.transport.resume_reading()

    def handled(self, message: bytes | str) -> None:
        """The reader is done with one queued message: parsing may go on."""
        self.queued -= 1
        self.queued_bytes -= len(message)
        if self.queued_bytes <= self.budget // 2 and not self.transport.is_reading():
            self._go_on()

    def process_event(self, event: Event) -> None:
        if isinstance(event, Frame) and event.fin:
            take = self.take
            if event.opcode is Opcode.BINARY and take is not None and take(event.data):
                return
            if event.opcode in DATA_OPCODES:
                self.queued += 1
                self.queued_bytes += len(event.data)
        super().process_event(event)


def drop(connection: ClientSocket, code: int, reason: str, grace: float = 1.0) -> None:
    """Close ``connection`` at once, without reading on for the client's closing handshake:
    send the close frame (``code``, ``reason``), forget unparsed input, stop reading, and let
    the TCP connection go once what is queued for it is written, or after ``grace`` seconds
    at the latest. For clients that do not play by the rules (a flood, a client that stopped
    reading), whose handshake would cost the server what their input or output holds."""
    protocol, transport = connection.protocol, connection.transport
    if protocol.state is State.OPEN:
        protocol.send_close(code, reason)
        transport.writelines(protocol.data_to_send())
    connection.backlog.clear()
    transport.pause_reading()
    transport.close()
    connection.loop.call_later(grace, transport.abort)


def framed(payload: bytes) -> bytes:
    """``payload`` as one unmasked binary websocket frame, as websockets would write it on a
    connection without extensions (Lumin turns per-message compression off). Small frames
    are cached: a room's viewers who share a delta share its framing."""
    if len(payload) > 4096:
        return Frame(Opcode.BINARY, payload).serialize(mask=False)
    return _framed_small(payload)


@functools.lru_cache(maxsize=1024)
def _framed_small(payload: bytes) -> bytes:
    return Frame(Opcode.BINARY, payload).serialize(mask=False)


def write_frames(connection: ClientSocket, frames: Sequence[bytes]) -> int | None:
    """Write ``frames`` (each one binary message) to ``connection`` in one call; returns the
    bytes now waiting in its transport, or ``None`` when it is not open."""
    protocol, transport = connection.protocol, connection.transport
    if protocol.state is not State.OPEN:
        return None
    if protocol.extensions or protocol.expect_continuation_frame:
        for frame in frames:
            protocol.send_binary(frame)
        transport.writelines(protocol.data_to_send())
    else:
        # Without extensions a server's frame is the same bytes on every connection, so a
        # delta shared by a room's viewers is framed once (see framed).
        transport.writelines([framed(frame) for frame in frames])
    return int(transport.get_write_buffer_size())


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host`` (its first address) and ``port``."""
    family, _, _, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    return socket.create_server(address, family=family, backlog=1024)
