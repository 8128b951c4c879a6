"""What the flood benchmarks share: a ``lumin serve`` process, paced honest players, and a
flooder that comes from another loopback address and reconnects as soon as it is let go.

Linux routes all of 127.0.0.0/8 to the loopback interface, so every honest player binds its
socket to an address of its own (127.0.1.1, 127.0.1.2, ...) and the flooder to 127.0.0.2: the
server sees each at its own client address, as it would see players and an attacker on the
internet, and every limit is the server's default.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients.load import free_port, wait_healthy

ROOT = Path(__file__).resolve().parent.parent

#: The address the flooder connects from (honest players use 127.0.0.1).
FLOODER_ADDRESS = "127.0.0.2"


def player_address(n: int) -> str:
    """The loopback address honest player ``n`` connects from."""
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


def start_server(data: str, flags: list[str]) -> tuple[subprocess.Popen[bytes], int]:
    """``lumin serve`` on a free port with ``flags``; returns the process and its port."""
    port = free_port()
    command = [
        sys.executable, "-m", "lumin.cli", "serve", "--port", str(port), "--data", data,
        "--log-level", "warning", *flags,
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_healthy(port)
    return process, port


def stop_server(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()


def rss_mib(pid: int) -> float:
    """The process's resident memory, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _request(socket: ClientConnection, frame: dict[str, Any]) -> dict[str, Any]:
    await socket.send(msgpack.packb(frame))
    while True:
        answer: dict[str, Any] = msgpack.unpackb(await socket.recv())
        if answer.get("ref") == frame["id"]:
            return answer


class Player:
    """An honest racer: one slide every ``pace`` seconds, timing each from send to answer."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.next_id = 100
        self.seq = 0
        self.legal: list[dict[str, Any]] = []
        self.waiting: dict[int, float] = {}
        self.latencies: list[float] = []
        self.measuring = False

    @classmethod
    async def connect(cls, url: str, name: str, address: str) -> Player:
        socket = await connect(url, compression=None, max_size=None, local_addr=(address, 0))
        await _request(socket, {"type": "hello", "versions": [1], "name": name, "id": 1})
        return cls(socket)

    def note(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in ("snapshot", "delta"):
            self.seq = message.get("seq", self.seq)
            if message.get("legal") is not None:
                self.legal = message["legal"]
        sent = self.waiting.pop(message.get("ref", -1), None)
        if sent is not None and kind in ("accepted", "rejected") and self.measuring:
            self.latencies.append(time.perf_counter() - sent)

    async def read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.socket:
                self.note(msgpack.unpackb(frame))

    async def play(self, room: str, pace: float, until: Callable[[], bool]) -> None:
        rng = random.Random(room)
        while not until():
            await asyncio.sleep(pace * rng.uniform(0.8, 1.2))
            slides = [entry for entry in self.legal if entry["type"] == "slide"]
            if not slides:
                continue
            self.next_id += 1
            self.waiting[self.next_id] = time.perf_counter()
            command = {k: v for k, v in rng.choice(slides).items() if k != "choose"}
            act = {"type": "act", "room": room, "command": command, "seq": self.seq}
            await self.socket.send(msgpack.packb({**act, "id": self.next_id}))


async def open_rooms(url: str, rooms: int) -> list[tuple[str, list[Player]]]:
    """``rooms`` running Flash 8 races of two honest players each."""
    opened = []
    for n in range(rooms):
        host = await Player.connect(url, f"host{n}", player_address(2 * n))
        guest = await Player.connect(url, f"guest{n}", player_address(2 * n + 1))
        create = {
            "type": "create_room", "game": "flash8", "seats": [{}, {}],
            "options": {"countdown": 0.0}, "sit": 0, "id": 2,
        }  # fmt: skip
        room = (await _request(host.socket, create))["room"]
        await _request(guest.socket, {"type": "join_seat", "room": room, "seat": 1, "id": 2})
        await _request(guest.socket, {"type": "ready", "room": room, "id": 3})
        await _request(host.socket, {"type": "start", "room": room, "id": 3})
        opened.append((room, [host, guest]))
    return opened


class Flooder:
    """Connections from :data:`FLOODER_ADDRESS` that send ``frame()`` as fast as the socket
    takes it, each under a new identity, and reconnect the moment they are closed or refused."""

    def __init__(self, url: str, frame: Callable[[int], bytes], read: bool = True) -> None:
        self.url, self.frame, self.read = url, frame, read
        self.sent = self.answered = self.refused = self.connections = self.handshakes_refused = 0
        self.stop = False
        #: Messages received by type (and error code).
        self.received: dict[str, int] = {}

    async def _drain(self, socket: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in socket:
                message = msgpack.unpackb(raw)
                kind = message["type"] + (f":{message['code']}" if "code" in message else "")
                self.received[kind] = self.received.get(kind, 0) + 1
                if message.get("code") == "rate_limited":
                    self.refused += 1
                elif message["type"] == "pong":
                    self.answered += 1

    async def _one(self) -> None:
        n = 0
        while not self.stop:
            try:
                socket = await connect(
                    self.url,
                    compression=None,
                    max_size=None,
                    local_addr=(FLOODER_ADDRESS, 0),
                    open_timeout=5,
                )
            except (InvalidStatus, OSError, TimeoutError):
                self.handshakes_refused += 1
                await asyncio.sleep(0.01)
                continue
            self.connections += 1
            reader = asyncio.create_task(self._drain(socket)) if self.read else None
            try:
                await socket.send(msgpack.packb({"type": "hello", "versions": [1], "name": "x"}))
                while not self.stop:
                    n += 1
                    await socket.send(self.frame(n))
                    self.sent += 1
                    if n % 64 == 0:
                        await asyncio.sleep(0)  # let this process's other connections send
            except ConnectionClosed:
                pass
            finally:
                if reader is not None:
                    reader.cancel()
                socket.transport.abort()

    async def run(self, connections: int, seconds: float) -> None:
        tasks = [asyncio.create_task(self._one()) for _ in range(connections)]
        await asyncio.sleep(seconds)
        self.stop = True
        for task in tasks:  # a send the server holds back (backpressure) would never return
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def ping_frame(n: int) -> bytes:
    return msgpack.packb({"type": "ping", "id": n})


def flood_in_process(url: str, connections: int, seconds: float) -> subprocess.Popen[bytes]:
    """A :class:`Flooder` in a process of its own, at the lowest scheduling priority, on the
    load generator's core: it floods with whatever CPU the honest players leave it, so the
    players' timings measure the server and not a load generator starved by its own flood.
    Its figures come as one JSON line on its standard output."""
    command = [
        sys.executable, "-m", "benchmarks._floods", url, str(connections), str(seconds),
    ]  # fmt: skip
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE)


def pin_server(process: subprocess.Popen[bytes]) -> str:
    """Pin the server to the first core and this process (and what it starts) to the second,
    where the machine has two; says what was done."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        return "not pinned (one core)"
    os.sched_setaffinity(process.pid, {cores[0]})
    os.sched_setaffinity(0, {cores[1]})
    return f"server on core {cores[0]}, load on core {cores[1]}"


async def _flood_main(url: str, connections: int, seconds: float) -> None:
    flooder = Flooder(url, ping_frame)
    await flooder.run(connections, seconds)
    print(json.dumps({
        "frames_sent": flooder.sent, "answered": flooder.answered, "refused": flooder.refused,
        "connections_opened": flooder.connections,
        "handshakes_refused": flooder.handshakes_refused, "received": flooder.received,
    }))  # fmt: skip


if __name__ == "__main__":
    os.nice(19)
    asyncio.run(_flood_main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
