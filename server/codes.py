"""Private rooms' codes, and the wrong guesses of them each client address and each room may
make.

A private room's code is 6 characters of a 32-letter alphabet (about a billion codes): enough
only while guessing is slow. Every place a code opens something (``watch_room``,
``join_seat``, ``resume``, ``open_replay`` and ``GET /rooms/<id>/log``) checks it here. A
wrong code takes a token from the guessing address's bucket and from the room's; while either
bucket is empty, every code for that room from that address, or for that room from anywhere,
is refused ``rate_limited`` before it is compared, the right one too (else an attacker would
simply guess on until a code is not refused). An address may guess :data:`ADDRESS_BURST`
codes, then one every :data:`ADDRESS_EVERY` seconds; a room takes :data:`ROOM_BURST` wrong
codes from everyone together, then one every :data:`ROOM_EVERY` seconds: a billion codes then
take centuries. A request without a code is not a guess: it is told the room needs one.
Codes are compared in constant time.
"""

from __future__ import annotations

import secrets
import time

from protocol.errors import ErrorCode
from server.errors import Refused
from server.limits import Buckets

__all__ = ["ADDRESS_BURST", "ADDRESS_EVERY", "ROOM_BURST", "ROOM_EVERY", "CodeGuesses"]

#: Wrong codes one client address may send: a burst, then one per this many seconds.
ADDRESS_BURST, ADDRESS_EVERY = 10, 6.0
#: Wrong codes one room takes from everyone together: a burst, then one per this many seconds.
ROOM_BURST, ROOM_EVERY = 30, 2.0


class CodeGuesses:
    """The wrong private-room codes of one node, by client address and by room."""

    def __init__(self) -> None:
        self.by_address = Buckets(1 / ADDRESS_EVERY, ADDRESS_BURST)
        self.by_room = Buckets(1 / ROOM_EVERY, ROOM_BURST)

    def check(self, room: str, code: str | None, actual: str | None, address: str) -> None:
        """Let ``code`` open private room ``room`` (whose code is ``actual``) for a client of
        ``address`` (its bucket, :func:`server.limits.address_key`), or refuse: ``bad_code``
        when it is missing or wrong, ``rate_limited`` while the address or the room has had too
        many wrong codes."""
        if code is None:
            raise Refused(ErrorCode.BAD_CODE, "This private room needs its code.")
        now = time.monotonic()
        for buckets, key, sentence in (
            (self.by_address, address, "Too many wrong room codes from your address"),
            (self.by_room, room, "Too many wrong codes for this room"),
        ):
            if buckets.tokens(key, now) < 1:
                wait = buckets.wait(key, now)
                raise Refused(ErrorCode.RATE_LIMITED, f"{sentence}; try again in {wait:.0f} s.")
        if secrets.compare_digest(code.encode(), (actual or "").encode()):
            return
        self.by_address.take(address, now)
        self.by_room.take(room, now)
        raise Refused(ErrorCode.BAD_CODE, "That code is not this private room's; check it.")

    def prune(self, now: float) -> None:
        """Forget refilled buckets (housekeeping)."""
        self.by_address.prune(now)
        self.by_room.prune(now)
