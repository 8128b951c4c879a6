"""Idle scale: memory per open connection on one server process.

``python -m benchmarks.idle_scale [--connections 10000] [--batch 500] [--smoke]`` starts a
``lumin serve`` process, raises its own open-file limit, opens the connections in batches (each
says hello and watches the lobby, then idles), and prints the server's resident memory before
and after, and the memory per connection.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect

from clients.load import LOAD_LIMITS, free_port, limit_flags, wait_healthy
from protocol.codec import decode, encode
from protocol.messages import Hello, WatchLobby

ROOT = Path(__file__).resolve().parent.parent


def rss_kib(pid: int) -> int:
    """The resident set size of a process, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def open_one(url: str, n: int) -> object:
    socket_ = await connect(url, ping_interval=None, max_size=None)
    await socket_.send(encode(Hello(versions=(1,), name=f"idle{n}", id=1)))
    decode(await socket_.recv(), sender="server")
    await socket_.send(encode(WatchLobby(id=2)))
    decode(await socket_.recv(), sender="server")
    return socket_


async def run(connections: int, batch: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, connections * 2 + 1024)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        command = [
            sys.executable,
            "-c",
            "import resource,sys;s,h=resource.getrlimit(resource.RLIMIT_NOFILE);"
            f"resource.setrlimit(resource.RLIMIT_NOFILE,(min(h,{wanted}),h));"
            "from lumin.cli import main;sys.argv[0]='lumin';main()",
            "serve",
            "--port",
            str(port),
            "--data",
            data,
            "--log-level",
            "warning",
            *limit_flags(LOAD_LIMITS),
        ]
        print(f"server limits raised for one loopback address: {limit_flags(LOAD_LIMITS)}")
        server = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            wait_healthy(port)
            url = f"ws://127.0.0.1:{port}/ws"
            before = rss_kib(server.pid)
            sockets: list[object] = []
            started = time.perf_counter()
            while len(sockets) < connections:
                size = min(batch, connections - len(sockets))
                sockets += await asyncio.gather(
                    *(open_one(url, len(sockets) + i) for i in range(size))
                )
            opened = time.perf_counter() - started
            await asyncio.sleep(1.0)
            after = rss_kib(server.pid)
            per = (after - before) * 1024 / connections
            print(
                f"idle_scale connections={connections} open_seconds={opened:.1f} "
                f"rss_before_mib={before / 1024:.1f} rss_after_mib={after / 1024:.1f} "
                f"bytes_per_connection={per:.0f}"
            )
            await asyncio.gather(*(s.close() for s in sockets))  # type: ignore[attr-defined]
        finally:
            server.terminate()
            server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    asyncio.run(run(200 if args.smoke else args.connections, args.batch))


if __name__ == "__main__":
    main()
