"""Spectators of a room relayed from another node of a cluster (``server/relay.py``), through
the failures a cluster lives with, on real PostgreSQL and Redis: the watching node paused past
its registry entry (the owner stops relaying to it meanwhile), the owner restarted under its
own node id (it takes its rooms back at the next epoch), and a new owner asked for the room
while it is still rebuilding it. In each, the spectators end up with a snapshot of the room as
its owner plays it now, then every delta."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

from clients.sdk import LuminClient, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from server.app import LuminServer
from tests.server.test_cluster import _kill, known_to_each_other, nodes, until, url

__all__ = ["nodes"]


def snapshots(client: LuminClient, room: str) -> list[Any]:
    """From now on, every snapshot ``client`` gets of ``room`` (the list grows)."""
    seen: list[Any] = []
    original = client._dispatch

    def dispatch(message: Any) -> None:
        if message.TYPE == "snapshot" and getattr(message, "room", None) == room:
            seen.append(message)
        original(message)

    client._dispatch = dispatch  # type: ignore[method-assign]
    return seen


async def moves(client: LuminClient, room: str, count: int, rng: random.Random) -> None:
    """Play ``count`` random legal commands for ``client``'s seat (a bot answers each)."""
    game = get_game("flip_over_frog")
    for _ in range(count):
        while not client.legal(room):
            await client.changed(room)
        command = rng.choice(expand_legal(game, client.legal(room)))
        await client.act(room, to_wire(command))


def paused(server: LuminServer) -> Callable[[], None]:
    """What SIGSTOP does to ``server``'s place in the registry: it stops beating (its entry
    lapses, so the other nodes count it gone) and does no heartbeat work. Returns the wake."""
    cluster = server.hub.cluster
    assert cluster is not None
    beat, beaten = cluster.beat, cluster.beaten

    async def frozen() -> None:
        return None

    cluster.beat = frozen  # type: ignore[method-assign]
    cluster.beaten = None

    def wake() -> None:
        cluster.beat = beat  # type: ignore[method-assign]
        cluster.beaten = beaten

    return wake


async def test_spectators_on_a_node_paused_past_its_entry_get_the_room_again(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    eve = await LuminClient.connect(url(b), "Eve")
    await eve.watch(room)
    assert room in b.hub.relays.remote
    await ada.start(room)
    await moves(ada, room, 2, random.Random(1))
    await until(lambda: eve.seq(room) == ada.seq(room))
    wake = paused(b)
    # Node A stops relaying to node B once B's registry entry lapses.
    await until(lambda: (room, "node-b") not in a.hub.relays.relayed, 10)
    await moves(ada, room, 2, random.Random(2))
    wake()
    await known_to_each_other(a, b)
    await moves(ada, room, 2, random.Random(3))
    await until(lambda: eve.seq(room) == ada.seq(room), 10)
    # A spectator arriving through node B now is not held at the seq B last heard of.
    zed = await LuminClient.connect(url(b), "Zed")
    await zed.watch(room)
    await moves(ada, room, 2, random.Random(4))
    await until(lambda: zed.seq(room) == eve.seq(room) == ada.seq(room), 10)
    for client in (ada, eve, zed):
        await client.close()


async def test_spectators_elsewhere_follow_an_owner_restarted_under_its_own_id(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    eve = await LuminClient.connect(url(b), "Eve")
    await eve.watch(room)
    await ada.start(room)
    await moves(ada, room, 2, random.Random(1))
    seen = snapshots(eve, room)
    b.hub.ownership.claiming = False  # node A, not B, takes the room back
    port = a.port
    await _kill(a)
    assert a.server is not None
    await asyncio.wait_for(a.server.wait_closed(), 10)  # the port is free again
    again = await nodes("node-a", port=port)
    assert again.hub.ownership.epochs.get(room) == 2, "taken back at the next epoch"
    await until(lambda: any(shot.epoch == again.hub.epoch for shot in seen), 10)
    await until(lambda: ada.online and room in ada.room_info, 10)
    await moves(ada, room, 2, random.Random(2))
    await until(lambda: eve.seq(room) == ada.seq(room), 10)
    await ada.close()
    await eve.close()


async def test_a_relay_asked_of_a_new_owner_still_rebuilding_the_room_arrives(nodes) -> None:
    a, b, c = await nodes("node-a"), await nodes("node-b"), await nodes("node-c")
    await known_to_each_other(a, b, c)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    eve = await LuminClient.connect(url(b), "Eve")
    await eve.watch(room)
    seen = snapshots(eve, room)
    b.hub.ownership.claiming = False  # node C takes the room over
    adopt: Callable[[str, int], Awaitable[bool]] = c.hub.adopt

    async def slowly(room_id: str, epoch: int) -> bool:
        # Node C holds the lease but has not built the room yet: node B asks meanwhile.
        await until(lambda: b.hub.relays.remote[room].owner == "node-c", 10)
        await asyncio.sleep(0.5)
        return await adopt(room_id, epoch)

    c.hub.adopt = slowly  # type: ignore[method-assign]
    await _kill(a)
    await until(lambda: room in c.hub.rooms, 15)
    await until(lambda: any(shot.epoch == c.hub.epoch for shot in seen), 10)
    assert eve.seq(room) == c.hub.rooms[room].seq
    await ada.close()
    await eve.close()
