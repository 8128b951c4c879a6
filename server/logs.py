"""structlog set up for JSON lines on standard error, with room/seat/connection context, and
the lifecycle events that more than one module logs, each with its fields fixed in one place.

Every line is one event with a stable snake_case name (``docs/operating.md``, "Logs", lists
them all with their level and fields). Context variables add who and where: a connection's
task binds ``connection`` (and ``user`` after ``hello``); a room's task binds only ``room``
and ``game``, and, while it runs one request, the requester's ``user`` and ``connection``
(or a bot's ``seat`` and ``bot``), so a room's line names whoever acted, not its creator.

:func:`room_closed`, :func:`seat_kicked` and :func:`banned` are the lines an admin action
logs as well as the server's own (a host's kick, a room expiring): call them, so that every
such line has the same fields whoever did it.
"""

from __future__ import annotations

import logging
import sys
from typing import IO, Any

import structlog

__all__ = [
    "banned",
    "configure_logging",
    "get_logger",
    "room_closed",
    "seat_kicked",
]

_events = structlog.get_logger("lumin.events")


def configure_logging(level: str = "info", json: bool = True, file: IO[str] | None = None) -> None:
    """JSON lines (or console lines for a person, coloured on a terminal) on ``file``
    (standard error by default) with context variables merged in, so a line logged inside a
    room says which room, seat and connection it concerns. Lines under ``level`` cost a call
    that returns at once (structlog's filtering bound logger)."""
    target = file or sys.stderr
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(colors=target.isatty())  # no colour codes in a file
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(file=target),
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """A logger for one module of the server."""
    return structlog.get_logger(name)  # type: ignore[no-any-return]


def room_closed(room: str, reason: str, *, by: str | None = None, **more: Any) -> None:
    """``room_closed``: ``room`` closed for good for ``reason`` (``expired``, ``abandoned``,
    ``internal_error``, or an admin's reason), ``by`` whom (a user id, an admin's name;
    ``None``: the server itself)."""
    _events.info("room_closed", room=room, reason=reason, by=by, **more)


def seat_kicked(room: str, seat: int, kicked: str | None, *, by: str, **more: Any) -> None:
    """``seat_kicked``: seat ``seat`` of ``room`` freed, its person (``kicked``, a user id;
    ``None`` for an empty seat) sent to the spectators, ``by`` the host's user id or an
    admin's name."""
    _events.info("seat_kicked", room=room, seat=seat, kicked=kicked, by=by, **more)


def banned(
    *,
    by: str,
    reason: str,
    user: str | None = None,
    address: str | None = None,
    until: float | None = None,
    **more: Any,
) -> None:
    """``banned``: a person (``user``) or an address refused from now until ``until`` (a Unix
    time; ``None``: for good), ``by`` an admin's name, for ``reason``."""
    _events.warning("banned", user=user, address=address, until=until, by=by, reason=reason, **more)
