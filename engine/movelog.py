"""The move log every game's view carries: the recent happenings at the table, as data a
client puts in words (who, what, where, outcome), derived once from the events in ``evolve``.

A game's state holds a tuple of :class:`Entry` (the newest last, at most :data:`LOG_LENGTH`);
its view shows them through :func:`log_view`. An entry's ``public`` fields are what everyone at
the table saw; its ``private`` fields only ``owner`` saw (the tile a seat drew, the card it
was dealt) and reach that seat's view alone, so a log line never tells a viewer more than
the table did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["LOG_LENGTH", "Entry", "log_view", "record"]

#: How many happenings a view keeps: enough for a round of four seats' turns and their
#: consequences, few enough that a view stays small.
LOG_LENGTH = 12

Fields = tuple[tuple[str, Any], ...]


@attrs.frozen
class Entry:
    """One happening. ``n`` counts the game's happenings from 1 (a client tells a new entry
    from one it has shown by it); ``seat`` is who acted (``None`` for the table itself: a
    deal, the game's end); ``what`` names the kind of happening."""

    n: int
    seat: int | None
    what: str
    public: Fields = ()
    private: Fields = ()
    owner: int | None = None


def _fields(values: Mapping[str, Any] | None) -> Fields:
    return tuple((key, _frozen(value)) for key, value in (values or {}).items())


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(item) for item in value)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def record(
    log: tuple[Entry, ...],
    seat: int | None,
    what: str,
    public: Mapping[str, Any] | None = None,
    *,
    private: Mapping[str, Any] | None = None,
    owner: int | None = None,
) -> tuple[Entry, ...]:
    """``log`` with one more happening at its end, keeping the newest :data:`LOG_LENGTH`.
    ``private`` fields are shown to ``owner`` only (``owner`` defaults to ``seat``)."""
    entry = Entry(
        n=log[-1].n + 1 if log else 1,
        seat=seat,
        what=what,
        public=_fields(public),
        private=_fields(private),
        owner=seat if owner is None else owner,
    )
    return (*log[-(LOG_LENGTH - 1) :], entry)


def log_view(log: tuple[Entry, ...], viewer: int | None) -> list[dict[str, Any]]:
    """The log as ``viewer`` sees it, oldest first: each entry ``{"n", "seat", "what", ...}``
    with its public fields, and its private ones for its owner alone."""
    out: list[dict[str, Any]] = []
    for entry in log:
        item: dict[str, Any] = {"n": entry.n, "seat": entry.seat, "what": entry.what}
        for key, value in entry.public:
            item[key] = _plain(value)
        if entry.private and viewer is not None and viewer == entry.owner:
            for key, value in entry.private:
                item[key] = _plain(value)
        out.append(item)
    return out
