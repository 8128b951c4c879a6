"""Which node a cluster names to clients (``server/cluster.py``), on real PostgreSQL and
Redis: a node whose heartbeat lapsed is never named in ``moved``, even while its registry
entry (which outlives three heartbeats) is still there; the request is answered ``try_again``
until the room's lease lapses and a live node takes it over."""

from __future__ import annotations

from tests.server.test_cluster import Raw, _kill, known_to_each_other, nodes, url

__all__ = ["nodes"]


async def test_a_node_whose_heartbeat_lapsed_is_never_named_in_moved(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await Raw.open(a, [6])
    created = await ada.request(
        {"type": "create_room", "game": "flip_over_frog", "seats": [{}, {}], "sit": 0}
    )
    room = created["room"]
    bea = await Raw.open(b, [6])
    asked = {"type": "join_seat", "room": room, "seat": 1}
    assert (await bea.request(asked))["url"] == url(a), "node A beats: named"
    await _kill(a)  # its lease is live for a TTL yet
    cluster = b.hub.cluster
    assert cluster is not None
    # Node A's registry entry outlives its last heartbeat (it lives three), as it does for a
    # moment after every death; here it stays, with that last heartbeat two beats old.
    entry = await cluster.redis.get(cluster._key("node", "node-a"))
    await cluster.redis.set(cluster._key("node", "node-a"), entry, px=60_000)
    (seconds, micros) = await cluster.redis.time()
    old = seconds * 1000 + micros // 1000 - round(2 * cluster.heartbeat * 1000)
    await cluster.redis.set(cluster._key("beat", "node-a"), old, px=60_000)
    assert "node-a" in cluster.nodes
    answer = await bea.request(asked)
    assert answer["type"] == "error" and answer["code"] == "try_again", answer
    await ada.socket.close()
    await bea.socket.close()
