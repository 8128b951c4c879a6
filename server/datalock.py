"""The embedded server's hold on its data folder: one server per folder.

Two servers on one SQLite store would both rebuild and run the same rooms, each appending to
the other's logs. A server takes an exclusive lock (``flock``) on ``lumin.lock`` in the data
folder before it opens the store, writes its process id there, and keeps the lock until it
stops; the operating system drops it when the process dies, however it dies, so a crash never
leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

__all__ = ["DataFolderInUse", "DataLock"]


class DataFolderInUse(Exception):
    """Another process holds the data folder's lock."""


class DataLock:
    """The lock on one data folder, held from :meth:`acquire` until :meth:`release`."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "lumin.lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (creating the folder if needed), or raise :class:`DataFolderInUse`
        naming the process that holds it; ``OSError`` when the folder cannot be written."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise DataFolderInUse(
                f"data folder {self.path.parent} is in use by another Lumin server"
                f" (process {holder}); stop it first, or give this one another --data folder"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Let the folder go (closing the file drops the lock)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None
