"""Ratings: a Weng-Lin rating per player, game and pool, moved by each finished rated game.

Lumin rates with openskill's Plackett-Luce model (Weng and Lin's Bayesian approximation):
unlike Elo or Glicko-2, which compare two players, it rates a game of any number of players
from their final ranks at once, shared ranks (a shared victory, equal scores) included, and
teams as well; each player's rating is ``mu`` (the skill believed) and ``sigma`` (how unsure
that belief is). Players see ``mu - 3 sigma`` (openskill's *ordinal*): 0 for a newcomer,
rising as wins and games make the rating surer, so a lucky first win does not top a board.

A **pool** is what ratings are compared within: players of a pool play the same game. Flip
Over Frog has one (``standard``); Flash 8 rates its ``race`` (solo games are not rated: their
results are the high scores); Neon Flip rates ``classic`` and ``overdrive`` apart (with
``teams`` on, as ``classic-teams``...), solo not at all; Neon Hex rates each seat count apart
(``2p``, ``3p``...), since a win among five says something else than a win between two.

A game is **rated** when it ends with two humans or more and either the room said
``rated: true`` or it said nothing and no seat was a bot at the start. A seat left on purpose
during the game, or whose player was disconnected past the grace period and still away at the
end, counts as last (every such seat shares the last rank).

Everything here that computes is pure (:func:`pool_of`, :func:`counted_ranks`, :func:`rate`),
so the server and ``lumin ratings recompute`` move ratings the same way, to the last bit.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import attrs
import structlog
from openskill.models import PlackettLuce
from redis.exceptions import LockError, RedisError

from protocol.messages import RatingChange, RoomSummary
from server.playerrows import RatingRow, ResultRow
from server.store import Store

__all__ = [
    "LADDERS",
    "LOCK_TTL",
    "LOCK_WAIT",
    "MAX_HELD",
    "MODEL",
    "POOLS",
    "Player",
    "Ratings",
    "bot_for",
    "counted_ranks",
    "is_rated",
    "pool_of",
    "rate",
    "without_ratings",
]

log = structlog.get_logger("lumin.ratings")

#: Ratings a server holds in memory at most (about 200 bytes each).
MAX_HELD = 100_000
#: Seconds a node holds a pool's rating lock at most (it expires if the node dies), and waits
#: for it at most.
LOCK_TTL, LOCK_WAIT = 10.0, 10.0

#: The rating model (openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL = PlackettLuce()

#: Every pool each game rates, its first the one ``/leaderboard`` shows by default.
POOLS: Mapping[str, tuple[str, ...]] = {
    "flip_over_frog": ("standard",),
    "flash8": ("race",),
    "neon_flip": ("classic", "overdrive", "classic-teams", "overdrive-teams"),
    "neon_hex": ("2p", "3p", "4p", "5p"),
}

#: Each game's bots from weakest to strongest (the ladder ``benchmarks/rating_ladder.py``
#: measures): quick play fills seats with the level nearest a player's rating.
LADDERS: Mapping[str, tuple[str, ...]] = {
    "flip_over_frog": ("random", "easy", "bot"),
    "flash8": ("random", "bot", "fast"),
    "neon_flip": ("random", "easy", "medium", "hard"),
    "neon_hex": ("random", "easy", "medium", "hard"),
}


def pool_of(game: str, options: Mapping[str, Any], seats: int) -> str | None:
    """The pool a game of ``game`` with these options and seats is rated in (``None``: such
    games are not rated, e.g. solo modes)."""
    mode = options.get("mode")
    if game == "flip_over_frog":
        return "standard"
    if game == "flash8":
        return "race" if mode in (None, "race") else None
    if game == "neon_flip":
        if mode not in ("classic", "overdrive"):
            return None
        return f"{mode}-teams" if options.get("teams") else str(mode)
    if game == "neon_hex":
        return f"{seats}p"
    return None


def is_rated(
    humans: int, bots_at_start: int, asked: bool | None, pool: str | None, taken_over: bool
) -> bool:
    """Whether a finished game counts: a pool, two humans or more, every seat a person's from
    the start (no bot then, none ``taken_over`` by a person later), and not a room that asked
    to be unrated (``asked`` is ``False``)."""
    if pool is None or humans < 2 or asked is False or taken_over:
        return False
    return bots_at_start == 0


def counted_ranks(ranks: Sequence[int], forfeits: Sequence[int]) -> list[int]:
    """The ranks a game counts with: the rules' ``ranks`` (1 = winner), each seat in
    ``forfeits`` moved to a shared last place below every other, and the others ranked among
    themselves (1 + how many of them did better), so ranks stay within the seat count."""
    if not forfeits:
        return list(ranks)
    kept = [rank for seat, rank in enumerate(ranks) if seat not in forfeits]
    last = len(kept) + 1
    return [
        last if seat in forfeits else 1 + sum(other < rank for other in kept)
        for seat, rank in enumerate(ranks)
    ]


@attrs.frozen
class Player:
    """A human seat of a rated game: its seat, user id and name."""

    seat: int
    user: str
    name: str


def rate(
    game: str,
    pool: str,
    players: Sequence[Player],
    ranks: Sequence[int],
    before: Mapping[str, RatingRow],
    at: float,
) -> list[RatingRow]:
    """The players' ratings after a game in which seat ``players[i].seat`` ranked
    ``ranks[players[i].seat]`` (lower is better), from their ratings ``before`` (by user id;
    absent: a newcomer's)."""
    current = [
        MODEL.rating(mu=before[p.user].mu, sigma=before[p.user].sigma)
        if p.user in before
        else MODEL.rating()
        for p in players
    ]
    teams = MODEL.rate([[rating] for rating in current], ranks=[ranks[p.seat] for p in players])
    return [
        RatingRow(
            player=p.user,
            game=game,
            pool=pool,
            name=p.name,
            mu=team[0].mu,
            sigma=team[0].sigma,
            games=(before[p.user].games if p.user in before else 0) + 1,
            updated=at,
        )
        for p, team in zip(players, teams, strict=True)
    ]


def bot_for(game: str, rating: float | None) -> str:
    """The bot level nearest a player of this shown rating: ``random`` below 0, the next
    level for every 5 points (a newcomer, at 0, meets the second weakest)."""
    ladder = LADDERS[game]
    level = 1 if rating is None else int((rating + 5) // 5)
    return ladder[max(0, min(len(ladder) - 1, level))]


class Ratings:
    """The server's ratings: the store's, with the ratings of players seen lately held in
    memory, so a room's seats show them without a read. Updates are serialized (one game's
    at a time, in the order games finished), so they compose exactly as a recompute does;
    each reads the players' ratings from the store first. In a cluster (:attr:`cluster`
    set) they are serialized across nodes too, per pool, by a Redis lock (redis-py's, with
    an expiry of :data:`LOCK_TTL` seconds, so a node dying while it holds it holds up that
    pool's updates no longer than that): two games of one player ending on two nodes at once
    each read the rating the other wrote, and no change is lost. When the lock cannot be had
    (Redis away, or held past :data:`LOCK_WAIT` seconds) the update goes on without it,
    logged (``rating_lock_not_held``): a change may then be lost until a recompute."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.held: dict[tuple[str, str, str], RatingRow] = {}
        self._lock = asyncio.Lock()
        #: The node's cluster (its Redis), set by the server in a cluster.
        self.cluster: Any = None

    @contextlib.asynccontextmanager
    async def _shared(self, game: str, pool: str) -> AsyncIterator[None]:
        """Hold the cluster's lock on the pool's ratings (nothing outside a cluster)."""
        cluster = self.cluster
        if cluster is None:
            yield
            return
        lock = cluster.redis.lock(
            cluster._key("ratings", game, pool), timeout=LOCK_TTL, blocking_timeout=LOCK_WAIT
        )
        try:
            held = bool(await lock.acquire())
        except (RedisError, OSError) as error:
            log.warning("rating_lock_not_held", game=game, pool=pool, error=repr(error))
            held = False
        else:
            if not held:
                log.warning("rating_lock_not_held", game=game, pool=pool, error="busy")
        try:
            yield
        finally:
            if held:
                with contextlib.suppress(RedisError, OSError, LockError):
                    await lock.release()

    async def load(self, player: str) -> None:
        """Hold ``player``'s ratings (on hello), so seats show them. Past :data:`MAX_HELD`
        ratings held, the oldest held are forgotten (read again at their player's next
        hello)."""
        rows = await self.store.get_ratings(player=player)
        while len(self.held) + len(rows) > MAX_HELD and self.held:
            del self.held[next(iter(self.held))]
        for row in rows:
            self.held.pop((row.player, row.game, row.pool), None)  # newest last
            self.held[(row.player, row.game, row.pool)] = row

    def shown(self, player: str | None, game: str, pool: str | None) -> float | None:
        """``player``'s shown rating in the pool, if held."""
        if player is None or pool is None:
            return None
        row = self.held.get((player, game, pool))
        return None if row is None else row.shown

    async def record(
        self,
        room: str,
        game: str,
        pool: str | None,
        rated: bool,
        players: Sequence[Player],
        ranks: Sequence[int],
        forfeits: Sequence[int],
        finished: float,
    ) -> list[RatingChange]:
        """Keep a finished game's results and, when ``rated``, move its players' ratings;
        the changes (none for an unrated game)."""
        counted = counted_ranks(ranks, forfeits)
        async with self._lock:
            changes: list[RatingChange] = []
            before: dict[str, RatingRow] = {}
            after: dict[str, RatingRow] = {}
            if rated and pool is not None:
                async with self._shared(game, pool):
                    await self._move(game, pool, players, counted, finished, before, after)
            results = [
                ResultRow(
                    room=room,
                    seat=p.seat,
                    player=p.user,
                    name=p.name,
                    game=game,
                    pool=pool,
                    rank=counted[p.seat],
                    forfeit=p.seat in forfeits,
                    finished=finished,
                    rated=p.user in after,
                    before=before[p.user].shown if p.user in before else 0.0 if rated else None,
                    after=after[p.user].shown if p.user in after else None,
                )
                for p in players
            ]
            await self.store.add_results(results)
            for p in players:
                if p.user in after:
                    row = after[p.user]
                    old = before[p.user].shown if p.user in before else 0.0
                    changes.append(
                        RatingChange(
                            seat=p.seat,
                            user=p.user,
                            name=p.name,
                            pool=row.pool,
                            before=old,
                            after=row.shown,
                            games=row.games,
                        )
                    )
            return changes

    async def _move(
        self,
        game: str,
        pool: str,
        players: Sequence[Player],
        counted: Sequence[int],
        finished: float,
        before: dict[str, RatingRow],
        after: dict[str, RatingRow],
    ) -> None:
        """Read the players' ratings, move them by the game and write them (``before`` and
        ``after`` filled in)."""
        for p in players:
            # Read again: in a cluster another node may have moved it since.
            await self.load(p.user)
            key = (p.user, game, pool)
            if key in self.held:
                before[p.user] = self.held[key]
        rows = rate(game, pool, players, counted, before, finished)
        await self.store.save_ratings(rows)
        for row in rows:
            self.held[(row.player, game, pool)] = after[row.player] = row


def without_ratings(summary: RoomSummary) -> RoomSummary:
    """``summary`` as a client older than version 5 is sent it: no seat's ``rating``."""
    if all(seat.rating is None for seat in summary.seats):
        return summary
    return attrs.evolve(
        summary, seats=tuple(attrs.evolve(seat, rating=None) for seat in summary.seats)
    )
