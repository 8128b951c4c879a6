"""Backing up and restoring the embedded store: the data folder's ``lumin.sqlite3``.

A backup is taken beside a running server: SQLite's online backup API copies the file from a
connection of its own, in one step, so the copy is the store as one read transaction saw it
(in WAL mode a reader never blocks the server's writes, nor they it): every room's log whole,
no run half-written, and the server's session secret with it (the key identity-token
sessions are derived with, so a restored store derives the same ones). The copy is made in a
temporary file next to the destination, switched out of WAL mode (a backup is one
self-contained file), checked (``PRAGMA integrity_check``, its schema version) and only then
renamed over the destination, so a failed backup never replaces a good one.

A restore needs the data folder to itself: it takes the folder's lock
(:class:`~server.datalock.DataLock`) for its whole length, so it is refused while a server
runs there and no server can start on the folder meanwhile. The source is copied into the
data folder through SQLite (what a WAL beside it holds included) and the copy checked (a
SQLite file with Lumin's tables, whole, of a schema version this Lumin opens: an older one is
migrated by the server's next start, a newer one is refused). Then the store it replaces is
kept as ``lumin.sqlite3.before-restore`` (with its WAL, so nothing committed is lost), stale
``-wal`` and ``-shm`` files are moved out of the way, and the copy is renamed into place.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

import attrs

from server.datalock import DataFolderInUse, DataLock
from server.store import SCHEMA_VERSION

__all__ = ["KEPT_SUFFIX", "STORE_NAME", "BackupError", "Contents", "backup", "restore"]

#: The embedded store's file in a data folder.
STORE_NAME = "lumin.sqlite3"

#: What a restore renames the store it replaces to, in the data folder.
KEPT_SUFFIX = ".before-restore"

#: Tables every Lumin store has (schema version 1 on; version 0 may keep ``records``).
_TABLES = ("rooms", "identities", "high_scores")


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why, in one line."""


@attrs.frozen
class Contents:
    """What a store file holds: its schema version, its rows, and its size."""

    path: Path
    schema_version: int
    rooms: int
    #: Rooms waiting or playing: those a server started on this file rebuilds.
    live_rooms: int
    runs: int
    records: int
    identities: int
    high_scores: int
    bans: int
    bytes: int
    #: Whether it holds the server's session secret (made at a server's first start): a
    #: store restored with it derives the same session tokens as before.
    session_secret: bool = False

    def describe(self) -> str:
        """The contents in one line, as ``lumin backup`` and ``lumin restore`` print them."""
        older = ""
        if self.schema_version < SCHEMA_VERSION:
            older = f" (a server migrates it to version {SCHEMA_VERSION} when it starts)"
        return (
            f"schema version {self.schema_version}{older}, {_n(self.rooms, 'room')}"
            f" ({self.live_rooms} waiting or playing), {_n(self.runs, 'run')}"
            f" ({_n(self.records, 'record')}), {_n(self.identities, 'identity', 'identities')},"
            f" {_n(self.high_scores, 'high score')}, {_n(self.bans, 'ban')},"
            f" {'the' if self.session_secret else 'no'} session secret, {_n(self.bytes, 'byte')}"
        )


def backup(data: Path, dest: Path) -> Contents:
    """Copy the store of the data folder ``data`` to ``dest`` (a file, or an existing folder to
    put ``lumin-YYYYMMDD-HHMMSS.sqlite3`` in), while a server may be running on it; returns
    what the checked copy holds. :class:`BackupError` when there is no store to copy, it is
    not one this Lumin can read, or the copy fails its check."""
    source = data / STORE_NAME
    if not source.is_file():
        raise BackupError(
            f"there is no Lumin store at {source} (a PostgreSQL store is backed up with"
            " pg_dump: docs/operating.md, Backups)"
        )
    if dest.is_dir():
        dest = dest / time.strftime("lumin-%Y%m%d-%H%M%S.sqlite3")
    if not dest.parent.is_dir():
        raise BackupError(f"there is no folder {dest.parent} to write {dest.name} in")
    if dest.exists() and dest.resolve() == source.resolve():
        raise BackupError(f"{dest} is the store itself; back it up to another file")
    temporary = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        reader = _open(source)
        try:
            _check_readable(reader, source)
            copy = sqlite3.connect(temporary, isolation_level=None)
            try:
                reader.backup(copy)  # one step: one read transaction's view of the store
                copy.execute("PRAGMA journal_mode=DELETE")
            finally:
                copy.close()
        finally:
            reader.close()
        contents = _checked(temporary, dest)
        _sync(temporary)
        os.replace(temporary, dest)
        _sync(dest.parent)
    except sqlite3.Error as error:
        raise BackupError(f"copying {source} to {dest} failed: {error}") from None
    except OSError as error:
        raise BackupError(f"cannot write {dest}: {error.strerror or error}") from None
    finally:
        temporary.unlink(missing_ok=True)
    return contents


def restore(data: Path, source: Path) -> tuple[Contents, Path | None]:
    """Put the store file ``source`` in place as the data folder's store, holding the folder's
    lock throughout; returns what it holds and where the store it replaced was kept (``None``
    when there was none). :class:`BackupError` while a server holds the folder, and when
    ``source`` is not a whole Lumin store of a schema version this Lumin can open; the data
    folder is then left as it was."""
    if not source.is_file():
        raise BackupError(f"there is no file {source} to restore")
    store = data / STORE_NAME
    if store.exists() and store.resolve() == source.resolve():
        raise BackupError(f"{source} is the data folder's store itself")
    lock = DataLock(data)
    try:
        lock.acquire()
    except DataFolderInUse as error:
        raise BackupError(f"{error}; a restore needs the folder to itself") from None
    except OSError as error:
        raise BackupError(f"cannot lock {data}: {error.strerror or error}") from None
    temporary = data / f".{STORE_NAME}.restore.tmp"
    try:
        try:
            _copy_store(source, temporary)
            contents = _checked(temporary, source)
        except sqlite3.Error as error:
            raise BackupError(f"{source} is not a Lumin store ({error})") from None
        kept = _set_aside(store)
        os.replace(temporary, store)
        _sync(data)
        return contents, kept
    except OSError as error:
        raise BackupError(f"restoring into {data} failed: {error.strerror or error}") from None
    finally:
        temporary.unlink(missing_ok=True)
        lock.release()


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _open(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA busy_timeout=5000")
    return connection


def _version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def _tables(connection: sqlite3.Connection) -> set[str]:
    rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {name for (name,) in rows}


def _check_readable(connection: sqlite3.Connection, path: Path) -> None:
    """A Lumin store of a schema version this Lumin knows, or :class:`BackupError`."""
    version = _version(connection)
    if version > SCHEMA_VERSION:
        raise BackupError(
            f"{path} has schema version {version}; this Lumin knows up to {SCHEMA_VERSION}"
            " (upgrade Lumin first)"
        )
    missing = [table for table in _TABLES if table not in _tables(connection)]
    if missing:
        raise BackupError(f"{path} is not a Lumin store (no {', '.join(missing)} table)")


def _checked(path: Path, shown: Path) -> Contents:
    """What the copy at ``path`` (of, or to be, ``shown``) holds, once it passes SQLite's integrity
    check and is a Lumin store this Lumin can open; :class:`BackupError` otherwise."""
    connection = _open(path)
    try:
        _check_readable(connection, shown)
        problems = [row[0] for row in connection.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise BackupError(f"{shown} fails SQLite's integrity check: {problems[0]}")
        tables = _tables(connection)

        def count(sql: str, table: str) -> int:
            return int(connection.execute(sql).fetchone()[0] or 0) if table in tables else 0

        contents = Contents(
            path=shown,
            schema_version=_version(connection),
            rooms=count("SELECT COUNT(*) FROM rooms", "rooms"),
            live_rooms=count(
                "SELECT COUNT(*) FROM rooms WHERE status IN ('waiting', 'playing')", "rooms"
            ),
            runs=count("SELECT COUNT(*) FROM runs", "runs"),
            records=count("SELECT SUM(last - seq + 1) FROM runs", "runs")
            + count("SELECT COUNT(*) FROM records", "records"),
            identities=count("SELECT COUNT(*) FROM identities", "identities"),
            high_scores=count("SELECT COUNT(*) FROM high_scores", "high_scores"),
            bans=count("SELECT COUNT(*) FROM bans", "bans"),
            bytes=path.stat().st_size,
            session_secret=count("SELECT COUNT(*) FROM secrets WHERE name = 'session'", "secrets")
            > 0,
        )
    finally:
        connection.close()
    return contents


def _set_aside(store: Path) -> Path | None:
    """Keep the store a restore replaces as ``<store>.before-restore`` (replacing an older one),
    its WAL beside it as that file's WAL, so what was committed to it stays readable; remove its
    shared-memory file, which the next opener makes again. ``None`` when there is no store."""
    kept = store.with_name(store.name + KEPT_SUFFIX)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{kept}{suffix}").unlink(missing_ok=True)
    if store.exists():
        os.replace(store, kept)
    wal = Path(f"{store}-wal")
    if wal.exists():
        if kept.exists():
            os.replace(wal, f"{kept}-wal")
        else:  # a WAL without its database belongs to nothing
            wal.unlink()
    Path(f"{store}-shm").unlink(missing_ok=True)
    return kept if kept.exists() else None


def _copy_store(source: Path, target: Path) -> None:
    """Copy the SQLite file ``source`` to ``target`` through SQLite (so a WAL beside it is read
    too, as for a kept ``before-restore`` store), and flush the copy to the disk."""
    reader = _open(source)
    try:
        copy = sqlite3.connect(target, isolation_level=None)
        try:
            reader.backup(copy)
        finally:
            copy.close()
    finally:
        reader.close()
    _sync(target)


def _sync(path: Path) -> None:
    """Flush a file, or a folder's entries (a rename in it), to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        with contextlib.suppress(OSError):  # some file systems refuse to fsync a folder
            os.fsync(fd)
    finally:
        os.close(fd)
