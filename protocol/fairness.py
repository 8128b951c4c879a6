"""The seed commitment that makes a room's randomness verifiable.

At creation a room publishes ``commitment = SHA-256(salt + seed)`` in hex, where ``seed`` (at
least 16 bytes from the operating system's secure source) drives every deal, shuffle and die,
and ``salt`` (16 random bytes) keeps the commitment from being searched. At the end ``game_over``
reveals both in hex; anyone checks them with :func:`verify` and recomputes every draw from the
seed and the log (``engine.core.chance``).

Seat entropy (below) adds every seat's share: each seat commits to fresh entropy
(:func:`entropy_commitment`), then reveals it, and the room's seed is :func:`room_seed` of the
server's seed and every seat's contribution, so neither the operator nor any one player
chooses the deal. :func:`start_problems` and :func:`own_contribution_problem` are the checks a
verifier and a client run on a start record.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Mapping, Sequence

import attrs

__all__ = [
    "ENTROPY_BYTES",
    "ENTROPY_TAG",
    "KINDS",
    "SEED_TAG",
    "Contribution",
    "commit",
    "draw_entropy",
    "entropy_commitment",
    "own_contribution_problem",
    "room_seed",
    "start_problems",
    "verify",
]


def commit(seed: bytes, salt: bytes) -> str:
    """The hex SHA-256 of ``salt`` followed by ``seed``."""
    return hashlib.sha256(salt + seed).hexdigest()


def verify(seed_hex: str, salt_hex: str, commitment: str) -> bool:
    """Whether a revealed seed and salt (hex) match a published commitment (hex)."""
    try:
        seed, salt = bytes.fromhex(seed_hex), bytes.fromhex(salt_hex)
    except ValueError:
        return False
    return hmac.compare_digest(commit(seed, salt), commitment.lower())


# -- seat entropy: every seat's share of the room's chance --------------------------------------
#
# The derivation below is what a room's seed becomes once seats contribute (docs/protocol.md,
# "Chance that no one chooses"): the server's committed seed and, seat by seat, what each seat
# gave. Every field is tagged, indexed or length-prefixed, so no two different seatings of the
# same bytes hash alike (an absent seat is never read as another seat's empty entropy).

#: The domain tags of the two hashes; a new derivation takes a new tag.
SEED_TAG = b"lumin-seed/1"
ENTROPY_TAG = b"lumin-entropy/1"

#: How many bytes of entropy a seat contributes.
ENTROPY_BYTES = 32

#: What a seat gave, as its start record says: its entropy (``revealed``), a commitment it did
#: not reveal in time (``withheld``), nothing (``absent``: it did not commit in time, or its
#: client is too old), or nothing because a bot holds it (``bot``).
KINDS = ("revealed", "withheld", "absent", "bot")


@attrs.frozen
class Contribution:
    """Seat ``seat``'s part in the room's seed: its ``kind`` (:data:`KINDS`) and, when it
    revealed, its ``entropy`` (:data:`ENTROPY_BYTES` bytes; empty for every other kind)."""

    seat: int
    kind: str
    entropy: bytes = b""

    def __attrs_post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"seat {self.seat}: unknown contribution kind {self.kind!r}")
        if self.seat < 0:
            raise ValueError(f"seat {self.seat}: a seat number is 0 or more")
        if self.kind == "revealed" and len(self.entropy) != ENTROPY_BYTES:
            raise ValueError(f"seat {self.seat}: revealed entropy is {ENTROPY_BYTES} bytes")
        if self.kind != "revealed" and self.entropy:
            raise ValueError(f"seat {self.seat}: only a revealed seat has entropy")


def _framed(data: bytes) -> bytes:
    """``data`` after its length as 4 bytes, big-endian."""
    return struct.pack(">I", len(data)) + data


def draw_entropy() -> bytes:
    """Fresh entropy for a seat, from the operating system's secure source."""
    return secrets.token_bytes(ENTROPY_BYTES)


def entropy_commitment(room: str, seat: int, entropy: bytes) -> str:
    """The hex commitment a seat sends before it reveals ``entropy``:
    ``SHA-256(ENTROPY_TAG ‖ framed(room) ‖ seat as 4 bytes ‖ framed(entropy))``. It names the
    room and the seat, so a commitment copied from another seat or room never matches."""
    body = ENTROPY_TAG + _framed(room.encode()) + struct.pack(">I", seat) + _framed(entropy)
    return hashlib.sha256(body).hexdigest()


def room_seed(server_seed: bytes, contributions: Sequence[Contribution]) -> bytes:
    """The room's seed (32 bytes), from which every draw of the game comes:
    ``SHA-256(SEED_TAG ‖ framed(server_seed) ‖ seats as 4 bytes ‖ for each seat n in order:
    n as 4 bytes ‖ framed(kind) ‖ framed(entropy))``. ``contributions`` name seats 0, 1, ...
    each once, in order; raises :class:`ValueError` otherwise."""
    seats = [c.seat for c in contributions]
    if seats != list(range(len(contributions))):
        raise ValueError(f"the contributions name seats {seats}, not each seat once in order")
    body = [SEED_TAG, _framed(server_seed), struct.pack(">I", len(contributions))]
    for contribution in contributions:
        body += [
            struct.pack(">I", contribution.seat),
            _framed(contribution.kind.encode()),
            _framed(contribution.entropy),
        ]
    return hashlib.sha256(b"".join(body)).digest()


def start_problems(
    room: str, commitments: Mapping[int, str], contributions: Sequence[Contribution]
) -> list[str]:
    """What is wrong with a start record, given the commitments the room's log holds (by
    seat; a seat's first commitment): a sentence per problem, none for an honest record. A
    revealed seat must have committed to exactly that entropy; a committed seat is recorded
    revealed or withheld, never absent or a bot; a withheld seat must have committed."""
    problems: list[str] = []
    recorded = {c.seat for c in contributions}
    for seat in sorted(set(commitments) - recorded):
        problems.append(f"seat {seat + 1} committed but the start record leaves it out")
    for c in contributions:
        committed = commitments.get(c.seat)
        name = f"seat {c.seat + 1}"
        if c.kind == "revealed":
            if committed is None:
                problems.append(f"{name} is recorded as revealed without a commitment")
            elif not hmac.compare_digest(
                entropy_commitment(room, c.seat, c.entropy), committed.lower()
            ):
                problems.append(f"{name}'s revealed entropy does not match its commitment")
        elif c.kind == "withheld" and committed is None:
            problems.append(f"{name} is recorded as withheld without a commitment")
        elif c.kind in ("absent", "bot") and committed is not None:
            problems.append(f"{name} committed but is recorded as {c.kind}")
    return problems


#: How a start record's kind reads in a sentence about a seat.
_SAID = {"withheld": "withheld its entropy", "absent": "gave none", "bot": "is a bot's"}


def own_contribution_problem(
    seat: int, entropy: bytes, contributions: Sequence[Contribution]
) -> str | None:
    """A client's check at the start: ``None`` when its own ``seat`` is recorded as having
    revealed exactly ``entropy``, else the sentence to show its player."""
    mine = next((c for c in contributions if c.seat == seat), None)
    if mine is None:
        return f"The start record leaves your seat ({seat + 1}) out."
    if mine.kind != "revealed":
        said = _SAID[mine.kind]
        return (
            f"The start record says your seat ({seat + 1}) {said}: your entropy is not in the deal."
        )
    if not hmac.compare_digest(mine.entropy, entropy):
        return f"The start record holds other entropy than your seat ({seat + 1}) revealed."
    return None
