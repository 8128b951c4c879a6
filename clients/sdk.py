"""The Python client library: speak the Lumin protocol over a websocket, keep live views.

::

    async with await LuminClient.connect("ws://127.0.0.1:8700/ws", name="Ada") as client:
        room = await client.create_room("flip_over_frog", seats=[human(), bot("bot")], sit=0)
        await client.start(room)
        view = client.view(room)            # the seat's live view, deltas applied
        legal = client.legal(room)          # the commands the seat may send now
        answer = await client.act(room, {"type": "play", "tile": "R1", "space": 5})

Every request returns the server's answer to it (matched by request id) within the client's
``timeout``, or raises :class:`ServerError` with the server's code and sentence. Deltas and
snapshots are applied by the sans-I/O :class:`protocol.connection.ClientConnection`;
:meth:`LuminClient.changed` waits for the next change of a room's view. A client that
misses a delta resumes by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection as Socket
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol.connection import ClientConnection
from protocol.errors import ProtocolError
from protocol.messages import (
    Act,
    ChatMessage,
    ChatSend,
    CommandAccepted,
    CommandRejected,
    CreateRoom,
    Error,
    GameInfo,
    GameOver,
    JoinSeat,
    Leave,
    ListGames,
    ListRooms,
    Message,
    OpenReplay,
    Ping,
    Ready,
    Rematch,
    ReplaySeek,
    ReplayState,
    ReplayStep,
    ReplayViewer,
    Resume,
    RoomCreated,
    RoomSummary,
    RoomUpdate,
    SeatChoice,
    Start,
    WatchLobby,
    WatchRoom,
    Welcome,
)

__all__ = ["LuminClient", "ServerError", "bot", "human"]


class ServerError(Exception):
    """The server refused a request: ``code`` and ``message`` as it sent them."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def human(**choices: Any) -> SeatChoice:
    """A seat for a person, with per-seat choices (a Neon Hex role, a Flash 8 handicap...)."""
    return SeatChoice(kind="human", choices=choices)


def bot(kind: str | None = None, **choices: Any) -> SeatChoice:
    """A seat for a bot of ``kind`` (the game's default when ``None``)."""
    return SeatChoice(kind="bot", bot=kind, choices=choices)


class LuminClient:
    """One connection to a Lumin server (see the module docstring)."""

    def __init__(self, socket: Socket, name: str, timeout: float = 30.0) -> None:
        self.socket = socket
        self.timeout = timeout
        self.name = name
        self.conn = ClientConnection()
        self.welcome: Welcome | None = None
        self.answers: dict[int, asyncio.Future[Message]] = {}
        self.messages: asyncio.Queue[Message] = asyncio.Queue()
        self.chat: list[ChatMessage] = []
        self.game_over: dict[str, GameOver] = {}
        #: The latest summary of every room this client is in (game, seats, state...).
        self.room_info: dict[str, RoomSummary] = {}
        self._changed: dict[str, asyncio.Event] = {}
        self._reader: asyncio.Task[None] | None = None
        self.errors: list[ProtocolError] = []
        self.last_created: RoomCreated | None = None

    @classmethod
    async def connect(
        cls, url: str, name: str, token: str | None = None, origin: str | None = None
    ) -> LuminClient:
        """Open a connection and say hello; the returned client holds its ``welcome``."""
        socket = await connect(url, origin=origin, max_size=None, compression=None)  # type: ignore[arg-type]
        client = cls(socket, name)
        client._reader = asyncio.create_task(client._read())
        hello = client.conn.hello(name, token=token, client="lumin-python")
        welcome = await client._request_sent(hello)
        assert isinstance(welcome, Welcome)
        client.welcome = welcome
        return client

    @property
    def token(self) -> str:
        assert self.welcome is not None
        return self.welcome.token

    @property
    def user(self) -> str:
        assert self.welcome is not None
        return self.welcome.user

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
        """Close the connection."""
        await self.socket.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    # -- plumbing -------------------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for frame in self.socket:
                if isinstance(frame, str):
                    continue
                self.conn.receive_data(frame)
                for event in self.conn.events_received():
                    if isinstance(event, ProtocolError):
                        self.errors.append(event)
                        continue
                    self._dispatch(event)
                await self._write()
        except ConnectionClosed:
            pass
        finally:
            for future in self.answers.values():
                if not future.done():
                    future.set_exception(ServerError("closed", "The connection closed."))

    def _dispatch(self, message: Message) -> None:
        ref = getattr(message, "ref", None)
        if ref is not None and ref in self.answers:
            future = self.answers.pop(ref)
            if not future.done():
                future.set_result(message)
        room = getattr(message, "room", None)
        if isinstance(message, ChatMessage):
            self.chat.append(message)
        if isinstance(message, GameOver):
            self.game_over[message.room] = message
        if isinstance(message, RoomUpdate):
            self.room_info[message.info.room] = message.info
            room = message.info.room
        if isinstance(room, str):
            self._event(room).set()
        self.messages.put_nowait(message)

    def _event(self, room: str) -> asyncio.Event:
        return self._changed.setdefault(room, asyncio.Event())

    async def _write(self) -> None:
        for frame in self.conn.data_to_send():
            await self.socket.send(frame)

    async def _request_sent(self, message: Message) -> Message:
        request_id = getattr(message, "id", None)
        assert request_id is not None
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self.answers[request_id] = future
        await self._write()
        try:
            return await asyncio.wait_for(future, self.timeout)
        finally:
            self.answers.pop(request_id, None)

    async def request(self, message: Message) -> Message:
        """Send a request and return the server's answer; raise :class:`ServerError` for an
        ``error`` answer."""
        sent = self.conn.send(message)
        answer = await self._request_sent(sent)
        if isinstance(answer, Error):
            raise ServerError(answer.code, answer.message)
        return answer

    async def send_raw(self, frame: bytes | str) -> None:
        """Send a frame as is (tests of bad input)."""
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

    def seq(self, room: str) -> int:
        """The sequence number of the live view of ``room``."""
        copy = self.conn.views.get(room)
        return -1 if copy is None else copy.seq

    async def changed(self, room: str, timeout: float = 10.0) -> None:
        """Wait until something arrives for ``room`` (a delta, snapshot, update...)."""
        event = self._event(room)
        await asyncio.wait_for(event.wait(), timeout)
        event.clear()

    # -- requests -------------------------------------------------------------------------------

    async def ping(self) -> float:
        """The server's clock (seconds since the epoch)."""
        answer = await self.request(Ping(client_time=asyncio.get_running_loop().time()))
        return float(answer.server_time)  # type: ignore[attr-defined]

    async def watch_lobby(self) -> list[RoomSummary]:
        answer = await self.request(WatchLobby())
        return list(answer.rooms)  # type: ignore[attr-defined]

    async def list_games(self) -> list[GameInfo]:
        """The games the server hosts: options, seat choices, bots, seat counts."""
        answer = await self.request(ListGames())
        return list(answer.games)  # type: ignore[attr-defined]

    async def list_rooms(self, game: str | None = None) -> list[RoomSummary]:
        answer = await self.request(ListRooms(game=game))
        return list(answer.rooms)  # type: ignore[attr-defined]

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
        assert isinstance(answer, RoomCreated)
        self.last_created = answer
        return answer.room

    async def join(self, room: str, seat: int, code: str | None = None) -> None:
        await self.request(JoinSeat(room=room, seat=seat, code=code))

    async def watch(self, room: str, code: str | None = None) -> None:
        await self.request(WatchRoom(room=room, code=code))

    async def ready(self, room: str, ready: bool = True) -> None:
        await self.request(Ready(room=room, ready=ready))

    async def leave(self, room: str) -> None:
        await self.request(Leave(room=room))

    async def start(self, room: str) -> None:
        await self.request(Start(room=room))

    async def rematch(self, room: str) -> str:
        answer = await self.request(Rematch(room=room))
        return str(answer.room)  # type: ignore[attr-defined]

    async def act(self, room: str, command: Mapping[str, Any]) -> CommandAccepted | CommandRejected:
        """Send a game command; returns ``command_accepted`` or ``command_rejected``."""
        answer = await self.request(Act(room=room, command=dict(command), seq=self.seq(room)))
        assert isinstance(answer, CommandAccepted | CommandRejected)
        return answer

    async def resume(self, room: str, seq: int, epoch: str) -> None:
        await self.request(Resume(room=room, seq=seq, epoch=epoch))

    async def say(self, room: str, text: str) -> None:
        await self.request(ChatSend(room=room, text=text))

    async def open_replay(self, room: str, viewer: int | None = None) -> ReplayState:
        answer = await self.request(OpenReplay(room=room, viewer=viewer))
        assert isinstance(answer, ReplayState)
        return answer

    async def replay_step(self, replay: str, steps: int = 1) -> ReplayState:
        answer = await self.request(ReplayStep(replay=replay, steps=steps))
        assert isinstance(answer, ReplayState)
        return answer

    async def replay_seek(self, replay: str, position: int) -> ReplayState:
        answer = await self.request(ReplaySeek(replay=replay, position=position))
        assert isinstance(answer, ReplayState)
        return answer

    async def replay_viewer(self, replay: str, viewer: int | None) -> ReplayState:
        answer = await self.request(ReplayViewer(replay=replay, viewer=viewer))
        assert isinstance(answer, ReplayState)
        return answer
