"""The load generator behind ``lumin bench race``.

It starts a Lumin server in its own process (or uses ``--url``), pinned to another core than
itself where the machine has two, opens R Flash 8 race rooms of four closed-loop clients, and
has every client slide as fast as the server answers: send a slide, wait for the answer (which
the server sends right after the slide's delta), send the next. It reports commands per second,
latency percentiles from sending a slide to receiving its answer, the server's CPU time per
command, the median size of a slide delta against a full view, and the share of its own core
the load generator used (near 1, the load generator is what limits the rate).

With ``target="relay"`` it runs the same load against a bare websockets relay (receive a frame,
broadcast it to the room, no game, no store) and reports the ratio; ``pairs`` alternates
several Lumin and relay runs and reports the median ratio.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import uvloop
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, broadcast, serve

from protocol.codec import encode
from protocol.messages import Act

__all__ = [
    "LOAD_LIMITS",
    "bench_cluster",
    "bench_race",
    "drive",
    "free_port",
    "limit_flags",
    "relay_main",
    "scratch_database",
    "wait_healthy",
]

ROOT = Path(__file__).resolve().parent.parent

#: The limits a server under load runs with: every load client comes from this one loopback
#: address (which gets no exemption from the limits) and acts as fast as it is answered, so
#: the benchmarks raise them, and report the values used.
LOAD_LIMITS: dict[str, float | int] = {
    "rate": 100_000.0,
    "burst": 100_000,
    "address-rate": 1_000_000.0,
    "address-burst": 1_000_000,
    "connect-rate": 10_000.0,
    "connect-burst": 100_000,
    "connections-per-address": 100_000,
    "rooms-per-identity": 10_000,
    "rooms-per-address": 100_000,
    "opening-per-address": 100_000,
    "http-rate": 100_000.0,
    "http-burst": 100_000,
}


def limit_flags(limits: dict[str, float | int]) -> list[str]:
    """``lumin serve`` flags for ``limits`` (flag name without ``--``: value)."""
    return [part for name, value in limits.items() for part in (f"--{name}", str(value))]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (for a server the caller is about to start)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _pinned(command: list[str], core: int | None) -> list[str]:
    if core is not None and shutil.which("taskset"):
        return ["taskset", "-c", str(core), *command]
    return command


def _cores() -> tuple[int | None, int | None]:
    """(server core, load core) where the machine has two cores to give, else no pinning."""
    available = sorted(os.sched_getaffinity(0))
    if len(available) >= 2:
        return available[0], available[1]
    return None, None


def wait_healthy(port: int, timeout: float = 20.0) -> None:
    """Wait (up to about ``timeout`` seconds) until the Lumin server on ``port`` answers
    ``/healthz``."""
    for _ in range(round(timeout / 0.05)):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the server did not come up")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class _Racer:
    """One closed-loop load client, as lean as a fast bot can be: it decodes frames with
    msgpack alone and keeps only its seat's legal commands and ``seq`` (it needs no view to
    pick a slide), so the load generator measures the server rather than itself."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.next_id = 0
        self.seq = 0
        self.legal: list[dict[str, Any]] = []
        self.over = False
        #: (type, bytes) of snapshot frames and of deltas of one step (one slide); a delta
        #: covering a batch of several steps is not a slide delta and is not recorded.
        self.frames: list[tuple[str, int]] = []

    @classmethod
    async def connect(cls, url: str, name: str) -> _Racer:
        racer = cls(await connect(url, max_size=None, compression=None))
        await racer.request({"type": "hello", "versions": [1, 2], "name": name})
        return racer

    def _note(self, frame: bytes) -> dict[str, Any]:
        message: dict[str, Any] = msgpack.unpackb(frame)
        kind = message["type"]
        if kind == "snapshot":
            self.seq, self.legal = message.get("seq", 0), message.get("legal", [])
            self.frames.append((kind, len(frame)))
        elif kind == "delta":
            self.seq = message["seq"]
            if message.get("legal") is not None:
                self.legal = message["legal"]
            if message["seq"] - message["base"] == 1:
                self.frames.append((kind, len(frame)))
        elif kind == "game_over":
            self.over = True
        return message

    async def request(self, message: dict[str, Any], answer: str | None = None) -> dict[str, Any]:
        """Send ``message`` with a fresh id; read (and note) frames until its answer (of type
        ``answer``, or any but the snapshot that some requests also bring)."""
        self.next_id += 1
        await self.socket.send(msgpack.packb({**message, "id": self.next_id}))
        while True:
            reply = self._note(await self.socket.recv())
            if reply.get("ref") != self.next_id:
                continue
            if reply["type"] == "error":
                raise RuntimeError(f"{message['type']}: {reply['message']}")
            if reply["type"] == answer or (answer is None and reply["type"] != "snapshot"):
                return reply

    async def until_sliding(self) -> None:
        while not any(entry["type"] == "slide" for entry in self.legal):
            self._note(await self.socket.recv())


async def _lumin_room(
    url: str,
    window: _Window,
    latencies: list[float],
    sizes: dict[str, list[int]],
    senders: int = 4,
) -> int:
    """One race room of four clients, ``senders`` of them sliding closed-loop (the others
    only read what they are sent); returns the slides they made."""
    racers = [await _Racer.connect(url, f"load{n}") for n in range(4)]
    host = racers[0]
    request = {
        "type": "create_room",
        "game": "flash8",
        "seats": [{"kind": "human"}] * 4,
        "options": {"countdown": 0.2},
        "sit": 0,
    }
    created = await host.request(request)
    for _ in range(3):  # a cluster node sends the room to a lighter one, as clients follow
        if created["type"] != "moved":
            break
        for racer in racers:
            await racer.socket.close()
        racers = [await _Racer.connect(created["url"], f"load{n}") for n in range(4)]
        host = racers[0]
        created = await host.request(request)
    room = created["room"]
    for seat, racer in enumerate(racers[1:], start=1):
        await racer.request({"type": "join_seat", "room": room, "seat": seat})
        await racer.request({"type": "ready", "room": room})
    await host.request({"type": "start", "room": room})
    for racer in racers:
        await racer.until_sliding()
    recorder = racers[1]
    recorder.frames.clear()
    rng = random.Random(room)
    await window.ready()

    async def slide(racer: _Racer) -> int:
        made = 0
        while time.perf_counter() < window.deadline and not racer.over:
            moves = [entry for entry in racer.legal if entry["type"] == "slide"]
            if not moves:
                await racer.until_sliding()
                continue
            entry = rng.choice(moves)
            command = {k: v for k, v in entry.items() if k not in ("choose", "preview")}
            if "choose" in entry:
                ((field, values),) = entry["choose"].items()
                command[field] = rng.choice(values)
            sent = time.perf_counter()
            answer = await racer.request(
                {"type": "act", "room": room, "command": command, "seq": racer.seq}
            )
            latencies.append(time.perf_counter() - sent)
            made += answer["type"] == "accepted"
        return made

    async def read(racer: _Racer) -> int:
        with contextlib.suppress(asyncio.TimeoutError):
            while time.perf_counter() < window.deadline and not racer.over:
                left = window.deadline - time.perf_counter()
                racer._note(await asyncio.wait_for(racer.socket.recv(), max(left, 0.001)))
        return 0

    counts = await asyncio.gather(
        *(slide(racer) if n < senders else read(racer) for n, racer in enumerate(racers))
    )
    sizes["delta"].extend(size for kind, size in recorder.frames if kind == "delta")
    # A full view as a client receives one: the snapshot frame (view, legal, envelope) that a
    # resume from seq 0 always gets.
    recorder.frames.clear()
    await recorder.request({"type": "resume", "room": room, "seq": 0, "epoch": ""}, "snapshot")
    sizes["view"].extend(size for kind, size in recorder.frames if kind == "snapshot")
    for racer in racers:
        await racer.socket.close()
    return sum(counts)


async def _relay_room(
    url: str, window: _Window, latencies: list[float], payload: bytes, senders: int = 4
) -> int:
    sockets = [await connect(url, max_size=None, compression=None) for _ in range(4)]
    await window.ready()

    async def read(sock: Any) -> int:
        with contextlib.suppress(asyncio.TimeoutError):
            while time.perf_counter() < window.deadline:
                left = window.deadline - time.perf_counter()
                await asyncio.wait_for(sock.recv(), max(left, 0.001))
        return 0

    async def loop(sock: Any, tag: bytes) -> int:
        made = 0
        frame = tag + payload
        while time.perf_counter() < window.deadline:
            sent = time.perf_counter()
            await sock.send(frame)
            while True:  # every member's frames arrive; wait for our own echo
                if await sock.recv() == frame:
                    break
            latencies.append(time.perf_counter() - sent)
            made += 1
        return made

    counts = await asyncio.gather(
        *(loop(s, bytes([n])) if n < senders else read(s) for n, s in enumerate(sockets))
    )
    for sock in sockets:
        await sock.close()
    return sum(counts)


async def _relay_server(port: int) -> None:
    rooms: dict[str, set[ServerConnection]] = {}

    async def handler(sock: ServerConnection) -> None:
        members = rooms.setdefault(sock.request.path if sock.request else "/", set())
        members.add(sock)
        try:
            async for frame in sock:
                broadcast(members, frame)
        finally:
            members.discard(sock)

    # The same websocket settings as Lumin's server: no per-message compression.
    async with serve(handler, "127.0.0.1", port, max_size=None, compression=None):
        await asyncio.Future()


def relay_main(port: int) -> None:
    """Run the bare relay (``python -m clients.load relay PORT``)."""
    uvloop.run(_relay_server(port))


class _Window:
    """The measured interval: it opens once every room is set up, and lasts ``seconds``."""

    def __init__(self, rooms: int, seconds: float, probes: dict[str, Callable[[], float]]) -> None:
        self.waiting = rooms
        self.seconds = seconds
        #: CPU seconds used so far, by what: the server, each engine of a cluster...
        self.probes = probes
        self.go = asyncio.Event()
        self.deadline = float("inf")
        self.cpu_start: dict[str, float] = {}
        self.load_cpu_start = 0.0
        self.started = 0.0

    async def ready(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.started = time.perf_counter()
            self.deadline = self.started + self.seconds
            self.cpu_start = {name: probe() for name, probe in self.probes.items()}
            self.load_cpu_start = time.process_time()
            self.go.set()
        await self.go.wait()

    def cpu(self) -> dict[str, float]:
        """CPU seconds each probe's processes used since the window opened."""
        return {name: probe() - self.cpu_start[name] for name, probe in self.probes.items()}


async def drive(
    target: str,
    urls: list[str],
    rooms: int,
    seconds: float,
    probes: dict[str, Callable[[], float]],
    senders: int = 4,
) -> dict[str, Any]:
    """Run the load on ``target`` (``lumin`` or ``relay``) at ``urls`` for ``seconds``:
    ``rooms`` rooms of four clients, ``senders`` of each sliding closed-loop; ``probes``
    measure each process's CPU over the window."""
    latencies: list[float] = []
    sizes: dict[str, list[int]] = {"delta": [], "view": []}
    window = _Window(rooms, seconds, probes)
    url = urls[0]
    if target == "relay":
        payload = encode(
            Act(room="r0123456789", command={"type": "slide", "src": 1, "dst": 2}, seq=100, id=7)
        )
        work = [
            _relay_room(f"{url}/room/{n}", window, latencies, payload, senders)
            for n in range(rooms)
        ]
    else:
        # A cluster's rooms go round the nodes, as the least-loaded rule would place them.
        work = [
            _lumin_room(urls[n % len(urls)], window, latencies, sizes, senders)
            for n in range(rooms)
        ]
    counts = await asyncio.gather(*work)
    elapsed = time.perf_counter() - window.started
    load_cpu = time.process_time() - window.load_cpu_start
    cpu = window.cpu()
    return {
        "commands": sum(counts),
        "latencies": latencies,
        "sizes": sizes,
        "elapsed": elapsed,
        "cpu": cpu.get("server"),
        "cpus": cpu,
        "load_cpu": load_cpu,
    }


def _summary(result: dict[str, Any]) -> dict[str, Any]:
    commands, seconds, cpu = result["commands"], result["elapsed"], result["cpu"]
    lat = result["latencies"]
    out: dict[str, Any] = {
        "commands": commands,
        "seconds": seconds,
        "commands_per_second": commands / seconds if seconds else 0.0,
        "latency_ms": {
            name: 1000 * _percentile(lat, q)
            for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999))
        },
        "server_cpu_s": cpu,
        "server_cpu_us_per_command": 1e6 * cpu / commands if cpu is not None and commands else None,
        # The share of its core the load generator used: near 1, it is what limits the rate.
        "load_cpu_share": result["load_cpu"] / seconds if seconds else None,
    }
    for name, used in result["cpus"].items():
        if name != "server":
            out[f"{name}_cpu_us_per_command"] = 1e6 * used / commands if commands else None
    sizes = result["sizes"]
    out["delta_bytes_median"] = statistics.median(sizes["delta"]) if sizes["delta"] else None
    out["view_bytes_median"] = statistics.median(sizes["view"]) if sizes["view"] else None
    return out


def bench_race(
    rooms: int,
    seconds: float,
    target: str = "lumin",
    url: str | None = None,
    durability: str = "process",
    pairs: int = 1,
) -> dict[str, Any]:
    """Run the benchmark (see the module docstring) and return its numbers; ``durability``
    is the server's mode when the benchmark starts it.

    With the relay, ``pairs`` Lumin and relay runs alternate (each Lumin run on a fresh data
    folder), so a machine whose speed drifts weighs on both sides alike: ``ratios`` lists each
    pair's ratio, ``ratio`` is their median, and the figures reported are the median pair's.
    """
    server_core, load_core = _cores()
    if load_core is not None:
        os.sched_setaffinity(0, {load_core})
    report: dict[str, Any] = {
        "rooms": rooms,
        "clients": rooms * 4,
        "pinned": load_core is not None,
        "durability": durability if url is None else None,
        "limits": LOAD_LIMITS if url is None else None,
    }
    runs: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    with tempfile.TemporaryDirectory() as folder:
        for n in range(pairs if target == "relay" else 1):
            data = str(Path(folder) / f"run{n}")
            lumin = _run_target("lumin", rooms, seconds, url, server_core, data, durability)
            relay = None
            if target == "relay":
                relay = _run_target("relay", rooms, seconds, None, server_core, data)
            runs.append((lumin, relay))
    if target != "relay":
        report.update(runs[0][0])
        return report
    ratios = [
        lumin["commands_per_second"] / relay["commands_per_second"]
        if relay and relay["commands_per_second"]
        else 0.0
        for lumin, relay in runs
    ]
    middle = sorted(range(len(runs)), key=ratios.__getitem__)[(len(runs) - 1) // 2]
    report.update(runs[middle][0])
    report["relay"] = runs[middle][1]
    report["ratio"] = statistics.median(ratios)
    report["ratios"] = ratios
    return report


def _run_target(
    target: str,
    rooms: int,
    seconds: float,
    url: str | None,
    core: int | None,
    data: str,
    durability: str = "process",
) -> dict[str, Any]:
    process = None
    if url is None:
        port = free_port()
        if target == "relay":
            command = [sys.executable, "-m", "clients.load", "relay", str(port)]
        else:
            command = [
                sys.executable,
                "-m",
                "lumin.cli",
                "serve",
                "--port",
                str(port),
                "--data",
                data,
                "--bot-delay",
                "0",
                *limit_flags(LOAD_LIMITS),
                "--log-level",
                "warning",
                "--durability",
                durability,
            ]
        # The server's browser line goes to its stdout, which --json output must not hold.
        process = subprocess.Popen(
            _pinned(command, core), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if target == "relay":
            time.sleep(1.0)
        else:
            wait_healthy(port)
        url = f"ws://127.0.0.1:{port}" + ("" if target == "relay" else "/ws")
    try:
        probes = {} if process is None else {"server": functools.partial(_cpu_seconds, process.pid)}
        # uvloop, as the server runs by default, so both ends of a run share the loop kind.
        result = uvloop.run(drive(target, [url], rooms, seconds, probes))
    finally:
        if process is not None:
            process.terminate()
            process.wait(10)
    return _summary(result)


def _cpu_of(name: str) -> float:
    """CPU seconds of every process on this machine named ``name`` (``postgres``, whose
    backends the nodes hold open for the whole run; ``redis-server``)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            text = stat.read_text()
            if text[text.index("(") + 1 : text.rindex(")")] == name:
                total += _cpu_seconds(int(stat.parent.name))
    return total


#: The PostgreSQL server and Redis a cluster run uses when not given (the tests' engines).
LOCAL_POSTGRES = "postgresql://postgres@127.0.0.1:5432"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"


@contextlib.contextmanager
def scratch_database(server: str) -> Any:
    """A fresh database on the PostgreSQL ``server`` (a URL without a database), dropped at
    the end: its URL."""
    import asyncpg

    name = f"lumin_bench_{os.getpid()}_{secrets.token_hex(3)}"

    async def run(statement: str) -> None:
        connection = await asyncpg.connect(f"{server.rstrip('/')}/postgres")
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{server.rstrip('/')}/{name}"
    finally:
        asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _forget_prefix(redis_url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def _run_cluster(
    rooms: int, seconds: float, nodes: int, store: str, redis_url: str, core: int | None
) -> dict[str, Any]:
    """One run against ``nodes`` cluster nodes on ``store`` and ``redis_url``, every node
    pinned to ``core``; the CPU of the nodes, of PostgreSQL and of Redis measured apart."""
    prefix = f"lumin-bench:{os.getpid()}:{secrets.token_hex(3)}:"
    ports = [free_port() for _ in range(nodes)]
    metrics = [free_port() for _ in range(nodes)]  # each node's --metrics-listen
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for n, port in enumerate(ports):
            command = [
                sys.executable, "-m", "lumin.cli", "serve", "--port", str(port),
                "--store", store, "--redis", redis_url, "--redis-prefix", prefix,
                "--node-id", f"bench-{n}", "--bot-delay", "0", *limit_flags(LOAD_LIMITS),
                "--log-level", "warning", "--metrics-listen", f"127.0.0.1:{metrics[n]}",
            ]  # fmt: skip
            processes.append(
                subprocess.Popen(
                    _pinned(command, core),
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for port in ports:
            wait_healthy(port)
        _wait_for_each_other(ports)
        pids = [process.pid for process in processes]

        def node_cpu() -> float:
            return sum(_cpu_seconds(pid) for pid in pids)

        def total() -> float:
            return node_cpu() + _cpu_of("postgres") + _cpu_of("redis-server")

        probes = {
            "server": total,
            "node": node_cpu,
            "postgres": functools.partial(_cpu_of, "postgres"),
            "redis": functools.partial(_cpu_of, "redis-server"),
        }
        urls = [f"ws://127.0.0.1:{port}/ws" for port in ports]
        before = [_store_counts(port) for port in metrics]
        result = uvloop.run(drive("lumin", urls, rooms, seconds, probes))
        after = [_store_counts(port) for port in metrics]
    finally:
        for process in processes:
            process.terminate()  # each node drains
        for process in processes:
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:  # a drain that hangs is a defect: said, not hidden
                process.kill()
                process.wait(10)
                raise RuntimeError(f"node {process.args} did not stop within 60 s") from None
        _forget_prefix(redis_url, prefix)
    summary = _summary(result)
    batches, appends = (
        sum(a[i] - b[i] for a, b in zip(after, before, strict=True)) for i in (0, 1)
    )
    summary["store_batches"] = batches
    # How many appends (one per room batch) each PostgreSQL transaction carried, and how many
    # commands each append: the commit's fixed cost is shared by their product.
    summary["appends_per_batch"] = appends / batches if batches else None
    summary["commands_per_append"] = result["commands"] / appends if appends else None
    return summary


def _store_counts(port: int) -> tuple[float, float]:
    """A node's store batches and appends committed so far, from its ``/metrics`` (the
    ``--metrics-listen`` port)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    counts = {"lumin_store_commit_seconds_count": 0.0, "lumin_store_append_seconds_count": 0.0}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in counts:
            counts[name] = float(value)
    return counts["lumin_store_commit_seconds_count"], counts["lumin_store_append_seconds_count"]


def _wait_for_each_other(ports: list[int]) -> None:
    """Wait (up to 10 s) until every node's registry lists all of them."""
    import json

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        known = []
        for port in ports:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
                known.append(len(json.loads(answer.read()).get("nodes", ())))
        if all(count == len(ports) for count in known):
            return
        time.sleep(0.1)
    raise RuntimeError("the cluster's nodes did not find each other")


def bench_cluster(
    rooms: int, seconds: float, nodes: int, store: str | None, redis_url: str | None
) -> dict[str, Any]:
    """``lumin bench race --nodes N``: the race load on a cluster of N nodes (on ``store``
    and ``redis_url``; by default a scratch database on the local PostgreSQL and the local
    Redis), with the CPU per command of the nodes, PostgreSQL and Redis, their sum as the
    server's, and what a machine with a core per node would carry (derived)."""
    server_core, load_core = _cores()
    if load_core is not None:
        os.sched_setaffinity(0, {load_core})
    redis_url = redis_url or LOCAL_REDIS
    with contextlib.ExitStack() as stack:
        if store is None:
            store = stack.enter_context(scratch_database(LOCAL_POSTGRES))
        numbers = _run_cluster(rooms, seconds, nodes, store, redis_url, server_core)
    report: dict[str, Any] = {
        "rooms": rooms,
        "clients": rooms * 4,
        "nodes": nodes,
        "pinned": load_core is not None,
        "limits": LOAD_LIMITS,
        **numbers,
    }
    node_us = numbers.get("node_cpu_us_per_command")
    if node_us:
        rate = nodes * 1e6 / node_us
        report["derived"] = {
            "note": "derived from the per-command CPU costs, not measured: each node on a core"
            " of its own, PostgreSQL and Redis on cores beside them",
            "commands_per_second_with_a_core_per_node": rate,
            "postgres_cores_at_that_rate": rate
            * (numbers["postgres_cpu_us_per_command"] or 0)
            / 1e6,
            "redis_cores_at_that_rate": rate * (numbers["redis_cpu_us_per_command"] or 0) / 1e6,
        }
    return report


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "relay":
        relay_main(int(sys.argv[2]))
