"""Lumin nodes in one cluster (``server/cluster.py``), on real PostgreSQL and Redis: each node
sees the others in the registry, lists every node's rooms in its lobby, sends a request for a
room another node plays on with ``moved`` (``try_again`` naming the node to a version-1
client), creates a room on the least-loaded node, takes over a room nobody owns the moment a
client asks for it, and tells the clients of a room it lost where the room went. The Python
client library follows ``moved`` without its caller noticing. ``/readyz`` says whether the
store takes a write and Redis answers."""

from __future__ import annotations

import asyncio
import io
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from click.testing import CliRunner
from websockets.asyncio.client import connect as ws_connect

from clients.sdk import LuminClient, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from lumin.cli import main
from protocol.messages import RoomCreated
from server.app import LuminServer, StartupError
from server.cluster import CREATE_MARGIN, Cluster, NodeInfo, origin_of
from server.config import Settings
from tests.server.conftest import TEST_LIMITS
from tests.server.test_admin import call
from tests.server.test_play import play_seat
from tests.server.test_store_contract import reset_postgres

TTL = 1.0


@pytest.fixture
async def nodes(
    postgres_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> AsyncIterator[Callable[..., Any]]:
    """Starts Lumin nodes of one cluster on this test's database and Redis key prefix."""
    await reset_postgres(postgres_url)
    started: list[LuminServer] = []

    async def start(node: str, **settings: Any) -> LuminServer:
        options: dict[str, Any] = {
            "port": 0, "data": tmp_path / node, "store": postgres_url, "redis": redis_url,
            "redis_prefix": redis_prefix, "node_id": node, "lease_ttl": TTL, "bot_delay": 0.0,
            **TEST_LIMITS,
        }  # fmt: skip
        server = LuminServer(Settings(**(options | settings)))
        await server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        await stopped(server)
    await reset_postgres(postgres_url)  # the worker's database is shared: leave it empty


async def stopped(server: LuminServer, seconds: float = 60.0) -> None:
    """Stop ``server``; one that has not stopped after ``seconds`` fails the test with the
    stack of every task still running, so a stop that hangs says where."""
    try:
        await asyncio.wait_for(server.stop(), seconds)
    except TimeoutError:
        stacks = io.StringIO()
        for task in asyncio.all_tasks():
            task.print_stack(file=stacks)
        pytest.fail(
            f"node {server.settings.node_id} did not stop in {seconds} s:\n{stacks.getvalue()}"
        )


def url(server: LuminServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


async def until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def known_to_each_other(*servers: LuminServer) -> None:
    """Wait until every node's registry lists every node."""
    names = {server.hub.cluster.node for server in servers}  # type: ignore[union-attr]
    await until(lambda: all(names <= set(s.hub.cluster.nodes) for s in servers))  # type: ignore[union-attr]


class Raw:
    """A client speaking bare msgpack frames, to see exactly what a node answers."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.next_id = 0

    @classmethod
    async def open(cls, server: LuminServer, versions: list[int], token: str | None = None) -> Raw:
        raw = cls(await ws_connect(url(server)))
        hello = {"type": "hello", "versions": versions, "name": "Ada", "id": 0}
        if token is not None:
            hello["token"] = token
        await raw.socket.send(msgpack.packb(hello))
        await raw.answer(0)
        return raw

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        await self.socket.send(msgpack.packb({**message, "id": self.next_id}))
        return await self.answer(self.next_id)

    async def answer(self, ref: int) -> dict[str, Any]:
        while True:
            message = msgpack.unpackb(await asyncio.wait_for(self.socket.recv(), 5))
            if message.get("ref") == ref:
                return message

    async def next(self, kind: str) -> dict[str, Any]:
        while True:
            message = msgpack.unpackb(await asyncio.wait_for(self.socket.recv(), 5))
            if message["type"] == kind:
                return message


async def test_every_node_is_in_the_registry_with_its_url_and_load(nodes) -> None:
    a = await nodes("node-a", public_url="ws://games.example.org:{port}/node/a/ws")
    b = await nodes("node-b")
    await known_to_each_other(a, b)
    seen_from_b = b.hub.cluster.nodes["node-a"]
    assert seen_from_b.url == f"ws://games.example.org:{a.port}/node/a/ws", "{port} filled in"
    assert b.hub.cluster.nodes["node-b"].url == url(b), "default: ws://HOST:PORT/ws"
    ada = await LuminClient.connect(url(a), "Ada")
    await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await until(lambda: b.hub.cluster.nodes["node-a"].rooms == 1)
    assert b.hub.cluster.nodes["node-a"].connections == 1
    await ada.close()
    await a.stop()  # leaves the registry at once, not after its heartbeats lapse
    await until(lambda: "node-a" not in b.hub.cluster.nodes)


async def test_the_lobby_on_any_node_lists_every_nodes_rooms(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    bea = await LuminClient.connect(url(b), "Bea")
    assert await bea.watch_lobby() == []
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("neon_hex", seats=[human(), bot()], sit=0)
    update = await _next(bea, "lobby_update")
    assert [summary.room for summary in update.rooms] == [room], "announced on node B at once"
    listed = await bea.list_rooms()
    assert [summary.room for summary in listed] == [room]
    assert listed[0].seats[0].name == "Ada"
    await ada.leave(room)
    a.hub.sweep(time.time() + 2 * a.settings.idle_expiry)  # nobody in it: it expires
    while room not in (update := await _next(bea, "lobby_update")).removed:
        assert [summary.room for summary in update.rooms] == [room]
    assert await bea.list_rooms() == []
    await ada.close()
    await bea.close()


async def _next(client: LuminClient, kind: str) -> Any:
    """The next message of type ``kind`` the client receives (within 5 s each)."""
    while True:
        message = await asyncio.wait_for(client.messages.get(), 5)
        if kind == message.TYPE:
            return message


async def test_a_seat_on_another_nodes_room_is_answered_with_moved(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await until(lambda: any(r.room == room for r in b.hub.cluster.remote_rooms()))
    bea = await Raw.open(b, [1, 2])
    answer = await bea.request({"type": "join_seat", "room": room, "seat": 1})
    assert answer == {"type": "moved", "ref": bea.next_id, "room": room, "url": url(a)}
    host = await Raw.open(b, [2], token=ada.token)  # Ada holds seat 0: her resume goes on too
    answer = await host.request({"type": "resume", "room": room, "seq": 0, "epoch": ""})
    assert answer == {"type": "moved", "ref": host.next_id, "room": room, "url": url(a)}
    old = await Raw.open(b, [1])  # a version-1 client is never sent `moved`
    answer = await old.request({"type": "join_seat", "room": room, "seat": 1})
    assert answer["type"] == "error" and answer["code"] == "try_again"
    assert url(a) in answer["message"]
    await ada.close()


async def test_the_python_client_follows_moved_and_plays_on_the_owner(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    bea = await LuminClient.connect(url(b), "Bea")
    await bea.join(room, 1)  # answered `moved` by node B, then `ok` by node A
    assert bea.url == url(a) and bea.first_url == url(b)
    assert room in bea.room_info
    await ada.ready(room)
    await bea.ready(room)
    await ada.start(room)
    await until(lambda: bea.view(room) is not None)
    assert a.hub.rooms[room].seat_of(bea.user) == 1
    await ada.close()
    await bea.close()


async def test_a_new_room_goes_to_the_least_loaded_node(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    for _ in range(CREATE_MARGIN):
        await ada.create_room("neon_hex", seats=[human(), bot()])
    await until(lambda: b.hub.cluster.nodes["node-a"].rooms == CREATE_MARGIN)
    await until(lambda: a.hub.cluster.nodes["node-a"].rooms == CREATE_MARGIN)
    raw = await Raw.open(a, [2])
    request = {"type": "create_room", "game": "neon_hex", "seats": [{"kind": "human"}]}
    request["seats"].append({"kind": "bot"})
    answer = await raw.request(request)  # `room` nil: left out on the wire, as every nil
    assert answer == {"type": "moved", "ref": raw.next_id, "url": url(b)}
    room = await ada.create_room("neon_hex", seats=[human(), bot()], sit=0)
    assert room in b.hub.rooms and room not in a.hub.rooms, "the client followed to node B"
    assert isinstance(ada.last_created, RoomCreated)
    await ada.close()


async def test_a_room_nobody_owns_is_taken_over_by_the_node_a_client_asks(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await until(lambda: bool(ada.legal(room)))
    seq = ada.seq(room)
    b.hub.ownership.claiming = False  # no ownership round of B's may take it first
    await a.hub.ownership.stop()  # node A pauses: its lease lapses after the TTL,
    await a.hub.cluster.stop(leave=False)  # its registry entry and hints after 3 heartbeats
    await until(lambda: "node-a" not in b.hub.cluster.nodes)
    await asyncio.sleep(TTL)
    raw = await Raw.open(b, [2], token=ada.token)
    answer = await raw.request({"type": "resume", "room": room, "seq": 0, "epoch": ""})
    assert answer["type"] == "snapshot" and answer["seq"] == seq, "rebuilt on B at once"
    assert room in b.hub.rooms and b.hub.ownership.epochs[room] == 2
    # Node A's next append is fenced: it answers the act `moved` to node B and lets the room
    # go; Ada's client follows and sends the act again there, where it is taken.
    command = to_wire(expand_legal(get_game("flip_over_frog"), ada.legal(room))[0])
    assert (await ada.act(room, command)).TYPE == "accepted", "taken by node B"
    moved = await _next(ada, "moved")
    assert (moved.room, moved.url) == (room, url(b))
    await until(lambda: ada.url == url(b) and ada.online)
    await until(lambda: room in ada.room_info and ada.seq(room) >= seq)
    await ada.close()


async def test_a_page_from_any_node_may_open_a_socket_to_another(nodes) -> None:
    a = await nodes("node-a", public_url="wss://one.example.org/node/a/ws")
    b = await nodes("node-b", origins=("https://games.example.org",))
    await known_to_each_other(a, b)
    assert origin_of("wss://one.example.org/node/a/ws") == "https://one.example.org"
    for origin in ("https://one.example.org", "https://games.example.org"):
        async with ws_connect(url(b), origin=origin) as socket:  # type: ignore[arg-type]
            await socket.send(msgpack.packb({"type": "hello", "versions": [2], "name": "Ada"}))
            assert msgpack.unpackb(await socket.recv())["type"] == "welcome"
    with pytest.raises(Exception, match="403"):
        await ws_connect(url(b), origin="https://elsewhere.example.org")  # type: ignore[arg-type]


def _get(server: LuminServer, path: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def test_readyz_fails_while_redis_is_unreachable_and_the_node_plays_on(
    nodes, unused_tcp_port: int
) -> None:
    a = await nodes("node-a")
    status, body = await asyncio.to_thread(_get, a, "/readyz")
    assert (status, body) == (200, {"status": "ready", "checks": {"store": "ok", "redis": "ok"}})
    lonely = await nodes("node-b", redis=f"redis://127.0.0.1:{unused_tcp_port}/0")
    status, body = await asyncio.to_thread(_get, lonely, "/readyz")
    assert status == 503 and body["status"] == "not_ready"
    assert body["checks"]["store"] == "ok" and body["checks"]["redis"].startswith("failing")
    assert (await asyncio.to_thread(_get, lonely, "/healthz"))[0] == 200, "alive all the same"
    ada = await LuminClient.connect(url(lonely), "Ada")  # Redis away: the node fails open
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await until(lambda: bool(ada.legal(room)))
    await ada.close()


async def test_a_spectator_on_another_node_sees_every_public_delta_in_order(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("neon_flip", seats=[human(), bot()], sit=0)
    eve = await LuminClient.connect(url(b), "Eve")
    await eve.watch(room)  # relayed: Eve stays on node B
    assert eve.url == url(b) and room in b.hub.relays.remote
    await ada.start(room)
    steps = _seqs(eve, room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(4), "neon_flip"), 60)
    await until(lambda: room in eve.game_over, 10)
    assert eve.game_over[room].seed == ada.game_over[room].seed
    seen = steps()
    assert seen == sorted(seen) and seen[-1] == ada.seq(room) == eve.seq(room), "all, in order"
    played = a.hub.rooms[room]
    assert eve.view(room) == played.game.view(played.state, None), "the public view exactly"
    await ada.close()
    await eve.close()


def _seqs(client: LuminClient, room: str) -> Callable[[], list[int]]:
    """From now on, the ``(base, seq)`` chain of the deltas ``client`` gets for ``room``;
    calling the result checks the chain has no hole and returns the seqs."""
    seqs: list[int] = []
    queue: asyncio.Queue[Any] = asyncio.Queue()
    original = client._dispatch

    def dispatch(message: Any) -> None:
        queue.put_nowait(message)
        original(message)

    client._dispatch = dispatch  # type: ignore[method-assign]

    def chain() -> list[int]:
        last = None
        while not queue.empty():
            message = queue.get_nowait()
            if getattr(message, "room", None) != room:
                continue
            if message.TYPE == "snapshot":
                last = message.seq
            elif message.TYPE == "delta":
                assert last is None or message.base == last, (last, message.base)
                last = message.seq
                seqs.append(message.seq)
        return seqs

    return chain


async def test_a_relayed_delta_lost_on_the_way_is_made_again_from_the_log(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    eve = await LuminClient.connect(url(b), "Eve")
    await eve.watch(room)
    await ada.start(room)
    await until(lambda: eve.view(room) is not None)
    steps = _seqs(eve, room)
    relay, dropped = a.hub.cluster.relay, []

    def lossy(node: str, room_id: str, frame: bytes) -> None:
        if not dropped and msgpack.unpackb(frame).get("type") == "delta":
            dropped.append(frame)  # pub/sub dropped this one
            return
        relay(node, room_id, frame)

    a.hub.cluster.relay = lossy  # type: ignore[method-assign]
    await asyncio.wait_for(play_seat(ada, room, random.Random(5), "flip_over_frog"), 60)
    await until(lambda: room in eve.game_over, 10)
    assert dropped, "a delta was dropped"
    assert b.metrics.relay_gaps_filled._value.get() >= 1
    seen = steps()
    assert seen[-1] == ada.seq(room) and seen == sorted(seen)
    await ada.close()
    await eve.close()


async def test_a_stopping_node_hands_each_room_over_and_sends_its_players_on(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    game, rng = get_game("flip_over_frog"), random.Random(6)
    rooms = [await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)]
    rooms.append(await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0))
    assert all(room in a.hub.rooms for room in rooms)
    acked: dict[str, dict[int, dict]] = {room: {} for room in rooms}

    async def play(room: str, moves: int) -> None:
        while len(acked[room]) < moves and room not in ada.game_over:
            while not ada.legal(room):
                await ada.changed(room)
            command = to_wire(rng.choice(expand_legal(game, ada.legal(room))))
            answer = await ada.act(room, command)
            if answer.TYPE == "accepted":
                acked[room][answer.seq] = command

    for room in rooms:
        await ada.start(room)
        await play(room, 2)
    stopped = time.monotonic()
    await a.stop()  # SIGTERM: the drain
    assert all(room in b.hub.rooms for room in rooms), "node B took every room at once"
    assert b.hub.ownership.epochs.keys() >= set(rooms)
    for room in rooms:
        await until(lambda room=room: ada.online and ada.url == url(b) and bool(ada.legal(room)))
    assert time.monotonic() - stopped < TTL * 3, "a reconnect, not a lapsed lease"
    for room in rooms:
        await play(room, 4)
    for room in rooms:
        logged = {r.seq: r.command for r in await b.store.get_records(room)}
        assert all(logged.get(seq) == command for seq, command in acked[room].items())
    await ada.close()


def test_a_dead_nodes_rooms_go_to_the_survivors_by_load() -> None:
    def share(node: str, loads: dict[str, int], lapsed: int) -> int:
        cluster = Cluster("redis://127.0.0.1:1/0", node, f"ws://{node}/ws")
        cluster.nodes = {n: NodeInfo(n, f"ws://{n}/ws", rooms) for n, rooms in loads.items()}
        cluster.load = lambda: (loads[node], 0)
        return cluster.claim_share(lapsed)

    loads = {"node-a": 10, "node-b": 0, "node-c": 4}
    assert share("node-b", loads, 12) == 9, "up to an even share: (14 + 12) / 3, rounded up"
    assert share("node-c", loads, 12) == 5
    assert share("node-a", loads, 12) == 0, "the heaviest waits"
    assert share("node-b", {"node-b": 3, "node-c": 4}, 1) == 1, "the lightest takes it"
    assert share("node-c", {"node-b": 3, "node-c": 4}, 1) == 0
    assert share("node-c", {"node-b": 9, "node-c": 9}, 1) == 1, "even: both try, one wins"
    assert share("node-b", {"node-b": 0}, 5) == 5, "alone: every room"


async def test_a_loaded_node_claims_fewer_lapsed_rooms_than_a_light_one(nodes) -> None:
    b, c = await nodes("node-b"), await nodes("node-c")
    b.hub.load = lambda: 6  # type: ignore[method-assign]  # b plays six rooms, c none
    await until(lambda: c.hub.cluster.nodes.get("node-b", NodeInfo("", "")).rooms == 6)
    await until(lambda: "node-c" in b.hub.cluster.nodes)
    assert b.hub.ownership.share(6) == 0, "the loaded node leaves a dead node's six rooms"
    assert c.hub.ownership.share(6) == 6, "the empty node takes them all: six rooms each"
    assert b.hub.ownership.share(8) == 1 and c.hub.ownership.share(8) == 7


async def test_a_room_taken_over_keeps_its_deadlines_and_its_turn_clock(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    race = await ada.create_room("flash8", seats=[human(), bot()], sit=0)
    turns = await ada.create_room("neon_hex", seats=[human(), bot()], sit=0, turn_clock=6.0)
    for room in (race, turns):
        await ada.start(room)
    await until(lambda: bool(ada.legal(turns)) and a.hub.rooms[race].game.deadline(
        a.hub.rooms[race].state) is not None)  # fmt: skip
    deadline = a.hub.rooms[race].game.deadline(a.hub.rooms[race].state)
    began = a.hub.rooms[turns].legal_at[0]
    b.hub.ownership.claiming = False
    await a.hub.ownership.stop()  # node A pauses
    await a.hub.cluster.stop(leave=False)
    await until(lambda: "node-b" in b.hub.cluster.nodes and "node-a" not in b.hub.cluster.nodes)
    await asyncio.sleep(TTL)
    for room in (race, turns):
        assert await b.hub.take(room) is not None
    taken = b.hub.rooms[race]
    assert taken.game.deadline(taken.state) == deadline, "the race's clock is the state's"
    assert b.hub.rooms[turns].legal_at[0] == began, "the turn began when it was logged to"
    when = b.hub.bots.clocks[(turns, 0)][1].when()
    loop_now = asyncio.get_running_loop().time()
    assert when - loop_now < 6.0 - (time.time() - began) + 0.5, "what was left, not 6 s again"
    await ada.close()


async def test_a_command_in_flight_when_a_node_drains_is_answered(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await until(lambda: bool(ada.legal(room)))
    inner = a.hub.store.append

    def slow_append(room_id: str, *records: Any, epoch: int | None = None) -> Any:
        """A commit that takes 200 ms more (a busy PostgreSQL)."""
        done = inner(room_id, *records, epoch=epoch)
        later = asyncio.get_running_loop().create_future()

        async def wait() -> None:
            try:
                await done
                await asyncio.sleep(0.2)
                later.set_result(None)
            except Exception as error:
                later.set_exception(error)

        a.hub.spawn(wait())
        return later

    a.hub.store.append = slow_append  # type: ignore[method-assign]
    seq = a.hub.rooms[room].seq
    command = to_wire(expand_legal(get_game("flip_over_frog"), ada.legal(room))[0])
    acting = asyncio.ensure_future(ada.act(room, command))
    await asyncio.sleep(0.05)  # the room's task waits for the commit
    await stopped(a, 30)  # SIGTERM
    answer = await asyncio.wait_for(acting, 8)
    assert answer.TYPE == "accepted" and answer.seq == seq + 1, "committed, so acknowledged"
    assert [r.seq for r in await b.store.get_records(room)][-1] >= seq + 1
    await asyncio.wait_for(ada.close(), 15)  # it may be reconnecting to node B just now


async def test_a_draining_node_stays_out_of_the_registry(redis_url, redis_prefix) -> None:
    a = Cluster(redis_url, "node-a", "ws://a/ws", prefix=redis_prefix, heartbeat=0.2)
    b = Cluster(redis_url, "node-b", "ws://b/ws", prefix=redis_prefix, heartbeat=0.2)
    rooms = [5]
    a.load = lambda: (rooms[0], 0)
    await a.start()
    await b.start()
    try:
        await until(lambda: "node-a" in b.nodes)
        await a.leave()  # the drain begins
        rooms[0] -= 1
        a.load_changed()  # a room handed over
        await asyncio.sleep(0.8)
        assert await a.redis.get(a._key("node", "node-a")) is None, "not written again"
        assert "node-a" not in b.nodes
    finally:
        await a.stop()
        await b.stop()


async def test_a_refused_resume_leaves_no_relay_behind(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0, private=True)
    mallory = await Raw.open(b, [2])
    for _ in range(3):
        answer = await mallory.request({"type": "resume", "room": room, "seq": 0, "epoch": ""})
        assert answer["type"] == "error" and answer["code"] == "bad_code"
    await asyncio.sleep(1.0)  # a few heartbeats
    await mallory.socket.close()
    await until(lambda: room not in b.hub.relays.remote)
    await until(lambda: (room, "node-b") not in a.hub.relays.relayed)
    await ada.close()


async def test_the_lease_holder_is_the_owner_whatever_the_hints_say(nodes) -> None:
    a, b, c = await nodes("node-a"), await nodes("node-b"), await nodes("node-c")
    await known_to_each_other(a, b, c)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    b.hub.ownership.claiming = c.hub.ownership.claiming = False
    await a.hub.ownership.stop()  # A cannot renew (its PostgreSQL is away); A beats on, hinting
    await asyncio.sleep(TTL * 1.5)
    assert await b.hub.take(room) is not None
    await asyncio.sleep(0.5)
    seen = set()
    for _ in range(20):
        seen.add(await c.hub.owner_of(room))
        await asyncio.sleep(0.05)
    assert seen == {"node-b"}
    await ada.close()


async def _kill(server: LuminServer) -> None:
    """What SIGKILL does to a node, in this process: no drain, no lease released, its
    registry entry left to lapse, every socket cut."""
    await server.hub.ownership.stop()
    await server.hub.cluster.stop(leave=False)
    assert server.server is not None
    server.server.close()
    for socket in list(server.server.connections):
        socket.transport.abort()
    for room in list(server.hub.rooms.values()):
        room.halt()


async def test_after_a_node_dies_the_python_client_is_sent_on_to_the_room(nodes) -> None:
    a, b, c = await nodes("node-a"), await nodes("node-b"), await nodes("node-c")
    await known_to_each_other(a, b, c)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    bea = await LuminClient.connect(url(b), "Bea")  # her first URL: node B
    await bea.join(room, 1)
    assert bea.url == url(a)

    async def never(room_id: str) -> None:
        return None

    b.hub.take = never  # type: ignore[method-assign]  # node C, not B, takes the room over
    b.hub.ownership.claiming = False
    await _kill(a)
    await until(lambda: room in c.hub.rooms, 10)
    # Bea reconnected to node B, which answered her resume `try_again`, then `moved` to C.
    await until(lambda: bea.online and bea.url == url(c) and room in bea.room_info, 10)
    # room_info still holds the room from before the kill: wait for her resume to attach her.
    await until(lambda: any(peer.user == bea.user for peer in c.hub.rooms[room].peers), 10)
    assert c.hub.rooms[room].seat_of(bea.user) == 1
    await bea.close()
    await ada.close()


# --- the admin API on a cluster ---------------------------------------------------------------

ADMIN = "cluster-admin-token-0123456789"


async def admin_call(server: LuminServer, method: str, path: str) -> tuple[int, dict[str, Any]]:
    return await call(server, method, path, token=ADMIN)


async def test_any_node_answers_the_admin_api_for_the_whole_cluster(nodes) -> None:
    a, b = await nodes("node-a", admin_token=ADMIN), await nodes("node-b", admin_token=ADMIN)
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    bea = await LuminClient.connect(url(b), "Bea")
    cy = await LuminClient.connect(url(b), "Cy")
    hidden = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0, private=True)
    other = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    assert {hidden, other} <= a.hub.rooms.keys()
    await bea.join(other, 1)
    status, body = await admin_call(b, "GET", "rooms")
    assert status == 200 and "unreachable" not in body
    assert {(r["id"], r["node"]) for r in body["rooms"]} == {(hidden, "node-a"), (other, "node-a")}
    status, body = await admin_call(b, "GET", "connections")
    assert {(c["name"], c["node"]) for c in body["connections"]} >= {
        ("Ada", "node-a"), ("Bea", "node-a"), ("Cy", "node-b")
    }, "Bea followed the room she joined to node A"  # fmt: skip
    status, body = await admin_call(b, "GET", f"rooms/{hidden}")
    assert status == 200 and body["node"] == "node-a" and body["private"]
    status, body = await admin_call(b, "POST", f"rooms/{other}/kick?seat=1&reason=testing")
    assert status == 200 and body["user"] == bea.user, "forwarded to node A, which plays it"
    status, body = await admin_call(b, "POST", f"rooms/{hidden}/close?reason=testing")
    assert status == 200 and body["status"] == "aborted"
    assert (await b.store.get_room(hidden)).status == "aborted"
    status, body = await admin_call(b, "POST", "bans?identity=" + bea.user)
    assert status == 200 and body["closed"] == 1 and a.hub.bans.of_user(bea.user) is not None
    status, body = await admin_call(b, "POST", "nodes/node-a/drain")
    assert status == 200 and body["node"] == "node-a" and body["handing_over"]
    assert body["rooms"] == 1 and a.hub.draining
    await until(lambda: other in b.hub.rooms)
    # Asked of node A itself: a drained node leaves the registry once its rooms are handed
    # over, so by now B may no longer list it.
    status, again = await admin_call(a, "POST", "nodes/node-a/drain")
    assert status == 200 and again["draining"], "asking again changes nothing"
    await until(lambda: "node-a" not in b.hub.cluster.nodes)
    for client in (ada, bea, cy):
        await client.close()


async def lumin_admin_of(server: LuminServer, *args: str) -> str:
    """``lumin admin --url SERVER ARGS`` with the cluster's admin token: what it prints."""
    result = await asyncio.to_thread(
        CliRunner().invoke,
        main,
        ["admin", "--url", f"http://127.0.0.1:{server.port}", *args],
        env={"LUMIN_ADMIN_TOKEN": ADMIN},
    )
    assert result.exit_code == 0, result.output
    return result.stdout


async def test_operators_see_each_rooms_lease_and_a_node_holding_one_without_it(nodes) -> None:
    a, b = await nodes("node-a", admin_token=ADMIN), await nodes("node-b", admin_token=ADMIN)
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await until(lambda: not a.hub.ownership.is_creating(room))
    status, body = await admin_call(b, "GET", "rooms")
    [entry] = body["rooms"]
    assert (entry["node"], entry["held_without_lease"]) == ("node-a", False)
    assert entry["lease"]["node"] == "node-a" and entry["lease"]["epoch"] == 1
    assert entry["lease"]["live"] and 0 < entry["lease"]["expires_in"] <= TTL
    # Node A as if paused past its lease: it renews nothing, node B takes the room over.
    await a.hub.ownership.stop()
    await a.store.release(room, "node-a", 1)
    await until(lambda: room in b.hub.rooms)
    status, body = await admin_call(b, "GET", "rooms")
    listed = {entry["node"]: entry for entry in body["rooms"]}
    assert listed.keys() == {"node-a", "node-b"}, "both nodes hold the room in memory"
    assert listed["node-a"]["held_without_lease"] and not listed["node-b"]["held_without_lease"]
    for entry in listed.values():
        assert (entry["lease"]["node"], entry["lease"]["epoch"]) == ("node-b", 2)
    status, body = await admin_call(a, "GET", f"rooms/{room}")
    assert status == 200 and body["node"] == "node-a" and body["held_without_lease"]
    assert (body["lease"]["node"], body["lease"]["epoch"], body["lease"]["live"]) == (
        "node-b", 2, True
    )  # fmt: skip
    table = await lumin_admin_of(b, "rooms")
    assert "LEASE" in table.splitlines()[0]
    rows = sorted(" ".join(line.split()[7:10]) for line in table.splitlines() if room in line)
    assert rows == ["node-a ! node-b", "node-b node-b epoch"], table
    assert "without a live lease of its own" in table
    shown = await lumin_admin_of(a, "room", room)
    assert "lease node-b epoch 2 expires" in shown
    assert "! node-a holds this room in memory without a live lease of its own" in shown
    await ada.close()


async def test_a_node_refuses_a_redis_prefix_another_cluster_lives_under(
    nodes, postgres_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    a = await nodes("node-a")
    made = await a.store.cluster_id()
    assert made.startswith("c") and len(made) == 17
    assert await a.store.cluster_id() == made, "made once, at the first start"
    b = await nodes("node-b")
    assert await b.store.cluster_id() == made, "every node of the database's cluster has it"
    redis = b.hub.cluster.redis
    await until(lambda: "node-b" in a.hub.cluster.nodes)
    assert {await redis.get(f"{redis_prefix}cluster:{n}") for n in ("node-a", "node-b")} == {
        made.encode()
    }, "published with each registry entry"
    # Another cluster (its own database) under the same prefix: one of its nodes is live.
    entry = json.dumps({"node": "node-x", "url": "ws://elsewhere/ws", "rooms": 0})
    await redis.set(f"{redis_prefix}node:node-x", entry, px=60_000)
    await redis.set(f"{redis_prefix}cluster:node-x", "c0123456789abcdef", px=60_000)
    await redis.sadd(f"{redis_prefix}nodes", "node-x")
    third = LuminServer(Settings(
        port=0, data=tmp_path / "node-c", store=postgres_url, redis=redis_url,
        redis_prefix=redis_prefix, node_id="node-c", lease_ttl=TTL, **TEST_LIMITS,
    ))  # fmt: skip
    with pytest.raises(StartupError) as refused:
        await third.start()
    said = str(refused.value)
    assert "holds live nodes of another cluster (node-x of cluster c0123456789abcdef)" in said
    assert f"is cluster {made}" in said and "its own --redis-prefix" in said
    assert await redis.get(f"{redis_prefix}node:node-c") is None, "it never joined"
    assert await redis.get(f"{redis_prefix}node:node-x") is not None, "nor touched theirs"
    await redis.delete(f"{redis_prefix}node:node-x")  # that cluster's node dies
    await until(lambda: "node-x" not in b.hub.cluster.nodes)
    fourth = await nodes("node-d")
    assert fourth.hub.cluster.cluster_id == made, "no live node of another cluster: it joins"
