"""The server's settings, from command-line flags and ``LUMIN_*`` environment variables."""

from __future__ import annotations

from pathlib import Path

import attrs

__all__ = ["Settings"]


@attrs.frozen
class Settings:
    """Everything an operator can tune; ``docs/operating.md`` lists each with its variable."""

    host: str = "127.0.0.1"
    port: int = 8700
    data: Path = Path("data")
    #: Allowed ``Origin`` headers for websocket connections; clients that send no Origin (bots,
    #: terminal clients) are always allowed. Empty means same origin: the Origin must name the
    #: Host the request was sent to.
    origins: tuple[str, ...] = ()
    #: Largest frame a client may send, in bytes.
    max_frame: int = 64 * 1024
    #: Messages a connection may send per second on average, and in a burst.
    rate: float = 50.0
    burst: int = 100
    #: Bytes sent to one connection but not yet taken by its client before it is dropped as
    #: too slow.
    send_buffer: int = 1024 * 1024
    #: ``process`` (WAL, survives a killed process) or ``fsync`` (survives power loss).
    durability: str = "process"
    #: Seconds a bot waits before a turn-based move (0 for tests).
    bot_delay: float = 0.8
    #: Seconds a disconnected player keeps their seat before a bot plays for them.
    grace: float = 120.0
    #: Seconds a room waiting for players may sit idle before it expires.
    idle_expiry: float = 1800.0
    #: Days finished games are kept for replay.
    retention_days: float = 30.0
    #: Deltas kept per room for resume; older resumes get a snapshot.
    history: int = 256
    #: Chat: characters per message, messages per 10 seconds per person.
    chat_length: int = 500
    chat_rate: int = 5
    #: The event loop: ``uvloop`` (faster) or the standard ``asyncio`` one.
    loop: str = "uvloop"
    #: Where the browser client's built files are served from ("/" of the server).
    static: Path | None = None

    @property
    def database(self) -> Path:
        return self.data / "lumin.sqlite3"
