"""The Python client library: speak the Lumin protocol over a websocket, keep live views.

::

    async with await LuminClient.connect("ws://127.0.0.1:8700/ws", name="Ada") as client:
        room = await client.create_room("flip_over_frog", seats=[human(), bot("bot")], sit=0)
        await client.start(room)
        view = client.view(room)            # the seat's live view, deltas applied
        legal = client.legal(room)          # the commands the seat may send now
        answer = await client.act(room, {"type": "play", "tile": "R1", "space": 5})

Every request returns the server's answer to it (matched by request id) within the client's
``timeout`` (else :class:`RequestTimeout`, code ``timeout``), or raises :class:`ServerError`
with the server's code and sentence. Deltas and
snapshots are applied by the sans-I/O :class:`protocol.connection.ClientConnection`;
:meth:`LuminClient.changed` waits, as long as it takes unless given a timeout, for the next
change of a room's view. A client that misses a delta resumes by itself.

When the connection drops, the client reconnects with backoff (``tenacity``: at once, then
after 0.5 s doubling to 10 s, with jitter), says ``hello`` with its token and sends ``resume``
for every room it holds a copy of. Requests in flight when it dropped, and requests made while
it is away, raise :class:`ConnectionLost` with code ``disconnected``;
:meth:`~LuminClient.changed` keeps waiting and returns once the resume's answer arrives. A
client that cannot reconnect within ``give_up`` seconds ends: every waiting and later call
raises :class:`ConnectionLost` with code ``gave_up``.

On a cluster, a request for a room another node plays is answered with ``moved``: the client
reconnects to the node it names (at once), resumes every room it holds, and sends the request
again there, so the caller sees only the final answer (:attr:`~LuminClient.answered_on` names
the node whose connection gave it); it follows at most :attr:`~LuminClient.MAX_MOVES` in a
row. A ``moved`` on its own (the room moved away under the connection) makes it reconnect to
the named node and resume. When the node it was sent to cannot be reached, it reconnects to
the URL it was first given (any node of the cluster). A request answered ``try_again`` (its
room is changing node, or the node that plays it cannot be reached for a moment) was not
carried out; it is sent again after
:attr:`~LuminClient.RESUME_AGAIN` seconds, at most :attr:`~LuminClient.TRY_AGAIN_TIMES` times.

After a reconnect each room is resumed on its own. A resume answered ``try_again`` (the room's
node died and its lease has not lapsed yet, or the room is changing node) is sent again on the
same connection, after :attr:`~LuminClient.RESUME_AGAIN` seconds doubling to
:attr:`~LuminClient.RESUME_MAX`; one answered ``moved`` makes the client reconnect to the node
it names (at once when that is news, else after the same backoff), unless another room holds
a seat on the current connection (one connection is on one node: following would lose that
room), then it is tried again where it is. A room that is not back within ``give_up`` seconds
of its first refused resume, or whose resume is refused for good (``no_such_room``...), is
given up: it is dropped from :attr:`~LuminClient.conn`'s views and :attr:`~LuminClient.room_info`,
kept in :attr:`~LuminClient.closed`, and a :class:`~clients.sdk.events.Closed` event (reason
``gave_up``, or the refusal's code) says so; the connection and the other rooms stay.

What the client keeps per connection is bounded: :attr:`~LuminClient.messages`,
:attr:`~LuminClient.events`, :attr:`~LuminClient.chat` and :attr:`~LuminClient.errors` hold the
newest ``keep`` items (1000 by default) and drop the oldest. :meth:`LuminClient.stream` reads
:attr:`~LuminClient.events`, the typed event stream of :mod:`clients.sdk.events` (updates, room
changes, chat, game over, closed rooms, problems).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import attrs
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    retry_if_exception_type,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential,
    wait_fixed,
    wait_random,
)
from websockets.asyncio.client import ClientConnection as Socket
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.sdk.events import Closed, Event, LobbyListed, Problem, event_of
from protocol.connection import ClientConnection, InvalidState
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    Account,
    Act,
    ChatMessage,
    ChatSend,
    ClaimName,
    CloseReplay,
    CommandAccepted,
    CommandRejected,
    CreateRoom,
    Error,
    GameInfo,
    GameOver,
    Games,
    JoinSeat,
    Kicked,
    Leave,
    ListGames,
    ListRooms,
    ListSessions,
    Message,
    Moved,
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
    RevokeSession,
    RoomClosed,
    RoomCreated,
    RoomList,
    RoomSummary,
    RoomUpdate,
    SeatChoice,
    SessionInfo,
    Sessions,
    SignIn,
    Start,
    UnwatchLobby,
    WatchLobby,
    WatchRoom,
    Welcome,
)

__all__ = [
    "NETWORK_ERRORS",
    "ConnectionLost",
    "LuminClient",
    "Recent",
    "RequestTimeout",
    "RoomGone",
    "ServerError",
    "bot",
    "human",
]

T = TypeVar("T")

#: What a failed attempt to open a connection raises: refused, reset, timed out, a handshake
#: the server answered with an HTTP error, a socket that closed before ``welcome``.
NETWORK_ERRORS = (OSError, WebSocketException)


class ServerError(Exception):
    """The server refused a request: ``code`` and ``message`` as it sent them (or one of the
    client's own codes, see :class:`ConnectionLost`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _is_try_again(error: BaseException) -> bool:
    """Whether a request's failure is the server's ``try_again`` (it was not carried out)."""
    return (
        isinstance(error, ServerError)
        and not isinstance(error, ConnectionLost)
        and error.code == ErrorCode.TRY_AGAIN.value
    )


class ConnectionLost(ServerError):
    """No answer can come over the connection. ``code`` says why: ``unreachable`` (no Lumin
    server answered at the URL), ``disconnected`` (the connection dropped before the answer, or
    the request was made while the client is reconnecting), ``gave_up`` (no reconnect within
    ``give_up`` seconds; the client has ended) or ``closed`` (the client was closed)."""


class RoomGone(ServerError):
    """The room is closed to this client: ``code`` is the :class:`~clients.sdk.events.Closed`
    event's reason (``room_closed``'s: ``expired``, ``abandoned``, ``internal_error``,
    ``closed_by_operator``; ``kicked`` when the seat was taken from it; ``gave_up`` or a
    refusal's code when it could not get back in after a reconnect), ``message`` the sentence."""

    def __init__(self, closed: Closed) -> None:
        super().__init__(closed.reason, closed.message or f"Room {closed.room} is closed.")
        self.room = closed.room


class RequestTimeout(ServerError, TimeoutError):
    """No answer came within the client's ``timeout`` (code ``timeout``); also a
    :class:`TimeoutError`."""


class Recent(asyncio.Queue[T]):
    """An :class:`asyncio.Queue` that keeps only the newest ``maxsize`` items: putting into a
    full queue drops the oldest item (counted in :attr:`dropped`) instead of waiting."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("a Recent queue keeps at least one item")
        super().__init__(maxsize)
        #: How many items were dropped to make room for newer ones.
        self.dropped = 0

    def put_nowait(self, item: T) -> None:
        """Add ``item``, dropping the oldest item first when the queue is full."""
        if self.full():
            self.get_nowait()
            self.task_done()
            self.dropped += 1
        super().put_nowait(item)

    async def put(self, item: T) -> None:
        """Add ``item`` at once (never waits; see :meth:`put_nowait`)."""
        self.put_nowait(item)


A = TypeVar("A")


def _answer(answer: Message, kind: type[A] | tuple[type, ...], request: str) -> A:
    """``answer`` when it is of ``kind`` (the answer a request of type ``request`` gets), else
    ``ServerError("internal")``: a server that answers otherwise is not followed blindly (and
    ``python -O`` would strip an ``assert``)."""
    if not isinstance(answer, kind):
        raise ServerError(
            "internal", f"The server answered {request!r} with {answer.TYPE!r}, not its answer."
        )
    return answer  # type: ignore[return-value]


def _describe(error: BaseException) -> str:
    """A short sentence for a network error (some, like a timeout, have no text of their own)."""
    text = str(error).strip()
    if isinstance(error, TimeoutError) and not text:
        return "timed out"
    return text or type(error).__name__


def human(**choices: Any) -> SeatChoice:
    """A seat for a person, with per-seat choices (a Neon Hex role, a Flash 8 handicap...)."""
    return SeatChoice(kind="human", choices=choices)


def bot(kind: str | None = None, **choices: Any) -> SeatChoice:
    """A seat for a bot of ``kind`` (the game's default when ``None``)."""
    return SeatChoice(kind="bot", bot=kind, choices=choices)


class LuminClient:
    """One connection to a Lumin server, kept open across drops (see the module docstring).

    Make one with :meth:`connect`. ``timeout`` bounds each request's wait for its answer;
    ``give_up`` bounds reconnecting after a drop; ``new_identity`` accepts the new identity the
    server gives when it refuses ``token`` at :meth:`connect` (else that is an error; a token
    refused on a reconnect, a session signed out or revoked meanwhile, always ends the client
    with ``bad_token``); ``keep`` bounds
    :attr:`messages`, :attr:`chat` and :attr:`errors`.
    """

    #: Seconds to wait after the first failed reconnect attempt (the first is at once), and the
    #: most between two (doubling between, each wait up to a quarter second longer at random so
    #: that clients do not reconnect in step).
    RECONNECT_FIRST = 0.5
    RECONNECT_MAX = 10.0
    #: ``moved`` answers one request may follow in a row before it fails (``moved_too_often``).
    MAX_MOVES = 3
    #: Times a request answered ``try_again`` is sent again before the answer is raised.
    TRY_AGAIN_TIMES = 3
    #: Seconds before a request or a resume answered ``try_again`` is sent again (a resume's
    #: wait doubles with each refusal in a row, to at most :attr:`RESUME_MAX`).
    RESUME_AGAIN = 1.0
    RESUME_MAX = 4.0

    def __init__(
        self,
        url: str,
        name: str,
        *,
        origin: str | None = None,
        timeout: float = 30.0,
        give_up: float = 60.0,
        new_identity: bool = False,
        keep: int = 1000,
    ) -> None:
        self.url = url
        #: The URL the client was given (any node of a cluster): where it falls back to when a
        #: node ``moved`` named cannot be reached.
        self.first_url = url
        self.name = name
        self.origin = origin
        self.timeout = timeout
        self.give_up = give_up
        self.new_identity = new_identity
        self.socket: Socket | None = None
        self.conn = ClientConnection()
        self.welcome: Welcome | None = None
        #: The ``bad_token`` error of the last handshake, when ``new_identity`` accepted it.
        self.token_refused: Error | None = None
        self.answers: dict[int, asyncio.Future[Message]] = {}
        #: Every message received, newest ``keep`` (an asyncio queue: ``await messages.get()``).
        self.messages: Recent[Message] = Recent(keep)
        #: The newest ``keep`` events (:mod:`clients.sdk.events`; read with :meth:`stream`).
        self.events: Recent[Event] = Recent(keep)
        #: The newest ``keep`` chat lines.
        self.chat: deque[ChatMessage] = deque(maxlen=keep)
        #: The newest ``keep`` frames that did not decode or deltas that did not fit.
        self.errors: deque[ProtocolError] = deque(maxlen=keep)
        self.game_over: dict[str, GameOver] = {}
        #: The rooms closed to this client (``room_closed``, ``kicked``, or given up after a
        #: reconnect), with the :class:`~clients.sdk.events.Closed` event that said so.
        self.closed: dict[str, Closed] = {}
        #: The latest summary of every room this client is in (game, seats, state...).
        self.room_info: dict[str, RoomSummary] = {}
        #: Private rooms' codes (from :meth:`join`, :meth:`watch`, :meth:`create_room`), sent
        #: again with their ``resume`` after a reconnect.
        self.codes: dict[str, str] = {}
        #: Why the client ended for good (``gave_up``, ``bad_token``...), once it has.
        self.failure: ServerError | None = None
        self.last_created: RoomCreated | None = None
        #: The server's clock minus this machine's, as last estimated (:meth:`server_time`).
        self.clock_offset = 0.0
        #: Whether the client watches the lobby (:meth:`watch_lobby`, until
        #: :meth:`unwatch_lobby`): it watches it again after every reconnect.
        self.watching_lobby = False
        #: The id of the newest ``watch_lobby`` sent: its ``room_list`` is the lobby now.
        self.lobby_ref: int | None = None
        #: The id of the ``watch_lobby`` a reconnect sent (its answer is a LobbyListed event).
        self._lobby_again: int | None = None
        self._changed: dict[str, asyncio.Event] = {}
        #: Set when an event is queued or the client ends (wakes :meth:`stream`).
        self._stream_wake = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._online = False
        self._closing = False
        self._ended = False
        self._resuming: dict[int, str] = {}
        #: Set whenever a reconnect has finished (hello and resumes sent).
        self._reconnected = asyncio.Event()
        #: A node a ``moved`` without ``ref`` named: the reader reconnects there.
        self._moved_to: str | None = None
        #: The URL of the node whose connection gave the last request's final answer (after
        #: every ``moved`` it followed); and, by request id, that of each answer as it came.
        self.answered_on: str = url
        self._answer_urls: dict[int, str] = {}
        #: Rooms whose resume was refused (``try_again``/``moved``) and that are not back yet:
        #: the refusals in a row, when the first came (the loop's clock), the last ``moved`` URL.
        self._refused: dict[str, tuple[int, float, str | None]] = {}
        #: Rooms whose resume was answered on the current connection.
        self._resumed: set[str] = set()
        #: Resumes to send again later, and moves to follow later (cancelled on close).
        self._later: set[asyncio.TimerHandle] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    async def connect(
        cls,
        url: str,
        name: str,
        token: str | None = None,
        origin: str | None = None,
        *,
        timeout: float = 30.0,
        give_up: float = 60.0,
        new_identity: bool = False,
        keep: int = 1000,
    ) -> LuminClient:
        """Open a connection and say hello; the returned client holds its ``welcome``.

        Raises :class:`ConnectionLost` (``unreachable``) when no Lumin server answers at
        ``url``, and :class:`ServerError` (``bad_token``) when the server does not know
        ``token`` (its seats cannot be reclaimed), unless ``new_identity`` is true: then the
        client plays under the new identity the server gives and keeps the refusal in
        :attr:`token_refused`.
        """
        client = cls(
            url,
            name,
            origin=origin,
            timeout=timeout,
            give_up=give_up,
            new_identity=new_identity,
            keep=keep,
        )
        try:
            await client._open(token)
        except NETWORK_ERRORS as error:
            message = f"Cannot reach a Lumin server at {url}: {_describe(error)}"
            raise ConnectionLost("unreachable", message) from error
        client._online = True
        client._reader = asyncio.create_task(client._run())
        return client

    @property
    def token(self) -> str:
        assert self.welcome is not None
        return self.welcome.token

    @property
    def user(self) -> str:
        assert self.welcome is not None
        return self.welcome.user

    @property
    def online(self) -> bool:
        """Whether the connection is up now (false while reconnecting, and once ended)."""
        return self._online

    async def __aenter__(self) -> LuminClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the connection and stop reconnecting; later calls raise ``closed``.

        A reconnect under way is cancelled; Python 3.11's ``asyncio.wait_for`` can lose that
        cancel when what it waits for completes at the same moment, so the reader also looks
        at ``_closing`` once a reconnect is done, and closes the connection it made."""
        self._closing = True
        for timer in self._later:
            timer.cancel()
        if self.socket is not None:
            await self.socket.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._end()

    # -- plumbing -------------------------------------------------------------------------------

    async def _open(self, token: str | None, first: bool = True) -> None:
        """Open a socket and shake hands on it with a fresh :class:`ClientConnection` that keeps
        the room copies of the last one; on success it becomes :attr:`socket` and :attr:`conn`
        (the caller marks the client online). Network errors propagate; a refused token raises
        ``bad_token`` unless ``new_identity`` and ``first`` (a reconnect never becomes someone
        else: its refused token ends the client with ``bad_token``)."""
        socket = await connect(
            self.url,
            origin=self.origin,  # type: ignore[arg-type]
            max_size=None,
            compression=None,
            open_timeout=self.timeout,
        )
        try:
            conn = ClientConnection(views=self.conn.views)
            conn.hello(self.name, token=token, client="lumin-python")
            sent = time.time()
            for frame in conn.data_to_send():
                await socket.send(frame)
            async with asyncio.timeout(self.timeout):  # a TimeoutError is a network error
                welcome, refused = await self._welcome(socket, conn)
            if refused is not None and not first:
                raise ServerError(
                    ErrorCode.BAD_TOKEN.value,
                    f"The server no longer knows this identity's token ({refused.message})"
                    " after the connection dropped (the session was signed out or revoked);"
                    " the client ended rather than go on as someone else.",
                )
            if refused is not None and not self.new_identity:
                raise ServerError(
                    ErrorCode.BAD_TOKEN.value,
                    "The server does not know this token, so its identity and seats cannot be"
                    " reclaimed (accept a new identity with new_identity=True).",
                )
        except BaseException:
            await socket.close()
            raise
        self._clock(welcome.server_time, sent)
        self.socket, self.conn, self.welcome, self.token_refused = socket, conn, welcome, refused
        self._resumed = set()

    def _clock(self, server_time: float, sent: float) -> None:
        """Estimate the server's clock from an answer that carried ``server_time`` to a
        request sent at ``sent`` (this machine's clock): the server read it half way."""
        self.clock_offset = server_time - (sent + time.time()) / 2

    def server_time(self) -> float:
        """The server's clock now (seconds since the epoch), from this machine's clock and
        the offset estimated at each handshake (``welcome``'s ``server_time``, so again after
        every reconnect) and at each :meth:`ping`."""
        return time.time() + self.clock_offset

    async def _welcome(
        self, socket: Socket, conn: ClientConnection
    ) -> tuple[Welcome, Error | None]:
        """Read until ``welcome``; returns it and the ``bad_token`` error that came before it,
        if any. A fatal error raises :class:`ServerError`; a socket that closes first raises
        :class:`ConnectionClosed`."""
        refused: Error | None = None
        while True:
            frame = await socket.recv()
            if isinstance(frame, str):
                continue
            conn.receive_data(frame)
            for event in conn.events_received():
                if isinstance(event, ProtocolError):
                    self.errors.append(event)
                elif isinstance(event, Welcome):
                    return event, refused
                elif isinstance(event, Error) and event.code == ErrorCode.BAD_TOKEN.value:
                    refused = event
                elif isinstance(event, Error) and event.fatal:
                    raise ServerError(event.code, event.message)

    async def _run(self) -> None:
        """Read until the client is closed; after each drop, fail the requests in flight and
        reconnect; end the client when reconnecting fails."""
        try:
            while True:
                await self._read()
                self._online = False
                if self._closing:
                    return
                self._fail_requests(
                    ConnectionLost(
                        "disconnected", "The connection to the server dropped before the answer."
                    )
                )
                await self._reconnect()
                if self._closing:  # closed while reconnecting, its cancel lost (see close)
                    assert self.socket is not None
                    await self.socket.close()
                    return
        except ServerError as error:
            self.failure = error
        except Exception as error:  # a bug: surface it to every caller instead of hanging them
            self.failure = ServerError("internal", f"The client failed: {error!r}")
        finally:
            self._end()

    async def _read(self) -> None:
        """Take frames from the current socket until it closes."""
        assert self.socket is not None
        with contextlib.suppress(ConnectionClosed, OSError):
            async for frame in self.socket:
                if isinstance(frame, str):
                    continue
                self.conn.receive_data(frame)
                for event in self.conn.events_received():
                    if isinstance(event, ProtocolError):
                        self.errors.append(event)
                        self.events.put_nowait(Problem(event.code.value, event.message))
                        continue
                    self._dispatch(event)
                await self._flush()
                if self._moved_to is not None:  # the room went to another node: follow it
                    self.url, self._moved_to = self._moved_to, None
                    await self.socket.close()
                    return

    async def _reconnect(self) -> None:
        """Open a new connection with backoff for at most ``give_up`` seconds, say ``hello``
        with the token and ``resume`` every room held; raise ``gave_up`` when no attempt
        succeeds in time (``bad_token`` and fatal errors are not retried)."""
        deadline = asyncio.get_running_loop().time() + self.give_up
        retrying = AsyncRetrying(
            stop=stop_before_delay(self.give_up),
            wait=wait_exponential(multiplier=self.RECONNECT_FIRST, max=self.RECONNECT_MAX)
            + wait_random(0, 0.25),
            retry=retry_if_exception_type(NETWORK_ERRORS),
            before_sleep=self._fall_back,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    async with asyncio.timeout_at(deadline):
                        await self._open(self.token, first=False)
        except NETWORK_ERRORS as error:
            raise ConnectionLost(
                "gave_up",
                f"Lost the connection to {self.url} and could not reconnect within"
                f" {self.give_up:g} s ({_describe(error)}).",
            ) from error
        resumes = self.conn.resume_all(self.codes)
        self._resuming = {r.id: r.room for r in resumes if r.id is not None}
        if self.watching_lobby:  # the new node does not know this client watched it
            again = self.conn.send(WatchLobby())
            assert isinstance(again, WatchLobby)
            self.lobby_ref = self._lobby_again = again.id
        self._online = True  # requests made from now on go out after the resumes
        with contextlib.suppress(ConnectionClosed, OSError):
            await self._flush()  # a socket that drops again is seen by the next _read
        self._reconnected.set()

    def _fall_back(self, _: object) -> None:
        """After a failed reconnect attempt, try the first URL again: a node that ``moved``
        named may be the one that died."""
        self.url = self.first_url

    async def _follow(self, url: str) -> None:
        """Move to the node at ``url`` (a ``moved`` answer): close this connection, reconnect
        there at once and resume every room; returns once the resumes are sent."""
        self.url = url
        self._reconnected.clear()
        if self.socket is not None:
            await self.socket.close()
        reconnected = asyncio.ensure_future(self._reconnected.wait())
        assert self._reader is not None
        await asyncio.wait(
            [reconnected, self._reader],
            timeout=self.give_up + self.timeout,
            return_when=asyncio.FIRST_COMPLETED,
        )
        reconnected.cancel()

    def _fail_requests(self, error: ServerError) -> None:
        """Fail every request still waiting for its answer with ``error``."""
        for future in self.answers.values():
            if not future.done():
                future.set_exception(error)

    def _end(self) -> None:
        """Mark the client ended: requests fail, and every wait for a change wakes to raise."""
        self._online = False
        self._ended = True
        self._fail_requests(self._final())
        for event in self._changed.values():
            event.set()
        self._stream_wake.set()

    def _final(self) -> ServerError:
        """What calls on an ended client raise."""
        return self.failure or ConnectionLost("closed", "The client is closed.")

    def _dispatch(self, message: Message) -> None:
        """Answer the request ``message`` refers to, keep what it tells (chat, game over, room
        summary), wake the waits for its room and queue it in :attr:`messages`."""
        ref = getattr(message, "ref", None)
        answered = ref is not None and (ref in self.answers or ref in self._resuming)
        if ref is not None and ref in self.answers:
            future = self.answers.pop(ref)
            if not future.done():
                # The connection it came on: a moved without ref right behind it may switch
                # the client's node before the caller reads the answer.
                self._answer_urls[ref] = self.url
                future.set_result(message)
        if ref is not None and ref == self._lobby_again:
            self._lobby_again = None
            answered = True
            if isinstance(message, RoomList):
                self.events.put_nowait(LobbyListed(message.rooms))
                self._stream_wake.set()
        room = getattr(message, "room", None)
        if ref is not None and ref in self._resuming:
            room = self._resuming.pop(ref)  # caught up (or refused) after a reconnect
            self._resume_answered(room, message)
        if isinstance(message, Moved) and message.ref is None:
            self._moved_to = message.url
        if isinstance(message, ChatMessage):
            self.chat.append(message)
        if isinstance(message, GameOver):
            self.game_over[message.room] = message
        if isinstance(message, RoomClosed):
            self.closed[message.room] = Closed(message.room, message.reason, message.message)
        if isinstance(message, Kicked):
            self.closed[message.room] = Closed(message.room, "kicked", message.message)
        if isinstance(message, RoomUpdate):
            self.room_info[message.info.room] = message.info
            room = message.info.room
        if isinstance(room, str):
            self._event(room).set()
        self.messages.put_nowait(message)
        event = event_of(message, self.conn.views, answered)
        if event is not None:
            self.events.put_nowait(event)
            self._stream_wake.set()

    def _resume_answered(self, room: str, answer: Message) -> None:
        """The answer to a resume of ``room`` made after a reconnect: back in (``ok`` or a
        snapshot), refused for a moment (``try_again``, ``moved``: tried again with backoff
        until ``give_up``), or refused for good (the room is given up)."""
        if isinstance(answer, Moved):
            self._resume_refused(room, answer.url)
        elif isinstance(answer, Error) and answer.code == ErrorCode.TRY_AGAIN.value:
            self._resume_refused(room, None)
        elif isinstance(answer, Error):
            self._give_up_room(room, answer.code, answer.message)
        else:
            self._refused.pop(room, None)
            self._resumed.add(room)

    def _resume_refused(self, room: str, moved: str | None) -> None:
        """A resume of ``room`` was answered ``try_again`` (``moved`` is ``None``) or ``moved``
        to the node at ``moved``: try again later (see the module docstring), or give the
        room up once it has been out of reach for ``give_up`` seconds."""
        now = asyncio.get_running_loop().time()
        times, since, last_url = self._refused.get(room, (0, now, None))
        if now - since >= self.give_up:
            self._give_up_room(
                room,
                "gave_up",
                f"Could not get back into room {room} within {self.give_up:g} s of the"
                " reconnect; the cluster kept answering that it is not here.",
            )
            return
        self._refused[room] = (times + 1, since, moved or last_url)
        wait = min(self.RESUME_AGAIN * 2**times, self.RESUME_MAX) + random.uniform(0, 0.25)
        if moved is None or self._seated_elsewhere(room):
            self._later_do(wait, lambda conn=self.conn: self._resume_again(room, conn))
        elif moved != last_url:  # news: follow it now
            self._move_to(moved, self.socket)
        else:
            self._later_do(wait, lambda socket=self.socket: self._move_to(moved, socket))

    def _seated_elsewhere(self, room: str) -> bool:
        """Whether a room other than ``room`` holds a seat back in on this connection (a
        reconnect to another node would lose it)."""
        for other in self._resumed - {room}:
            copy = self.conn.views.get(other)
            if copy is not None and copy.seat is not None:
                return True
        return False

    def _later_do(self, wait: float, work: Any) -> None:
        """Call ``work()`` in ``wait`` seconds unless the client closes first."""
        loop = asyncio.get_running_loop()
        timer: asyncio.TimerHandle | None = None

        def fire() -> None:
            assert timer is not None
            self._later.discard(timer)
            if not self._closing and not self._ended:
                work()

        timer = loop.call_later(wait, fire)
        self._later.add(timer)

    def _resume_again(self, room: str, conn: ClientConnection) -> None:
        """Send ``room``'s resume again on ``conn`` if it is still the connection and the room
        still held (a reconnect since resumes every room by itself)."""
        copy = conn.views.get(room)
        if conn is not self.conn or not self._online or copy is None:
            return
        try:
            resume = conn.send(
                Resume(room=room, seq=copy.seq, epoch=copy.epoch, code=self.codes.get(room))
            )
        except InvalidState:  # the server said bye; the socket closes next
            return
        assert isinstance(resume, Resume) and resume.id is not None
        self._resuming[resume.id] = room
        conn.resyncing.add(room)
        self._spawn(self._flush_quietly())

    def _move_to(self, url: str, socket: Socket | None) -> None:
        """Reconnect to the node at ``url`` (a resume's ``moved``) if ``socket`` is still the
        connection: the reader closes it and reconnects there, resuming every room."""
        if socket is None or socket is not self.socket or self._moved_to is not None:
            return
        self.url = url
        self._spawn(socket.close())

    async def _flush_quietly(self) -> None:
        """:meth:`_flush`; a socket that dropped is seen by the reader."""
        with contextlib.suppress(ConnectionClosed, OSError, AssertionError):
            await self._flush()

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _give_up_room(self, room: str, reason: str, message: str) -> None:
        """Stop trying to get back into ``room``: drop everything kept of it but its
        ``game_over``, keep why in :attr:`closed` and say so with a ``Closed`` event."""
        closed = Closed(room, reason, message)
        game_over = self.game_over.get(room)
        self._drop(room)
        self.closed[room] = closed
        if game_over is not None:
            self.game_over[room] = game_over
        self.events.put_nowait(closed)
        self._stream_wake.set()

    def _event(self, room: str) -> asyncio.Event:
        """The event set whenever something arrives for ``room``."""
        return self._changed.setdefault(room, asyncio.Event())

    async def _flush(self) -> None:
        """Write the frames the connection queued (network errors propagate)."""
        assert self.socket is not None
        for frame in self.conn.data_to_send():
            await self.socket.send(frame)

    def _check_usable(self) -> None:
        """Raise when no request can go out now: the client ended, or is reconnecting."""
        if self._ended:
            raise self._final()
        if not self._online:
            raise ConnectionLost(
                "disconnected", "Not connected to the server now; the client is reconnecting."
            )

    async def _request_sent(self, message: Message) -> Message:
        """Write the queued frames and wait for the answer to ``message`` (sent already)."""
        request_id = getattr(message, "id", None)
        assert request_id is not None
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self.answers[request_id] = future
        try:
            try:
                await self._flush()
            except (ConnectionClosed, OSError) as error:
                raise ConnectionLost(
                    "disconnected", f"The connection to the server dropped ({_describe(error)})."
                ) from error
            try:  # not wait_for: on Python 3.11 it can lose a cancel that meets the answer
                async with asyncio.timeout(self.timeout):
                    answer = await future
            except TimeoutError:
                raise RequestTimeout(
                    "timeout", f"The server did not answer within {self.timeout:g} s."
                ) from None
            self.answered_on = self._answer_urls.get(request_id, self.url)
            return answer
        finally:
            self.answers.pop(request_id, None)
            self._answer_urls.pop(request_id, None)
            if future.done() and not future.cancelled():
                future.exception()  # failed by a drop while the send itself failed: seen

    async def request(self, message: Message) -> Message:
        """Send a request and return the server's answer; raise :class:`ServerError` for an
        ``error`` answer, :class:`ConnectionLost` when the connection is not there for it. A
        ``moved`` answer is followed (see the module docstring) and the request sent again; a
        ``try_again`` answer is sent again a moment later, a few times."""
        retrying = AsyncRetrying(
            retry=retry_if_exception(_is_try_again),
            stop=stop_after_attempt(self.TRY_AGAIN_TIMES + 1),
            wait=wait_fixed(self.RESUME_AGAIN),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                return await self._request_once(message)
        raise AssertionError("tenacity stops by raising")  # pragma: no cover

    async def _request_once(self, message: Message) -> Message:
        """:meth:`request` without resending on ``try_again``."""
        for _ in range(self.MAX_MOVES + 1):
            self._check_usable()
            try:
                sent = self.conn.send(message)
            except InvalidState:  # the server said bye; the socket closes next
                raise ConnectionLost("disconnected", "The server closed the connection.") from None
            if isinstance(sent, WatchLobby):
                self.lobby_ref = sent.id
            answer = await self._request_sent(sent)
            if not isinstance(answer, Moved):
                break
            await self._follow(answer.url)
        else:
            raise ServerError(
                "moved_too_often",
                f"The cluster sent this {message.TYPE!r} on {self.MAX_MOVES} times without"
                " answering it; its nodes may not agree yet on who plays the room.",
            )
        if isinstance(answer, Error):
            raise ServerError(answer.code, answer.message)
        return answer

    async def send_raw(self, frame: bytes | str) -> None:
        """Send a frame as is (tests of bad input)."""
        self._check_usable()
        assert self.socket is not None
        await self.socket.send(frame)

    # -- views ----------------------------------------------------------------------------------

    def view(self, room: str) -> Any:
        """The live view of ``room`` (deltas applied), or ``None`` before the game starts."""
        copy = self.conn.views.get(room)
        return None if copy is None else copy.view

    def legal(self, room: str) -> list[dict[str, Any]]:
        """The commands this client's seat may send in ``room`` now."""
        copy = self.conn.views.get(room)
        return [] if copy is None else [dict(entry) for entry in copy.legal]

    def room_time(self, room: str) -> float:
        """The room clock of ``room`` now (the clock of its view's deadlines), from the
        server's clock (:meth:`server_time`) and the room's ``clock_origin``."""
        copy = self.conn.views.get(room)
        return self.server_time() - (0.0 if copy is None else copy.clock_origin)

    def seq(self, room: str) -> int:
        """The sequence number of the live view of ``room``."""
        copy = self.conn.views.get(room)
        return -1 if copy is None else copy.seq

    async def changed(self, room: str, timeout: float | None = None) -> None:
        """Wait until something arrives for ``room`` (a delta, snapshot, update, the answer to
        its resume after a reconnect...) since the last call returned, as long as it takes;
        with ``timeout``, raise :class:`TimeoutError` after that many seconds. Reconnecting
        does not end the wait; a client that has ended (gave up, closed) raises why."""
        if self._ended:
            raise self._final()
        event = self._event(room)
        async with asyncio.timeout(timeout):
            await event.wait()
        if self._ended:
            raise self._final()
        event.clear()

    async def stream(self) -> AsyncIterator[Event]:
        """The client's events as they arrive (see :mod:`clients.sdk.events`), across
        reconnects. It ends when the client is closed; when the client gave up, it raises why
        (:class:`ConnectionLost`, ``gave_up``) once the events that came before are read."""
        while True:
            while not self.events.empty():
                yield self.events.get_nowait()
            if self._ended:
                if self.failure is not None:
                    raise self.failure
                return
            self._stream_wake.clear()
            await self._stream_wake.wait()

    # -- requests -------------------------------------------------------------------------------

    async def ping(self) -> float:
        """The server's clock (seconds since the epoch); refines :meth:`server_time`."""
        sent = time.time()
        answer = await self.request(Ping(client_time=asyncio.get_running_loop().time()))
        if not isinstance(answer, Pong):
            raise ServerError("internal", f"ping was answered {answer.TYPE!r}.")
        self._clock(answer.server_time, sent)
        return float(answer.server_time)

    async def watch_lobby(self) -> list[RoomSummary]:
        """Watch the lobby: its first page now, then ``lobby_update`` messages; after each
        reconnect the client watches it again by itself (a
        :class:`~clients.sdk.events.LobbyListed` event has the list then)."""
        answer = await self.request(WatchLobby())
        self.watching_lobby = True
        if not isinstance(answer, RoomList):
            raise ServerError("internal", f"watch_lobby was answered {answer.TYPE!r}.")
        return list(answer.rooms)

    async def unwatch_lobby(self) -> None:
        """Stop the lobby's updates (and watching it again after a reconnect)."""
        self.watching_lobby = False
        await self.request(UnwatchLobby())

    # -- accounts (protocol version 5) ----------------------------------------------------------

    async def claim_name(self, name: str, password: str) -> Account:
        """Claim ``name`` with ``password`` for this client's identity (it keeps its seats and
        history); ``name_taken`` when someone holds it. Later hellos say the session's token."""
        return self._signed_in(await self.request(ClaimName(name=name, password=password)))

    async def sign_in(self, name: str, password: str) -> Account:
        """Sign in to the account ``name``: this client becomes that identity, and reconnects
        and resumes with the new session's token; ``bad_credentials`` for a wrong pair."""
        return self._signed_in(await self.request(SignIn(name=name, password=password)))

    def _signed_in(self, answer: Message) -> Account:
        answer = _answer(answer, Account, "claim_name/sign_in")
        assert self.welcome is not None  # connect() set it
        self.name = answer.name
        self.welcome = attrs.evolve(
            self.welcome, token=answer.token, user=answer.user, name=answer.name
        )
        return answer

    async def sessions(self) -> list[SessionInfo]:
        """The account's sessions, oldest first (``not_signed_in`` for a guest)."""
        answer = _answer(await self.request(ListSessions()), Sessions, "list_sessions")
        return list(answer.sessions)

    async def revoke_session(self, session: str | None = None) -> None:
        """Revoke the account's ``session``, or with ``None`` every session but this one."""
        await self.request(RevokeSession(session=session))

    async def list_games(self) -> list[GameInfo]:
        """The games the server hosts: options, seat choices, bots, seat counts."""
        answer = _answer(await self.request(ListGames()), Games, "list_games")
        return list(answer.games)

    # -- players' pages over HTTP (docs/protocol.md, "Leaderboards and history") ---------------

    def http_url(self, path: str, **query: str | None) -> str:
        """The URL of ``path`` on the node this client is connected to (``ws://`` becomes
        ``http://``, ``wss://`` ``https://``), with the ``query`` fields that are not ``None``."""
        parts = urllib.parse.urlsplit(self.url)
        scheme = "https" if parts.scheme == "wss" else "http"
        fields = urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        return urllib.parse.urlunsplit((scheme, parts.netloc, path, fields, ""))

    async def get_json(self, path: str, **query: str | None) -> Any:
        """GET ``path`` (see :meth:`http_url`) as JSON; :class:`ServerError` ``http_<status>``
        with the server's sentence when it refuses, ``unreachable`` when it cannot be asked."""
        url = self.http_url(path, **query)

        def fetch() -> Any:
            try:
                with urllib.request.urlopen(url, timeout=self.timeout) as answer:
                    return json.load(answer)
            except urllib.error.HTTPError as refused:
                try:
                    body = json.load(refused)
                except ValueError:
                    body = {}
                said = body.get("error") if isinstance(body, dict) else None
                raise ServerError(
                    f"http_{refused.code}", str(said or f"{url} answered HTTP {refused.code}.")
                ) from None
            except (OSError, ValueError) as error:
                raise ConnectionLost("unreachable", f"Cannot fetch {url}: {error}.") from None

        return await asyncio.to_thread(fetch)

    async def leaderboard(self, game: str, pool: str | None = None) -> dict[str, Any]:
        """``GET /leaderboard``: ``{"game", "pool", "pools", "players": [{"name", "user",
        "rating", "games", "rank"}]}``, the pool's best players (the game's first pool by
        default)."""
        answer: dict[str, Any] = await self.get_json("/leaderboard", game=game, pool=pool)
        return answer

    async def list_rooms(self, game: str | None = None) -> list[RoomSummary]:
        """One page of the lobby; a finished game's summary carries its ``result`` (who won,
        the scores and when it ended, protocol version 6)."""
        answer = _answer(await self.request(ListRooms(game=game)), RoomList, "list_rooms")
        return list(answer.rooms)

    async def create_room(
        self,
        game: str,
        seats: Sequence[SeatChoice],
        options: Mapping[str, Any] | None = None,
        sit: int | None = None,
        private: bool = False,
        turn_clock: float | None = None,
    ) -> str:
        """Create a room; returns its id (``self.codes`` keeps a private room's code)."""
        answer = await self.request(
            CreateRoom(
                game=game,
                options=dict(options or {}),
                seats=tuple(seats),
                private=private,
                sit=sit,
                turn_clock=turn_clock,
            )
        )
        answer = _answer(answer, RoomCreated, "create_room")
        self.last_created = answer
        if answer.code is not None:
            self.codes[answer.room] = answer.code
        return answer.room

    def _remember_code(self, room: str, code: str | None) -> None:
        """Keep a private room's code for the ``resume`` after a reconnect."""
        if code is not None:
            self.codes[room] = code

    async def join(self, room: str, seat: int, code: str | None = None) -> None:
        """Take ``seat`` of ``room`` (or reclaim it); its snapshot has arrived on return."""
        await self.request(JoinSeat(room=room, seat=seat, code=code))
        self._remember_code(room, code)
        self.closed.pop(room, None)

    async def watch(self, room: str, code: str | None = None) -> None:
        """Watch ``room``; its snapshot has arrived on return (its ``room_info`` may follow)."""
        await self.request(WatchRoom(room=room, code=code))
        self._remember_code(room, code)
        self.closed.pop(room, None)

    async def ready(self, room: str, ready: bool = True) -> None:
        await self.request(Ready(room=room, ready=ready))

    async def leave(self, room: str) -> None:
        """Leave ``room``: everything the client kept of it is dropped (its copy, summary,
        code, game over, closed reason; a wait for its change wakes); after the start the
        seat stays yours."""
        await self.request(Leave(room=room))
        self._drop(room)

    def _drop(self, room: str) -> None:
        """Forget ``room`` (left, or given up): a long session keeps only the rooms it is in."""
        self.conn.views.pop(room, None)
        self.conn.resyncing.discard(room)
        for kept in (self.room_info, self.codes, self.game_over, self.closed, self._refused):
            kept.pop(room, None)
        event = self._changed.pop(room, None)
        if event is not None:
            event.set()  # wake the waits for the room

    async def start(self, room: str) -> None:
        await self.request(Start(room=room))

    async def rematch(self, room: str) -> str:
        """Ask for a rematch of the finished ``room``; returns the new room's id."""
        answer = _answer(await self.request(Rematch(room=room)), Ok, "rematch")
        if answer.room is None:
            raise ServerError("internal", "The server's answer to 'rematch' names no room.")
        return answer.room

    async def act(self, room: str, command: Mapping[str, Any]) -> CommandAccepted | CommandRejected:
        """Send a game command; returns ``command_accepted`` or ``command_rejected``."""
        answer = await self.request(Act(room=room, command=dict(command), seq=self.seq(room)))
        return _answer(answer, (CommandAccepted, CommandRejected), "act")

    async def resume(self, room: str, seq: int, epoch: str) -> None:
        await self.request(Resume(room=room, seq=seq, epoch=epoch))

    async def say(self, room: str, text: str) -> None:
        await self.request(ChatSend(room=room, text=text))

    async def open_replay(
        self, room: str, viewer: int | None = None, code: str | None = None
    ) -> ReplayState:
        """Open a replay of the finished ``room`` seen by ``viewer`` (a seat, or ``None`` for
        the public view); a private game's needs its ``code`` unless this identity played it."""
        answer = await self.request(OpenReplay(room=room, viewer=viewer, code=code))
        return _answer(answer, ReplayState, "replay")

    async def close_replay(self, replay: str) -> None:
        """Close the replay ``replay`` (the server forgets its position)."""
        await self.request(CloseReplay(replay=replay))

    async def replay_step(self, replay: str, steps: int = 1) -> ReplayState:
        answer = await self.request(ReplayStep(replay=replay, steps=steps))
        return _answer(answer, ReplayState, "replay")

    async def replay_seek(self, replay: str, position: int) -> ReplayState:
        answer = await self.request(ReplaySeek(replay=replay, position=position))
        return _answer(answer, ReplayState, "replay")

    async def replay_viewer(self, replay: str, viewer: int | None) -> ReplayState:
        answer = await self.request(ReplayViewer(replay=replay, viewer=viewer))
        return _answer(answer, ReplayState, "replay")
