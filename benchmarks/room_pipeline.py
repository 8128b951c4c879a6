"""The room's own work per command, without the network.

``python -m benchmarks.room_pipeline [--rooms 25] [--commands 20000] [--smoke]`` builds a
:class:`~server.hub.Hub` on a fresh SQLite store (the default ``process`` durability), opens
Flash 8 race rooms of four seated peers that only keep the frames they are sent, starts them,
and has each seat slide as fast as its last command is answered, through ``Room.call`` just as
a connection does: the room's queue, decide, the store commit, view patches, legal commands,
encoded deltas, ``accepted``. It prints the CPU microseconds per command, how commands were
batched, and how many frames the room sent per command (deltas and answers).

``lumin bench race`` measures the whole server (sockets, websocket framing, decoding) against a
load process, and its figures move by 10% from run to run on a shared machine; this one has no
sockets and no second process, so it is the finer tool for a change to the room's own work.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from protocol.messages import CreateRoom, Message, SeatChoice
from server.batch import QueuedAct
from server.config import Settings
from server.eventloop import run
from server.hub import Hub
from server.metrics import Metrics
from server.room import Room
from server.store import EventStore


class _Peer:
    """A seated person whose connection only counts what it is sent."""

    def __init__(self, user: str) -> None:
        self.user = user
        self.name = user
        self.address = self.address_key = "127.0.0.1"
        self.muted: set[str] = set()
        self.frames = 0

    def send(self, message: Message) -> None:
        self.frames += 1

    def send_frame(self, frame: bytes) -> None:
        self.frames += 1

    def room_moved(self, room: str) -> None:
        """Rooms of this benchmark never move (one process, SQLite)."""


async def _open_room(hub: Hub, index: int) -> tuple[Room, list[_Peer]]:
    peers = [_Peer(f"r{index}u{n}") for n in range(4)]  # each room hosted by its own player
    request = CreateRoom(
        game="flash8",
        seats=tuple(SeatChoice(kind="human") for _ in range(4)),
        options={"countdown": 0.0},
        sit=0,
    )
    room = await hub.create_room(peers[0], request)
    for seat, peer in enumerate(peers[1:], start=1):
        await room.call(lambda p=peer, s=seat: room.join(p, s, None))
        await room.call(lambda p=peer: room.ready(p, True))
    await room.call(lambda: room.begin(peers[0]))
    while not any(room.legal.get(seat) for seat in range(4)):
        await asyncio.sleep(0.01)
    return room, peers


async def _race(room: Room, peers: list[_Peer], budget: list[int], seed: int) -> None:
    rng = random.Random(seed)

    async def seat(n: int) -> None:
        ref = 0
        while budget[0] > 0 and room.status == "playing":
            slides = [entry for entry in room.legal.get(n, []) if entry["type"] == "slide"]
            if not slides:
                await asyncio.sleep(0)
                continue
            budget[0] -= 1
            ref += 1
            entry = rng.choice(slides)
            await room.call(QueuedAct(peers[n], n, entry, ref, room.seq))

    await asyncio.gather(*(seat(n) for n in range(4)))


async def measure(rooms: int, commands: int) -> dict[str, Any]:
    """Run ``commands`` slides over ``rooms`` rooms; returns the figures."""
    with tempfile.TemporaryDirectory() as folder:
        # Every room's creator is at this one address: the per-address cap is raised to fit.
        settings = Settings(data=Path(folder), bot_delay=0.0, rooms_per_address=max(50, rooms))
        store = EventStore(Path(folder) / "lumin.db")
        hub = Hub(settings, store, Metrics())
        opened = [await _open_room(hub, n) for n in range(rooms)]
        batches_before, appended_before = store.batches, store.appended
        frames_before = sum(peer.frames for _, peers in opened for peer in peers)
        budget = [commands]
        cpu, wall = time.process_time(), time.perf_counter()
        races = [_race(room, peers, budget, n) for n, (room, peers) in enumerate(opened)]
        await asyncio.gather(*races)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        made = commands - budget[0]
        frames = sum(peer.frames for _, peers in opened for peer in peers) - frames_before
        for room, _ in opened:
            await room.stop()
        store.close()
    return {
        "rooms": rooms,
        "commands": made,
        "cpu_us_per_command": 1e6 * cpu / made,
        "commands_per_second": made / wall,
        "store_batches": store.batches - batches_before,
        "store_jobs": store.appended - appended_before,
        "frames_per_command": frames / made,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=25)
    parser.add_argument("--commands", type=int, default=20_000)
    parser.add_argument("--smoke", action="store_true", help="a quick run (CI)")
    args = parser.parse_args()
    rooms, commands = (2, 400) if args.smoke else (args.rooms, args.commands)
    figures = run(measure(rooms, commands))
    print(
        f"room pipeline, {figures['rooms']} Flash 8 race rooms: {figures['commands']} slides,"
        f" {figures['cpu_us_per_command']:.1f} us of CPU per command,"
        f" {figures['commands_per_second']:.0f} commands/s;"
        f" {figures['store_jobs']} store jobs in {figures['store_batches']} commits;"
        f" {figures['frames_per_command']:.2f} frames sent per command"
    )


if __name__ == "__main__":
    main()
