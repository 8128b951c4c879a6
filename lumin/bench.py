"""``lumin bench``: benchmarks against a live server (the load generators of ``clients/``)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

__all__ = ["bench"]


@click.group()
def bench() -> None:
    """Benchmarks against a live server."""


@bench.command("race")
@click.option("--rooms", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--seconds", type=float, default=10.0, show_default=True)
@click.option(
    "--target",
    type=click.Choice(["lumin", "relay"]),
    default="lumin",
    show_default=True,
    help="relay: also run the same load against a bare websockets relay.",
)
@click.option("--url", default=None, help="An already running server (ws://HOST:PORT/ws).")
@click.option(
    "--durability",
    type=click.Choice(["process", "fsync"]),
    default="process",
    show_default=True,
    help="The server's durability mode (when the benchmark starts the server).",
)
@click.option(
    "--pairs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="With --target relay: alternate this many Lumin and relay runs; the ratio is their"
    " median (the machine's speed drifts between runs).",
)
@click.option(
    "--nodes",
    type=click.IntRange(min=1),
    default=None,
    help="Run a cluster of this many nodes (on --store and --redis) instead of the embedded"
    " server.",
)
@click.option(
    "--store",
    default=None,
    help="With --nodes: the nodes' postgresql:// store (default: a scratch database on the"
    " local PostgreSQL, dropped after).",
)
@click.option("--redis", "redis_url", default=None, help="With --nodes: the nodes' redis:// Redis.")
@click.option("--json", "as_json", is_flag=True)
def bench_race_command(
    rooms: int,
    seconds: float,
    target: str,
    url: str | None,
    durability: str,
    pairs: int,
    nodes: int | None,
    store: str | None,
    redis_url: str | None,
    as_json: bool,
) -> None:
    """Flash 8 race rooms of 4 closed-loop clients sliding as fast as the server answers."""
    from clients.load import bench_cluster, bench_race

    if nodes is not None:
        report = bench_cluster(rooms, seconds, nodes, store, redis_url)
        if as_json:
            click.echo(json.dumps(report))
            return
        _print_race(f"lumin, {nodes} node{'s' if nodes > 1 else ''}", report)
        click.echo(
            "  server CPU per command (nodes + PostgreSQL + Redis):"
            f" {report['node_cpu_us_per_command']:.0f}"
            f" + {report['postgres_cpu_us_per_command']:.0f}"
            f" + {report['redis_cpu_us_per_command']:.0f} µs"
        )
        return
    report = bench_race(rooms, seconds, target, url, durability, pairs)
    if as_json:
        click.echo(json.dumps(report))
        return
    if report.get("limits"):
        used = ", ".join(f"--{name} {value}" for name, value in report["limits"].items())
        click.echo(f"server limits raised for the load (one loopback address): {used}")
    _print_race("lumin", report)
    if "relay" in report:
        _print_race("relay", report["relay"])
        click.echo(f"  ratio lumin/relay commands per second: {report['ratio']:.2f}")
        if len(report["ratios"]) > 1:
            each = ", ".join(f"{ratio:.2f}" for ratio in report["ratios"])
            click.echo(f"  (the median of {len(report['ratios'])} alternating pairs: {each})")


def _print_race(label: str, numbers: dict[str, Any]) -> None:
    latency = numbers["latency_ms"]
    line = (
        f"{label}: {numbers['commands_per_second']:.0f} commands/s, latency p50"
        f" {latency['p50']:.2f} ms p99 {latency['p99']:.2f} ms"
    )
    if numbers.get("server_cpu_us_per_command") is not None:
        line += f", server CPU {numbers['server_cpu_us_per_command']:.0f} us/command"
    click.echo(line)
    if numbers.get("delta_bytes_median") is not None:
        click.echo(
            f"  slide delta {numbers['delta_bytes_median']:.0f} bytes (median) against a full"
            f" view of {numbers['view_bytes_median']:.0f} bytes"
        )


@bench.command("failover")
@click.option("--nodes", type=click.IntRange(min=2), default=3, show_default=True)
@click.option("--rooms", type=click.IntRange(min=1), default=30, show_default=True)
@click.option(
    "--kills",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Take-downs of the busiest node, in turn SIGKILL and SIGSTOP (then SIGCONT).",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the players' choices (the deals and the timing are the run's own).",
)
@click.option("--lease-ttl", type=click.FloatRange(0.2, 600), default=5.0, show_default=True)
@click.option(
    "--smoke",
    is_flag=True,
    help="A short run instead (4 rooms on 2 nodes, one SIGKILL, a lease TTL of 1 s).",
)
@click.option(
    "--postgres",
    default="postgresql://postgres@127.0.0.1:5432",
    show_default=True,
    help="The PostgreSQL server (no database): the run creates a database and drops it.",
)
@click.option("--redis", default="redis://127.0.0.1:6379/0", show_default=True)
@click.option("--json", "as_json", is_flag=True)
def bench_failover_command(smoke: bool, as_json: bool, **settings: Any) -> None:
    """Nodes of a cluster killed and paused under live games: exits 1 when an acknowledged
    command was lost, a log forked, a spectator missed a delta or a game did not finish."""
    from clients.failover import SMOKE, FailoverRun, bench_failover

    report = bench_failover(FailoverRun(**(settings | SMOKE if smoke else settings)))
    if as_json:
        click.echo(json.dumps(report))
    else:
        _print_failover(report)
    if report["failed"]:
        sys.exit(1)


def _print_failover(report: dict[str, Any]) -> None:
    signals = ", ".join(down["signal"] for down in report["takedowns"]) or "none"
    failover = report["failover_seconds"]
    kills = f"{report['kills']} kill{'' if report['kills'] == 1 else 's'}"
    click.echo(
        f"failover: {report['nodes']} nodes, {report['rooms']} rooms, {kills}"
        f" ({signals}), lease TTL {report['lease_ttl']:g} s, seed {report['seed']}:"
        f" {report['seconds']:.0f} s"
    )
    click.echo(
        f"  {report['acked']} commands acknowledged ({report['acked_during_failover']} during"
        f" failovers), {report['acked_lost']} lost, {report['forks']} forks"
    )
    click.echo(
        f"  {report['rooms_moved']} rooms moved, back in play after p50 {failover['p50']} s,"
        f" max {failover['max']} s; {report['rooms_finished']}/{report['rooms']} games finished"
    )
    click.echo(
        f"  {report['spectators']} spectators: {report['spectator_gaps']} gaps,"
        f" {report['snapshots']} snapshots"
    )
    for n, down in enumerate(report["takedowns"], 1):
        went = ", ".join(f"{node} {count}" for node, count in down["moved_to"].items()) or "-"
        click.echo(
            f"  kill {n} ({down['signal']} of {down['node']}): {down['moved']} of"
            f" {down['rooms']} rooms moved, to {went}; owners again after"
            f" {down['settle_seconds']} s, back in play after max"
            f" {down['failover_max_seconds']} s"
        )
    for failure in report["failed"]:
        click.echo(f"  FAILED: {failure}")
    if report.get("logs"):
        click.echo(f"  the nodes' logs are in {report['logs']}")
