"""Every message of the Lumin protocol, as a typed frozen attrs class with a ``TYPE`` tag.

On the wire a message is one msgpack map: ``{"type": TYPE, field: value, ...}`` (see
:mod:`protocol.codec`). ``SENDERS`` says who may send it: ``"client"``, ``"server"`` or both.
Requests carry an optional ``id`` chosen by the client; every answer to a request carries the
same number as ``ref``, so a client can match answers to questions. ``docs/protocol.md``
describes each message, when it is sent and what the server does with it.

All classes are keyword-only: ``JoinSeat(room="r7", seat=1, id=4)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal, TypeVar

import attrs

from protocol.delta import PatchOp

__all__ = [
    "CLIENT_MESSAGES",
    "MAX_ID",
    "MESSAGES",
    "SERVER_MESSAGES",
    "Account",
    "Act",
    "Bye",
    "CancelPlayNow",
    "ChatMessage",
    "ChatSend",
    "ClaimName",
    "CloseReplay",
    "CommandAccepted",
    "CommandRejected",
    "CreateRoom",
    "Delta",
    "Error",
    "GameInfo",
    "GameOver",
    "Games",
    "GetSnapshot",
    "Hello",
    "JoinSeat",
    "Kick",
    "Kicked",
    "Leave",
    "LimitsInfo",
    "ListGames",
    "ListRooms",
    "ListSessions",
    "LobbyUpdate",
    "Matched",
    "Message",
    "Moved",
    "Mute",
    "Ok",
    "OpenReplay",
    "OptionInfo",
    "OutcomeInfo",
    "Ping",
    "PlayNow",
    "Pong",
    "RatingChange",
    "RatingsChanged",
    "Ready",
    "Rematch",
    "RematchCreated",
    "ReplaySeek",
    "ReplayState",
    "ReplayStep",
    "ReplayViewer",
    "ResultInfo",
    "Resume",
    "RevokeSession",
    "RoomClosed",
    "RoomCreated",
    "RoomList",
    "RoomSummary",
    "RoomUpdate",
    "SeatChoice",
    "SeatInfo",
    "Sender",
    "SessionInfo",
    "Sessions",
    "SetName",
    "SignIn",
    "Snapshot",
    "Start",
    "UnwatchLobby",
    "WatchLobby",
    "WatchRoom",
    "Welcome",
]

#: Who sends a message.
Sender = Literal["client", "server"]

#: The largest request id, sequence number or count: 2**53 - 1, so JavaScript clients can hold
#: every number in a plain double.
MAX_ID = 2**53 - 1

#: Lumin's own plain data: what views, options, commands and legal entries are made of.
Data = Mapping[str, Any]


def _count(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not 0 <= value <= MAX_ID:
        raise ValueError(f"{attribute.name} must be between 0 and {MAX_ID}, not {value}")


def _versions(instance: Any, attribute: attrs.Attribute[Any], value: tuple[int, ...]) -> None:
    if not value:
        raise ValueError("versions must name at least one protocol version")
    if any(not 1 <= version <= 65535 for version in value):
        raise ValueError("protocol versions are between 1 and 65535")


@attrs.frozen(kw_only=True)
class Message:
    """Base of every message. Subclasses set ``TYPE`` and ``SENDERS``."""

    TYPE: ClassVar[str] = ""
    SENDERS: ClassVar[frozenset[Sender]] = frozenset()


_FROM_CLIENT: frozenset[Sender] = frozenset({"client"})
_FROM_SERVER: frozenset[Sender] = frozenset({"server"})
_FROM_BOTH: frozenset[Sender] = frozenset({"client", "server"})

_M = TypeVar("_M", bound=type[Message])

#: Every message class by its ``TYPE``.
MESSAGES: dict[str, type[Message]] = {}


def _message(cls: _M) -> _M:
    assert cls.TYPE and cls.TYPE not in MESSAGES and cls.SENDERS, cls
    assert "type" not in attrs.fields_dict(cls), cls
    MESSAGES[cls.TYPE] = cls
    return cls


def _id() -> Any:
    return attrs.field(default=None, validator=_count)


# --- data carried inside messages -------------------------------------------------------------


@attrs.frozen(kw_only=True)
class SeatChoice:
    """One seat of a room being created: a human seat (open for someone to join) or a bot.

    ``bot`` is a bot kind the game offers (its ``bots``; difficulty levels are kinds, such as
    ``"random"`` or ``"greedy"``); ``None`` with ``kind="bot"`` means the game's default bot.
    ``choices`` are the game's per-seat options: a Neon Hex ``role`` and ``colour``, a Flash 8
    ``handicap``... ``name`` names a bot seat (humans bring their own name).
    """

    kind: Literal["human", "bot"] = "human"
    bot: str | None = None
    name: str | None = None
    choices: Data = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        if self.kind == "human" and self.bot is not None:
            raise ValueError("a human seat names no bot kind")


@attrs.frozen(kw_only=True)
class LimitsInfo:
    """The limits the server enforces on one person, announced in ``welcome``: ``rate``
    messages per second on average and ``burst`` at once, over all of the identity's
    connections (``address_rate`` and ``address_burst`` for everyone at one client address
    together); chat lines of at most ``chat_length`` characters, ``chat_rate`` per 10 seconds;
    ``rooms`` open rooms created at once; ``replays`` open replays per connection; and
    ``lobby_page`` rooms per ``room_list`` at most."""

    rate: float
    burst: int = attrs.field(validator=_count)
    address_rate: float
    address_burst: int = attrs.field(validator=_count)
    chat_length: int = attrs.field(validator=_count)
    chat_rate: int = attrs.field(validator=_count)
    rooms: int = attrs.field(validator=_count)
    replays: int = attrs.field(validator=_count)
    lobby_page: int = attrs.field(validator=_count)


@attrs.frozen(kw_only=True)
class SeatInfo:
    """One seat as the lobby and the room show it.

    ``kind`` is ``"open"`` (nobody yet), ``"human"`` or ``"bot"``; ``user`` is the public user
    id of the human holding it; ``connected`` is whether that human is connected now (a bot
    plays a disconnected seat after the grace period); ``ready`` is whether they pressed ready.
    """

    seat: int = attrs.field(validator=_count)
    kind: Literal["open", "human", "bot"]
    name: str | None = None
    user: str | None = None
    bot: str | None = None
    choices: Data = attrs.field(factory=dict)
    ready: bool = False
    connected: bool = False
    #: The human's rating in the room's pool, as shown (version 5; ``None`` when unrated).
    rating: float | None = None


@attrs.frozen(kw_only=True)
class ResultInfo:
    """A finished game's result as the lobby lists it (version 6): the server time it ended
    (``finished``, seconds since the epoch), its ``winners`` (seats; none when a solo game was
    lost), each seat's final ``scores`` (what the game counts: Frogs, hexes, points, victory
    points; Flash 8 solo counts the reserve left, lower being better) and the ``reason`` it
    ended (the outcome's, game-defined)."""

    finished: float
    winners: tuple[int, ...] = ()
    scores: tuple[float, ...] = ()
    reason: str = ""


@attrs.frozen(kw_only=True)
class RoomSummary:
    """A room as the lobby lists it and as its members see it.

    ``state`` is ``"waiting"`` (seats filling, not started), ``"playing"`` or ``"finished"``;
    ``host`` is the host's public user id; ``commitment`` is the hex SHA-256 commitment to the
    room's seed (see :mod:`protocol.fairness`); ``turn_clock`` is the room's turn clock in
    seconds (``None`` = off); ``created`` is the server time the room was created.
    """

    room: str
    game: str
    options: Data = attrs.field(factory=dict)
    seats: tuple[SeatInfo, ...] = ()
    state: Literal["waiting", "playing", "finished"] = "waiting"
    host: str | None = None
    spectators: int = attrs.field(default=0, validator=_count)
    private: bool = False
    commitment: str = ""
    turn_clock: float | None = None
    created: float = 0.0
    #: A finished game's result (version 6; ``None`` while it plays, for a game finished
    #: before the server kept results, and for older clients).
    result: ResultInfo | None = None


@attrs.frozen(kw_only=True)
class OutcomeInfo:
    """How a finished game ended (the engine's ``Outcome``): ``ranks[seat]`` (1 = winner,
    several 1s on a shared victory), ``scores[seat]``, ``winners``, the ``reason`` it ended,
    the ``tiebreak`` rule that split equal scores if one did, and game-specific ``details``."""

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    winners: tuple[int, ...]
    reason: str
    tiebreak: str | None = None
    details: Data = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class OptionInfo:
    """A room option or per-seat choice a game offers: its ``name``, ``kind`` (``"int"``,
    ``"float"``, ``"bool"`` or ``"choice"``), ``default``, a sentence (``doc``), the allowed
    ``choices`` of a choice, and the bounds of a number (``None`` = unbounded). ``when``
    (version 6) says when it applies: each key an other option's name, or ``"seats"``, with
    the values (seat counts) under which it does; all must hold, and empty means always."""

    name: str
    kind: Literal["int", "float", "bool", "choice"]
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    when: Data = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class GameInfo:
    """A game the server hosts, with everything a client needs to offer a room of it: room
    ``options``, ``seat_options`` (per-seat choices), the ``bots`` it offers and its
    ``default_bot``, and ``seats``: how many seats a room may have, as a list of
    ``{"when": {option: value}, "min": n, "max": m}`` where the first entry whose ``when``
    matches the room's options (an empty ``when`` matches all) applies; ``commands`` maps each
    command type to its field names (a legal entry's other keys are information)."""

    id: str
    name: str
    options: tuple[OptionInfo, ...] = ()
    seat_options: tuple[OptionInfo, ...] = ()
    bots: tuple[str, ...] = ()
    default_bot: str
    seats: tuple[Data, ...] = ()
    commands: Data = attrs.field(factory=dict)


# --- handshake and connection -----------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class Hello(Message):
    """The client's first message: the protocol versions it speaks, its guest name, and the
    secret token of an earlier session to reclaim that identity and its seats."""

    TYPE = "hello"
    SENDERS = _FROM_CLIENT
    versions: tuple[int, ...] = attrs.field(validator=_versions)
    name: str
    token: str | None = None
    client: str | None = None
    #: An outside identity provider's signed token (version 5), when the server's operator
    #: configured one: the connection is that provider's person (``bad_credentials`` when it
    #: fails verification); the ``welcome`` carries a session token for later hellos.
    jwt: str | None = None
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Welcome(Message):
    """The server's answer to ``hello``: the chosen version, the identity's secret token (keep
    it to reclaim seats later), its public user id and name, the server clock, the rooms where
    it holds a seat, the largest frame the server accepts, and the other limits it enforces
    (:class:`LimitsInfo`)."""

    TYPE = "welcome"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    version: int
    token: str
    user: str
    name: str
    server_time: float
    rooms: tuple[str, ...] = ()
    max_frame: int = attrs.field(validator=_count)
    limits: LimitsInfo | None = None


@_message
@attrs.frozen(kw_only=True)
class Error(Message):
    """A protocol error (a code of :class:`protocol.errors.ErrorCode`), answering the request
    ``ref`` when known. ``fatal`` means the server closes the connection after sending it."""

    TYPE = "error"
    SENDERS = _FROM_SERVER
    code: str
    message: str
    ref: int | None = _id()
    fatal: bool = False


@_message
@attrs.frozen(kw_only=True)
class Ping(Message):
    """Clock sync and liveness: ``client_time`` is echoed back in ``pong``."""

    TYPE = "ping"
    SENDERS = _FROM_CLIENT
    client_time: float | None = None
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Pong(Message):
    """The answer to ``ping``: the client's time echoed and the server's clock (Unix seconds)
    at the moment of answering."""

    TYPE = "pong"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    client_time: float | None = None
    server_time: float


@_message
@attrs.frozen(kw_only=True)
class Ok(Message):
    """The answer to a request that needs no other answer; ``room`` names the room concerned."""

    TYPE = "ok"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    room: str | None = None


@_message
@attrs.frozen(kw_only=True)
class Bye(Message):
    """Either side says it is closing the connection, with a snake_case ``code`` (``normal``,
    ``going_away`` when the server shuts down...) and a sentence."""

    TYPE = "bye"
    SENDERS = _FROM_BOTH
    code: str = "normal"
    message: str = ""


@_message
@attrs.frozen(kw_only=True)
class SetName(Message):
    """Play under another name from now on, without reconnecting (protocol version 4); answered
    by ``ok``. The seats the identity holds in rooms not finished take the new name (their
    members get ``room_update``); chat lines from now on carry it."""

    TYPE = "set_name"
    SENDERS = _FROM_CLIENT
    name: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Moved(Message):
    """The room is played on another node of the cluster (protocol version 2): reconnect to
    ``url``, ``hello`` with the same token, ``resume`` and send the request again.

    As an answer (``ref``), it stands for the answer of a ``join_seat``, a seated person's
    ``resume``, a ``create_room`` (``room`` is ``None``: a less-loaded node creates it) or a
    spectator's ``chat_send``, sent to a node that does not play the room; without ``ref``,
    the room moved away under the connection (its node lost it or handed it over)."""

    TYPE = "moved"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    room: str | None = None
    url: str


# --- lobby ------------------------------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class WatchLobby(Message):
    """Subscribe to the lobby: answered by ``room_list``, then ``lobby_update`` on changes."""

    TYPE = "watch_lobby"
    SENDERS = _FROM_CLIENT
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class UnwatchLobby(Message):
    """Stop the lobby updates; answered by ``ok``."""

    TYPE = "unwatch_lobby"
    SENDERS = _FROM_CLIENT
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class ListRooms(Message):
    """Ask once for a page of the public rooms, of one game or all: at most ``limit`` (the
    server's page size when ``None``, which also caps it) from position ``offset`` of the
    lobby's order; answered by ``room_list``."""

    TYPE = "list_rooms"
    SENDERS = _FROM_CLIENT
    game: str | None = None
    offset: int = attrs.field(default=0, validator=_count)
    limit: int | None = attrs.field(default=None, validator=_count)
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class ListGames(Message):
    """Ask for the games the server hosts; answered by ``games``."""

    TYPE = "list_games"
    SENDERS = _FROM_CLIENT
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Games(Message):
    """The games the server hosts, answering ``list_games``."""

    TYPE = "games"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    games: tuple[GameInfo, ...] = ()


@_message
@attrs.frozen(kw_only=True)
class RoomList(Message):
    """A page of the public rooms (private ones are never listed), answering ``watch_lobby``
    (the first page) or ``list_rooms``: live rooms newest first, then finished games most
    recently finished first. ``total`` counts every listed room; ``next`` is the ``offset`` of
    the next page, ``None`` on the last."""

    TYPE = "room_list"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    rooms: tuple[RoomSummary, ...] = ()
    total: int = attrs.field(default=0, validator=_count)
    next: int | None = attrs.field(default=None, validator=_count)


@_message
@attrs.frozen(kw_only=True)
class LobbyUpdate(Message):
    """A change in the lobby: rooms new or changed (whole summaries), and ids of rooms gone."""

    TYPE = "lobby_update"
    SENDERS = _FROM_SERVER
    rooms: tuple[RoomSummary, ...] = ()
    removed: tuple[str, ...] = ()


@_message
@attrs.frozen(kw_only=True)
class CreateRoom(Message):
    """Create a room of ``game`` with its room ``options`` and one :class:`SeatChoice` per seat.

    The creator becomes the host and watches the room; with ``sit`` it also takes that (human)
    seat. ``private`` rooms are not listed and need their code to join or watch. ``turn_clock``
    (seconds, ``None`` = off) lets a bot move for a player who takes longer.
    """

    TYPE = "create_room"
    SENDERS = _FROM_CLIENT
    game: str
    options: Data = attrs.field(factory=dict)
    seats: tuple[SeatChoice, ...]
    private: bool = False
    sit: int | None = attrs.field(default=None, validator=_count)
    turn_clock: float | None = None
    #: Whether the game counts for ratings (version 5): ``None`` rates it when no seat is a
    #: bot; ``True`` rates it with bots too, ``False`` never.
    rated: bool | None = None
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class RoomCreated(Message):
    """The answer to ``create_room``: the new room's id, its private ``code`` (private rooms
    only) and the seed commitment. A ``snapshot`` and a ``room_update`` of the room follow."""

    TYPE = "room_created"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    room: str
    code: str | None = None
    commitment: str


@_message
@attrs.frozen(kw_only=True)
class JoinSeat(Message):
    """Take ``seat`` of ``room``: an open seat before the start, one's own seat again, or a
    bot seat to take it over. ``code`` is needed for private rooms."""

    TYPE = "join_seat"
    SENDERS = _FROM_CLIENT
    room: str
    seat: int = attrs.field(validator=_count)
    code: str | None = None
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class WatchRoom(Message):
    """Watch ``room`` as a spectator; answered by a ``snapshot`` of the public view."""

    TYPE = "watch_room"
    SENDERS = _FROM_CLIENT
    room: str
    code: str | None = None
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Ready(Message):
    """Say one is ready (or not) to start; answered by ``ok``."""

    TYPE = "ready"
    SENDERS = _FROM_CLIENT
    room: str
    ready: bool = True
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Leave(Message):
    """Leave ``room``: free one's seat before the start (a bot takes it during a game) and stop
    receiving its views; answered by ``ok``."""

    TYPE = "leave"
    SENDERS = _FROM_CLIENT
    room: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Start(Message):
    """The host starts the game once every seat is filled and every seated human is ready."""

    TYPE = "start"
    SENDERS = _FROM_CLIENT
    room: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Rematch(Message):
    """A seated player of a finished room asks for a rematch; when every seated human has asked,
    the server creates the new room and sends ``rematch_created`` to the old room's members."""

    TYPE = "rematch"
    SENDERS = _FROM_CLIENT
    room: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class RematchCreated(Message):
    """The rematch of ``room`` is ``new_room`` (same game, options and seats, a fresh seed);
    its members hold the same seats there and receive its ``snapshot``."""

    TYPE = "rematch_created"
    SENDERS = _FROM_SERVER
    room: str
    new_room: str


@_message
@attrs.frozen(kw_only=True)
class Kick(Message):
    """The host removes the human from ``seat`` before the start; the seat becomes open."""

    TYPE = "kick"
    SENDERS = _FROM_CLIENT
    room: str
    seat: int = attrs.field(validator=_count)
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Kicked(Message):
    """Sent to a kicked player: the host (before the start) or the server's operator (at any
    time; a bot takes the seat in a game) removed them from ``seat`` of ``room``; ``message``
    (version 3) says so in a sentence, with the operator's reason."""

    TYPE = "kicked"
    SENDERS = _FROM_SERVER
    room: str
    seat: int = attrs.field(validator=_count)
    message: str = ""


@_message
@attrs.frozen(kw_only=True)
class RoomUpdate(Message):
    """The room's summary changed (a seat filled, someone got ready, the game started...);
    ``seat`` is the recipient's seat there, ``None`` when watching."""

    TYPE = "room_update"
    SENDERS = _FROM_SERVER
    info: RoomSummary
    seat: int | None = attrs.field(default=None, validator=_count)


@_message
@attrs.frozen(kw_only=True)
class RoomClosed(Message):
    """The room is gone for the recipient: ``expired`` (idle), ``abandoned``,
    ``internal_error``, or ``closed_by_operator``; ``message`` (version 3) says why in a
    sentence (the operator's reason, when they gave one)."""

    TYPE = "room_closed"
    SENDERS = _FROM_SERVER
    room: str
    reason: str
    message: str = ""


# --- play -------------------------------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class Act(Message):
    """Send a game command (``{"type": ..., fields...}``, as ``legal`` lists them) for one's
    seat. ``seq`` is the last sequence number the client saw in the room; the server refuses
    with ``stale`` when the seat's legal commands changed after it. Answered by ``accepted``
    or ``rejected``, never by ``error`` unless the message itself is malformed."""

    TYPE = "act"
    SENDERS = _FROM_CLIENT
    room: str
    command: Data
    seq: int | None = attrs.field(default=None, validator=_count)
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class CommandAccepted(Message):
    """The command ``ref`` was accepted and its events are durably logged; its effect arrives
    in the delta (or snapshot) whose ``seq`` is this one."""

    TYPE = "accepted"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    room: str
    seq: int = attrs.field(validator=_count)


@_message
@attrs.frozen(kw_only=True)
class CommandRejected(Message):
    """The command ``ref`` was refused: by the rules (the game's stable ``code`` and a sentence
    naming the rule), or by the room before the rules saw it (a protocol code such as
    ``stale``, ``not_seated`` or ``not_started``)."""

    TYPE = "rejected"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    room: str
    code: str
    message: str


@_message
@attrs.frozen(kw_only=True)
class Snapshot(Message):
    """A full view of ``room`` for the recipient: its ``seat`` (``None`` for a spectator), the
    view (``None`` before the game starts), the legal commands of that seat, and the room's
    ``epoch`` and ``seq`` (the number of logged steps: accepted commands and clock ticks).
    Room time (the clock of the view's deadlines) is server time minus ``clock_origin``."""

    TYPE = "snapshot"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    room: str
    epoch: str
    seq: int = attrs.field(validator=_count)
    seat: int | None = attrs.field(default=None, validator=_count)
    view: Data | None
    legal: tuple[Data, ...] = ()
    clock_origin: float = 0.0


@_message
@attrs.frozen(kw_only=True)
class Delta(Message):
    """The change of the recipient's view of ``room`` from sequence ``base`` to ``seq``, as
    RFC 6902 operations; ``legal`` is the seat's new legal commands when they changed
    (``None`` = unchanged). Apply it only to a copy whose sequence number is ``base``."""

    TYPE = "delta"
    SENDERS = _FROM_SERVER
    room: str
    base: int = attrs.field(validator=_count)
    seq: int = attrs.field(validator=_count)
    ops: tuple[PatchOp, ...] = ()
    legal: tuple[Data, ...] | None = None


@_message
@attrs.frozen(kw_only=True)
class Resume(Message):
    """Catch up with ``room`` from the last ``seq`` and ``epoch`` the client holds (after a
    reconnect, or a missed delta). Answered by the missing deltas then ``ok``, or by a
    ``snapshot`` when they are no longer kept, the epoch changed, or ``seq`` is 0 (which names
    both the view before the start and the first view). A new connection is
    attached to the room as the seat its identity holds there, or as a spectator (``code``
    for private rooms)."""

    TYPE = "resume"
    SENDERS = _FROM_CLIENT
    room: str
    seq: int = attrs.field(validator=_count)
    epoch: str
    code: str | None = None
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class GetSnapshot(Message):
    """Ask for the full view of ``room`` as this connection sees it (it must be in the room,
    seated or watching); answered by a ``snapshot`` carrying the request's id, with no other
    effect: no ``room_update``, no change to seats, bots or grace periods (unlike ``resume``,
    which attaches a connection)."""

    TYPE = "get_snapshot"
    SENDERS = _FROM_CLIENT
    room: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class GameOver(Message):
    """The game in ``room`` ended: the outcome, and the room's ``seed`` and ``salt`` (hex)
    revealed, so anyone can check them against the ``commitment`` and recompute every draw."""

    TYPE = "game_over"
    SENDERS = _FROM_SERVER
    room: str
    outcome: OutcomeInfo
    seed: str
    salt: str
    commitment: str


# --- chat -------------------------------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class ChatSend(Message):
    """Say something in ``room``: players talk to everyone in the room, spectators to the
    spectators. Answered by ``ok``; the text arrives back as a ``chat`` message."""

    TYPE = "chat_send"
    SENDERS = _FROM_CLIENT
    room: str
    text: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class ChatMessage(Message):
    """A chat line in ``room`` on the ``players`` or ``spectators`` channel, from ``user``
    (public id) named ``name``, seated at ``seat`` or watching (``None``)."""

    TYPE = "chat"
    SENDERS = _FROM_SERVER
    room: str
    channel: Literal["players", "spectators"]
    user: str
    name: str
    seat: int | None = attrs.field(default=None, validator=_count)
    text: str
    server_time: float


@_message
@attrs.frozen(kw_only=True)
class Mute(Message):
    """Stop (or, with ``muted=False``, resume) receiving chat from ``user``, in every room."""

    TYPE = "mute"
    SENDERS = _FROM_CLIENT
    user: str
    muted: bool = True
    id: int | None = _id()


# --- replays ----------------------------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class OpenReplay(Message):
    """Open a replay of the finished ``room``, seen by ``viewer`` (a seat, or ``None`` for the
    public view); answered by ``replay_state`` at position 0. A private game's replay needs
    its ``code``, unless the identity held a seat in it."""

    TYPE = "open_replay"
    SENDERS = _FROM_CLIENT
    room: str
    viewer: int | None = attrs.field(default=None, validator=_count)
    code: str | None = None
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class ReplayStep(Message):
    """Move the replay by ``steps`` events (negative = back); answered by ``replay_state``."""

    TYPE = "replay_step"
    SENDERS = _FROM_CLIENT
    replay: str
    steps: int = 1
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class ReplaySeek(Message):
    """Jump the replay to ``position`` (events applied, ``0`` to ``length``)."""

    TYPE = "replay_seek"
    SENDERS = _FROM_CLIENT
    replay: str
    position: int = attrs.field(validator=_count)
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class ReplayViewer(Message):
    """Watch the replay through another viewer's eyes (a seat, or ``None`` for the public view)."""

    TYPE = "replay_viewer"
    SENDERS = _FROM_CLIENT
    replay: str
    viewer: int | None = attrs.field(default=None, validator=_count)
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class CloseReplay(Message):
    """Close the replay; answered by ``ok``."""

    TYPE = "close_replay"
    SENDERS = _FROM_CLIENT
    replay: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class ReplayState(Message):
    """The replay ``replay`` of ``room`` at ``position`` of ``length`` events, seen by
    ``viewer``: the whole view at that point. ``at`` is the room's clock there (seconds since
    the epoch): when the position's last step was made, or the start at position 0; a client
    draws clocks (a Flash 8 countdown, a time left) against it, not against the time now."""

    TYPE = "replay_state"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    replay: str
    room: str
    position: int = attrs.field(validator=_count)
    length: int = attrs.field(validator=_count)
    viewer: int | None = attrs.field(default=None, validator=_count)
    view: Data
    at: float | None = None


# --- accounts (version 5) ---------------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class ClaimName(Message):
    """Claim ``name`` for this connection's identity with ``password``: the identity becomes
    an account's (its seats, history and ratings stay its own, and it is kept for ever), and
    the name is no one else's. Answered by ``account``; ``name_taken`` when claimed already."""

    TYPE = "claim_name"
    SENDERS = _FROM_CLIENT
    name: str
    password: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class SignIn(Message):
    """Sign in to the account of ``name`` with its ``password``, from any connection: the
    connection becomes that account's identity (it leaves the rooms it was in as a guest) and
    is answered by ``account`` with a new session token. Attempts are rate limited per name
    and per address (``rate_limited``); a wrong pair is ``bad_credentials``."""

    TYPE = "sign_in"
    SENDERS = _FROM_CLIENT
    name: str
    password: str
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Account(Message):
    """The account this connection is signed in to: its public ``user`` id and ``name``,
    the session's secret ``token`` (say it in later hellos), this session's id among the
    account's sessions, and the rooms where the account holds a seat."""

    TYPE = "account"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    user: str
    name: str
    token: str
    session: str
    rooms: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class SessionInfo:
    """One signed-in session of an account: its ``session`` id, when it was made and last
    used (server time), the client that made it, and whether it is this connection's."""

    session: str
    created: float
    last_seen: float
    client: str = ""
    current: bool = False


@_message
@attrs.frozen(kw_only=True)
class ListSessions(Message):
    """Ask for the account's sessions; answered by ``sessions`` (``not_signed_in`` for a
    guest)."""

    TYPE = "list_sessions"
    SENDERS = _FROM_CLIENT
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Sessions(Message):
    """The account's sessions, oldest first, answering ``list_sessions``."""

    TYPE = "sessions"
    SENDERS = _FROM_SERVER
    ref: int | None = _id()
    sessions: tuple[SessionInfo, ...] = ()


@_message
@attrs.frozen(kw_only=True)
class RevokeSession(Message):
    """Revoke one of the account's sessions (``session``), or, with ``None``, every session
    but this connection's; a revoked token is refused (``bad_token``) from then on and its
    connections are closed. Answered by ``ok``."""

    TYPE = "revoke_session"
    SENDERS = _FROM_CLIENT
    session: str | None = None
    id: int | None = _id()


# --- ratings (version 5) ----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class RatingChange:
    """How a finished rated game moved one seat's rating in ``pool``: shown ratings
    ``before`` and ``after`` (``mu - 3 sigma``), and the rated games counted now."""

    seat: int = attrs.field(validator=_count)
    user: str
    name: str
    pool: str
    before: float
    after: float
    games: int = attrs.field(validator=_count)


@_message
@attrs.frozen(kw_only=True)
class RatingsChanged(Message):
    """A rated game in ``room`` ended and its players' ratings changed (after ``game_over``)."""

    TYPE = "ratings_changed"
    SENDERS = _FROM_SERVER
    room: str
    changes: tuple[RatingChange, ...] = ()


# --- quick play (version 5) -------------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class PlayNow(Message):
    """Queue for a game of ``game`` with ``seats`` seats among players of similar rating (the
    range widens as the wait grows); after ``bot_wait`` seconds (``None``: never) the seats
    still empty are filled with bots of a level near the player's strength. Answered by
    ``ok`` at once and by ``matched`` once a room is made; ``options`` are the room's."""

    TYPE = "play_now"
    SENDERS = _FROM_CLIENT
    game: str
    seats: int = attrs.field(validator=_count)
    options: Data = attrs.field(factory=dict)
    bot_wait: float | None = None
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class CancelPlayNow(Message):
    """Leave the quick-play queue; answered by ``ok``."""

    TYPE = "cancel_play_now"
    SENDERS = _FROM_CLIENT
    id: int | None = _id()


@_message
@attrs.frozen(kw_only=True)
class Matched(Message):
    """Quick play found a game: ``room``, where the recipient holds ``seat`` (its snapshot
    and ``room_update`` follow); ``rated`` says whether it counts for ratings (not when bots
    filled seats)."""

    TYPE = "matched"
    SENDERS = _FROM_SERVER
    room: str
    seat: int = attrs.field(validator=_count)
    rated: bool = False


#: The message types a client may send, by ``TYPE``.
CLIENT_MESSAGES: dict[str, type[Message]] = {
    tag: cls for tag, cls in MESSAGES.items() if "client" in cls.SENDERS
}
#: The message types a server may send, by ``TYPE``.
SERVER_MESSAGES: dict[str, type[Message]] = {
    tag: cls for tag, cls in MESSAGES.items() if "server" in cls.SENDERS
}
