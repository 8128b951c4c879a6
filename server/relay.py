"""Spectators of a room another node of the cluster plays, fed across nodes through Redis.

On the room's owner, a :class:`RelayPeer` stands for one watching node: it is attached to the
room as one spectator, so it gets exactly what a spectator gets (the snapshot, every public
delta with its ``seq``, room updates, the spectators' chat, ``game_over``, ``room_closed``),
and publishes each frame, in order, on that node's relay channel (:meth:`Cluster.relay`).

On the watching node, a :class:`RemoteRoom` stands in for the room: it keeps a copy of the
public view from those frames, forwards every frame to its spectators as the owner sent it
(so their ``seq`` and ``epoch`` are the owner's, and a resume works on either node), and keeps
the last deltas for resume. Pub/sub may drop a message: a delta that does not follow the copy
is preceded by one made from the room's log in PostgreSQL (:func:`public_view_at`), so
spectators on every node see every public change in order. When the room changes owner, the
node asks the new one (:meth:`Relays.check`), whose snapshot replaces the copy.

A relay is kept, not only asked for once: every heartbeat the watching node tells the owner
``keep`` for each room it relays, and an owner that holds no relay of that room for that node
(it dropped it while the watching node was paused past its registry entry, it restarted under
the same node id and took the room back, or it was asked while still rebuilding the room)
starts one, whose snapshot replaces the copy. So a relayed spectator always ends up with every
delta, or a snapshot, within a heartbeat of the owner playing the room again.

Spectators on a watching node may watch, resume, ask for a snapshot and leave; a request that
needs the room itself (chat, and everything a seat does) is sent on with ``moved``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import structlog

from engine.core import first_state, from_wire
from engine.registry import get_game
from protocol.codec import SERVER_FRAME_LIMITS, decode, encode, encode_delta
from protocol.delta import diff, op_to_wire
from protocol.errors import ErrorCode
from protocol.messages import Delta, GameOver, Message, Ok, RoomClosed, RoomUpdate, Snapshot
from protocol.views import RoomView
from server.errors import Moved, Refused
from server.resume import plan_resume
from server.seats import seat_specs
from server.store import Record, RoomRow

if TYPE_CHECKING:
    from server.hub import Hub
    from server.room import Peer

__all__ = [
    "FIRST_SNAPSHOT",
    "HAND_OVER_WAIT",
    "RelayPeer",
    "Relays",
    "RemoteRoom",
    "public_view_at",
]

log = structlog.get_logger("lumin.relay")

#: Seconds a watch waits for the owner's first snapshot before it is answered ``try_again``.
FIRST_SNAPSHOT = 3.0
#: Seconds a draining node waits for another to take a room it hands over.
HAND_OVER_WAIT = 2.0


def public_view_at(row: RoomRow, records: list[Record], seq: int) -> Any:
    """The public view of a started room after its logged step ``seq``, folded from its log
    (``records``, oldest first) over the first state its seed deals."""
    game = get_game(row.game)
    state = first_state(game, row.options, seat_specs(row.seats), row.seed)
    for record in records:
        if record.seq > seq:
            break
        for data in record.events:
            state = game.evolve(state, from_wire(game.events, data))
    return game.view(state, None)


class RelayPeer:
    """On the owner: one watching node, attached to a room as a spectator (a
    :class:`~server.room.Peer`); every frame the room sends it goes to that node."""

    def __init__(self, relays: Relays, room: str, node: str) -> None:
        self.relays = relays
        self.room = room
        self.node = node
        self.user = f"relay:{node}"
        self.name = f"spectators on {node}"
        self.address = self.address_key = f"cluster:{node}"
        self.muted: set[str] = set()

    def send(self, message: Message) -> None:
        self.send_frame(encode(message))

    def send_frame(self, frame: bytes) -> None:
        cluster = self.relays.hub.cluster
        if cluster is not None:
            cluster.relay(self.node, self.room, frame)

    def room_moved(self, room: str, url: str | None = None) -> None:
        """The room left this node: the watching node asks its new owner."""
        cluster = self.relays.hub.cluster
        self.relays.relayed.pop((room, self.node), None)
        if cluster is not None:
            self.relays.hub.spawn(cluster.control(self.node, "lost", room))


class RemoteRoom:
    """On a watching node: a room the node ``owner`` plays, as its spectators here see it
    (the subset of :class:`~server.room.Room` a spectator's requests use)."""

    def __init__(self, relays: Relays, row: RoomRow, owner: str, history: int) -> None:
        self.relays = relays
        self.row = row
        self.id = row.id
        self.private = row.private
        self.code = row.code
        self.owner = owner
        self.peers: dict[Peer, None] = {}
        self.copy: RoomView | None = None
        self._arrived = asyncio.Event()
        self.status = row.status
        self.closed = False
        #: The last room update and game over the owner sent, for spectators who arrive later.
        self.update: bytes | None = None
        self.over: bytes | None = None
        self.history: collections.deque[tuple[int, int, dict[int | None, bytes]]] = (
            collections.deque(maxlen=history)
        )
        #: Held while a frame is taken (asyncio locks are first come, first served).
        self._in_order = asyncio.Lock()

    # -- what a spectator's requests do ---------------------------------------------------------

    def seat_of(self, user: str) -> int | None:
        return None

    async def call(self, work: Callable[[], Awaitable[Any]]) -> Any:
        return await work()

    async def _first_snapshot(self) -> RoomView:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._arrived.wait(), FIRST_SNAPSHOT)
        if self.copy is None or self.closed:
            raise Refused(
                ErrorCode.TRY_AGAIN,
                f"Room {self.id} is played on another node that has not answered yet;"
                " try again in a moment.",
            )
        return self.copy

    async def watch(self, peer: Peer, code: str | None, *, trusted: bool = False) -> None:
        if self.private and not trusted:
            self.relays.hub.codes.check(self.id, code, self.code, peer.address_key)
        self._send_snapshot(peer, await self._first_snapshot())
        self.peers[peer] = None

    async def resume(self, peer: Peer, seen: int, epoch: str, ref: int | None) -> None:
        copy = await self._first_snapshot()
        frames = plan_resume(self.history, seen, copy.seq, None, epoch == copy.epoch)
        self.peers[peer] = None
        if frames is None:
            self._send_snapshot(peer, copy, ref)
            return
        for frame in frames:
            peer.send_frame(frame)
        peer.send(Ok(ref=ref, room=self.id))
        if self.over is not None:
            peer.send_frame(self.over)

    async def send_snapshot(self, peer: Peer, ref: int | None) -> None:
        if peer not in self.peers:
            raise Refused(ErrorCode.NOT_IN_ROOM, f"Join or watch room {self.id!r} first.")
        peer.send(self._snapshot(await self._first_snapshot(), ref))

    def _snapshot(self, copy: RoomView, ref: int | None = None) -> Snapshot:
        return Snapshot(
            ref=ref, room=self.id, epoch=copy.epoch, seq=copy.seq, view=copy.view,
            clock_origin=copy.clock_origin,
        )  # fmt: skip

    def _send_snapshot(self, peer: Peer, copy: RoomView, ref: int | None = None) -> None:
        peer.send(self._snapshot(copy, ref))
        for frame in (self.update, self.over):
            if frame is not None:
                peer.send_frame(frame)

    async def leave(self, peer: Peer) -> None:
        self.detach(peer)

    def detach(self, peer: Peer) -> None:
        self.peers.pop(peer, None)
        if not self.peers:
            self.relays.forget(self)

    async def _elsewhere(self) -> Moved | Refused:
        cluster = self.relays.hub.cluster
        url = await cluster.live_url(self.owner) if cluster is not None else None
        if url is None:
            return Refused(ErrorCode.TRY_AGAIN, f"Room {self.id} is changing node; try again.")
        return Moved(self.id, url)

    async def chat(self, peer: Peer, text: str) -> None:
        raise await self._elsewhere()

    async def ready(self, peer: Peer, ready: bool) -> None:
        raise Refused(ErrorCode.NOT_SEATED, "Spectators cannot get ready; join a seat to play.")

    async def begin(self, peer: Peer | None) -> None:
        raise Refused(ErrorCode.NOT_SEATED, "Only the host can start the game.")

    async def kick(self, peer: Peer, seat: int) -> None:
        raise Refused(ErrorCode.NOT_SEATED, "Only the host can kick.")

    def submit(self, act: Any) -> asyncio.Future[Any]:
        raise Refused(ErrorCode.NOT_SEATED, "Spectators cannot act; join a seat to play.")

    # -- what the owner sends -------------------------------------------------------------------

    async def frame(self, frame: bytes) -> None:
        """One frame the owner sent this node's relay: keep what it tells, forward it. Frames
        are taken one at a time in arrival order, a gap fill included, so nothing overtakes
        a delta (a new owner's snapshot, the game's end) while its gap is being filled."""
        async with self._in_order:
            await self._take_frame(frame)

    async def _take_frame(self, frame: bytes) -> None:
        message = decode(frame, sender="server", limits=SERVER_FRAME_LIMITS)
        if isinstance(message, Snapshot):
            self.copy = RoomView.from_snapshot(message)
            self.history.clear()
            self._arrived.set()
            for peer in self.peers:  # a new owner, or a fresh start: replace every copy
                self._send_snapshot(peer, self.copy)
            return
        if isinstance(message, Delta):
            await self._delta(message, frame)
            return
        if isinstance(message, RoomUpdate):
            self.update = frame
            self.status = message.info.state
        elif isinstance(message, GameOver):
            self.over = frame
        elif isinstance(message, RoomClosed):
            self.closed = True
            self.relays.forget(self)
        self._forward(frame)

    async def _delta(self, delta: Delta, frame: bytes) -> None:
        if self.copy is None or delta.base < self.copy.seq:
            return  # before the first snapshot, or one seen already
        if delta.base > self.copy.seq:
            await self._fill(delta.base)
            if self.copy.seq != delta.base:
                return
        self.copy = self.copy.apply(delta)
        self.history.append((delta.base, delta.seq, {None: frame}))
        self._forward(frame)

    async def _fill(self, seq: int) -> None:
        """Pub/sub dropped deltas up to ``seq``: make the one delta from the copy to ``seq``
        from the log in the store, send it, and count the gap filled."""
        assert self.copy is not None
        store = self.relays.hub.store
        row = await store.get_room(self.id)
        if row is None:
            return
        records = await store.get_records(self.id)
        if not records or records[-1].seq < seq:
            return  # not committed where this node reads yet: the owner's next frame tells
        view = public_view_at(row, records, seq)
        ops = [op_to_wire(op) for op in diff(self.copy.view, view)]
        filled = encode_delta(self.id, self.copy.seq, seq, ops, None)
        log.info("relay_gap_filled", room=self.id, base=self.copy.seq, seq=seq)
        self.relays.hub.metrics.relay_gaps_filled.inc()
        message = decode(filled, sender="server", limits=SERVER_FRAME_LIMITS)
        assert isinstance(message, Delta)
        self.history.append((self.copy.seq, seq, {None: filled}))
        self.copy = self.copy.apply(message)
        self._forward(filled)

    def _forward(self, frame: bytes) -> None:
        for peer in self.peers:
            peer.send_frame(frame)


class Relays:
    """Both sides of the relays of one node (see the module docstring)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        #: On the owner: the relay of each (room, watching node).
        self.relayed: dict[tuple[str, str], RelayPeer] = {}
        #: On a watching node: the rooms it relays, by id.
        self.remote: dict[str, RemoteRoom] = {}
        #: Rooms this draining node is handing over, waiting for the taker's answer.
        self._handing: dict[str, asyncio.Future[str | None]] = {}

    async def room(self, room_id: str, owner: str) -> RemoteRoom:
        """The stand-in for ``room_id`` that ``owner`` plays, asking the owner for its frames
        the first time."""
        remote = self.remote.get(room_id)
        if remote is not None and not remote.closed:
            return remote
        row = await self.hub.store.get_room(room_id)
        if row is None:
            raise Refused(ErrorCode.NO_SUCH_ROOM, f"There is no live room {room_id!r}.")
        remote = self.remote.get(room_id)
        if remote is None or remote.closed:
            remote = self.remote[room_id] = RemoteRoom(self, row, owner, self.hub.settings.history)
            await self._ask(remote)
        return remote

    async def _ask(self, remote: RemoteRoom) -> None:
        cluster = self.hub.cluster
        if cluster is not None:
            await cluster.control(remote.owner, "watch", remote.id)

    def forget(self, remote: RemoteRoom) -> None:
        """No spectator here watches ``remote`` any more (or it closed): stop its relay."""
        if self.remote.get(remote.id) is remote:
            del self.remote[remote.id]
            if not remote.closed and self.hub.cluster is not None:
                self.hub.spawn(self.hub.cluster.control(remote.owner, "unwatch", remote.id))

    def frame(self, room_id: str, frame: bytes) -> None:
        """A frame the owner of ``room_id`` relayed to this node."""
        remote = self.remote.get(room_id)
        if remote is not None:
            self.hub.spawn(remote.frame(frame))

    def control(self, kind: str, room_id: str, node: str) -> None:
        """A request from another node: ``watch`` or ``unwatch`` a room this node plays,
        ``keep`` its relay (started again, with a snapshot, when this node holds none), or
        ``lost`` (the room this node relays left its owner); ``take`` a room a draining
        node hands over, and its answer ``taken`` or ``refused``."""
        if kind == "watch":
            self.hub.spawn(self._watch(room_id, node))
        elif kind == "keep":
            if (room_id, node) not in self.relayed:
                self.hub.spawn(self._watch(room_id, node))
        elif kind == "unwatch":
            relay = self.relayed.pop((room_id, node), None)
            room = self.hub.rooms.get(room_id)
            if relay is not None and room is not None:
                room.detach(relay)
        elif kind == "lost" and room_id in self.remote:
            self.hub.spawn(self._recheck(self.remote[room_id]))
        elif kind == "take":
            self.hub.spawn(self._take_for(room_id, node))
        elif kind in ("taken", "refused"):
            handing = self._handing.get(room_id)
            if handing is not None and not handing.done():
                handing.set_result(node if kind == "taken" else None)

    async def hand(self, room_id: str, node: str, wait: float = HAND_OVER_WAIT) -> str | None:
        """Ask ``node`` to take ``room_id`` over now (this node let it go): the node that
        took it, or ``None`` when it refused or did not answer within ``wait`` seconds."""
        cluster = self.hub.cluster
        if cluster is None:
            return None
        handing = self._handing[room_id] = asyncio.get_running_loop().create_future()
        try:
            await cluster.control(node, "take", room_id)
            return await asyncio.wait_for(handing, wait)
        except TimeoutError:
            return None
        finally:
            self._handing.pop(room_id, None)

    async def _take_for(self, room_id: str, node: str) -> None:
        """A draining node handed ``room_id`` over: take it and say whether this node did."""
        taken = await self.hub.take(room_id)
        if self.hub.cluster is not None:
            await self.hub.cluster.control(node, "taken" if taken else "refused", room_id)

    async def _watch(self, room_id: str, node: str) -> None:
        room = self.hub.rooms.get(room_id)
        cluster = self.hub.cluster
        if room is None or room.closed:
            if cluster is not None:
                await cluster.control(node, "lost", room_id)
            return
        relay = self.relayed.get((room_id, node))
        if relay is None:
            relay = self.relayed[(room_id, node)] = RelayPeer(self, room_id, node)
            await room.call(lambda: room.watch(relay, None, trusted=True))
        else:  # asked again (the watching node missed the first): a fresh snapshot
            await room.call(lambda: room.send_snapshot(relay, None))

    async def check(self) -> None:
        """Each heartbeat: drop relays to nodes that left the registry, follow the rooms
        relayed here to their new owners, and ask each owner to ``keep`` its relay here (or,
        while no snapshot has come, to ``watch`` again)."""
        cluster = self.hub.cluster
        if cluster is None:
            return
        for (room_id, node), relay in list(self.relayed.items()):
            if node not in cluster.nodes:
                del self.relayed[(room_id, node)]
                room = self.hub.rooms.get(room_id)
                if room is not None:
                    room.detach(relay)
        renewals = []
        for remote in list(self.remote.values()):
            await self._recheck(remote)
            if self.remote.get(remote.id) is remote and remote.owner in cluster.nodes:
                kind = "keep" if remote.copy is not None else "watch"
                renewals.append((remote.owner, kind, remote.id))
        await cluster.control_all(renewals)

    async def _recheck(self, remote: RemoteRoom) -> None:
        """Ask the room's owner now for its frames if it is not the one this node asked."""
        owner = await self.hub.owner_of(remote.id)
        if owner is None or owner == remote.owner:
            return
        if self.hub.ownership is not None and owner == self.hub.ownership.node:
            await self._bring_home(remote)
            return
        log.info("relay_owner_changed", room=remote.id, was=remote.owner, now=owner)
        remote.owner = owner
        await self._ask(remote)

    async def _bring_home(self, remote: RemoteRoom) -> None:
        """This node took the room over: its spectators here watch the room itself."""
        room = self.hub.rooms.get(remote.id)
        if room is None:
            return
        self.remote.pop(remote.id, None)
        for peer in list(remote.peers):
            rooms = getattr(peer, "rooms", None)
            if isinstance(rooms, dict):
                rooms[remote.id] = room
            await room.call(lambda peer=peer: room.watch(peer, None, trusted=True))
