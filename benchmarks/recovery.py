"""Recovery: how long a starting server takes to rebuild its unfinished rooms from the log.

``python -m benchmarks.recovery [--rooms 1000] [--moves 20] [--smoke]`` writes that many live
Flip Over Frog rooms, each with ``moves`` recorded commands played by bots, into a fresh SQLite
store, then times ``Hub.recover()`` (read every room and its log, deal from the seed, fold the
events, compute every viewer's view).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import tempfile
import time
from pathlib import Path

from engine.core import SeatSpec, to_wire
from engine.match import Match, make_bots
from engine.registry import get_game
from protocol.fairness import commit
from server.config import Settings
from server.hub import Hub
from server.metrics import Metrics
from server.seats import Seat
from server.store import EventStore, Record, RoomRow


async def fill(store: EventStore, rooms: int, moves: int) -> int:
    """Write ``rooms`` live rooms with ``moves`` commands each; returns the records written."""
    game = get_game("flip_over_frog")
    written = 0
    pending = []
    for n in range(rooms):
        seed, salt = secrets.token_bytes(16), secrets.token_bytes(16)
        seats = [Seat("bot", f"bot{s}", None, "bot", {}, True) for s in range(4)]
        match = Match.start(game, [SeatSpec(name=s.name or "", bot="bot") for s in seats], seed)
        bots = make_bots(match, ["bot"] * 4, seed)
        room_id = f"r{n:06d}"
        pending.append(
            store.create_room(
                RoomRow(
                    room_id,
                    game.id,
                    {},
                    [s.to_wire() for s in seats],
                    seed,
                    salt,
                    commit(seed, salt),
                    False,
                    None,
                    None,
                    "playing",
                    time.time(),
                    time.time(),
                    None,
                    {},
                )
            )
        )
        for seq in range(1, moves + 1):
            seat = match.state.turn
            action = bots[seat].act(game.view(match.state, seat), match.options_for(seat), 0.0)
            assert action is not None
            position = len(match.log)
            events = match.act(seat, action.command)
            pending.append(
                store.append(
                    room_id,
                    Record(
                        seq,
                        position,
                        seat,
                        to_wire(action.command),
                        0.0,
                        tuple(to_wire(e) for e in events),
                    ),
                )
            )
            written += 1
        if len(pending) > 2000:
            await asyncio.gather(*pending)
            pending = []
    await asyncio.gather(*pending)
    return written


async def main_async(rooms: int, moves: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data=Path(folder))
        store = EventStore(settings.database)
        started = time.perf_counter()
        records = await fill(store, rooms, moves)
        took = time.perf_counter() - started
        print(f"recovery: wrote {rooms} rooms, {records} records in {took:.1f} s")
        store.close()
        store = EventStore(settings.database)
        hub = Hub(settings, store, Metrics())
        started = time.perf_counter()
        rebuilt = await hub.recover()
        elapsed = time.perf_counter() - started
        print(
            f"recovery rooms={rebuilt} records={records} seconds={elapsed:.3f} "
            f"ms_per_room={1000 * elapsed / max(rebuilt, 1):.2f}"
        )
        for room in list(hub.rooms.values()):
            await room.stop()
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    asyncio.run(main_async(30 if args.smoke else args.rooms, args.moves))


if __name__ == "__main__":
    main()
