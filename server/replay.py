"""Replays of finished games: step through a stored log and see any viewer's view.

A replay folds the log's records over the first state dealt from the (now revealed) seed.
Position 0 is the deal; position *n* is the state after the *n*-th record. Every 64th state is
kept so a seek costs at most 63 folds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import Game, first_state, from_wire
from engine.registry import get_game
from protocol.errors import ErrorCode
from server.errors import Refused
from server.seats import seat_specs
from server.store import Record, RoomRow, Store

__all__ = ["Replay", "log_document", "may_read"]

_EVERY = 64


def may_read(row: RoomRow, user: str | None) -> bool:
    """Whether a finished game's log and replay (every seat's view, hands included) may be
    read without its code: a public game's by anyone, a private game's by a person who held
    one of its seats (``user``). Anyone else needs the private game's code
    (:class:`server.codes.CodeGuesses` checks it)."""
    if not row.private:
        return True
    return user is not None and any(seat.get("user") == user for seat in row.seats)


class Replay:
    """One finished game, positioned at a step, seen by one viewer (a seat or the public)."""

    @classmethod
    async def open(
        cls,
        store: Store,
        room_id: str,
        viewer: int | None,
        user: str | None = None,
        check_code: Callable[[RoomRow], None] | None = None,
    ) -> Replay:
        """Open ``room_id`` for ``user``; a private game ``user`` did not play in is opened only
        once ``check_code(row)`` lets it (it raises the refusal: a missing, wrong or
        rate-limited code); without ``check_code`` it is refused ``bad_code``."""
        row = await store.get_room(room_id)
        if row is None:
            raise Refused(ErrorCode.NO_SUCH_ROOM, f"There is no stored game {room_id!r}.")
        if row.status != "finished":
            raise Refused(ErrorCode.NOT_FINISHED, "Only finished games can be replayed.")
        if not may_read(row, user):
            if check_code is None:
                raise Refused(ErrorCode.BAD_CODE, "This private game's replay needs its code.")
            check_code(row)
        return cls(row, await store.get_records(room_id), viewer)

    def __init__(self, row: RoomRow, records: list[Record], viewer: int | None) -> None:
        """A replay of the finished game ``row`` with its log ``records``, at the start, seen
        by ``viewer``."""
        self.row = row
        self.game: Game = get_game(row.game)
        self.records = records
        first = first_state(self.game, row.options, seat_specs(row.seats), row.seed)
        self._kept: dict[int, Any] = {0: first}
        self.position = 0
        self.viewer = self._check_viewer(viewer)
        self.state = first

    @property
    def length(self) -> int:
        """The number of steps (records) in the game."""
        return len(self.records)

    def _check_viewer(self, viewer: int | None) -> int | None:
        if viewer is not None and not 0 <= viewer < len(self.row.seats):
            raise Refused(
                ErrorCode.NO_SUCH_SEAT, f"The game had seats 0-{len(self.row.seats) - 1}."
            )
        return viewer

    def seek(self, position: int) -> None:
        """Move to ``position`` (clamped to 0..length)."""
        position = max(0, min(self.length, position))
        start = max(p for p in self._kept if p <= position)
        state = self._kept[start]
        for n in range(start, position):
            for data in self.records[n].events:
                state = self.game.evolve(state, from_wire(self.game.events, data))
            if (n + 1) % _EVERY == 0:
                self._kept[n + 1] = state
        self.state = state
        self.position = position

    def look_as(self, viewer: int | None) -> None:
        """See the game as another seat, or the public (the game is over: nothing is secret)."""
        self.viewer = self._check_viewer(viewer)

    @property
    def at(self) -> float | None:
        """The room's clock at this position: when its last step was made (the start, at 0)."""
        if self.position == 0:
            return self.row.started
        return self.records[self.position - 1].at

    def view(self) -> dict[str, Any]:
        """The current viewer's view at the current position."""
        return self.game.view(self.state, self.viewer)


def log_document(row: RoomRow, records: list[Record]) -> dict[str, Any]:
    """A finished game's whole log as one document (for download and ``lumin verify``)."""
    return {
        "lumin_log": 1,
        "room": row.id,
        "game": row.game,
        "options": row.options,
        "seats": row.seats,
        "seed": row.seed.hex(),
        "salt": row.salt.hex(),
        "commitment": row.commitment,
        "private": row.private,
        "created": row.created,
        "started": row.started,
        "finished": row.finished,
        # How the ratings counted the game (version 5 servers; absent before): its pool,
        # whether it was rated, and the seats that counted as last.
        "rating": row.meta.get("rating"),
        "records": [
            {
                "seq": r.seq,
                "position": r.position,
                "seat": r.seat,
                "command": r.command,
                "at": r.at,
                "events": list(r.events),
            }
            for r in records
        ],
    }
