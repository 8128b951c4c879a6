"""A client's live copy of one room's view, kept up to date by snapshots and deltas.

A snapshot replaces the copy; a delta applies only to the copy whose ``seq`` equals the delta's
``base``, and moves it to the delta's ``seq``. Anything else means a delta was missed: the
client sends ``resume`` with the copy's ``seq`` and ``epoch`` and receives what it lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from protocol.delta import apply
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Delta, Snapshot

__all__ = ["RoomView"]


@attrs.frozen(kw_only=True)
class RoomView:
    """One room as a client sees it: the view at ``seq`` within ``epoch``, the seat it is seen
    from (``None`` when watching), that seat's legal commands, and the room clock's origin."""

    room: str
    epoch: str
    seq: int
    seat: int | None
    view: Any
    legal: tuple[Mapping[str, Any], ...]
    clock_origin: float

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> RoomView:
        """The copy a snapshot describes."""
        return cls(
            room=snapshot.room,
            epoch=snapshot.epoch,
            seq=snapshot.seq,
            seat=snapshot.seat,
            view=snapshot.view,
            legal=snapshot.legal,
            clock_origin=snapshot.clock_origin,
        )

    def apply(self, delta: Delta) -> RoomView:
        """The copy after ``delta``; this one is left untouched.

        Raises :class:`ProtocolError`: ``out_of_sync`` when the delta is for another room or
        its ``base`` is not this copy's ``seq``; ``bad_patch`` when its operations do not fit.
        """
        if delta.room != self.room:
            raise ProtocolError(
                ErrorCode.OUT_OF_SYNC, f"A delta of room {delta.room!r} is not for {self.room!r}."
            )
        if delta.base != self.seq:
            raise ProtocolError(
                ErrorCode.OUT_OF_SYNC,
                f"Room {self.room!r}: the delta starts at {delta.base}, the copy is at {self.seq}.",
            )
        view = apply(self.view, delta.ops)
        legal = self.legal if delta.legal is None else delta.legal
        return attrs.evolve(self, seq=delta.seq, view=view, legal=legal)

    def room_time(self, server_time: float) -> float:
        """The room clock (the clock of the view's deadlines) at a given server time."""
        return server_time - self.clock_origin
