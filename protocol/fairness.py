"""The seed commitment that makes a room's randomness verifiable.

At creation a room publishes ``commitment = SHA-256(salt + seed)`` in hex, where ``seed`` (at
least 16 bytes from the operating system's secure source) drives every deal, shuffle and die,
and ``salt`` (16 random bytes) keeps the commitment from being searched. At the end ``game_over``
reveals both in hex; anyone checks them with :func:`verify` and recomputes every draw from the
seed and the log (``engine.core.chance``).
"""

from __future__ import annotations

import hashlib
import hmac

__all__ = ["commit", "verify"]


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
