"""The hub: every room of the server, the lobby and its watchers, identities, and the store.

The hub creates rooms, rebuilds unfinished ones from the log when the server starts, tells
lobby watchers about changes (coalesced, at most every 50 ms), expires idle waiting rooms and
deletes finished games past the retention period.
"""

from __future__ import annotations

import asyncio
import ctypes
import hashlib
import math
import secrets
import sys
import time
from collections.abc import Coroutine
from typing import Any

import structlog
from redis.exceptions import RedisError

from engine.core import (
    Game,
    Outcome,
    Rejected,
    validate_options,
    validate_seat_choices,
    validate_seats,
)
from engine.registry import game_ids, get_game
from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.fairness import commit
from protocol.messages import (
    CreateRoom,
    LobbyUpdate,
    RatingsChanged,
    RematchCreated,
    RoomList,
    RoomSummary,
)
from protocol.versions import ACCOUNTS_VERSION
from server.accounts import KNOWN_DEVICE_DAYS, Accounts, Identity
from server.bans import Bans
from server.bots import BotSeats
from server.cluster import Cluster
from server.codes import CodeGuesses
from server.config import Settings
from server.errors import Moved, Refused
from server.jwtidentity import IdentityTokens
from server.limits import RateLimits
from server.metrics import Metrics
from server.ownership import Ownership
from server.passwords import PasswordHashes
from server.quickplay import QuickPlay
from server.ratings import Player, Ratings, is_rated, pool_of
from server.relay import HAND_OVER_WAIT, Relays, RemoteRoom
from server.room import Peer, Room, result_of, speaks, summary_for
from server.seats import Seat, room_code, seat_name
from server.store import Fenced, RoomRow, Store

__all__ = ["UNATTENDED", "Hub", "stored_summary"]

log = structlog.get_logger("lumin.hub")

#: Seconds a live room nobody has opened stays listed in the lobby (a rematch no one took
#: up, a room whose creator never came).
UNATTENDED = 300.0
#: What a connection whose identity token expired is told as it is closed.
SESSION_ENDED = "Your identity token has expired; connect again with a new one."


class Hub:
    """See the module docstring."""

    def __init__(self, settings: Settings, store: Store, metrics: Metrics) -> None:
        self.settings = settings
        self.store = store
        self.metrics = metrics
        #: Changes on every start: a client's delta history from another epoch is void.
        self.epoch = secrets.token_hex(8)
        self.rooms: dict[str, Room] = {}
        self.lobby: set[Peer] = set()
        self.bots = BotSeats(settings, metrics)
        #: Every player's ratings (those seen lately held in memory).
        self.ratings = Ratings(store)
        #: Quick play's queue (``play_now``).
        self.quickplay = QuickPlay(self)
        #: Wrong private-room codes, by address and by room (:mod:`server.codes`).
        self.codes = CodeGuesses()
        #: Claimed names, sign-ins and sessions.
        self.accounts = Accounts(
            store,
            PasswordHashes(settings.hash_concurrency, settings.hash_queue),
            settings.session_lifetime * 86400,
        )
        #: The operator's outside identity provider (``hello``'s ``jwt``), if configured.
        self.identity_tokens: IdentityTokens | None = None
        if settings.jwt_key is not None or settings.jwt_jwks is not None:
            self.identity_tokens = IdentityTokens(
                settings.jwt_key,
                settings.jwt_jwks,
                settings.jwt_issuer,
                settings.jwt_audience,
                settings.jwt_algorithms,
            )
        #: This node's connections signed in to an account, by session token hash (revoking a
        #: session closes them), and when the sessions that end at a fixed time (an identity
        #: token's ``exp``) end: the sweep closes their connections then.
        self.signed_in: dict[str, set[Any]] = {}
        self.session_ends: dict[str, float] = {}
        #: In a cluster (the PostgreSQL store), this node's room leases; set by the server.
        self.ownership: Ownership | None = None
        #: With Redis, this node's registry, hints and the cluster's lobby; set by the server.
        self.cluster: Cluster | None = None
        #: Spectators of rooms other nodes play, and this node's relays to other nodes.
        self.relays = Relays(self)
        #: Set while this node drains (it stops): it takes over no room from then on.
        self.draining = False
        #: The operator's bans in force (the store's, as of the last :meth:`reload_bans`).
        self.bans = Bans()
        #: Lapsed rooms being taken over now, so two requests for one share the work.
        self._taking: dict[str, asyncio.Future[Room | None]] = {}
        self._dirty: set[str] = set()
        self._removed: set[str] = set()
        self._flush: asyncio.TimerHandle | None = None
        #: Token digests of identities made whose store write is not committed yet.
        self._saving: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        #: The rate limits of every connection (they outlive connections).
        self.limits = RateLimits(
            settings.rate,
            settings.burst,
            settings.address_rate,
            settings.address_burst,
            settings.connect_rate,
            settings.connect_burst,
        )

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``work`` in the background, holding a reference until it is done; a failure is
        logged, never lost."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            if not isinstance(error, Refused):
                log.error("background_task_failed", error=repr(error))

    # -- identities -----------------------------------------------------------------------------

    async def identify(self, name: str, token: str | None) -> tuple[str, str, bool]:
        """The person behind a hello: ``(user id, token, known)`` (see :meth:`who`)."""
        who = await self.who(name, token)
        return who.user, who.token, who.known

    async def who(self, name: str, token: str | None) -> Identity:
        """The person behind a hello.

        A known token reclaims its identity (and so its seats), even after a restart or from
        another machine: a guest's own token, or an account's session token (the account's
        name comes with it); an account's token whose session was revoked is unknown. An
        unknown or missing one gets a fresh identity and token. The store keeps only each
        token's SHA-256, never the token."""
        if token:
            digest = hashlib.sha256(token.encode()).hexdigest()
            session = await self.accounts.session_identity(digest)
            if session is not None:
                account = session.identity
                row = await self.store.get_account_of(account)
                named = row.name if row is not None else await self.store.get_identity(account)
                renamed = row.renamed_from if row is not None else None
                return Identity(account, token, True, named, digest, session.expires, renamed)
            if digest in self._saving or await self.store.get_identity_claimed(digest) is False:
                self.store.touch_identity(digest, time.time())  # guest retention counts from it
                return Identity(digest, token, True)
        _, token, _ = await self._new_identity(name)
        return Identity(hashlib.sha256(token.encode()).hexdigest(), token, False)

    async def _new_identity(self, name: str) -> tuple[str, str, bool]:
        token = secrets.token_urlsafe(24)
        digest = hashlib.sha256(token.encode()).hexdigest()
        # Known from now on, though the store commits it a moment later.
        self._saving.add(digest)
        saved = self.store.save_identity(digest, name, time.time())
        saved.add_done_callback(lambda _: self._saving.discard(digest))
        if self.ownership is not None:  # a shared store: every node must know the token it sees
            await saved
        return "u" + digest[:16], token, False

    def cluster_said(self, kind: str, message: dict[str, Any]) -> None:
        """What a node of the cluster broadcast (this one's own included): ``revoked``
        sessions close their connections here too, a ``renamed`` person's seats here take the
        new name."""
        if kind == "revoked":
            for token_hash in message.get("sessions", ()):
                for connection in self.signed_in.pop(str(token_hash), set()):
                    connection.signed_out()
        elif kind == "renamed":
            user, name = message.get("user"), message.get("name")
            if isinstance(user, str) and isinstance(name, str):
                for room in list(self.rooms.values()):
                    room.rename(user, name)

    async def tell_cluster(self, kind: str, message: dict[str, Any]) -> None:
        """Broadcast ``message`` to every node's :meth:`cluster_said` (nothing alone, or
        while Redis is away: then only this node acted on it)."""
        if self.cluster is None:
            return
        try:
            await self.cluster.broadcast(kind, message)
        except (RedisError, OSError) as error:
            log.warning("cluster_broadcast_not_sent", kind=kind, error=repr(error))

    async def reload_bans(self) -> None:
        """Hold the store's bans from now on (start, after every ban, each sweep)."""
        self.bans.replace(await self.store.get_bans())

    async def known_user(self, token: str) -> str | None:
        """The user id of a known token (a guest's, or an account's session), without creating
        an identity; ``None`` if unknown."""
        digest = hashlib.sha256(token.encode()).hexdigest()
        session = await self.accounts.live_session(digest)
        if session is not None:
            return "u" + session.identity[:16]
        if digest in self._saving or await self.store.get_identity_claimed(digest) is False:
            return "u" + digest[:16]
        return None

    # -- rooms ----------------------------------------------------------------------------------

    def _check_caps(self, peer: Peer) -> None:
        """Refuse (``too_many_rooms``) a new room for a person, or an address, that already
        has as many open (waiting or playing) rooms as the settings allow."""
        open_rooms = [
            room
            for room in self.rooms.values()
            if room.status in ("waiting", "playing") and not room.closed
        ]
        caps = (
            ("You have", sum(r.host == peer.user for r in open_rooms), "rooms_per_identity"),
            (
                "Your address has",
                sum(r.address == peer.address_key for r in open_rooms),
                "rooms_per_address",
            ),
        )
        for who, count, setting in caps:
            cap = getattr(self.settings, setting)
            if count >= cap:
                self.metrics.limit_refusals.labels(setting).inc()
                raise Refused(
                    ErrorCode.TOO_MANY_ROOMS,
                    f"{who} {count} open rooms, the most this server allows ({cap}); finish"
                    " a game or let a waiting room expire first.",
                )

    def _check_open(self) -> None:
        """A draining node makes no new room: the request goes to another node, or is
        refused (``shutting_down``) when there is none."""
        if not self.draining:
            return
        other = self.cluster.lightest_other() if self.cluster is not None else None
        if other is not None:
            raise Moved(None, other.url)
        raise Refused(ErrorCode.SHUTTING_DOWN, "This server is stopping; try again shortly.")

    async def create_room(self, peer: Peer, request: CreateRoom) -> Room:
        """A new waiting room from a ``create_room`` request; its creator is the host."""
        self._check_open()
        self._check_caps(peer)
        if request.game not in game_ids():
            raise Refused(ErrorCode.UNKNOWN_GAME, f"Lumin hosts {', '.join(game_ids())}.")
        game = get_game(request.game)
        try:
            options = validate_options(game, request.options)
        except Rejected as error:
            raise Refused(ErrorCode.BAD_OPTION, error.message) from None
        counts = game.seat_counts(options)
        if len(request.seats) not in counts:
            raise Refused(
                ErrorCode.BAD_SEATS,
                f"{game.name} takes {counts.start} to {counts.stop - 1} seats with these options.",
            )
        seats = []
        for n, choice in enumerate(request.seats):
            try:
                choices = validate_seat_choices(game, choice.choices)
            except Rejected as error:
                raise Refused(ErrorCode.BAD_OPTION, f"Seat {n}: {error.message}") from None
            if choice.kind == "bot":
                kind = choice.bot or game.default_bot
                if kind not in game.bots:
                    raise Refused(
                        ErrorCode.BAD_OPTION,
                        f"Seat {n}: {game.name} has bots {', '.join(game.bots)}, not {kind!r}.",
                    )
                name = f"{kind} bot"
                if choice.name is not None:
                    name = seat_name(choice.name, f"create_room.seats[{n}].name")
                seats.append(Seat("bot", name, None, kind, choices, True))
            else:
                seats.append(Seat("open", None, None, None, choices, False))
        try:
            validate_seats(game, options, [seat.choices for seat in seats])
        except Rejected as error:
            raise Refused(ErrorCode.BAD_OPTION, error.message) from None
        if request.sit is not None:
            if not 0 <= request.sit < len(seats) or seats[request.sit].kind != "open":
                raise Refused(ErrorCode.NO_SUCH_SEAT, f"Seat {request.sit} is not a human seat.")
            seats[request.sit] = Seat(
                "human", peer.name, peer.user, None, seats[request.sit].choices
            )
        meta: dict[str, Any] = {}
        if request.rated is not None:
            meta["rated"] = request.rated
        if request.turn_clock is not None:
            meta["turn_clock"] = _turn_clock(request.turn_clock, self.settings.min_turn_clock)
        if self.cluster is not None and (elsewhere := await self.cluster.less_loaded()):
            raise Moved(None, elsewhere.url)  # a valid request: created on the lighter node
        room, stored = self._create(game, options, seats, peer.user, request.private, meta)
        room.address = peer.address_key
        await stored
        return room

    def _create(
        self,
        game: Game,
        options: dict[str, Any],
        seats: list[Seat],
        host: str | None,
        private: bool,
        meta: dict[str, Any],
    ) -> tuple[Room, asyncio.Future[None]]:
        """Deal a fresh seed and salt and start the new waiting room; its row is queued for
        the store ahead of anything the room appends, and the future says it is durable."""
        seed, salt = secrets.token_bytes(16), secrets.token_bytes(16)
        row = RoomRow(
            id="r" + secrets.token_hex(5),
            game=game.id,
            options=options,
            seats=[seat.to_wire() for seat in seats],
            seed=seed,
            salt=salt,
            commitment=commit(seed, salt),
            private=private,
            code=room_code() if private else None,
            host=host,
            status="waiting",
            created=time.time(),
            started=None,
            finished=None,
            meta=meta,
        )
        stored = self.store.create_room(row)
        room = Room(self, row, game)
        if self.ownership is not None:  # a new room's first lease, queued behind its row
            room.lease_epoch = 1
            self.ownership.leased(
                row.id,
                1,
                self.ownership.store.create_lease(row.id, self.ownership.node, self.ownership.ttl),
            )
        self._register(room)
        log.info("room_created", room=row.id, game=game.id, host=host, private=private,
                 seats=[seat.kind for seat in seats])  # fmt: skip
        return room, stored

    def _register(self, room: Room) -> None:
        self.rooms[room.id] = room
        room.on_change.append(self.room_changed)
        room.start_task()
        self.room_changed(room)
        if self.cluster is not None:
            self.spawn(self.cluster.hint_room(room.id))
            self.cluster.load_changed()

    def load(self) -> int:
        """The rooms this node plays now (waiting or playing): its load in the registry."""
        return sum(
            room.status in ("waiting", "playing") and not room.closed
            for room in self.rooms.values()
        )

    def room(self, room_id: str) -> Room:
        """A room in memory, or ``no_such_room``."""
        room = self.rooms.get(room_id)
        if room is None:
            raise Refused(ErrorCode.NO_SUCH_ROOM, f"There is no live room {room_id!r}.")
        return room

    async def locate(self, room_id: str, watcher: str | None = None) -> Room | RemoteRoom:
        """The live room ``room_id`` on this node; in a cluster, taken over first when nobody
        owns it (its node died or let it go: the same rebuild as a lapsed lease's). When
        another node plays it, a ``watcher`` (the user id of a spectator: someone holding no
        seat there) gets the room relayed here (:class:`~server.relay.RemoteRoom`); anyone
        else gets :class:`~server.errors.Moved`. Raises ``try_again`` when that node cannot
        be named now or the room is changing hands, ``no_such_room`` otherwise."""
        room = self.rooms.get(room_id)
        if room is not None or self.ownership is None:
            return self.room(room_id)
        owner = await self.owner_of(room_id)
        if owner is not None and owner != self.ownership.node:
            url = await self.cluster.live_url(owner) if self.cluster is not None else None
            if url is not None and watcher is not None and self.cluster is not None:
                row = await self.store.get_room(room_id)
                if row is not None and all(seat.get("user") != watcher for seat in row.seats):
                    return await self.relays.room(room_id, owner)
            if url is None:
                raise Refused(
                    ErrorCode.TRY_AGAIN,
                    f"Room {room_id} is played on node {owner}, which cannot be reached from"
                    " here right now; try again in a moment.",
                )
            raise Moved(room_id, url)
        row = await self.store.get_room(room_id)
        if row is None or row.status not in ("waiting", "playing"):
            return self.room(room_id)
        taken = await self.take(room_id)
        if taken is None:
            raise Refused(
                ErrorCode.TRY_AGAIN,
                f"Room {room_id} is moving to another node; try again in a moment.",
            )
        return taken

    async def owner_of(self, room_id: str) -> str | None:
        """The node playing ``room_id``: the holder of its live lease in PostgreSQL (the one
        truth), else ``None``; only when PostgreSQL cannot be asked, the live node the Redis
        hint names."""
        assert self.ownership is not None
        try:
            return await self.ownership.store.owner(room_id)
        except Exception:
            if self.cluster is None:
                raise
            hinted = await self.cluster.hint(room_id)
            if hinted in self.cluster.nodes and hinted != self.ownership.node:
                return hinted
            raise

    async def owner_url(self, room_id: str) -> str | None:
        """The public URL of the other node that plays ``room_id`` now, if it can be named (a
        node whose heartbeat lapsed cannot: :meth:`Cluster.live_url`)."""
        if self.ownership is None or self.cluster is None:
            return None
        try:
            owner = await self.ownership.store.owner(room_id)
        except Exception:
            return None
        if owner is None or owner == self.ownership.node:
            return None
        return await self.cluster.live_url(owner)

    async def take(self, room_id: str) -> Room | None:
        """Claim a room nobody owns and rebuild it here (a lapsed lease's room, asked for by
        a client or found by the ownership round); ``None`` when another node got it first or
        it cannot be rebuilt. Concurrent calls for one room share one attempt."""
        taking = self._taking.get(room_id)
        if taking is None:
            taking = self._taking[room_id] = asyncio.ensure_future(self._take(room_id))
            taking.add_done_callback(lambda _: self._taking.pop(room_id, None))
        return await asyncio.shield(taking)

    async def _take(self, room_id: str) -> Room | None:
        assert self.ownership is not None
        if room_id in self.rooms:
            return self.rooms[room_id]
        if self.draining:  # stopping: the room is another node's to take
            return None
        if room_id in self.ownership.epochs or self.ownership.is_creating(room_id):
            return None  # leased here already (being made): a claim would fence it
        epoch = await self.ownership.claim(room_id)
        if epoch is None:
            return None
        if not await self.adopt(room_id, epoch):
            await self.ownership.release(room_id)
            return None
        return self.rooms.get(room_id)

    async def hand_over(self, room: Room, wait: float = 10.0) -> str | None:
        """Drain one room within about ``wait`` seconds: stop it here once what it has queued
        is decided and committed, let its lease go, ask the lightest other node to take it at
        once, then send its connections on there. Returns the node that took it (``None``:
        nobody answered in time; the next ownership round anywhere claims it, and its clients
        reconnect through any node)."""
        assert self.ownership is not None
        started = asyncio.get_running_loop().time()
        try:  # behind what is queued: every command taken is decided and answered first
            await asyncio.wait_for(room.call(lambda: _halted(room)), wait)
        except (TimeoutError, Refused):
            room.halt()
        await self.ownership.store.flush()
        await self.ownership.release(room.id)
        target = self.cluster.lightest_other() if self.cluster is not None else None
        left = max(0.1, wait - (asyncio.get_running_loop().time() - started))
        taken = None
        if target is not None:
            taken = await self.relays.hand(room.id, target.node, min(left, HAND_OVER_WAIT))
        log.info("room_handed_over", room=room.id, to=taken)
        url = self.cluster.url_of(taken) if self.cluster is not None and taken else None
        room.send_on(url)
        return taken

    async def took(self, room_id: str) -> bool:
        """:meth:`take`, as the ownership round asks for it: whether this node plays the room."""
        return await self.take(room_id) is not None

    async def rematch(self, peer: Peer, room: Room) -> Room:
        """A new room with the same game, options and seats (people not ready yet), asked for
        by a player of the finished game; asking again gives the same room. Returned once the
        finished room's pointer to it has committed; when another node's lease refused that
        write, the new room closes and :class:`~server.errors.Moved` (or ``try_again``) is
        raised for the finished room."""
        if room.status != "finished":
            raise Refused(ErrorCode.NOT_FINISHED, "A rematch follows a finished game.")
        if room.seat_of(peer.user) is None:
            raise Refused(ErrorCode.NOT_SEATED, "Only the game's players can ask for a rematch.")
        existing = self.rooms.get(room.meta.get("rematch", ""))
        if existing is not None and not existing.closed:
            return existing
        if self.draining:
            raise Refused(ErrorCode.SHUTTING_DOWN, "This server is stopping; try again shortly.")
        self._check_caps(peer)
        seats = [
            Seat(s.kind, s.name, s.user, s.bot, dict(s.choices), s.kind == "bot")
            for s in room.seats
        ]
        meta = {k: v for k, v in room.meta.items() if k != "rematch"}
        new, stored = self._create(room.game, room.options, seats, peer.user, room.private, meta)
        new.address = peer.address_key
        room.meta["rematch"] = new.id  # before any await: a second request finds this room
        pointed = self.store.update_room(room.id, epoch=room.lease_epoch, meta=room.meta)
        await stored
        try:
            await pointed
        except Fenced:
            # Another node owns the finished room now: this rematch is nobody's to find.
            self.store.update_room(new.id, epoch=new.lease_epoch, status="expired")
            self.spawn(new.call(new.expire))
            room.let_go()
            raise await room.elsewhere() from None
        frame = encode(RematchCreated(room=room.id, new_room=new.id))
        for other in room.peers:
            other.send_frame(frame)
        return new

    async def recover(self) -> int:
        """Rebuild every waiting and playing room from the store and set its bots and timers
        going (server start, inside the running loop); returns how many were rebuilt.

        No single room can stop the server from starting: a room that fails to rebuild or to
        start again (a log that no longer replays, data an older version let in) is logged,
        marked ``failed`` in the store and skipped, and every other room recovers."""
        rows = await self.store.get_rooms(["waiting", "playing"])
        if self.ownership is not None:
            # A cluster node: each room the way any lapsed room is taken (claim, rebuild,
            # restart), so one that a client or another node asks for meanwhile is taken
            # once; a room another node's live lease holds is that node's.
            return sum([await self.take(row.id) is not None for row in rows])
        rebuilt = [room for row in rows if (room := await self._rebuild(row, None)) is not None]
        return sum(self._restart(room) for room in rebuilt)

    async def _rebuild(self, row: RoomRow, epoch: int | None) -> Room | None:
        """A stored room rebuilt from its log and registered (``None`` when it cannot be:
        marked ``failed``)."""
        try:
            room = Room(self, row, get_game(row.game))
            room.lease_epoch = epoch
            room.deserted = True  # nobody is in it here yet: listed again once someone is back
            if row.status == "playing":
                room.restore(await self.store.get_records(row.id))
        except Exception:
            self._recovery_failed(row.id, None)
            return None
        self._register(room)
        return room

    def _restart(self, room: Room) -> bool:
        """Set a rebuilt playing room's bots and timer going; ``False`` when that fails (the
        room is marked ``failed``)."""
        try:
            if room.status == "playing":
                self.bots.start_room(room)
                room.absent_humans()
                room._after_change()
        except Exception:
            self._recovery_failed(room.id, room)
            return False
        return True

    async def adopt(self, room_id: str, epoch: int) -> bool:
        """Take over a room whose lease this node just claimed (its owner died, paused or let
        it go): rebuilt from its log, its timer re-armed from the state's deadline and its
        bots seated, as at start-up. ``False`` when it is no longer waiting or playing, or
        cannot be rebuilt."""
        row = await self.store.get_room(room_id)
        if row is None or row.status not in ("waiting", "playing") or room_id in self.rooms:
            return False
        room = await self._rebuild(row, epoch)
        return room is not None and self._restart(room)

    def lost(self, room_id: str) -> None:
        """This node's lease on ``room_id`` went to another node: the room lets itself go."""
        room = self.rooms.get(room_id)
        if room is not None:
            room.let_go()

    def room_lost(self, room: Room) -> None:
        """Forget a room another node owns now; the lobby stops listing it here."""
        self._forget(room)

    def _forget(self, room: Room) -> None:
        """Forget a room this node no longer plays (closed, or another node's now): its lease
        is not renewed, the registry gets the new load, the lobby stops listing it here."""
        self.rooms.pop(room.id, None)
        if self.cluster is not None:
            self.cluster.load_changed()
        if self.ownership is not None:
            self.ownership.forget(room.id)
        if not room.private:
            self._removed.add(room.id)
            self._schedule()

    def _recovery_failed(self, room_id: str, room: Room | None) -> None:
        """Log the failure being handled, mark the room ``failed`` and forget it."""
        log.exception("room_recovery_failed", room=room_id)
        self.metrics.room_failures.inc()
        epoch = None
        if self.ownership is not None:
            epoch = self.ownership.epochs.get(room_id)
            self.ownership.forget(room_id)
        self.store.update_room(room_id, epoch=epoch, status="failed")
        if room is not None:
            self.rooms.pop(room_id, None)
            self.spawn(room.stop())

    # -- lobby ----------------------------------------------------------------------------------

    def listed(self, room: Room, now: float | None = None) -> bool:
        """Whether the lobby lists ``room``: public, open, and finished or someone in it (a
        connection seated or watching). A live room its last person left (or closed the page
        on), or rebuilt here (at start-up, or taken over from another node) with nobody back in
        it yet, is not listed; nor one that nobody has opened for :data:`UNATTENDED` seconds (a
        rematch no one took up). It is listed again once someone is in it (by its link, or
        resuming); the idle expiry and the abandoned check close it otherwise. A finished game
        stays listed (its replay) for the retention period."""
        if room.private or room.closed:
            return False
        if room.peers or room.status == "finished":
            return True
        return not room.deserted and (now or time.time()) - room.touched < UNATTENDED

    def _live_rooms(self, game: str | None) -> tuple[list[Room], list[RoomSummary]]:
        """The lobby's waiting and playing rooms (optionally of one game): this node's, and
        the summaries of every other node's."""
        mine = [
            room
            for room in self.rooms.values()
            if self.listed(room)
            and room.status in ("waiting", "playing")
            and (game is None or room.game.id == game)
        ]
        others = []
        if self.cluster is not None:
            others = [
                summary
                for summary in self.cluster.remote_rooms()
                if summary.room not in self.rooms and (game is None or summary.game == game)
            ]
        return mine, others

    def _live(self, game: str | None) -> list[RoomSummary]:
        """The lobby's live rooms' summaries, newest first."""
        mine, others = self._live_rooms(game)
        live = [room.summary() for room in mine] + others
        live.sort(key=lambda summary: summary.created, reverse=True)
        return live

    async def summaries(
        self, game: str | None = None, offset: int = 0, limit: int | None = None
    ) -> RoomList:
        """A page of the lobby (optionally of one game), at most ``limit`` rooms and never
        more than the ``lobby_page`` setting: public waiting and playing rooms, newest first,
        then finished public games kept in the store, most recently finished first."""
        size = min(limit or self.settings.lobby_page, self.settings.lobby_page)
        # The store's reads come first: the live rooms are taken after the last await, so a
        # watcher added before this page gets every change after it in a lobby_update, and
        # none the page itself would then overwrite.
        finished = await self.store.get_finished_count(game)
        shown_live = sum(map(len, self._live_rooms(game)))
        rows: list[RoomRow] = []
        if offset + size > shown_live:
            rows = await self.store.get_finished(size, game, offset=max(0, offset - shown_live))
        live = self._live(game)
        total = len(live) + finished
        page = live[offset : offset + size]
        for row in rows[: size - len(page)]:
            held = self.rooms.get(row.id)
            page.append(held.summary() if held is not None else stored_summary(row))
        following = offset + size if offset + size < total else None
        return RoomList(rooms=tuple(page), total=total, next=following)

    def room_changed(self, room: Room) -> None:
        """Queue a lobby update for ``room``."""
        if room.closed or room.private:
            return
        self._dirty.add(room.id)
        self._schedule()

    def _schedule(self) -> None:
        if self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(0.05, self._send_lobby)

    def _send_lobby(self) -> None:
        self._flush = None
        dirty = [self.rooms[r] for r in self._dirty if r in self.rooms]
        changed = [room.summary() for room in dirty if self.listed(room)]
        # A waiting room everyone left goes from the list as if it were gone.
        removed = sorted(self._removed | {room.id for room in dirty if not self.listed(room)})
        self._dirty.clear()
        self._removed.clear()
        self._gauge()
        if self.cluster is not None:
            self.cluster.publish(changed, removed)
            # A room this node let go may be listed by its new owner already: not removed.
            for room in [r for r in removed if r in self.cluster.remote]:
                removed.remove(room)
                changed.append(self.cluster.remote[room][1])
        self._tell_lobby(tuple(changed), tuple(removed))

    def _tell_lobby(self, rooms: tuple[RoomSummary, ...], removed: tuple[str, ...]) -> None:
        """Send the lobby's watchers on this node one ``lobby_update``, if anything changed."""
        if not self.lobby or (not rooms and not removed):
            return
        frames: dict[int, bytes] = {}  # by protocol version
        for peer in self.lobby:
            version = getattr(peer, "version", None) or 0
            if version not in frames:
                shown = tuple(summary_for(summary, version) for summary in rooms)
                frames[version] = encode(LobbyUpdate(rooms=shown, removed=removed))
            peer.send_frame(frames[version])

    def remote_lobby(self, rooms: tuple[RoomSummary, ...], removed: tuple[str, ...]) -> None:
        """Other nodes changed the cluster's lobby: tell this node's watchers (rooms this node
        plays itself are its own to announce)."""
        self._tell_lobby(
            tuple(summary for summary in rooms if summary.room not in self.rooms),
            tuple(room for room in removed if room not in self.rooms),
        )

    def _gauge(self) -> None:
        counts = {"waiting": 0, "playing": 0, "finished": 0}
        for room in self.rooms.values():
            counts[room.status if room.status in counts else "finished"] += 1
        for state, value in counts.items():
            self.metrics.rooms.labels(state).set(value)

    def room_closed(self, room: Room) -> None:
        """Forget a closed room and tell the lobby."""
        self._forget(room)

    def game_finished(self, room: Room, outcome: Outcome) -> None:
        """A game ended here: the node's load changed, and a Flash 8 solo result joins the
        high scores."""
        if self.cluster is not None:
            self.cluster.load_changed()
        score = outcome.details.get("score")
        rank = outcome.details.get("rank")
        if room.game.id == "flash8" and isinstance(score, int) and isinstance(rank, str):
            player = room.seats[0].name or "Player"
            self.store.add_high_score(
                player, score, rank, room.id, time.time(), player_id=room.seats[0].user
            )
        self._rate(room, outcome)

    def _rate(self, room: Room, outcome: Outcome) -> None:
        """Keep the game's results and, when it is rated (:func:`server.ratings.is_rated`),
        move its players' ratings and tell the room's members (``ratings_changed``, version
        5). What decided it is kept in the room's ``meta`` (``rating``), which its log
        carries, so ``lumin ratings recompute`` decides the same."""
        players = [
            Player(n, seat.user, seat.name or f"Seat {n}")
            for n, seat in enumerate(room.seats)
            if seat.kind == "human" and seat.user is not None
        ]
        if not players:
            return
        pool = pool_of(room.game.id, room.options, len(room.seats))
        rated = is_rated(
            len(players), int(room.meta.get("bots_at_start", 0)), room.meta.get("rated"), pool,
            taken_over="taken_over" in room.meta,
        )  # fmt: skip
        room.meta["rating"] = {"pool": pool, "rated": rated, "forfeits": room.forfeits}
        self.store.update_room(room.id, epoch=room.lease_epoch, meta=room.meta)
        finished = room.finished or time.time()

        async def record() -> None:
            changes = await self.ratings.record(
                room.id, room.game.id, pool, rated, players, list(outcome.ranks),
                room.forfeits, finished,
            )  # fmt: skip
            if changes:
                frame = encode(RatingsChanged(room=room.id, changes=tuple(changes)))
                for peer in room.peers:
                    if speaks(peer, ACCOUNTS_VERSION):
                        peer.send_frame(frame)
                room.changed_ratings()

        self.spawn(record())

    # -- housekeeping ---------------------------------------------------------------------------

    async def housekeeping(self, every: float = 30.0, checkpoint: float = 2.0) -> None:
        """Forever: every ``checkpoint`` seconds let the store tidy up (SQLite copies its WAL
        into its file on a background thread at the lowest priority, ``EventStore.tidy``)
        and stop playing rooms nobody attends (:meth:`abandon`); every ``every`` seconds expire
        idle waiting rooms, unload finished rooms nobody watches, delete finished games older
        than the retention period and forget refilled rate-limit buckets."""
        last = time.monotonic()
        while True:
            await asyncio.sleep(checkpoint)
            await self.store.tidy()
            self.abandon(time.monotonic())
            if time.monotonic() - last >= every:
                last = time.monotonic()
                self.sweep(time.time())
                self.spawn(self.reload_bans())  # a ban another node's message missed

    def abandon(self, now: float) -> None:
        """Stop every playing room that nobody has attended (no human seated, connected or
        within their grace, and nobody watching) for the ``abandoned_after`` setting: bots
        would otherwise play it on forever for no one. ``now`` is ``time.monotonic()``."""
        for room in list(self.rooms.values()):
            if room.status != "playing" or room.closed:
                continue
            if room.attended_now():
                room.attended = now
            elif now - room.attended > self.settings.abandoned_after:
                self.spawn(room.call(room.abandon))

    def sweep(self, now: float) -> None:
        """One housekeeping pass (see :meth:`housekeeping`); it also forgets the guest
        identities unseen for the ``guest_retention_days`` setting, and takes rooms nobody
        opened for :data:`UNATTENDED` seconds out of the lobby."""
        for room in list(self.rooms.values()):
            idle = now - room.touched
            if not room.peers and not room.deserted and UNATTENDED <= idle < UNATTENDED + 60:
                self.room_changed(room)  # no longer listed: the lobby's watchers are told
            if room.status == "waiting" and not room.peers and idle > self.settings.idle_expiry:
                self.store.update_room(room.id, epoch=room.lease_epoch, status="expired")
                self.spawn(room.call(room.expire))
            elif room.status == "finished" and not room.peers and idle > 600:
                self.rooms.pop(room.id, None)
                if self.ownership is not None:
                    self.ownership.forget(room.id)
                self.spawn(room.stop())
        self.store.delete_ended_before(now - self.settings.retention_days * 86400)
        self.store.delete_guests_unseen_before(now - self.settings.guest_retention_days * 86400)
        self.end_sessions(now)
        self.limits.prune(time.monotonic())
        self.codes.prune(time.monotonic())
        _return_free_memory()

    def end_sessions(self, now: float) -> None:
        """Close this node's connections whose session ended at its fixed time (an identity
        token's ``exp``; they get ``bye`` ``signed_out``), and forget the sessions that ended
        :data:`~server.accounts.KNOWN_DEVICE_DAYS` ago (an account's session ends
        ``--session-lifetime`` days after its last use)."""
        for token_hash, end in list(self.session_ends.items()):
            if token_hash not in self.signed_in:
                del self.session_ends[token_hash]  # its connections are gone
            elif end < now:
                del self.session_ends[token_hash]
                for connection in self.signed_in.pop(token_hash):
                    connection.signed_out(SESSION_ENDED)
        self.store.delete_sessions_ended_before(
            now - KNOWN_DEVICE_DAYS * 86400, self.accounts.session_lifetime
        )


async def _halted(room: Room) -> None:
    """Stop ``room`` from inside its own task (:meth:`Room.halt`)."""
    room.halt()


def _return_free_memory() -> None:
    """Give memory that is free inside the process back to the system (glibc's
    ``malloc_trim``): after a burst of connections, what the allocator keeps would otherwise
    stay counted in the server's resident size. Elsewhere, nothing."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None


_LIBC = _libc()

#: The longest turn clock a room may set, in seconds (a day: longer is no clock at all).
MAX_TURN_CLOCK = 86400.0


def _turn_clock(seconds: float, shortest: float) -> float:
    """A ``create_room`` turn clock, checked: a finite number of seconds from ``shortest``
    (``--min-turn-clock``) to :data:`MAX_TURN_CLOCK` (``bad_option`` otherwise, before the
    room exists)."""
    if not math.isfinite(seconds) or not shortest <= seconds <= MAX_TURN_CLOCK:
        raise Refused(
            ErrorCode.BAD_OPTION,
            f"turn_clock is a number of seconds from {shortest:g} to {MAX_TURN_CLOCK:g},"
            f" not {seconds!r}.",
        )
    return float(seconds)


def stored_summary(row: RoomRow) -> RoomSummary:
    """The lobby's summary of a finished game that is only in the store."""
    seats = tuple(Seat.from_wire(seat).info(n, False) for n, seat in enumerate(row.seats))
    return RoomSummary(
        room=row.id,
        game=row.game,
        options=row.options,
        seats=seats,
        state="finished",
        host=row.host,
        spectators=0,
        private=row.private,
        commitment=row.commitment,
        turn_clock=row.meta.get("turn_clock"),
        created=row.created,
        result=result_of(row.meta, row.finished),
    )
