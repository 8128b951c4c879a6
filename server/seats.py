"""A room's seats: who holds each (nobody, a person or a bot), and the rules of taking one.

Pure: the functions here decide, and the room applies what they decide and tells its viewers.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from engine.core import SeatSpec
from protocol.errors import ErrorCode
from protocol.messages import SeatInfo
from server.errors import Refused

__all__ = [
    "MAX_SET_NAME",
    "Seat",
    "check_start",
    "join_kind",
    "room_code",
    "seat_name",
    "seat_of",
    "seat_specs",
]

#: The longest name a seat shows, in characters: a person's (``set_name``) or a bot's (an
#: account's names are shorter).
MAX_SET_NAME = 40


@attrs.define
class Seat:
    """One seat: open, held by a human (``user``) or played by a bot (``bot``)."""

    kind: str = "open"  # "open", "human" or "bot"
    name: str | None = None
    user: str | None = None
    bot: str | None = None
    choices: dict[str, Any] = attrs.field(factory=dict)
    ready: bool = False

    def to_wire(self) -> dict[str, Any]:
        return attrs.asdict(self)

    def info(self, n: int, connected: bool, rating: float | None = None) -> SeatInfo:
        """The lobby's view of this seat, as seat ``n`` (with its person's shown
        ``rating``)."""
        return SeatInfo(
            seat=n,
            kind=self.kind,  # type: ignore[arg-type]
            name=self.name,
            user=self.user,
            bot=self.bot,
            choices=self.choices,
            ready=self.ready,
            connected=connected,
            rating=rating if self.kind == "human" else None,
        )

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Seat:
        return cls(**data)


def seat_of(seats: Sequence[Seat], user: str) -> int | None:
    """The seat ``user`` holds, if any."""
    for n, seat in enumerate(seats):
        if seat.kind == "human" and seat.user == user:
            return n
    return None


def join_kind(
    seats: Sequence[Seat], seat: int, user: str, status: str, room_id: str
) -> Literal["reclaim", "take"]:
    """Whether ``user`` may sit at ``seat`` of a room in ``status``: ``"reclaim"`` their own
    seat (at any time: a reconnect), or ``"take"`` an open seat before the start or a bot's
    seat before the end (a person takes the bot's place); else :class:`Refused` naming why."""
    if not 0 <= seat < len(seats):
        raise Refused(ErrorCode.NO_SUCH_SEAT, f"Room {room_id} has seats 0-{len(seats) - 1}.")
    slot = seats[seat]
    held = seat_of(seats, user)
    if slot.kind == "human" and slot.user == user:
        return "reclaim"
    if held is not None:
        raise Refused(ErrorCode.SEAT_TAKEN, f"You already hold seat {held} here.")
    if slot.kind == "human":
        raise Refused(ErrorCode.SEAT_TAKEN, f"Seat {seat} is held by {slot.name}.")
    if slot.kind == "open" and status != "waiting":
        raise Refused(ErrorCode.ALREADY_STARTED, "The game has started; open seats are closed.")
    if status == "finished":
        raise Refused(ErrorCode.ALREADY_STARTED, "The game is over.")
    return "take"


def check_start(seats: Sequence[Seat], host: str | None) -> None:
    """Refuse (``not_ready``) to start while a seat is open or a seated person other than the
    host has not said ready. The sentence counts seats from 1, as players see them (seat 0 of
    the protocol is "seat 1")."""
    for n, seat in enumerate(seats, start=1):
        if seat.kind == "open":
            raise Refused(ErrorCode.NOT_READY, f"Seat {n} is still open.")
        if seat.kind == "human" and not seat.ready and seat.user != host:
            raise Refused(ErrorCode.NOT_READY, f"{seat.name} (seat {n}) is not ready.")


def seat_name(name: str, field: str) -> str:
    """``name`` as a seat shows it (a person's ``set_name``, a bot seat's name): inner spaces
    kept, trimmed, 1 to :data:`MAX_SET_NAME` characters with no control or invisible
    characters; ``bad_field`` naming ``field`` otherwise."""
    name = name.strip()
    if not 1 <= len(name) <= MAX_SET_NAME:
        raise Refused(ErrorCode.BAD_FIELD, f"{field}: a name has 1 to {MAX_SET_NAME} characters.")
    if any(unicodedata.category(c)[0] == "C" for c in name):
        raise Refused(
            ErrorCode.BAD_FIELD, f"{field}: a name has no control or invisible characters."
        )
    return name


def room_code() -> str:
    """A short code for a private room, easy to read aloud."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(6))


def seat_specs(seats: Sequence[Mapping[str, Any]]) -> list[SeatSpec]:
    """What the rules are dealt for seats in their stored form (``Seat.to_wire``): a seat
    nobody named is ``Seat n``. A room, its replay and ``lumin verify`` deal from the same."""
    return [
        SeatSpec(name=s.get("name") or f"Seat {n}", bot=s.get("bot"), choices=s.get("choices", {}))
        for n, s in enumerate(seats)
    ]
