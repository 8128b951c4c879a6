"""docs/bots.md's smallest bot, run as written (its last line names a placeholder room, so it
is left out and ``main`` is called with the test server's) against a real server, playing a
whole game against a person who takes their time."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from clients.sdk import LuminClient, human
from tests.server.test_play import play_seat

BOTS_DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def smallest_bot() -> str:
    """The Python code block under "The smallest bot", without its ``asyncio.run`` line."""
    section = BOTS_DOC.read_text().split("## The smallest bot", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    lines = code.splitlines()
    assert any(line.startswith("asyncio.run(main(") for line in lines)
    return "\n".join(line for line in lines if not line.startswith("asyncio.run("))


async def seat_ready(client: LuminClient, room: str, seat: int) -> None:
    """Wait (at most 20 s) until ``seat`` of ``room`` is taken and ready."""
    async with asyncio.timeout(20):
        while True:
            info = client.room_info.get(room)
            if info is not None and info.seats[seat].ready:
                return
            await client.changed(room)


async def test_the_smallest_bot_of_the_docs_plays_a_whole_game(connect, url: str) -> None:
    namespace: dict[str, Any] = {"__name__": "smallest_bot"}
    exec(compile(smallest_bot(), str(BOTS_DOC), "exec"), namespace)
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    playing = asyncio.create_task(namespace["main"](url, room, 1))
    await seat_ready(ada, room, 1)
    await ada.ready(room)
    await ada.start(room)
    await asyncio.sleep(1.5)  # the bot waits for Ada's first move without timing out
    assert not playing.done()
    await asyncio.wait_for(play_seat(ada, room, random.Random(3), "flip_over_frog"), 60)
    await asyncio.wait_for(playing, 30)
    assert room in ada.game_over
