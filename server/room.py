"""A room: one asyncio task that owns a game, its seats, its log and its viewers.

Everything that changes a room runs inside the room's task, one request at a time, so a room
never needs a lock: connections hand it requests with :meth:`Room.call` and await the answer.
A game command is decided by the engine, its record appended to the store and committed, and
only then applied, acknowledged and turned into one delta per viewer (each seat's own view,
and one public view shared by every spectator). Commands waiting in the queue together are
decided, committed and sent as one batch: one commit, one delta per viewer.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

import attrs
import structlog

from engine.core import (
    Event,
    Game,
    Rejected,
    SeatSpec,
    ViewPatcher,
    chance,
    from_wire,
    outcome_to_wire,
    to_wire,
)
from protocol.codec import encode, encode_accepted, encode_delta
from protocol.delta import diff, op_to_wire
from protocol.errors import ErrorCode
from protocol.messages import (
    ChatMessage,
    CommandRejected,
    GameOver,
    Kicked,
    Message,
    Ok,
    OutcomeInfo,
    RoomClosed,
    RoomSummary,
    RoomUpdate,
    SeatInfo,
    Snapshot,
)
from server.store import Record, RoomRow

if TYPE_CHECKING:
    from server.hub import Hub

__all__ = ["Peer", "Refused", "Room", "Seat"]

log = structlog.get_logger("lumin.room")

T = TypeVar("T")


class Refused(Exception):
    """A request the room will not honour, with a protocol error code and a sentence."""

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code = code.value if isinstance(code, ErrorCode) else code
        self.message = message


class Peer(Protocol):
    """One client connection as a room sees it."""

    user: str
    name: str
    #: The client's address (for the per-address limits).
    address: str
    muted: set[str]

    def send(self, message: Message) -> None:
        """Queue a message for this client (never blocks)."""
        ...

    def send_frame(self, frame: bytes) -> None:
        """Queue an already encoded frame for this client (never blocks)."""
        ...


@attrs.define
class Seat:
    """One seat: open, held by a human (``user``) or played by a bot (``bot``)."""

    kind: str = "open"  # "open", "human" or "bot"
    name: str | None = None
    user: str | None = None
    bot: str | None = None
    choices: dict[str, Any] = attrs.field(factory=dict)
    ready: bool = False

    def to_wire(self) -> dict[str, Any]:
        return attrs.asdict(self)

    def info(self, n: int, connected: bool) -> SeatInfo:
        """The lobby's view of this seat, as seat ``n``."""
        return SeatInfo(
            seat=n,
            kind=self.kind,  # type: ignore[arg-type]
            name=self.name,
            user=self.user,
            bot=self.bot,
            choices=self.choices,
            ready=self.ready,
            connected=connected,
        )

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Seat:
        return cls(**data)


@attrs.define
class _Chatter:
    """A person's recent chat times, for the rate limit."""

    times: collections.deque[float] = attrs.field(factory=lambda: collections.deque(maxlen=64))


class Room:
    """See the module docstring. Built by the :class:`~server.hub.Hub`, which owns every room."""

    def __init__(self, hub: Hub, row: RoomRow, game: Game) -> None:
        self.hub = hub
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
        self.finished = row.finished
        self.meta: dict[str, Any] = dict(row.meta)
        self.touched = time.time()
        #: The creator's address, for the per-address cap on open rooms (memory only: after a
        #: restart rooms count against their host identity alone).
        self.address: str | None = None
        #: ``time.monotonic()`` when a human was last seated (connected or within their
        #: grace) or anyone watched; a room rebuilt at start-up starts from then.
        self.attended = time.monotonic()
        # The game, once started.
        self.first: Any = None
        self.state: Any = None
        self.seq = 0
        self.position = 0
        # Viewers: every connection in the room, with the seat it sees (None: spectator).
        self.peers: dict[Peer, int | None] = {}
        #: Viewers nobody watches now, with the ``time.monotonic()`` their last connection
        #: left: their deltas are still made for the ``resume_window`` setting, so a quick
        #: reconnect resumes with deltas instead of a snapshot.
        self.left: dict[int | None, float] = {}
        self.views: dict[int | None, Any] = {}
        #: Viewers whose current view has been sent (they get deltas), and a cache of views.
        self.viewers: set[int | None] = set()
        self._patcher = game if isinstance(game, ViewPatcher) else None
        #: The encoded ``game_over`` once the game has ended.
        self.over: bytes | None = None
        self._commands = hub.metrics.commands.labels(game.id)  # looked up once, not per command
        self.legal: dict[int, list[dict[str, Any]]] = {}
        self.legal_since: dict[int, int] = {}
        #: Recent deltas: (base, seq, each viewer's frame), one entry per committed batch.
        self.history: collections.deque[tuple[int, int, dict[int | None, bytes]]] = (
            collections.deque(maxlen=hub.settings.history)
        )
        self.chatters: dict[str, _Chatter] = {}
        self._queue: asyncio.Queue[_Item] = asyncio.Queue()
        #: A request taken from the queue while gathering a batch of acts, run next.
        self._carry: _Item | None = None
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._update_timer: asyncio.TimerHandle | None = None
        self._updated = 0.0  # time.monotonic() of the last room_update
        self.closed = False
        self.on_change: list[Callable[[Room], None]] = []

    # -- the room's task ------------------------------------------------------------------------

    def start_task(self) -> None:
        """Start draining requests; called once the room is registered."""
        self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")

    async def _run(self) -> None:
        structlog.contextvars.bind_contextvars(room=self.id, game=self.game.id)
        while not self.closed:
            item = self._carry or await self._queue.get()
            self._carry = None
            work, answer = item
            if answer.cancelled():
                continue
            answers = [answer]
            if isinstance(work, QueuedAct):
                # Every act already queued behind this one is decided now too, and the batch
                # is committed once (see act_batch).
                batch: list[tuple[QueuedAct, asyncio.Future[Any]]] = [(work, answer)]
                while not self._queue.empty():
                    queued = self._queue.get_nowait()
                    if not isinstance(queued[0], QueuedAct):
                        self._carry = queued
                        break
                    batch.append((queued[0], queued[1]))
                answers = [future for _, future in batch]
                work = functools.partial(self.act_batch, batch)
            try:
                result = await work()
            except Refused as refusal:
                for future in answers:
                    if not future.done():
                        future.set_exception(refusal)
            except Exception as error:  # an engine or server bug stays in this room
                log.exception("room_failure")
                for future in answers:
                    if not future.done():
                        future.set_exception(
                            Refused(ErrorCode.INTERNAL, "The room failed; see logs.")
                        )
                if isinstance(error, _Broken):
                    self.hub.metrics.room_failures.inc()
                    self._close("internal_error")
                    return
            else:
                if not answer.done():
                    answer.set_result(result)

    async def call(self, work: Callable[[], Awaitable[T]] | QueuedAct) -> T:
        """Run ``work`` inside the room's task, after whatever is already queued; an
        :class:`QueuedAct` is decided by :meth:`act_batch` (its result is the rules' refusal, if
        any), together with the acts queued right behind it."""
        return await self.submit(work)

    def submit(self, work: Callable[[], Awaitable[T]] | QueuedAct) -> asyncio.Future[T]:
        """Queue ``work`` as :meth:`call` does, without waiting: the future gets its answer.
        Raises :class:`Refused` (``no_such_room``) when the room is closed."""
        if self.closed:
            raise Refused(ErrorCode.NO_SUCH_ROOM, f"Room {self.id} is closed.")
        answer: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((work, answer))
        return answer

    async def stop(self) -> None:
        """Stop the room (server shutdown or unloading): queued requests are answered with
        ``shutting_down`` instead of being run, and the task ends."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.hub.bots.stop_room(self)
        self._fail_queued(ErrorCode.SHUTTING_DOWN, "The server is shutting down.")
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    # -- summaries ------------------------------------------------------------------------------

    def summary(self) -> RoomSummary:
        """What the lobby shows of this room."""
        connected = {peer.user for peer in self.peers}
        seats = tuple(
            seat.info(n, seat.kind == "bot" or (seat.user is not None and seat.user in connected))
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
        )

    def seat_of(self, user: str) -> int | None:
        """The seat ``user`` holds here, if any."""
        for n, seat in enumerate(self.seats):
            if seat.kind == "human" and seat.user == user:
                return n
        return None

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
        frame = encode(RoomUpdate(info=self.summary()))
        for peer in self.peers:
            peer.send_frame(frame)

    def _persist_seats(self) -> None:
        self.hub.store.update_room(self.id, seats=[seat.to_wire() for seat in self.seats])

    # -- joining, watching, leaving (waiting room and live) -------------------------------------

    async def join(self, peer: Peer, seat: int, code: str | None) -> None:
        """Seat ``peer``'s person at ``seat``: an open seat before the start, their own seat at
        any time (a reconnect), or a bot seat at any time (a human takes it over). A private
        room's code is needed except to reclaim one's own seat."""
        if self.seat_of(peer.user) != seat:
            self._check_code(code)
        if not 0 <= seat < len(self.seats):
            raise Refused(
                ErrorCode.NO_SUCH_SEAT, f"Room {self.id} has seats 0-{len(self.seats) - 1}."
            )
        slot = self.seats[seat]
        held = self.seat_of(peer.user)
        if slot.kind == "human" and slot.user == peer.user:
            pass  # reclaiming one's own seat
        elif held is not None:
            raise Refused(ErrorCode.SEAT_TAKEN, f"You already hold seat {held} here.")
        elif slot.kind == "human":
            raise Refused(ErrorCode.SEAT_TAKEN, f"Seat {seat} is held by {slot.name}.")
        elif slot.kind == "open" and self.status != "waiting":
            raise Refused(ErrorCode.ALREADY_STARTED, "The game has started; open seats are closed.")
        elif self.status == "finished":
            raise Refused(ErrorCode.ALREADY_STARTED, "The game is over.")
        else:
            was_bot = slot.kind == "bot"
            slot.kind, slot.user, slot.name, slot.ready = "human", peer.user, peer.name, False
            if was_bot:
                slot.bot = None
                self.hub.bots.stop_seat(self, seat)
            self._persist_seats()
        self.hub.bots.human_back(self, seat)
        self.peers[peer] = seat
        self._send_snapshot(peer, seat)
        self._changed()

    async def watch(self, peer: Peer, code: str | None) -> None:
        """Let ``peer`` watch: a seated person sees their seat's view, others the public one."""
        self._check_code(code)
        seat = self.seat_of(peer.user)
        self.peers[peer] = seat
        if seat is not None:
            self.hub.bots.human_back(self, seat)
        self._send_snapshot(peer, seat)
        self._changed(crowd=True)

    def _check_code(self, code: str | None) -> None:
        if self.private and code != self.code:
            raise Refused(ErrorCode.BAD_CODE, "This private room needs its code.")

    def _gone(self, peer: Peer) -> int | None:
        """Forget ``peer``; returns the viewer it saw, noting when that viewer's last
        connection left."""
        if peer not in self.peers:
            return None
        viewer = self.peers.pop(peer)
        if viewer not in self.peers.values():
            self.left[viewer] = time.monotonic()
        return viewer

    def _recently_left(self) -> set[int | None]:
        """The viewers whose last connection left within the resume window (see ``left``)."""
        if not self.left:
            return set()
        since = time.monotonic() - self.hub.settings.resume_window
        for viewer in [v for v, at in self.left.items() if at < since]:
            del self.left[viewer]
        return set(self.left)

    async def leave(self, peer: Peer) -> None:
        """Before the start, free the person's seat; after it, only stop watching (the seat
        stays theirs; a bot plays it once the grace period runs out)."""
        seat = self.seat_of(peer.user)
        self._gone(peer)
        if seat is not None and self.status == "waiting":
            self._free(seat)
        elif seat is not None:
            self.disconnected(peer.user, seat)
        self._changed()

    def _free(self, seat: int) -> None:
        """Open a seat again before the start, keeping its per-seat choices; every connection
        that saw it goes back to the public view, so it never sees the next occupant's."""
        self.seats[seat] = Seat(choices=self.seats[seat].choices)
        for other, viewer in self.peers.items():
            if viewer == seat:
                self.peers[other] = None
        self._persist_seats()

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
        self._persist_seats()
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
        self._free(seat)
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
        for n, seat in enumerate(self.seats):
            if seat.kind == "open":
                raise Refused(ErrorCode.NOT_READY, f"Seat {n} is still open.")
            if seat.kind == "human" and not seat.ready and seat.user != self.host:
                raise Refused(ErrorCode.NOT_READY, f"{seat.name} (seat {n}) is not ready.")
        self.status = "playing"
        self.started = time.time()
        self._deal()
        self.hub.store.update_room(self.id, status="playing", started=self.started)
        for other, viewer in self.peers.items():
            self._send_snapshot(other, viewer)
        self._changed()
        self.hub.bots.start_room(self)
        self.absent_humans()
        self._after_change()

    def absent_humans(self) -> None:
        """Start the grace period of every seated person not connected now."""
        connected = {peer.user for peer in self.peers}
        for seat, slot in enumerate(self.seats):
            if slot.kind == "human" and slot.user not in connected:
                self.hub.bots.human_gone(self, seat)

    def _deal(self) -> None:
        specs = [
            SeatSpec(name=seat.name or f"Seat {n}", bot=seat.bot, choices=seat.choices)
            for n, seat in enumerate(self.seats)
        ]
        self.first = self.game.setup(self.options, specs, chance(self.seed, "setup"))
        self.state = self.first
        self._refresh_views()

    def restore(self, records: list[Record]) -> None:
        """Rebuild a live room from its stored log (server start)."""
        self._deal()
        for record in records:
            for data in record.events:
                self.state = self.game.evolve(self.state, from_wire(self.game.events, data))
            self.seq = record.seq
            self.position = record.position + len(record.events)
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
        """Decide commands in order, each against the state the ones before it made, commit
        the accepted ones' records together, then apply them and tell every viewer.

        Each command's sender gets ``accepted`` once its record is durable and the batch's
        delta is out (one per viewer, covering every record of the batch), or ``rejected``
        with the rule's or the room's code and sentence (not started, stale), all in the
        commands' order; its future gets the refusal (or ``None``). For a command without a
        sender (a bot's), a room's refusal is raised as :class:`Refused` from the future
        instead. Commands queued together cost one commit, one pass of the room's task and one
        frame per viewer, not one each: under load a room's four racers are decided in one go.
        """
        started = time.perf_counter()
        now = time.time()
        state, seq, position = self.state, self.seq, self.position
        steps: list[_Step] = []  # one per record
        records: list[Record] = []
        outcomes: list[Rejected | Refused | int] = []  # per command: refusal or its seq
        # Seats whose legal commands the steps so far may have changed (None: any seat).
        changed: set[int] | None = set()
        for act, _ in batch:
            try:
                if self.status == "waiting":
                    raise Refused(ErrorCode.NOT_STARTED, "The game has not started yet.")
                since = self.legal_since.get(act.seat, 0)
                # Commands decided earlier in this batch may have changed this seat's legal
                # commands, as if they had been committed one by one.
                if (
                    steps
                    and act.seen is not None
                    and (changed is None or act.seat in changed)
                    and self.game.legal(state, act.seat) != self.legal.get(act.seat)
                ):
                    since = seq
                if act.seen is not None and act.seen < since:
                    raise Refused(
                        ErrorCode.STALE,
                        f"Your legal commands changed at seq {since}; you acted on seq {act.seen}.",
                    )
                if act.seen is not None and act.seen > seq:
                    raise Refused(
                        ErrorCode.STALE,
                        f"You acted on seq {act.seen}, which this room has not reached (it is at"
                        f" {seq}); resume to get its view.",
                    )
                command = from_wire(self.game.commands, act.data)
                rng = chance(self.seed, position)
                events = self.game.decide(state, act.seat, command, now, rng)
            except (Rejected, Refused) as refusal:
                outcomes.append(refusal)
                continue
            records.append(
                Record(
                    seq=seq + 1,
                    position=position,
                    seat=act.seat,
                    command=to_wire(command),
                    at=now,
                    events=tuple(to_wire(event) for event in events),
                )
            )
            step = self._step(state, events)
            steps.append(step)
            state = step.after
            if step.changed is None:
                changed = None
            elif changed is not None:
                changed.update(step.changed)
            seq += 1
            position += len(events)
            outcomes.append(seq)
        if records:
            await self._commit(records, steps, changed)
        for (act, answer), outcome in zip(batch, outcomes, strict=True):
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
        if records:
            # Every command of the batch took as long as the batch.
            self._commands.inc(len(records))
            self.hub.metrics.latency.observe(time.perf_counter() - started, len(records))

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
        step = self._step(self.state, events)
        await self._commit([record], [step], step.changed)

    def _step(self, before: Any, events: list[Event]) -> _Step:
        """``events`` applied to ``before``, with the seats whose legal commands they may
        change when the game says (``engine.core.ViewPatcher.legal_seats``)."""
        after = before
        for event in events:
            after = self.game.evolve(after, event)
        changed = (
            self._patcher.legal_seats(before, after, events) if self._patcher is not None else None
        )
        return _Step(before, events, after, changed)

    async def _commit(
        self, records: list[Record], steps: list[_Step], changed: Collection[int] | None
    ) -> None:
        """Append ``records`` durably (all or none), then apply each step and tell every
        viewer; ``changed`` are the seats whose legal commands the steps may have changed
        (``None``: any)."""
        appended = time.perf_counter()
        await self.hub.store.append(self.id, *records)
        self.hub.metrics.append.observe(time.perf_counter() - appended)
        # Durable: from here a failure cannot be answered as a refusal, so it closes the room
        # (it is rebuilt from its log on the next start).
        try:
            for step, record in zip(steps, records, strict=True):
                self.state = step.after
                self.seq = record.seq
                self.position = record.position + len(step.events)
            self._refresh_views(steps, changed)
            self._after_change()
        except Exception as error:
            raise _Broken("a committed record could not be applied") from error

    def _after_change(self) -> None:
        outcome = self.game.outcome(self.state)
        if outcome is not None and self.status == "playing":
            self._finish()
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
        self._timer = loop.call_later(delay, self._timer_fired)

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
        self.hub.store.update_room(self.id, status="finished", finished=self.finished)
        self.hub.bots.stop_room(self)
        wire = outcome_to_wire(outcome)
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
        self.hub.game_finished(self, outcome)
        self._changed()

    # -- views and deltas -----------------------------------------------------------------------

    def _viewers(self) -> list[int | None]:
        return [None, *range(len(self.seats))]

    def _refresh_views(
        self, steps: Sequence[_Step] = (), changed: Collection[int] | None = None
    ) -> None:
        """Bring views up to date; after ``steps`` (the records just committed, already
        applied), send each watched viewer one delta covering all of them.

        Every seat's legal commands are tracked (bots and the stale rule need them), but deltas
        are only made for ``viewers``: those someone watches or a bot plays, whose current view
        has been sent. Others are forgotten and get a snapshot when someone arrives.

        One delta per batch rather than per record: under load a race room commits its four
        racers' slides together, and each viewer gets one frame from ``base`` (the seq before
        the batch) to ``seq`` instead of four (``docs/protocol.md``: a delta may span several
        steps). When the game knows the patch each step's events make
        (``engine.core.ViewPatcher``), the delta is those patches in order: no view is built
        or diffed, and the cached view is dropped (:meth:`view_for` rebuilds it when someone
        needs it; a later diff starts from the view before the batch). Otherwise the delta is
        the diff of the view before the batch and after it. Viewers given the same operations
        and no new legal commands share one encoded frame. Only the ``changed`` seats (all when
        ``None``) are asked for their legal commands again.
        """
        base = self.seq - len(steps)
        frames: dict[int | None, bytes] = {}
        watched = set(self.peers.values()) | self.hub.bots.seats_of(self) | self._recently_left()
        patcher = self._patcher if steps else None
        shared: list[tuple[list[Any], bytes]] = []  # frames without legal, by their operations
        for viewer in self._viewers():
            legal: list[dict[str, Any]] | None = None
            if viewer is not None and (changed is None or viewer in changed):
                fresh = self.game.legal(self.state, viewer)
                if fresh != self.legal.get(viewer):
                    self.legal[viewer] = fresh
                    self.legal_since[viewer] = self.seq
                    legal = fresh
            if viewer not in watched:
                self.viewers.discard(viewer)
                self.views.pop(viewer, None)
                continue
            delta = bool(steps) and viewer in self.viewers
            self.viewers.add(viewer)
            ops: list[Any] | None = None
            if patcher is not None and delta:
                ops = self._patches(patcher, steps, viewer)
            if ops is not None:
                self.views.pop(viewer, None)
            else:
                view = self.game.view(self.state, viewer)
                ops = []
                if delta:
                    old = self.views.get(viewer)
                    if old is None:
                        old = self.game.view(steps[0].before, viewer)
                    ops = [op_to_wire(op) for op in diff(old, view)]
                self.views[viewer] = view
            if not delta:
                continue
            frame = None
            if legal is None:
                frame = next((made for same, made in shared if same == ops), None)
            if frame is None:
                frame = encode_delta(self.id, base, self.seq, ops, legal)
                if legal is None:
                    shared.append((ops, frame))
            frames[viewer] = frame
        if steps:
            self.history.append((base, self.seq, frames))
            for peer, viewer in self.peers.items():
                frame = frames.get(viewer)
                if frame is not None:
                    peer.send_frame(frame)
                else:
                    self._send_snapshot(peer, viewer)

    @staticmethod
    def _patches(
        patcher: ViewPatcher, steps: Sequence[_Step], viewer: int | None
    ) -> list[Any] | None:
        """The patches the game knows for ``steps`` seen by ``viewer``, in order; ``None``
        when it does not know one of them."""
        if len(steps) == 1:
            step = steps[0]
            return patcher.view_patch(step.before, step.after, step.events, viewer)
        ops: list[Any] = []
        for step in steps:
            patch = patcher.view_patch(step.before, step.after, step.events, viewer)
            if patch is None:
                return None
            ops.extend(patch)
        return ops

    def view_for(self, viewer: int | None) -> Any:
        """The current view of ``viewer`` (built now unless cached); from here on the viewer
        gets deltas."""
        self.viewers.add(viewer)
        view = self.views.get(viewer)
        if view is None:
            view = self.views[viewer] = self.game.view(self.state, viewer)
        return view

    def snapshot(self, viewer: int | None, ref: int | None = None) -> Snapshot:
        """The full view of ``viewer`` now."""
        view = self.view_for(viewer) if self.status != "waiting" else None
        legal = self.legal.get(viewer, []) if viewer is not None else []
        return Snapshot(
            ref=ref,
            room=self.id,
            epoch=self.hub.epoch,
            seq=self.seq,
            seat=viewer,
            view=view,
            legal=tuple(legal),
        )

    def _send_snapshot(self, peer: Peer, viewer: int | None, ref: int | None = None) -> None:
        """The full view, and for a finished game its ``game_over`` again (whoever arrives
        or comes back after the end learns the outcome and the seed reveal)."""
        peer.send(self.snapshot(viewer, ref))
        if self.over is not None:
            peer.send_frame(self.over)

    async def resume(self, peer: Peer, seen: int, epoch: str, ref: int | None) -> None:
        """Send what ``peer`` missed since ``seen``: the kept deltas, or a snapshot when they
        are gone or the client's history is from another epoch (a server restart)."""
        seat = self.seat_of(peer.user)
        attached = peer in self.peers and self.peers[peer] == seat
        self.peers[peer] = seat
        if seat is not None:
            self.hub.bots.human_back(self, seat)
        kept = [(base, frames) for base, seq, frames in self.history if seq > seen]
        # A seq inside a batch's delta was never a client's: it too gets a snapshot.
        complete = (bool(kept) and kept[0][0] == seen) or seen == self.seq
        # Deltas are only built for viewers someone watched; any gap means a snapshot.
        complete = complete and all(seat in frames for _, frames in kept)
        # seq 0 names both the empty view before the start and the first view: a snapshot.
        if epoch != self.hub.epoch or not complete or seen > self.seq or seen == 0:
            self._send_snapshot(peer, seat, ref)
        else:
            for _, frames in kept:
                peer.send_frame(frames[seat])
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
        """Players talk to everyone in the room; spectators only to spectators."""
        settings = self.hub.settings
        text = text.strip()
        if not text or len(text) > settings.chat_length:
            raise Refused(
                ErrorCode.CHAT_TOO_LONG,
                f"A chat message has 1 to {settings.chat_length} characters.",
            )
        now = time.time()
        chatter = self.chatters.setdefault(peer.user, _Chatter())
        recent = [t for t in chatter.times if now - t < 10.0]
        if len(recent) >= settings.chat_rate:
            raise Refused(
                ErrorCode.RATE_LIMITED, f"At most {settings.chat_rate} chat messages per 10 s."
            )
        chatter.times.append(now)
        seat = self.seat_of(peer.user)
        channel = "players" if seat is not None else "spectators"
        message = ChatMessage(
            room=self.id,
            channel=channel,
            user=peer.user,
            name=peer.name,
            seat=seat,
            text=text,
            server_time=now,
        )
        frame = encode(message)
        for other, viewer in self.peers.items():
            if peer.user in other.muted:
                continue
            if channel == "spectators" and viewer is not None:
                continue
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
        bots = self.hub.bots
        return any(
            seat.kind == "human" and (self.id, n) in bots.grace for n, seat in enumerate(self.seats)
        )

    async def abandon(self) -> None:
        """Stop a playing room that nobody attends (housekeeping): its log stays, for the
        retention period, but no bot plays on for no one."""
        if self.attended_now() or self.status != "playing":
            return
        log.info("room_abandoned", room=self.id)
        self.status = "abandoned"
        self.hub.store.update_room(self.id, status="abandoned", finished=time.time())
        self._close("abandoned")

    def _fail_queued(self, code: ErrorCode, message: str) -> None:
        if self._carry is not None:
            self._queue.put_nowait(self._carry)
            self._carry = None
        while not self._queue.empty():
            _, answer = self._queue.get_nowait()
            if not answer.done():
                answer.set_exception(Refused(code, message))

    def _close(self, reason: str) -> None:
        """Close the room for good: tell its viewers, answer what is queued, forget it."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.hub.bots.stop_room(self)
        self._fail_queued(ErrorCode.NO_SUCH_ROOM, f"Room {self.id} closed ({reason}).")
        frame = encode(RoomClosed(room=self.id, reason=reason))
        for peer in self.peers:
            peer.send_frame(frame)
        self.peers.clear()
        self.hub.room_closed(self)


#: A request in a room's queue: the work (a coroutine function, or an act) and its answer.
_Item = tuple["Callable[[], Awaitable[Any]] | QueuedAct", "asyncio.Future[Any]"]

#: Seconds between two ``room_update`` broadcasts of one room (see Room._changed).
_UPDATE_INTERVAL = 0.25


@attrs.frozen
class QueuedAct:
    """A command waiting in a room's queue: who sent it (``peer``; bots have none), for which
    seat, the command's wire form, the request's id and the ``seq`` the sender acted on.
    Queued acts are decided together (:meth:`Room.act_batch`)."""

    peer: Peer | None
    seat: int
    data: Mapping[str, Any]
    ref: int | None = None
    seen: int | None = None


class _Step(NamedTuple):
    """One record's effect: the state before, its events, the state after, and the seats whose
    legal commands may have changed (``None``: any)."""

    before: Any
    events: list[Event]
    after: Any
    changed: Collection[int] | None


class _Broken(Exception):
    """The room's state can no longer be trusted: it closes."""


def room_code() -> str:
    """A short code for a private room, easy to read aloud."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(6))
