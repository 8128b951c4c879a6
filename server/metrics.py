"""Prometheus metrics of the server, served at ``/metrics``."""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import HistogramMetricFamily
from prometheus_client.utils import floatToGoString

__all__ = ["LoopHistogram", "Metrics"]


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


class Metrics:
    """One registry per server, so tests can run several servers in a process."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
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
            "Websocket handshakes refused, by reason",
            ["reason"],
            registry=self.registry,
        )

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
