"""A room: one asyncio task that owns a game, its seats, its log and its viewers.

Everything that changes a room runs inside the room's task, one request at a time, so a room
never needs a lock: connections hand it requests with :meth:`Room.call` and await the answer
(:mod:`server.mailbox`). A game command is decided by the engine (:mod:`server.batch`), its
record appended to the store and committed, and only then applied, acknowledged and turned
into one delta per viewer (:mod:`server.fanout`): each seat's own view, and one public view
shared by every spectator. Commands waiting in the queue together are decided, committed and
sent as one batch: one commit, one delta per viewer.

The room keeps the lifecycle (waiting, playing, finished; closing) and the wiring; the rules
it applies live in pure modules with tests of their own: seats (:mod:`server.seats`), chat
(:mod:`server.chat`), resume (:mod:`server.resume`). It reaches the rest of the server only
through :class:`RoomHost`.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any, Protocol, TypeVar

import attrs
import structlog

from engine.core import (
    Game,
    Outcome,
    Rejected,
    ViewPatcher,
    chance,
    first_state,
    from_wire,
    outcome_to_wire,
    to_wire,
)
from protocol.codec import encode, encode_accepted
from protocol.errors import ErrorCode
from protocol.messages import (
    CommandRejected,
    GameOver,
    Kicked,
    Message,
    Ok,
    OutcomeInfo,
    ResultInfo,
    RoomClosed,
    RoomSummary,
    RoomUpdate,
    Snapshot,
)
from protocol.versions import ACCOUNTS_VERSION, OPERATOR_VERSION, RESULTS_VERSION
from server.batch import QueuedAct, Step, decide_batch, make_step
from server.chat import Chat
from server.config import Settings
from server.errors import Moved, Refused
from server.fanout import Fanout, Viewer
from server.logs import room_closed, seat_kicked
from server.mailbox import Delivery, Mailbox, Work
from server.metrics import Metrics
from server.ratings import pool_of, without_ratings
from server.resume import plan_resume
from server.seats import Seat, check_start, join_kind, seat_of, seat_specs
from server.store import AppendRefused, Fenced, Record, RoomRow

__all__ = [
    "Peer",
    "Room",
    "RoomBots",
    "RoomHost",
    "RoomStore",
    "result_of",
    "speaks",
    "summary_for",
]

log = structlog.get_logger("lumin.room")

T = TypeVar("T")

#: Seconds between two ``room_update`` broadcasts of one room (see Room._changed).
_UPDATE_INTERVAL = 0.25


class Peer(Protocol):
    """One client connection as a room sees it."""

    user: str
    name: str
    #: The client's address, and the bucket its per-address limits count it in
    #: (:func:`server.limits.address_key`).
    address: str
    address_key: str
    muted: set[str]

    def send(self, message: Message) -> None:
        """Queue a message for this client (never blocks)."""
        ...

    def send_frame(self, frame: bytes) -> None:
        """Queue an already encoded frame for this client (never blocks)."""
        ...

    def room_moved(self, room: str, url: str | None = None) -> None:
        """``room`` is no longer on this node (another node of the cluster owns it now, at
        ``url`` when known): the client must reconnect to play or watch it on."""
        ...


def speaks(peer: Peer, version: int) -> bool:
    """Whether ``peer``'s connection negotiated protocol ``version`` or a later one (a relay
    to another node's spectators, whose versions vary, never does)."""
    return bool((getattr(peer, "version", None) or 0) >= version)


def summary_for(summary: RoomSummary, version: int | None) -> RoomSummary:
    """``summary`` as a client of protocol ``version`` is sent it: a finished game's
    ``result`` from version 6, seats' ``rating`` from version 5 (older decoders refuse fields
    they do not know)."""
    if (version or 0) < RESULTS_VERSION and summary.result is not None:
        summary = attrs.evolve(summary, result=None)
    if (version or 0) < ACCOUNTS_VERSION:
        summary = without_ratings(summary)
    return summary


def result_of(meta: dict[str, Any], finished: float | None) -> ResultInfo | None:
    """The lobby's ``result`` of a finished room from what its ``meta`` keeps (``result``,
    written when the game ended), or ``None`` for a game finished before results were kept."""
    kept = meta.get("result")
    if not isinstance(kept, dict) or finished is None:
        return None
    return ResultInfo(
        finished=float(finished),
        winners=tuple(int(seat) for seat in kept.get("winners", ())),
        scores=tuple(float(score) for score in kept.get("scores", ())),
        reason=str(kept.get("reason", "")),
    )


class RoomStore(Protocol):
    """What a room writes to the store (``server.store.EventStore``)."""

    def append(
        self, room: str, *records: Record, epoch: int | None = None
    ) -> asyncio.Future[None]: ...

    def update_room(
        self, room: str, epoch: int | None = None, **fields: Any
    ) -> asyncio.Future[None]: ...

    def fence(self, room: str, epoch: int | None) -> asyncio.Future[None]: ...


class RoomBots(Protocol):
    """The bot seats of the server (``server.bots.BotSeats``), as a room drives them."""

    def start_room(self, room: Any) -> None: ...

    def stop_room(self, room: Any) -> None: ...

    def stop_seat(self, room: Any, seat: int) -> None: ...

    def poke(self, room: Any) -> None: ...

    def seats_of(self, room: Any) -> set[int | None]: ...

    def human_gone(self, room: Any, seat: int) -> None: ...

    def human_back(self, room: Any, seat: int) -> None: ...

    def stand_in(self, room: Any, seat: int) -> None: ...

    def in_grace(self, room: Any, seat: int) -> bool: ...


class RoomHost(Protocol):
    """The few things of the server a room uses (the :class:`~server.hub.Hub` is one)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def store(self) -> RoomStore: ...

    @property
    def bots(self) -> RoomBots: ...

    @property
    def epoch(self) -> str:
        """Changes on every start: a client's delta history from another epoch is void."""
        ...

    def spawn(self, work: Any) -> Any:
        """Run a coroutine in the background, its failure logged."""
        ...

    def room_lost(self, room: Room) -> None:
        """``room`` let itself go (another node owns it now): forget it here."""
        ...

    async def owner_url(self, room_id: str) -> str | None:
        """The public URL of the other node that plays ``room_id`` now, if it can be named."""
        ...

    def game_finished(self, room: Room, outcome: Outcome) -> None:
        """A room's game ended (high scores)."""
        ...

    def room_closed(self, room: Room) -> None:
        """A room closed for good: forget it."""
        ...


class Room:
    """See the module docstring. Built by the :class:`~server.hub.Hub`, which owns every room."""

    def __init__(self, host: RoomHost, row: RoomRow, game: Game) -> None:
        self.hub = host
        self.id = row.id
        self.game = game
        self.options: dict[str, Any] = dict(row.options)
        self.seats = [Seat.from_wire(seat) for seat in row.seats]
        self.seed = row.seed
        self.salt = row.salt
        self.commitment = row.commitment
        self.private = row.private
        self.code = row.code
        self.host = row.host
        self.status = row.status
        self.created = row.created
        self.started = row.started
        #: The room time of the last logged step (the start before the first).
        self.stepped_at: float = row.started or 0.0
        self.finished = row.finished
        self.meta: dict[str, Any] = dict(row.meta)
        #: The seats that count as last once the game has ended (left, or away past grace).
        self.forfeits: list[int] = []
        self.touched = time.time()
        #: The creator's per-address bucket (:func:`server.limits.address_key`), for the
        #: per-address cap on open rooms (memory only: after a restart rooms count against
        #: their host identity alone).
        self.address: str | None = None
        #: ``time.monotonic()`` when a human was last seated (connected or within their
        #: grace) or anyone watched; a room rebuilt at start-up starts from then.
        self.attended = time.monotonic()
        # The game, once started.
        self.state: Any = None
        self.seq = 0
        self.position = 0
        #: In a cluster, this node's lease on the room (every append carries it); ``None`` on
        #: a store without leases.
        self.lease_epoch: int | None = None
        # Viewers: every connection in the room, with the seat it sees (None: spectator).
        self.peers: dict[Peer, Viewer] = {}
        #: Whether the last person in the room left it (the lobby stops listing a waiting
        #: room then; a rematch nobody has opened yet is not deserted).
        self.deserted = False
        self._patcher = game if isinstance(game, ViewPatcher) else None
        self.fanout = Fanout(self.id, game, self._patcher, host.settings.history)
        self.chat_log = Chat(self.id, host.settings.chat_length, host.settings.chat_rate)
        #: The encoded ``game_over`` once the game has ended.
        self.over: bytes | None = None
        self._commands = host.metrics.commands.labels(game.id)  # looked up once, not per command
        self._mailbox = Mailbox()
        self._task: asyncio.Task[None] | None = None
        #: Whether the room's task is running a request (or a batch of acts) now.
        self._delivering = False
        #: What a request gets once the room no longer runs here (see :meth:`submit`).
        self._refusal = Refused(ErrorCode.NO_SUCH_ROOM, f"Room {self.id} is closed.")
        #: The log context bound in the room's task for the request it runs (see _acting).
        self._asker: dict[str, Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._update_timer: asyncio.TimerHandle | None = None
        self._updated = 0.0  # time.monotonic() of the last room_update
        self.closed = False
        self.on_change: list[Callable[[Room], None]] = []

    # The views' state, as bots and tests read it.

    @property
    def legal(self) -> dict[int, list[dict[str, Any]]]:
        """Every seat's legal commands now."""
        return self.fanout.legal

    @property
    def legal_since(self) -> dict[int, int]:
        """The seq each seat's legal commands last changed at."""
        return self.fanout.legal_since

    @property
    def legal_at(self) -> dict[int, float]:
        """The room time each seat's legal commands last changed at (a turn clock's start)."""
        return self.fanout.legal_at

    @property
    def views(self) -> dict[Viewer, Any]:
        """The views built and not changed since (a cache)."""
        return self.fanout.views

    # -- the room's task ------------------------------------------------------------------------

    def start_task(self) -> None:
        """Start draining requests; called once the room is registered. The task runs in a
        context of its own, not in that of the connection whose request made the room: its
        lines name the room, and whoever asked for the request it runs (:meth:`_acting`)."""
        self._task = asyncio.create_task(
            self._run(), name=f"room-{self.id}", context=contextvars.Context()
        )

    async def _run(self) -> None:
        structlog.contextvars.bind_contextvars(room=self.id, game=self.game.id)
        while not self.closed:
            delivery = await self._mailbox.next()
            self._acting(delivery)
            self._delivering = True
            try:
                result = None
                if delivery.work is not None:
                    result = await delivery.work()
                else:
                    await self.act_batch(delivery.acts)
            except Refused as refusal:
                for future in delivery.answers:
                    if not future.done():
                        future.set_exception(refusal)
            except _Lost:  # another node owns the room now: nothing here was committed
                # Each request under way gets its one answer, ``moved`` to the new owner, then
                # the room's connections are sent on (unless the lease round did it first).
                told = self.closed
                if not told:
                    log.info("room_let_go", room=self.id, epoch=self.lease_epoch)
                    self.halt(moving=True)
                elsewhere = await self.elsewhere()
                bots = {id(future) for act, future in delivery.acts if act.peer is None}
                for future in delivery.answers:
                    if not future.done():
                        future.set_exception(_left() if id(future) in bots else elsewhere)
                if not told:
                    await self.move_on()
                return
            except Exception as error:  # an engine or server bug stays in this room
                log.exception("room_failure")
                for future in delivery.answers:
                    if not future.done():
                        future.set_exception(
                            Refused(ErrorCode.INTERNAL, "The room failed; see logs.")
                        )
                if isinstance(error, _Broken):
                    self.hub.metrics.room_failures.inc()
                    self._close("internal_error")
                    return
            else:
                if delivery.work is not None and not delivery.answers[0].done():
                    delivery.answers[0].set_result(result)
            finally:
                self._delivering = False

    async def elsewhere(self) -> Moved | Refused:
        """What a request this room cannot answer any more is answered (another node's lease
        refused its write): ``moved`` to the node that owns the room now, or ``try_again``
        while that node cannot be named."""
        url = await self.hub.owner_url(self.id)
        if url is not None:
            return Moved(self.id, url)
        return Refused(
            ErrorCode.TRY_AGAIN, f"Room {self.id} is moving to another server; try again shortly."
        )

    async def call(self, work: Callable[[], Awaitable[T]] | QueuedAct) -> T:
        """Run ``work`` inside the room's task, after whatever is already queued; an
        :class:`QueuedAct` is decided by :meth:`act_batch` (its result is the rules' refusal, if
        any), together with the acts queued right behind it."""
        return await self.submit(work)

    def submit(self, work: Work) -> asyncio.Future[Any]:
        """Queue ``work`` as :meth:`call` does, without waiting: the future gets its answer.
        Raises :class:`Refused` when the room no longer runs here: ``no_such_room`` once it
        closed, ``shutting_down`` or ``try_again`` while it stops or moves (:meth:`halt`)."""
        if self.closed:
            raise self._refusal
        if not isinstance(work, QueuedAct):
            work = _Request(work, _asker())
        return self._mailbox.put(work)

    def _acting(self, delivery: Delivery) -> None:
        """Bind, in the room's task, the log context of whoever asked for ``delivery``
        (unbinding the previous asker's): a request's sender, or the one sender of a batch of
        acts (a batch from several binds none)."""
        asker: dict[str, Any] | None = None
        if isinstance(delivery.work, _Request):
            asker = delivery.work.asker
        elif delivery.acts:
            peer = delivery.acts[0][0].peer
            if peer is not None and all(act.peer is peer for act, _ in delivery.acts):
                asker = {"user": peer.user, "connection": getattr(peer, "connection", None)}
        if asker == self._asker:
            return
        if self._asker:
            structlog.contextvars.unbind_contextvars(*self._asker)
        if asker:
            structlog.contextvars.bind_contextvars(**asker)
        self._asker = asker

    async def stop(self) -> None:
        """Stop the room (server shutdown or unloading): queued requests are answered with
        ``shutting_down`` instead of being run, and the task ends."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.hub.bots.stop_room(self)
        self._mailbox.refuse_all(ErrorCode.SHUTTING_DOWN, "The server is shutting down.")
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    # -- summaries ------------------------------------------------------------------------------

    def summary(self) -> RoomSummary:
        """What the lobby shows of this room."""
        connected = {peer.user for peer in self.peers}
        ratings = getattr(self.hub, "ratings", None)
        pool = pool_of(self.game.id, self.options, len(self.seats))
        seats = tuple(
            seat.info(
                n,
                seat.kind == "bot" or (seat.user is not None and seat.user in connected),
                None if ratings is None else ratings.shown(seat.user, self.game.id, pool),
            )
            for n, seat in enumerate(self.seats)
        )
        return RoomSummary(
            room=self.id,
            game=self.game.id,
            options=self.options,
            seats=seats,
            state={"waiting": "waiting", "playing": "playing"}.get(self.status, "finished"),  # type: ignore[arg-type]
            host=self.host,
            spectators=sum(1 for viewer in self.peers.values() if viewer is None),
            private=self.private,
            commitment=self.commitment,
            turn_clock=self.meta.get("turn_clock"),
            created=self.created,
            result=result_of(self.meta, self.finished) if self.status == "finished" else None,
        )

    def seat_of(self, user: str) -> int | None:
        """The seat ``user`` holds here, if any."""
        return seat_of(self.seats, user)

    def _changed(self, crowd: bool = False) -> None:
        """Tell the lobby and the room's viewers that seats or state changed.

        Viewers get a ``room_update`` at once. Changes of the ``crowd`` only (who watches,
        who is connected) get one at once too unless one went out in the last
        ``_UPDATE_INTERVAL``; then a single one follows when the interval ends, with the room
        as it is then: a crowd of spectators arriving costs a few updates per second, not one
        per arrival to everyone.
        """
        self.touched = time.time()
        for listener in self.on_change:
            listener(self)
        wait = self._updated + _UPDATE_INTERVAL - time.monotonic()
        if not crowd or (wait <= 0 and self._update_timer is None):
            self._send_update()
        elif self._update_timer is None:
            self._update_timer = asyncio.get_running_loop().call_later(wait, self._send_update)

    def _send_update(self) -> None:
        if self._update_timer is not None:
            self._update_timer.cancel()
        self._update_timer = None
        if self.closed:
            return
        self._updated = time.monotonic()
        info = self.summary()
        frames: dict[int, bytes] = {}  # by protocol version
        for peer in self.peers:
            version = getattr(peer, "version", None) or 0
            if version not in frames:
                frames[version] = encode(RoomUpdate(info=summary_for(info, version)))
            peer.send_frame(frames[version])

    def _persist_seats(self) -> asyncio.Future[None]:
        return self._update(seats=[seat.to_wire() for seat in self.seats])

    def _update(self, **fields: Any) -> asyncio.Future[None]:
        """Write some of the room's columns, fenced by its lease (``update_room``). A write
        another node's lease refused, that no request of the room waits for, lets the room
        go; a request waits for its writes with :meth:`_stored`."""
        written = self.hub.store.update_room(self.id, epoch=self.lease_epoch, **fields)
        written.add_done_callback(self._written)
        return written

    def _written(self, written: asyncio.Future[None]) -> None:
        if written.cancelled():
            return
        error = written.exception()
        if isinstance(error, Fenced):
            if not self._delivering:  # a request under way hears of it through _stored
                self.let_go()
        elif error is not None:
            log.error("room_update_failed", error=repr(error))

    async def _stored(self, *written: asyncio.Future[None]) -> None:
        """Wait until ``written`` (none: a check that the room's lease is still this node's)
        has committed, so a request that changed the room is answered ``ok`` only once its
        change is the room's for good; raises :class:`_Lost` when another node's lease
        refused it (the request is answered ``moved``)."""
        if not written:
            written = (self.hub.store.fence(self.id, self.lease_epoch),)
        try:
            for write in written:
                await write
        except Fenced:
            raise _Lost from None

    # -- joining, watching, leaving (waiting room and live) -------------------------------------

    async def join(self, peer: Peer, seat: int, code: str | None) -> None:
        """Seat ``peer``'s person at ``seat``: an open seat before the start, their own seat at
        any time (a reconnect), or a bot seat at any time (a human takes it over). A private
        room's code is needed except to reclaim one's own seat."""
        if self.seat_of(peer.user) != seat:
            self._check_code(peer, code)
        if peer.user in self.meta.get("kicked", ()):
            raise Refused(
                ErrorCode.REMOVED,
                "The server's operator removed you from this room's seats; you may watch it.",
            )
        was_bot = False
        if join_kind(self.seats, seat, peer.user, self.status, self.id) == "take":
            slot = self.seats[seat]
            was_bot = slot.kind == "bot"
            slot.kind, slot.user, slot.name, slot.ready = "human", peer.user, peer.name, False
            if was_bot:
                slot.bot = None
                self.hub.bots.stop_seat(self, seat)
            await self._stored(self._persist_seats())
            log.info("seat_taken", seat=seat, was_bot=was_bot)
        else:  # one's own seat again: nothing to write, but only the owner may say so
            await self._stored()
        self.hub.bots.human_back(self, seat)
        self.peers[peer] = seat
        self._send_snapshot(peer, seat)
        self._changed()
        if was_bot and self.status == "playing":
            self._taken_over(peer, seat)

    async def watch(self, peer: Peer, code: str | None, *, trusted: bool = False) -> None:
        """Let ``peer`` watch: a seated person sees their seat's view, others the public one.
        A private room needs its code, unless ``trusted`` (the server's own: the room's
        creator, a relay to another node)."""
        if not trusted:
            self._check_code(peer, code)
        seat = self.seat_of(peer.user)
        self.peers[peer] = seat
        if seat is not None:
            self.hub.bots.human_back(self, seat)
        self._send_snapshot(peer, seat)
        self._changed(crowd=True)

    def _taken_over(self, peer: Peer, seat: int) -> None:
        """A person took over a bot's seat in a game under way: the game no longer counts for
        ratings (its seats were not all people's from the start), which everyone in the room
        is told in its chat, as a line from the server (``user`` empty)."""
        counted = "taken_over" not in self.meta and self.meta.get("rated") is not False
        counted = counted and not self.meta.get("bots_at_start")
        self.meta["taken_over"] = [*self.meta.get("taken_over", ()), seat]
        self._update(meta=self.meta)
        text = f"{peer.name} took over the bot at seat {seat + 1}."
        if counted:
            text += " This game no longer counts for ratings."
        frame = encode(self.chat_log.notice(text, time.time()))
        for other in self.peers:
            other.send_frame(frame)

    def _check_code(self, peer: Peer, code: str | None) -> None:
        """A private room's code, checked against the guesses allowed (:mod:`server.codes`)."""
        if self.private:
            self.hub.codes.check(self.id, code, self.code, peer.address_key)

    def _gone(self, peer: Peer) -> Viewer:
        """Forget ``peer``; returns the viewer it saw, noting when that viewer's last
        connection left."""
        if peer not in self.peers:
            return None
        viewer = self.peers.pop(peer)
        if not self.peers:
            self.deserted = True
        if viewer not in self.peers.values():
            self.fanout.gone(viewer, time.monotonic())
        return viewer

    async def leave(self, peer: Peer) -> None:
        """Before the start, free the person's seat; after it, stop watching: the seat stays
        theirs and, once none of their connections is left in the room, a bot plays it at
        once (leaving on purpose has no grace period to wait out; coming back takes it over)."""
        seat = self.seat_of(peer.user)
        self._gone(peer)
        written: list[asyncio.Future[None]] = []
        if seat is not None and self.status == "waiting":
            written.append(self._free(seat))
        elif (
            seat is not None
            and self.status == "playing"
            and not any(p.user == peer.user for p in self.peers)
        ):
            if seat not in self.meta.get("left", ()):
                # Left on purpose: the seat counts as last in the ratings.
                self.meta["left"] = [*self.meta.get("left", ()), seat]
                written.append(self._update(meta=self.meta))
            self.hub.bots.stand_in(self, seat)
        if seat is not None:  # a player's leaving is the owner's to answer
            await self._stored(*written)
        self._changed()

    def rename(self, user: str, name: str) -> asyncio.Future[None] | None:
        """``user`` plays as ``name`` from now on: their seat here takes it, unless the game is
        over (a finished game keeps the names it was played under). Returns the seats' write
        (``None``: nothing to write)."""
        seat = self.seat_of(user)
        if seat is None or self.status == "finished" or self.closed:
            return None
        if self.seats[seat].name == name:
            return None
        self.seats[seat].name = name
        written = self._persist_seats()
        self._changed()
        return written

    def _free(self, seat: int) -> asyncio.Future[None]:
        """Open a seat again before the start, keeping its per-seat choices; every connection
        that saw it goes back to the public view, so it never sees the next occupant's.
        Returns the seats' write."""
        self.seats[seat] = Seat(choices=self.seats[seat].choices)
        for other, viewer in self.peers.items():
            if viewer == seat:
                self.peers[other] = None
        return self._persist_seats()

    def detach(self, peer: Peer) -> None:
        """A connection closed: forget it here (not a request, so it runs at once)."""
        if peer not in self.peers:
            return
        seat = self._gone(peer)
        if seat is not None and not self.closed:
            self.disconnected(peer.user, seat)
        if not self.closed:
            self._changed(crowd=True)

    def disconnected(self, user: str, seat: int) -> None:
        """Start the grace period when the last connection of a seat's person is gone."""
        if self.status != "playing":
            return
        if any(p.user == user for p in self.peers):
            return
        self.hub.bots.human_gone(self, seat)

    async def ready(self, peer: Peer, ready: bool) -> None:
        """Mark the person's seat ready (or not) before the start."""
        seat = self._seated(peer)
        if self.status != "waiting":
            raise Refused(ErrorCode.ALREADY_STARTED, "The game has started.")
        self.seats[seat].ready = ready
        await self._stored(self._persist_seats())
        self._changed()

    def _seated(self, peer: Peer) -> int:
        seat = self.seat_of(peer.user)
        if seat is None:
            raise Refused(ErrorCode.NOT_SEATED, "You hold no seat in this room.")
        return seat

    async def kick(self, peer: Peer, seat: int) -> None:
        """The host frees a seat before the start."""
        if peer.user != self.host:
            raise Refused(ErrorCode.NOT_HOST, "Only the room's host may kick.")
        if self.status != "waiting":
            raise Refused(ErrorCode.ALREADY_STARTED, "Nobody can be kicked once the game starts.")
        if not 0 <= seat < len(self.seats):
            raise Refused(
                ErrorCode.NO_SUCH_SEAT, f"Room {self.id} has seats 0-{len(self.seats) - 1}."
            )
        gone = self.seats[seat].user
        await self._stored(self._free(seat))
        seat_kicked(self.id, seat, gone, by=peer.user)
        for other in self.peers:
            if gone is not None and other.user == gone:
                # ``kicked`` drops the seat's copy; they stay on as a spectator, so the public
                # view follows at once.
                other.send(Kicked(room=self.id, seat=seat))
                self._send_snapshot(other, None)
        self._changed()

    # -- starting -------------------------------------------------------------------------------

    async def begin(self, peer: Peer | None) -> None:
        """Start the game (the host asks, or a room with no humans starts itself)."""
        if peer is not None and peer.user != self.host:
            raise Refused(ErrorCode.NOT_HOST, "Only the room's host may start the game.")
        if self.status != "waiting":
            raise Refused(ErrorCode.ALREADY_STARTED, "The game has already started.")
        check_start(self.seats, self.host)
        self.status = "playing"
        self.started = self.stepped_at = time.time()
        self._deal()
        self.meta["bots_at_start"] = sum(seat.kind == "bot" for seat in self.seats)
        await self._stored(self._update(status="playing", started=self.started, meta=self.meta))
        if self.closed:  # halted while the start committed: its next owner deals and plays it
            return
        for other, viewer in self.peers.items():
            self._send_snapshot(other, viewer)
        self._changed()
        self.hub.bots.start_room(self)
        self.absent_humans()
        log.info("room_started", by=peer.user if peer is not None else None,
                 humans=sum(seat.kind == "human" for seat in self.seats),
                 bots=sum(seat.kind == "bot" for seat in self.seats))  # fmt: skip
        self._after_change()

    def absent_humans(self) -> None:
        """Start the grace period of every seated person not connected now."""
        connected = {peer.user for peer in self.peers}
        for seat, slot in enumerate(self.seats):
            if slot.kind == "human" and slot.user not in connected:
                self.hub.bots.human_gone(self, seat)

    def _deal(self) -> None:
        specs = seat_specs([seat.to_wire() for seat in self.seats])
        self.state = first_state(self.game, self.options, specs, self.seed)
        self._refresh_views()

    def restore(self, records: list[Record]) -> None:
        """Rebuild a live room from its stored log (server start)."""
        self._deal()
        for record in records:
            for data in record.events:
                self.state = self.game.evolve(self.state, from_wire(self.game.events, data))
            self.seq = record.seq
            self.position = record.position + len(record.events)
            self.stepped_at = record.at
        self._refresh_views()

    # -- playing --------------------------------------------------------------------------------

    async def act(
        self,
        peer: Peer | None,
        seat: int,
        data: Mapping[str, Any],
        ref: int | None = None,
        seen: int | None = None,
    ) -> Rejected | None:
        """Decide one command from ``seat`` (see :meth:`act_batch`); returns the rules'
        refusal, if any, and raises :class:`Refused` for a protocol-level one."""
        answer: asyncio.Future[Rejected | None] = asyncio.get_running_loop().create_future()
        await self.act_batch([(QueuedAct(peer, seat, data, ref, seen), answer)])
        return answer.result()

    async def act_batch(self, batch: list[tuple[QueuedAct, asyncio.Future[Any]]]) -> None:
        """Decide commands in order (:func:`~server.batch.decide_batch`), commit the accepted
        ones' records together, then apply them and tell every viewer.

        Each command's sender gets ``accepted`` once its record is durable and the batch's
        delta is out (one per viewer, covering every record of the batch), or ``rejected``
        with the rule's or the room's code and sentence (not started, stale), all in the
        commands' order; its future gets the refusal (or ``None``). For a command without a
        sender (a bot's), a room's refusal is raised as :class:`Refused` from the future
        instead. Commands queued together cost one commit, one pass of the room's task and one
        frame per viewer, not one each: under load a room's four racers are decided in one go.
        """
        started = time.perf_counter()
        decided = decide_batch(
            self.game,
            self._patcher,
            self.state,
            self.seq,
            self.position,
            self.seed,
            self.status != "waiting",
            self.fanout.legal,
            self.fanout.legal_since,
            [act for act, _ in batch],
            time.time(),
        )
        if decided.records:
            await self._commit(decided.records, decided.steps, decided.changed)
        for (act, answer), outcome in zip(batch, decided.outcomes, strict=True):
            if isinstance(outcome, Refused) and act.peer is None:
                if not answer.done():
                    answer.set_exception(outcome)
                continue
            if isinstance(outcome, Rejected | Refused):  # a sender hears it here, in order
                self.hub.metrics.rejections.labels(outcome.code).inc()
                if act.peer is not None:
                    act.peer.send(
                        CommandRejected(
                            ref=act.ref, room=self.id, code=outcome.code, message=outcome.message
                        )
                    )
                if not answer.done():
                    answer.set_result(outcome)
                continue
            if act.peer is not None:
                act.peer.send_frame(encode_accepted(act.ref, self.id, outcome))
            if not answer.done():
                answer.set_result(None)
        if decided.records:
            # Every command of the batch took as long as the batch.
            self._commands.inc(len(decided.records))
            self.hub.metrics.latency.observe(time.perf_counter() - started, len(decided.records))

    async def tick(self) -> None:
        """Apply whatever the engine's clock says is due."""
        if self.status != "playing":
            return
        now = time.time()
        deadline = self.game.deadline(self.state)
        if deadline is None or deadline > now:
            self._arm()
            return
        events = self.game.tick(self.state, now, chance(self.seed, self.position))
        record = Record(
            seq=self.seq + 1,
            position=self.position,
            seat=None,
            command=None,
            at=now,
            events=tuple(to_wire(event) for event in events),
        )
        step = make_step(self.game, self._patcher, self.state, events)
        await self._commit([record], [step], step.changed)

    async def _commit(
        self, records: list[Record], steps: list[Step], changed: Collection[int] | None
    ) -> None:
        """Append ``records`` durably (all or none), then apply each step and tell every
        viewer; ``changed`` are the seats whose legal commands the steps may have changed
        (``None``: any)."""
        appended = time.perf_counter()
        try:
            await self.hub.store.append(self.id, *records, epoch=self.lease_epoch)
        except AppendRefused as refusal:
            # Fenced, or (leased) a log another node appended to: either way not this node's.
            if isinstance(refusal, Fenced) or self.lease_epoch is not None:
                raise _Lost from None
            raise
        self.hub.metrics.append.observe(time.perf_counter() - appended)
        # Durable: from here a failure cannot be answered as a refusal, so it closes the room
        # (it is rebuilt from its log on the next start).
        try:
            for step, record in zip(steps, records, strict=True):
                self.state = step.after
                self.seq = record.seq
                self.position = record.position + len(step.events)
                self.stepped_at = record.at
            self._refresh_views(steps, changed)
            self._after_change()
        except Exception as error:
            raise _Broken("a committed record could not be applied") from error

    def _after_change(self) -> None:
        outcome = self.game.outcome(self.state)
        if outcome is not None and self.status == "playing":
            self._finish()
            return
        if self.closed:  # halted while this step committed: the next owner arms its own
            return
        self._arm()
        self.hub.bots.poke(self)

    def _arm(self) -> None:
        """Set the room's one timer for the engine's next deadline."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.game.deadline(self.state) if self.status == "playing" else None
        if deadline is None:
            return
        delay = max(0.0, deadline - time.time())
        loop = asyncio.get_running_loop()
        # The clock's own context: a tick is nobody's request (see _acting).
        self._timer = loop.call_later(delay, self._timer_fired, context=contextvars.Context())

    def _timer_fired(self) -> None:
        self._timer = None
        if self.closed:
            return
        self.hub.spawn(self.call(self.tick))

    def _finish(self) -> None:
        self.status = "finished"
        self.finished = time.time()
        outcome = self.game.outcome(self.state)
        assert outcome is not None
        self.forfeits = sorted(set(self.meta.get("left", ())) | self._stand_ins())
        wire = outcome_to_wire(outcome)
        # What the lobby shows of the result, kept with the room for after it is unloaded.
        self.meta["result"] = {
            "winners": list(wire["winners"]),
            "scores": list(wire["scores"]),
            "reason": wire["reason"],
        }
        self._update(status="finished", finished=self.finished, meta=self.meta)
        self.hub.bots.stop_room(self)
        over = GameOver(
            room=self.id,
            outcome=OutcomeInfo(
                ranks=tuple(wire["ranks"]),
                scores=tuple(wire["scores"]),
                winners=tuple(wire["winners"]),
                reason=wire["reason"],
                tiebreak=wire["tiebreak"],
                details=wire["details"],
            ),
            seed=self.seed.hex(),
            salt=self.salt.hex(),
            commitment=self.commitment,
        )
        frame = self.over = encode(over)
        for peer in self.peers:
            peer.send_frame(frame)
        log.info(
            "room_finished",
            reason=wire["reason"],
            winners=list(wire["winners"]),
            seq=self.seq,
            seconds=round(self.finished - (self.started or self.finished), 3),
        )
        self.hub.game_finished(self, outcome)
        self._changed()

    def changed_ratings(self) -> None:
        """The seats' ratings changed (a rated game ended): tell the viewers and the lobby."""
        if not self.closed:
            self._changed()

    def _stand_ins(self) -> set[int]:
        stand_ins = getattr(self.hub.bots, "stand_ins", None)
        return set() if stand_ins is None else set(stand_ins(self))

    # -- views and deltas -----------------------------------------------------------------------

    def _refresh_views(
        self, steps: Sequence[Step] = (), changed: Collection[int] | None = None
    ) -> None:
        """Bring views up to date (:meth:`Fanout.refresh`); after ``steps`` (the records just
        committed, already applied), send each connection its viewer's delta, or a snapshot
        when its viewer has none. Deltas are made for the viewers someone watches, a bot
        plays, or whose last connection left within the resume window."""
        watched = (
            set(self.peers.values())
            | self.hub.bots.seats_of(self)
            | self.fanout.recently_left(time.monotonic() - self.hub.settings.resume_window)
        )
        frames = self.fanout.refresh(
            self.state, self.seq, len(self.seats), watched, steps, changed, self.stepped_at
        )
        if steps:
            for peer, viewer in self.peers.items():
                frame = frames.get(viewer)
                if frame is not None:
                    peer.send_frame(frame)
                else:
                    self._send_snapshot(peer, viewer)

    def view_for(self, viewer: Viewer) -> Any:
        """The current view of ``viewer`` (built now unless cached); from here on the viewer
        gets deltas."""
        return self.fanout.view_for(self.state, viewer)

    def snapshot(self, viewer: Viewer, ref: int | None = None) -> Snapshot:
        """The full view of ``viewer`` now."""
        view = self.view_for(viewer) if self.status != "waiting" else None
        legal = self.fanout.legal.get(viewer, []) if viewer is not None else []
        return Snapshot(
            ref=ref,
            room=self.id,
            epoch=self.hub.epoch,
            seq=self.seq,
            seat=viewer,
            view=view,
            legal=tuple(legal),
        )

    def _send_snapshot(self, peer: Peer, viewer: Viewer, ref: int | None = None) -> None:
        """The full view, and for a finished game its ``game_over`` again (whoever arrives
        or comes back after the end learns the outcome and the seed reveal)."""
        peer.send(self.snapshot(viewer, ref))
        if self.over is not None:
            peer.send_frame(self.over)

    async def resume(self, peer: Peer, seen: int, epoch: str, ref: int | None) -> None:
        """Send what ``peer`` missed since ``seen``: the kept deltas then ``ok``, or a snapshot
        (:func:`~server.resume.plan_resume` decides)."""
        seat = self.seat_of(peer.user)
        attached = peer in self.peers and self.peers[peer] == seat
        self.peers[peer] = seat
        if seat is not None:
            self.hub.bots.human_back(self, seat)
        frames = plan_resume(self.fanout.history, seen, self.seq, seat, epoch == self.hub.epoch)
        if frames is None:
            self._send_snapshot(peer, seat, ref)
        else:
            for frame in frames:
                peer.send_frame(frame)
            peer.send(Ok(ref=ref, room=self.id))
            if self.over is not None:
                peer.send_frame(self.over)
        if not attached:  # a connection already here as this viewer changes nobody's summary
            self._changed(crowd=True)

    async def send_snapshot(self, peer: Peer, ref: int | None) -> None:
        """Answer ``get_snapshot``: the full view of the viewer ``peer`` is attached as, and
        nothing else (no room update, no change to seats, bots or grace periods)."""
        if peer not in self.peers:
            raise Refused(ErrorCode.NOT_IN_ROOM, f"Join or watch room {self.id!r} first.")
        peer.send(self.snapshot(self.peers[peer], ref))

    # -- chat -----------------------------------------------------------------------------------

    async def chat(self, peer: Peer, text: str) -> None:
        """Players talk to everyone in the room; spectators only to spectators
        (:class:`~server.chat.Chat`); nobody the operator muted here."""
        if peer.user in self.meta.get("muted", ()):
            raise Refused(ErrorCode.MUTED, "The server's operator muted you in this room's chat.")
        line = self.chat_log.line(peer.user, peer.name, self.seat_of(peer.user), text, time.time())
        await self._stored()  # said only in the room its owner plays
        frame = encode(line)
        for other, viewer in self.peers.items():
            if Chat.hears(line, viewer, other.muted):
                other.send_frame(frame)

    # -- closing --------------------------------------------------------------------------------

    async def expire(self) -> None:
        """Close an idle waiting room (housekeeping)."""
        self._close("expired")

    def attended_now(self) -> bool:
        """Whether anyone is here: a connection watching or seated, or a seated human still
        within their grace period (a stand-in bot is not anyone)."""
        if self.peers:
            return True
        return any(
            seat.kind == "human" and self.hub.bots.in_grace(self, n)
            for n, seat in enumerate(self.seats)
        )

    async def abandon(self) -> None:
        """Stop a playing room that nobody attends (housekeeping): its log stays, for the
        retention period, but no bot plays on for no one."""
        if self.attended_now() or self.status != "playing":
            return
        self.status = "abandoned"
        self._update(status="abandoned", finished=time.time())
        self._close("abandoned")

    # -- the operator's actions (server/admin.py) ---------------------------------------------

    async def close_by_operator(self, reason: str) -> None:
        """Close the room for good at the operator's word: recorded as ``aborted`` (the game
        has no result; its log is kept), every member told why."""
        if self.status not in ("waiting", "playing"):
            raise Refused(ErrorCode.NOT_FINISHED, f"Room {self.id} is {self.status} already.")
        self.status = "aborted"
        self.meta["closed_by_operator"] = reason
        stored = self._update(status="aborted", finished=time.time(), meta=self.meta)
        said = f": {reason.rstrip('.')}." if reason else "."
        message = f"The server's operator closed this room{said}"
        self._close("closed_by_operator", message, by="operator", said=reason)
        await stored  # the operator's answer means it is recorded

    async def kick_by_operator(self, seat: int, reason: str) -> tuple[str, str | None]:
        """Take ``seat`` from the person holding it: before the start the seat opens; during
        the game a bot takes it at once and plays it to the end. Their connections stay as
        spectators (``kicked``, then the public view); they may not sit in this room again
        (kept in the room's meta). Returns the removed user and the bot now playing the seat
        (``None`` before the start)."""
        if not 0 <= seat < len(self.seats):
            raise Refused(
                ErrorCode.NO_SUCH_SEAT, f"Room {self.id} has seats 0-{len(self.seats) - 1}."
            )
        slot = self.seats[seat]
        if slot.kind != "human" or slot.user is None:
            raise Refused(ErrorCode.NO_SUCH_SEAT, f"Seat {seat} is not held by a person.")
        if self.status not in ("waiting", "playing"):
            raise Refused(ErrorCode.NOT_FINISHED, f"Room {self.id} is {self.status}.")
        gone = slot.user
        self.meta["kicked"] = sorted({*self.meta.get("kicked", ()), gone})
        said = f": {reason.rstrip('.')}." if reason else "."
        shown = seat + 1  # people count seats from 1
        if self.status == "waiting":
            self._free(seat)
            message = f"The server's operator removed you from seat {shown}{said}"
        else:
            bot = self.game.default_bot
            self.seats[seat] = Seat("bot", slot.name, None, bot, dict(slot.choices), True)
            self._persist_seats()
            self.hub.bots.human_back(self, seat)  # no grace to wait out: the bot plays now
            self.hub.bots.stop_seat(self, seat)  # a stand-in for one move would stop after it
            self.hub.bots.start_room(self)
            message = f"The server's operator removed you from seat {shown}{said} A bot plays on."
        for other in list(self.peers):
            if other.user == gone:
                self.peers[other] = None
                said = message if speaks(other, OPERATOR_VERSION) else ""
                other.send(Kicked(room=self.id, seat=seat, message=said))
                self._send_snapshot(other, None)
        self._update(meta=self.meta)
        self._changed()
        return gone, self.seats[seat].bot

    def mute_by_operator(self, user: str, muted: bool) -> None:
        """Stop (or let again) ``user`` saying anything in this room's chat; kept in the
        room's meta, so it holds after a restart or a move to another node."""
        users = set(self.meta.get("muted", ()))
        users = users | {user} if muted else users - {user}
        self.meta["muted"] = sorted(users)
        self._update(meta=self.meta)

    def let_go(self) -> None:
        """Another node owns this room now (its lease was lost, or an append was fenced):
        stop its timer and bots, answer what is queued ``moved`` to the new owner (in the
        background: :meth:`move_on`), tell its clients to reconnect there
        (:meth:`Peer.room_moved`) and forget it here. Nothing is written: the log is the new
        owner's."""
        if self.closed:
            return
        log.info("room_let_go", room=self.id, epoch=self.lease_epoch)
        self.halt(moving=True)
        self.hub.spawn(self.move_on())

    async def move_on(self) -> None:
        """For a room that moved to another node: answer each request still queued as one
        under way is (:meth:`elsewhere`; a bot's command is refused), then send the room's
        connections on there."""
        elsewhere = await self.elsewhere()
        self._mailbox.fail_all(
            lambda work: _left() if isinstance(work, QueuedAct) and work.peer is None else elsewhere
        )
        self.send_on(elsewhere.url if isinstance(elsewhere, Moved) else None)

    def halt(self, moving: bool = False) -> None:
        """Stop playing here: timer and bots stopped, nothing more run; what is queued is
        refused (``shutting_down``) unless the room is ``moving`` to another node (then
        :meth:`move_on` answers it), and so is what comes later (``try_again`` while it
        moves). Its connections stay attached until :meth:`send_on`."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.hub.bots.stop_room(self)
        if moving:
            self._refusal = Refused(
                ErrorCode.TRY_AGAIN, f"Room {self.id} is moving to another server; try again."
            )
        else:
            self._refusal = Refused(ErrorCode.SHUTTING_DOWN, "The server is shutting down.")
            self._mailbox.refuse_all(ErrorCode.SHUTTING_DOWN, "The server is shutting down.")
        if (
            self._task is not None
            and self._task is not asyncio.current_task()
            and not self._delivering
        ):
            # Told from outside (a lease not renewed) while the task waits for work: it ends
            # too. A request under way runs to its end instead and is answered: its write is
            # either fenced (then ``moved``) or committed before the new owner read the log.
            self._task.cancel()

    def send_on(self, url: str | None = None) -> None:
        """Tell the connections of a halted room to go on where it is played now (``url``,
        when known; :meth:`Peer.room_moved`), and forget it here."""
        for peer in list(self.peers):
            peer.room_moved(self.id, url)
        self.peers.clear()
        self.hub.room_lost(self)

    def _close(self, reason: str, message: str = "", by: str | None = None, **more: Any) -> None:
        """Close the room for good (``by`` whom: a user id or ``operator``; ``None``: the
        server): tell its viewers (why, in ``message``, to those whose protocol has it), answer
        what is queued, forget it. ``more`` goes in the ``room_closed`` line."""
        room_closed(self.id, reason, by=by, status=self.status, **more)
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.hub.bots.stop_room(self)
        self._mailbox.refuse_all(ErrorCode.NO_SUCH_ROOM, f"Room {self.id} closed ({reason}).")
        frame = encode(RoomClosed(room=self.id, reason=reason))
        told = encode(RoomClosed(room=self.id, reason=reason, message=message))
        for peer in self.peers:
            peer.send_frame(told if speaks(peer, OPERATOR_VERSION) else frame)
        self.peers.clear()
        self.hub.room_closed(self)


#: The log context keys of whoever queues a request (see _asker).
_ASKER_KEYS = ("user", "connection", "seat", "bot")


def _asker() -> dict[str, Any]:
    """The log context of whoever queues a request now: a connection's ``user`` and
    ``connection``, or a bot's ``seat`` and ``bot``."""
    context = structlog.contextvars.get_contextvars()
    return {key: context[key] for key in _ASKER_KEYS if key in context}


@attrs.frozen
class _Request:
    """A request for the room's task (``work``) with its asker's log context, which the room
    binds while it runs (:meth:`Room._acting`)."""

    work: Callable[[], Awaitable[Any]]
    asker: dict[str, Any]

    def __call__(self) -> Awaitable[Any]:
        return self.work()


class _Broken(Exception):
    """The room's state can no longer be trusted: it closes."""


class _Lost(Exception):
    """The room's lease is another node's now: this node lets it go."""


def _left() -> Refused:
    """What a bot's command under way is answered when the room moves to another node (the
    bot stops here; the new owner seats its own)."""
    return Refused(ErrorCode.SHUTTING_DOWN, "The room moved to another server.")
