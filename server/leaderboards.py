"""Players' data over HTTP, as JSON: leaderboards, a player's ratings and recent games, and
the rated games' list (what ``lumin ratings download`` fetches). ``docs/protocol.md``
("Accounts, ratings and quick play") documents each answer.

Each route is a function of the store, the query's parameters (first value of each) and the
:class:`Asker` (the games a player needs on a leaderboard, whether the admin token came),
answering an HTTP status and a JSON body. Every list is one page of at most :data:`MAX_LIMIT`
entries read by a bounded query (an index walked from the top or from where the last page
ended, and a ``LIMIT``): an answer with more to come says so in ``next``, which the client
sends back as ``?after=`` for the following page. Nothing is read whole, so no request costs
more than its page, however many players the store holds.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from http import HTTPStatus
from typing import Any

import attrs

from server.playerrows import RatingRow
from server.ratings import POOLS
from server.store import Store

__all__ = [
    "MAX_LIMIT",
    "PLAYER_ROUTES",
    "Asker",
    "answer",
    "history",
    "leaderboard",
    "rated",
    "ratings",
]

#: Entries one answer holds at most (``limit`` caps at it).
MAX_LIMIT = 200

Answer = tuple[HTTPStatus, dict[str, Any]]


@attrs.frozen
class Asker:
    """What a route needs to know beyond the query: the rated games a player needs to be on a
    leaderboard (``--leaderboard-games``), and whether the request carried the admin token."""

    leaderboard_games: int
    admin: bool = False


class BadQuery(Exception):
    """A parameter that cannot be read; its text is the answer's sentence."""


def _limit(query: Mapping[str, str], default: int) -> int:
    try:
        value = int(query.get("limit", default))
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_LIMIT:
        raise BadQuery(f"limit is a whole number from 1 to {MAX_LIMIT}")
    return value


def _next(values: Sequence[Any]) -> str:
    """A page's ``next``: where it ended, as an opaque URL-safe string."""
    return base64.urlsafe_b64encode(json.dumps(list(values)).encode()).decode().rstrip("=")


def _after(query: Mapping[str, str], kinds: Sequence[type]) -> list[Any] | None:
    """The ``after`` parameter read back (``None`` when absent), each value of its kind;
    :class:`BadQuery` for anything another answer's ``next`` could not be."""
    text = query.get("after")
    if text is None:
        return None
    try:
        values = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError):
        values = None
    if (
        not isinstance(values, list)
        or len(values) != len(kinds)
        or not all(_is(value, kind) for value, kind in zip(values, kinds, strict=True))
    ):
        raise BadQuery("after is the next of the previous page, as it came")
    return values


def _is(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, kind) and not isinstance(value, bool)


def _bad(message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> Answer:
    return status, {"error": message}


async def leaderboard(store: Store, query: Mapping[str, str], asker: Asker) -> Answer:
    """``/leaderboard?game=G[&pool=P][&limit=N][&after=NEXT]``: one page of the pool's best
    players with at least ``leaderboard_games`` rated games, ranked (equal shown ratings share
    a rank, across pages too), and the game's pools."""
    game = query.get("game")
    if game not in POOLS:
        return _bad(f"game is one of {', '.join(POOLS)}", HTTPStatus.NOT_FOUND)
    pool = query.get("pool", POOLS[game][0])
    if pool not in POOLS[game]:
        return _bad(f"{game}'s pools are {', '.join(POOLS[game])}", HTTPStatus.NOT_FOUND)
    limit = _limit(query, 100)
    # where the last page ended: its last entry's ordinal, games, user id, rank and position
    after = _after(query, (float, int, str, int, int))
    key, rank, position = None, 0, 0
    if after is not None:
        key, (rank, position) = (float(after[0]), after[1], after[2]), after[3:]
    rows = await store.get_leaderboard(game, pool, asker.leaderboard_games, limit + 1, key)
    players: list[dict[str, Any]] = []
    shown = None if after is None else round(float(after[0]), 2)
    for row in rows[:limit]:
        position += 1
        if row.shown != shown:
            rank, shown = position, row.shown
        players.append(
            {"name": row.name, "user": row.player, "rating": row.shown, "games": row.games,
             "rank": rank}
        )  # fmt: skip
    more = len(rows) > limit
    last: RatingRow | None = rows[limit - 1] if more else None
    return HTTPStatus.OK, {
        "game": game,
        "pool": pool,
        "pools": list(POOLS[game]),
        "players": players,
        "next": None
        if last is None
        else _next([last.mu - 3 * last.sigma, last.games, last.player, rank, position]),
    }


async def ratings(store: Store, query: Mapping[str, str], asker: Asker) -> Answer:
    """``/ratings?user=U``: every rating of one player (one per game and pool at most)."""
    user = query.get("user")
    if not user:
        return _bad("user names the player (their public user id)")
    rows = await store.get_ratings(player=user)
    return HTTPStatus.OK, {
        "user": user,
        "ratings": [
            {
                "game": r.game,
                "pool": r.pool,
                "rating": r.shown,
                "mu": r.mu,
                "sigma": r.sigma,
                "games": r.games,
            }
            for r in rows
        ],
    }


async def history(store: Store, query: Mapping[str, str], asker: Asker) -> Answer:
    """``/history?user=U[&limit=N][&after=NEXT]``: one page of the player's finished games,
    newest first, with how each ended for them and a link to its log (the replay). Private
    rooms' games are left out: anyone may ask for anyone's history, and a private room's id
    is for its players (with its code), not for whoever reads the page."""
    user = query.get("user")
    if not user:
        return _bad("user names the player (their public user id)")
    limit = _limit(query, 50)
    after = _after(query, (float, str, int))
    key = None if after is None else (float(after[0]), after[1], after[2])
    rows = await store.get_history(user, limit + 1, key)
    more = len(rows) > limit
    rows = rows[:limit]
    return HTTPStatus.OK, {
        "user": user,
        "games": [
            {
                "room": r.room,
                "game": r.game,
                "pool": r.pool,
                "seat": r.seat,
                "name": r.name,
                "rank": r.rank,
                "forfeit": r.forfeit,
                "finished": r.finished,
                "rated": r.rated,
                "before": r.before,
                "after": r.after,
                "replay": f"/rooms/{r.room}/log",
            }
            for r in rows
        ],
        "next": _next([rows[-1].finished, rows[-1].room, rows[-1].seat]) if more else None,
    }


async def rated(store: Store, query: Mapping[str, str], asker: Asker) -> Answer:
    """``/rated[?limit=N][&after=NEXT]``: one page of rated games' room ids, in the order
    their results were rated: public rooms' only, every room's with the admin token (a
    private room's id is for its players and the operator)."""
    limit = _limit(query, MAX_LIMIT)
    after = _after(query, (float, str))
    key = None if after is None else (float(after[0]), after[1])
    rows = await store.get_rated_rooms(limit + 1, key, everyone=asker.admin)
    more = len(rows) > limit
    rows = rows[:limit]
    return HTTPStatus.OK, {
        "rooms": [room for room, _ in rows],
        "next": _next([rows[-1][1], rows[-1][0]]) if more else None,
    }


Route = Callable[[Store, Mapping[str, str], Asker], Awaitable[Answer]]

#: Each route's path and answer.
PLAYER_ROUTES: Mapping[str, Route] = {
    "/leaderboard": leaderboard,
    "/ratings": ratings,
    "/history": history,
    "/rated": rated,
}


async def answer(route: Route, store: Store, query: Mapping[str, str], asker: Asker) -> Answer:
    """``route``'s answer, or 400 naming the parameter it could not read."""
    try:
        return await route(store, query, asker)
    except BadQuery as error:
        return _bad(str(error))
