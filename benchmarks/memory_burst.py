"""Memory after a burst: the server's resident memory before, during and after a flood.

``python -m benchmarks.memory_burst [--seconds 15] [--connections 20] [--json] [--smoke]``
starts ``lumin serve`` with its default limits, measures its RSS at rest, then for SECONDS
runs a burst from another loopback address: CONNECTIONS flooders sending pings as fast as
their sockets take them (each reconnecting under a new identity when closed or refused),
as many sending frames just under the frame limit, and clients that open a connection, say
hello under a new name and go. It samples RSS during the burst, then 5 s after it stopped and
again SETTLE seconds after it (default 35: past the server's housekeeping sweep, which gives
free memory back to the system), and prints the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from typing import Any

import msgpack
from websockets.asyncio.client import connect

from benchmarks._floods import (
    FLOODER_ADDRESS,
    Flooder,
    ping_frame,
    rss_mib,
    start_server,
    stop_server,
)

#: Just under the default frame limit (64 KiB): a chat line the codec refuses for its length.
_BIG = msgpack.packb({"type": "ping", "pad": "y" * 1_000_000})


def big_frame(n: int) -> bytes:
    return _BIG


async def _passers_by(url: str, stop: list[bool]) -> int:
    """New connections, each saying hello under a new name and leaving at once."""
    count = 0
    while not stop[0]:
        try:
            async with connect(url, local_addr=(FLOODER_ADDRESS, 0), open_timeout=5) as socket:
                hello = {"type": "hello", "versions": [1], "name": f"guest{count}", "id": 1}
                await socket.send(msgpack.packb(hello))
                await asyncio.wait_for(socket.recv(), 5)
                count += 1
        except Exception:
            await asyncio.sleep(0.05)
    return count


async def measure(seconds: float, connections: int, settle: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data:
        process, port = start_server(data, [])
        url = f"ws://127.0.0.1:{port}/ws"
        try:
            await asyncio.sleep(1.0)
            before = rss_mib(process.pid)
            pings, bigs = Flooder(url, ping_frame), Flooder(url, big_frame)
            stop = [False]
            samples: list[float] = []

            async def sample() -> None:
                while not stop[0]:
                    samples.append(rss_mib(process.pid))
                    await asyncio.sleep(0.25)

            started = time.monotonic()
            tasks = [
                asyncio.create_task(pings.run(connections, seconds)),
                asyncio.create_task(bigs.run(connections, seconds)),
                asyncio.create_task(sample()),
                *(asyncio.create_task(_passers_by(url, stop)) for _ in range(4)),
            ]
            await asyncio.sleep(seconds)
            stop[0] = True
            results = await asyncio.gather(*tasks)
            burst_seconds = time.monotonic() - started
            await asyncio.sleep(5.0)
            after = rss_mib(process.pid)
            await asyncio.sleep(max(0.0, settle - 5.0))
            settled = rss_mib(process.pid)
        finally:
            stop_server(process)
    return {
        "seconds": seconds,
        "rss_mib": {
            "before": round(before, 1),
            "during_peak": round(max(samples, default=0.0), 1),
            "during_median": round(sorted(samples)[len(samples) // 2], 1) if samples else 0.0,
            "after_5s": round(after, 1),
            "settled": round(settled, 1),
        },
        "settle_seconds": settle,
        "burst": {
            "seconds": round(burst_seconds, 1),
            "ping_frames_sent": pings.sent,
            "big_frames_sent": bigs.sent,
            "big_frame_bytes": len(_BIG),
            "connections_opened": pings.connections + bigs.connections,
            "handshakes_refused": pings.handshakes_refused + bigs.handshakes_refused,
            "hellos": sum(results[3:]),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--connections", type=int, default=20, help="of each kind of flooder")
    parser.add_argument("--settle", type=float, default=35.0, help="seconds before the last RSS")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="a quick run (CI)")
    args = parser.parse_args()
    if args.smoke:
        args.seconds, args.connections, args.settle = 2.0, 2, 5.0
    os.nice(5)  # the load yields to the server it measures
    report = asyncio.run(measure(args.seconds, args.connections, args.settle))
    if args.json:
        print(json.dumps(report))
        return
    rss, burst = report["rss_mib"], report["burst"]
    print(
        f"RSS before {rss['before']} MiB; during a {burst['seconds']} s burst peak"
        f" {rss['during_peak']} MiB (median {rss['during_median']}); 5 s after it"
        f" {rss['after_5s']} MiB; {report['settle_seconds']:g} s after it {rss['settled']} MiB"
    )
    print(
        f"burst: {burst['ping_frames_sent']} ping frames and {burst['big_frames_sent']} frames"
        f" of {burst['big_frame_bytes']} bytes sent, {burst['connections_opened']} connections"
        f" opened ({burst['handshakes_refused']} refused), {burst['hellos']} hellos"
    )


if __name__ == "__main__":
    main()
