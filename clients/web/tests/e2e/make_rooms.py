"""Fill the e2e server's lobby: COUNT public Flip Over Frog rooms waiting for a player (one
open seat, one bot), created through the Python client library as one guest named NAME, who
stays in them (the lobby lists a waiting room only while someone is in it) until its standard
input closes. Prints the rooms' ids as one JSON line once they exist. Used by lobby.spec.ts.

    .venv/bin/python clients/web/tests/e2e/make_rooms.py ws://127.0.0.1:PORT/ws COUNT NAME
"""

from __future__ import annotations

import asyncio
import json
import sys

from clients.sdk import LuminClient, bot, human


async def make_rooms(url: str, count: int, name: str) -> None:
    """Create ``count`` waiting rooms as ``name``, print their ids, and stay until stdin
    closes."""
    async with await LuminClient.connect(url, name) as client:
        rooms = [
            await client.create_room("flip_over_frog", [human(), bot("bot")]) for _ in range(count)
        ]
        print(json.dumps(rooms), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


if __name__ == "__main__":
    asyncio.run(make_rooms(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
