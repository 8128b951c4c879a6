"""The fairness commitment: SHA-256 of the salt then the seed, checked from their hex forms."""

from __future__ import annotations

import hashlib

from protocol.fairness import commit, verify


def test_the_commitment_is_sha256_of_salt_then_seed() -> None:
    seed, salt = bytes(range(16)), b"\xff" * 16
    assert commit(seed, salt) == hashlib.sha256(salt + seed).hexdigest()
    assert commit(b"", b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert verify(seed.hex(), salt.hex(), commit(seed, salt))
    assert verify(seed.hex(), salt.hex(), commit(seed, salt).upper())
    assert not verify(salt.hex(), seed.hex(), commit(seed, salt))  # order matters
    assert not verify("not hex", salt.hex(), commit(seed, salt))
