"""The client's event stream: what happened in the rooms a client is in, one typed event each.

``async for event in client.stream():`` yields, in the order they arrived:

- :class:`Update`: a room's view changed (a snapshot or a delta was applied): its ``seq``, the
  new ``view`` and the seat's ``legal`` entries;
- :class:`RoomChanged`: a room's summary changed (seats, ready flags, state, spectators);
- :class:`Chat`: a chat line;
- :class:`Ended`: a game is over (``game_over``: the outcome and the revealed seed);
- :class:`Closed`: the server closed a room (``room_closed``), or removed the client from it;
- :class:`LobbyListed`: after a reconnect (or a ``moved``) the client watched the lobby again,
  as it had been asked to: ``rooms`` is the whole first page of the lobby now, to replace the
  list one kept (``lobby_update`` messages follow as before);
- :class:`Problem`: something went wrong outside any request: an ``error`` from the server that
  answers none of the client's requests, a frame that did not decode, a delta that did not fit
  (the client resumes by itself).

Answers to the client's own requests are not events: each request returns its answer. The
stream is bounded like the client's other buffers: it keeps the newest ``keep`` events (1000 by
default) and drops the oldest, counting them in :attr:`~clients.sdk.Recent.dropped`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from protocol.errors import ProtocolError
from protocol.messages import (
    ChatMessage,
    Delta,
    Error,
    GameOver,
    Kicked,
    Message,
    RoomClosed,
    RoomSummary,
    RoomUpdate,
    Snapshot,
)
from protocol.views import RoomView

__all__ = [
    "Chat",
    "Closed",
    "Ended",
    "Event",
    "LobbyListed",
    "Problem",
    "RoomChanged",
    "Update",
    "event_of",
]


@attrs.frozen
class Update:
    """The view of ``room`` is now the one at ``seq``: ``view`` (``None`` before the start) and
    the seat's ``legal`` entries (empty for a spectator, or when nothing is legal now)."""

    room: str
    seq: int
    view: Any
    legal: Sequence[Mapping[str, Any]]


@attrs.frozen
class RoomChanged:
    """The summary of ``info.room`` changed."""

    info: RoomSummary


@attrs.frozen
class Chat:
    """A chat line."""

    line: ChatMessage


@attrs.frozen
class Ended:
    """The game of ``over.room`` is over."""

    over: GameOver


@attrs.frozen
class Closed:
    """``room`` is closed to this client: ``reason`` as the server gave it (``room_closed``'s
    reason, or ``kicked``) and the server's ``message``."""

    room: str
    reason: str
    message: str


@attrs.frozen
class LobbyListed:
    """The lobby as the server listed it when the client watched it again after a reconnect:
    ``rooms`` replace the list one kept."""

    rooms: Sequence[RoomSummary]


@attrs.frozen
class Problem:
    """Something went wrong outside any request: ``code`` (an error code of docs/protocol.md),
    the sentence, and the room it concerns, if any."""

    code: str
    message: str
    room: str | None = None


Event = Update | RoomChanged | Chat | Ended | Closed | LobbyListed | Problem


def event_of(
    message: Message | ProtocolError, views: Mapping[str, RoomView], answered: bool
) -> Event | None:
    """The event a received message makes, or ``None`` (an answer, a pong...). ``views`` are
    the client's copies after the message was applied; ``answered`` tells whether it answered
    one of the client's requests."""
    if isinstance(message, ProtocolError):
        return Problem(message.code.value, message.message)
    if isinstance(message, Snapshot | Delta):
        copy = views.get(message.room)
        if copy is None or copy.seq != message.seq:
            return None  # a delta that did not fit: the ProtocolError says so
        return Update(copy.room, copy.seq, copy.view, copy.legal)
    if isinstance(message, RoomUpdate):
        return RoomChanged(message.info)
    if isinstance(message, ChatMessage):
        return Chat(message)
    if isinstance(message, GameOver):
        return Ended(message)
    if isinstance(message, RoomClosed):
        return Closed(message.room, message.reason, message.message)
    if isinstance(message, Kicked):
        return Closed(message.room, "kicked", message.message)
    if isinstance(message, Error) and not answered:
        return Problem(message.code, message.message)
    return None
