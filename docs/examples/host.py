"""Host a Flip Over Frog game for a bot to join (docs/bots.md, "On a live server").

    python host.py ws://127.0.0.1:8700/ws

Creates a room with Lumin's ``random`` bot in seat 0 and seat 1 open, prints the room id,
starts the game once seat 1 is taken and ready, and prints the outcome when it is over.
"""

from __future__ import annotations

import asyncio
import sys

from clients.sdk import LuminClient, bot, human


async def host(url: str) -> None:
    async with await LuminClient.connect(url, "Host") as client:
        room = await client.create_room("flip_over_frog", seats=[bot("random"), human()])
        await client.watch(room)
        print(room, flush=True)
        while not ((info := client.room_info.get(room)) and info.seats[1].ready):
            await client.changed(room)
        await client.start(room)
        while room not in client.game_over:
            await client.changed(room)
        outcome = client.game_over[room].outcome
        print(f"ranks {list(outcome.ranks)}, scores {list(outcome.scores)}", flush=True)


if __name__ == "__main__":
    asyncio.run(host(sys.argv[1]))
