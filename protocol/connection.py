"""Sans-I/O connection state machines for both ends of a Lumin websocket.

Like python-websockets' protocol core, these objects never touch a socket. The I/O layer feeds
each binary frame it receives to :meth:`receive_data`, then handles
:meth:`events_received` (messages, and :class:`ProtocolError` for frames that were not valid),
and writes every frame :meth:`data_to_send` returns; :meth:`send` queues a message. The
machines enforce the handshake (``docs/protocol.md``, "Handshake"):

- A server connection accepts only ``hello`` until it has one (anything else is answered with
  ``hello_first``), picks the highest common version, or closes with a fatal
  ``unsupported_version``; a second ``hello`` is answered with ``already_greeted``. The server
  application then sends ``welcome``, which must name that version; until then it may send
  only ``error`` or ``bye``.
- A client connection sends ``hello`` first (it may send more requests right after, without
  waiting), checks that ``welcome`` chose a version it offered, numbers its requests, remembers
  which are still unanswered, and keeps a :class:`~protocol.views.RoomView` of every room it
  receives views of, applying snapshots and deltas itself (a ``delta`` event means the copy
  moved). When a delta does not fit, it reports the error and queues a ``resume`` for that
  room on its own; leaving, ``kicked`` and ``room_closed`` drop the copy.

Frames that fail to decode are answered by the server connection with an ``error`` (carrying
the request's ``id`` as ``ref`` when it could be read) and the connection stays open; a client
connection reports them and sends nothing back. ``bye`` from either side, or a fatal error,
closes the connection: later frames are ignored and sending raises :class:`InvalidState`.
"""

from __future__ import annotations

import enum

import attrs

from protocol.codec import CLIENT_FRAME_LIMITS, SERVER_FRAME_LIMITS, Limits, decode, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    Bye,
    Delta,
    Error,
    Hello,
    Kicked,
    Leave,
    Message,
    Ok,
    Resume,
    RoomClosed,
    Sender,
    Snapshot,
    Welcome,
)
from protocol.versions import SUPPORTED_VERSIONS, choose_version
from protocol.views import RoomView

__all__ = ["ClientConnection", "Event", "InvalidState", "ServerConnection", "State"]

#: What :meth:`events_received` yields: a valid message, or the error a bad frame caused.
Event = Message | ProtocolError


class State(enum.Enum):
    """Where a connection is in its life."""

    #: No ``hello`` yet (the server has received none; the client has sent none).
    AWAITING_HELLO = "awaiting_hello"
    #: ``hello`` went through; ``welcome`` has not (server: not sent; client: not received).
    NEGOTIATING = "negotiating"
    #: ``welcome`` went through: the chosen version is in force.
    OPEN = "open"
    #: ``bye`` or a fatal error went through: nothing more is sent or received.
    CLOSED = "closed"


class InvalidState(RuntimeError):
    """The application asked a connection for something its state forbids (sending after
    close, sending before the handshake allows it, sending a message of the other side)."""


class _Connection:
    """What both ends share: the buffers, the state and the chosen version."""

    SIDE: Sender
    PEER: Sender

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.state = State.AWAITING_HELLO
        #: The protocol version in force, once negotiated.
        self.version: int | None = None
        self._events: list[Event] = []
        self._output: list[bytes] = []
        #: Once closed, the websocket close code the I/O layer closes with: 1000 (normal)
        #: after a ``bye`` (1001, going away, after this end's ``bye`` with code
        #: ``going_away``), 1008 (policy violation) after a fatal ``error``.
        self.close_code: int | None = None

    def events_received(self) -> list[Event]:
        """The messages and errors received since the last call, in order."""
        events, self._events = self._events, []
        return events

    def data_to_send(self) -> list[bytes]:
        """The frames to write since the last call, in order; one websocket binary message each."""
        output, self._output = self._output, []
        return output

    def close_expected(self) -> bool:
        """Whether the I/O layer should close the websocket once the pending frames are written."""
        return self.state is State.CLOSED

    def _decode(self, frame: bytes) -> Message | None:
        try:
            return decode(frame, sender=self.PEER, limits=self.limits)
        except ProtocolError as error:
            self._events.append(error)
            self._bad_frame(error)
            return None

    def _bad_frame(self, error: ProtocolError) -> None:
        """React to a frame that did not decode (reported already)."""

    def _queue(self, message: Message) -> None:
        if self.SIDE not in message.SENDERS:
            raise InvalidState(f"a {self.SIDE} does not send {message.TYPE!r} messages")
        self._output.append(encode(message))
        if isinstance(message, Bye):
            self._closed(1001 if message.code == "going_away" else 1000)
        elif isinstance(message, Error) and message.fatal:
            self._closed(1008)

    def _closed(self, code: int) -> None:
        self.state = State.CLOSED
        self.close_code = code


class ServerConnection(_Connection):
    """The server's end of one client connection (see the module docs)."""

    SIDE = "server"
    PEER = "client"

    def __init__(
        self,
        *,
        versions: tuple[int, ...] = SUPPORTED_VERSIONS,
        limits: Limits = CLIENT_FRAME_LIMITS,
    ) -> None:
        super().__init__(limits)
        self.versions = versions
        #: The client's ``hello``, once received.
        self.hello: Hello | None = None

    def receive_data(self, frame: bytes) -> None:
        """Take one frame from the client."""
        if self.state is State.CLOSED:
            return
        message = self._decode(frame)
        if message is None:
            return
        if isinstance(message, Bye):
            self._events.append(message)
            self._closed(1000)
        elif self.state is State.AWAITING_HELLO:
            if isinstance(message, Hello):
                self._greet(message)
            else:
                self._refuse(
                    message,
                    ErrorCode.HELLO_FIRST,
                    f"Send 'hello' before {message.TYPE!r}.",
                )
        elif isinstance(message, Hello):
            self._refuse(
                message, ErrorCode.ALREADY_GREETED, "This connection sent 'hello' already."
            )
        else:
            self._events.append(message)

    def _greet(self, hello: Hello) -> None:
        version = choose_version(hello.versions, self.versions)
        if version is None:
            offered = ", ".join(map(str, hello.versions))
            spoken = ", ".join(map(str, self.versions))
            error = ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"The client speaks versions {offered}; this server speaks {spoken}.",
                hello.id,
            )
            self._events.append(error)
            self._queue(
                Error(code=error.code.value, message=error.message, ref=hello.id, fatal=True)
            )
            return
        self.version = version
        self.hello = hello
        self.state = State.NEGOTIATING
        self._events.append(hello)

    def _refuse(self, message: Message, code: ErrorCode, text: str) -> None:
        ref = getattr(message, "id", None)
        error = ProtocolError(code, text, ref)
        self._events.append(error)
        self._queue(Error(code=code.value, message=text, ref=ref))

    def _bad_frame(self, error: ProtocolError) -> None:
        self._queue(Error(code=error.code.value, message=error.message, ref=error.ref))

    def send(self, message: Message) -> None:
        """Queue a message for the client.

        Before ``welcome`` only ``error`` and ``bye`` may go out, and ``welcome`` must name the
        negotiated version; raises :class:`InvalidState` otherwise, or once closed.
        """
        if self.state is State.CLOSED:
            raise InvalidState("the connection is closed")
        if isinstance(message, Welcome):
            if self.state is not State.NEGOTIATING:
                raise InvalidState("'welcome' answers one 'hello', once")
            if message.version != self.version:
                raise InvalidState(f"'welcome' must name version {self.version}")
            self._queue(message)
            self.state = State.OPEN
            return
        if self.state is not State.OPEN and not isinstance(message, Error | Bye):
            raise InvalidState(f"{message.TYPE!r} cannot be sent before 'welcome'")
        self._queue(message)


class ClientConnection(_Connection):
    """The client's end of a connection to a Lumin server (see the module docs)."""

    SIDE = "client"
    PEER = "server"

    def __init__(
        self,
        *,
        versions: tuple[int, ...] = SUPPORTED_VERSIONS,
        limits: Limits = SERVER_FRAME_LIMITS,
        views: dict[str, RoomView] | None = None,
    ) -> None:
        """``views`` are the copies an earlier connection kept, to :meth:`resume_all` after a
        reconnect."""
        super().__init__(limits)
        self.versions = versions
        #: The server's ``welcome``, once received.
        self.welcome: Welcome | None = None
        #: Requests sent and not answered yet, by id. A request is answered by the first
        #: message carrying its id as ``ref``.
        self.pending: dict[int, Message] = {}
        #: The live copy of every room this connection receives views of, by room id.
        self.views: dict[str, RoomView] = dict(views or {})
        #: Rooms whose copy missed a delta; a ``resume`` is on its way for each.
        self.resyncing: set[str] = set()
        self._next_id = 1

    def hello(self, name: str, token: str | None = None, client: str | None = None) -> Hello:
        """Send ``hello`` offering every version this connection speaks; returns it as sent."""
        sent = self.send(Hello(versions=self.versions, name=name, token=token, client=client))
        assert isinstance(sent, Hello)
        return sent

    def send(self, message: Message) -> Message:
        """Queue a message for the server and return it as sent.

        A request without an ``id`` gets the next free one, and is remembered in
        :attr:`pending` until answered. The first message must be ``hello``; raises
        :class:`InvalidState` otherwise, or once closed.
        """
        if self.state is State.CLOSED:
            raise InvalidState("the connection is closed")
        if self.state is State.AWAITING_HELLO and not isinstance(message, Hello | Bye):
            raise InvalidState(f"send 'hello' before {message.TYPE!r}")
        if self.state is not State.AWAITING_HELLO and isinstance(message, Hello):
            raise InvalidState("'hello' is sent once")
        if attrs.has(type(message)) and "id" in attrs.fields_dict(type(message)):
            request_id = getattr(message, "id", None)
            if request_id is None:
                request_id = self._next_id
                message = attrs.evolve(message, **{"id": request_id})
            self._next_id = max(self._next_id, request_id + 1)
            self.pending[request_id] = message
        self._queue(message)
        if isinstance(message, Hello):
            self.state = State.NEGOTIATING
        return message

    def resume_all(self, codes: dict[str, str] | None = None) -> list[Resume]:
        """Send ``resume`` for every room this connection holds a copy of (after a reconnect,
        with the copies of the old connection); ``codes`` are private rooms' codes by room."""
        sent: list[Resume] = []
        for copy in self.views.values():
            code = (codes or {}).get(copy.room)
            resume = self.send(Resume(room=copy.room, seq=copy.seq, epoch=copy.epoch, code=code))
            assert isinstance(resume, Resume)
            self.resyncing.add(copy.room)
            sent.append(resume)
        return sent

    def receive_data(self, frame: bytes) -> None:
        """Take one frame from the server."""
        if self.state is State.CLOSED:
            return
        message = self._decode(frame)
        if message is None:
            return
        request = None
        ref = getattr(message, "ref", None)
        if ref is not None:
            request = self.pending.pop(ref, None)
        if isinstance(message, Welcome):
            if self.state is not State.NEGOTIATING or message.version not in self.versions:
                error = ProtocolError(
                    ErrorCode.UNSUPPORTED_VERSION,
                    f"The server chose version {message.version}, which was not offered.",
                )
                self._events.append(error)
                self._closed(1008)
                return
            self.welcome = message
            self.version = message.version
            self.state = State.OPEN
        elif isinstance(message, Bye):
            self._closed(1000)
        elif isinstance(message, Error) and message.fatal:
            self._closed(1008)
        elif isinstance(message, Snapshot):
            self.views[message.room] = RoomView.from_snapshot(message)
            self.resyncing.discard(message.room)
        elif isinstance(message, Delta):
            if not self._apply(message):
                return
        elif isinstance(message, RoomClosed | Kicked):
            self._forget(message.room)
        elif isinstance(message, Ok) and isinstance(request, Leave):
            self._forget(request.room)
        elif isinstance(message, Ok | Error) and isinstance(request, Resume):
            # Caught up; or refused, and the next delta that does not fit resumes again.
            self.resyncing.discard(request.room)
        self._events.append(message)

    def _forget(self, room: str) -> None:
        self.views.pop(room, None)
        self.resyncing.discard(room)

    def _apply(self, delta: Delta) -> bool:
        """Apply a delta to its room's copy; on a misfit, report it and resume once."""
        copy = self.views.get(delta.room)
        if copy is None:
            self._events.append(
                ProtocolError(ErrorCode.OUT_OF_SYNC, f"A delta for {delta.room!r}, unknown here.")
            )
            return False
        try:
            self.views[delta.room] = copy.apply(delta)
        except ProtocolError as error:
            if delta.room in self.resyncing:
                return False  # superseded by the answer to the resume already on its way
            self._events.append(error)
            self.resyncing.add(delta.room)
            self.send(Resume(room=copy.room, seq=copy.seq, epoch=copy.epoch))
            return False
        return True
