"""The Python client library on a cluster whose node dies: with the default lease time (5 s),
a seated client keeps resuming its room, with backoff, until the node that takes the room
over lets it back in; a room that stays out of reach past ``give_up`` is given up (a
``Closed`` event), alone, and the connection and the other rooms stay."""

from __future__ import annotations

import asyncio
from typing import Any

from clients.sdk import Closed, LuminClient, human
from protocol.messages import Error
from tests.server.test_cluster import _kill, known_to_each_other, nodes, until
from tests.server.test_cluster import url as node_url

__all__ = ["nodes"]

TTL = 5.0  # the default --lease-ttl; shorter leases are load-sensitive


async def test_a_seated_client_gets_back_into_its_room_after_a_node_dies(nodes: Any) -> None:
    a, b, c = [await nodes(f"node-{n}", lease_ttl=TTL) for n in "abc"]
    await known_to_each_other(a, b, c)
    ada = await LuminClient.connect(node_url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    bea = await LuminClient.connect(node_url(b), "Bea")  # her first URL: node B
    try:
        await bea.join(room, 1)
        assert bea.url == node_url(a)

        async def never(room_id: str) -> None:
            return None

        b.hub.take = never  # type: ignore[method-assign]  # node C, not B, takes it over
        b.hub.ownership.claiming = False
        await _kill(a)
        # B answers her resume `try_again` while A's lease lives (5 s), then `moved` to C.
        await until(lambda: room in c.hub.rooms, 3 * TTL)
        await until(lambda: any(p.user == bea.user for p in c.hub.rooms[room].peers), 3 * TTL)
        assert c.hub.rooms[room].seat_of(bea.user) == 1
        assert bea.url == node_url(c) and bea.online and room not in bea.closed
    finally:
        await bea.close()
        await ada.close()


async def test_a_resume_answered_try_again_is_sent_again_on_the_same_connection(
    nodes: Any,
) -> None:
    a, b = await nodes("node-a", lease_ttl=TTL), await nodes("node-b", lease_ttl=TTL)
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(node_url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    mine = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    bea = await LuminClient.connect(node_url(b), "Bea", give_up=2 * TTL)
    try:
        await bea.join(room, 1)
        assert bea.url == node_url(a)
        await bea.join(mine, 1)

        async def never(room_id: str) -> None:
            return None

        b.hub.take = never  # type: ignore[method-assign]  # nobody ever takes the rooms over
        b.hub.ownership.claiming = False
        await _kill(a)
        # Once A is out of B's registry, B answers her resumes `try_again`, not `moved`.
        await until(lambda: "node-a" not in b.hub.cluster.nodes, 3 * TTL)
        await _try_again(bea)
        socket = bea.socket
        # Requests keep working on the connection while her rooms are out of reach.
        for _ in range(3):
            await bea.list_rooms()
            await asyncio.sleep(0.5)
        assert bea.socket is socket and bea.online
        # Past give_up each room is given up, with a Closed event, and dropped.
        await until(lambda: {room, mine} <= set(bea.closed), 6 * TTL)
        assert bea.closed[room].reason == "gave_up"
        assert room not in bea.conn.views and room not in bea.room_info
        gone = [e.room async for e in _events(bea) if isinstance(e, Closed)]
        assert sorted(gone) == sorted([room, mine])
        assert bea.socket is socket and bea.online and bea.failure is None
        await bea.list_rooms()
    finally:
        await bea.close()
        await ada.close()


async def _try_again(client: LuminClient) -> None:
    """Wait (at most 15 s) for a ``try_again`` answer among the client's messages."""
    async with asyncio.timeout(15):
        while True:
            message = await client.messages.get()
            if isinstance(message, Error) and message.code == "try_again":
                return


async def _events(client: LuminClient) -> Any:
    while not client.events.empty():
        yield client.events.get_nowait()
