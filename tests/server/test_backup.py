"""``lumin backup`` and ``lumin restore`` (``server/backup.py``): a backup taken beside a real
server that is appending games is a whole store, and a server started on its restored copy
rebuilds the rooms it held; a restore is refused while a server holds the data folder, and for
a file of a newer schema or no Lumin store at all, leaving the folder as it was."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from clients.sdk import LuminClient, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from lumin.cli import main
from server.app import LuminServer
from server.backup import BackupError, backup, restore
from server.config import Settings
from server.datalock import DataLock
from server.store import SCHEMA_VERSION, EventStore
from tests.server.test_store_contract import row


def whole(path: Path) -> sqlite3.Connection:
    """The store file at ``path``, once it has passed SQLite's integrity check and every room's
    log in it runs from seq 1 without a gap, each of a room the file has."""
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    rooms = {room for (room,) in connection.execute("SELECT id FROM rooms")}
    last: dict[str, int] = {}
    for room, seq, end in connection.execute("SELECT room, seq, last FROM runs ORDER BY room, seq"):
        assert room in rooms, f"a log without its room {room}"
        assert seq == last.get(room, 0) + 1, f"room {room}: a gap before seq {seq}"
        last[room] = end
    return connection


async def test_a_backup_beside_a_running_server_is_whole_and_its_restored_copy_recovers(
    server: LuminServer, connect, settings: Settings, tmp_path: Path
) -> None:
    ada: LuminClient = await connect("Ada")
    waiting = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    playing = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(playing)
    while not ada.legal(playing):
        await ada.changed(playing)
    game = get_game("flip_over_frog")
    move = random.Random(1).choice(expand_legal(game, ada.legal(playing)))
    await ada.act(playing, to_wire(move))  # then the room waits for Ada: playing, with a log
    stop = asyncio.Event()

    async def games() -> None:  # bots' games, appending all the while the backups run
        while not stop.is_set():
            await ada.create_room("flip_over_frog", seats=[bot(), bot()])
            await asyncio.sleep(0.005)

    busy = asyncio.ensure_future(games())
    await asyncio.sleep(0.3)
    appended = server.store.appended
    copies = []
    for n in range(5):
        copies.append(await asyncio.to_thread(backup, settings.data, tmp_path / f"copy{n}.sqlite3"))
        await asyncio.sleep(0.05)
    stop.set()
    await busy
    assert server.store.appended > appended, "the server appended while the backups ran"

    for copied in copies:
        connection = whole(copied.path)
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert copied.schema_version == SCHEMA_VERSION and copied.identities == 1
        assert copied.rooms >= 3 and copied.records > 0
        assert copied.bytes == copied.path.stat().st_size
        assert not Path(f"{copied.path}-wal").exists(), "a backup is one file"
        connection.close()

    last = copies[-1]
    copy = sqlite3.connect(last.path)
    live = {
        room
        for (room,) in copy.execute("SELECT id FROM rooms WHERE status IN ('waiting', 'playing')")
    }
    logged = copy.execute("SELECT MAX(last) FROM runs WHERE room = ?", (playing,)).fetchone()[0]
    copy.close()
    assert {waiting, playing} <= live and last.live_rooms == len(live) and logged >= 1

    assert last.session_secret, "the server's session secret travels with the backup"
    assert "the session secret" in last.describe()
    elsewhere = tmp_path / "restored"
    restored, kept = restore(elsewhere, last.path)
    assert kept is None and restored.rooms == last.rooms and restored.session_secret
    second = LuminServer(attrs.evolve(settings, data=elsewhere))
    await second.start()
    try:
        assert second.recovered == len(live) and live <= set(second.hub.rooms)
        assert [r.seq for r in second.store.records(playing)] == list(range(1, logged + 1))
        assert second.hub.rooms[waiting].status == "waiting"
        assert await second.store.session_secret() == await server.store.session_secret()
    finally:
        await second.stop()


def a_store(path: Path, *rooms: str) -> None:
    """A store file at ``path`` holding the rooms named (closed: its WAL folded in)."""

    async def write() -> None:
        store = EventStore(path)
        for room in rooms:
            await store.create_room(row(room))
        store.close()

    asyncio.run(write())


async def test_a_restore_is_refused_while_a_server_holds_the_data_folder(
    server: LuminServer, settings: Settings, tmp_path: Path
) -> None:
    source = tmp_path / "backup.sqlite3"
    await asyncio.to_thread(a_store, source, "r1")
    with pytest.raises(BackupError, match="in use by another Lumin server"):
        restore(settings.data, source)
    result = await asyncio.to_thread(
        CliRunner().invoke, main, ["restore", str(source), "--data", str(settings.data)]
    )
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "in use" in result.stderr, result.stderr
    assert server.store.room("r1") is None, "the running server's store is untouched"
    assert not (settings.data / "lumin.sqlite3.before-restore").exists()


def test_a_restore_takes_the_folders_lock_so_no_server_starts_meanwhile(tmp_path: Path) -> None:
    """While one restore holds the folder, another (or a server) is refused."""
    data, source = tmp_path / "data", tmp_path / "backup.sqlite3"
    a_store(source, "r1")
    held = DataLock(data)
    held.acquire()
    try:
        with pytest.raises(BackupError, match="needs the folder to itself"):
            restore(data, source)
    finally:
        held.release()
    restore(data, source)
    DataLock(data).acquire()  # and let go once done (the lock of a closed file is dropped)


def test_a_store_of_a_newer_schema_or_no_store_is_refused_and_nothing_changes(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    a_store(data / "lumin.sqlite3", "mine")
    before = (data / "lumin.sqlite3").read_bytes()
    newer = tmp_path / "newer.sqlite3"
    a_store(newer, "theirs")
    connection = sqlite3.connect(newer)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    runner = CliRunner()
    result = runner.invoke(main, ["restore", str(newer), "--data", str(data)])
    assert result.exit_code == 1
    assert f"schema version {SCHEMA_VERSION + 1}; this Lumin knows up to" in result.stderr
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("hello\n" * 100)
    result = runner.invoke(main, ["restore", str(not_sqlite), "--data", str(data)])
    assert result.exit_code == 1 and "is not a Lumin store" in result.stderr
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    result = runner.invoke(main, ["restore", str(other), "--data", str(data)])
    assert result.exit_code == 1 and "is not a Lumin store" in result.stderr
    result = runner.invoke(main, ["restore", str(tmp_path / "nothing"), "--data", str(data)])
    assert result.exit_code == 1 and "no file" in result.stderr
    assert "Traceback" not in result.output
    assert (data / "lumin.sqlite3").read_bytes() == before
    assert sorted(os.listdir(data)) == ["lumin.lock", "lumin.sqlite3"]


def test_a_restore_keeps_the_store_it_replaced_with_what_its_wal_held(tmp_path: Path) -> None:
    """The replaced store is kept as lumin.sqlite3.before-restore, its WAL beside it (what a
    killed server committed but never checkpointed is there too); the stale -wal and -shm are
    gone from the restored store; restoring the kept file undoes the restore."""
    data, source = tmp_path / "data", tmp_path / "backup.sqlite3"
    a_store(source, "backed-up")
    a_store(data / "lumin.sqlite3", "old")
    killed = subprocess.run(  # a server's store killed with a room only in its WAL
        [
            sys.executable,
            "-c",
            "import os, sqlite3\n"
            f"c = sqlite3.connect({str(data / 'lumin.sqlite3')!r}, isolation_level=None)\n"
            "c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')\n"
            "c.execute(\"UPDATE rooms SET id = 'only-in-the-wal'\")\n"
            "os._exit(0)\n",
        ],
        check=True,
    )
    assert killed.returncode == 0 and (data / "lumin.sqlite3-wal").stat().st_size > 0
    result = CliRunner().invoke(main, ["restore", str(source)], env={"LUMIN_DATA": str(data)})
    assert result.exit_code == 0, result.output
    assert "1 room " in result.output and "before-restore" in result.output
    assert not (data / "lumin.sqlite3-wal").exists() and not (data / "lumin.sqlite3-shm").exists()
    kept = sqlite3.connect(data / "lumin.sqlite3.before-restore")
    assert kept.execute("SELECT id FROM rooms").fetchall() == [("only-in-the-wal",)]
    kept.close()
    restored = EventStore(data / "lumin.sqlite3")
    assert [r.id for r in restored.rooms()] == ["backed-up"]
    restored.close()
    # Undone by restoring what it kept: the two swap places, the WAL's room included.
    result = CliRunner().invoke(
        main, ["restore", str(data / "lumin.sqlite3.before-restore"), "--data", str(data)]
    )
    assert result.exit_code == 0, result.output
    for name, room in (("lumin.sqlite3", "only-in-the-wal"), (".before-restore", "backed-up")):
        path = data / name if name.startswith("lumin") else data / f"lumin.sqlite3{name}"
        connection = sqlite3.connect(path)
        assert connection.execute("SELECT id FROM rooms").fetchall() == [(room,)]
        connection.close()


def test_lumin_backup_and_restore_on_the_command_line(tmp_path: Path) -> None:
    """The commands themselves, run as an operator runs them: a backup into a folder gets a
    dated file; restoring it brings the store back; a backup of no store is one line, exit 1."""
    data = tmp_path / "data"
    a_store(data / "lumin.sqlite3", "r1", "r2")
    folder = tmp_path / "backups"
    folder.mkdir()
    lumin = [sys.executable, "-m", "lumin.cli"]
    done = subprocess.run(
        [*lumin, "backup", str(folder), "--data", str(data)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    (made,) = folder.iterdir()
    assert made.name.startswith("lumin-") and made.suffix == ".sqlite3"
    assert "2 rooms" in done.stdout and "integrity ok" in done.stdout
    fresh = tmp_path / "fresh"
    done = subprocess.run(
        [*lumin, "restore", str(made)],
        capture_output=True,
        text=True,
        env={**os.environ, "LUMIN_DATA": str(fresh)},
    )
    assert done.returncode == 0, done.stderr
    back = EventStore(fresh / "lumin.sqlite3")
    assert {r.id for r in back.rooms()} == {"r1", "r2"}
    back.close()
    done = subprocess.run(
        [*lumin, "backup", str(folder / "x.sqlite3"), "--data", str(tmp_path / "empty")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "there is no Lumin store" in done.stderr and "pg_dump" in done.stderr
