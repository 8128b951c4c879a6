"""A TCP proxy on loopback that makes a connection far away: a fixed or jittered delay each way.

Benchmarks and tests put a racer behind it (``+150 ms`` of round trip is ``--up 0.075 --down
0.075``) and the other racer behind one with no delay, so both pay the proxy's own overhead.
Each chunk read from one side is written to the other at its arrival time plus its delay, on a
schedule (:class:`Schedule`): chunks that arrive together leave together, a delay's length
never slows the throughput, and a jittered delay never reorders the stream (a chunk never
leaves before the one read before it).

Usage::

    python -m benchmarks.lagproxy --target 127.0.0.1:8000 --listen 127.0.0.1:9000 \\
        --up 0.075 --down 0.075 [--jitter 0.01] [--seed 1]
    python -m benchmarks.lagproxy --measure [--smoke]   # its round trips, against an echo

In code::

    async with LagProxy("127.0.0.1", 8000, up=0.075, down=0.075) as proxy:
        ... connect to 127.0.0.1:proxy.port ...
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
from collections import deque
from types import TracebackType

__all__ = ["LagProxy", "Schedule", "main"]

#: The most read from a socket at once.
CHUNK = 65536


class Schedule:
    """When each chunk of one direction leaves: its arrival plus ``delay``, give or take a
    uniform ``jitter`` (never below zero), and never before the chunk read before it."""

    def __init__(self, delay: float, jitter: float = 0.0, rng: random.Random | None = None):
        if delay < 0 or jitter < 0:
            raise ValueError("a delay and its jitter are seconds, at least 0")
        self.delay = delay
        self.jitter = jitter
        self._rng = rng or random.Random(0)
        self._last = float("-inf")

    def due(self, arrival: float) -> float:
        """The time a chunk that arrived at ``arrival`` (loop time) is written."""
        delay = self.delay
        if self.jitter:
            delay = max(0.0, delay + self._rng.uniform(-self.jitter, self.jitter))
        self._last = max(self._last, arrival + delay)
        return self._last


class LagProxy:
    """Listens on ``host:port`` (0: any free port, see :attr:`port`) and relays every
    connection to ``target_host:target_port``, delaying what the client sends by ``up`` and
    what it receives by ``down`` seconds, each with ``jitter`` drawn from ``seed``."""

    def __init__(
        self,
        target_host: str,
        target_port: int,
        *,
        up: float,
        down: float,
        jitter: float = 0.0,
        seed: int = 0,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.target = (target_host, target_port)
        self.up, self.down, self.jitter = up, down, jitter
        self._rng = random.Random(seed)
        self._listen = (host, port)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        """The port the proxy listens on."""
        assert self._server is not None, "start the proxy first"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        """Start listening."""
        self._server = await asyncio.start_server(self._accept, *self._listen)

    async def close(self) -> None:
        """Stop listening and drop every relayed connection."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def __aenter__(self) -> LagProxy:
        await self.start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            try:
                far_reader, far_writer = await asyncio.open_connection(*self.target)
            except OSError:
                writer.close()
                return
            up = Schedule(self.up, self.jitter, random.Random(self._rng.random()))
            down = Schedule(self.down, self.jitter, random.Random(self._rng.random()))
            await asyncio.gather(
                _relay(reader, far_writer, up),
                _relay(far_reader, writer, down),
                return_exceptions=True,
            )
        finally:
            self._tasks.discard(task)
            writer.close()


async def _relay(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, schedule: Schedule
) -> None:
    """Copy ``reader`` to ``writer`` on ``schedule``: one task reads and stamps each chunk's
    due time, another writes each chunk once it is due; the end of the stream is passed on
    when it is due too."""
    loop = asyncio.get_running_loop()
    pending: deque[tuple[float, bytes]] = deque()  # (due, chunk), due never decreasing
    arrived = asyncio.Event()

    async def read() -> None:
        try:
            while chunk := await reader.read(CHUNK):
                pending.append((schedule.due(loop.time()), chunk))
                arrived.set()
        except OSError:
            pass
        pending.append((schedule.due(loop.time()), b""))
        arrived.set()

    async def write() -> None:
        while True:
            if not pending:
                arrived.clear()
                await arrived.wait()
                continue
            wait = pending[0][0] - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            _, chunk = pending.popleft()
            if not chunk:
                break
            writer.write(chunk)
            # Chunks already due go out in the same burst; the socket drains after them.
            if not pending or pending[0][0] > loop.time():
                await writer.drain()
        with contextlib.suppress(OSError):
            if writer.can_write_eof():
                writer.write_eof()
            await writer.drain()

    reading = asyncio.create_task(read())
    try:
        await write()
    finally:
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reading


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


async def measure(trips: int, up: float, down: float, jitter: float) -> dict[str, float]:
    """Round trips of a small message through a proxy to an echo server on loopback, one at a
    time: what the proxy adds over its set delays (seconds)."""
    import statistics
    import time

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, LagProxy("127.0.0.1", port, up=up, down=down, jitter=jitter) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        times = []
        for n in range(trips):
            sent = time.perf_counter()
            writer.write(n.to_bytes(4, "big"))
            assert await reader.readexactly(4) == n.to_bytes(4, "big")
            times.append(time.perf_counter() - sent)
        # End as a client does, so the echo and the proxy's relays finish on their own.
        writer.write_eof()
        assert await reader.read() == b""
        writer.close()
        await writer.wait_closed()
    return {
        "trips": trips,
        "set_round_trip": up + down,
        "p50": statistics.median(times),
        "max": max(times),
        "min": min(times),
    }


def main(argv: list[str] | None = None) -> None:
    """Run a proxy until interrupted, or measure one (``--measure``)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lagproxy", description=__doc__)
    parser.add_argument("--measure", action="store_true", help="time round trips through it")
    parser.add_argument("--smoke", action="store_true", help="--measure, a quick run (CI)")
    parser.add_argument("--target", help="host:port to relay to (required unless measuring)")
    parser.add_argument("--listen", default="127.0.0.1:0", help="host:port to listen on")
    parser.add_argument("--up", type=float, default=0.075, help="client to server delay, s")
    parser.add_argument("--down", type=float, default=0.075, help="server to client delay, s")
    parser.add_argument("--jitter", type=float, default=0.0, help="uniform jitter each way, s")
    parser.add_argument("--seed", type=int, default=0, help="the jitter's seed")
    args = parser.parse_args(argv)
    if args.measure or args.smoke:
        found = asyncio.run(measure(20 if args.smoke else 200, args.up, args.down, args.jitter))
        print(
            f"lagproxy: {found['trips']} round trips set to {1000 * found['set_round_trip']:.1f}"
            f" ms took {1000 * found['p50']:.1f} ms (p50), {1000 * found['min']:.1f}"
            f"-{1000 * found['max']:.1f} ms"
        )
        return
    if args.target is None:
        parser.error("--target is required (or --measure)")
    target, listen = _address(args.target), _address(args.listen)

    async def serve() -> None:
        proxy = LagProxy(
            *target,
            up=args.up,
            down=args.down,
            jitter=args.jitter,
            seed=args.seed,
            host=listen[0],
            port=listen[1],
        )
        async with proxy:
            print(f"lagproxy: 127.0.0.1:{proxy.port} -> {target[0]}:{target[1]}", flush=True)
            await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()
