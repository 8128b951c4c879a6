"""Protocol versions and their negotiation.

The client's ``hello`` lists every version it speaks; the server answers in ``welcome`` with
the highest version both speak, or with a fatal ``unsupported_version`` error when they share
none. Everything after ``welcome`` follows the chosen version.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ACCOUNTS_VERSION",
    "MOVED_VERSION",
    "NAME_VERSION",
    "OPERATOR_VERSION",
    "PROTOCOL_VERSION",
    "RESULTS_VERSION",
    "SUPPORTED_VERSIONS",
    "choose_version",
]

#: The version this package implements: 2 adds ``moved`` (a cluster's room lives on another
#: node) to version 1; 3 adds the operator's words to ``room_closed`` and ``kicked``
#: (``message``); 4 adds ``set_name`` (renaming without reconnecting); 5 adds players who come
#: back: accounts (``claim_name``, ``sign_in``, sessions), an outside provider's signed
#: identity in ``hello`` (``jwt``), ratings beside names (``rating`` of a seat) and their
#: change at a game's end (``ratings_changed``), and quick play (``play_now``); 6 adds a
#: finished game's result to its lobby entry (``RoomSummary.result``) and when an option
#: applies (``OptionInfo.when``).
PROTOCOL_VERSION = 6
#: Every version this package can speak, oldest first.
SUPPORTED_VERSIONS: tuple[int, ...] = (1, 2, 3, 4, 5, PROTOCOL_VERSION)
#: The first version whose clients are sent ``moved``; older ones get ``try_again`` instead.
MOVED_VERSION = 2
#: The first version whose clients get ``message`` in ``room_closed`` and ``kicked``; older
#: ones get the same messages without it (their decoders refuse fields they do not know).
OPERATOR_VERSION = 3
#: The first version whose clients may send ``set_name``; older ones rename by reconnecting
#: with a new ``hello``, as before.
NAME_VERSION = 4
#: The first version with accounts, ratings and quick play; older clients play as guests and
#: are sent seats without ratings (their decoders refuse fields they do not know).
ACCOUNTS_VERSION = 5
#: The first version whose clients get finished games' results in the lobby
#: (``RoomSummary.result``) and the options' ``when``; older ones get the same summaries and
#: options without them (their decoders refuse fields they do not know).
RESULTS_VERSION = 6


def choose_version(
    offered: Iterable[int], supported: Iterable[int] = SUPPORTED_VERSIONS
) -> int | None:
    """The highest version in both lists, or ``None`` when they share none."""
    common = set(offered) & set(supported)
    return max(common) if common else None
