"""Checks every game's move log (engine/movelog.py) shares, for the games' contract specs and
move-log tests: hiding the private part of others' entries, and the log's shape at a step."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

from engine.core import Viewer
from engine.movelog import LOG_LENGTH, Entry


def blur_private(log: tuple[Entry, ...], viewer: Viewer, rng: random.Random) -> tuple[Entry, ...]:
    """``log`` with the private fields of every entry ``viewer`` does not own replaced by
    random values: a view that showed them would change."""
    return tuple(
        attrs.evolve(entry, private=tuple((key, rng.random()) for key, _ in entry.private))
        if entry.private and entry.owner != viewer
        else entry
        for entry in log
    )


def check_log(views: Sequence[dict[str, Any]], log: tuple[Entry, ...]) -> None:
    """Each view's ``log`` is bounded, numbered upwards, the same entries for every viewer,
    and holds an entry's private fields for its owner alone."""
    for view in views:
        entries = view["log"]
        assert len(entries) <= LOG_LENGTH
        numbers = [entry["n"] for entry in entries]
        assert numbers == sorted(set(numbers))
        assert [e["n"] for e in entries] == [e.n for e in log]
    for entry, shown in zip(log, zip(*(view["log"] for view in views), strict=True), strict=True):
        for viewer, item in enumerate(shown):
            for key, _ in entry.private:
                owner_sees = viewer - 1 == entry.owner  # views[0] is the spectator's
                assert (key in item) == owner_sees, f"{key} of {entry} shown to {viewer - 1}"
