"""Players' data over HTTP, as JSON: leaderboards, a player's ratings and recent games, and
the rated games' list (what ``lumin ratings download`` fetches). ``docs/protocol.md``
("Accounts, ratings and quick play") documents each answer.

Each route is a function of the store, the query's parameters (first value of each) and the
games a player needs on a leaderboard, answering an HTTP status and a JSON body.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from http import HTTPStatus
from typing import Any

from server.ratings import POOLS
from server.store import Store

__all__ = ["MAX_LIMIT", "PLAYER_ROUTES", "history", "leaderboard", "rated", "ratings"]

#: Entries one answer holds at most (``limit`` caps at it).
MAX_LIMIT = 200

Answer = tuple[HTTPStatus, dict[str, Any]]


def _limit(query: Mapping[str, str], default: int) -> int | None:
    try:
        value = int(query.get("limit", default))
    except ValueError:
        return None
    return value if 1 <= value <= MAX_LIMIT else None


def _bad(message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> Answer:
    return status, {"error": message}


async def leaderboard(store: Store, query: Mapping[str, str], games: int) -> Answer:
    """``/leaderboard?game=G[&pool=P][&limit=N]``: the pool's best players with at least
    ``games`` rated games, ranked (equal shown ratings share a rank), and the game's pools."""
    game = query.get("game")
    if game not in POOLS:
        return _bad(f"game is one of {', '.join(POOLS)}", HTTPStatus.NOT_FOUND)
    pool = query.get("pool", POOLS[game][0])
    if pool not in POOLS[game]:
        return _bad(f"{game}'s pools are {', '.join(POOLS[game])}", HTTPStatus.NOT_FOUND)
    limit = _limit(query, 100)
    if limit is None:
        return _bad(f"limit is a whole number from 1 to {MAX_LIMIT}")
    players: list[dict[str, Any]] = []
    for row in await store.get_ratings(game, pool):
        if row.games < games:
            continue
        if len(players) == limit:
            break
        rank = len(players) + 1
        if players and players[-1]["rating"] == row.shown:
            rank = players[-1]["rank"]
        players.append(
            {
                "name": row.name,
                "user": row.player,
                "rating": row.shown,
                "games": row.games,
                "rank": rank,
            }
        )
    return HTTPStatus.OK, {
        "game": game,
        "pool": pool,
        "pools": list(POOLS[game]),
        "players": players,
    }


async def ratings(store: Store, query: Mapping[str, str], games: int) -> Answer:
    """``/ratings?user=U``: every rating of one player."""
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


async def history(store: Store, query: Mapping[str, str], games: int) -> Answer:
    """``/history?user=U[&limit=N]``: the player's recent finished games, newest first, with
    how each ended for them and a link to its log (the replay). Private rooms' games are left
    out: anyone may ask for anyone's history, and a private room's id is for its players
    (with its code), not for whoever reads the page."""
    user = query.get("user")
    if not user:
        return _bad("user names the player (their public user id)")
    limit = _limit(query, 50)
    if limit is None:
        return _bad(f"limit is a whole number from 1 to {MAX_LIMIT}")
    rows = await store.get_results(player=user, limit=limit)
    private: dict[str, bool] = {}
    for row in rows:
        if row.room not in private:
            room = await store.get_room(row.room)
            private[row.room] = room is None or room.private  # a forgotten room: unsaid too
    rows = [row for row in rows if not private[row.room]]
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
    }


async def rated(store: Store, query: Mapping[str, str], games: int) -> Answer:
    """``/rated``: every rated game's room id, in the order their results were rated."""
    rooms: list[str] = []
    for row in await store.get_results(rated=True):
        if not rooms or rooms[-1] != row.room:
            rooms.append(row.room)
    return HTTPStatus.OK, {"rooms": rooms}


#: Each route's path and answer.
PLAYER_ROUTES: Mapping[str, Callable[[Store, Mapping[str, str], int], Awaitable[Answer]]] = {
    "/leaderboard": leaderboard,
    "/ratings": ratings,
    "/history": history,
    "/rated": rated,
}
