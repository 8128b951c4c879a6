"""The server's metrics: the loop histogram's exposition matches Prometheus' histogram form."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Histogram, generate_latest

from server.metrics import LoopHistogram


def _samples(text: bytes, name: str) -> list[str]:
    return [line for line in text.decode().splitlines() if line.startswith(name + "_")]


def test_a_batch_counts_as_many_observations_as_prometheus_would_make() -> None:
    """LoopHistogram.observe(value, count) exports the same buckets, count and sum as
    ``count`` calls of prometheus_client's Histogram.observe(value), a value equal to a bound
    included in that bound's bucket."""
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    buckets = (0.001, 0.01, 0.1)
    loop = LoopHistogram("lumin_x_seconds", "x", buckets, ours)
    reference = Histogram("lumin_x_seconds", "x", buckets=buckets, registry=theirs)
    for value, count in ((0.0005, 3), (0.001, 1), (0.05, 2), (7.0, 1)):
        loop.observe(value, count)
        for _ in range(count):
            reference.observe(value)
    assert _samples(generate_latest(ours), "lumin_x_seconds") == [
        line
        for line in _samples(generate_latest(theirs), "lumin_x_seconds")
        if not line.startswith("lumin_x_seconds_created")
    ]
    assert 'lumin_x_seconds_bucket{le="0.001"} 4.0' in generate_latest(ours).decode()
