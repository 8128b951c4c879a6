"""The PostgreSQL store: the store contract (:class:`server.store.Store`) on PostgreSQL, through
asyncpg, for a Lumin cluster whose nodes share one authority.

It keeps what the SQLite store keeps, in the same shapes: room rows (JSON as text, so a row
reads back exactly as written), each room's log as *runs* (the records appended together, one
msgpack blob keyed by room and first ``seq``), identities by token hash, Flash 8 solo high
scores and bans. Its schema version is a row of ``lumin_schema``; opening the store applies each
migration step past it inside one transaction, under an advisory lock so nodes starting
together migrate once.

Writes submitted during one turn of the event loop are committed in one transaction just after
it, one batch at a time (a later batch waits for the one in flight, so writes commit in the
order they were submitted); when a batch fails, each of its writes is retried in a transaction
of its own, so a failing write fails only its own future. An append inserts its run only when
it follows the room's log, in the same statement; ``(room, seq)`` is the primary key, so two
writers racing for the same ``seq`` can never fork a log: one of them is refused.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import asyncpg
import attrs
import structlog

from server import playerrows as pr
from server.playerrows import AccountRow, RatingRow, ResultRow, SessionRow
from server.store import (
    KEEP_ROOM,
    KEEPING,
    RETAINED_UNTIL,
    ROOM_COLUMNS,
    AppendRefused,
    Ban,
    Fenced,
    Record,
    RoomRow,
    SchemaTooNew,
    ban_kind,
    pack_run,
    refusal_text,
    room_row,
    room_values,
    run_bounds,
    unpack_run,
    update_values,
)

__all__ = ["SCHEMA_VERSION", "Lease", "PostgresStore", "apply_step"]

log = structlog.get_logger("lumin.store")

#: The newest schema version this code writes (``lumin_schema.version``).
SCHEMA_VERSION = 9

_VERSION_1 = """
CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    seed BYTEA NOT NULL,
    salt BYTEA NOT NULL,
    commitment TEXT NOT NULL,
    private BOOLEAN NOT NULL DEFAULT FALSE,
    code TEXT,
    host TEXT,
    status TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    started DOUBLE PRECISION,
    finished DOUBLE PRECISION,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE runs (
    room TEXT NOT NULL,
    seq INTEGER NOT NULL,
    last INTEGER NOT NULL,
    records BYTEA NOT NULL,
    PRIMARY KEY (room, seq)
);
CREATE TABLE identities (
    token_hash TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL
);
CREATE TABLE high_scores (
    player TEXT NOT NULL,
    score INTEGER NOT NULL,
    rank TEXT NOT NULL,
    room TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX rooms_status ON rooms (status);
CREATE INDEX rooms_finished ON rooms (status, private, finished);
CREATE INDEX high_scores_player ON high_scores (player, score);
"""

#: Version 2: room ownership. One row per room owned by a node of a cluster: the owner, its
#: epoch (rising with every change of owner: the fencing token an append must carry) and when
#: the lease lapses unless renewed (the database's clock, the one clock every node shares).
_VERSION_2 = """
CREATE TABLE leases (
    room TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    epoch BIGINT NOT NULL,
    expires TIMESTAMPTZ NOT NULL
);
CREATE INDEX leases_expires ON leases (expires);
"""

#: Version 3: bans, one row per banned identity (its user id) or client address.
_VERSION_3 = """
CREATE TABLE bans (
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    reason TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (kind, value)
);
"""

#: Version 4: an identity's last use (its last hello; for those already kept, when it was
#: created) and whether it is claimed (an account's, which never expires).
_VERSION_4 = """
ALTER TABLE identities ADD COLUMN last_seen DOUBLE PRECISION;
UPDATE identities SET last_seen = created;
ALTER TABLE identities ALTER COLUMN last_seen SET NOT NULL;
ALTER TABLE identities ADD COLUMN claimed BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX identities_unseen ON identities (last_seen) WHERE NOT claimed;
"""

#: Version 5: accounts, sessions, ratings, results and a high score's player id
#: (:mod:`server.playerrows`).
_VERSION_5 = ";\n".join(pr.schema(postgres=True))

#: Version 6: a session's fixed end and the server's secrets (as SQLite's version 5).
_VERSION_6 = ";\n".join(pr.schema(postgres=True, text=pr.SESSION_ENDS))


async def _version_7(connection: asyncpg.Connection) -> None:
    """Version 7: claimed names fold by their confusable skeletons (as SQLite's version 6):
    every account's key is its name's fold, a later claim of a look-alike is renamed."""
    await connection.execute(pr.ADD_RENAMED_FROM)
    claims = [tuple(claim) for claim in await connection.fetch(pr.CLAIMS)]
    for sql, rows in pr.refolded(claims):  # type: ignore[arg-type]
        if rows:
            await connection.executemany(pr.numbered(sql), rows)


#: Version 8: the indexes that bound players' reads over HTTP (as SQLite's version 7;
#: :data:`server.playerrows.BOUNDED_READS`).
_VERSION_8 = ";\n".join(pr.schema(postgres=True, text=pr.BOUNDED_READS))

#: Version 9: a room's ``kept`` and retention's index (as SQLite's version 8;
#: :data:`server.store.KEEPING`).
_VERSION_9 = KEEPING

#: A migration step: DDL, or work on the migrating connection (inside its transaction).
Step = str | Callable[[asyncpg.Connection], Awaitable[None]]

#: Each step: ``_MIGRATIONS[v]`` turns version ``v`` into ``v + 1``.
_MIGRATIONS: list[Step] = [
    _VERSION_1,
    _VERSION_2,
    _VERSION_3,
    _VERSION_4,
    _VERSION_5,
    _VERSION_6,
    _version_7,
    _VERSION_8,
    _VERSION_9,
]


async def apply_step(connection: asyncpg.Connection, step: Step) -> None:
    """Run one migration step on ``connection``."""
    if isinstance(step, str):
        await connection.execute(step)
    else:
        await step(connection)


#: The advisory lock key nodes take while they migrate (any constant shared by every node).
_MIGRATION_LOCK = 0x4C554D494E  # "LUMIN"

_COLUMNS = ", ".join(ROOM_COLUMNS)
_INSERT_ROOM = (
    f"INSERT INTO rooms ({_COLUMNS})"
    f" VALUES ({', '.join(f'${n}' for n in range(1, len(ROOM_COLUMNS) + 1))})"
)

_APPEND = (
    "INSERT INTO runs (room, seq, last, records) SELECT $1, $2, $3, $4"
    " WHERE COALESCE((SELECT last FROM runs WHERE room = $1 ORDER BY seq DESC LIMIT 1), 0)"
    " = $2 - 1"
)

#: The same append, only while the room's lease still has the appender's epoch ($5).
#: ``FOR SHARE`` makes a claim of the room (which updates the lease row) wait until this append
#: has committed or rolled back, so an append checked against the old epoch cannot commit after
#: the new owner has claimed the room and read its log.
_FENCED_APPEND = (
    _APPEND + " AND EXISTS (SELECT 1 FROM leases WHERE room = $1 AND epoch = $5 FOR SHARE)"
)

#: Several rooms' appends (one run each) in one statement: each inserted only when it follows
#: its room's log and, with an epoch, while the room's lease is at it; a run another writer
#: inserted first is skipped (not an error), and the rooms written are returned.
_APPEND_MANY = (
    "INSERT INTO runs (room, seq, last, records)"
    " SELECT b.room, b.seq, b.last, b.records"
    " FROM unnest($1::text[], $2::int[], $3::int[], $4::bytea[], $5::bigint[])"
    " AS b(room, seq, last, records, epoch)"
    " WHERE COALESCE((SELECT r.last FROM runs r WHERE r.room = b.room"
    " ORDER BY r.seq DESC LIMIT 1), 0) = b.seq - 1"
    " AND (b.epoch IS NULL OR EXISTS"
    " (SELECT 1 FROM leases l WHERE l.room = b.room AND l.epoch = b.epoch FOR SHARE))"
    " ON CONFLICT DO NOTHING RETURNING room"
)

_CLAIM = (
    "INSERT INTO leases (room, node, epoch, expires)"
    " VALUES ($1, $2, 1, now() + make_interval(secs => $3))"
    " ON CONFLICT (room) DO UPDATE SET node = EXCLUDED.node, epoch = leases.epoch + 1,"
    " expires = EXCLUDED.expires"
    " WHERE leases.expires <= now() OR leases.node = EXCLUDED.node"
    " RETURNING epoch"
)

#: The rooms retention forgets (:data:`server.store.RETAINED_UNTIL`), the cutoff as $1.
_ENDED = RETAINED_UNTIL.replace("?", "$1")

#: One write: run on the batch's connection, inside its transaction.
_Write = Callable[[asyncpg.Connection], Awaitable[None]]


@attrs.frozen
class _Append:
    """An append waiting in a batch: a write of its own, or one row of the batch's
    :data:`_APPEND_MANY`."""

    room: str
    first: int
    last: int
    blob: bytes
    epoch: int | None

    async def __call__(self, connection: asyncpg.Connection) -> None:
        if self.epoch is None:
            done = await connection.execute(_APPEND, self.room, self.first, self.last, self.blob)
        else:
            done = await connection.execute(
                _FENCED_APPEND, self.room, self.first, self.last, self.blob, self.epoch
            )
        if done != "INSERT 0 1":
            raise await self.refusal(connection)

    async def refusal(self, connection: asyncpg.Connection) -> AppendRefused:
        """Why this run was not written: a lease at another epoch (:class:`Fenced`), or a log
        it does not follow."""
        if self.epoch is not None:
            held = await connection.fetchval("SELECT epoch FROM leases WHERE room = $1", self.room)
            if held is None:
                return Fenced(
                    f"room {self.room} has no lease; nobody may append at epoch {self.epoch}"
                )
            if held != self.epoch:
                return Fenced(
                    f"room {self.room}: the lease is at epoch {held}, not {self.epoch};"
                    " another node owns the room"
                )
        last = await _last_seq(connection, self.room)
        return AppendRefused(refusal_text(self.room, self.first, last))


@attrs.frozen
class Lease:
    """Who owns a room: ``node``, at ``epoch``, until ``expires`` (seconds since the epoch, by
    the database's clock) unless renewed."""

    room: str
    node: str
    epoch: int
    expires: float
    #: Seconds since it lapsed, when listed by :meth:`PostgresStore.lapsed` (else 0).
    lapsed_for: float = 0.0
    #: Seconds until it lapses (negative: since it lapsed), when read by
    #: :meth:`PostgresStore.leases` (else 0).
    expires_in: float = 0.0

    @property
    def live(self) -> bool:
        """Whether the lease had not lapsed when read by :meth:`PostgresStore.leases`."""
        return self.expires_in > 0


class PostgresStore:
    """See the module docstring. ``url`` is a ``postgresql://`` URL; :meth:`open` connects."""

    def __init__(self, url: str, pool_size: int = 4) -> None:
        self.url = url
        self.pool_size = pool_size
        self.schema_version = 0
        self.batches = 0
        self.appended = 0
        self.commit_seconds = 0.0
        #: Told each batch's commit time, in seconds (``lumin_store_commit_seconds``).
        self.observe_commit: Callable[[float], None] | None = None
        self._pool: asyncpg.Pool | None = None
        self._pending: list[tuple[_Write, asyncio.Future[None]]] = []
        self._flushing: asyncio.Task[None] | None = None

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("the PostgreSQL store is not open (await store.open() first)")
        return self._pool

    async def open(self) -> None:
        """Connect and bring the schema to :data:`SCHEMA_VERSION`."""
        # No statement waits for a lock longer than 5 s (a claim's, 2 s): a write stuck behind
        # another fails with why instead of holding its room, or the server's stop, for ever.
        self._pool = await asyncpg.create_pool(
            self.url,
            min_size=1,
            max_size=self.pool_size,
            command_timeout=30,
            server_settings={"lock_timeout": "5s"},
            reset=_keep_session,
        )
        async with self.pool.acquire() as connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
            await connection.execute("CREATE TABLE IF NOT EXISTS lumin_schema (version INTEGER)")
            version = await connection.fetchval("SELECT version FROM lumin_schema") or 0
            if version > SCHEMA_VERSION:
                raise SchemaTooNew(
                    f"the PostgreSQL store has schema version {version}; this Lumin knows up"
                    f" to {SCHEMA_VERSION} (upgrade Lumin to open it)"
                )
            for step in _MIGRATIONS[version:]:
                await apply_step(connection, step)
            await connection.execute("DELETE FROM lumin_schema")
            await connection.execute("INSERT INTO lumin_schema VALUES ($1)", SCHEMA_VERSION)
        self.schema_version = SCHEMA_VERSION

    async def flush(self) -> None:
        """Wait until everything queued so far is committed (or failed)."""
        while self._pending or self._flushing is not None:
            if self._flushing is None:
                self._start_flush()
            assert self._flushing is not None
            await asyncio.shield(self._flushing)

    async def aclose(self) -> None:
        """Commit whatever is queued, then close the connections."""
        await self.flush()
        if self._pool is not None:
            try:
                await asyncio.wait_for(self._pool.close(), timeout=10)
            except TimeoutError:  # a connection still out after 10 s: closed without waiting
                self._pool.terminate()
            self._pool = None

    async def tidy(self) -> None:
        """Nothing: PostgreSQL's autovacuum and checkpoints look after themselves."""

    # -- writing --------------------------------------------------------------------------------

    def _submit(self, write: _Write) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._pending.append((write, future))
        if len(self._pending) == 1 and self._flushing is None:
            loop.call_soon(self._start_flush)
        return future

    def _start_flush(self) -> None:
        if self._flushing is None and self._pending:
            self._flushing = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        """Commit batches until nothing is queued: everything queued so far in one transaction
        (or, when it is one statement, in that statement's own), and when that fails each write
        in its own."""
        batch: list[tuple[_Write, asyncio.Future[None]]] = []
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                started = asyncio.get_running_loop().time()
                errors: list[BaseException | None] = [None] * len(batch)
                async with self.pool.acquire() as connection:
                    try:
                        if _one_statement(batch):  # atomic alone: no BEGIN and COMMIT trips
                            await self._together(connection, batch, errors)
                        else:
                            async with connection.transaction():
                                await self._together(connection, batch, errors)
                    except Exception:
                        # Each write again in a transaction of its own: a bad one fails alone
                        # (on a connection that died, every one fails with why).
                        errors = [None] * len(batch)
                        for index, (write, _) in enumerate(batch):
                            try:
                                async with connection.transaction():
                                    await write(connection)
                            except Exception as failure:
                                errors[index] = _named(failure)
                elapsed = asyncio.get_running_loop().time() - started
                self.commit_seconds += elapsed
                if self.observe_commit is not None:
                    self.observe_commit(elapsed)
                self.batches += 1
                self.appended += len(batch)
                for (_, future), error in zip(batch, errors, strict=True):
                    if future.done():
                        continue
                    if error is None:
                        future.set_result(None)
                    else:
                        future.set_exception(error)
        except BaseException as failure:  # no connection at all: fail everything that waits
            error = failure if isinstance(failure, Exception) else ConnectionError(str(failure))
            for _, future in [*batch, *self._pending]:
                if not future.done():
                    future.set_exception(error)
            self._pending = []
            if not isinstance(failure, Exception):
                raise
            log.error("store_batch_failed", error=repr(failure))
        finally:
            self._flushing = None

    @staticmethod
    async def _together(
        connection: asyncpg.Connection,
        batch: list[tuple[_Write, asyncio.Future[None]]],
        errors: list[BaseException | None],
    ) -> None:
        """A batch in the open transaction: every write but the appends in order, then the
        appends of different rooms as one statement (a refused one gets its reason in
        ``errors``; the others commit). A batch with two appends for one room runs them one
        by one, in order."""
        appends = [(n, write) for n, (write, _) in enumerate(batch) if isinstance(write, _Append)]
        rooms = [write.room for _, write in appends]
        together = len(appends) > 1 and len(set(rooms)) == len(rooms)
        for write, _ in batch:
            if not (together and isinstance(write, _Append)):
                await write(connection)
        if not together:
            return
        runs = [write for _, write in appends]
        written = {
            row["room"]
            for row in await connection.fetch(
                _APPEND_MANY,
                rooms,
                [run.first for run in runs],
                [run.last for run in runs],
                [run.blob for run in runs],
                [run.epoch for run in runs],
            )
        }
        for n, run in appends:
            if run.room not in written:
                try:
                    errors[n] = await run.refusal(connection)
                except Exception as failure:  # the others are committed: this one alone fails
                    errors[n] = AppendRefused(
                        f"room {run.room}: the run was not appended ({_named(failure)!r})"
                    )

    def append(self, room: str, *records: Record, epoch: int | None = None) -> asyncio.Future[None]:
        """Queue ``records`` as one run; the future resolves once they are committed, all or
        none. The run must follow the room's log (:class:`~server.store.AppendRefused`); with
        ``epoch`` (a cluster node's lease), the room's lease must still be at that epoch, in the
        same statement (:class:`Fenced` otherwise): a node that lost its lease can never
        append."""
        first, last = run_bounds(records)
        return self._submit(_Append(room, first, last, pack_run(records), epoch))

    # -- leases ---------------------------------------------------------------------------------

    async def claim(self, room: str, node: str, ttl: float) -> int | None:
        """Take ``room`` for ``node`` for ``ttl`` seconds when nobody holds it (no lease, or a
        lapsed one; or ``node``'s own): its new epoch, one above the last, or ``None`` when
        another node's lease is live. One statement, so two nodes claiming at once cannot
        both win."""
        async with self.pool.acquire() as connection, connection.transaction():
            # An append in flight holds the lease row (FOR SHARE): wait for it, not for ever.
            await connection.execute("SET LOCAL lock_timeout = '2s'")
            epoch = await connection.fetchval(_CLAIM, room, node, ttl)
        return None if epoch is None else int(epoch)

    async def renew(self, room: str, node: str, epoch: int, ttl: float) -> bool:
        """Extend ``node``'s lease of ``room`` at ``epoch`` to ``ttl`` seconds from now;
        ``False`` when the room's lease is no longer that (another node claimed it)."""
        done = await self.pool.execute(
            "UPDATE leases SET expires = now() + make_interval(secs => $4)"
            " WHERE room = $1 AND node = $2 AND epoch = $3",
            room,
            node,
            epoch,
            ttl,
        )
        return bool(done == "UPDATE 1")

    def create_lease(self, room: str, node: str, ttl: float) -> asyncio.Future[None]:
        """Queue the first lease of a new room (epoch 1) for ``node``, committed in order with
        the room's row and its appends, so its first append already finds it."""
        return self._execute(
            "INSERT INTO leases (room, node, epoch, expires)"
            " VALUES ($1, $2, 1, now() + make_interval(secs => $3))",
            room,
            node,
            ttl,
        )

    async def renew_all(self, node: str, epochs: dict[str, int], ttl: float) -> set[str]:
        """:meth:`renew` for every room of ``epochs`` (room -> epoch) in one statement: the
        rooms whose lease ``node`` still holds, now ``ttl`` seconds from lapsing."""
        rows = await self.pool.fetch(
            "UPDATE leases SET expires = now() + make_interval(secs => $4)"
            " FROM unnest($2::text[], $3::bigint[]) AS held(room, epoch)"
            " WHERE leases.room = held.room AND leases.epoch = held.epoch AND leases.node = $1"
            " RETURNING leases.room",
            node,
            list(epochs),
            list(epochs.values()),
            ttl,
        )
        return {row["room"] for row in rows}

    async def release(self, room: str, node: str, epoch: int) -> bool:
        """Let ``room`` go at once (a drain, or a node that was fenced): the lease lapses now,
        keeping its epoch, so the next claim gets the one above. ``False`` if not held."""
        done = await self.pool.execute(
            "UPDATE leases SET expires = now() WHERE room = $1 AND node = $2 AND epoch = $3",
            room,
            node,
            epoch,
        )
        return bool(done == "UPDATE 1")

    async def lease(self, room: str) -> Lease | None:
        """The room's lease (live or lapsed), or ``None`` if it never had one."""
        row = await self.pool.fetchrow(
            "SELECT room, node, epoch, extract(epoch FROM expires) AS expires FROM leases"
            " WHERE room = $1",
            room,
        )
        return None if row is None else _lease(row)

    async def leases(self, rooms: Sequence[str]) -> dict[str, Lease]:
        """The leases of ``rooms`` (live or lapsed) by room, each with the seconds until it
        lapses by the database's clock (:attr:`Lease.expires_in`); rooms that never had one
        are left out. One query, however many rooms."""
        rows = await self.pool.fetch(
            "SELECT room, node, epoch, extract(epoch FROM expires) AS expires,"
            " extract(epoch FROM expires - now()) AS expires_in FROM leases"
            " WHERE room = ANY($1::text[])",
            list(rooms),
        )
        return {row["room"]: _lease(row) for row in rows}

    async def owner(self, room: str) -> str | None:
        """The node whose lease on ``room`` is live (by the database's clock), or ``None``
        when nobody holds it (no lease, or a lapsed one)."""
        node: str | None = await self.pool.fetchval(
            "SELECT node FROM leases WHERE room = $1 AND expires > now()", room
        )
        return node

    async def lapsed(self, limit: int = 100) -> list[Lease]:
        """Leases of waiting or playing rooms that have lapsed (their node died, paused or let
        them go), oldest first: the rooms a surviving node may claim."""
        rows = await self.pool.fetch(
            "SELECT l.room, l.node, l.epoch, extract(epoch FROM l.expires) AS expires,"
            " extract(epoch FROM now() - l.expires) AS lapsed_for"
            " FROM leases l JOIN rooms r ON r.id = l.room"
            " WHERE l.expires <= now() AND r.status IN ('waiting', 'playing')"
            " ORDER BY l.expires LIMIT $1",
            limit,
        )
        return [_lease(row) for row in rows]

    def probe(self) -> asyncio.Future[None]:
        """Take a transaction id (refused on a read-only or recovering server): a write that
        changes nothing."""

        async def write(connection: asyncpg.Connection) -> None:
            await connection.fetchval("SELECT txid_current()")

        return self._submit(write)

    def create_room(self, row: RoomRow) -> asyncio.Future[None]:
        """Store a new room."""
        return self._execute(_INSERT_ROOM, *room_values(row))

    def update_room(
        self, room: str, epoch: int | None = None, **fields: Any
    ) -> asyncio.Future[None]:
        """Change some of a room's columns (``status``, ``seats``, ``started``...); with
        ``epoch``, only while the room's lease is at it (a node that lost the room changes
        nothing; the lease row is held ``FOR SHARE`` as an append holds it)."""
        names, values = update_values(fields)
        assignments = ", ".join(f"{name} = ${n}" for n, name in enumerate(names, start=1))
        sql = f"UPDATE rooms SET {assignments} WHERE id = ${len(names) + 1}"
        if epoch is None:
            return self._execute(sql, *values, room)
        fenced = sql + (
            f" AND EXISTS (SELECT 1 FROM leases WHERE room = ${len(names) + 1}"
            f" AND epoch = ${len(names) + 2} FOR SHARE)"
        )

        async def write(connection: asyncpg.Connection) -> None:
            if await connection.execute(fenced, *values, room, epoch) == "UPDATE 0":
                refusal = await _fencing(connection, room, epoch)
                if refusal is not None:
                    raise refusal

        return self._submit(write)

    def fence(self, room: str, epoch: int | None) -> asyncio.Future[None]:
        """Queue a check that ``room``'s lease is still at ``epoch`` (a request that changes
        nothing stored, such as a chat line, answered only by the room's owner); the future
        fails with :class:`Fenced` when it is not. Without ``epoch``, nothing to check."""
        if epoch is None:
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done

        async def write(connection: asyncpg.Connection) -> None:
            refusal = await _fencing(connection, room, epoch)
            if refusal is not None:
                raise refusal

        return self._submit(write)

    def delete_ended_before(self, cutoff: float) -> asyncio.Future[None]:
        """Forget at most :data:`server.store.RETENTION_BATCH` of the rooms retention forgets
        (:data:`server.store.RETAINED_UNTIL`), and their leases, logs and results."""

        async def write(connection: asyncpg.Connection) -> None:
            await connection.execute(f"DELETE FROM leases WHERE room IN ({_ENDED})", cutoff)
            await connection.execute(f"DELETE FROM results WHERE room IN ({_ENDED})", cutoff)
            await connection.execute(f"DELETE FROM runs WHERE room IN ({_ENDED})", cutoff)
            await connection.execute(f"DELETE FROM rooms WHERE id IN ({_ENDED})", cutoff)

        return self._submit(write)

    def save_identity(self, token_hash: str, name: str, created: float) -> asyncio.Future[None]:
        """Remember a guest identity by the hash of its secret token, last seen when created."""
        return self._execute(
            "INSERT INTO identities (token_hash, name, created, last_seen) VALUES ($1, $2, $3, $3)"
            " ON CONFLICT (token_hash) DO UPDATE SET name = $2, created = $3, last_seen = $3",
            token_hash,
            name,
            created,
        )

    def touch_identity(self, token_hash: str, at: float) -> asyncio.Future[None]:
        """Note that the identity was used at ``at``; nothing for an unknown token hash."""
        return self._execute(
            "UPDATE identities SET last_seen = $2 WHERE token_hash = $1", token_hash, at
        )

    def delete_guests_unseen_before(self, cutoff: float) -> asyncio.Future[None]:
        """Forget every unclaimed identity last seen before ``cutoff``."""
        return self._execute("DELETE FROM identities WHERE NOT claimed AND last_seen < $1", cutoff)

    def add_high_score(
        self, player: str, score: int, rank: str, room: str, at: float, player_id: str | None = None
    ) -> asyncio.Future[None]:
        """Keep a Flash 8 solo result (fewer cards left is better) of ``player`` (a name),
        whose identity's user id is ``player_id``."""
        return self._execute(
            "INSERT INTO high_scores (player, score, rank, room, at, player_id)"
            " VALUES ($1, $2, $3, $4, $5, $6)",
            player,
            score,
            rank,
            room,
            at,
            player_id,
        )

    # -- players: accounts, sessions, ratings, results (:mod:`server.playerrows`) ---------------

    def save_account(self, account: AccountRow) -> asyncio.Future[None]:
        """Keep a claimed name and mark its identity claimed and named so, together; the
        future fails (``asyncpg.UniqueViolationError``) when the name, folded, is taken or the
        identity holds an account already."""

        async def write(connection: asyncpg.Connection) -> None:
            async with connection.transaction():
                await connection.execute(
                    pr.numbered(pr.INSERT_ACCOUNT),
                    account.key,
                    account.name,
                    account.identity,
                    account.password,
                    account.created,
                )
                await connection.execute(
                    pr.numbered(pr.MARK_CLAIMED), account.name, account.identity, account.identity
                )

        return self._submit(write)

    def claim_identity(self, token_hash: str, name: str, at: float) -> asyncio.Future[None]:
        """Keep an identity an outside provider vouches for: claimed (never forgotten)."""
        return self._execute(
            "INSERT INTO identities (token_hash, name, created, last_seen, claimed)"
            " VALUES ($1, $2, $3, $3, TRUE) ON CONFLICT (token_hash) DO UPDATE SET"
            " name = $2, last_seen = $3, claimed = TRUE",
            token_hash,
            name,
            at,
        )

    def save_session(self, session: SessionRow) -> asyncio.Future[None]:
        return self._execute(pr.numbered(pr.INSERT_SESSION), *attrs.astuple(session))

    def touch_session(self, token_hash: str, at: float) -> asyncio.Future[None]:
        return self._execute(
            "UPDATE sessions SET last_seen = $1 WHERE token_hash = $2", at, token_hash
        )

    def delete_sessions(
        self, identity: str, token_hashes: Sequence[str] | None = None
    ) -> asyncio.Future[None]:
        """Revoke the identity's sessions with those token hashes (every one: ``None``)."""
        if token_hashes is None:
            return self._execute("DELETE FROM sessions WHERE identity = $1", identity)
        return self._execute(
            "DELETE FROM sessions WHERE identity = $1 AND token_hash = ANY($2)",
            identity,
            list(token_hashes),
        )

    def clear_renamed(self, identity: str) -> asyncio.Future[None]:
        """See :meth:`server.store.Store.clear_renamed`."""
        return self._execute(pr.numbered(pr.CLEAR_RENAMED), identity)

    def delete_sessions_ended_before(self, cutoff: float, lifetime: float) -> asyncio.Future[None]:
        """See :meth:`server.store.Store.delete_sessions_ended_before`."""
        return self._execute(pr.numbered(pr.DELETE_ENDED_SESSIONS), cutoff, cutoff - lifetime)

    async def session_secret(self) -> bytes:
        """See :meth:`server.store.Store.session_secret` (nodes starting together agree: the
        first insert wins, every node reads it)."""
        await self.pool.execute(
            "INSERT INTO secrets (name, value) VALUES ('session', $1)"
            " ON CONFLICT (name) DO NOTHING",
            secrets.token_bytes(32),
        )
        return bytes(await self.pool.fetchval("SELECT value FROM secrets WHERE name = 'session'"))

    async def cluster_id(self) -> str:
        """The id of the cluster whose database this is (``c`` and 16 hex digits): made at the
        first start of any node on it and kept in ``secrets`` (nodes starting together agree:
        the first insert wins), so every node of the cluster, and a backup, has the same."""
        await self.pool.execute(
            "INSERT INTO secrets (name, value) VALUES ('cluster', $1)"
            " ON CONFLICT (name) DO NOTHING",
            ("c" + secrets.token_hex(8)).encode(),
        )
        value = await self.pool.fetchval("SELECT value FROM secrets WHERE name = 'cluster'")
        return bytes(value).decode()

    def _many(self, sql: str, rows: list[tuple[Any, ...]]) -> asyncio.Future[None]:
        async def write(connection: asyncpg.Connection) -> None:
            if rows:
                await connection.executemany(pr.numbered(sql), rows)

        return self._submit(write)

    def save_ratings(self, rows: Sequence[RatingRow]) -> asyncio.Future[None]:
        """Keep ratings (replacing each player's in that game and pool), all or none."""
        return self._many(pr.UPSERT_RATING, [attrs.astuple(row) for row in rows])

    def add_results(self, rows: Sequence[ResultRow]) -> asyncio.Future[None]:
        """Keep a finished game's results (a room's are kept once); a room with a rated one
        is kept for good (``kept``)."""
        for room in sorted({row.room for row in rows if row.rated}):
            self._execute(pr.numbered(KEEP_ROOM), room)
        return self._many(pr.INSERT_RESULT, [pr.result_values(row) for row in rows])

    def ban(self, kind: str, value: str, reason: str, at: float) -> asyncio.Future[None]:
        """Keep a ban of an identity or an address; banning again replaces reason and time."""
        return self._execute(
            "INSERT INTO bans (kind, value, reason, at) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (kind, value) DO UPDATE SET reason = $3, at = $4",
            ban_kind(kind),
            value,
            reason,
            at,
        )

    def unban(self, kind: str, value: str) -> asyncio.Future[None]:
        """Forget a ban (nothing when there is none)."""
        return self._execute(
            "DELETE FROM bans WHERE kind = $1 AND value = $2", ban_kind(kind), value
        )

    def _execute(self, sql: str, *values: Any) -> asyncio.Future[None]:
        async def write(connection: asyncpg.Connection) -> None:
            await connection.execute(sql, *values)

        return self._submit(write)

    # -- reading --------------------------------------------------------------------------------

    async def get_rooms(self, statuses: Sequence[str] | None = None) -> list[RoomRow]:
        """Stored rooms, oldest first, optionally only those with the given statuses."""
        if statuses:
            rows = await self.pool.fetch(
                f"SELECT {_COLUMNS} FROM rooms WHERE status = ANY($1) ORDER BY created",
                list(statuses),
            )
        else:
            rows = await self.pool.fetch(f"SELECT {_COLUMNS} FROM rooms ORDER BY created")
        return [room_row(row) for row in rows]

    async def get_finished(
        self, limit: int, game: str | None = None, offset: int = 0
    ) -> list[RoomRow]:
        """The most recently finished public games, newest first (optionally of one game),
        from position ``offset`` of that order."""
        where, params = _finished_where(game)
        n = len(params)
        rows = await self.pool.fetch(
            f"SELECT {_COLUMNS} FROM rooms WHERE {where}"
            f" ORDER BY finished DESC, id LIMIT ${n + 1} OFFSET ${n + 2}",
            *params,
            limit,
            offset,
        )
        return [room_row(row) for row in rows]

    async def get_finished_count(self, game: str | None = None) -> int:
        where, params = _finished_where(game)
        return int(await self.pool.fetchval(f"SELECT COUNT(*) FROM rooms WHERE {where}", *params))

    async def get_room(self, room: str) -> RoomRow | None:
        row = await self.pool.fetchrow(f"SELECT {_COLUMNS} FROM rooms WHERE id = $1", room)
        return None if row is None else room_row(row)

    async def get_records(self, room: str, after: int = -1) -> list[Record]:
        """A room's log records with ``seq`` greater than ``after``, in order."""
        runs = await self.pool.fetch(
            "SELECT records FROM runs WHERE room = $1 AND last > $2 ORDER BY seq", room, after
        )
        return [record for (run,) in runs for record in unpack_run(run, after)]

    async def get_identity(self, token_hash: str) -> str | None:
        name = await self.pool.fetchval(
            "SELECT name FROM identities WHERE token_hash = $1", token_hash
        )
        return None if name is None else str(name)

    async def get_high_scores(
        self, player: str | None = None, limit: int = 10, player_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Best Flash 8 solo scores (lowest first), for one player (by name, or by user id:
        an account's) or everyone."""
        sql, params = pr.high_scores_query(player, player_id, limit)
        return [dict(row) for row in await self.pool.fetch(pr.numbered(sql), *params)]

    async def get_account(self, key: str) -> AccountRow | None:
        row = await self.pool.fetchrow(
            f"{pr.ACCOUNT_SELECT} WHERE name_key = $1",
            key,
        )
        return None if row is None else AccountRow(*row.values())

    async def get_account_of(self, identity: str) -> AccountRow | None:
        row = await self.pool.fetchrow(
            f"{pr.ACCOUNT_SELECT} WHERE identity = $1",
            identity,
        )
        return None if row is None else AccountRow(*row.values())

    async def get_identity_claimed(self, token_hash: str) -> bool | None:
        claimed = await self.pool.fetchval(
            "SELECT claimed FROM identities WHERE token_hash = $1", token_hash
        )
        return None if claimed is None else bool(claimed)

    async def get_session(self, token_hash: str) -> SessionRow | None:
        row = await self.pool.fetchrow(
            f"SELECT {', '.join(pr.SESSION_COLUMNS)} FROM sessions WHERE token_hash = $1",
            token_hash,
        )
        return None if row is None else SessionRow(*row.values())

    async def get_sessions(self, identity: str) -> list[SessionRow]:
        rows = await self.pool.fetch(
            f"SELECT {', '.join(pr.SESSION_COLUMNS)} FROM sessions WHERE identity = $1"
            " ORDER BY created, token_hash",
            identity,
        )
        return [SessionRow(*row.values()) for row in rows]

    async def get_ratings(
        self, game: str | None = None, pool: str | None = None, player: str | None = None
    ) -> list[RatingRow]:
        sql, params = pr.ratings_query(game, pool, player)
        return [
            RatingRow(*row.values()) for row in await self.pool.fetch(pr.numbered(sql), *params)
        ]

    async def get_results(
        self, player: str | None = None, rated: bool | None = None, limit: int | None = None
    ) -> list[ResultRow]:
        sql, params = pr.results_query(player, rated, limit)
        return [pr.result_row(row) for row in await self.pool.fetch(pr.numbered(sql), *params)]

    async def get_leaderboard(
        self, game: str, pool: str, min_games: int, limit: int, after: pr.BoardKey | None = None
    ) -> list[RatingRow]:
        sql, params = pr.leaderboard_query(game, pool, min_games, limit, after)
        return [
            RatingRow(*row.values()) for row in await self.pool.fetch(pr.numbered(sql), *params)
        ]

    async def get_history(
        self, player: str, limit: int, after: pr.HistoryKey | None = None
    ) -> list[ResultRow]:
        sql, params = pr.history_query(player, limit, after)
        return [pr.result_row(row) for row in await self.pool.fetch(pr.numbered(sql), *params)]

    async def get_rated_rooms(
        self, limit: int, after: pr.RatedKey | None = None, everyone: bool = False
    ) -> list[tuple[str, float]]:
        sql, params = pr.rated_rooms_query(limit, after, everyone)
        rows = await self.pool.fetch(pr.numbered(sql), *params)
        return [(str(row["room"]), float(row["finished"])) for row in rows]

    async def get_bans(self) -> list[Ban]:
        """Every ban, oldest first."""
        rows = await self.pool.fetch(
            "SELECT kind, value, reason, at FROM bans ORDER BY at, kind, value"
        )
        return [Ban(row["kind"], row["value"], row["reason"], row["at"]) for row in rows]


async def _fencing(connection: asyncpg.Connection, room: str, epoch: int) -> Fenced | None:
    """:class:`Fenced` when ``room``'s lease is not at ``epoch`` (another node owns the room);
    the lease row is held ``FOR SHARE`` as an append holds it, so no claim lands before the
    transaction ends."""
    held = await connection.fetchval("SELECT epoch FROM leases WHERE room = $1 FOR SHARE", room)
    if held is None:
        return Fenced(f"room {room} has no lease; nobody may change it at epoch {epoch}")
    if held != epoch:
        return Fenced(
            f"room {room}: the lease is at epoch {held}, not {epoch}; another node owns the room"
        )
    return None


async def _last_seq(connection: asyncpg.Connection, room: str) -> int:
    last = await connection.fetchval(
        "SELECT last FROM runs WHERE room = $1 ORDER BY seq DESC LIMIT 1", room
    )
    return 0 if last is None else int(last)


def _named(failure: BaseException) -> BaseException:
    """Two writers racing for one ``seq``: the loser's key violation, as the refusal it is."""
    if isinstance(failure, asyncpg.UniqueViolationError) and "runs_pkey" in str(failure):
        return AppendRefused(
            f"a run's seq is in the log already ((room, seq) is UNIQUE): {failure}"
        )
    return failure


def _one_statement(batch: list[tuple[_Write, asyncio.Future[None]]]) -> bool:
    """Whether a batch runs as one statement: appends only, one per room (one append, or
    :data:`_APPEND_MANY` for several)."""
    rooms = [write.room for write, _ in batch if isinstance(write, _Append)]
    return len(rooms) == len(batch) and len(set(rooms)) == len(rooms)


async def _keep_session(connection: asyncpg.Connection) -> None:
    """A pool connection's reset on release: nothing beyond asyncpg's rollback of an open
    transaction. Lumin's statements leave no session state (their settings are ``SET
    LOCAL``, their advisory lock transaction-scoped), so the round trip of the default reset
    query is saved on every batch."""


def _lease(row: asyncpg.Record) -> Lease:
    lapsed_for = float(row["lapsed_for"]) if "lapsed_for" in row else 0.0
    expires_in = float(row["expires_in"]) if "expires_in" in row else 0.0
    return Lease(
        row["room"], row["node"], int(row["epoch"]), float(row["expires"]), lapsed_for, expires_in
    )


def _finished_where(game: str | None) -> tuple[str, tuple[Any, ...]]:
    where = "status = 'finished' AND NOT private"
    return (where + " AND game = $1", (game,)) if game is not None else (where, ())
