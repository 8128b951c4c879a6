"""Flood isolation: what one reconnecting flooder costs the other rooms of a server.

``python -m benchmarks.flood_isolation [--rooms 10] [--pace 0.05] [--seconds 10]
[--connections 1] [--json] [--smoke]`` starts ``lumin serve`` with its default limits, opens
ROOMS Flash 8 races of two honest players who each slide every PACE seconds, and measures
the time from each slide to its answer: first with nobody else on the server (the baseline),
then while a flooder from another address sends pings as fast as its sockets take them over
CONNECTIONS connections, each reconnecting under a new identity the moment it is closed or
refused. It prints the honest players' p50 and p99 in both phases, their ratio, and what the
flooder got through (answered, refused, connections opened and refused).

Each honest player comes from a loopback address of its own and the flooder from 127.0.0.2, so
the server runs with its default limits (see ``benchmarks/_floods.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from typing import Any

from benchmarks._floods import (
    cpu_seconds,
    flood_in_process,
    open_rooms,
    percentile,
    pin_server,
    start_server,
    stop_server,
)


async def _phase(rooms: list[Any], pace: float, seconds: float) -> dict[str, float]:
    players = [player for _, seated in rooms for player in seated]
    for player in players:
        player.latencies.clear()
        player.measuring = True
    deadline = time.monotonic() + seconds
    plays = [
        player.play(room, pace, lambda: time.monotonic() > deadline)
        for room, seated in rooms
        for player in seated
    ]
    await asyncio.gather(*plays)
    await asyncio.sleep(0.3)  # the last answers
    latencies = [value for player in players for value in player.latencies]
    for player in players:
        player.measuring = False
    return {
        "slides": len(latencies),
        "p50_ms": 1000 * percentile(latencies, 0.5),
        "p99_ms": 1000 * percentile(latencies, 0.99),
        "max_ms": 1000 * max(latencies, default=0.0),
    }


async def measure(rooms: int, pace: float, seconds: float, connections: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data:
        process, port = start_server(data, [])
        pinning = pin_server(process)
        url = f"ws://127.0.0.1:{port}/ws"
        try:
            opened = await open_rooms(url, rooms)
            readers = [
                asyncio.create_task(player.read()) for _, seated in opened for player in seated
            ]
            while not all(player.legal for _, seated in opened for player in seated):
                await asyncio.sleep(0.05)
            baseline = await _phase(opened, pace, seconds)
            flooding = flood_in_process(url, connections, seconds + 0.5)
            await asyncio.sleep(0.5)  # the flood is under way
            cpu = cpu_seconds(process.pid)
            flooded = await _phase(opened, pace, seconds)
            cpu = cpu_seconds(process.pid) - cpu
            output, _ = await asyncio.to_thread(flooding.communicate, timeout=60)
            flooder = json.loads(output)
            for reader in readers:
                reader.cancel()
        finally:
            stop_server(process)
    return {
        "rooms": rooms,
        "players": rooms * 2,
        "pace_seconds": pace,
        "seconds": seconds,
        "limits": "the server's defaults",
        "baseline": baseline,
        "flooded": flooded,
        "p99_ratio": flooded["p99_ms"] / baseline["p99_ms"] if baseline["p99_ms"] else None,
        "pinning": pinning,
        "flooder": {
            "connections_at_once": connections,
            **flooder,
            "frames_per_second": flooder["frames_sent"] / seconds,
            "answered_per_second": flooder["answered"] / seconds,
        },
        "server_cpu_share_while_flooded": cpu / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--pace", type=float, default=0.05, help="seconds between slides")
    parser.add_argument("--seconds", type=float, default=10.0, help="each phase")
    parser.add_argument("--connections", type=int, default=1, help="the flooder's, at once")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="a quick run (CI)")
    args = parser.parse_args()
    if args.smoke:
        args.rooms, args.seconds = 2, 2.0
    report = asyncio.run(measure(args.rooms, args.pace, args.seconds, args.connections))
    if args.json:
        print(json.dumps(report))
        return
    base, flood, flooder = report["baseline"], report["flooded"], report["flooder"]
    print(f"{report['players']} players, each at a loopback address of its own; default limits")
    print(f"{report['pinning']}; the flooder runs at nice 19 beside the players")
    print(
        f"{report['rooms']} rooms, a slide every {args.pace:g} s per player:"
        f" baseline p50 {base['p50_ms']:.2f} ms p99 {base['p99_ms']:.2f} ms ({base['slides']});"
        f" flooded p50 {flood['p50_ms']:.2f} ms p99 {flood['p99_ms']:.2f} ms"
        f" ({flood['slides']}); p99 ratio {report['p99_ratio']:.2f}"
    )
    print(
        f"flooder ({flooder['connections_at_once']} connection(s) at once):"
        f" {flooder['frames_per_second']:.0f} frames/s sent,"
        f" {flooder['answered_per_second']:.1f}/s answered, {flooder['refused']} refused,"
        f" {flooder['connections_opened']} connections opened,"
        f" {flooder['handshakes_refused']} handshakes refused;"
        f" server CPU {100 * report['server_cpu_share_while_flooded']:.0f}% of a core"
    )


if __name__ == "__main__":
    main()
