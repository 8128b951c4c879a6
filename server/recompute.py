"""Every rating again, from rated games' downloaded logs (``lumin ratings recompute``).

A log document (``GET /rooms/<id>/log``) holds the seats, the options, the revealed seed and
every record, and, from servers that rate, how the ratings counted the game (``rating``: its
pool, whether it was rated, the seats that counted as last). Replaying the records from the
seed gives the outcome, hence the ranks; folding the rated games in the order they finished
(then by room id, as the server's ``/rated`` lists them) through :func:`server.ratings.rate`
gives every rating exactly as the server computed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core import first_state, from_wire
from engine.registry import get_game
from server.playerrows import RatingRow
from server.ratings import Player, counted_ranks, rate
from server.seats import seat_specs
from server.store import Store

__all__ = ["RecomputeError", "final_ranks", "recompute", "recompute_into"]


class RecomputeError(Exception):
    """A log that cannot be recomputed (it names the room and why)."""


def final_ranks(document: Mapping[str, Any]) -> list[int]:
    """The ranks of a finished game, from replaying its log document."""
    game = get_game(str(document["game"]))
    seed = bytes.fromhex(document["seed"])
    state = first_state(game, document["options"], seat_specs(document["seats"]), seed)
    for record in document["records"]:
        for data in record["events"]:
            state = game.evolve(state, from_wire(game.events, data))
    outcome = game.outcome(state)
    if outcome is None:
        raise RecomputeError(f"room {document.get('room')}: the log ends before the game does")
    return list(outcome.ranks)


def _players(seats: Sequence[Mapping[str, Any]]) -> list[Player]:
    return [
        Player(n, seat["user"], seat.get("name") or f"Seat {n}")
        for n, seat in enumerate(seats)
        if seat.get("kind") == "human" and seat.get("user") is not None
    ]


def recompute(documents: Iterable[Mapping[str, Any]]) -> list[RatingRow]:
    """Every rating the rated games among ``documents`` give, from nothing."""
    rated = [d for d in documents if (d.get("rating") or {}).get("rated")]
    rated.sort(key=lambda d: (d["finished"], d["room"]))
    held: dict[tuple[str, str, str], RatingRow] = {}
    for document in rated:
        game, info = str(document["game"]), document["rating"]
        pool = str(info["pool"])
        players = _players(document["seats"])
        ranks = counted_ranks(final_ranks(document), info.get("forfeits", ()))
        before = {
            p.user: held[(p.user, game, pool)] for p in players if (p.user, game, pool) in held
        }
        for row in rate(game, pool, players, ranks, before, float(document["finished"])):
            held[(row.player, game, pool)] = row
    return sorted(held.values(), key=lambda r: (r.game, r.pool, r.player))


async def recompute_into(store: Store, documents: Iterable[Mapping[str, Any]]) -> int:
    """Recompute every rating into ``store``, which must hold none yet; how many were kept."""
    if await store.get_ratings():
        raise RecomputeError("the store holds ratings already: recompute into an empty one")
    rows = recompute(documents)
    if rows:
        await store.save_ratings(rows)
    return len(rows)
