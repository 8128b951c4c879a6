"""The event store: every room's log in one SQLite file, appended in durable batches.

A room's log is a list of *records*, one per accepted command or clock tick: who acted, the
command in wire form, the room time, the log position its chance was drawn at, and the events
it caused. Replaying the events rebuilds the room; re-deciding each record's command with
``chance(seed, position)`` verifies it (``lumin verify``).

The records a room appends together (a batch of commands decided in one go) are stored as one
*run*: one row keyed by the room and the run's first ``seq``, holding its records in one
msgpack blob. Under load a room's four racers' slides are one row instead of four, which
makes a commit about twice as cheap (SQLite's cost is per row and per page touched). Stores
written before runs existed keep one row per record in a ``records`` table; opening such a
store moves them into runs once.

Writes from every room are batched: everything submitted during one turn of the event loop is
committed in a single transaction just after it, so durability costs one commit per batch
rather than one per command. A room acknowledges a command only once its append's future
resolves.

Durability modes:

- ``"process"`` (default): WAL with ``synchronous=NORMAL``. A committed batch survives the
  server process being killed (it is in the WAL, which the OS holds), not a power loss. Such a
  commit writes to the OS without waiting for the disk, so it runs on the event loop itself
  (tens of microseconds), with no thread hand-off in the way of latency.
- ``"fsync"``: WAL with ``synchronous=FULL``: each batch is fsynced before it is acknowledged,
  surviving power loss. Batches go to a writer thread so the wait for the disk never blocks
  the event loop; whatever queues up meanwhile becomes the next batch.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import attrs
import msgpack

from server import playerrows as pr
from server.playerrows import AccountRow, RatingRow, ResultRow, SessionRow
from server.threads import yielding_pool

__all__ = [
    "BAN_KINDS",
    "DURABILITY_MODES",
    "ENDED",
    "KEEPING",
    "KEEP_ROOM",
    "RETAINED_UNTIL",
    "RETENTION_BATCH",
    "ROOM_COLUMNS",
    "SCHEMA_VERSION",
    "AppendRefused",
    "Ban",
    "EventStore",
    "Fenced",
    "Record",
    "RoomRow",
    "SchemaTooNew",
    "Store",
    "ban_kind",
    "pack_run",
    "refusal_text",
    "room_row",
    "room_values",
    "run_bounds",
    "unpack_run",
    "update_values",
]

DURABILITY_MODES = ("process", "fsync")

#: The SQLite file's schema version (``PRAGMA user_version``). Version 0 is a file written
#: before versions existed (its log in runs, or older still in one row per record); opening
#: it migrates it (:data:`_MIGRATIONS`). Version 2 adds ``bans``; version 3 an identity's
#: ``last_seen`` and ``claimed``; version 4
#: accounts, sessions, ratings, results and a high score's player id
#: (:mod:`server.playerrows`); version 5 a session's fixed end and the server's secrets;
#: version 6 claimed names folded by their confusable skeletons; version 7 the indexes that
#: bound players' reads over HTTP; version 8 a room's ``kept`` and retention's index.
SCHEMA_VERSION = 8

#: What a ban names: a person (their identity's user id) or a client address.
BAN_KINDS = ("identity", "address")

#: Bytes the WAL file is cut back to when it starts over (SQLite's ``journal_size_limit``).
WAL_SIZE_LIMIT = 64 * 1024 * 1024

#: The tables of version 1, as its step makes them; later steps change them (never edit this).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    seed BLOB NOT NULL,
    salt BLOB NOT NULL,
    commitment TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 0,
    code TEXT,
    host TEXT,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    started REAL,
    finished REAL,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS runs (
    room TEXT NOT NULL,
    seq INTEGER NOT NULL,
    last INTEGER NOT NULL,
    records BLOB NOT NULL,
    PRIMARY KEY (room, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS identities (
    token_hash TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS high_scores (
    player TEXT NOT NULL,
    score INTEGER NOT NULL,
    rank TEXT NOT NULL,
    room TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS rooms_status ON rooms (status);
CREATE INDEX IF NOT EXISTS rooms_finished ON rooms (status, private, finished);
CREATE INDEX IF NOT EXISTS high_scores_player ON high_scores (player, score);
"""


class AppendRefused(Exception):
    """An append that does not follow the room's log: its first ``seq`` is not the one after
    the room's last (a run already there, or a gap). Nothing of it is written."""


class Fenced(AppendRefused):
    """An append (or a room's update, or a fence check) whose epoch is no longer the room's
    lease's: another node owns the room now (the writer paused past its lease, or let the room
    go). Nothing of it is written; the writer must let the room go."""


class SchemaTooNew(Exception):
    """A store written by a newer Lumin (its schema version is past the one this code knows)."""


@attrs.frozen
class Record:
    """One entry of a room's log: a command (``seat`` and ``command`` set) or a clock tick
    (both ``None``), the room time it happened at, the log position its chance was drawn at,
    and its events in wire form."""

    seq: int
    position: int
    seat: int | None
    command: dict[str, Any] | None
    at: float
    events: tuple[dict[str, Any], ...]


@attrs.frozen
class RoomRow:
    """A room as the store keeps it."""

    id: str
    game: str
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    seed: bytes
    salt: bytes
    commitment: str
    private: bool
    code: str | None
    host: str | None
    status: str
    created: float
    started: float | None
    finished: float | None
    meta: dict[str, Any]


@attrs.frozen
class Ban:
    """A ban kept by the store: who (``kind`` is ``"identity"`` or ``"address"``, ``value``
    the user id or address), why, and since when (seconds since the epoch)."""

    kind: str
    value: str
    reason: str
    at: float


class Store(Protocol):
    """The store contract: what a Lumin server keeps, whichever store keeps it.

    :class:`EventStore` (SQLite, one process, the embedded default) and
    :class:`server.pgstore.PostgresStore` (PostgreSQL, for a cluster) both fulfil it, and
    ``tests/server/test_store_contract.py`` runs one suite against both. Writes are queued and
    return a future that resolves once the write is committed (a room acknowledges a command
    only then); writes submitted in one loop turn commit together, and a failing write fails
    only its own future. Reads are coroutines.
    """

    #: The schema version the store is at once open.
    schema_version: int
    #: Told each batch's commit time in seconds, from any thread (set by the server).
    observe_commit: Callable[[float], None] | None

    async def open(self) -> None:
        """Connect, bring the schema to the newest version; call once before anything else."""

    async def aclose(self) -> None:
        """Commit whatever is queued, then disconnect."""

    async def tidy(self) -> None:
        """Housekeeping the store itself needs now and then (the server calls it every few
        seconds), off the event loop's critical path."""

    def probe(self) -> asyncio.Future[None]:
        """A write that changes nothing, through the same queue as every other: it resolves
        once committed, and fails when the store cannot take writes now (``/readyz``)."""
        ...

    def append(self, room: str, *records: Record, epoch: int | None = None) -> asyncio.Future[None]:
        """Append a run of consecutive records; it must follow the room's log
        (:class:`AppendRefused` otherwise), all of it or none. ``epoch`` is a cluster node's
        lease on the room (stores with leases only): the append is refused unless the room's
        lease is still at it."""
        ...

    def create_room(self, row: RoomRow) -> asyncio.Future[None]: ...

    def update_room(
        self, room: str, epoch: int | None = None, **fields: Any
    ) -> asyncio.Future[None]:
        """Change ``seats``, ``status``, ``started``, ``finished``, ``meta``, ``options`` or
        ``host``. With ``epoch`` (stores with leases), only while the room's lease is at it:
        an update from a node that lost the room changes nothing, and its future fails with
        :class:`Fenced`."""
        ...

    def fence(self, room: str, epoch: int | None) -> asyncio.Future[None]:
        """Resolves once the store has checked, in order with the writes queued before, that
        ``room``'s lease is still at ``epoch`` (:class:`Fenced` otherwise); without ``epoch``
        (a store without leases) at once."""
        ...

    def delete_ended_before(self, cutoff: float) -> asyncio.Future[None]:
        """Forget finished, expired, abandoned and failed rooms (and logs) ended before
        ``cutoff``."""
        ...

    def save_identity(self, token_hash: str, name: str, created: float) -> asyncio.Future[None]:
        """Remember a new guest identity by the hash of its token, last seen when created."""
        ...

    def touch_identity(self, token_hash: str, at: float) -> asyncio.Future[None]:
        """Note that the identity was used at ``at`` (a hello with its token); nothing for an
        unknown token hash."""
        ...

    def delete_guests_unseen_before(self, cutoff: float) -> asyncio.Future[None]:
        """Forget every unclaimed identity last seen before ``cutoff`` (guest retention);
        claimed identities are never deleted."""
        ...

    def add_high_score(
        self, player: str, score: int, rank: str, room: str, at: float, player_id: str | None = None
    ) -> asyncio.Future[None]: ...

    def save_account(self, account: AccountRow) -> asyncio.Future[None]:
        """Keep a claimed name and mark its identity claimed and named so, together; fails
        when the folded name (or the identity) has an account already, claiming nothing."""
        ...

    def claim_identity(self, token_hash: str, name: str, at: float) -> asyncio.Future[None]:
        """Keep an identity an outside provider vouches for, claimed (never forgotten)."""
        ...

    def save_session(self, session: SessionRow) -> asyncio.Future[None]: ...

    def touch_session(self, token_hash: str, at: float) -> asyncio.Future[None]: ...

    def delete_sessions(
        self, identity: str, token_hashes: Sequence[str] | None = None
    ) -> asyncio.Future[None]:
        """Revoke the identity's sessions with those token hashes (every one: ``None``)."""
        ...

    def clear_renamed(self, identity: str) -> asyncio.Future[None]:
        """The owner of the identity's renamed account has been told (its ``renamed_from``
        goes)."""
        ...

    def delete_sessions_ended_before(self, cutoff: float, lifetime: float) -> asyncio.Future[None]:
        """Forget every session that ended before ``cutoff``: one whose end is fixed
        (``expires``) before it, an account's (no ``expires``) last used ``lifetime`` seconds
        before it."""
        ...

    async def session_secret(self) -> bytes:
        """The secret session tokens are derived with (32 random bytes): made the first time
        it is asked for and kept in the store, so every node sharing the store, and a backup
        of it, has the same."""
        ...

    def save_ratings(self, rows: Sequence[RatingRow]) -> asyncio.Future[None]:
        """Keep ratings, replacing each player's in that game and pool; all or none."""
        ...

    def add_results(self, rows: Sequence[ResultRow]) -> asyncio.Future[None]:
        """Keep a finished game's results (a room's are kept once). Rooms with a rated
        result are exempt from :meth:`delete_ended_before`."""
        ...

    def ban(self, kind: str, value: str, reason: str, at: float) -> asyncio.Future[None]:
        """Keep a ban of an identity or an address (``kind``, :data:`BAN_KINDS`; another kind
        is a ``ValueError`` before anything is queued); banning again replaces its reason and
        time."""
        ...

    def unban(self, kind: str, value: str) -> asyncio.Future[None]:
        """Forget a ban (nothing when there is none)."""
        ...

    async def get_rooms(self, statuses: Sequence[str] | None = None) -> list[RoomRow]:
        """Stored rooms, oldest first, optionally only those with the given statuses."""
        ...

    async def get_finished(
        self, limit: int, game: str | None = None, offset: int = 0
    ) -> list[RoomRow]:
        """Finished public games, most recently finished first, from ``offset``."""
        ...

    async def get_finished_count(self, game: str | None = None) -> int: ...

    async def get_room(self, room: str) -> RoomRow | None: ...

    async def get_records(self, room: str, after: int = -1) -> list[Record]:
        """A room's records with ``seq`` past ``after``, in order."""
        ...

    async def get_identity(self, token_hash: str) -> str | None:
        """The name behind a token hash, or ``None``."""
        ...

    async def get_high_scores(
        self, player: str | None = None, limit: int = 10, player_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Best Flash 8 solo scores (fewest cards left first), of one player (by name, or by
        user id: an account's) or everyone."""
        ...

    async def get_bans(self) -> list[Ban]:
        """Every ban, oldest first."""
        ...

    async def get_account(self, key: str) -> AccountRow | None:
        """The account of a folded name (:func:`server.accounts.name_key`), or ``None``."""
        ...

    async def get_account_of(self, identity: str) -> AccountRow | None: ...

    async def get_identity_claimed(self, token_hash: str) -> bool | None:
        """Whether the identity is claimed; ``None`` for an unknown token hash."""
        ...

    async def get_session(self, token_hash: str) -> SessionRow | None: ...

    async def get_sessions(self, identity: str) -> list[SessionRow]:
        """The identity's sessions, oldest first."""
        ...

    async def get_ratings(
        self, game: str | None = None, pool: str | None = None, player: str | None = None
    ) -> list[RatingRow]:
        """Ratings of a game, pool or player (any of them), best shown rating first."""
        ...

    async def get_results(
        self, player: str | None = None, rated: bool | None = None, limit: int | None = None
    ) -> list[ResultRow]:
        """Results of one player (newest first) or everyone (oldest first: the order ratings
        are recomputed in), rated games' only with ``rated``."""
        ...

    async def get_leaderboard(
        self, game: str, pool: str, min_games: int, limit: int, after: pr.BoardKey | None = None
    ) -> list[RatingRow]:
        """One page of a pool's board (:func:`server.playerrows.leaderboard_query`): at most
        ``limit`` ratings with ``min_games`` games or more, best first, past ``after``."""
        ...

    async def get_history(
        self, player: str, limit: int, after: pr.HistoryKey | None = None
    ) -> list[ResultRow]:
        """One page of a player's results in public rooms, newest first, past ``after``
        (:func:`server.playerrows.history_query`)."""
        ...

    async def get_rated_rooms(
        self, limit: int, after: pr.RatedKey | None = None, everyone: bool = False
    ) -> list[tuple[str, float]]:
        """One page of rated games as ``(room, finished)``, in the order they were rated,
        public rooms' only unless ``everyone`` (:func:`server.playerrows.rated_rooms_query`)."""
        ...


def _pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


def unpack_run(blob: bytes, after: int = -1) -> list[Record]:
    """The records of a run's blob (:func:`pack_run`) with ``seq`` past ``after``."""
    return [
        Record(seq, position, seat, command, at, tuple(events))
        for seq, position, seat, command, at, events in _unpack(blob)
        if seq > after
    ]


def pack_run(records: Sequence[Record]) -> bytes:
    """A run's blob, as every store keeps it: its records as ``[seq, position, seat, command, at,
    events]`` lists in msgpack."""
    return _pack(
        [
            [record.seq, record.position, record.seat, record.command, record.at, record.events]
            for record in records
        ]
    )


#: (sql, parameters or a list of parameter rows, the future to settle, its loop, and whether
#: the statement must change exactly one row: an append's condition)
_Job = tuple[
    str,
    "tuple[Any, ...] | list[tuple[Any, ...]]",
    "asyncio.Future[None] | None",
    asyncio.AbstractEventLoop | None,
    bool,
]

#: A run is inserted only when its first ``seq`` follows the room's last (0 for an empty log).
#: Reader threads (:meth:`EventStore._read`): a read waits only for reads ahead of it.
READERS = 2

T = TypeVar("T")

_SESSION_BY = f"SELECT {', '.join(pr.SESSION_COLUMNS)} FROM sessions WHERE "

_APPEND = (
    "INSERT INTO runs (room, seq, last, records) SELECT ?, ?, ?, ?"
    " WHERE COALESCE((SELECT last FROM runs WHERE room = ? ORDER BY seq DESC LIMIT 1), 0) = ?"
)


class EventStore:
    """SQLite event store with a batching writer thread (see the module docstring).

    The store contract's reads (the ``get_`` coroutines) run on reader threads
    (:data:`READERS`), each with a connection of its own, so no read ever holds the event
    loop, however many rows it walks: SQLite runs a query without Python's lock, and WAL lets
    readers read while a batch commits. A read sees every write whose future has resolved.
    The plain methods (:meth:`rooms`, :meth:`records`...) read on the caller's thread, for
    start-up, offline commands and tests.
    """

    def __init__(self, path: Path | str, durability: str = "process") -> None:
        if durability not in DURABILITY_MODES:
            raise ValueError(f"durability is one of {DURABILITY_MODES}, not {durability!r}")
        self.path = Path(path)
        self.durability = durability
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._reader = self._connect()
        self.schema_version = self._upgrade()
        self.batches = 0
        self.appended = 0
        self.commit_seconds = 0.0
        #: Told each batch's commit time, in seconds; thread-safe (the fsync mode's writer
        #: thread calls it): the server's ``lumin_store_commit_seconds``.
        self.observe_commit: Callable[[float], None] | None = None
        self._pending: list[_Job] = []
        self._scheduled = False
        self._jobs: queue.SimpleQueue[list[_Job] | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._background: concurrent.futures.ThreadPoolExecutor | None = None
        #: The reader threads' connections (each thread's own, in :attr:`_local`).
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._reads = concurrent.futures.ThreadPoolExecutor(
            max_workers=READERS, thread_name_prefix="lumin-read", initializer=self._open_reader
        )
        if durability == "fsync":
            self._writer = threading.Thread(
                target=self._write_loop, name="lumin-store", daemon=True
            )
            self._writer.start()

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        sync = "FULL" if self.durability == "fsync" else "NORMAL"
        connection.execute(f"PRAGMA synchronous={sync}")
        connection.execute("PRAGMA busy_timeout=5000")
        # Checkpoints run from a thread (:meth:`checkpoint`), never inside a commit on the loop.
        connection.execute("PRAGMA wal_autocheckpoint=0")
        # When the WAL starts over after a stretch of writes without pause, cut its file back.
        connection.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
        return connection

    def _open_reader(self) -> None:
        """A reader thread's start: its own read-only connection."""
        connection = self._connect()
        connection.execute("PRAGMA query_only = 1")
        self._local.connection = connection
        with self._readers_lock:
            self._readers.append(connection)

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection a read uses: a reader thread's own, else the store's first."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        return self._reader if connection is None else connection

    async def _read(self, read: Callable[..., T], *args: Any) -> T:
        """``read(*args)`` on a reader thread (it reads through :attr:`_db`)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._reads, read, *args)

    def checkpoint(self) -> None:
        """Copy the WAL into the database file (SQLite's PASSIVE checkpoint: it never blocks
        writers), with a connection of its own; call it from another thread than the loop's
        (:meth:`checkpoint_in_background`)."""
        connection = sqlite3.connect(self.path, isolation_level=None)
        try:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            connection.close()

    async def checkpoint_in_background(self) -> None:
        """:meth:`checkpoint` on the store's own background thread, which runs at the lowest
        scheduling priority (nice 19 on Linux). A checkpoint after a busy stretch takes tens of
        milliseconds of CPU; on the core the event loop runs on, at normal priority it would
        stall every room for a scheduler time slice now and then, while at the lowest it only
        runs when the loop leaves it room."""
        if self._background is None:
            self._background = yielding_pool(1, "lumin-checkpoint")
        await asyncio.get_running_loop().run_in_executor(self._background, self.checkpoint)

    def _upgrade(self) -> int:
        """Bring the file to :data:`SCHEMA_VERSION`: a new file gets the schema, an older one
        each migration step after its version, in one transaction (a failed step leaves the
        file as it was). A file from a newer Lumin is refused (:class:`SchemaTooNew`)."""
        connection = self._reader
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise SchemaTooNew(
                f"{self.path} has schema version {version}; this Lumin knows up to"
                f" {SCHEMA_VERSION} (upgrade Lumin to open it)"
            )
        if version == SCHEMA_VERSION:
            return version
        connection.execute("BEGIN")
        try:
            for step in _MIGRATIONS[version:]:
                step(connection)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        return SCHEMA_VERSION

    # -- reading through the store contract (:class:`Store`) -----------------------------------

    async def open(self) -> None:
        """Nothing to do: the file is open from construction."""

    async def aclose(self) -> None:
        """:meth:`close`, then a loop turn for the writer thread's last answers to arrive."""
        self.close()
        await asyncio.sleep(0)

    async def tidy(self) -> None:
        """:meth:`checkpoint_in_background`."""
        await self.checkpoint_in_background()

    async def get_rooms(self, statuses: Sequence[str] | None = None) -> list[RoomRow]:
        return await self._read(self.rooms, statuses)

    async def get_finished(
        self, limit: int, game: str | None = None, offset: int = 0
    ) -> list[RoomRow]:
        return await self._read(self.finished, limit, game, offset)

    async def get_finished_count(self, game: str | None = None) -> int:
        return await self._read(self.count_finished, game)

    async def get_room(self, room: str) -> RoomRow | None:
        return await self._read(self.room, room)

    async def get_records(self, room: str, after: int = -1) -> list[Record]:
        return await self._read(lambda: list(self.records(room, after)))

    async def get_identity(self, token_hash: str) -> str | None:
        return await self._read(self.identity, token_hash)

    async def get_high_scores(
        self, player: str | None = None, limit: int = 10, player_id: str | None = None
    ) -> list[dict[str, Any]]:
        return await self._read(self.high_scores, player, limit, player_id)

    async def get_bans(self) -> list[Ban]:
        return await self._read(self.bans)

    async def get_account(self, key: str) -> AccountRow | None:
        row = await self._read(self._first, f"{pr.ACCOUNT_SELECT} WHERE name_key = ?", (key,))
        return None if row is None else AccountRow(*row)

    async def get_account_of(self, identity: str) -> AccountRow | None:
        sql = f"{pr.ACCOUNT_SELECT} WHERE identity = ?"
        row = await self._read(self._first, sql, (identity,))
        return None if row is None else AccountRow(*row)

    async def get_identity_claimed(self, token_hash: str) -> bool | None:
        sql = "SELECT claimed FROM identities WHERE token_hash = ?"
        row = await self._read(self._first, sql, (token_hash,))
        return None if row is None else bool(row[0])

    async def get_session(self, token_hash: str) -> SessionRow | None:
        row = await self._read(self._first, _SESSION_BY + "token_hash = ?", (token_hash,))
        return None if row is None else SessionRow(*row)

    async def get_sessions(self, identity: str) -> list[SessionRow]:
        sql = _SESSION_BY + "identity = ? ORDER BY created, token_hash"
        return [SessionRow(*row) for row in await self._read(self._rows, sql, (identity,))]

    async def get_ratings(
        self, game: str | None = None, pool: str | None = None, player: str | None = None
    ) -> list[RatingRow]:
        rows = await self._read(self._rows, *pr.ratings_query(game, pool, player))
        return [RatingRow(*row) for row in rows]

    async def get_results(
        self, player: str | None = None, rated: bool | None = None, limit: int | None = None
    ) -> list[ResultRow]:
        rows = await self._read(self._rows, *pr.results_query(player, rated, limit))
        return [pr.result_row(row) for row in rows]

    async def get_leaderboard(
        self, game: str, pool: str, min_games: int, limit: int, after: pr.BoardKey | None = None
    ) -> list[RatingRow]:
        sql, params = pr.leaderboard_query(game, pool, min_games, limit, after)
        return [RatingRow(*row) for row in await self._read(self._rows, sql, params)]

    async def get_history(
        self, player: str, limit: int, after: pr.HistoryKey | None = None
    ) -> list[ResultRow]:
        rows = await self._read(self._rows, *pr.history_query(player, limit, after))
        return [pr.result_row(row) for row in rows]

    async def get_rated_rooms(
        self, limit: int, after: pr.RatedKey | None = None, everyone: bool = False
    ) -> list[tuple[str, float]]:
        rows = await self._read(self._rows, *pr.rated_rooms_query(limit, after, everyone))
        return [(str(room), float(finished)) for room, finished in rows]

    def _first(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The first row ``sql`` reads, or ``None``."""
        row: tuple[Any, ...] | None = self._db.execute(sql, params).fetchone()
        return row

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Every row ``sql`` reads."""
        return self._db.execute(sql, params).fetchall()

    # -- writing --------------------------------------------------------------------------------

    def _commit(
        self, connection: sqlite3.Connection, batch: list[_Job]
    ) -> list[BaseException | None]:
        """Run a batch in one transaction; returns each job's failure (``None`` when it is
        committed). When the batch fails, each job is retried in a transaction of its own, so
        one bad write (a bug) fails only its own future, never another room's."""
        started = time.perf_counter()
        errors: list[BaseException | None] = [None] * len(batch)
        try:
            self._transaction(connection, batch)
        except (sqlite3.Error, AppendRefused):
            for index, job in enumerate(batch):
                try:
                    self._transaction(connection, [job])
                except (sqlite3.Error, AppendRefused) as failure:
                    errors[index] = failure
        elapsed = time.perf_counter() - started
        self.commit_seconds += elapsed
        if self.observe_commit is not None:
            self.observe_commit(elapsed)
        self.batches += 1
        self.appended += len(batch)
        return errors

    @staticmethod
    def _transaction(connection: sqlite3.Connection, jobs: list[_Job]) -> None:
        if len(jobs) == 1 and not isinstance(jobs[0][1], list):
            sql, params, _, _, checked = jobs[0]
            # One statement: its own transaction.
            if connection.execute(sql, params).rowcount != 1 and checked:
                raise _refusal(connection, params)
            return
        try:
            connection.execute("BEGIN")
            for sql, params, _, _, checked in jobs:
                if isinstance(params, list):  # one job of several rows: all or none
                    connection.executemany(sql, params)
                elif connection.execute(sql, params).rowcount != 1 and checked:
                    raise _refusal(connection, params)
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def _write_loop(self) -> None:
        """The fsync mode's writer thread: commit each batch, merging any that queued up."""
        connection = self._connect()
        while True:
            batch = self._jobs.get()
            if batch is None:
                break
            stop = False
            while True:
                try:
                    more = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.extend(more)
            errors = self._commit(connection, batch)
            for (_, _, future, loop, _), error in zip(batch, errors, strict=True):
                if future is not None and loop is not None:
                    loop.call_soon_threadsafe(_settle, future, error)
            if stop:
                break
        connection.close()

    def _submit(
        self, sql: str, params: tuple[Any, ...] | list[tuple[Any, ...]], checked: bool = False
    ) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._pending.append((sql, params, future, loop, checked))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return future

    def _flush(self) -> None:
        """Commit (or hand to the writer thread) everything submitted this loop turn."""
        self._scheduled = False
        batch, self._pending = self._pending, []
        if not batch:
            return
        if self._writer is not None:
            self._jobs.put(batch)
            return
        errors = self._commit(self._reader, batch)
        for (_, _, future, _, _), error in zip(batch, errors, strict=True):
            if future is not None:
                _settle(future, error)

    def append(self, room: str, *records: Record, epoch: int | None = None) -> asyncio.Future[None]:
        """Queue ``records`` (consecutive, in order) for the next batch, as one run; the future
        resolves once they are committed, all of them or none (a room's log never has a gap).
        The run must follow the room's log: a first ``seq`` other than the one after the room's
        last fails with :class:`AppendRefused` (a log never forks or skips)."""
        if epoch is not None:
            raise ValueError("the SQLite store keeps no leases: a room on it appends no epoch")
        first, last = run_bounds(records)
        return self._submit(
            _APPEND, (room, first, last, pack_run(records), room, first - 1), checked=True
        )

    def probe(self) -> asyncio.Future[None]:
        """Rewrite the schema version (a real write to the file, changing nothing)."""
        return self._submit(f"PRAGMA user_version = {SCHEMA_VERSION}", ())

    def create_room(self, row: RoomRow) -> asyncio.Future[None]:
        """Store a new room."""
        return self._submit(
            f"INSERT INTO rooms ({', '.join(ROOM_COLUMNS)})"
            f" VALUES ({', '.join('?' for _ in ROOM_COLUMNS)})",
            room_values(row),
        )

    def update_room(
        self, room: str, epoch: int | None = None, **fields: Any
    ) -> asyncio.Future[None]:
        """Change some of a room's columns (``status``, ``seats``, ``started``...)."""
        if epoch is not None:
            raise ValueError("the SQLite store keeps no leases: a room on it updates no epoch")
        names, values = update_values(fields)
        assignments = ", ".join(f"{n} = ?" for n in names)
        return self._submit(f"UPDATE rooms SET {assignments} WHERE id = ?", (*values, room))

    def fence(self, room: str, epoch: int | None) -> asyncio.Future[None]:
        """Nothing to check: the SQLite store keeps no leases (``epoch`` is always ``None``)."""
        if epoch is not None:
            raise ValueError("the SQLite store keeps no leases: a room on it has no epoch")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done

    def delete_ended_before(self, cutoff: float) -> asyncio.Future[None]:
        """Forget at most :data:`RETENTION_BATCH` of the rooms retention forgets (see
        :data:`RETAINED_UNTIL`), and their logs and results, in SQL, without reading them."""
        self._submit(f"DELETE FROM results WHERE room IN ({RETAINED_UNTIL})", (cutoff, cutoff))
        self._submit(f"DELETE FROM runs WHERE room IN ({RETAINED_UNTIL})", (cutoff, cutoff))
        return self._submit(f"DELETE FROM rooms WHERE id IN ({RETAINED_UNTIL})", (cutoff, cutoff))

    def save_identity(self, token_hash: str, name: str, created: float) -> asyncio.Future[None]:
        """Remember a guest identity by the hash of its secret token, last seen when created."""
        return self._submit(
            "INSERT INTO identities (token_hash, name, created, last_seen) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (token_hash) DO UPDATE SET name = excluded.name,"
            " created = excluded.created, last_seen = excluded.last_seen",
            (token_hash, name, created, created),
        )

    def touch_identity(self, token_hash: str, at: float) -> asyncio.Future[None]:
        """Note that the identity was used at ``at``; nothing for an unknown token hash."""
        return self._submit(
            "UPDATE identities SET last_seen = ? WHERE token_hash = ?", (at, token_hash)
        )

    def delete_guests_unseen_before(self, cutoff: float) -> asyncio.Future[None]:
        """Forget every unclaimed identity last seen before ``cutoff``."""
        return self._submit("DELETE FROM identities WHERE claimed = 0 AND last_seen < ?", (cutoff,))

    def add_high_score(
        self, player: str, score: int, rank: str, room: str, at: float, player_id: str | None = None
    ) -> asyncio.Future[None]:
        """Keep a Flash 8 solo result (fewer cards left is better) of ``player`` (a name),
        whose identity's user id is ``player_id``."""
        return self._submit(
            "INSERT INTO high_scores (player, score, rank, room, at, player_id)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (player, score, rank, room, at, player_id),
        )

    # -- players: accounts, sessions, ratings, results (:mod:`server.playerrows`) ---------------

    def save_account(self, account: AccountRow) -> asyncio.Future[None]:
        """Keep a claimed name and mark its identity claimed (kept for ever) and named so;
        the future fails (``sqlite3.IntegrityError``) when the name, folded, is taken or the
        identity holds an account already."""
        future = self._submit(
            pr.INSERT_ACCOUNT,
            (account.key, account.name, account.identity, account.password, account.created),
        )
        self._submit(pr.MARK_CLAIMED, (account.name, account.identity, account.identity))
        return future

    def claim_identity(self, token_hash: str, name: str, at: float) -> asyncio.Future[None]:
        """Keep an identity an outside provider vouches for: claimed (never forgotten)."""
        return self._submit(
            "INSERT INTO identities (token_hash, name, created, last_seen, claimed)"
            " VALUES (?, ?, ?, ?, 1) ON CONFLICT (token_hash) DO UPDATE SET"
            " name = excluded.name, last_seen = excluded.last_seen, claimed = 1",
            (token_hash, name, at, at),
        )

    def save_session(self, session: SessionRow) -> asyncio.Future[None]:
        return self._submit(pr.INSERT_SESSION, attrs.astuple(session))

    def touch_session(self, token_hash: str, at: float) -> asyncio.Future[None]:
        return self._submit(
            "UPDATE sessions SET last_seen = ? WHERE token_hash = ?", (at, token_hash)
        )

    def delete_sessions(
        self, identity: str, token_hashes: Sequence[str] | None = None
    ) -> asyncio.Future[None]:
        """Revoke the identity's sessions with those token hashes (every one: ``None``)."""
        if token_hashes is None:
            return self._submit("DELETE FROM sessions WHERE identity = ?", (identity,))
        return self._submit(
            "DELETE FROM sessions WHERE identity = ? AND token_hash = ?",
            [(identity, token_hash) for token_hash in token_hashes],
        )

    def clear_renamed(self, identity: str) -> asyncio.Future[None]:
        """See :meth:`Store.clear_renamed`."""
        return self._submit(pr.CLEAR_RENAMED, (identity,))

    def delete_sessions_ended_before(self, cutoff: float, lifetime: float) -> asyncio.Future[None]:
        """See :meth:`Store.delete_sessions_ended_before`."""
        return self._submit(pr.DELETE_ENDED_SESSIONS, (cutoff, cutoff - lifetime))

    async def session_secret(self) -> bytes:
        """See :meth:`Store.session_secret`."""
        read = "SELECT value FROM secrets WHERE name = 'session'"
        row = await self._read(self._first, read, ())
        if row is None:
            await self._submit(
                "INSERT INTO secrets (name, value) VALUES ('session', ?)"
                " ON CONFLICT (name) DO NOTHING",
                (secrets.token_bytes(32),),
            )
            row = await self._read(self._first, read, ())
            assert row is not None, "the secret was kept"
        return bytes(row[0])

    def save_ratings(self, rows: Sequence[RatingRow]) -> asyncio.Future[None]:
        """Keep ratings (replacing each player's in that game and pool), all or none."""
        return self._submit(pr.UPSERT_RATING, [attrs.astuple(row) for row in rows])

    def add_results(self, rows: Sequence[ResultRow]) -> asyncio.Future[None]:
        """Keep a finished game's results (a room's are kept once); a room with a rated one
        is kept for good (``kept``)."""
        for room in sorted({row.room for row in rows if row.rated}):
            self._submit(KEEP_ROOM, (room,))
        return self._submit(pr.INSERT_RESULT, [pr.result_values(row) for row in rows])

    def ban(self, kind: str, value: str, reason: str, at: float) -> asyncio.Future[None]:
        """Keep a ban of an identity or an address; banning again replaces reason and time."""
        return self._submit(
            "INSERT INTO bans (kind, value, reason, at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (kind, value) DO UPDATE SET reason = excluded.reason, at = excluded.at",
            (ban_kind(kind), value, reason, at),
        )

    def unban(self, kind: str, value: str) -> asyncio.Future[None]:
        """Forget a ban (nothing when there is none)."""
        return self._submit(
            "DELETE FROM bans WHERE kind = ? AND value = ?", (ban_kind(kind), value)
        )

    def close(self) -> None:
        """Finish every queued append, then stop the writer."""
        if self._pending:
            batch, self._pending = self._pending, []
            if self._writer is not None:
                self._jobs.put(batch)
            else:
                errors = self._commit(self._reader, batch)
                for (_, _, future, _, _), error in zip(batch, errors, strict=True):
                    if future is not None:
                        _settle(future, error)
        if self._writer is not None:
            self._jobs.put(None)
            self._writer.join()
        if self._background is not None:
            self._background.shutdown(wait=True)
        self._reads.shutdown(wait=True)
        with self._readers_lock:
            for connection in self._readers:
                connection.close()
            self._readers.clear()
        self._reader.close()

    # -- reading --------------------------------------------------------------------------------

    def rooms(self, statuses: Sequence[str] | None = None) -> list[RoomRow]:
        """Stored rooms, oldest first, optionally only those with the given statuses."""
        sql = f"SELECT {_ROOM_SELECT} FROM rooms"
        params: tuple[Any, ...] = ()
        if statuses:
            sql += f" WHERE status IN ({', '.join('?' for _ in statuses)})"
            params = tuple(statuses)
        rows = self._db.execute(sql + " ORDER BY created", params).fetchall()
        return [room_row(row) for row in rows]

    def finished(self, limit: int, game: str | None = None, offset: int = 0) -> list[RoomRow]:
        """The most recently finished public games, newest first (optionally of one game),
        from position ``offset`` of that order."""
        sql, params = _finished_query(game)
        rows = self._db.execute(
            f"SELECT {_ROOM_SELECT} {sql} ORDER BY finished DESC, id LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [room_row(row) for row in rows.fetchall()]

    def count_finished(self, game: str | None = None) -> int:
        """How many finished public games :meth:`finished` can list."""
        sql, params = _finished_query(game)
        return int(self._db.execute(f"SELECT COUNT(*) {sql}", params).fetchone()[0])

    def room(self, room: str) -> RoomRow | None:
        """One stored room, or ``None``."""
        row = self._db.execute(f"SELECT {_ROOM_SELECT} FROM rooms WHERE id = ?", (room,)).fetchone()
        return None if row is None else room_row(row)

    def records(self, room: str, after: int = -1) -> Iterator[Record]:
        """A room's log records with ``seq`` greater than ``after``, in order."""
        cursor = self._db.execute(
            "SELECT records FROM runs WHERE room = ? AND last > ? ORDER BY seq", (room, after)
        )
        for (run,) in cursor:
            yield from unpack_run(run, after)

    def identity(self, token_hash: str) -> str | None:
        """The name behind a token hash, or ``None`` for an unknown token."""
        row = self._db.execute(
            "SELECT name FROM identities WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return None if row is None else str(row[0])

    def high_scores(
        self, player: str | None = None, limit: int = 10, player_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Best Flash 8 solo scores (lowest first), for one player (by name, or by user id:
        an account's) or everyone."""
        sql, params = pr.high_scores_query(player, player_id, limit)
        rows = self._db.execute(sql, params)
        return [dict(zip(pr.HIGH_SCORE_KEYS, row, strict=True)) for row in rows]

    def bans(self) -> list[Ban]:
        """Every ban, oldest first."""
        rows = self._db.execute("SELECT kind, value, reason, at FROM bans ORDER BY at, kind, value")
        return [Ban(*row) for row in rows]


def ban_kind(kind: str) -> str:
    """``kind`` when it is one of :data:`BAN_KINDS`, else ``ValueError``."""
    if kind not in BAN_KINDS:
        raise ValueError(f"a ban's kind is one of {BAN_KINDS}, not {kind!r}")
    return kind


def _finished_query(game: str | None) -> tuple[str, tuple[Any, ...]]:
    sql = "FROM rooms WHERE status = 'finished' AND private = 0"
    return (sql + " AND game = ?", (game,)) if game is not None else (sql, ())


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


#: Rated games' rooms: retention keeps them, so every rating can be recomputed from the logs.
_RATED_ROOMS = "SELECT room FROM results WHERE rated"
#: The statuses of a room that has ended: retention forgets them once old, but rated games.
ENDED = ("finished", "expired", "abandoned", "aborted", "failed")
#: Rooms one pass of retention forgets at most (each sweep goes on where the last stopped), so
#: however many are due, a sweep's delete is a bounded piece of work on the event loop (a
#: hundred rooms with their logs: about 20 ms of SQLite; 12,000 rooms an hour at a sweep every
#: 30 s).
RETENTION_BATCH = 100
#: Version 8 of both stores: a room's ``kept`` (a rated game, kept for good), set for those
#: with a rated result, and an index of the rooms retention may forget, by status and end.
KEEPING = f"""
ALTER TABLE rooms ADD COLUMN kept BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE rooms SET kept = TRUE WHERE id IN ({_RATED_ROOMS});
CREATE INDEX rooms_retention ON rooms (status, finished) WHERE NOT kept
"""
#: The rooms retention forgets (parameters: the cutoff, twice): ended, not kept, ended before
#: the cutoff (a room that never finished counts from when it was made), the first
#: :data:`RETENTION_BATCH` by id. The ``rooms_retention`` index holds only rooms not kept.
RETAINED_UNTIL = (
    f"SELECT id FROM rooms WHERE NOT kept AND status IN {ENDED!r}"
    " AND (finished < ? OR (finished IS NULL AND created < ?))"
    f" ORDER BY id LIMIT {RETENTION_BATCH}"
)
#: A rated game's room is kept for good.
KEEP_ROOM = "UPDATE rooms SET kept = TRUE WHERE id = ?"
_SQLITE_FALSE = "INTEGER NOT NULL DEFAULT 0"

#: A room row's columns, in the order every store writes and reads them.
ROOM_COLUMNS = (
    "id", "game", "options", "seats", "seed", "salt", "commitment", "private", "code", "host",
    "status", "created", "started", "finished", "meta",
)  # fmt: skip

#: The columns of a room :meth:`Store.update_room` may change; the JSON ones are kept as text.
_UPDATABLE = {"seats", "status", "started", "finished", "meta", "options", "host"}
_ROOM_SELECT = ", ".join(ROOM_COLUMNS)
_JSON = {"options", "seats", "meta"}


def room_values(row: RoomRow) -> tuple[Any, ...]:
    """A room's column values, in :data:`ROOM_COLUMNS` order (JSON as text)."""
    return tuple(
        json.dumps(getattr(row, name)) if name in _JSON else getattr(row, name)
        for name in ROOM_COLUMNS
    )


def update_values(fields: dict[str, Any]) -> tuple[list[str], list[Any]]:
    """The columns an update changes, sorted, and their values (JSON as text);
    ``ValueError`` for none or for a column no update may change."""
    names = sorted(fields)
    if not names or set(names) - _UPDATABLE:
        raise ValueError(f"cannot update {names}")
    return names, [json.dumps(fields[n]) if n in _JSON else fields[n] for n in names]


def room_row(row: Sequence[Any]) -> RoomRow:
    """A room read back from its columns, in :data:`ROOM_COLUMNS` order (JSON as text)."""
    (
        room_id,
        game,
        options,
        seats,
        seed,
        salt,
        commitment,
        private,
        code,
        host,
        status,
        created,
        started,
        finished,
        meta,
    ) = row
    return RoomRow(
        id=room_id,
        game=game,
        options=json.loads(options),
        seats=json.loads(seats),
        seed=bytes(seed),
        salt=bytes(salt),
        commitment=commitment,
        private=bool(private),
        code=code,
        host=host,
        status=status,
        created=created,
        started=started,
        finished=finished,
        meta=json.loads(meta),
    )


def _runs_from_records(connection: sqlite3.Connection) -> None:
    """Move the rows of a store written before runs (one row per record, in ``records``)
    into runs of one record each, and drop the old table."""
    old = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'"
    ).fetchone()
    if old is None:
        return
    rows = connection.execute(
        "SELECT room, seq, position, seat, command, at, events FROM records"
    ).fetchall()
    connection.executemany(
        "INSERT INTO runs (room, seq, last, records) VALUES (?, ?, ?, ?)",
        (
            (
                room,
                seq,
                seq,
                pack_run(
                    [
                        Record(
                            seq=seq,
                            position=position,
                            seat=seat,
                            command=None if command is None else _unpack(command),
                            at=at,
                            events=tuple(_unpack(events)),
                        )
                    ]
                ),
            )
            for room, seq, position, seat, command, at, events in rows
        ),
    )
    connection.execute("DROP TABLE records")


def _version_1(connection: sqlite3.Connection) -> None:
    """Version 0 to 1: the tables of version 1 (created where absent: a new file gets them
    all), and a version 0 log kept one row per record moved into runs."""
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            connection.execute(statement)
    _runs_from_records(connection)


def _version_2(connection: sqlite3.Connection) -> None:
    """Version 1 to 2: ``bans``, one row per banned identity or address."""
    connection.execute(
        "CREATE TABLE bans (kind TEXT NOT NULL, value TEXT NOT NULL, reason TEXT NOT NULL,"
        " at REAL NOT NULL, PRIMARY KEY (kind, value)) WITHOUT ROWID"
    )


def _version_3(connection: sqlite3.Connection) -> None:
    """Version 2 to 3: an identity's ``last_seen`` (its last hello; the time it was created
    for those already kept) and ``claimed`` (an account's: never expires; none is yet)."""
    connection.execute("ALTER TABLE identities ADD COLUMN last_seen REAL NOT NULL DEFAULT 0")
    connection.execute("UPDATE identities SET last_seen = created")
    connection.execute("ALTER TABLE identities ADD COLUMN claimed INTEGER NOT NULL DEFAULT 0")
    connection.execute("CREATE INDEX identities_unseen ON identities (last_seen) WHERE claimed = 0")


def _version_4(connection: sqlite3.Connection) -> None:
    """Version 3 to 4: accounts, sessions, ratings and results (:data:`server.playerrows.SCHEMA`),
    and a Flash 8 solo high score's ``player_id`` (none for those kept before)."""
    for statement in pr.schema(postgres=False):
        connection.execute(statement)


def _version_5(connection: sqlite3.Connection) -> None:
    """Version 4 to 5: a session's ``expires`` and the server's ``secrets``
    (:data:`server.playerrows.SESSION_ENDS`); identity-token sessions kept before go."""
    for statement in pr.schema(postgres=False, text=pr.SESSION_ENDS):
        connection.execute(statement)


def _version_6(connection: sqlite3.Connection) -> None:
    """Version 5 to 6: claimed names fold by their confusable skeletons (:mod:`server.names`):
    every account's key is its name's fold, and a later claim of a name that now folds like
    an earlier one is renamed (``renamed_from``: the name it had, until its owner is told)."""
    connection.execute(pr.ADD_RENAMED_FROM)
    claims = connection.execute(pr.CLAIMS).fetchall()
    for sql, rows in pr.refolded(claims):
        connection.executemany(sql, rows)


def _version_7(connection: sqlite3.Connection) -> None:
    """Version 6 to 7: the indexes that bound players' reads over HTTP
    (:data:`server.playerrows.BOUNDED_READS`)."""
    for statement in pr.schema(postgres=False, text=pr.BOUNDED_READS):
        connection.execute(statement)


def _version_8(connection: sqlite3.Connection) -> None:
    """Version 7 to 8: a room's ``kept`` (a rated game's: retention never forgets it), set
    for the rooms with a rated result, and the index retention's sweep reads
    (:data:`KEEPING`)."""
    for statement in KEEPING.split(";"):
        if statement.strip():
            connection.execute(statement.replace("BOOLEAN NOT NULL DEFAULT FALSE", _SQLITE_FALSE))


#: The step from each version to the next: ``_MIGRATIONS[v]`` turns version ``v`` into
#: ``v + 1``, inside the transaction :meth:`EventStore._upgrade` opens.
_MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _version_1,
    _version_2,
    _version_3,
    _version_4,
    _version_5,
    _version_6,
    _version_7,
    _version_8,
]


def run_bounds(records: Sequence[Record]) -> tuple[int, int]:
    """The first and last ``seq`` of a run to append (``ValueError`` unless it is one record or
    more, consecutive)."""
    if not records:
        raise ValueError("append needs at least one record")
    first, last = records[0].seq, records[-1].seq
    if last - first != len(records) - 1:
        raise ValueError(f"records to append are not consecutive: {first}..{last}")
    return first, last


def _refusal(connection: sqlite3.Connection, params: Any) -> AppendRefused:
    """Why the run of an append's ``params`` was not written: its seq is taken or past a gap."""
    room, first = params[0], params[1]
    row = connection.execute(
        "SELECT last FROM runs WHERE room = ? ORDER BY seq DESC LIMIT 1", (room,)
    ).fetchone()
    return AppendRefused(refusal_text(room, first, 0 if row is None else int(row[0])))


def refusal_text(room: str, first: int, last: int) -> str:
    """Why a run from ``first`` does not follow a log at ``last``: a taken seq or a gap."""
    if first <= last:
        return f"room {room}: seq {first} is in the log already ((room, seq) is UNIQUE)"
    return f"room {room}: a run from seq {first} would leave a gap after seq {last}"
