"""Quick play across a cluster, on real PostgreSQL and Redis: two players connected to two
nodes who press Play now for the same table land in one room (the one on the other node is
sent on with ``moved``) and finish the game; the room is made on the least-loaded node; a cancel
on one node takes its ticket out of the cluster's queue; a dead node's tickets match nobody;
with Redis away a node still matches its own players."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from clients.sdk import LuminClient, bot, human
from protocol.messages import CancelPlayNow, Matched, PlayNow
from server.app import LuminServer
from server.cluster import NodeInfo
from tests.server.test_cluster import known_to_each_other, nodes, until, url
from tests.server.test_play import play_seat

__all__ = ["nodes"]

#: Leases and heartbeats a loaded machine cannot let lapse (1 s proved load-sensitive).
TTL = 6.0


async def matched(client: LuminClient, seconds: float = 20.0) -> Matched:
    while True:
        message = await asyncio.wait_for(client.messages.get(), seconds)
        if isinstance(message, Matched):
            return message


async def sent_on(client: LuminClient, room: str, owner: LuminServer) -> None:
    """Follow the client, told ``matched`` for a room ``owner`` plays, to that node (it is
    sent ``moved``), and resume the room there."""
    await until(lambda: client.url == url(owner) and client.online, seconds=10)
    await client.resume(room, 0, "")
    assert client.view(room) is not None


async def entries(server: LuminServer) -> list[dict[str, Any]]:
    """Every ticket in the cluster's quick-play queue, as Redis holds it."""
    cluster = server.hub.cluster
    assert cluster is not None
    found = []
    async for key in cluster.redis.scan_iter(match=cluster._key("qp", "*", "e")):
        for value in (await cluster.redis.hgetall(key)).values():
            found.append(json.loads(value))
    return found


async def test_players_on_two_nodes_meet_in_one_room_and_finish_the_game(nodes) -> None:
    a = await nodes("node-a", lease_ttl=TTL)
    b = await nodes("node-b", lease_ttl=TTL)
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    bea = await LuminClient.connect(url(b), "Bea")
    await ada.request(PlayNow(game="flip_over_frog", seats=2))
    await until(lambda: bool(a.hub.quickplay.shared))  # Ada's ticket is in the cluster's queue
    await bea.request(PlayNow(game="flip_over_frog", seats=2))
    first, second = await matched(ada), await matched(bea)
    assert first.room == second.room and {first.seat, second.seat} == {0, 1}
    assert first.rated and second.rated
    room = first.room
    owner = a if room in a.hub.rooms else b
    assert room in owner.hub.rooms and room not in (b if owner is a else a).hub.rooms
    # The player on the other node enters the room like one they hold a seat in: the resume
    # is answered moved, which the client follows to the room's node.
    # The player on the other node is sent on (moved) to the room's node and resumes there.
    mover = bea if owner is a else ada
    await sent_on(mover, room, owner)
    seats = owner.hub.rooms[room].seats
    assert {seat.user for seat in seats} == {ada.user, bea.user}
    assert [seat.kind for seat in seats] == ["human", "human"]
    await asyncio.wait_for(
        asyncio.gather(
            play_seat(ada, room, random.Random(1), "flip_over_frog"),
            play_seat(bea, room, random.Random(2), "flip_over_frog"),
        ),
        60,
    )
    assert ada.game_over[room].seed == bea.game_over[room].seed
    assert await entries(a) == [], "nothing is left in the queue"
    await ada.close()
    await bea.close()


async def bea_queued_on_b(nodes: Any) -> tuple[LuminServer, LuminServer, LuminClient]:
    """Two nodes, and Bea on node B waiting for a two-seat Neon Hex game in the cluster's
    queue."""
    a = await nodes("node-a", lease_ttl=TTL)
    b = await nodes("node-b", lease_ttl=TTL)
    await known_to_each_other(a, b)
    bea = await LuminClient.connect(url(b), "Bea")
    await bea.request(PlayNow(game="neon_hex", seats=2))
    await until(lambda: bool(b.hub.quickplay.shared))
    return a, b, bea


async def test_a_cancel_on_node_b_takes_its_ticket_out_of_the_cluster_queue(nodes) -> None:
    a, b, bea = await bea_queued_on_b(nodes)
    assert [entry["user"] for entry in await entries(a)] == [bea.user]
    await bea.request(CancelPlayNow())
    assert await entries(a) == []
    assert not b.hub.quickplay.tickets and not b.hub.quickplay.shared
    ada = await LuminClient.connect(url(a), "Ada")  # nobody left for Ada to meet
    await ada.request(PlayNow(game="neon_hex", seats=2))
    with pytest.raises(TimeoutError):
        await matched(ada, seconds=1.5)
    assert [entry["user"] for entry in await entries(a)] == [ada.user]
    await ada.close()
    await bea.close()


async def test_a_dead_nodes_tickets_match_nobody(nodes) -> None:
    a, b, bea = await bea_queued_on_b(nodes)
    # Node B dies: it matches no more (its queue forgotten, its round stopped), beats no
    # more, and never takes its ticket back from Redis.
    b.hub.quickplay.tickets.clear()
    task = b.hub.quickplay._task
    assert task is not None
    task.cancel()
    await asyncio.wait([task], timeout=5)
    await b.hub.cluster.stop(leave=False)
    await until(lambda: "node-b" not in a.hub.cluster.nodes, seconds=15)
    ada = await LuminClient.connect(url(a), "Ada")
    await ada.request(PlayNow(game="neon_hex", seats=2))
    with pytest.raises(TimeoutError):
        await matched(ada, seconds=1.5)
    assert [entry["user"] for entry in await entries(a)] == [ada.user], "B's ticket deleted"
    await ada.close()
    await bea.close()


async def test_with_redis_away_a_node_matches_its_own_players(nodes) -> None:
    a = await nodes("node-a", lease_ttl=TTL, redis="redis://127.0.0.1:1/0")
    ada = await LuminClient.connect(url(a), "Ada")
    bea = await LuminClient.connect(url(a), "Bea")
    await ada.request(PlayNow(game="flip_over_frog", seats=2))
    await bea.request(PlayNow(game="flip_over_frog", seats=2))
    first, second = await matched(ada), await matched(bea)
    assert first.room == second.room and first.room in a.hub.rooms
    await ada.close()
    await bea.close()


async def test_the_room_is_made_on_the_least_loaded_node(nodes) -> None:
    """Node A plays two rooms, node B none: when A's round matches a player on each node, A
    asks B to make the room, and it is played on B."""
    a = await nodes("node-a", lease_ttl=TTL)
    b = await nodes("node-b", lease_ttl=TTL)
    await known_to_each_other(a, b)
    host = await LuminClient.connect(url(a), "Host")
    for _ in range(2):
        await host.create_room("neon_hex", seats=[human(), bot()], sit=0)
    assert len(a.hub.rooms) == 2
    await until(lambda: a.hub.cluster.nodes["node-a"].rooms == 2)
    await until(lambda: b.hub.cluster.nodes.get("node-a", NodeInfo("", "")).rooms == 2)
    cy = await LuminClient.connect(url(a), "Cy")
    dee = await LuminClient.connect(url(b), "Dee")
    made = []
    make_for = b.hub.quickplay.make_for

    async def counted(request: dict[str, Any]) -> dict[str, Any]:
        made.append(request)
        return await make_for(request)

    b.hub.cluster.answerers["quick_room"] = counted
    await dee.request(PlayNow(game="neon_hex", seats=2))
    await until(lambda: bool(b.hub.quickplay.shared))
    await cy.request(PlayNow(game="neon_hex", seats=2))  # A's round at once: Cy meets Dee
    first, second = await matched(cy), await matched(dee)
    assert len(made) == 1, "A asked B to make the room"
    assert first.room == second.room and first.room in b.hub.rooms
    await until(lambda: dee.view(first.room) is not None)  # Dee's node plays it: seated there
    assert dee.url == url(b)
    await sent_on(cy, first.room, b)
    for client in (host, cy, dee):
        await client.close()


async def test_a_cancel_on_b_after_a_matched_it_keeps_the_seat_and_says_matched(nodes) -> None:
    """Node A's round took Bea's ticket (queued on node B) and is making the room when Bea
    presses Cancel on B: too late, and said so by what follows, never a silent forfeit: Bea
    is told ``matched``, sent on to A and seated there when she resumes the room."""
    a = await nodes("node-a", lease_ttl=TTL)
    b = await nodes("node-b", lease_ttl=TTL)
    await known_to_each_other(a, b)
    release = asyncio.Event()
    create = a.hub._create

    def slow(*args: Any, **kwargs: Any) -> Any:
        room, stored = create(*args, **kwargs)

        async def later() -> None:
            await stored
            await release.wait()

        return room, asyncio.ensure_future(later())

    a.hub._create = slow  # type: ignore[method-assign]
    bea = await LuminClient.connect(url(b), "Bea")
    await bea.request(PlayNow(game="flip_over_frog", seats=2))
    await until(lambda: bool(b.hub.quickplay.shared))
    ada = await LuminClient.connect(url(a), "Ada")
    await ada.request(PlayNow(game="flip_over_frog", seats=2))  # A's round takes both
    await until(lambda: bool(a.hub.quickplay._seating))
    await bea.request(CancelPlayNow())
    release.set()
    told = await matched(bea)
    assert (await matched(ada)).room == told.room and told.room in a.hub.rooms
    await sent_on(bea, told.room, a)
    room = a.hub.rooms[told.room]
    await until(lambda: any(peer.user == bea.user for peer in room.peers))
    assert not a.hub.bots.in_grace(room, told.seat), "Bea is there: no stand-in"
    assert not b.hub.quickplay.shared
    await ada.close()
    await bea.close()


async def test_bots_fill_the_seats_after_the_wait_in_a_cluster(nodes) -> None:
    """A lone player in the cluster's queue gets bots after the wait they chose (unrated),
    and their ticket leaves the queue."""
    a = await nodes("node-a", lease_ttl=TTL)
    b = await nodes("node-b", lease_ttl=TTL)
    await known_to_each_other(a, b)
    cy = await LuminClient.connect(url(b), "Cy")
    await cy.request(PlayNow(game="neon_hex", seats=3, bot_wait=0.5))
    told = await matched(cy)
    assert told.seat == 0 and not told.rated
    room = b.hub.rooms[told.room]
    assert [seat.kind for seat in room.seats] == ["human", "bot", "bot"]
    assert await entries(a) == []
    await cy.close()


async def test_a_person_has_one_entry_per_table_in_the_cluster_queue(nodes) -> None:
    a, _, bea = await bea_queued_on_b(nodes)
    # Bea again, on node A with her token, for the same table: her first ticket waits, live
    again = await LuminClient.connect(url(a), "Bea", token=bea.token)
    await again.request(PlayNow(game="neon_hex", seats=2))  # accepted by node A, then...
    while True:
        message = await asyncio.wait_for(again.messages.get(), 10)
        if getattr(message, "code", None) == "rate_limited":
            break
    assert "waiting for this game on another connection" in message.message
    assert not a.hub.quickplay.tickets, "node A dropped the second ticket"
    assert [entry["user"] for entry in await entries(a)] == [bea.user]
    await again.close()
    await bea.close()
