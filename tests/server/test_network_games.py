"""Every game Lumin hosts, played to the end over the network by a client and bot seats with
a spectator watching; and across many networked games, no frame sent to a player or spectator
holds another seat's secret (checked at the moment each frame is sent)."""

from __future__ import annotations

import asyncio
import random

import msgpack
import pytest

from clients.sdk import LuminClient, bot, human
from engine.core import validate_options
from engine.registry import game_ids, get_game
from server.client import Client
from tests.contract.spec import load_spec
from tests.contract.test_contract import walk
from tests.server.test_play import play_seat


def seat_counts(game_id: str) -> list[int]:
    game = get_game(game_id)
    counts = game.seat_counts(validate_options(game, {}))
    return sorted({counts.start, counts.stop - 1})


CASES = [(g, n) for g in game_ids() for n in seat_counts(g)]
#: A Flash 8 race whose human plays at random ends when the solver bots finish at their human
#: pace, over a minute (more on a busy machine): a time limit ends it sooner, an end all the same.
RACE_TO_AN_END = {"countdown": 0.2, "time_limit": 20.0}


@pytest.fixture
def leaks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Scan every frame the server queues for a client against that viewer's secrets now."""
    found: list[str] = []
    original = Client.send_frame

    def scanning(self: Client, frame: bytes) -> None:
        message = msgpack.unpackb(frame, raw=False)
        room = self.rooms.get(message.get("room"))
        if room is not None and room.state is not None and self in room.peers:
            secrets = load_spec(room.game.id).secrets(room.state, room.peers[self])
            for path, leaf in walk(message):
                if isinstance(leaf, str | int) and not isinstance(leaf, bool) and leaf in secrets:
                    found.append(f"{room.game.id} viewer {room.peers[self]}: {leaf!r} at {path}")
        original(self, frame)

    monkeypatch.setattr(Client, "send_frame", scanning)
    return found


@pytest.mark.parametrize(("game_id", "seats"), CASES)
async def test_game_played_over_the_network(connect, leaks, game_id: str, seats: int) -> None:
    player: LuminClient = await connect("Ada")
    spectator: LuminClient = await connect("Eve")
    room = await player.create_room(
        game_id,
        seats=[human()] + [bot() for _ in range(seats - 1)],
        sit=0,
        options=RACE_TO_AN_END if game_id == "flash8" else None,
    )
    await spectator.watch(room)
    await player.start(room)
    await asyncio.wait_for(play_seat(player, room, random.Random(seats), game_id), 120)
    for _ in range(100):
        if room in spectator.game_over:
            break
        await spectator.changed(room)
    assert spectator.game_over[room].outcome == player.game_over[room].outcome
    assert "outcome" in spectator.view(room)
    assert not leaks, leaks[:5]


async def test_many_networked_games_leak_nothing(connect, leaks) -> None:
    """Several bot-only and mixed games at once, every frame scanned."""
    watcher: LuminClient = await connect("Eve")
    players = [await connect(f"P{n}") for n in range(3)]
    rooms: list[tuple[LuminClient, str]] = []
    for n, client in enumerate(players):
        room = await client.create_room(
            "flip_over_frog", seats=[human(), bot(), bot(), bot()][: 2 + n], sit=0
        )
        await watcher.watch(room)
        await client.start(room)
        rooms.append((client, room))
    await asyncio.wait_for(
        asyncio.gather(*(play_seat(c, r, random.Random(r), "flip_over_frog") for c, r in rooms)),
        120,
    )
    assert not leaks, leaks[:5]
