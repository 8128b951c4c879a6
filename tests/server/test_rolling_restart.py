"""A rolling restart of a three-node cluster under live games, on real PostgreSQL and Redis:
each node in turn stops gracefully (what SIGTERM does: its last appends commit, its leases are
released, its clients get ``bye`` ``going_away`` and the close 1001) and a new server with the
same node id starts on the same port, while players on every node keep acting. Every command
a player was told ``accepted`` is in its room's final log at its seq, and every game is
played to its end (none abandoned).

The players are :mod:`clients.failover`'s (random legal commands, a moment's thought before
each, commands the restart kept from their room sent again once back in it); they connect to
the nodes in turn, which is where they reconnect when their node goes away.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from clients.failover import Book, LogRecord, Member, Pace, RoomPlan, check_acks, play
from clients.sdk import LuminClient, bot, human
from server.app import LuminServer, StartupError
from server.config import Settings
from tests.server.conftest import TEST_LIMITS
from tests.server.test_cluster import known_to_each_other, until, url
from tests.server.test_store_contract import reset_postgres

TTL = 1.0
NODES = ("node-a", "node-b", "node-c")
#: Two rooms of each: the turn-based games think a little while the restarts go on, Neon Flip
#: (a single checkpoint round: some seventy moves a side) plays as it always does.
PLANS = (
    RoomPlan("flip_over_frog", {}, 1, 1, (0.3, 0.6)),
    RoomPlan("neon_hex", {}, 1, 1, (0.6, 1.0)),
    RoomPlan("neon_flip", {"rounds": 1}, 1, 1, (0.05, 0.2)),
)
ROOMS = 6


@pytest.fixture
async def cluster(
    postgres_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> AsyncIterator[Callable[..., Any]]:
    """Starts a node of one cluster (again, on a port given); stops every node still running
    at the end and leaves the worker's database empty."""
    await reset_postgres(postgres_url)
    running: list[LuminServer] = []

    async def start(node: str, port: int = 0) -> LuminServer:
        options: dict[str, Any] = {
            "port": port, "data": tmp_path / node, "store": postgres_url, "redis": redis_url,
            "redis_prefix": redis_prefix, "node_id": node, "lease_ttl": TTL, "bot_delay": 0.0,
            **TEST_LIMITS,
        }  # fmt: skip
        server = LuminServer(Settings(**options))
        try:
            await server.start()
        except StartupError as error:
            pytest.fail(f"{node} could not start again on port {port} at once: {error}")
        running.append(server)
        return server

    yield start
    for server in running:
        if server.server is not None and server.server.is_serving():
            await server.stop()
    await reset_postgres(postgres_url)


async def _open_room(index: int, plan: RoomPlan, servers: list[LuminServer]) -> Member:
    """Room ``index`` of ``plan``: created through node ``index`` (or the lighter node it is
    sent to), one human seat and one bot, started; its player's member reads along."""
    client = await LuminClient.connect(
        url(servers[index % len(servers)]), f"p{index}", give_up=30, keep=100_000
    )
    room = await client.create_room(plan.game, seats=[human(), bot()], options=plan.options, sit=0)
    await client.start(room)
    member = Member(client, room)
    member.start()
    return member


async def _played_since(server: LuminServer, rooms: list[str], since: float) -> bool:
    """Whether every room still playing has logged a step after ``since`` (read through
    ``server``'s store)."""
    for room in rooms:
        row = await server.store.get_room(room)
        if row is not None and row.status == "playing":
            records = await server.store.get_records(room)
            if not records or records[-1].at <= since:
                return False
    return True


async def _all_played_since(server: LuminServer, rooms: list[str], since: float) -> None:
    """Wait (at most 15 s) until every room still playing has logged a step after ``since``."""
    deadline = time.monotonic() + 15
    while not await _played_since(server, rooms, since):
        assert time.monotonic() < deadline, "a room did not play again within 15 s"
        await asyncio.sleep(0.1)


def _longest_stall(records: list[LogRecord]) -> float:
    """The longest time between two consecutive steps of a log (commands and clock ticks)."""
    times = [record.at for record in records]
    return max((b - a for a, b in itertools.pairwise(times)), default=0.0)


async def test_a_rolling_restart_loses_no_acknowledged_command_and_abandons_no_game(
    cluster,
) -> None:
    servers = [await cluster(node) for node in NODES]
    await known_to_each_other(*servers)
    plans = [PLANS[n % len(PLANS)] for n in range(ROOMS)]
    members = [await _open_room(n, plan, servers) for n, plan in enumerate(plans)]
    rooms = [member.room for member in members]
    info = await members[0].client.list_games()
    fields = {game.id: game.commands for game in info}
    node_of = {url(server): server.hub.cluster.node for server in servers}  # type: ignore[union-attr]
    book, pace = Book(), Pace()
    players = [
        asyncio.create_task(
            play(
                member, 0, plan, fields[plan.game], random.Random(n), pace,
                lambda address: node_of.get(address, "?"), book,
            )
        )
        for n, (member, plan) in enumerate(zip(members, plans, strict=True))
    ]  # fmt: skip
    await until(lambda: len(book.acks) >= 2 * ROOMS, 10)

    restarting = time.time()
    for index, node in enumerate(NODES):
        old, port = servers[index], servers[index].port
        stopped = time.time()
        await old.stop()  # SIGTERM's shutdown: last commits, leases released, bye + 1001
        servers[index] = await cluster(node, port=port)
        await known_to_each_other(*servers)
        await _all_played_since(servers[index], rooms, stopped)
    restarted = time.time()
    pace.holding = False

    done, _ = await asyncio.wait(players, timeout=25)
    for task in done:
        task.result()  # a player that failed fails the test with its error
    assert len(done) == len(players), "every game was played to its end"
    store = servers[0].store
    logs = {
        room: [LogRecord(r.seq, r.seat, r.command, r.at) for r in await store.get_records(room)]
        for room in rooms
    }
    lost, differing = check_acks(book.acks, logs)
    assert (lost, differing) == (0, 0), "every acknowledged command is in its log at its seq"
    for room, records in logs.items():
        assert [r.seq for r in records] == list(range(1, len(records) + 1)), room
    statuses = {room: (await store.get_room(room)).status for room in rooms}  # type: ignore[union-attr]
    assert set(statuses.values()) == {"finished"}, statuses
    during = sum(restarting <= ack.at <= restarted for ack in book.acks)
    assert during > 0, "commands kept being acknowledged while the nodes restarted"
    print(
        f"\n{len(book.acks)} acknowledged commands in {ROOMS} rooms, {during} of them during"
        f" the restarts ({restarted - restarting:.1f} s)"
    )
    for plan, room in zip(plans, rooms, strict=True):
        acks = sum(ack.room == room for ack in book.acks)
        stall = _longest_stall(logs[room])
        print(f"  {room} ({plan.game}): {acks} acks, longest stall {stall:.2f} s")
    for member in members:
        await member.stop()
