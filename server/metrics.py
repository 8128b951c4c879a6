"""Prometheus metrics of the server, served at ``/metrics``."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

__all__ = ["Metrics"]


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
        self.latency = Histogram(
            "lumin_command_seconds",
            "From a command's arrival in its room to its deltas being queued",
            buckets=(0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
            registry=self.registry,
        )
        self.append = Histogram(
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

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
