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
    Account,
    Act,
    Bye,
    CancelPlayNow,
    ChatSend,
    ClaimName,
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
    ListSessions,
    Message,
    Moved,
    Mute,
    Ok,
    OpenReplay,
    Ping,
    PlayNow,
    Pong,
    Ready,
    Rematch,
    ReplaySeek,
    ReplayState,
    ReplayStep,
    ReplayViewer,
    Resume,
    RevokeSession,
    RoomCreated,
    RoomList,
    SessionInfo,
    Sessions,
    SetName,
    SignIn,
    Start,
    UnwatchLobby,
    WatchLobby,
    WatchRoom,
    Welcome,
)
from protocol.versions import ACCOUNTS_VERSION, MOVED_VERSION, NAME_VERSION
from server.accounts import MAX_NAME, Identity, digest, name_key, session_id, user_id
from server.bans import banned_sentence
from server.batch import QueuedAct
from server.catalog import catalog_for
from server.config import Settings
from server.errors import Moved as RoomElsewhere
from server.errors import Refused
from server.hub import Hub
from server.jwtidentity import BadIdentityToken, ProviderAway
from server.replay import Replay
from server.room import Peer, Room, summary_for
from server.seats import MAX_SET_NAME, seat_name

__all__ = [
    "HANDLERS",
    "MAX_MUTED",
    "MAX_REPLAYS",
    "MAX_SET_NAME",
    "Session",
    "act_moved",
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
    #: Rooms that moved to another node under this connection (the new owner's URL, once
    #: known): a request for one is answered ``moved``, or ``try_again`` until it is known.
    moved: dict[str, str | None]
    #: The replays this connection has open, by replay id.
    replays: dict[str, Replay]
    #: The identity's token hash (its user id is ``u`` and the first 16 hex digits), the
    #: secret token the connection said (or was given), and, signed in to an account, the
    #: session's token hash.
    identity: str
    token: str
    session_hash: str | None
    #: The hash of the token the connection's ``hello`` said (known or not): with the
    #: session's, what makes it a known device of an account (:meth:`Accounts.sign_in`).
    hello_token_hash: str | None

    def signed_out(self, message: str = ...) -> None:
        """The connection's session was revoked, or ended: say ``bye`` (``signed_out``) with
        ``message`` and close."""
        ...

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
    renamed: str | None = None
    name = _hello_name(hello.name)
    session.hello_token_hash = digest(hello.token) if hello.token else None
    if ban is None:
        if hello.jwt is not None:
            outside = await _outside_identity(session, hello)
            if outside is None:
                return
            who = outside
        else:
            who = await session.hub.who(name, hello.token)
        user, token, known = who.user, who.token, who.known
        name = who.name or await _guest_name(session, name, who.identity)
        renamed = who.renamed_from
        session.identity, session.session_hash = who.identity, who.session
        if who.session is not None:
            session.hub.signed_in.setdefault(who.session, set()).add(session)
            if who.ends is not None:
                session.hub.session_ends[who.session] = who.ends
        ban = session.hub.bans.of_user(user)
    if ban is not None:
        refusal = Error(
            ref=hello.id, code=ErrorCode.BANNED.value, message=banned_sentence(ban), fatal=True
        )
        session.send(refusal)
        session.banish("", bye=False)
        return
    session.user, session.name, session.person, session.token = user, name, user, token
    await session.hub.ratings.load(user)  # the seats this person takes show their ratings
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
            name=name,
            server_time=time.time(),
            rooms=held,
            max_frame=session.settings.max_frame,
            limits=limits_info(session.settings),
        )
    )
    if renamed is not None:
        tell_renamed(session, renamed, name)


def tell_renamed(session: Session, old: str, new: str) -> None:
    """Tell the owner of an account the server renamed (a later claim of a name that looks
    like an earlier one), once: an ``error`` ``renamed`` without ``ref`` (version 5)."""
    if (session.conn.version or 0) < ACCOUNTS_VERSION:
        return
    session.send(
        Error(
            code=ErrorCode.RENAMED.value,
            message=(
                f"Your account's name {old!r} looks like a name another player claimed before"
                f" you, so it is now {new!r}."
            ),
        )
    )
    session.hub.store.clear_renamed(session.identity)


def _hello_name(name: str) -> str:
    """The guest name a ``hello`` says, as played: trimmed and cut to :data:`MAX_SET_NAME`
    characters (the ``welcome`` says the name in force)."""
    trimmed = name.strip()
    return trimmed[:MAX_SET_NAME].rstrip() if trimmed else name


async def _guest_name(session: Session, name: str, identity: str) -> str:
    """The name a guest plays under: the one said, unless an account claimed it (then marked
    as a guest's, so a claimed name is only ever its owner's)."""
    account = await session.hub.store.get_account(name_key(name))
    if account is None or account.identity == identity:
        return name
    return f"{name} (guest)"


async def _outside_identity(session: Session, hello: Hello) -> Identity | None:
    """The person an outside provider's token in ``hello`` names, with the token's session
    (:meth:`server.accounts.Accounts.token_session`); ``None`` once the hello is refused, fatal:
    ``bad_credentials`` (the client asked to be someone the server cannot verify), ``banned``
    (checked before any session is made) or ``try_again`` (the provider's keys could not be
    fetched)."""
    tokens = session.hub.identity_tokens
    refusal = None
    code = ErrorCode.BAD_CREDENTIALS
    claims: dict[str, Any] = {}
    if (session.conn.version or 0) < ACCOUNTS_VERSION:
        refusal = "Identity tokens (jwt) need protocol version 5."
    elif tokens is None:
        refusal = "This server accepts no identity tokens (its operator configured no provider)."
    else:
        try:
            claims = await tokens.verify(hello.jwt or "")
        except BadIdentityToken as error:
            refusal = f"Identity token refused: {error}."
        except ProviderAway as error:
            code = ErrorCode.TRY_AGAIN
            refusal = f"Identity token not checked: {error}; try again shortly."
    if refusal is None and tokens is not None:
        identity = tokens.identity(claims)
        ban = session.hub.bans.of_user(user_id(identity))
        if ban is not None:  # before any session is made for the person
            code, refusal = ErrorCode.BANNED, banned_sentence(ban)
    if refusal is not None or tokens is None:
        session.hub.metrics.protocol_errors.labels(code.value).inc()
        session.send(Error(ref=hello.id, code=code.value, message=str(refusal), fatal=True))
        session.banish("", bye=False)
        return None
    said = str(claims.get("name") or claims.get("preferred_username") or hello.name)
    # The provider's name is a guest's as far as local accounts go: a claimed one is marked.
    name = await _guest_name(session, _hello_name(said)[:MAX_NAME].rstrip(), identity)
    await session.hub.store.claim_identity(identity, name, time.time())
    expires = float(claims["exp"])
    token = await session.hub.accounts.token_session(identity, hello.jwt or "", expires)
    return Identity(identity, token, True, name, digest(token), expires)


def _v5(session: Session, message: Message) -> None:
    """Refuse a version 5 request on a connection that negotiated an older version."""
    if (session.conn.version or 0) < ACCOUNTS_VERSION:
        raise Refused(
            ErrorCode.UNKNOWN_TYPE, f"{message.TYPE!r} needs protocol version {ACCOUNTS_VERSION}."
        )


def _account_answer(
    session: Session, ref: int | None, name: str, token: str, token_hash: str
) -> Account:
    held = tuple(
        r.id
        for r in session.hub.rooms.values()
        if r.seat_of(session.user) is not None and r.status != "finished"
    )
    return Account(
        ref=ref, user=session.user, name=name, token=token, session=session_id(token_hash),
        rooms=held,
    )  # fmt: skip


async def on_claim_name(session: Session, request: ClaimName) -> None:
    _v5(session, request)
    if session.session_hash is not None:
        raise Refused(ErrorCode.BAD_FIELD, "This connection is signed in to an account already.")
    account = await session.hub.accounts.claim(
        session.identity, session.token, request.name, request.password, session.address_key
    )
    session.name = account.name
    session.session_hash = digest(session.token)
    session.hub.signed_in.setdefault(session.session_hash, set()).add(session)
    session.send(
        _account_answer(session, request.id, account.name, session.token, session.session_hash)
    )


async def on_sign_in(session: Session, request: SignIn) -> None:
    _v5(session, request)
    account, token = await session.hub.accounts.sign_in(
        request.name,
        request.password,
        session.address_key,
        "sign_in",
        device=(session.hello_token_hash, session.session_hash),
    )
    ban = session.hub.bans.of_user(user_id(account.identity))
    if ban is not None:  # a banned account signs in nowhere; its new session is taken back
        await session.hub.accounts.revoke(account.identity, session_id(digest(token)), None)
        raise Refused(ErrorCode.BANNED, banned_sentence(ban))
    session.hub.quickplay.left(session)  # a guest's place in a queue is not the account's
    for room in list(session.rooms.values()):  # the guest's rooms are not the account's
        room.detach(session)
    session.rooms.clear()
    session.hub.lobby.discard(session)
    if session.session_hash is not None:
        session.hub.signed_in.get(session.session_hash, set()).discard(session)
    user = user_id(account.identity)
    session.identity, session.user, session.person = account.identity, user, user
    session.name, session.token, session.session_hash = account.name, token, digest(token)
    session.hub.signed_in.setdefault(session.session_hash, set()).add(session)
    await session.hub.ratings.load(user)  # the seats the account takes show its ratings
    structlog.contextvars.bind_contextvars(user=user)
    session.send(_account_answer(session, request.id, account.name, token, session.session_hash))
    if account.renamed_from is not None:
        tell_renamed(session, account.renamed_from, account.name)


def _signed_in(session: Session) -> str:
    if session.session_hash is None:
        raise Refused(ErrorCode.NOT_SIGNED_IN, "Claim a name or sign in first.")
    return session.identity


async def on_list_sessions(session: Session, request: ListSessions) -> None:
    _v5(session, request)
    rows = await session.hub.accounts.sessions(_signed_in(session))
    session.send(
        Sessions(
            ref=request.id,
            sessions=tuple(
                SessionInfo(
                    session=session_id(row.token_hash),
                    created=row.created,
                    last_seen=row.last_seen,
                    client=row.client,
                    current=row.token_hash == session.session_hash,
                )
                for row in rows
            ),
        )
    )


async def on_revoke_session(session: Session, request: RevokeSession) -> None:
    _v5(session, request)
    gone = await session.hub.accounts.revoke(
        _signed_in(session), request.session, session.session_hash
    )
    session.send(Ok(ref=request.id))
    for token_hash in gone:
        for other in session.hub.signed_in.pop(token_hash, set()):
            other.signed_out()
    if gone:  # and their connections on the other nodes of a cluster
        await session.hub.tell_cluster("revoked", {"sessions": gone})


async def on_play_now(session: Session, request: PlayNow) -> None:
    _v5(session, request)
    session.hub.quickplay.join(session, request)
    session.send(Ok(ref=request.id))


async def on_cancel_play_now(session: Session, request: CancelPlayNow) -> None:
    _v5(session, request)
    # Too late once the room is being made: then the seat is the player's, and matched follows.
    await session.hub.quickplay.cancel(session)
    session.send(Ok(ref=request.id))


async def on_ping(session: Session, ping: Ping) -> None:
    session.send(Pong(ref=ping.id, client_time=ping.client_time, server_time=time.time()))


def _for_version(session: Session, page: RoomList) -> RoomList:
    """A lobby page as ``session``'s protocol version has it (ratings from version 5,
    results from version 6)."""
    version = session.conn.version or 0
    return attrs.evolve(page, rooms=tuple(summary_for(room, version) for room in page.rooms))


async def on_set_name(session: Session, request: SetName) -> None:
    """Play under a new name from now on (version 4): this connection's chat lines and the
    identity's seats in rooms not finished take it, on every node of a cluster; their
    members get ``room_update``."""
    if (session.conn.version or 0) < NAME_VERSION:
        raise Refused(
            ErrorCode.UNKNOWN_TYPE,
            f"'set_name' needs protocol version {NAME_VERSION}; reconnect with the new name.",
        )
    name = seat_name(request.name, "set_name.name")
    if session.session_hash is not None:
        raise Refused(
            ErrorCode.BAD_FIELD,
            "A signed-in player plays under the account's name; claim another to change it.",
        )
    name = await _guest_name(session, name, session.identity)  # a claimed name is its owner's
    session.name = name
    written = [
        write
        for room in list(session.hub.rooms.values())
        if (write := room.rename(session.user, name)) is not None
    ]
    # The identity's seats in rooms other nodes of a cluster play take it too (a room this
    # node lost meanwhile is renamed by its owner, whose lease refused the write here).
    await session.hub.tell_cluster("renamed", {"user": session.user, "name": name})
    await asyncio.gather(*written, return_exceptions=True)
    session.send(Ok(ref=request.id))


async def on_watch_lobby(session: Session, request: WatchLobby) -> None:
    session.hub.lobby.add(session)
    session.send(_for_version(session, attrs.evolve(await session.hub.summaries(), ref=request.id)))


async def on_unwatch_lobby(session: Session, request: UnwatchLobby) -> None:
    session.hub.lobby.discard(session)
    session.send(Ok(ref=request.id))


async def on_list_games(session: Session, request: ListGames) -> None:
    session.send(Games(ref=request.id, games=catalog_for(session.conn.version or 0)))


async def on_list_rooms(session: Session, request: ListRooms) -> None:
    page = await session.hub.summaries(request.game, request.offset, request.limit)
    session.send(_for_version(session, attrs.evolve(page, ref=request.id)))


async def on_create_room(session: Session, request: CreateRoom) -> None:
    room = await session.hub.create_room(session, request)
    session.send(
        RoomCreated(ref=request.id, room=room.id, code=room.code, commitment=room.commitment)
    )
    await _enter(session, room, lambda: room.watch(session, None, trusted=True))
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
    session.moved.pop(room.id, None)
    try:
        await room.call(work)
    except (Refused, RoomElsewhere):
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
    """The room this connection is in; ``moved`` (or ``try_again``) for one that moved to
    another node under it, ``not_in_room`` otherwise."""
    room = session.rooms.get(room_id)
    if room is None:
        if room_id in session.moved:
            url = session.moved[room_id]
            if url is not None:
                raise RoomElsewhere(room_id, url)
            raise Refused(
                ErrorCode.TRY_AGAIN,
                f"Room {room_id} moved to another server; reconnect and resume it there.",
            )
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
    except RoomElsewhere as elsewhere:
        act_moved(session, request, elsewhere)


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
    except RoomElsewhere as elsewhere:
        act_moved(session, request, elsewhere)
        return None


def act_moved(session: Session, request: Act, elsewhere: RoomElsewhere) -> None:
    """Answer an ``act`` its room could not take because another node owns the room now:
    ``moved`` (version 2), else ``rejected`` ``try_again`` naming the node."""
    if (session.conn.version or 0) >= MOVED_VERSION:
        send_moved(session, elsewhere.room, elsewhere.url, request.id)
        return
    reject(
        session,
        request,
        Refused(
            ErrorCode.TRY_AGAIN,
            f"Room {request.room} is played on another node of this cluster, at"
            f" {elsewhere.url}; connect there.",
        ),
    )


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
    if room.private and not known:
        try:
            session.hub.codes.check(room.id, request.code, room.code, session.address_key)
        except Refused:
            room.detach(session)  # a room relayed for this request alone stops being relayed
            raise
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
        session.hub.store, request.room, request.viewer, session.user,
        lambda row: session.hub.codes.check(row.id, request.code, row.code, session.address_key),
    )  # fmt: skip
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
    ClaimName: on_claim_name,
    SignIn: on_sign_in,
    ListSessions: on_list_sessions,
    RevokeSession: on_revoke_session,
    PlayNow: on_play_now,
    CancelPlayNow: on_cancel_play_now,
    OpenReplay: on_open_replay,
    ReplayStep: on_replay_step,
    ReplaySeek: on_replay_seek,
    ReplayViewer: on_replay_viewer,
    CloseReplay: on_close_replay,
    Bye: on_bye,
}
