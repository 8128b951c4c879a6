"""What a room's append costs on each store: the embedded SQLite store and the PostgreSQL store.

``rooms`` rooms append closed-loop, as a room under load does (append a run of one record,
wait for its commit, append the next), all at once on one event loop; every store batches the
writes of a loop turn into one transaction. It prints, per store, appends per second, the
append-to-commit latency percentiles and this process's CPU time per append (for PostgreSQL
the database server's own CPU is not in it: that is the cluster benchmark's to measure).

    python -m benchmarks.store_append [--rooms 25] [--appends 400] [--postgres URL] [--smoke]

``--postgres`` is a server URL (without a database); a database of this run's own is created
and dropped. Without a reachable PostgreSQL the run fails, naming it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

from server.pgstore import PostgresStore
from server.store import EventStore, Record, RoomRow, Store

SERVER = os.environ.get("LUMIN_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


def _row(room: str) -> RoomRow:
    return RoomRow(
        room, "flash8", {}, [], b"s" * 16, b"t" * 16, "c" * 64, False, None, None, "playing",
        time.time(), time.time(), None, {},
    )  # fmt: skip


def _record(seq: int) -> Record:
    """A record the size of a Flash 8 slide's."""
    return Record(
        seq, seq, seq % 4, {"type": "slide", "src": 4, "dst": 5}, float(seq),
        ({"type": "slid", "seat": seq % 4, "src": 4, "dst": 5, "at": float(seq)},),
    )  # fmt: skip


async def _run(store: Store, rooms: int, appends: int) -> dict[str, Any]:
    for n in range(rooms):
        await store.create_room(_row(f"r{n}"))
    latencies: list[float] = []

    async def room(name: str) -> None:
        for seq in range(1, appends + 1):
            started = time.perf_counter()
            await store.append(name, _record(seq))
            latencies.append(time.perf_counter() - started)

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(room(f"r{n}") for n in range(rooms)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    for n in range(rooms):
        assert len(await store.get_records(f"r{n}")) == appends
    latencies.sort()
    total = rooms * appends
    return {
        "appends": total,
        "appends_per_second": round(total / wall),
        "latency_ms": {
            "p50": round(1000 * statistics.median(latencies), 3),
            "p99": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 3),
        },
        "process_cpu_us_per_append": round(1e6 * cpu / total, 1),
    }


async def _sqlite(rooms: int, appends: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = EventStore(Path(folder) / "lumin.sqlite3")
        try:
            return await _run(store, rooms, appends)
        finally:
            await store.aclose()


async def _postgres(server: str, rooms: int, appends: int) -> dict[str, Any]:
    name = f"lumin_bench_{os.getpid()}"
    admin = await asyncpg.connect(server.rstrip("/") + "/postgres")
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        store = PostgresStore(server.rstrip("/") + f"/{name}")
        await store.open()
        try:
            return await _run(store, rooms, appends)
        finally:
            await store.aclose()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "rooms": args.rooms,
        "appends_per_room": args.appends,
        "sqlite": await _sqlite(args.rooms, args.appends),
        "postgresql": await _postgres(args.postgres, args.rooms, args.appends),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=25)
    parser.add_argument("--appends", type=int, default=400)
    parser.add_argument("--postgres", default=SERVER, help="PostgreSQL server URL")
    parser.add_argument("--smoke", action="store_true", help="4 rooms x 25 appends")
    args = parser.parse_args()
    if args.smoke:
        args.rooms, args.appends = 4, 25
    print(json.dumps(asyncio.run(_main(args)), indent=2))


if __name__ == "__main__":
    main()
