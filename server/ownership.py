"""Which rooms this node owns, when its store is the PostgreSQL store a cluster shares.

Each room has one owner at a time, through its lease row (:mod:`server.pgstore`): a node
claims a room when it creates it, when it rebuilds it at start, or when the room's lease has
lapsed (its owner died, paused past the lease, or let it go); the claim raises the lease's
epoch, and every append the room makes carries that epoch, so an owner that lost its lease can
never append again. :class:`Ownership` renews every lease this node holds three times per TTL
in one statement, and each round claims lapsed rooms and hands them to the hub to rebuild: in
a cluster, only this node's share of them by load (:attr:`Ownership.share`, which the server
sets to :meth:`server.cluster.Cluster.claim_share`: what brings this node up to an even share
of the live nodes' rooms), and never more than :data:`CLAIMS_PER_ROUND`, so a dead node's
rooms spread over the survivors, the lightest first. A lease it fails to renew, or
an append refused as :class:`~server.pgstore.Fenced`, makes the hub let the room go at once.

PostgreSQL's clock is the one the leases run on, so nodes' clocks need not agree.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog

from server.pgstore import PostgresStore

__all__ = ["CLAIMS_PER_ROUND", "LAPSED_READ", "ORPHANED_AFTER", "Ownership"]

log = structlog.get_logger("lumin.ownership")

#: Lapsed rooms one node claims per renewal round at most: the rest wait a round, for others.
CLAIMS_PER_ROUND = 8
#: Lapsed rooms one round reads, to share them out.
LAPSED_READ = 100
#: TTLs a room may stay lapsed before any node claims it, whatever its share (a node whose
#: view of the others' load is stale must not leave a room unowned).
ORPHANED_AFTER = 2.0


class Ownership:
    """The leases of one node (``node``) on ``store``, each ``ttl`` seconds long.

    ``lost(room_id)`` is called when a lease could not be renewed (another node has the room);
    ``take(room_id)`` for a lapsed room this node may take over: it claims the room
    (:meth:`claim`) and rebuilds it, and says whether it did."""

    def __init__(
        self,
        store: PostgresStore,
        node: str,
        ttl: float,
        lost: Callable[[str], None],
        take: Callable[[str], Awaitable[bool]],
    ) -> None:
        self.store = store
        self.node = node
        self.ttl = ttl
        self.epochs: dict[str, int] = {}
        #: New rooms' first leases, queued in the store and not committed yet: renewed only
        #: once they are (a renewal before would find no row and think the room lost).
        self._creating: dict[str, int] = {}
        #: Whether rounds claim lapsed rooms (not while the server is still recovering its own,
        #: nor while it drains).
        self.claiming = False
        #: How many of ``found`` lapsed rooms this node should claim this round: its share of
        #: the cluster's load (:meth:`server.cluster.Cluster.claim_share`, set when the node
        #: joins a cluster); up to :data:`CLAIMS_PER_ROUND` until then.
        self.share: Callable[[int], int] = lambda found: CLAIMS_PER_ROUND
        self._lost = lost
        self._take = take
        self._task: asyncio.Task[None] | None = None
        #: Held while leases are renewed, so a release never lands before a renewal of it.
        self._renewing = asyncio.Lock()

    async def claim(self, room: str) -> int | None:
        """Take ``room`` (a new one, or one to rebuild): its epoch, or ``None`` when another
        node's lease on it is live."""
        epoch = await self.store.claim(room, self.node, self.ttl)
        if epoch is not None:
            self.epochs[room] = epoch
        return epoch

    def leased(self, room: str, epoch: int, committed: asyncio.Future[None]) -> None:
        """A new room's lease at ``epoch`` is on its way to the store (``committed``): renew it
        from the round after it is written."""
        self._creating[room] = epoch

        def done(future: asyncio.Future[None]) -> None:
            if self._creating.pop(room, None) is None:
                return  # forgotten meanwhile
            if future.cancelled() or future.exception() is not None:
                log.error("lease_not_written", room=room, node=self.node)
                return
            self.epochs[room] = epoch

        committed.add_done_callback(done)

    def is_creating(self, room: str) -> bool:
        """Whether ``room`` is a new room whose first lease is not committed yet."""
        return room in self._creating

    def forget(self, room: str) -> None:
        """Stop renewing ``room`` (it finished, closed or was lost); its lease lapses."""
        self.epochs.pop(room, None)
        self._creating.pop(room, None)

    async def release(self, room: str) -> None:
        """Let ``room`` go at once, so another node can claim it without waiting for the TTL."""
        epoch = self.epochs.pop(room, None)
        if epoch is not None:
            # After a renewal in flight, which may still hold the room: were the release
            # written first, that renewal would extend the lease again, and the node this
            # room is handed to could not claim it for a whole TTL.
            async with self._renewing:
                await self.store.release(room, self.node, epoch)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"ownership-{self.node}")

    async def stop(self) -> None:
        """Stop renewing and claiming (the leases lapse by themselves, or :meth:`release`)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self.round()
            except Exception:  # the store away for a moment: the next round tries again
                log.exception("lease_round_failed", node=self.node)

    async def round(self) -> None:
        """One renewal round: renew every lease held, let go of the lost ones, then claim this
        node's share of the lapsed rooms (at most :data:`CLAIMS_PER_ROUND`; any room lapsed
        for :data:`ORPHANED_AFTER` TTLs) through the hub."""
        held = dict(self.epochs)
        if held:
            async with self._renewing:
                kept = await self.store.renew_all(self.node, held, self.ttl)
            for room in held.keys() - kept:
                if self.epochs.get(room) == held[room]:
                    del self.epochs[room]
                    log.info("lease_lost", room=room, node=self.node, epoch=held[room])
                    self._lost(room)
        if not self.claiming:
            return
        found = [
            lease
            for lease in await self.store.lapsed(LAPSED_READ)
            if lease.room not in self.epochs and lease.room not in self._creating
        ]
        share = min(CLAIMS_PER_ROUND, self.share(len(found)))
        for lease in found:
            orphaned = lease.lapsed_for > ORPHANED_AFTER * self.ttl
            if share <= 0 and not orphaned:
                continue
            if await self._take(lease.room):
                share -= 1
                log.info("room_claimed", room=lease.room, node=self.node, was=lease.node)
