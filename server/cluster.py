"""This node's place in a cluster, through Redis: the node registry (every node's public URL
and load, kept alive by heartbeats), room-to-node hints, and the cluster-wide lobby.

Redis is for speed, never for truth. Who owns a room is its lease in PostgreSQL
(:mod:`server.ownership`); a hint is read only when PostgreSQL cannot be asked. Each key lives
under the cluster's prefix (``lumin:`` by default):

- ``node:<id>``: the node's :class:`NodeInfo` as JSON, set at every heartbeat (and whenever its
  room count changes) with an expiry of three heartbeats, so a node that dies drops out of the
  registry by itself; ``nodes`` is the set of ids ever seen (ids whose key expired are removed
  from it when next read). ``beat:<id>``: the time of the node's last heartbeat, by Redis's
  clock, with the same expiry: a node is sent clients (``moved``) only while its last heartbeat
  is at most :data:`LAPSED_BEATS` heartbeats old (:meth:`Cluster.live_url`), so a node that
  died is not named in the seconds its entry outlives it.
- ``cluster:<id>``: the id of the node's cluster (kept in its PostgreSQL database:
  :meth:`server.pgstore.PostgresStore.cluster_id`), set with each entry and with the same
  expiry. A node refuses to start (:class:`OtherCluster`) while the prefix holds a live entry
  of another cluster's node: a Redis db number does not separate pub/sub channels, so two
  clusters on one Redis are kept apart only by their prefixes. (A separate key rather than a
  field of ``node:<id>``, which older nodes read strictly.)
- ``room:<id>``: the node playing the room, refreshed at every heartbeat for every room the
  node owns, with the same expiry.
- ``lobby``: a hash from room id to the owner's id and the room's lobby summary, for every
  public waiting or playing room of the cluster; each change is also published on the channel
  ``lobby`` (:class:`LobbyChange`), so every node keeps a copy (:attr:`Cluster.remote`) and
  tells its lobby watchers at once. The copy is read again from the hash every few seconds,
  since pub/sub may drop a message; then each node also writes its own entries again and
  removes those of nodes that left the registry.
- channels ``relay:<id>`` (frames of rooms other nodes play, for this node's spectators:
  :mod:`server.relay`) and ``control:<id>`` (requests of other nodes: ``watch``, ``keep``,
  ``unwatch``, ``lost``, and a draining node's ``take``, answered ``taken`` or ``refused``;
  questions :meth:`Cluster.ask` sends, answered by :attr:`Cluster.answering` or, by their ``kind``,
  one of :attr:`Cluster.answerers`; and :meth:`Cluster.notify`'s notices, for
  :attr:`Cluster.noticed`).
- channel ``control``: what every node must hear (:meth:`Cluster.broadcast`, for
  :attr:`Cluster.broadcasted`): a revoked session's connections close wherever they are.
- ``qp:<table>`` and ``qp:<table>:e``: quick play's queue (:mod:`server.quickplay`).

When Redis is away the node fails open: it goes on playing its own rooms, its lobby shows what
it last knew, and a request for a room it cannot place is answered ``try_again``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import secrets
import urllib.parse
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from typing import Any

import attrs
import msgpack
import redis.asyncio as aioredis
import structlog
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from protocol.codec import SERVER_FRAME_LIMITS, decode, encode
from protocol.messages import LobbyUpdate, RoomSummary

__all__ = [
    "CREATE_MARGIN",
    "LAPSED_BEATS",
    "Cluster",
    "LobbyChange",
    "NodeInfo",
    "OtherCluster",
    "origin_of",
]

log = structlog.get_logger("lumin.cluster")

#: Heartbeats between two full reads of the lobby hash (repairing a dropped pub/sub message).
RESYNC_EVERY = 5
#: A new room goes to another node when that node has at least this many fewer rooms (and a
#: fifth fewer), so rooms spread without sending every creator away.
CREATE_MARGIN = 2
#: Seconds one Redis command may take before the node treats Redis as away.
REDIS_TIMEOUT = 1.0
#: Heartbeats without one from a node after which it is not named to clients any more (a
#: live node beats every heartbeat; the half is for a beat's own delay).
LAPSED_BEATS = 1.5


class OtherCluster(Exception):
    """The Redis prefix a node was given holds live nodes of another cluster; the sentence
    names them and what to do."""


@attrs.frozen
class NodeInfo:
    """One node as the registry shows it: its id, the websocket URL clients reach it at, and
    its load (rooms it plays, open connections)."""

    node: str
    url: str
    rooms: int = 0
    connections: int = 0


@attrs.frozen
class LobbyChange:
    """What one node's lobby flush changed: ``rooms`` it plays now (summaries) and ``removed``
    room ids it no longer plays."""

    node: str
    rooms: tuple[RoomSummary, ...] = ()
    removed: tuple[str, ...] = ()

    def pack(self) -> bytes:
        update = LobbyUpdate(rooms=self.rooms, removed=self.removed)
        # Both as msgpack raw strings: Redis's Lua msgpack (the owner test) reads no bin type.
        packed: bytes = msgpack.packb([self.node, encode(update)], use_bin_type=False)
        return packed

    @classmethod
    def unpack(cls, data: bytes) -> LobbyChange:
        name, frame = msgpack.unpackb(data, raw=True)
        node = name.decode()
        update = decode(frame, sender="server", limits=SERVER_FRAME_LIMITS)
        assert isinstance(update, LobbyUpdate)
        return cls(str(node), update.rooms, update.removed)


def origin_of(url: str) -> str:
    """The browser ``Origin`` of a page served where the websocket ``url`` points
    (``wss://h/ws`` -> ``https://h``)."""
    parts = urllib.parse.urlsplit(url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return f"{scheme}://{parts.netloc}"


# Deletes a lobby entry only while it still names the node that asks (each value is a packed
# LobbyChange, ``[node, frame]``): a node letting a room go must not erase the entry of the
# node that took it over.
_DELETE_IF_OWNER = """
local value = redis.call('HGET', KEYS[1], ARGV[1])
if value and cmsgpack.unpack(value)[1] == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""

# Stamps a node's heartbeat with Redis's own clock (milliseconds), so nodes whose clocks
# disagree still agree on how long ago a node beat.
_STAMP_BEAT = """
local now = redis.call('TIME')
redis.call('SET', KEYS[1], now[1] * 1000 + math.floor(now[2] / 1000), 'PX', ARGV[1])
return 1
"""


class Cluster:
    """This node (``node``, reached at ``public_url``) among the nodes sharing the Redis at
    ``url``; keys under ``prefix``. :meth:`start` begins the heartbeats (every ``heartbeat``
    seconds) and the lobby subscription; ``load()`` gives the node's ``(rooms, connections)``
    and ``owned()`` the ids of the rooms it plays, both read at each heartbeat;
    ``lobby_changed(rooms, removed)`` is told what other nodes changed in the lobby."""

    def __init__(
        self,
        url: str,
        node: str,
        public_url: str,
        *,
        prefix: str = "lumin:",
        heartbeat: float = 1.0,
        cluster_id: str = "",
    ) -> None:
        self.node = node
        #: The cluster's id, published with each heartbeat (empty: none, as in some tests).
        self.cluster_id = cluster_id
        self.public_url = public_url
        self.prefix = prefix
        self.heartbeat = heartbeat
        self.redis = aioredis.Redis.from_url(
            url,
            socket_timeout=REDIS_TIMEOUT,
            socket_connect_timeout=REDIS_TIMEOUT,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1),
        )
        #: The live nodes as of the last heartbeat, this one included.
        self.nodes: dict[str, NodeInfo] = {node: NodeInfo(node, public_url)}
        #: Other nodes' public live rooms: room id -> (owner, summary).
        self.remote: dict[str, tuple[str, RoomSummary]] = {}
        #: Whether Redis answered the last command (``/readyz``).
        self.reachable = False
        self.load: Callable[[], tuple[int, int]] = lambda: (0, 0)
        self.owned: Callable[[], Iterable[str]] = lambda: ()
        self.lobby_changed: Callable[[tuple[RoomSummary, ...], tuple[str, ...]], None] = (
            lambda rooms, removed: None
        )
        #: Told each frame another node relays here (:mod:`server.relay`), and each control
        #: request (``watch``, ``keep``, ``unwatch``, ``lost``) another node sends.
        self.relayed: Callable[[str, bytes], None] = lambda room, frame: None
        self.controlled: Callable[[str, str, str], None] = lambda kind, room, node: None
        #: Called after each heartbeat.
        self.beaten: Callable[[], Awaitable[None]] | None = None
        #: Answers a request another node :meth:`ask`\ s this one (the admin API's).
        self.answering: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None
        #: Answer the requests of a ``kind`` (a key of the request) instead of ``answering``.
        self.answerers: dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]] = {}
        #: Told each notice another node sends this one (:meth:`notify`): its kind and map.
        self.noticed: Callable[[str, dict[str, Any]], Coroutine[Any, Any, None]] | None = None
        #: Told each message any node broadcasts to the cluster (:meth:`broadcast`).
        self.broadcasted: Callable[[str, dict[str, Any]], None] = lambda kind, message: None
        self._asked: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._outbox: list[tuple[str, bytes]] = []
        self._announcing: asyncio.Handle | None = None
        #: Lobby changes Redis has not taken yet, and the task sending them.
        self._unsent_rooms: dict[str, RoomSummary] = {}
        self._unsent_removed: set[str] = set()
        self._publishing: asyncio.Future[None] | None = None
        #: This node's public live rooms, written again now and then (after Redis lost them).
        self.listed: Callable[[], list[RoomSummary]] = list
        #: Set once the node left the registry (it drains): it never writes its entry again.
        self._left = False
        self._tasks_spawned: set[asyncio.Future[None]] = set()
        self._sending: asyncio.Task[None] | None = None
        self._delete_if_owner = self.redis.register_script(_DELETE_IF_OWNER)
        self._stamp_beat = self.redis.register_script(_STAMP_BEAT)
        self._pubsub = self.redis.pubsub()
        self._tasks: list[asyncio.Task[None]] = []
        self._beats = 0

    # -- keys ---------------------------------------------------------------------------------

    def _key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    @property
    def _channel(self) -> str:
        return self._key("lobby")

    @property
    def _expiry(self) -> int:
        """Milliseconds a registry entry or a hint lives: three heartbeats."""
        return max(1, round(3 * self.heartbeat * 1000))

    def _me(self) -> NodeInfo:
        """This node as the registry shows it, now."""
        rooms, connections = self.load()
        return NodeInfo(self.node, self.public_url, rooms, connections)

    # -- life -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Join the registry (one heartbeat now), read the lobby and subscribe to its changes,
        then beat every ``heartbeat`` seconds. Redis away at start is not fatal: the node plays
        alone until it answers. :class:`OtherCluster` (and nothing written) when the prefix
        holds live nodes of another cluster."""
        await self.refuse_other_clusters()
        await self.beat()
        subscribed = asyncio.get_running_loop().create_future()
        self._tasks = [
            asyncio.create_task(self._beating(), name=f"cluster-heartbeat-{self.node}"),
            asyncio.create_task(self._listening(subscribed), name=f"cluster-lobby-{self.node}"),
        ]
        with contextlib.suppress(TimeoutError):  # Redis away: the listener keeps trying
            await asyncio.wait_for(asyncio.shield(subscribed), REDIS_TIMEOUT)

    async def refuse_other_clusters(self) -> None:
        """:class:`OtherCluster` when a live node under this prefix (this node's own id
        included: another cluster's node of the same name) published another cluster's id;
        nodes that publish none (an older Lumin) are not counted. Redis away: nothing to
        refuse (the node plays alone until it answers)."""
        if not self.cluster_id:
            return
        try:
            members = await self.redis.smembers(self._key("nodes"))
            ids = sorted(_text(member) for member in members)
            if not ids:
                return
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.mget([self._key("node", node) for node in ids])
                pipe.mget([self._key("cluster", node) for node in ids])
                entries, clusters = await pipe.execute()
        except (RedisError, OSError) as error:
            log.warning("cluster_id_unchecked", node=self.node, error=repr(error))
            return
        others = [
            f"{node} of cluster {_text(cluster)}"
            for node, entry, cluster in zip(ids, entries, clusters, strict=True)
            if entry is not None and cluster is not None and _text(cluster) != self.cluster_id
        ]
        if others:
            raise OtherCluster(
                f"the Redis prefix {self.prefix!r} holds live nodes of another cluster"
                f" ({', '.join(others)}), and this node's PostgreSQL database is cluster"
                f" {self.cluster_id}: give each cluster its own --redis-prefix (a Redis db"
                " number does not keep two clusters' channels apart)"
            )

    async def leave(self) -> None:
        """Leave the registry now and stop beating (a node draining): other nodes send it no
        more clients or new rooms; relays and control requests still work until :meth:`stop`."""
        self._left = True
        beating = next((t for t in self._tasks if t.get_name().startswith("cluster-heart")), None)
        if beating is not None:
            self._tasks.remove(beating)
            await _cancelled([beating], self.node)
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(self._key("node", self.node))

    def lightest_other(self) -> NodeInfo | None:
        """The live node, other than this one, with the fewest rooms (``None``: alone)."""
        others = [info for info in self.nodes.values() if info.node != self.node]
        return min(others, key=lambda info: (info.rooms, info.node), default=None)

    async def stop(self, leave: bool = True) -> None:
        """Leave the registry at once (other nodes stop sending clients here) and close; with
        ``leave`` false, only stop beating: the entry lapses by itself, as a dead node's."""
        await _cancelled(self._tasks, self.node)
        self._tasks = []
        if leave:
            with contextlib.suppress(RedisError, OSError):
                await self.redis.delete(self._key("node", self.node))
        with contextlib.suppress(RedisError, OSError, RuntimeError):
            await self._pubsub.aclose()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose()

    async def ping(self) -> bool:
        """Whether Redis answers now."""
        try:
            await self.redis.ping()
        except (RedisError, OSError):
            self.reachable = False
        else:
            self.reachable = True
        return self.reachable

    async def _beating(self) -> None:
        while not self._left:
            await asyncio.sleep(self.heartbeat)
            await self.beat()
            if self.beaten is not None:
                try:
                    await self.beaten()
                except Exception:
                    log.exception("cluster_heartbeat_work_failed", node=self.node)

    async def _listening(self, subscribed: asyncio.Future[None]) -> None:
        """Subscribe to the lobby's channel (again each heartbeat until Redis answers), then
        hand each message to :meth:`_on_message`; redis-py reconnects and resubscribes after
        a dropped connection on its own."""
        while True:
            try:
                await self._pubsub.subscribe(
                    **{
                        self._channel: self._on_message,
                        self._key("relay", self.node): self._on_relay,
                        self._key("control", self.node): self._on_control,
                        self._key("control"): self._on_broadcast,
                    }
                )
            except (RedisError, OSError) as error:
                log.debug("cluster_lobby_not_subscribed", error=repr(error))
                await asyncio.sleep(self.heartbeat)
                continue
            if not subscribed.done():
                subscribed.set_result(None)
            await self._pubsub.run(exception_handler=self._pubsub_failed, poll_timeout=1.0)

    async def _pubsub_failed(self, error: Exception, pubsub: Any) -> None:
        log.warning("cluster_lobby_subscription_failed", error=repr(error))
        await asyncio.sleep(self.heartbeat)

    # -- the registry ---------------------------------------------------------------------------

    async def beat(self) -> None:
        """One heartbeat: publish this node's load and room hints, then read the live nodes
        (and, every :data:`RESYNC_EVERY` beats, the whole lobby)."""
        if self._left:
            return
        info = self._me()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.set(self._key("node", self.node), _entry(info), px=self._expiry)
                if self.cluster_id:
                    pipe.set(self._key("cluster", self.node), self.cluster_id, px=self._expiry)
                await self._stamp_beat(
                    keys=[self._key("beat", self.node)], args=[self._expiry], client=pipe
                )
                pipe.sadd(self._key("nodes"), self.node)
                for room in self.owned():
                    pipe.set(self._key("room", room), self.node, px=self._expiry)
                await pipe.execute()
            await self._read_nodes()
            if self._beats % RESYNC_EVERY == 0:
                await self._read_lobby()
                await self._write_lobby(LobbyChange(self.node, tuple(self.listed())), False)
            if self._unsent_rooms or self._unsent_removed:
                self.publish((), ())
        except (RedisError, OSError) as error:
            if self.reachable:
                log.warning("cluster_redis_away", node=self.node, error=repr(error))
            self.reachable = False
            self.nodes[self.node] = info
            return
        if not self.reachable:
            log.info("cluster_redis_reached", node=self.node, nodes=len(self.nodes))
        self.reachable = True
        self._beats += 1

    async def _read_nodes(self) -> None:
        members = await self.redis.smembers(self._key("nodes"))
        ids = sorted(_text(member) for member in members)
        values = await self.redis.mget([self._key("node", node) for node in ids]) if ids else []
        nodes: dict[str, NodeInfo] = {}
        gone = []
        for node, value in zip(ids, values, strict=True):
            if value is None:
                gone.append(node)
            else:
                nodes[node] = NodeInfo(**json.loads(value))
        if gone:
            await self.redis.srem(self._key("nodes"), *gone)
        nodes[self.node] = self._me()
        departed = self.nodes.keys() - nodes.keys()
        self.nodes = nodes
        if departed:  # a dead node's rooms leave the lobby until their new owner lists them
            self._forget_rooms_of(departed)

    def _forget_rooms_of(self, nodes: set[str]) -> None:
        removed = tuple(room for room, (node, _) in self.remote.items() if node in nodes)
        for room in removed:
            del self.remote[room]
        if removed:
            self.lobby_changed((), removed)

    def url_of(self, node: str) -> str | None:
        """The public URL of a live node, or ``None`` when the registry does not know it."""
        info = self.nodes.get(node)
        return None if info is None else info.url

    async def live_url(self, node: str) -> str | None:
        """The public URL of ``node`` to send a client to: this node's own, or another's while
        its last heartbeat is at most :data:`LAPSED_BEATS` heartbeats old (one read of Redis);
        ``None`` when the registry does not know it, its heartbeat lapsed, or Redis cannot
        say. A node that stamps no heartbeat time (an older Lumin) is taken at its entry."""
        if node == self.node:
            return self.public_url
        url = self.url_of(node)
        if url is None:
            return None
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.get(self._key("beat", node))
                pipe.time()
                beat, (seconds, micros) = await pipe.execute()
        except (RedisError, OSError):
            return None
        if beat is None:
            return url
        age = (int(seconds) * 1000 + int(micros) // 1000 - int(beat)) / 1000
        if age > LAPSED_BEATS * self.heartbeat:
            log.info("cluster_node_lapsed", node=node, seconds_since_beat=round(age, 3))
            return None
        return url

    @property
    def origins(self) -> set[str]:
        """The browser origins of every live node's public URL (a page served by one node may
        open its socket to another)."""
        return {origin_of(info.url) for info in self.nodes.values()}

    def load_changed(self) -> None:
        """This node's room count changed: publish it now (once per loop turn), not only at
        the next heartbeat, so other nodes place new rooms by what is true, not by what was
        a second ago (two nodes each thinking the other empty would send creators back and
        forth)."""
        if self._announcing is None:
            self._announcing = asyncio.get_running_loop().call_soon(self._announce)

    def _announce(self) -> None:
        self._announcing = None
        self._spawn(self._write_entry())

    async def _write_entry(self) -> None:
        if self._left or not self._tasks:  # stopped or left: no entry again
            return
        with contextlib.suppress(RedisError, OSError):
            await self.redis.set(self._key("node", self.node), _entry(self._me()), px=self._expiry)

    async def less_loaded(self) -> NodeInfo | None:
        """The node a new room should go to instead of this one: the one with the fewest rooms
        (as the registry says now: one read), when it has clearly fewer than this node
        (:data:`CREATE_MARGIN`); else ``None``."""
        mine, _ = self.load()
        others = [info for info in self.nodes.values() if info.node != self.node]
        if not others:
            return None
        try:
            values = await self.redis.mget([self._key("node", info.node) for info in others])
        except (RedisError, OSError):
            return None  # Redis away: the room stays here
        others = [NodeInfo(**json.loads(value)) for value in values if value is not None]
        if not others:
            return None
        best = min(others, key=lambda info: (info.rooms, info.connections, info.node))
        if mine - best.rooms >= max(CREATE_MARGIN, mine / 5):
            return best
        return None

    def claim_share(self, lapsed: int) -> int:
        """How many of ``lapsed`` unowned rooms this node should take over now: what brings
        it up to an even share of all the live nodes' rooms, and at least one for the
        lightest node, so a dead node's rooms spread over the survivors by load."""
        mine, _ = self.load()
        loads = {node: info.rooms for node, info in self.nodes.items()} | {self.node: mine}
        if len(loads) == 1:
            return lapsed
        fair = math.ceil((sum(loads.values()) + lapsed) / len(loads))
        lightest = min(loads, key=lambda node: (loads[node], node)) == self.node
        return max(1 if lightest else 0, fair - mine)

    # -- hints ----------------------------------------------------------------------------------

    async def hint(self, room: str) -> str | None:
        """The node the registry says plays ``room`` (``None``: no hint, or Redis away)."""
        try:
            value = await self.redis.get(self._key("room", room))
        except (RedisError, OSError):
            return None
        return None if value is None else _text(value)

    async def hint_room(self, room: str) -> None:
        """Tell the cluster this node plays ``room`` now (it created or adopted it)."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.set(self._key("room", room), self.node, px=self._expiry)

    # -- relays between nodes -------------------------------------------------------------------

    def relay(self, node: str, room: str, frame: bytes) -> None:
        """Send ``node`` a frame of ``room`` (:mod:`server.relay`); frames go out in order,
        those of one loop turn in one round trip."""
        self._outbox.append((self._key("relay", node), msgpack.packb([room, frame])))
        if self._sending is None or self._sending.done():
            self._sending = asyncio.get_running_loop().create_task(self._send_relayed())

    async def _send_relayed(self) -> None:
        while self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
            except (RedisError, OSError) as error:  # the watching node fills the gap later
                log.warning("cluster_relay_not_sent", frames=len(batch), error=repr(error))

    async def control(self, node: str, kind: str, room: str) -> None:
        """Ask ``node`` to ``watch``, ``keep`` or ``unwatch`` ``room`` for this node, or tell it
        the room it relays was ``lost`` here."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.publish(
                self._key("control", node), msgpack.packb([kind, room, self.node])
            )

    async def control_all(self, requests: Iterable[tuple[str, str, str]]) -> None:
        """:meth:`control` for each ``(node, kind, room)`` of ``requests``, in one round trip."""
        batch = list(requests)
        if not batch:
            return
        with contextlib.suppress(RedisError, OSError):
            async with self.redis.pipeline(transaction=False) as pipe:
                for node, kind, room in batch:
                    pipe.publish(self._key("control", node), msgpack.packb([kind, room, self.node]))
                await pipe.execute()

    def _on_relay(self, message: Mapping[str, Any]) -> None:
        try:
            room, frame = msgpack.unpackb(message["data"])
        except Exception:
            log.exception("cluster_relay_unreadable")
            return
        self.relayed(str(room), bytes(frame))

    def _on_control(self, message: Mapping[str, Any]) -> None:
        try:
            kind, room, node, *request = msgpack.unpackb(message["data"])
        except Exception:
            log.exception("cluster_control_unreadable")
            return
        if kind == "notice" and request and isinstance(request[0], dict):
            if self.noticed is not None:
                self._spawn(self.noticed(str(room), request[0]))
        elif kind == "ask" and request and isinstance(request[0], dict):
            self._spawn(self._answer(str(room), str(node), request[0]))
        elif kind == "answer" and request and isinstance(request[0], dict):
            waiting = self._asked.get(str(room))
            if waiting is not None and not waiting.done():
                waiting.set_result(request[0])
        else:
            self.controlled(str(kind), str(room), str(node))

    async def ask(
        self, node: str, request: Mapping[str, Any], timeout: float = REDIS_TIMEOUT
    ) -> dict[str, Any]:
        """Send ``request`` (a map msgpack can carry) to ``node``'s :attr:`answering` over its
        control channel and wait for the answer; ``TimeoutError`` after ``timeout`` seconds
        (the node is gone, or Redis is away)."""
        ident = secrets.token_hex(8)
        waiting = self._asked[ident] = asyncio.get_running_loop().create_future()
        try:
            try:
                await self.redis.publish(
                    self._key("control", node),
                    msgpack.packb(["ask", ident, self.node, dict(request)]),
                )
            except (RedisError, OSError) as error:
                raise TimeoutError(f"Redis did not take the request: {error!r}") from None
            return await asyncio.wait_for(waiting, timeout)
        finally:
            self._asked.pop(ident, None)

    async def _answer(self, ident: str, node: str, request: dict[str, Any]) -> None:
        answering = self.answerers.get(str(request.get("kind")), self.answering)
        if answering is None:
            return
        try:
            reply = await answering(request)
        except Exception:
            log.exception("cluster_request_failed", request=request)
            reply = {"status": 500, "body": {"error": "internal", "message": "The node failed."}}
        with contextlib.suppress(RedisError, OSError):
            await self.redis.publish(
                self._key("control", node), msgpack.packb(["answer", ident, self.node, reply])
            )

    async def notify(self, node: str, kind: str, notice: Mapping[str, Any]) -> None:
        """Tell ``node`` (its :attr:`noticed`) ``notice``, a map msgpack can carry, of
        ``kind``; :class:`RedisError` when Redis does not take it."""
        await self.redis.publish(
            self._key("control", node), msgpack.packb(["notice", kind, self.node, dict(notice)])
        )

    async def broadcast(self, kind: str, message: Mapping[str, Any]) -> None:
        """Tell every node (this one too: its :attr:`broadcasted`) ``message`` of ``kind``;
        :class:`RedisError` when Redis does not take it."""
        await self.redis.publish(
            self._key("control"), msgpack.packb([kind, self.node, dict(message)])
        )

    def _on_broadcast(self, message: Mapping[str, Any]) -> None:
        try:
            kind, _node, body = msgpack.unpackb(message["data"])
        except Exception:
            log.exception("cluster_broadcast_unreadable")
            return
        if isinstance(body, dict):
            self.broadcasted(str(kind), body)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks_spawned.add(task)
        task.add_done_callback(self._tasks_spawned.discard)

    # -- the lobby ------------------------------------------------------------------------------

    def publish(self, rooms: Iterable[RoomSummary], removed: Iterable[str]) -> None:
        """Put this node's lobby changes in the cluster's lobby and tell the other nodes, in
        the background; changes Redis did not take are sent again with the next ones (or at
        the next heartbeat), the newest summary of a room winning."""
        for summary in rooms:
            self._unsent_rooms[summary.room] = summary
            self._unsent_removed.discard(summary.room)
        for room in removed:
            self._unsent_removed.add(room)
            self._unsent_rooms.pop(room, None)
        unsent = self._unsent_rooms or self._unsent_removed
        idle = self._publishing is None or self._publishing.done()
        if unsent and idle and self._tasks:  # not once stopped
            self._publishing = asyncio.ensure_future(self._send_lobby())

    async def _send_lobby(self) -> None:
        while self._unsent_rooms or self._unsent_removed:
            change = LobbyChange(
                self.node, tuple(self._unsent_rooms.values()), tuple(sorted(self._unsent_removed))
            )
            self._unsent_rooms, self._unsent_removed = {}, set()
            try:
                await self._write_lobby(change)
            except (RedisError, OSError) as error:
                log.warning("cluster_lobby_not_published", node=self.node, error=repr(error))
                self.publish(change.rooms, ())  # again later; newer changes win
                self._unsent_removed |= set(change.removed) - self._unsent_rooms.keys()
                return

    async def _write_lobby(self, change: LobbyChange, announce: bool = True) -> None:
        entries = {
            summary.room: LobbyChange(self.node, (summary,)).pack() for summary in change.rooms
        }
        async with self.redis.pipeline(transaction=False) as pipe:
            if entries:
                pipe.hset(self._channel, mapping=entries)  # type: ignore[arg-type]
            for room in change.removed:
                await self._delete_if_owner(
                    keys=[self._channel], args=[room, change.node], client=pipe
                )
            if announce:
                pipe.publish(self._channel, change.pack())
            await pipe.execute()

    def _on_message(self, message: Mapping[str, Any]) -> None:
        try:
            change = LobbyChange.unpack(message["data"])
        except Exception:
            log.exception("cluster_lobby_message_unreadable")
            return
        if change.node != self.node:
            self._apply(change)

    def _apply(self, change: LobbyChange) -> None:
        """Take another node's lobby change into :attr:`remote`; a removal counts only while
        the room is still that node's (it may have moved on to a third)."""
        for summary in change.rooms:
            self.remote[summary.room] = (change.node, summary)
        removed = tuple(
            room
            for room in change.removed
            if room in self.remote and self.remote[room][0] == change.node
        )
        for room in removed:
            del self.remote[room]
        if change.rooms or removed:
            self.lobby_changed(change.rooms, removed)

    async def _read_lobby(self) -> None:
        """Read the whole cluster lobby again (the repair for a dropped pub/sub message)."""
        entries = await self.redis.hgetall(self._channel)
        fresh: dict[str, tuple[str, RoomSummary]] = {}
        for value in entries.values():
            try:
                change = LobbyChange.unpack(value if isinstance(value, bytes) else value.encode())
            except Exception:
                continue
            if change.node not in self.nodes:  # a dead node's rooms: their next owner lists them
                for summary in change.rooms:
                    await self._delete_if_owner(
                        keys=[self._channel], args=[summary.room, change.node]
                    )
            elif change.node != self.node:
                for summary in change.rooms:
                    fresh[summary.room] = (change.node, summary)
        changed = tuple(
            summary
            for room, (node, summary) in fresh.items()
            if self.remote.get(room) != (node, summary)
        )
        removed = tuple(room for room in self.remote if room not in fresh)
        self.remote = fresh
        if changed or removed:
            self.lobby_changed(changed, removed)

    def remote_rooms(self) -> list[RoomSummary]:
        """Other live nodes' public waiting and playing rooms."""
        return [summary for node, summary in self.remote.values() if node in self.nodes]


def _entry(info: NodeInfo) -> str:
    """A registry entry: the node's info as JSON."""
    return json.dumps(attrs.asdict(info))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def _cancelled(tasks: list[asyncio.Task[Any]], node: str) -> None:
    """Cancel ``tasks`` and wait for them to end, for at most :data:`REDIS_TIMEOUT` seconds: a
    task stuck in a Redis call that ignores cancellation must not hold up a stopping node (and
    the caller's own cancellation is never swallowed, as awaiting each task under
    ``suppress(CancelledError)`` would)."""
    for task in tasks:
        task.cancel()
    if not tasks:
        return
    done, pending = await asyncio.wait(tasks, timeout=REDIS_TIMEOUT)
    for task in done:  # a Redis error on the way out is no news: the node is leaving
        if not task.cancelled():
            task.exception()
    if pending:
        log.warning("cluster_tasks_not_stopped", node=node, tasks=[t.get_name() for t in pending])
