"""The server: one port for the websocket endpoint (``/ws``) and the HTTP routes
(:mod:`server.http`), the store and the hub, started and stopped as one.

Each websocket connection is a :class:`~server.client.Client` on a
:class:`~server.transport.ClientSocket`, whose requests the handlers of
:mod:`server.handlers` answer.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import secrets
import signal
import socket
import sqlite3
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import asyncpg
import structlog
from websockets.asyncio.server import Server, serve
from websockets.asyncio.server import ServerConnection as Socket
from websockets.http11 import Request, Response

from server.admin import AdminApi
from server.catalog import catalog
from server.client import Client
from server.cluster import Cluster, OtherCluster
from server.config import Settings, shown_url, split_host_port
from server.datalock import DataFolderInUse, DataLock
from server.http import HttpRoutes, metrics_response, response
from server.hub import Hub
from server.limits import Opening, parse_networks
from server.metrics import Metrics
from server.ownership import Ownership
from server.pgstore import PostgresStore
from server.store import EventStore, SchemaTooNew, Store
from server.transport import ClientSocket, bind

__all__ = ["LuminServer", "StartupError", "run"]

log = structlog.get_logger("lumin.server")


class StartupError(Exception):
    """The server cannot start, for a reason its operator can fix: the sentence says which
    (``lumin serve`` prints it as one line and exits 1)."""


class LuminServer:
    """The whole server: store, hub, websocket endpoint and HTTP routes.

    Building one takes the data folder's lock (:class:`~server.datalock.DataLock`) and opens
    its store; :meth:`start` rebuilds the rooms and listens. Either raises
    :class:`StartupError` when the folder is held by another server or cannot be written, or
    the address cannot be listened on."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.metrics = Metrics()
        self.lock: DataLock | None = None
        self.store: Store
        if settings.store is not None:
            self.store = PostgresStore(settings.store)
        else:
            self.lock = DataLock(settings.data)
            try:
                self.lock.acquire()
                self.store = EventStore(settings.database, settings.durability)
            except DataFolderInUse as error:
                raise StartupError(str(error)) from None
            except (OSError, sqlite3.Error, SchemaTooNew) as error:
                self.lock.release()
                reason = getattr(error, "strerror", None) or str(error)
                raise StartupError(f"cannot use data folder {settings.data}: {reason}") from None
        self.store.observe_commit = self.metrics.store_commit.observe
        if isinstance(self.store, EventStore):
            self.metrics.watch_wal(self.store.path)
        self.hub = Hub(settings, self.store, self.metrics)
        if isinstance(self.store, PostgresStore):
            node = settings.node_id or f"node-{secrets.token_hex(3)}"
            self.hub.ownership = Ownership(
                self.store, node, settings.lease_ttl, self.hub.lost, self.hub.took
            )
        self.limits = self.hub.limits
        self.server: Server | None = None
        #: The ``--metrics-listen`` listener, when there is one.
        self.metrics_server: Server | None = None
        self._housekeeping: asyncio.Task[None] | None = None
        #: The operator's drain, once asked (:meth:`drain`).
        self._draining: asyncio.Future[int] | None = None
        self._loop_lag: asyncio.Task[None] | None = None
        self.recovered = 0
        self.store_open = False
        #: Every open connection, and how many each client address bucket holds.
        self.clients: set[Client] = set()
        self.per_address: collections.Counter[str] = collections.Counter()
        #: Connections still opening, by address bucket (``--opening-per-address``).
        self.opening = Opening(
            settings.opening_per_address, settings.ipv6_prefix,
            parse_networks(settings.trusted_proxies),
            rate=2 * (settings.http_rate + settings.connect_rate),
            burst=2 * (settings.http_burst + settings.connect_burst),
        )  # fmt: skip
        self.http = HttpRoutes(settings, self.hub, self.metrics, self.per_address)
        self.admin = AdminApi(
            settings, self.hub, self.clients, self.drain, lambda: settings.node_url(self.port)
        )
        self.http.admin = self.admin

    async def start(self) -> None:
        """Take the port (before any other work, so a port in use fails at once), load every
        game, rebuild rooms from the log, then accept connections."""
        try:
            listening = bind(self.settings.host, self.settings.port)
        except OSError as error:
            await self.stop()
            where = f"{self.settings.host}:{self.settings.port}"
            reason = (error.strerror or str(error)).lower()
            raise StartupError(f"cannot listen on {where}: {reason}") from None
        started = time.perf_counter()
        catalog()  # imports every game's rules now, not while the first visitor waits
        if self.http.static.missing:  # the browser client was named but is not there
            log.warning("static_folder_missing", path=str(self.settings.static))
        try:
            await self.store.open()
            self.store_open = True
        except (OSError, asyncpg.PostgresError, SchemaTooNew) as error:
            listening.close()
            await self.stop()
            raise StartupError(
                f"cannot open the store {shown_url(self.settings.store)}: {error}"
            ) from None
        await self.hub.reload_bans()
        await self.hub.accounts.load_secret()  # made at the first start, shared by every node
        if self.settings.redis is not None:  # in the registry before the rooms come back
            try:
                await self._join_cluster(listening.getsockname()[1])
            except StartupError:
                listening.close()
                await self.stop()
                raise
        if self.hub.ownership is not None:  # renewing from the first claim of the recovery
            self.hub.ownership.start()
        rebuilding = time.perf_counter()
        self.recovered = await self.hub.recover()
        if self.hub.ownership is not None:
            self.hub.ownership.claiming = True
        rebuilt = time.perf_counter() - rebuilding
        self.metrics.recovery_seconds.set(rebuilt)
        self.metrics.recovered_rooms.set(self.recovered)
        log.info("recovered", rooms=self.recovered, rebuild_seconds=round(rebuilt, 3),
                 seconds=round(time.perf_counter() - started, 3))  # fmt: skip
        self.metrics_server = await self._listen_metrics()
        self.server = await self._listen(listening)
        self._housekeeping = asyncio.create_task(self.hub.housekeeping())
        self._loop_lag = asyncio.create_task(self.metrics.watch_loop(self.settings.lag_probe))
        host = f"[{self.settings.host}]" if ":" in self.settings.host else self.settings.host
        log.info("listening", host=self.settings.host, port=self.port,
                 url=f"ws://{host}:{self.port}/ws")  # fmt: skip

    async def _join_cluster(self, port: int) -> None:
        """Enter the cluster's registry at this node's public URL, with its load and rooms."""
        assert self.settings.redis is not None and self.hub.ownership is not None
        ownership = self.hub.ownership
        cluster = Cluster(
            self.settings.redis,
            ownership.node,
            self.settings.node_url(port),
            prefix=self.settings.redis_prefix,
            heartbeat=min(1.0, self.settings.lease_ttl / 3),
            cluster_id=await ownership.store.cluster_id(),  # made at the cluster's first start
        )
        cluster.load = lambda: (self.hub.load(), len(self.clients))
        cluster.owned = lambda: list(ownership.epochs)
        ownership.share = cluster.claim_share  # a dead node's rooms go to the lightest nodes
        cluster.lobby_changed = self.hub.remote_lobby
        cluster.listed = lambda: [
            room.summary()
            for room in self.hub.rooms.values()
            if self.hub.listed(room) and room.status in ("waiting", "playing")
        ]
        cluster.relayed = self.hub.relays.frame
        cluster.controlled = self.hub.relays.control
        cluster.beaten = self.hub.relays.check
        cluster.answering = self.admin.answer
        cluster.answerers["quick_room"] = self.hub.quickplay.make_for
        cluster.noticed = self.hub.quickplay.noticed
        cluster.broadcasted = self.hub.cluster_said
        self.hub.ratings.cluster = cluster  # rating updates serialized across the nodes
        self.hub.cluster = cluster
        try:
            await cluster.start()
        except OtherCluster as error:
            self.hub.ratings.cluster = self.hub.cluster = None
            await cluster.stop(leave=False)  # the other cluster's entries are not ours to drop
            where = shown_url(self.settings.redis)
            raise StartupError(f"cannot join the cluster at {where}: {error}") from None
        log.info("cluster_joined", node=ownership.node, url=cluster.public_url,
                 nodes=len(cluster.nodes), redis=cluster.reachable)  # fmt: skip

    async def _listen(self, listening: socket.socket) -> Server:
        return await serve(
            self._connection,
            sock=listening,
            process_request=self.http.route,
            # A message over twice the frame limit closes the connection (1009); one between
            # the two gets too_large. Together with ClientSocket's budget, this bounds what
            # one connection's input can hold.
            max_size=2 * self.settings.max_frame,
            max_queue=32,
            create_connection=ClientSocket.serving(self.opening, self._opening_refused),
            compression=None,  # frames are small msgpack; deflate would cost more than it saves
            ping_interval=20,
            ping_timeout=20,
            server_header="Lumin",
        )

    def _opening_refused(self, address: str) -> None:
        """Count (and log, at debug: a flood's every connection would flood the log too) a
        connection closed at once: its address has as many opening as
        ``--opening-per-address`` allows, or opens them past twice its rates."""
        self.metrics.refused_connections.labels("opening_per_address").inc()
        log.debug("handshake_refused", reason="opening_per_address", address=address)

    async def _listen_metrics(self) -> Server | None:
        """The ``--metrics-listen`` listener: ``/metrics`` alone, plain HTTP, no token."""
        if self.settings.metrics_listen is None:
            return None
        host, port = split_host_port(self.settings.metrics_listen)

        def answer(connection: Socket, request: Request) -> Response:
            if request.path.split("?", 1)[0] != "/metrics":
                return response(HTTPStatus.NOT_FOUND, b"Only /metrics is here.\n", "text/plain")
            return metrics_response(self.metrics)

        async def never(socket: Socket) -> None:  # no request here becomes a websocket
            await socket.close(1008)

        try:
            return await serve(never, host, port, process_request=answer, server_header="Lumin")
        except OSError as error:
            reason = (error.strerror or str(error)).lower()
            raise StartupError(f"cannot listen for metrics on {host}:{port}: {reason}") from None

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    @property
    def metrics_port(self) -> int:
        """The port ``--metrics-listen`` listens on (its port 0: any free port)."""
        assert self.metrics_server is not None, "this server has no --metrics-listen"
        return int(self.metrics_server.sockets[0].getsockname()[1])

    async def _connection(self, socket: Socket) -> None:
        assert isinstance(socket, ClientSocket)  # serve(create_connection=ClientSocket)
        client = Client(socket, self.hub, self.settings, self.limits)
        self.clients.add(client)
        self.per_address[client.address_key] += 1
        self.metrics.connections.inc()
        self.metrics.connections_opened.inc()
        structlog.contextvars.bind_contextvars(connection=client.connection)
        log.info("connection_opened", address=client.address)
        opened = time.monotonic()
        try:
            await client.serve()
        finally:
            code, reason, by = _closing(socket)
            cause = client.closed_for or _CLOSE_CAUSES.get(code, "other")
            self.metrics.connections_closed.labels(cause).inc()
            log.info("connection_closed", user=client.user or None, code=code, reason=reason,
                     by=by, cause=cause, seconds=round(time.monotonic() - opened, 3))  # fmt: skip
            self.clients.discard(client)
            self.per_address[client.address_key] -= 1
            if not self.per_address[client.address_key]:
                del self.per_address[client.address_key]
            self.metrics.connections.dec()

    async def stop(self) -> None:
        """Graceful shutdown: stop accepting, finish appends, close connections with 1001."""
        if self._housekeeping is not None:
            self._housekeeping.cancel()
        if self._loop_lag is not None:
            self._loop_lag.cancel()
        if self.server is not None:
            self.server.close(close_connections=False)
        if self.metrics_server is not None:
            self.metrics_server.close()
        ownership = self.hub.ownership
        if self._draining is not None:  # the operator's drain is under way: it finishes first
            await asyncio.gather(self._draining, return_exceptions=True)
        if self.hub.cluster is not None and ownership is not None and self.store_open:
            await self._drain(self.hub.cluster, ownership)  # what is left (nothing, after one)
        if ownership is not None:
            await ownership.stop()
        for room in list(self.hub.rooms.values()):
            await room.stop()
        if ownership is not None and self.store_open:
            # Every room's last commit first, then let the rooms go, so other nodes take them
            # at once instead of after the lease's TTL.
            with contextlib.suppress(Exception):
                await ownership.store.flush()
            for room_id in list(ownership.epochs):
                with contextlib.suppress(Exception):
                    await ownership.release(room_id)
        await self.hub.quickplay.forget()  # its players leave the cluster's queue
        if self.server is not None:
            for client in list(self.clients):
                client.going_away()
            sockets = list(self.server.connections)
            closing = [socket.close(1001, "going away") for socket in sockets]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 5.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.server.wait_closed(), timeout=5.0)
        if self.hub.cluster is not None:
            await self.hub.cluster.stop()
        self.hub.accounts.hashes.close()
        with contextlib.suppress(RuntimeError):  # a PostgreSQL store that never opened
            await self.store.aclose()
        if self.lock is not None:
            self.lock.release()

    async def drain(self) -> dict[str, Any]:
        """The operator's drain (``lumin admin drain NODE``): this node takes no new rooms
        and ``/readyz`` fails from now on; on a cluster it also hands every room it plays to
        the other nodes, as a stop does, and leaves the registry. The hand-over runs in the
        background (it may take up to ``drain_timeout``, longer than an HTTP request may), once
        however often it is asked; the answer says how many rooms it has to hand over. The
        node keeps running (and serving what it still has) until it is stopped."""
        rooms = self.hub.load()
        if not self.hub.draining:
            log.info("drain_asked", node=self.admin.node, rooms=rooms)
        self.hub.draining = True
        ownership = self.hub.ownership
        clustered = self.hub.cluster is not None and ownership is not None and self.store_open
        if clustered and self._draining is None:
            assert self.hub.cluster is not None and ownership is not None
            self._draining = asyncio.ensure_future(self._drain(self.hub.cluster, ownership))
        node = self.admin.node
        return {"node": node, "draining": True, "rooms": rooms, "handing_over": clustered}

    async def _drain(self, cluster: Cluster, ownership: Ownership) -> int:
        """A cluster node stopping hands its rooms over one by one (each after its last
        commit, to the lightest other node, whose clients are sent on at once), renewing the
        leases of those still waiting their turn, for at most ``drain_timeout`` seconds; it
        claims and creates nothing meanwhile."""
        ownership.claiming = False
        self.hub.draining = True
        await cluster.leave()
        started, handed = time.perf_counter(), 0
        deadline = started + self.settings.drain_timeout
        while live := [
            room
            for room in self.hub.rooms.values()
            if not room.closed and room.status in ("waiting", "playing")
        ]:
            left = deadline - time.perf_counter()
            if left <= 0:  # the rest are released as the server stops: claimed within a round
                log.warning("drain_timed_out", rooms=len(live))
                break
            try:
                await self.hub.hand_over(live[0], left)
                handed += 1
            except Exception:  # the store away: the lease lapses, and another node claims it
                log.exception("hand_over_failed", room=live[0].id)
                live[0].halt()
                live[0].send_on()
        log.info("drained", rooms=handed, seconds=round(time.perf_counter() - started, 3))
        return handed


async def run(settings: Settings, ready: Callable[[LuminServer], None] | None = None) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    server = LuminServer(settings)
    await server.start()
    # What start-up built (modules, recovered rooms, tables) lives as long as the process:
    # moved out of the collector's sight, full collections stay short during play.
    gc.collect()
    gc.freeze()
    if ready is not None:
        ready(server)
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(
            sig, lambda: stop.done() or stop.set_result(None)
        )
    await stop
    log.info("shutting_down")
    await server.stop()
    log.info("stopped")


#: ``lumin_connections_closed_total``'s ``reason`` for each close code (others: ``other``);
#: the server's own reasons for a 1008 (``flood``, ``slow``) come from the connection.
_CLOSE_CAUSES = {
    1000: "normal",
    1001: "going_away",
    1002: "protocol",
    1003: "protocol",
    1006: "abnormal",
    1007: "protocol",
    1008: "policy",
    1009: "too_large",
    1011: "internal",
}


def _closing(socket: ClientSocket) -> tuple[int, str, str | None]:
    """How a connection closed: the close frame's code and reason, and ``by`` whom (the side
    that sent the first close frame: ``server`` or ``client``; ``None`` and 1006 when the TCP
    connection ended without one)."""
    sent, received = socket.protocol.close_sent, socket.protocol.close_rcvd
    if sent is not None and (received is None or not socket.protocol.close_rcvd_then_sent):
        return sent.code, sent.reason, "server"
    if received is not None:
        return received.code, received.reason, "client"
    return 1006, "", None
