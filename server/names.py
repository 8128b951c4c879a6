"""Names as the server compares them: two names are one when they look alike.

:func:`name_key` folds a name for comparison: Unicode NFKC, case-folded, control and invisible
characters dropped, inner spaces collapsed, then reduced to its *confusable skeleton* (Unicode
Technical Standard #39, from ICU's spoof checker through PyICU: the system's ICU, whose
confusables data maps CYRILLIC CAPITAL LETTER A, GREEK CAPITAL LETTER ALPHA and CHEROKEE
LETTER GO to ``A``), and all of it again until the name stops changing (the skeleton of a
case-folded name may hold capitals, whose folding may have a skeleton of its own). So
``Ada``, ``ADA``, ``Ada`` with a Cyrillic or a Greek first letter, ``ADA`` in Cherokee letters
(U+13AA U+13A0 U+13AA) and ``Ada`` with a zero-width space are one name, and an account's key
is the fold of its name.

The fold follows the system's ICU: its confusables data changes with ICU's version, so a
Lumin moved to a system with another ICU may fold some rare names otherwise than when they
were claimed (an account whose key no longer matches its name is then found by its owner's
sessions, not by signing in with that name).

Case folding comes first, so the fold keeps case out of it entirely (``Ian`` and ``ian`` are
one name) at the price of one pair UTS #39 calls confusable only in capitals: ``I`` and
``l`` (``Ian`` and ``lan`` stay two names).

:func:`refold` gives every claimed name its key under the fold when the fold changes (a store
migration): where two names now share a key, the earlier claim keeps its name and the later
is renamed (:func:`renamed`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import attrs
import icu

__all__ = ["MAX_NAME", "Refolded", "name_key", "refold", "renamed"]

#: Characters of a claimed name at most (after trimming).
MAX_NAME = 24
#: Rounds of folding at most (every name tried settles within three).
_ROUNDS = 8

_SPOOF = icu.SpoofChecker()


def _plain(name: str) -> str:
    """NFKC, case-folded, control and invisible characters dropped, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    shown = "".join(c for c in folded if not unicodedata.category(c).startswith("C"))
    return re.sub(r"\s+", " ", shown).strip()


def name_key(name: str) -> str:
    """``name`` folded for comparison (see the module docstring)."""
    key = name
    for _ in range(_ROUNDS):
        folded = str(_SPOOF.getSkeleton(0, _plain(key)))
        if folded == key:
            break
        key = folded
    return key


def renamed(name: str, n: int) -> str:
    """The ``n``-th name tried for a later claim of a look-alike of ``name``: ``NAME n``, the
    name cut so that it fits :data:`MAX_NAME` characters."""
    suffix = f" {n}"
    return name[: MAX_NAME - len(suffix)].rstrip() + suffix


@attrs.frozen
class Refolded:
    """A claimed name under the fold: the account's identity, its key, its name (its new one
    when it was renamed) and, when renamed, the name it had."""

    identity: str
    key: str
    name: str
    renamed_from: str | None = None


def refold(claims: Iterable[tuple[str, str, float]]) -> list[Refolded]:
    """Every claim ``(identity, name, created)`` with its key under the fold, earliest first;
    a claim whose key an earlier claim has is renamed ``NAME 2``, ``NAME 3``..., the first
    whose key no claim has."""
    ordered = sorted(claims, key=lambda claim: (claim[2], claim[0]))
    keys = {name_key(name) for _, name, _ in ordered}
    taken: set[str] = set()
    result = []
    for identity, name, _ in ordered:
        key = name_key(name)
        if key not in taken:
            taken.add(key)
            result.append(Refolded(identity, key, name))
            continue
        n = 2
        while True:
            other = renamed(name, n)
            other_key = name_key(other)
            if other_key not in taken and other_key not in keys:
                break
            n += 1
        taken.add(other_key)
        result.append(Refolded(identity, other_key, other, name))
    return result
