"""Prometheus metrics of the server, served at ``/metrics``.

Each server has its own registry: Lumin's series, the process's (CPU, memory, open files),
the garbage collector's and the platform's, and ``lumin_build_info``. Counters carry no
``_created`` series (:func:`prometheus_client.disable_created_metrics`, process-wide).
``docs/operating.md`` ("Metrics") describes every series and what to alert on.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import importlib.metadata
import math
import os
import platform
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.utils import floatToGoString

__all__ = [
    "LAG_HISTORY",
    "LAG_WINDOW",
    "LOOP_LAG_INTERVAL",
    "LagSeconds",
    "LoopHistogram",
    "Metrics",
    "WalSize",
    "lumin_version",
]

# A counter's ``_created`` series doubles every counter's exposition and says nothing an
# operator uses (the process start time does).
disable_created_metrics()

#: Seconds between two wake-ups of the event loop's lag probe (:meth:`Metrics.watch_loop`).
LOOP_LAG_INTERVAL = 0.25
#: Seconds the ``lumin_event_loop_lag_recent_max_seconds`` gauge looks back, and seconds of
#: per-second worst lags kept (``GET /api/admin/loop``).
LAG_WINDOW, LAG_HISTORY = 10, 120


def lumin_version() -> str:
    """The installed ``lumin`` distribution's version (``unknown`` when it is not installed)."""
    try:
        return importlib.metadata.version("lumin")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class LoopHistogram:
    """A Prometheus histogram for the event loop's thread alone, that counts several
    observations of one value in one call (every command of a batch took the batch's time).

    Counts are plain integers, exported in the standard histogram form (``_bucket`` with
    ``le``, ``_count``, ``_sum``) when ``/metrics`` is read. ``prometheus_client``'s
    ``Histogram`` takes a lock and updates two counters per observation, which showed in the
    server's profile at thousands of commands per second.
    """

    def __init__(
        self, name: str, documentation: str, buckets: Sequence[float], registry: CollectorRegistry
    ) -> None:
        self.name = name
        self.documentation = documentation
        self.bounds = (*sorted(buckets), math.inf)
        self.counts = [0] * len(self.bounds)
        self.sum = 0.0
        registry.register(self)

    def observe(self, value: float, count: int = 1) -> None:
        """Count ``count`` observations of ``value``."""
        self.counts[bisect.bisect_left(self.bounds, value)] += count
        self.sum += value * count

    def collect(self) -> Iterator[HistogramMetricFamily]:
        cumulative, buckets = 0, []
        for bound, count in zip(self.bounds, self.counts, strict=True):
            cumulative += count
            buckets.append((floatToGoString(bound), cumulative))
        yield HistogramMetricFamily(
            self.name, self.documentation, buckets=buckets, sum_value=self.sum
        )


class LagSeconds:
    """The event loop's worst lag in each of the last :data:`LAG_HISTORY` wall-clock seconds
    (what ``GET /api/admin/loop`` shows), and the ``lumin_event_loop_lag_recent_max_seconds``
    gauge: the worst of the last :data:`LAG_WINDOW` of them. The histogram says how often the
    loop was late; this says how late it was at worst, and when."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.seconds: collections.deque[tuple[int, float]] = collections.deque()
        registry.register(self)

    def observe(self, value: float, now: float) -> None:
        """Note a lag of ``value`` seconds at wall-clock time ``now``."""
        second = int(now)
        if self.seconds and self.seconds[-1][0] == second:
            if value > self.seconds[-1][1]:
                self.seconds[-1] = (second, value)
        else:
            self.seconds.append((second, value))
        while self.seconds and self.seconds[0][0] <= second - LAG_HISTORY:
            self.seconds.popleft()

    def worst(self, since: float, until: float) -> float:
        """The worst lag seen in the whole seconds from ``since`` to ``until`` (wall clock)."""
        return max(
            (value for second, value in self.seconds if int(since) <= second <= int(until)),
            default=0.0,
        )

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = time.time()
        yield GaugeMetricFamily(
            "lumin_event_loop_lag_recent_max_seconds",
            f"The event loop's worst lag in the last {LAG_WINDOW} seconds",
            value=self.worst(now - LAG_WINDOW + 1, now),
        )


class WalSize:
    """The ``lumin_store_wal_bytes`` gauge: the size of an SQLite database's write-ahead log
    (its ``-wal`` file), read when ``/metrics`` is scraped; 0 while there is none."""

    def __init__(self, database: Path, registry: CollectorRegistry) -> None:
        self.wal = Path(f"{database}-wal")
        registry.register(self)

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            size = os.stat(self.wal).st_size
        except OSError:
            size = 0
        yield GaugeMetricFamily(
            "lumin_store_wal_bytes",
            "Bytes in the SQLite store's write-ahead log, not yet copied into the database",
            value=size,
        )


class Metrics:
    """One registry per server, so tests can run several servers in a process."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        self.build_info = Gauge(
            "lumin_build_info",
            "Always 1: the Lumin version and the Python version this server runs",
            ["version", "python"],
            registry=self.registry,
        )
        self.build_info.labels(lumin_version(), platform.python_version()).set(1)
        self.rooms = Gauge(
            "lumin_rooms", "Rooms in memory by state", ["state"], registry=self.registry
        )
        self.connections = Gauge(
            "lumin_connections", "Open websocket connections", registry=self.registry
        )
        self.commands = Counter(
            "lumin_commands_total", "Game commands accepted", ["game"], registry=self.registry
        )
        self.rejections = Counter(
            "lumin_rejections_total", "Commands refused, by code", ["code"], registry=self.registry
        )
        self.protocol_errors = Counter(
            "lumin_protocol_errors_total",
            "Bad frames and requests, by code",
            ["code"],
            registry=self.registry,
        )
        self.latency = LoopHistogram(
            "lumin_command_seconds",
            "From a command's arrival in its room to its deltas being queued",
            buckets=(0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
            registry=self.registry,
        )
        self.append = LoopHistogram(
            "lumin_store_append_seconds",
            "From a record's append to its durable commit",
            buckets=(0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.1, 1.0),
            registry=self.registry,
        )
        self.dropped = Counter(
            "lumin_slow_clients_total",
            "Connections dropped for not keeping up",
            registry=self.registry,
        )

        self.room_failures = Counter(
            "lumin_room_failures_total",
            "Rooms closed by a failure: a bug in a live room, or a room that could not be"
            " rebuilt at start-up",
            registry=self.registry,
        )
        self.relay_gaps_filled = Counter(
            "lumin_relay_gaps_filled_total",
            "Public deltas of rooms another node plays that pub/sub dropped and this node made"
            " again from the log",
            registry=self.registry,
        )
        self.refused_connections = Counter(
            "lumin_refused_connections_total",
            "Connections refused, by reason: at the websocket handshake (origin,"
            " connections_per_address, connect_rate), at hello (version), or closed for"
            " flooding (flood)",
            ["reason"],
            registry=self.registry,
        )
        self.limit_refusals = Counter(
            "lumin_limit_refusals_total",
            "Requests refused by a per-person or per-address limit, by limit",
            ["limit"],
            registry=self.registry,
        )
        self.connections_opened = Counter(
            "lumin_connections_opened_total",
            "Websocket connections opened (past the handshake)",
            registry=self.registry,
        )
        self.connections_closed = Counter(
            "lumin_connections_closed_total",
            "Websocket connections closed, by reason (the close code's class, or what the"
            " server closed it for)",
            ["reason"],
            registry=self.registry,
        )
        self.loop_lag = LoopHistogram(
            "lumin_event_loop_lag_seconds",
            "How late the event loop wakes a sleep: the wait of everything ready to run",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
            registry=self.registry,
        )
        self.loop_lag_seconds = LagSeconds(self.registry)
        self.recovery_seconds = Gauge(
            "lumin_recovery_seconds",
            "Seconds the last start-up spent rebuilding rooms from the store",
            registry=self.registry,
        )
        self.recovered_rooms = Gauge(
            "lumin_recovered_rooms",
            "Rooms the last start-up rebuilt and set going",
            registry=self.registry,
        )
        # prometheus_client's Histogram takes a lock, so the SQLite writer thread (fsync
        # durability) may observe it too; one observation per batch, not per command.
        self.store_commit = Histogram(
            "lumin_store_commit_seconds",
            "Time one batch of store writes took to commit (one transaction)",
            buckets=(0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5),
            registry=self.registry,
        )
        self.bot_think = Histogram(
            "lumin_bot_think_seconds",
            "Time a bot took to choose one move, by game and bot kind",
            ["game", "kind"],
            buckets=(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
            registry=self.registry,
        )

    def watch_wal(self, database: Path) -> None:
        """Export the size of ``database``'s write-ahead log (the SQLite store)."""
        WalSize(database, self.registry)

    async def watch_loop(self, interval: float = LOOP_LAG_INTERVAL) -> None:
        """Forever: sleep ``interval`` and count how late the loop woke this task (its lag:
        what any callback that becomes ready now waits before it runs)."""
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + interval
            await asyncio.sleep(interval)
            lag = max(0.0, loop.time() - due)
            self.loop_lag.observe(lag)
            self.loop_lag_seconds.observe(lag, time.time())

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
