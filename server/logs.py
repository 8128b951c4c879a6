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

Console lines (``--log-format console``) write every character of a line's text that is not
printable as Python escapes it in a string (``\\x1b``, ``\\n``, ``\\u202e``): a name holding an
escape sequence cannot move the cursor or clear the screen of the operator reading the log,
nor a newline in it forge a line. A traceback keeps its newlines. JSON lines escape them
already.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from collections.abc import Callable
from typing import IO, Any

import structlog

__all__ = [
    "banned",
    "configure_logging",
    "console_processors",
    "escaped",
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
    renderers: list[structlog.types.Processor] = (
        [structlog.processors.JSONRenderer()]
        if json
        else console_processors(colors=target.isatty())  # no colour codes in a file
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            *renderers,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(file=target),
        cache_logger_on_first_use=True,
    )


def escaped(text: str, keep: str = "") -> str:
    """``text`` with every character that is not printable (but those in ``keep``) written as
    Python escapes it in a string (``\\x1b``); printable text comes back as it is."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


def console_processors(colors: bool) -> list[structlog.types.Processor]:
    """The last processors of a console line: its traceback escaped but for its newlines, then
    structlog's console renderer with every column's text escaped (see the module docstring;
    the renderer writes a text value as it is unless it holds a space or a quote)."""
    renderer = structlog.dev.ConsoleRenderer(colors=colors)
    renderer.columns = [
        dataclasses.replace(column, formatter=_escaping(column.formatter))
        for column in renderer.columns
    ]
    return [_escape_tracebacks, renderer]


def _escaping(formatter: Any) -> Any:
    """A column's ``formatter`` whose values' text is escaped (a level's has none)."""
    if not isinstance(formatter, structlog.dev.KeyValueColumnFormatter):
        return formatter
    shown: Callable[[object], str] = formatter.value_repr
    return dataclasses.replace(formatter, value_repr=lambda value: escaped(shown(value)))


def _escape_tracebacks(
    logger: Any, method: str, event: structlog.types.EventDict
) -> structlog.types.EventDict:
    """A processor: the traceback and stack a console line ends with, escaped but for their
    newlines (the renderer writes them as they are, after the columns)."""
    for key in ("exception", "stack"):
        if isinstance(event.get(key), str):
            event[key] = escaped(event[key], keep="\n")
    return event


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
