"""What both stores keep of players beyond their identities: accounts (claimed names),
sessions, ratings and game results, as rows and as the SQL both stores run.

The statements are written once, with ``?`` placeholders (SQLite's); the PostgreSQL store runs
them through :func:`numbered`, which turns each ``?`` into ``$1``, ``$2``... Column names
avoid words either database reserves (``player``, never ``user``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from server.names import refold

__all__ = [
    "ACCOUNT_COLUMNS",
    "ACCOUNT_SELECT",
    "ADD_RENAMED_FROM",
    "BOUNDED_READS",
    "CLAIMS",
    "CLEAR_RENAMED",
    "DELETE_ENDED_SESSIONS",
    "HIGH_SCORE_KEYS",
    "INSERT_ACCOUNT",
    "INSERT_RESULT",
    "INSERT_SESSION",
    "MARK_CLAIMED",
    "RESULT_COLUMNS",
    "RESULT_SELECT",
    "SCHEMA",
    "SESSION_COLUMNS",
    "SESSION_ENDS",
    "UPSERT_RATING",
    "AccountRow",
    "BoardKey",
    "HistoryKey",
    "RatedKey",
    "RatingRow",
    "ResultRow",
    "SessionRow",
    "high_scores_query",
    "history_query",
    "leaderboard_query",
    "numbered",
    "rated_rooms_query",
    "ratings_query",
    "refolded",
    "result_row",
    "result_values",
    "results_query",
    "schema",
]


@attrs.frozen
class AccountRow:
    """A claimed name: its ``key`` (the name folded for comparison, unique), the name as
    claimed, the identity (token hash) it belongs to, the password's Argon2 hash, when it
    was claimed, and the name it had when a change of the fold renamed it (its owner not
    told yet; ``None``: not renamed, or told)."""

    key: str
    name: str
    identity: str
    password: str
    created: float
    renamed_from: str | None = None


@attrs.frozen
class SessionRow:
    """A signed-in session of an account: the hash of its secret token, the identity it
    stands for, when it was made and last used, the client that made it, and when it ends
    when that is fixed (an identity token's ``exp``; ``None``: an account's session, which
    ends the server's session lifetime after its last use)."""

    token_hash: str
    identity: str
    created: float
    last_seen: float
    client: str = ""
    expires: float | None = None


@attrs.frozen
class RatingRow:
    """A player's Weng-Lin rating in one game's pool: ``mu`` and ``sigma``, the rated games
    it counts, the name last seen and when it last changed."""

    player: str
    game: str
    pool: str
    name: str
    mu: float
    sigma: float
    games: int
    updated: float

    @property
    def shown(self) -> float:
        """The rating as players see it: the conservative ``mu - 3 sigma`` (openskill's
        ordinal), rounded to two decimals."""
        return round(self.mu - 3 * self.sigma, 2)


@attrs.frozen
class ResultRow:
    """How one human seat of a finished game ended: the room, seat, player and name, the
    game and rating pool (``None`` for a game no pool rates), the rank it counted as, whether
    it counted as last for leaving, when the game finished, whether it was rated, and the
    shown rating before and after (rated games only)."""

    room: str
    seat: int
    player: str
    name: str
    game: str
    pool: str | None
    rank: int
    forfeit: bool
    finished: float
    rated: bool
    before: float | None = None
    after: float | None = None

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


ACCOUNT_COLUMNS = ("key", "name", "identity", "password", "created")
#: An account's columns as stored, in :class:`AccountRow` order.
ACCOUNT_SELECT = "SELECT name_key, name, identity, password, created, renamed_from FROM accounts"
SESSION_COLUMNS = ("token_hash", "identity", "created", "last_seen", "client", "expires")
RESULT_COLUMNS = (
    "room", "seat", "player", "name", "game", "pool", "rank", "forfeit", "finished", "rated",
    "before", "after",
)  # fmt: skip

INSERT_ACCOUNT = (
    "INSERT INTO accounts (name_key, name, identity, password, created) VALUES (?, ?, ?, ?, ?)"
)
#: The identity of an account just inserted is claimed (kept for ever) and named as claimed;
#: a failed insert (the name taken) leaves it a guest's.
MARK_CLAIMED = (
    "UPDATE identities SET claimed = TRUE, name = ? WHERE token_hash = ?"
    " AND EXISTS (SELECT 1 FROM accounts WHERE identity = ?)"
)
INSERT_SESSION = (
    "INSERT INTO sessions (token_hash, identity, created, last_seen, client, expires)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
#: Forget the sessions that ended before a time: those whose end is fixed (``expires``)
#: before the first value, the others (an account's) last used before the second.
DELETE_ENDED_SESSIONS = (
    "DELETE FROM sessions WHERE (expires IS NOT NULL AND expires < ?)"
    " OR (expires IS NULL AND last_seen < ?)"
)
#: The statements that add session ends and the server's secrets (SQLite's version 5,
#: PostgreSQL's version 6), through :func:`schema`'s types: a session's ``expires`` (an
#: identity token's ``exp``), indexes for the sweep that forgets ended sessions, and
#: ``secrets``, the values every node of a cluster shares (the key session tokens are
#: derived with). Identity-token sessions kept before are deleted: their tokens were the
#: identity token's plain hash, which anyone holding that token could make (the person's
#: next hello with an identity token makes a new session).
SESSION_ENDS = """
ALTER TABLE sessions ADD COLUMN expires REAL;
CREATE INDEX sessions_expires ON sessions (expires);
CREATE INDEX sessions_last_seen ON sessions (last_seen);
DELETE FROM sessions WHERE client LIKE 'jwt until %';
CREATE TABLE secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
"""
UPSERT_RATING = (
    "INSERT INTO ratings (player, game, pool, name, mu, sigma, games, updated)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (player, game, pool) DO UPDATE SET name = excluded.name, mu = excluded.mu,"
    " sigma = excluded.sigma, games = excluded.games, updated = excluded.updated"
)
INSERT_RESULT = (
    "INSERT INTO results (room, seat, player, name, game, pool, rank, forfeit, finished, rated,"
    " rating_before, rating_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (room, seat) DO NOTHING"
)

_PLACEHOLDER = re.compile(r"\?")


def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered for PostgreSQL (``$1``, ``$2``...)."""
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return _PLACEHOLDER.sub(number, sql)


def result_values(row: ResultRow) -> tuple[Any, ...]:
    """A result's values in :data:`INSERT_RESULT` order."""
    return tuple(getattr(row, name) for name in RESULT_COLUMNS)


def result_row(values: Sequence[Any] | Mapping[str, Any]) -> ResultRow:
    """A result read back, from its columns in :data:`RESULT_COLUMNS` order."""
    if isinstance(values, Mapping):
        values = [values[name] for name in _RESULT_READ]
    (room, seat, player, name, game, pool, rank, forfeit, finished, rated, before, after) = values
    return ResultRow(
        room=room,
        seat=int(seat),
        player=player,
        name=name,
        game=game,
        pool=pool,
        rank=int(rank),
        forfeit=bool(forfeit),
        finished=float(finished),
        rated=bool(rated),
        before=before,
        after=after,
    )


#: The columns a result is read from (``before`` and ``after`` are stored as
#: ``rating_before`` and ``rating_after``).
_RESULT_READ = (
    "room", "seat", "player", "name", "game", "pool", "rank", "forfeit", "finished", "rated",
    "rating_before", "rating_after",
)  # fmt: skip
RESULT_SELECT = ", ".join(_RESULT_READ)

#: The tables of players' data, the same in both stores (SQLite's REAL is PostgreSQL's DOUBLE
#: PRECISION through :func:`schema`): accounts by folded name, sessions by token hash, a
#: rating per player, game and pool, and one result per human seat of a finished game.
SCHEMA = """
CREATE TABLE accounts (
    name_key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    identity TEXT NOT NULL UNIQUE,
    password TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    created REAL NOT NULL,
    last_seen REAL NOT NULL,
    client TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_identity ON sessions (identity);
CREATE TABLE ratings (
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    pool TEXT NOT NULL,
    name TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (player, game, pool)
);
CREATE INDEX ratings_board ON ratings (game, pool, games);
CREATE TABLE results (
    room TEXT NOT NULL,
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    pool TEXT,
    rank INTEGER NOT NULL,
    forfeit BOOLEAN NOT NULL,
    finished REAL NOT NULL,
    rated BOOLEAN NOT NULL,
    rating_before REAL,
    rating_after REAL,
    PRIMARY KEY (room, seat)
);
CREATE INDEX results_player ON results (player, finished);
CREATE INDEX results_rated ON results (rated, finished);
ALTER TABLE high_scores ADD COLUMN player_id TEXT;
"""

#: Indexes that bound the players' HTTP reads (both stores' next schema version): a pool's
#: board in the order it is shown (:func:`leaderboard_query` walks it from the top, or from a
#: page's last entry, and stops at its limit), and rated games in the order they were rated
#: (:func:`rated_rooms_query`).
BOUNDED_READS = """
CREATE INDEX ratings_shown ON ratings (game, pool, (mu - 3 * sigma), games, player);
DROP INDEX ratings_board;
CREATE INDEX results_rated_rooms ON results (rated, finished, room);
DROP INDEX results_rated;
"""

#: An account's name as it was before a change of the fold renamed it (SQLite's version 6,
#: PostgreSQL's version 7, with :func:`refolded`).
ADD_RENAMED_FROM = "ALTER TABLE accounts ADD COLUMN renamed_from TEXT"
#: The claims :func:`refolded` folds again: ``(identity, name, created)``.
CLAIMS = "SELECT identity, name, created FROM accounts"
#: The owner of a renamed account has been told.
CLEAR_RENAMED = "UPDATE accounts SET renamed_from = NULL WHERE identity = ?"


def refolded(claims: Sequence[tuple[str, str, float]]) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """The statements, each with its rows, that give every claimed name (``claims``, as
    :data:`CLAIMS` reads them) its key under today's fold (:func:`server.names.refold`): a
    later claim of a look-alike is renamed, keeps the name it had in ``renamed_from`` and
    shows its new name on its identity and ratings. The keys are first made unique
    (``refolding:`` and the identity), so no new key meets an old one on the way."""
    folded = refold(claims)
    renames = [each for each in folded if each.renamed_from is not None]
    return [
        ("UPDATE accounts SET name_key = 'refolding:' || identity", [()]),
        (
            "UPDATE accounts SET name_key = ?, name = ?, renamed_from = ? WHERE identity = ?",
            [(f.key, f.name, f.renamed_from, f.identity) for f in folded],
        ),
        (
            "UPDATE identities SET name = ? WHERE token_hash = ?",
            [(f.name, f.identity) for f in renames],
        ),
        (
            "UPDATE ratings SET name = ? WHERE player = ?",
            [(f.name, "u" + f.identity[:16]) for f in renames],
        ),
    ]


def schema(postgres: bool, text: str = SCHEMA) -> list[str]:
    """The statements of :data:`SCHEMA` (or another of this module's schema steps) for one
    database: SQLite's ``REAL`` and ``BLOB`` are PostgreSQL's ``DOUBLE PRECISION`` and
    ``BYTEA``."""
    if postgres:
        text = text.replace(" REAL", " DOUBLE PRECISION").replace(" BLOB", " BYTEA")
    return [statement.strip() for statement in text.split(";") if statement.strip()]


#: What a high score holds, as ``/highscores`` answers it.
HIGH_SCORE_KEYS = ("player", "score", "rank", "room", "at", "player_id")


def _where(select: str, **equal: Any) -> tuple[str, tuple[Any, ...]]:
    """``select`` with a ``WHERE`` clause for each column of ``equal`` whose value is not
    ``None`` (``column = ?``, joined by ``AND``), and the values in that order."""
    given = {column: value for column, value in equal.items() if value is not None}
    if not given:
        return select, ()
    clause = " AND ".join(f"{column} = ?" for column in given)
    return f"{select} WHERE {clause}", tuple(given.values())


def high_scores_query(
    player: str | None, player_id: str | None, limit: int
) -> tuple[str, tuple[Any, ...]]:
    """The best Flash 8 solo scores (fewest cards left first) of a name, a user id, or all."""
    sql, params = _where(
        f"SELECT {', '.join(HIGH_SCORE_KEYS)} FROM high_scores",
        player=player,
        player_id=player_id,
    )
    return sql + " ORDER BY score, at LIMIT ?", (*params, limit)


#: A rating's exact shown value (openskill's ordinal, before rounding), as SQL: the order of a
#: board, which the ``ratings_shown`` index keeps.
ORDINAL = "mu - 3 * sigma"
#: A board's order: best shown rating first, then more games, then the user id (descending,
#: so the whole order is the index's read backwards).
BOARD_ORDER = f"{ORDINAL} DESC, games DESC, player DESC"
_RATING_SELECT = "SELECT player, game, pool, name, mu, sigma, games, updated FROM ratings"


def ratings_query(
    game: str | None, pool: str | None, player: str | None
) -> tuple[str, tuple[Any, ...]]:
    """Ratings of a game, pool or player (any of them), best first (by the shown rating)."""
    sql, params = _where(_RATING_SELECT, game=game, pool=pool, player=player)
    return f"{sql} ORDER BY {BOARD_ORDER}", params


#: Where a page of a board ends: its last entry's ordinal, games and user id.
BoardKey = tuple[float, int, str]


def leaderboard_query(
    game: str, pool: str, min_games: int, limit: int, after: BoardKey | None
) -> tuple[str, tuple[Any, ...]]:
    """At most ``limit`` ratings of a pool with at least ``min_games`` games, in board order,
    from the top or from just past ``after``. The ``ratings_shown`` index serves the order and
    the seek (``ordinal <= ?`` is a range on it), so a page costs its own rows, not the pool's."""
    sql = f"{_RATING_SELECT} WHERE game = ? AND pool = ? AND games >= ?"
    params: tuple[Any, ...] = (game, pool, min_games)
    if after is not None:
        ordinal, games, player = after
        below = f"{ORDINAL} < ? OR games < ? OR (games = ? AND player < ?)"
        sql += f" AND {ORDINAL} <= ? AND ({below})"
        params += (ordinal, ordinal, games, games, player)
    return f"{sql} ORDER BY {BOARD_ORDER} LIMIT ?", (*params, limit)


#: Where a page of a player's history ends: its last game's finish time, room and seat.
HistoryKey = tuple[float, str, int]


def history_query(player: str, limit: int, after: HistoryKey | None) -> tuple[str, tuple[Any, ...]]:
    """At most ``limit`` of a player's results in public rooms, newest first, from the newest
    or from just past ``after``. Private rooms' results, and those of rooms no longer kept,
    are left out in SQL (a join on the room), so a page is always full while there are more."""
    columns = ", ".join(f"results.{name}" for name in _RESULT_READ)
    sql = (
        f"SELECT {columns} FROM results JOIN rooms ON rooms.id = results.room"
        " WHERE results.player = ? AND NOT rooms.private"
    )
    params: tuple[Any, ...] = (player,)
    if after is not None:
        finished, room, seat = after
        sql += (
            " AND results.finished <= ? AND (results.finished < ? OR results.room < ?"
            " OR (results.room = ? AND results.seat < ?))"
        )
        params += (finished, finished, room, room, seat)
    order = "results.finished DESC, results.room DESC, results.seat DESC"
    return f"{sql} ORDER BY {order} LIMIT ?", (*params, limit)


#: Where a page of rated games ends: its last game's finish time and room.
RatedKey = tuple[float, str]


def rated_rooms_query(
    limit: int, after: RatedKey | None, everyone: bool
) -> tuple[str, tuple[Any, ...]]:
    """At most ``limit`` rated games as ``(room, finished)``, in the order they were rated
    (finish time, then room id), from the first or from just past ``after``; public rooms'
    only unless ``everyone``. A game is one row, its first rated seat's (every result of a
    game has the game's finish time)."""
    sql = "SELECT results.room, results.finished FROM results"
    if not everyone:
        sql += " JOIN rooms ON rooms.id = results.room AND NOT rooms.private"
    # one row per game: its first rated seat's
    first = "SELECT MIN(seat) FROM results AS seats WHERE seats.room = results.room AND seats.rated"
    sql += f" WHERE results.rated = TRUE AND results.seat = ({first})"
    params: tuple[Any, ...] = ()
    if after is not None:
        finished, room = after
        sql += " AND results.finished >= ? AND (results.finished > ? OR results.room > ?)"
        params += (finished, finished, room)
    return f"{sql} ORDER BY results.finished, results.room LIMIT ?", (*params, limit)


def results_query(
    player: str | None, rated: bool | None, limit: int | None
) -> tuple[str, tuple[Any, ...]]:
    """Results of one player or everyone (rated games only, with ``rated``), oldest first
    for everyone (the order ratings are recomputed in) and newest first for one player."""
    sql, params = _where(f"SELECT {RESULT_SELECT} FROM results", player=player, rated=rated)
    order = "finished DESC, room, seat" if player is not None else "finished, room, seat"
    sql += f" ORDER BY {order}"
    if limit is not None:
        return sql + " LIMIT ?", (*params, limit)
    return sql, params
