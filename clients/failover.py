"""The cluster failover benchmark behind ``lumin bench failover``.

It starts ``nodes`` Lumin nodes as subprocesses sharing a PostgreSQL database of their own
(``lumin_bench_failover_<pid>``, created fresh and dropped at the end) and a Redis key prefix
of their own (deleted at the end), and plays ``rooms`` rooms on them: Flip Over Frog, Neon Hex,
a Flash 8 race and Neon Flip in turn, each with one or two human seats played by Python clients
(:mod:`clients.sdk`) sending random legal commands, bots in the other seats, and one spectator
connected to a node that did not own the room when it was watched. Each client connects to a
node chosen round-robin (its ``first_url``, where the client library falls back to when its
node dies) and records every command it was told ``accepted``: room, ``seq``, seat, command,
and the node that said so.

Then, ``kills`` times in a row, it takes down the node owning the most playing rooms (their
live leases in PostgreSQL) while the games go on: SIGKILL, then SIGSTOP held past the lease TTL
and SIGCONT (the paused owner wakes up with stale epochs: its appends must be refused and its
rooms let go), then SIGKILL again, and so on. A SIGKILLed node is started again with the same
node id and port once every room it owned has a new owner. After the last kill every game is
played to its end, and every room's log is read back from PostgreSQL (its ``runs`` table, as
docs/operating.md describes it) and checked against what the clients were told.

Humans think like people while the kills go on (a few seconds a move in the turn-based games,
whose games are only some twenty moves a side), so that every game is still being played at
the last kill; once the kills are over they play quickly and the games end. Every wait is
bounded, and every node process is ended (a paused one continued first) whatever happens.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import asyncpg
import attrs
import msgpack
import redis.asyncio as aioredis

from clients.load import LOAD_LIMITS, free_port, limit_flags
from clients.sdk import ConnectionLost, LuminClient, ServerError, bot, human
from protocol.messages import CommandAccepted, Delta, Error, Moved, Resume, Snapshot

__all__ = [
    "SMOKE",
    "Ack",
    "Book",
    "FailoverRun",
    "Lease",
    "LeaseLog",
    "LogRecord",
    "Member",
    "Pace",
    "RoomPlan",
    "Takedown",
    "bench_failover",
    "check_acks",
    "command_matches",
    "concrete_commands",
    "failover_samples",
    "failures",
    "kill_signals",
    "log_breaks",
    "new_owners",
    "play",
    "spectator_gaps",
    "stale_acks",
]

ROOT = Path(__file__).resolve().parent.parent

#: Seconds a node's bots wait before a turn-based move.
BOT_DELAY = 0.05
#: Seconds a SIGSTOPped node stays paused past its lease TTL before SIGCONT.
PAUSE_PAST_TTL = 2.0
#: Seconds between two reads of the leases table.
POLL = 0.2
#: Seconds a client waits before sending a command again that the failover kept from its room.
RETRY = 0.2
#: Seconds one request may wait for its answer (a node paused past its lease answers later).
REQUEST_TIMEOUT = 30.0
#: Seconds the players and spectators get to hear that their game ended once the store says so.
GRACE = 10.0
#: A room plays again within this many seconds of its lease lapsing (the median target).
FAILOVER_MARGIN = 5.0
#: Messages a client keeps unread; its member reads them as they come, so none is dropped.
KEEP = 100_000


@attrs.frozen
class FailoverRun:
    """One run: ``nodes`` nodes, ``rooms`` rooms, ``kills`` take-downs, the nodes'
    ``lease_ttl``, the ``seed`` of the players' choices, and at most ``budget`` seconds for the
    games (setup, kills and play); a Flash 8 race ends after ``race_limit`` seconds at most.
    ``postgres`` names the PostgreSQL server (no database) and ``redis`` the Redis."""

    nodes: int = 3
    rooms: int = 30
    kills: int = 3
    seed: int = 0
    lease_ttl: float = 5.0
    budget: float = 600.0
    race_limit: float = 240.0
    postgres: str = "postgresql://postgres@127.0.0.1:5432"
    redis: str = "redis://127.0.0.1:6379/0"


#: ``--smoke``: a short run for CI (well under 90 s): 4 rooms on 2 nodes, one SIGKILL.
SMOKE: dict[str, Any] = {
    "nodes": 2,
    "rooms": 4,
    "kills": 1,
    "lease_ttl": 1.0,
    "budget": 75.0,
    "race_limit": 30.0,
}

#: How a human thinks once the kills are over (seconds before each command, low..high).
QUICK = (0.05, 0.2)


@attrs.frozen
class RoomPlan:
    """How a room is played: its ``game`` and ``options``, ``humans`` seats played by clients
    and ``bots`` seats, and how long a human thinks before each command while the kills go
    on (seconds, low..high)."""

    game: str
    options: Mapping[str, Any]
    humans: int
    bots: int
    think: tuple[float, float]


#: The rooms, in turn: the turn-based games think slowly while the kills go on (their games
#: are short), a race is as long as its bot takes to finish, and Neon Flip has hundreds of moves.
PLANS = (
    RoomPlan("flip_over_frog", {}, 2, 1, (2.0, 4.0)),
    RoomPlan("neon_hex", {}, 2, 1, (3.0, 5.0)),
    RoomPlan("flash8", {"mode": "race", "countdown": 0.5}, 1, 1, QUICK),
    RoomPlan("neon_flip", {}, 1, 1, (0.3, 0.7)),
)

# -- the nodes -----------------------------------------------------------------------------------


class Node:
    """One ``lumin serve`` process of the cluster, reached at ``ws://127.0.0.1:PORT/ws``; it
    is started again with the same node id, port and flags after a SIGKILL. Its standard error
    (JSON log lines) is appended to ``<logs>/<node id>.log``."""

    def __init__(self, node_id: str, port: int, flags: list[str], logs: Path) -> None:
        self.node_id = node_id
        self.port = port
        self.flags = flags
        self.log_path = logs / f"{node_id}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.paused = False

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        """Start the process (again)."""
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "lumin.cli", "serve", *self.flags],
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )

    def send(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the process, remembering whether it is paused."""
        assert self.process is not None
        self.process.send_signal(sig)
        if sig in (signal.SIGSTOP, signal.SIGCONT):
            self.paused = sig == signal.SIGSTOP

    def kill(self) -> None:
        """SIGKILL the process and wait until it is gone."""
        assert self.process is not None
        self.send(signal.SIGKILL)
        self.process.wait(10)

    def end(self) -> None:
        """Stop the process whatever its state: a paused one is continued first, then it gets
        SIGTERM, and SIGKILL if it is still there 10 s later."""
        if self.process is None or self.process.poll() is not None:
            return
        if self.paused:
            self.send(signal.SIGCONT)
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    def health(self) -> dict[str, Any] | None:
        """``/healthz`` as JSON when ``/readyz`` says the node is ready, else ``None``."""
        base = f"http://127.0.0.1:{self.port}"
        try:
            with urllib.request.urlopen(f"{base}/readyz", timeout=2) as answer:
                if answer.status != 200:
                    return None
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as answer:
                health: dict[str, Any] = json.loads(answer.read())
                return health
        except (OSError, ValueError):
            return None


def node_flags(node_id: str, port: int, store: str, run: FailoverRun, prefix: str) -> list[str]:
    """The ``lumin serve`` flags of one node of the run's cluster."""
    return [
        *("--host", "127.0.0.1", "--port", str(port), "--store", store),
        *("--redis", run.redis, "--redis-prefix", prefix, "--node-id", node_id),
        *("--public-url", f"ws://127.0.0.1:{port}/ws", "--lease-ttl", f"{run.lease_ttl:g}"),
        *("--bot-delay", f"{BOT_DELAY:g}", *limit_flags(LOAD_LIMITS)),
    ]


async def until(check: Callable[[], Awaitable[bool]], seconds: float, every: float = 0.25) -> bool:
    """Poll ``check`` until it is true (``True``) or ``seconds`` have passed (``False``)."""
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(every)
    return True


async def whole(nodes: Sequence[Node], seconds: float) -> bool:
    """Wait until every node is ready and each one's ``/healthz`` lists every node."""
    names = {node.node_id for node in nodes}

    async def known() -> bool:
        healths = await asyncio.gather(*(asyncio.to_thread(node.health) for node in nodes))
        return all(h is not None and names <= set(h.get("nodes", ())) for h in healths)

    return await until(known, seconds)


# -- the database --------------------------------------------------------------------------------


@attrs.frozen
class Lease:
    """A room's lease row: its ``node``, ``epoch``, and whether it is ``live`` now."""

    node: str
    epoch: int
    live: bool


@attrs.frozen
class LogRecord:
    """One record of a room's log as PostgreSQL holds it: a command (``seat`` and ``command``)
    or a clock tick (both ``None``), decided at ``at`` (the owner's clock)."""

    seq: int
    seat: int | None
    command: dict[str, Any] | None
    at: float


class Database:
    """The run's own PostgreSQL database ``name`` on the server ``server``: created fresh,
    read by SQL (the tables of docs/operating.md, "The PostgreSQL store"), dropped at the end."""

    def __init__(self, server: str, name: str) -> None:
        self.server = server.rstrip("/")
        self.name = name
        self.pool: asyncpg.Pool | None = None

    @property
    def url(self) -> str:
        return f"{self.server}/{self.name}"

    async def _admin(self, sql: str) -> None:
        connection = await asyncpg.connect(f"{self.server}/postgres", timeout=10)
        try:
            await connection.execute(sql)
        finally:
            await connection.close()

    async def create(self) -> None:
        """Create the database, empty (one left by an earlier run of this process id goes)."""
        await self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        await self._admin(f'CREATE DATABASE "{self.name}"')

    async def connect(self) -> None:
        """Open the benchmark's own connections (once a node has created the tables)."""
        self.pool = await asyncpg.create_pool(self.url, min_size=1, max_size=3, timeout=10)

    async def drop(self) -> None:
        """Close the connections and drop the database (nodes still connected are cut off)."""
        if self.pool is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.pool.close(), 10)
            self.pool = None
        await self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    async def _fetch(self, sql: str, *values: Any) -> list[asyncpg.Record]:
        assert self.pool is not None
        rows: list[asyncpg.Record] = await self.pool.fetch(sql, *values)
        return rows

    async def leases(self) -> dict[str, Lease]:
        """Every room's lease, live or lapsed (by the database's clock)."""
        rows = await self._fetch("SELECT room, node, epoch, expires > now() AS live FROM leases")
        return {row["room"]: Lease(row["node"], int(row["epoch"]), row["live"]) for row in rows}

    async def statuses(self) -> dict[str, str]:
        """Every room's status (``waiting``, ``playing``, ``finished``...)."""
        rows = await self._fetch("SELECT id, status FROM rooms")
        return {row["id"]: row["status"] for row in rows}

    async def last_seqs(self) -> dict[str, int]:
        """The last logged ``seq`` of every room with a log."""
        rows = await self._fetch("SELECT room, max(last) AS last FROM runs GROUP BY room")
        return {row["room"]: int(row["last"]) for row in rows}

    async def log(self, room: str, after: int = 0) -> list[LogRecord]:
        """A room's log records past ``after``, in order: every run's blob is a msgpack list
        of ``[seq, position, seat, command, at, events]`` records."""
        rows = await self._fetch(
            "SELECT records FROM runs WHERE room = $1 AND last > $2 ORDER BY seq", room, after
        )
        return [
            LogRecord(seq, seat, command, at)
            for row in rows
            for seq, _position, seat, command, at, _events in msgpack.unpackb(
                row["records"], raw=False
            )
            if seq > after
        ]


class LeaseLog:
    """Every room's lease holder as the benchmark saw it: the leases table read every
    :data:`POLL` seconds, each change of holder or epoch kept with the time of the read that
    first saw it (the read began then, so what it saw was true at that time or later)."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.reads: list[float] = []
        self.changes: dict[str, list[tuple[float, str, int]]] = {}

    async def run(self) -> None:
        """Read the leases table until cancelled."""
        while True:
            began = time.time()
            with contextlib.suppress(OSError, asyncpg.PostgresError):
                for room, lease in (await self.database.leases()).items():
                    seen = self.changes.setdefault(room, [])
                    if not seen or seen[-1][1:] != (lease.node, lease.epoch):
                        seen.append((began, lease.node, lease.epoch))
                self.reads.append(began)
            await asyncio.sleep(POLL)

    def holder_after(self, room: str, at: float) -> str | None:
        """The node the first read begun at or after ``at`` saw holding ``room``'s lease."""
        index = bisect.bisect_left(self.reads, at)
        if index == len(self.reads):
            return None
        read = self.reads[index]
        holders = [node for began, node, _ in self.changes.get(room, []) if began <= read]
        return holders[-1] if holders else None


# -- clients -------------------------------------------------------------------------------------


@attrs.frozen
class Ack:
    """A command a client was told ``accepted``: its room, ``seq`` and seat, the command, the
    node whose connection answered, and when the answer came (``time.time()``)."""

    room: str
    seq: int
    seat: int
    command: dict[str, Any]
    node: str
    at: float


@attrs.frozen
class Sent:
    """A command a player sent to ``node`` at ``at`` (``time.time()``) and what became of it:
    ``accepted``, the code it was ``rejected`` with, or the client's code for no answer
    (``disconnected``, ``timeout``...)."""

    room: str
    node: str
    at: float
    outcome: str


@attrs.define
class Book:
    """What the players sent: every command with its outcome, and the acknowledged ones."""

    acks: list[Ack] = attrs.field(factory=list)
    sent: list[Sent] = attrs.field(factory=list)


def concrete_commands(entry: Mapping[str, Any], fields: Sequence[str]) -> list[dict[str, Any]]:
    """Every command a legal entry allows (docs/protocol.md, "Legal commands"): its ``type``
    and those of the command's ``fields`` (``GameInfo.commands``) the entry fixes, and with
    ``choose`` one command per value of the chosen field; the entry's other keys are
    information, not part of the command."""
    fixed = {"type": entry["type"], **{name: entry[name] for name in fields if name in entry}}
    choose = entry.get("choose")
    if not choose:
        return [fixed]
    ((field, values),) = choose.items()
    return [{**fixed, field: value} for value in values]


class Member:
    """A client in one room (a player's seat, or the room's spectator), kept there across
    failovers.

    It reads every message the client receives: the ``(base, seq)`` of each delta of the room
    and the ``seq`` of each snapshot, in order (:attr:`timeline`), and the answers to the
    ``resume`` the client library sends by itself after a reconnect. The library follows
    ``moved`` only for the requests it is asked to make, and leaves a resume answered
    ``moved`` or ``try_again`` at that; the member then resumes the room itself through
    :meth:`LuminClient.request`, which follows ``moved`` (:attr:`resumed` counts why: the
    answer the library's resume got, or ``not_in_room`` for a command refused so)."""

    def __init__(self, client: LuminClient, room: str) -> None:
        self.client = client
        self.room = room
        #: ("snapshot", seq, seq) and ("delta", base, seq) of the room, as received.
        self.timeline: list[tuple[str, int, int]] = []
        self.resumed: Counter[str] = Counter()
        #: The room is no more where the client asked (``no_such_room``): its game is over.
        self.gone = False
        self._asking = False
        self._reader: asyncio.Task[None] | None = None
        self._resuming: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Take in what the client received so far, then read as messages come."""
        self._drain()
        self._reader = asyncio.create_task(self._read())

    async def stop(self) -> None:
        """Stop reading and close the client."""
        for task in (self._reader, self._resuming):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.close(), 5)

    def over(self) -> bool:
        """Whether the client knows its game ended (``game_over``, a finished summary, or the
        room gone)."""
        info = self.client.room_info.get(self.room)
        return (
            self.gone
            or self.room in self.client.game_over
            or (info is not None and info.state == "finished")
        )

    @property
    def snapshots(self) -> int:
        return sum(kind == "snapshot" for kind, _, _ in self.timeline)

    async def _read(self) -> None:
        while True:
            self._note(await self.client.messages.get(), answers=not self._asking)

    def _drain(self) -> None:
        """Take in every message waiting, as answers to this member's own requests."""
        while not self.client.messages.empty():
            self._note(self.client.messages.get_nowait(), answers=False)

    def _note(self, message: Any, answers: bool) -> None:
        """Keep a snapshot's or delta's seqs; with ``answers``, a ``moved`` or ``try_again``
        answering the library's own resume makes the member resume the room itself."""
        if isinstance(message, Snapshot) and message.room == self.room:
            self.timeline.append(("snapshot", message.seq, message.seq))
        elif isinstance(message, Delta) and message.room == self.room:
            self.timeline.append(("delta", message.base, message.seq))
        elif answers and (why := _left_out(message)) is not None:
            self.again(why)

    def again(self, why: str) -> None:
        """Resume the room (in the background) unless a resume of the member's is under way;
        ``why`` is counted in :attr:`resumed`."""
        if self._resuming is None or self._resuming.done():
            self.resumed[why] += 1
            self._resuming = asyncio.create_task(self._resume())

    async def _resume(self) -> None:
        """Resume the room until a node takes the client in, the room is gone, or the client
        is reconnecting (its own resume follows, and its answer is read again)."""
        while not self.over():
            copy = self.client.conn.views.get(self.room)
            request = Resume(
                room=self.room,
                seq=0 if copy is None else copy.seq,
                epoch="" if copy is None else copy.epoch,
            )
            self._asking = True
            try:
                await self.client.request(request)
                return
            except ConnectionLost:
                return
            except ServerError as error:
                if error.code == "no_such_room":
                    self.gone = True
                    return
            finally:
                self._drain()
                self._asking = False
            await asyncio.sleep(RETRY)


def _left_out(message: Any) -> str | None:
    """How ``message`` answers a resume the client library sent by itself without taking the
    client in (``moved``, ``try_again``, ``no_such_room``), or ``None`` when it does not. (The
    benchmark reads the answers of the requests it sends, and an ``act`` is never answered
    so.)"""
    if isinstance(message, Moved) and message.ref is not None:
        return "moved"
    if (
        isinstance(message, Error)
        and message.ref is not None
        and message.code in ("try_again", "no_such_room")
    ):
        return message.code
    return None


class Pace:
    """How long humans think before a command: their room plan's time while the kills go on
    (:attr:`holding`), :data:`QUICK` after."""

    def __init__(self) -> None:
        self.holding = True

    def think(self, plan: RoomPlan, rng: random.Random) -> float:
        low, high = plan.think if self.holding else QUICK
        return rng.uniform(low, high)


async def play(
    member: Member,
    seat: int,
    plan: RoomPlan,
    fields: Mapping[str, Sequence[str]],
    rng: random.Random,
    pace: Pace,
    node_of: Callable[[str], str],
    book: Book,
) -> None:
    """Play ``seat`` with random legal commands until the game is over, recording every
    answer in ``book``. A human thinks before each move; a command the failover
    kept from its room (the connection dropped, the room moved) is sent again as soon as the
    client is back in the room, without thinking again."""
    client, room = member.client, member.room
    decided = False
    while not member.over():
        legal = client.legal(room)
        if not legal:
            with contextlib.suppress(TimeoutError):
                await client.changed(room, timeout=1.0)
            continue
        if not decided:
            await asyncio.sleep(pace.think(plan, rng))
            decided = True
            continue
        options = [c for entry in legal for c in concrete_commands(entry, fields[entry["type"]])]
        command = rng.choice(options)
        node, at = node_of(client.url), time.time()
        try:
            answer = await client.act(room, command)
        except ServerError as error:  # no answer: the connection dropped, or none in time
            book.sent.append(Sent(room, node, at, error.code))
            if error.code in ("gave_up", "closed"):
                raise
            await asyncio.sleep(RETRY)
            continue
        if isinstance(answer, CommandAccepted):
            book.sent.append(Sent(room, node, at, "accepted"))
            # The node that accepted it: the one it was sent to, or the one ``moved`` named.
            answered = node_of(client.answered_on)
            book.acks.append(Ack(room, answer.seq, seat, command, answered, time.time()))
            decided = False
            continue
        book.sent.append(Sent(room, node, at, answer.code))
        if answer.code == "not_in_room":  # the library's resume did not take it back in
            member.again(answer.code)
        await asyncio.sleep(RETRY)


# -- rooms ---------------------------------------------------------------------------------------


@attrs.define
class RoomRun:
    """A room of the run: its plan, its players (member and seat), its spectator, whether
    the spectator's ``watch_room`` was sent on to the owner (``moved``), and the answers
    after which its setup requests were sent again."""

    index: int
    plan: RoomPlan
    room: str
    players: list[tuple[Member, int]]
    spectator: Member
    spectator_moved: bool
    retried: list[str]


#: Answers after which a setup request is sent again: a room changing hands, and a request
#: sent on by more nodes in a row than the client library follows (their views of each
#: other's load lag by a heartbeat while rooms are being created everywhere at once).
SETUP_RETRIED = ("try_again", "moved_too_often")


async def _retrying(call: Callable[[], Awaitable[Any]], seconds: float, retried: list[str]) -> Any:
    """``call()``, again after a moment while it is answered with one of
    :data:`SETUP_RETRIED` (each such code noted in ``retried``), for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return await call()
        except ServerError as error:
            if error.code not in SETUP_RETRIED or time.monotonic() > deadline:
                raise
            retried.append(error.code)
        await asyncio.sleep(RETRY)


async def open_room(
    index: int,
    plan: RoomPlan,
    nodes: Sequence[Node],
    database: Database,
    run: FailoverRun,
) -> RoomRun:
    """Create room ``index`` from its host's node (round-robin; a lighter node may create it,
    ``moved``), seat the other humans from the following nodes, start it, and have a
    spectator watch it from a node that does not own it."""

    async def client(n: int, name: str) -> LuminClient:
        url = nodes[n % len(nodes)].url
        return await LuminClient.connect(
            url, name, timeout=REQUEST_TIMEOUT, give_up=run.budget, keep=KEEP
        )

    options = dict(plan.options)
    if plan.game == "flash8":
        options["time_limit"] = run.race_limit
    retried: list[str] = []
    host = await client(index, f"r{index}s0")
    seats = [human() for _ in range(plan.humans)] + [bot() for _ in range(plan.bots)]
    room = await _retrying(
        lambda: host.create_room(plan.game, seats=seats, options=options, sit=0), 10, retried
    )
    players = [(Member(host, room), 0)]
    for seat in range(1, plan.humans):
        guest = await client(index + seat, f"r{index}s{seat}")
        await _retrying(lambda guest=guest, seat=seat: guest.join(room, seat), 10, retried)
        await guest.ready(room)
        players.append((Member(guest, room), seat))
    await host.start(room)
    lease = (await database.leases()).get(room)
    owner = lease.node if lease is not None else None
    elsewhere = [n for n, node in enumerate(nodes) if node.node_id != owner]
    watcher = await client(elsewhere[index % len(elsewhere)], f"r{index}eye")
    await _retrying(lambda: watcher.watch(room), 10, retried)
    spectator = Member(watcher, room)
    for member in [spectator, *(member for member, _ in players)]:
        member.start()
    moved = watcher.url != watcher.first_url
    return RoomRun(index, plan, room, players, spectator, moved, retried)


# -- kills ---------------------------------------------------------------------------------------


@attrs.define
class Takedown:
    """One kill: its ``signal`` (SIGKILL, or SIGSTOP then SIGCONT), the ``node``, when
    (``at``, ``time.time()``), the rooms it owned then (room -> epoch) and their last ``seq``;
    once over, when it was continued or restarted, the rooms that changed owner, and what
    did not happen within its bounds."""

    index: int
    signal: str
    node: str
    at: float
    rooms: dict[str, int]
    seqs: dict[str, int]
    continued: float | None = None
    #: When the failover was over: every moved room played again, a killed node was back.
    over: float | None = None
    restart_seconds: float | None = None
    settle_seconds: float | None = None
    moved: set[str] = attrs.field(factory=set)
    #: Where the moved rooms went: how many each node took (failover by load spreads them).
    moved_to: dict[str, int] = attrs.field(factory=dict)
    #: After a SIGCONT: moved rooms the woken node let go, and of them those it let go on a
    #: refused (fenced) write rather than on a lease it failed to renew.
    let_go: set[str] = attrs.field(factory=set)
    fenced: set[str] = attrs.field(factory=set)
    problems: list[str] = attrs.field(factory=list)


def kill_signals(kills: int) -> list[str]:
    """SIGKILL, SIGSTOP, SIGKILL, ...: what each of ``kills`` take-downs does."""
    return ["SIGKILL" if n % 2 == 0 else "SIGSTOP" for n in range(kills)]


async def take_down(index: int, how: str, cluster: Cluster, deadline: float) -> Takedown:
    """Take down the busiest node (:func:`_victim`) with ``how`` and wait (never past the
    run's ``deadline``, ``time.monotonic()``) until each of its rooms has a live owner again
    (a SIGKILLed node is then started again) and has logged a command since, or has ended."""
    down = await _victim(index, how, cluster)
    node = cluster.nodes[down.node]
    woke = None
    if how == "SIGKILL":
        await _kill(down, node, cluster, deadline)
    else:
        woke = await _pause(down, node, cluster, deadline)
    leases = await cluster.database.leases()
    down.moved = {room for room in down.rooms if leases[room].node != down.node}
    down.moved_to = new_owners(down.moved, leases)
    again = _within(deadline, 2 * cluster.run.lease_ttl + 30)
    if not await until(lambda: _played_again(cluster.database, down), again):
        down.problems.append(f"rooms of {down.node} did not play again after the kill")
    down.over = time.time()
    if woke is not None:
        await _woken(down, node, woke, _within(deadline, 10))
    return down


async def _kill(down: Takedown, node: Node, cluster: Cluster, deadline: float) -> None:
    """SIGKILL ``node``, wait until other nodes own its rooms, then start it again and wait
    until it is back in every node's registry."""
    node.kill()
    await _settle(down, cluster, deadline, away=down.node)
    restarted = time.monotonic()
    node.start()
    if not await whole(list(cluster.nodes.values()), _within(deadline, 30)):
        down.problems.append(f"{down.node} was not back in the cluster after its restart")
    down.restart_seconds = time.monotonic() - restarted


async def _pause(down: Takedown, node: Node, cluster: Cluster, deadline: float) -> int:
    """SIGSTOP ``node`` for the lease TTL and :data:`PAUSE_PAST_TTL` more, SIGCONT it, and
    wait until its rooms have live owners; returns where its log stood when it woke."""
    node.send(signal.SIGSTOP)
    await asyncio.sleep(cluster.run.lease_ttl + PAUSE_PAST_TTL)
    woke = node.log_path.stat().st_size
    node.send(signal.SIGCONT)
    down.continued = time.time()
    await _settle(down, cluster, deadline, away=None)
    return woke


async def _settle(down: Takedown, cluster: Cluster, deadline: float, away: str | None) -> None:
    """Wait until every room of ``down`` has a live lease (not ``away``'s) or has ended."""
    bound = _within(deadline, 4 * cluster.run.lease_ttl + 20)
    if not await until(lambda: _owned_elsewhere(cluster.database, down.rooms, away), bound):
        down.problems.append(f"{down.node}'s rooms had no live owner {bound:.0f} s after the kill")
    down.settle_seconds = time.time() - down.at


def new_owners(moved: Iterable[str], leases: Mapping[str, Lease]) -> dict[str, int]:
    """How many of the ``moved`` rooms each node holds the lease of, by node id."""
    return dict(sorted(Counter(leases[room].node for room in moved).items()))


def _within(deadline: float, seconds: float) -> float:
    """``seconds``, or what is left until ``deadline`` (``time.monotonic()``) if less."""
    return max(0.0, min(seconds, deadline - time.monotonic()))


async def _victim(index: int, how: str, cluster: Cluster) -> Takedown:
    """Kill ``index`` of the node with the most live leases of the run's playing rooms (ties:
    the first by id), with those rooms' epochs and last seqs; a node with fewer than
    rooms/nodes of them is a problem of the kill."""
    database = cluster.database
    ids = {room.room for room in cluster.rooms}
    leases, statuses = await database.leases(), await database.statuses()
    held = {
        room: lease
        for room, lease in leases.items()
        if room in ids and lease.live and statuses.get(room) == "playing"
    }
    counts = Counter(lease.node for lease in held.values())
    victim = max(sorted(cluster.nodes), key=lambda node: counts[node])
    seqs = await database.last_seqs()
    owned = {room: lease.epoch for room, lease in held.items() if lease.node == victim}
    down = Takedown(index, how, victim, time.time(), owned, {r: seqs.get(r, 0) for r in owned})
    if len(owned) * len(cluster.nodes) < cluster.run.rooms:
        down.problems.append(
            f"{victim} owned {len(owned)} playing rooms, fewer than rooms/nodes"
            f" ({cluster.run.rooms}/{len(cluster.nodes)})"
        )
    return down


async def _woken(down: Takedown, node: Node, offset: int, seconds: float) -> None:
    """What ``node``, woken by SIGCONT when its log was ``offset`` bytes long, did with its
    moved rooms, from its log (read again for at most ``seconds``): each must be let go
    (``room_let_go``); one let go without a ``lease_lost`` went on a refused write."""

    async def all_let_go() -> bool:
        events = logged_rooms(node.log_path, offset)
        down.let_go = down.moved & events.get("room_let_go", set())
        down.fenced = down.let_go - events.get("lease_lost", set())
        return down.let_go == down.moved

    if not await until(all_let_go, seconds):
        kept = sorted(down.moved - down.let_go)
        down.problems.append(f"{down.node} woke up and did not let go of {kept}")


def logged_rooms(path: Path, offset: int) -> dict[str, set[str]]:
    """The rooms each event names in the JSON log lines of ``path`` past byte ``offset``."""
    events: dict[str, set[str]] = {}
    with path.open("rb") as log:
        log.seek(offset)
        for line in log:
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if isinstance(entry, dict) and isinstance(entry.get("room"), str):
                    events.setdefault(str(entry.get("event")), set()).add(entry["room"])
    return events


async def _owned_elsewhere(database: Database, owned: Mapping[str, int], away: str | None) -> bool:
    """Whether every room of ``owned`` has a live lease (held by another node than ``away``),
    or is no longer playing."""
    leases, statuses = await database.leases(), await database.statuses()
    return all(
        statuses.get(room) != "playing"
        or (room in leases and leases[room].live and leases[room].node != away)
        for room in owned
    )


async def _played_again(database: Database, down: Takedown) -> bool:
    """Whether every room of ``down`` that changed owner has logged a command since the kill,
    or is no longer playing."""
    statuses = await database.statuses()
    for room in down.moved:
        if statuses.get(room) != "playing":
            continue
        records = await database.log(room, down.seqs[room])
        if not any(r.command is not None and r.at > down.at for r in records):
            return False
    return True


# -- what the logs say ---------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """``value`` as msgpack gives it back (tuples become lists)."""
    return msgpack.unpackb(msgpack.packb(value), raw=False)


def command_matches(sent: Mapping[str, Any], logged: Mapping[str, Any] | None) -> bool:
    """Whether the logged command is the one sent: every field sent has the same value (the
    log also holds the fields the sender left at their defaults)."""
    if logged is None:
        return False
    plain = _plain(dict(sent))
    return all(key in logged and logged[key] == value for key, value in plain.items())


def check_acks(acks: Iterable[Ack], logs: Mapping[str, Sequence[LogRecord]]) -> tuple[int, int]:
    """``(lost, differing)``: acknowledged commands whose seq is absent from the room's log or
    logs another command (seat or command), and those of them whose seq logs another command."""
    by_seq = {room: {r.seq: r for r in records} for room, records in logs.items()}
    lost = differing = 0
    for ack in acks:
        record = by_seq.get(ack.room, {}).get(ack.seq)
        if record is None:
            lost += 1
        elif record.seat != ack.seat or not command_matches(ack.command, record.command):
            lost += 1
            differing += 1
    return lost, differing


def log_breaks(records: Sequence[LogRecord]) -> int:
    """Seqs of a log that break "one record per seq, from 1, consecutive": repeated seqs and
    missing ones."""
    seqs = [record.seq for record in records]
    repeated = len(seqs) - len(set(seqs))
    missing = len(set(range(1, max(seqs, default=0) + 1)) - set(seqs))
    return repeated + missing


def spectator_gaps(timeline: Sequence[tuple[str, int, int]], final: int) -> int:
    """The seq ranges a viewer never received: a delta whose ``base`` is past the last seq it
    had opens a range, closed only by a later snapshot at or past the range's end (a snapshot
    is the whole view); so is everything past its last seq up to the log's ``final``."""
    open_ranges: list[tuple[int, int]] = []
    reached = 0
    for kind, base, seq in timeline:
        if kind == "snapshot":
            open_ranges = [(low, high) for low, high in open_ranges if high > seq]
        elif base > reached:
            open_ranges.append((reached, base))
        reached = max(reached, seq)
    if final > reached:
        open_ranges.append((reached, final))
    return len(open_ranges)


def stale_acks(
    acks: Iterable[Ack], logs: Mapping[str, Sequence[LogRecord]], leases: LeaseLog
) -> int:
    """Acknowledged commands decided while another node held the room's lease: the node
    that acknowledged one is not the holder the first leases read after the decision saw (a
    holder's lease is there from before it rebuilds the room until it loses it, so a command
    it decides is always seen with it). Each is an append accepted from a stale epoch."""
    by_seq = {room: {r.seq: r for r in records} for room, records in logs.items()}
    count = 0
    for ack in acks:
        record = by_seq.get(ack.room, {}).get(ack.seq)
        if record is None or record.command is None:
            continue
        holder = leases.holder_after(ack.room, record.at)
        count += holder is not None and holder != ack.node
    return count


def failover_samples(
    downs: Iterable[Takedown], logs: Mapping[str, Sequence[LogRecord]]
) -> list[tuple[int, float]]:
    """``(kill index, seconds)`` for every room that changed owner at a kill: from the kill to
    the room's next logged command (rooms that logged none since are left out)."""
    samples = []
    for down in downs:
        for room in sorted(down.moved):
            after = [r.at for r in logs.get(room, ()) if r.command is not None and r.at > down.at]
            if after:
                samples.append((down.index, min(after) - down.at))
    return samples


# -- the run -------------------------------------------------------------------------------------


@attrs.define
class Cluster:
    """What a run holds while it goes on."""

    run: FailoverRun
    nodes: dict[str, Node]
    database: Database
    rooms: list[RoomRun] = attrs.field(factory=list)
    book: Book = attrs.field(factory=Book)
    downs: list[Takedown] = attrs.field(factory=list)
    player_errors: list[str] = attrs.field(factory=list)

    def node_of(self, url: str) -> str:
        """The id of the node at ``url`` (``?`` for a URL of none)."""
        return next((node.node_id for node in self.nodes.values() if node.url == url), "?")

    def members(self) -> list[Member]:
        return [m for room in self.rooms for m in [room.spectator, *(p for p, _ in room.players)]]


async def _open_rooms(cluster: Cluster, seconds: float) -> None:
    """Open every room of the run, a few at a time."""
    nodes = list(cluster.nodes.values())
    gate = asyncio.Semaphore(4)

    async def one(index: int) -> RoomRun:
        async with gate:
            plan = PLANS[index % len(PLANS)]
            return await open_room(index, plan, nodes, cluster.database, cluster.run)

    async with asyncio.timeout(seconds):
        cluster.rooms = list(await asyncio.gather(*(one(n) for n in range(cluster.run.rooms))))


def _players(cluster: Cluster, pace: Pace, fields: Mapping[str, Any]) -> list[asyncio.Task[None]]:
    """A task playing each human seat, each with its own seeded random choices."""
    tasks = []
    for room in cluster.rooms:
        for member, seat in room.players:
            rng = random.Random(f"{cluster.run.seed}:{room.index}:{seat}")
            work = play(
                member, seat, room.plan, fields[room.plan.game], rng, pace, cluster.node_of,
                cluster.book,
            )  # fmt: skip
            tasks.append(asyncio.create_task(work))
    return tasks


async def _finish(cluster: Cluster, seconds: float) -> None:
    """Wait (at most ``seconds``) until every room has ended in the store, then a little
    for the clients to hear it."""
    ids = {room.room for room in cluster.rooms}

    async def ended() -> bool:
        statuses = await cluster.database.statuses()
        return all(statuses.get(room) not in ("waiting", "playing") for room in ids)

    await until(ended, max(0.0, seconds), every=0.5)

    async def heard() -> bool:
        return all(member.over() for member in cluster.members())

    await until(heard, GRACE)


async def _play_out(cluster: Cluster, started: float) -> None:
    """Open the rooms, play them, take nodes down one after another, then play on to the
    end, all within the run's budget."""
    run = cluster.run
    deadline = started + run.budget
    await _open_rooms(cluster, deadline - time.monotonic())
    probe = cluster.rooms[0].spectator.client
    fields = {info.id: info.commands for info in await probe.list_games()}
    pace = Pace()
    tasks = _players(cluster, pace, fields)
    try:
        for index, how in enumerate(kill_signals(run.kills)):
            if time.monotonic() > deadline:
                break
            cluster.downs.append(await take_down(index, how, cluster, deadline))
        pace.holding = False
        await _finish(cluster, deadline - time.monotonic())
    finally:
        for task in tasks:
            task.cancel()
        for result in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(result, Exception):
                cluster.player_errors.append(repr(result))


async def _report(cluster: Cluster, leases: LeaseLog, seconds: float) -> dict[str, Any]:
    """The run's numbers, read from every room's final log (see :func:`bench_failover`)."""
    run, database = cluster.run, cluster.database
    logs = {room.room: await database.log(room.room) for room in cluster.rooms}
    statuses = await database.statuses()
    lost, differing = check_acks(cluster.book.acks, logs)
    breaks = sum(log_breaks(records) for records in logs.values())
    stale = stale_acks(cluster.book.acks, logs, leases)
    samples = failover_samples(cluster.downs, logs)
    windows = [(down.at, down.over or down.at) for down in cluster.downs]
    during = sum(any(low <= ack.at <= high for low, high in windows) for ack in cluster.book.acks)
    gaps = sum(
        spectator_gaps(room.spectator.timeline, max((r.seq for r in logs[room.room]), default=0))
        for room in cluster.rooms
    )
    seconds_of = [s for _, s in samples]
    return {
        "nodes": run.nodes,
        "rooms": run.rooms,
        "kills": len(cluster.downs),
        "lease_ttl": run.lease_ttl,
        "seed": run.seed,
        "seconds": round(seconds, 1),
        "acked": len(cluster.book.acks),
        "acked_during_failover": during,
        "acked_lost": lost,
        "rooms_moved": sum(len(down.moved) for down in cluster.downs),
        "rooms_finished": sum(statuses.get(room) == "finished" for room in logs),
        "forks": differing + breaks + stale,
        "stale_epoch_acks": stale,
        "log_breaks": breaks,
        "spectators": len(cluster.rooms),
        "spectators_sent_to_owner": sum(room.spectator_moved for room in cluster.rooms),
        "spectator_gaps": gaps,
        "snapshots": sum(room.spectator.snapshots for room in cluster.rooms),
        "resumes_redone": dict(sum((m.resumed for m in cluster.members()), Counter())),
        "setup_retries": dict(Counter(code for room in cluster.rooms for code in room.retried)),
        "failover_seconds": {
            "p50": round(statistics.median(seconds_of), 2) if seconds_of else None,
            "max": round(max(seconds_of), 2) if seconds_of else None,
            "samples": len(seconds_of),
        },
        "takedowns": [
            _takedown_summary(down, samples, cluster.book.sent) for down in cluster.downs
        ],
        "games": dict(Counter(room.plan.game for room in cluster.rooms)),
        "player_errors": cluster.player_errors[:5],
    }


def _takedown_summary(
    down: Takedown, samples: Sequence[tuple[int, float]], sent: Sequence[Sent]
) -> dict[str, Any]:
    """One kill in the report; for a SIGSTOP, ``sent_while_paused`` counts by outcome the
    commands players sent to the paused node."""
    mine = [s for k, s in samples if k == down.index]
    paused = Counter(
        command.outcome
        for command in sent
        if down.continued is not None
        and command.node == down.node
        and down.at <= command.at < down.continued
    )
    return {
        "signal": down.signal,
        "node": down.node,
        "rooms": len(down.rooms),
        "moved": len(down.moved),
        "moved_to": down.moved_to,
        "let_go": len(down.let_go) if down.signal == "SIGSTOP" else None,
        "fenced": len(down.fenced) if down.signal == "SIGSTOP" else None,
        "sent_while_paused": dict(paused) if down.signal == "SIGSTOP" else None,
        "settle_seconds": None if down.settle_seconds is None else round(down.settle_seconds, 2),
        "restart_seconds": None if down.restart_seconds is None else round(down.restart_seconds, 2),
        "failover_max_seconds": round(max(mine), 2) if mine else None,
        "problems": down.problems,
    }


def failures(report: Mapping[str, Any], run: FailoverRun) -> list[str]:
    """The invariants the report breaks, each as a sentence (none: the run passed)."""
    found = []
    for name in ("acked_lost", "forks", "spectator_gaps"):
        if report[name]:
            found.append(f"{name} is {report[name]}, not 0")
    if report["rooms_finished"] != report["rooms"]:
        found.append(f"rooms_finished is {report['rooms_finished']} of {report['rooms']}")
    if report["kills"] != run.kills:
        found.append(f"only {report['kills']} of {run.kills} kills happened within the budget")
    if run.kills and not report["acked_during_failover"]:
        found.append("no command was acknowledged during a failover")
    p50, limit = report["failover_seconds"]["p50"], run.lease_ttl + FAILOVER_MARGIN
    if run.kills and (p50 is None or p50 > limit):
        found.append(f"failover_seconds.p50 is {p50}, over {limit:g} (lease TTL + 5 s)")
    for down in report["takedowns"]:
        found += [f"kill {down['signal']} of {down['node']}: {text}" for text in down["problems"]]
    if report["player_errors"]:
        found.append(f"players that could not play on: {report['player_errors']}")
    return found


async def _run(run: FailoverRun, logs: Path) -> dict[str, Any]:
    """Create the database, start the nodes (logs in ``logs``), play the run and report it;
    whatever happens, end every node, drop the database and delete the Redis keys."""
    started = time.monotonic()
    pid = os.getpid()
    database = Database(run.postgres, f"lumin_bench_failover_{pid}")
    prefix = f"lumin-bench-failover:{pid}:"
    nodes = {}
    for n in range(1, run.nodes + 1):
        node_id, port = f"node-{n}", free_port()
        flags = node_flags(node_id, port, database.url, run, prefix)
        nodes[node_id] = Node(node_id, port, flags, logs)
    cluster = Cluster(run, nodes, database)
    leases = LeaseLog(database)
    watching: asyncio.Task[None] | None = None
    await database.create()
    try:
        for node in nodes.values():
            node.start()
        if not await whole(list(nodes.values()), 60):
            raise RuntimeError("the nodes did not form a cluster within 60 s")
        await database.connect()
        watching = asyncio.create_task(leases.run())
        try:
            await _play_out(cluster, started)
        finally:
            for member in cluster.members():
                await member.stop()
        report = await _report(cluster, leases, time.monotonic() - started)
    finally:
        if watching is not None:
            watching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watching
        for node in nodes.values():
            node.end()
        with contextlib.suppress(Exception):
            await database.drop()
        with contextlib.suppress(Exception):
            await _forget_prefix(run.redis, prefix)
    return report


async def _forget_prefix(url: str, prefix: str) -> None:
    """Delete every Redis key under ``prefix``."""
    client = aioredis.Redis.from_url(url, socket_timeout=5)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}*")]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


def bench_failover(run: FailoverRun) -> dict[str, Any]:
    """Run the benchmark (see the module docstring) and return its report:

    - ``acked``: commands clients were told ``accepted``; ``acked_during_failover``: those
      answered between a kill and the end of its failover (every room that changed owner
      logged a command again, and a killed node was back in the cluster);
    - ``acked_lost``: acknowledged commands whose ``seq`` the room's final log lacks or holds
      another command at; ``forks``: acknowledged commands the log holds differently, plus
      seqs breaking "one record per seq, consecutive" (``log_breaks``), plus acknowledged
      commands decided while another node held the room's lease (``stale_epoch_acks``);
    - ``rooms_moved``: (room, kill) pairs whose owner changed; ``failover_seconds``: for each,
      from the kill to the room's next logged command (``p50``, ``max``, ``samples``);
    - ``rooms_finished``: rooms whose status is ``finished`` at the end;
    - ``spectators``, ``spectator_gaps`` (seq ranges a spectator never received,
      :func:`spectator_gaps`), ``snapshots`` (snapshots spectators received),
      ``spectators_sent_to_owner`` (``watch_room`` answered ``moved``);
    - ``resumes_redone``: resumes a client had to send again itself (:class:`Member`);
      ``setup_retries``: setup requests sent again, by the answer (:data:`SETUP_RETRIED`);
    - ``takedowns``: each kill's signal, node, rooms, rooms moved and how many each node took
      (``moved_to``: the survivors share them by load), how long until they had
      owners again and the node was back, after a SIGCONT how many moved rooms the woken node
      let go (``let_go``; ``fenced``: on a refused write rather than a lease it failed to
      renew), what became of the commands players sent it while it was paused
      (``sent_while_paused``, by outcome), and what failed;
    - ``failed``: the invariants broken (:func:`failures`); ``logs``: where the nodes' logs
      were kept when something failed.
    """
    logs = Path(tempfile.mkdtemp(prefix="lumin-failover-"))
    try:
        report = asyncio.run(_run(run, logs))
    except Exception as error:
        raise RuntimeError(f"the run stopped ({error!r}); the nodes' logs are in {logs}") from error
    report["failed"] = failures(report, run)
    if report["failed"]:
        report["logs"] = str(logs)
    else:
        shutil.rmtree(logs, ignore_errors=True)
    return report
