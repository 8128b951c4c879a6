"""The SQLite event store: batched durable appends, both durability modes, retention."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import sys
import threading
import time
from pathlib import Path

import msgpack
import pytest

import server.store as store_module
from server import playerrows as pr
from server.names import name_key
from server.playerrows import AccountRow, RatingRow
from server.store import _MIGRATIONS, SCHEMA_VERSION, Ban, EventStore, Record, RoomRow

#: "Ada" with a Cyrillic A (U+0410): a look-alike of "Ada".
LOOKALIKE = "\u0410da"


def row(room: str, status: str = "playing", finished: float | None = None) -> RoomRow:
    return RoomRow(
        room,
        "flip_over_frog",
        {},
        [],
        b"s" * 16,
        b"t" * 16,
        "c",
        False,
        None,
        None,
        status,
        1.0,
        None,
        finished,
        {},
    )


def record(seq: int) -> Record:
    return Record(
        seq,
        seq * 3,
        0,
        {"type": "play", "tile": "R1", "space": seq},
        float(seq),
        ({"type": "turn_passed", "seat": 1},),
    )


@pytest.mark.parametrize("durability", ["process", "fsync"])
async def test_appends_in_one_loop_turn_share_a_commit_and_survive_reopening(
    tmp_path: Path, durability: str
) -> None:
    store = EventStore(tmp_path / "db.sqlite3", durability)
    await store.create_room(row("r1"))
    batches = store.batches
    await asyncio.gather(*(store.append("r1", record(n)) for n in range(1, 51)))
    assert store.batches - batches <= 2, "fifty appends took one or two commits"
    store.checkpoint()
    store.close()
    again = EventStore(tmp_path / "db.sqlite3", durability)
    assert [r.seq for r in again.records("r1")] == list(range(1, 51))
    assert list(again.records("r1", after=48)) == [record(49), record(50)]
    again.close()


async def test_close_commits_what_is_still_queued(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "db.sqlite3")
    await store.create_room(row("r1"))
    store.append("r1", record(1))  # queued, not awaited
    store.close()
    again = EventStore(tmp_path / "db.sqlite3")
    assert [r.seq for r in again.records("r1")] == [1]
    again.close()


async def test_a_duplicate_record_fails_its_append_and_nothing_else(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "db.sqlite3")
    await store.create_room(row("r1"))
    await store.append("r1", record(1))
    with pytest.raises(Exception, match="UNIQUE"):
        await store.append("r1", record(1))
    await store.append("r1", record(2))
    assert [r.seq for r in store.records("r1")] == [1, 2]
    store.close()


async def test_retention_deletes_ended_rooms_and_their_logs_only(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "db.sqlite3")
    now = time.time()
    await store.create_room(row("old", "finished", finished=now - 100))
    await store.create_room(row("new", "finished", finished=now))
    await store.create_room(row("live"))
    for room in ("old", "new", "live"):
        await store.append(room, record(1))
    await store.delete_ended_before(now - 50)
    assert store.room("old") is None and list(store.records("old")) == []
    assert store.room("new") is not None and store.room("live") is not None
    assert [r.id for r in store.finished(limit=10)] == ["new"]
    store.close()


@pytest.mark.parametrize("status", ["finished", "expired", "abandoned", "failed"])
async def test_retention_deletes_every_kind_of_ended_room(tmp_path: Path, status: str) -> None:
    """docs/operating.md, "Data folder and retention": finished, expired, abandoned and failed
    rooms alike are deleted once past the retention period (abandoned rooms were kept for ever)."""
    store = EventStore(tmp_path / "db.sqlite3")
    now = time.time()
    await store.create_room(row("old", status, finished=now - 100))
    await store.append("old", record(1))
    await store.delete_ended_before(now - 50)
    assert store.room("old") is None and list(store.records("old")) == []
    store.close()


async def test_a_bad_write_in_a_batch_fails_only_itself(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "db.sqlite3")
    await store.create_room(row("r1"))
    await store.append("r1", record(1))
    results = await asyncio.gather(
        store.append("r1", record(1)),  # a duplicate: refused by the primary key
        store.append("r1", record(2)),
        store.append("r1", record(3)),
        return_exceptions=True,
    )
    assert isinstance(results[0], Exception) and results[1:] == [None, None]
    assert [r.seq for r in store.records("r1")] == [1, 2, 3]
    store.close()


async def test_background_checkpoint_empties_the_wal_from_a_lowest_priority_thread(
    tmp_path: Path,
) -> None:
    """EventStore.checkpoint_in_background: the WAL's frames reach the database file, and
    the work runs on a thread of its own at nice 19 (on Linux), never the loop's."""
    store = EventStore(tmp_path / "db.sqlite3")
    await store.create_room(row("r1"))
    await asyncio.gather(*(store.append("r1", record(n)) for n in range(1, 21)))
    seen: list[tuple[int, int]] = []
    checkpoint = store.checkpoint

    def spy() -> None:
        me = threading.get_native_id()
        seen.append((me, os.getpriority(os.PRIO_PROCESS, me)))
        checkpoint()

    store.checkpoint = spy  # type: ignore[method-assign]
    await store.checkpoint_in_background()
    ((thread, nice),) = seen
    assert thread != threading.get_native_id()
    if sys.platform.startswith("linux"):
        assert nice == 19
    # The records are in the database file itself: a copy of it without the WAL has them.
    shutil.copy(tmp_path / "db.sqlite3", tmp_path / "copy.sqlite3")
    connection = sqlite3.connect(tmp_path / "copy.sqlite3")
    (count,) = connection.execute(
        "SELECT SUM(last - seq + 1) FROM runs WHERE room = 'r1'"
    ).fetchone()
    connection.close()
    assert count == 20
    store.close()


async def test_the_wal_file_is_cut_back_when_it_starts_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """server.store.WAL_SIZE_LIMIT: appends without a pause grow the WAL past the limit; after
    a checkpoint the next append starts it over and its file is cut back to the limit."""
    monkeypatch.setattr(store_module, "WAL_SIZE_LIMIT", 256 * 1024)
    store = EventStore(tmp_path / "db.sqlite3")
    await store.create_room(row("r1"))
    for seq in range(1, 201):
        await store.append("r1", record(seq))
    wal = tmp_path / "db.sqlite3-wal"
    assert wal.stat().st_size > 512 * 1024
    await store.checkpoint_in_background()
    await store.append("r1", record(201))
    assert wal.stat().st_size <= 256 * 1024
    assert [r.seq for r in store.records("r1")] == list(range(1, 202))
    store.close()


def test_a_store_from_before_runs_is_moved_into_runs_on_opening(tmp_path: Path) -> None:
    """Schema version 0, oldest layout (migration step 0 -> 1): a store whose log has one row
    per record (the ``records`` table of earlier versions) opens with the same records, now
    kept as runs, and the old table gone; appends go on after them."""
    path = tmp_path / "db.sqlite3"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE records (room TEXT NOT NULL, seq INTEGER NOT NULL, position INTEGER NOT"
        " NULL, seat INTEGER, command BLOB, at REAL NOT NULL, events BLOB NOT NULL,"
        " PRIMARY KEY (room, seq)) WITHOUT ROWID"
    )
    kept = [record(1), record(2), Record(3, 9, None, None, 3.0, ({"type": "tick"},))]
    old.executemany(
        "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                "r1",
                r.seq,
                r.position,
                r.seat,
                None if r.command is None else msgpack.packb(r.command),
                r.at,
                msgpack.packb(list(r.events)),
            )
            for r in kept
        ],
    )
    old.commit()
    old.close()
    store = EventStore(path)
    assert list(store.records("r1")) == kept
    tables = {name for (name,) in store._reader.execute("SELECT name FROM sqlite_master")}
    assert "records" not in tables and "runs" in tables
    store.close()
    again = EventStore(path)  # nothing left to move: opening again changes nothing
    assert list(again.records("r1")) == kept
    again.close()


async def test_an_unversioned_store_is_version_0_and_migrates_to_the_newest(
    tmp_path: Path,
) -> None:
    """Schema version 0, the file every Lumin wrote before versions (its log in runs, no
    ``user_version``): it opens at the newest version with everything in it, and appends go
    on after its log."""
    path = tmp_path / "db.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(VERSION_0_SCHEMA)
    old.execute(
        "INSERT INTO rooms VALUES ('r1', 'flip_over_frog', '{}', '[]', x'00', x'01', 'c', 0,"
        " NULL, NULL, 'playing', 1.0, NULL, NULL, '{}')"
    )
    old.execute(
        "INSERT INTO runs VALUES ('r1', 1, 2, ?)",
        (
            msgpack.packb(
                [
                    [r.seq, r.position, r.seat, r.command, r.at, r.events]
                    for r in (record(1), record(2))
                ]
            ),
        ),
    )
    old.execute("INSERT INTO identities VALUES ('h', 'Ada', 1.0)")
    old.commit()
    assert old.execute("PRAGMA user_version").fetchone() == (0,)
    old.close()
    store = EventStore(path)
    assert store.schema_version == SCHEMA_VERSION
    assert store._reader.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert list(store.records("r1")) == [record(1), record(2)]
    assert store.room("r1") is not None and store.identity("h") == "Ada"
    await store.append("r1", record(3))
    assert [r.seq for r in store.records("r1")] == [1, 2, 3]
    store.close()


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
async def test_every_older_schema_version_migrates_to_the_newest(
    tmp_path: Path, version: int
) -> None:
    """A file at each older version (made by the steps up to it, with data of that version)
    opens at the newest with its data, and takes what the newest version adds."""
    path = tmp_path / "db.sqlite3"
    old = sqlite3.connect(path, isolation_level=None)
    for step in _MIGRATIONS[:version]:
        step(old)
    old.execute(f"PRAGMA user_version = {version}")
    if version >= 1:
        old.execute(
            "INSERT INTO rooms VALUES ('r1', 'flip_over_frog', '{}', '[]', x'00', x'01', 'c', 0,"
            " NULL, NULL, 'playing', 1.0, NULL, NULL, '{}')"
        )
        if version >= 3:  # last_seen is that version's: a guest's is when it was last seen
            old.execute("INSERT INTO identities VALUES ('h', 'Ada', 1.0, 1.0, 0)")
        else:
            old.execute(
                "INSERT INTO identities (token_hash, name, created) VALUES ('h', 'Ada', 1.0)"
            )
    if version >= 2:
        old.execute("INSERT INTO bans VALUES ('address', '203.0.113.9', 'flood', 5.0)")
    if version >= 3:
        old.execute("INSERT INTO identities VALUES ('h3', 'Bea', 1.0, 50.0, 1)")
    if version >= 4:  # an account's session, and an identity token's (derived from it alone)
        columns = "token_hash, identity, created, last_seen, client"
        old.execute(
            f"INSERT INTO sessions ({columns}) VALUES ('s-account', 'h3', 1.0, 50.0, 'sign_in')"
        )
        old.execute(
            f"INSERT INTO sessions ({columns}) VALUES ('s-jwt', 'h4', 1.0, 50.0, 'jwt until 9e9')"
        )
    if 4 <= version < 6:  # two accounts whose names fold alike by how they look (the old fold)
        old.execute("INSERT INTO accounts VALUES ('ada', 'Ada', 'h3', 'hash', 1.0)")
        old.execute(f"INSERT INTO accounts VALUES ('{LOOKALIKE.casefold()}', '{LOOKALIKE}',"
                    " 'h5', 'hash', 2.0)")  # fmt: skip
        old.execute(f"INSERT INTO identities VALUES ('h5', '{LOOKALIKE}', 1.0, 50.0, 1)")
        old.execute(
            f"INSERT INTO ratings VALUES ('uh5', 'neon_hex', '2p', '{LOOKALIKE}', 25.0, 8.0, 1,"
            " 1.0)"
        )
    old.close()
    store = EventStore(path)
    try:
        assert store.schema_version == SCHEMA_VERSION
        assert store._reader.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        if version >= 1:
            assert store.room("r1") is not None and store.identity("h") == "Ada"
        await store.ban("identity", "u1", "spam", 6.0)
        expected = [Ban("identity", "u1", "spam", 6.0)]
        if version >= 2:
            expected.insert(0, Ban("address", "203.0.113.9", "flood", 5.0))
        assert store.bans() == expected
        # Identities kept before last_seen count as last seen when created (1.0).
        await store.delete_guests_unseen_before(0.5)
        assert version < 1 or store.identity("h") == "Ada"
        await store.delete_guests_unseen_before(100.0)
        assert store.identity("h") is None
        assert (store.identity("h3") == "Bea") is (version >= 3), "claimed: kept"
        # Version 4's tables take what they keep.
        await store.save_ratings(
            [RatingRow("u1", "flip_over_frog", "standard", "Ada", 27.0, 7.0, 1, 9.0)]
        )
        assert [r.mu for r in await store.get_ratings("flip_over_frog")] == [27.0]
        await store.add_high_score("Ada", 3, "gold", "r1", 9.0, player_id="u1")
        assert [s["player_id"] for s in store.high_scores(player_id="u1")] == ["u1"]
        # Version 5: an account's session is kept with no fixed end, an identity token's
        # kept before is gone, and the session secret is made and kept.
        if version >= 4:
            assert (await store.get_session("s-account")).expires is None  # type: ignore[union-attr]
            # (one kept from version 5 on was made with the secret)
            assert (await store.get_session("s-jwt") is None) is (version < 5)
        secret = await store.session_secret()
        assert len(secret) == 32 and await store.session_secret() == secret
        # Version 6: names fold by how they look; the later look-alike claim is renamed.
        if 4 <= version < 6:
            assert await store.get_account(name_key("Ada")) == AccountRow(
                name_key("Ada"), "Ada", "h3", "hash", 1.0
            )
            later = await store.get_account_of("h5")
            assert later == AccountRow(
                name_key("Ada 2"), f"{LOOKALIKE} 2", "h5", "hash", 2.0, renamed_from=LOOKALIKE
            )
            assert store.identity("h5") == f"{LOOKALIKE} 2"
            assert [r.name for r in await store.get_ratings(player="uh5")] == [f"{LOOKALIKE} 2"]
            await store.clear_renamed("h5")
            assert (await store.get_account_of("h5")).renamed_from is None  # type: ignore[union-attr]
    finally:
        store.close()


#: The tables of every store written before schema versions (version 0), as that code made them.
VERSION_0_SCHEMA = """
CREATE TABLE rooms (id TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
    seats TEXT NOT NULL, seed BLOB NOT NULL, salt BLOB NOT NULL, commitment TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 0, code TEXT, host TEXT, status TEXT NOT NULL,
    created REAL NOT NULL, started REAL, finished REAL, meta TEXT NOT NULL DEFAULT '{}');
CREATE TABLE runs (room TEXT NOT NULL, seq INTEGER NOT NULL, last INTEGER NOT NULL,
    records BLOB NOT NULL, PRIMARY KEY (room, seq)) WITHOUT ROWID;
CREATE TABLE identities (token_hash TEXT PRIMARY KEY, name TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE high_scores (player TEXT NOT NULL, score INTEGER NOT NULL, rank TEXT NOT NULL,
    room TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX rooms_status ON rooms (status);
CREATE INDEX rooms_finished ON rooms (status, private, finished);
CREATE INDEX high_scores_player ON high_scores (player, score);
"""


async def test_records_appended_together_are_one_run_and_read_back_from_any_seq(
    tmp_path: Path,
) -> None:
    """EventStore.append stores a room's records appended together as one row; reading
    from a seq inside a run gives the records after it. Records that are not consecutive are
    refused before anything is written."""
    store = EventStore(tmp_path / "db.sqlite3")
    await store.append("r1", record(1), record(2), record(3))
    await store.append("r1", record(4))
    runs = store._reader.execute("SELECT seq, last FROM runs WHERE room = 'r1'").fetchall()
    assert runs == [(1, 3), (4, 4)]
    assert [r.seq for r in store.records("r1", after=1)] == [2, 3, 4]
    assert list(store.records("r1", after=3)) == [record(4)]
    with pytest.raises(ValueError, match="consecutive"):
        store.append("r1", record(5), record(7))
    store.close()


@pytest.mark.parametrize(
    "query",
    [
        pr.leaderboard_query("neon_hex", "2p", 5, 100, None),
        pr.leaderboard_query("neon_hex", "2p", 5, 100, (12.5, 7, "u1")),
        pr.history_query("u1", 50, None),
        pr.history_query("u1", 50, (3.0, "r1", 0)),
        pr.rated_rooms_query(200, None, everyone=False),
        pr.rated_rooms_query(200, (3.0, "r1"), everyone=True),
    ],
    ids=["board", "board-page", "history", "history-page", "rated", "rated-page"],
)
def test_the_players_http_reads_walk_an_index_and_never_sort_a_table(
    tmp_path: Path, query: tuple[str, tuple[object, ...]]
) -> None:
    # Each read starts on an index and stops at its LIMIT: a page costs its own rows, however
    # many players and games the store holds. A sort of the table (a temp B-tree for the
    # ORDER BY) or a scan of it would read everything first.
    store = EventStore(tmp_path / "lumin.sqlite3")
    try:
        sql, params = query
        plan = [row[3] for row in store._reader.execute(f"EXPLAIN QUERY PLAN {sql}", params)]
        assert not [step for step in plan if "TEMP B-TREE FOR ORDER BY" in step], plan
        assert not [step for step in plan if step.startswith("SCAN") and "INDEX" not in step], plan
        assert any("INDEX" in step for step in plan), plan
    finally:
        store.close()


async def test_the_contracts_reads_run_off_the_event_loops_thread(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "lumin.sqlite3")
    threads: list[str] = []
    original = store._rows

    def rows(sql: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
        threads.append(threading.current_thread().name)
        return original(sql, params)

    store._rows = rows  # type: ignore[method-assign]
    try:
        await store.save_ratings([RatingRow("u1", "neon_hex", "2p", "Ada", 30.0, 6.0, 9, 1.0)])
        assert [r.player for r in await store.get_leaderboard("neon_hex", "2p", 5, 10)] == ["u1"]
        assert await store.get_history("u1", 10) == []
        assert threads and all(name.startswith("lumin-read") for name in threads), threads
        assert (await store.get_room("nope")) is None  # the plain reads go the same way
    finally:
        store.close()


def test_retentions_sweep_reads_only_rooms_it_may_forget(tmp_path: Path) -> None:
    # Every sweep runs this on the event loop: it walks the index of rooms not kept, never
    # the rooms of rated games kept for good (a table that only grows).
    store = EventStore(tmp_path / "lumin.sqlite3")
    try:
        plan = [
            row[3]
            for row in store._reader.execute(
                f"EXPLAIN QUERY PLAN {store_module.RETAINED_UNTIL}", (10.0, 10.0)
            )
        ]
        assert any("rooms_retention" in step for step in plan), plan
        assert not [step for step in plan if step.startswith("SCAN rooms") and "INDEX" not in step]
    finally:
        store.close()
