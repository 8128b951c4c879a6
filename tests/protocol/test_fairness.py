"""The fairness commitment (SHA-256 of the salt then the seed, checked from their hex forms), and
seat entropy: each seat's commitment, the room's seed from every seat's contribution, and the
checks of a start record."""

from __future__ import annotations

import hashlib

import pytest

from protocol.fairness import (
    Contribution,
    commit,
    draw_entropy,
    entropy_commitment,
    own_contribution_problem,
    room_seed,
    start_problems,
    verify,
)


def test_the_commitment_is_sha256_of_salt_then_seed() -> None:
    seed, salt = bytes(range(16)), b"\xff" * 16
    assert commit(seed, salt) == hashlib.sha256(salt + seed).hexdigest()
    assert commit(b"", b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert verify(seed.hex(), salt.hex(), commit(seed, salt))
    assert verify(seed.hex(), salt.hex(), commit(seed, salt).upper())
    assert not verify(salt.hex(), seed.hex(), commit(seed, salt))  # order matters
    assert not verify("not hex", salt.hex(), commit(seed, salt))


# -- seat entropy ------------------------------------------------------------------------------

ROOM = "r-fair"
ADA, BEA = bytes(range(32)), bytes(range(32, 64))
SERVER = bytes(range(100, 132))


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def test_a_seats_commitment_is_the_tagged_hash_of_room_seat_and_entropy() -> None:
    expected = hashlib.sha256(
        b"lumin-entropy/1" + _u32(len(ROOM)) + ROOM.encode() + _u32(1) + _u32(32) + BEA
    ).hexdigest()
    assert entropy_commitment(ROOM, 1, BEA) == expected
    assert entropy_commitment(ROOM, 0, BEA) != expected, "another seat"
    assert entropy_commitment("r-other", 1, BEA) != expected, "another room"


def test_the_room_seed_hashes_every_seat_framed_in_order() -> None:
    seating = [Contribution(0, "revealed", ADA), Contribution(1, "absent"), Contribution(2, "bot")]
    body = b"lumin-seed/1" + _u32(32) + SERVER + _u32(3)
    body += _u32(0) + _u32(8) + b"revealed" + _u32(32) + ADA
    body += _u32(1) + _u32(6) + b"absent" + _u32(0)
    body += _u32(2) + _u32(3) + b"bot" + _u32(0)
    assert room_seed(SERVER, seating) == hashlib.sha256(body).digest()
    # A known answer, for the browser's port and independent verifiers.
    assert room_seed(SERVER, seating).hex() == (
        "6fb90d6cce7cb9f37b60559e210dd08b05b74dfda76bef3752a0dc81d34e86dc"
    )


def test_no_two_seatings_give_one_seed() -> None:
    seeds = {
        room_seed(SERVER, seating)
        for seating in (
            [Contribution(0, "revealed", ADA), Contribution(1, "revealed", BEA)],
            [Contribution(0, "revealed", BEA), Contribution(1, "revealed", ADA)],
            [Contribution(0, "revealed", ADA), Contribution(1, "absent")],
            [Contribution(0, "revealed", ADA), Contribution(1, "withheld")],
            [Contribution(0, "revealed", ADA), Contribution(1, "bot")],
            [Contribution(0, "revealed", ADA)],
            [Contribution(0, "absent"), Contribution(1, "revealed", ADA)],
        )
    }
    assert len(seeds) == 7
    assert room_seed(SERVER, []) != room_seed(SERVER[:-1], []), "the server's seed counts whole"


def test_a_seating_must_name_each_seat_once_in_order() -> None:
    with pytest.raises(ValueError, match="each seat once in order"):
        room_seed(SERVER, [Contribution(1, "absent"), Contribution(0, "absent")])
    with pytest.raises(ValueError, match="each seat once in order"):
        room_seed(SERVER, [Contribution(0, "absent"), Contribution(0, "bot")])
    with pytest.raises(ValueError, match="32 bytes"):
        Contribution(0, "revealed", b"short")
    with pytest.raises(ValueError, match="only a revealed seat"):
        Contribution(0, "withheld", ADA)
    with pytest.raises(ValueError, match="unknown contribution kind"):
        Contribution(0, "lucky")


def test_an_honest_start_record_has_no_problem() -> None:
    commitments = {0: entropy_commitment(ROOM, 0, ADA), 1: entropy_commitment(ROOM, 1, BEA)}
    record = [Contribution(0, "revealed", ADA), Contribution(1, "withheld"), Contribution(2, "bot")]
    assert start_problems(ROOM, commitments, record) == []
    assert own_contribution_problem(0, ADA, record) is None


def test_each_forgery_of_a_start_record_is_named() -> None:
    commitments = {0: entropy_commitment(ROOM, 0, ADA), 1: entropy_commitment(ROOM, 1, BEA)}
    assert start_problems(
        ROOM, commitments, [Contribution(0, "revealed", BEA), Contribution(1, "revealed", BEA)]
    ) == ["seat 1's revealed entropy does not match its commitment"]
    assert start_problems(
        ROOM, commitments, [Contribution(0, "revealed", ADA), Contribution(1, "absent")]
    ) == ["seat 2 committed but is recorded as absent"]
    assert start_problems(ROOM, commitments, [Contribution(0, "revealed", ADA)]) == [
        "seat 2 committed but the start record leaves it out"
    ]
    assert start_problems(
        ROOM, {0: commitments[0]}, [Contribution(0, "revealed", ADA), Contribution(1, "withheld")]
    ) == ["seat 2 is recorded as withheld without a commitment"]
    assert start_problems(
        ROOM,
        {0: commitments[0]},
        [Contribution(0, "revealed", ADA), Contribution(1, "revealed", BEA)],
    ) == ["seat 2 is recorded as revealed without a commitment"]


def test_a_client_names_what_became_of_its_own_entropy() -> None:
    withheld = [Contribution(0, "withheld"), Contribution(1, "revealed", BEA)]
    assert own_contribution_problem(0, ADA, withheld) == (
        "The start record says your seat (1) withheld its entropy: your entropy is not in the deal."
    )
    assert own_contribution_problem(1, ADA, withheld) == (
        "The start record holds other entropy than your seat (2) revealed."
    )
    assert own_contribution_problem(2, ADA, withheld) == (
        "The start record leaves your seat (3) out."
    )
    assert len(draw_entropy()) == 32 and draw_entropy() != draw_entropy()
