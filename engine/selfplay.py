"""Self-play and arena runs: many seeded games between bots, and the statistics of them.

Pure functions over :mod:`engine.match`; the ``lumin selfplay`` and ``lumin arena`` commands
add processes, progress and printing around them.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from engine.core import Action, Bot, Command, SeatSpec
from engine.match import Match, SeatFactory, make_bots, play_out
from engine.registry import get_game

__all__ = [
    "CLOCK_REASONS",
    "DEFAULT_BOT_DELAY",
    "GameResult",
    "arena_summary",
    "game_seed",
    "play_game",
    "seat_kinds",
    "wilson_interval",
    "win_credits",
]


#: Seconds of the simulated clock a bot waits before each command it wants to send at once:
#: the server's default bot delay (``server.config.Settings.bot_delay``), so self-play reaches
#: a game clock when a room with the same bots would.
DEFAULT_BOT_DELAY = 0.8

#: Outcome reasons that mean a game ended on its clock (Neon Flip's Overdrive clock, Flash 8's
#: time limit).
CLOCK_REASONS = frozenset({"clock", "time_up"})


@attrs.frozen
class GameResult:
    """What one finished game says for the statistics. ``first_mover`` is the seat that moved
    first: the game's ``first_player`` outcome detail where it reports one (Neon Flip draws it
    from the seed), otherwise the seat of the game's first command."""

    index: int
    kinds: tuple[str, ...]
    ranks: tuple[int, ...]
    commands: int
    events: int
    turns: int | None
    sim_seconds: float
    details: Mapping[str, Any]
    reason: str = ""
    first_mover: int | None = None
    #: Per seat: decisions its bot made, their total and their longest wall-clock seconds.
    think: tuple[tuple[int, float, float], ...] = ()

    @property
    def reached_clock(self) -> bool:
        """Whether the game ended on its clock (:data:`CLOCK_REASONS`)."""
        return self.reason in CLOCK_REASONS


def game_seed(seed: int, index: int) -> bytes:
    """The room seed of game ``index`` in a run started with ``seed``: 16 bytes of SHA-256."""
    return hashlib.sha256(f"lumin-selfplay:{seed}:{index}".encode()).digest()[:16]


def seat_kinds(kinds: Sequence[str], index: int) -> tuple[str, ...]:
    """The bot kinds seated in game ``index``: the list rotated by one seat per game, so every
    kind plays every seat equally often (with two kinds, seats simply alternate)."""
    shift = index % len(kinds)
    return tuple(kinds[shift:]) + tuple(kinds[:shift])


def play_game(
    game_id: str,
    kinds: Sequence[str],
    seed: int,
    index: int,
    options: Mapping[str, Any],
    bot_delay: float = DEFAULT_BOT_DELAY,
    extra: Mapping[str, SeatFactory] | None = None,
) -> GameResult:
    """Play game ``index`` of a run to the end with the given bot kinds seated in order, each
    bot paced by ``bot_delay`` simulated seconds per command (see :func:`play_out`); kinds
    the game does not have are built by ``extra`` (see :func:`~engine.match.make_bots`)."""
    game = get_game(game_id)
    room_seed = game_seed(seed, index)
    seats = [SeatSpec(name=f"{kind}-{seat}", bot=kind) for seat, kind in enumerate(kinds)]
    match = Match.start(game, seats, room_seed, options)
    movers: list[int] = []

    def first_command(m: Match, seat: int | None, command: Any, events: Any) -> None:
        if seat is not None and not movers:
            movers.append(seat)

    seated = make_bots(match, list(kinds), room_seed, extra)
    bots = [_Timed(bot) for bot in seated if bot is not None]
    assert len(bots) == len(seated), "every seat of a self-play game has a bot"
    play_out(match, bots, on_step=first_command, bot_delay=bot_delay)
    outcome = match.outcome
    assert outcome is not None
    turns = outcome.details.get("turns")
    first = outcome.details.get("first_player", movers[0] if movers else None)
    return GameResult(
        index=index,
        kinds=tuple(kinds),
        ranks=outcome.ranks,
        commands=match.commands,
        events=len(match.log),
        turns=int(turns) if turns is not None else None,
        sim_seconds=match.now,
        details=dict(outcome.details),
        reason=outcome.reason,
        first_mover=int(first) if first is not None else None,
        think=tuple((bot.choices, bot.seconds, bot.worst) for bot in bots),
    )


class _Timed:
    """A bot whose thinking is timed on the wall clock, for the reports only: a bot's
    decisions never see the clock (they are counted in nodes)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.choices = 0
        self.seconds = 0.0
        self.worst = 0.0

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        started = time.perf_counter()
        action = self.bot.act(view, options, now)
        elapsed = time.perf_counter() - started
        self.choices += 1
        self.seconds += elapsed
        self.worst = max(self.worst, elapsed)
        return action


def wilson_interval(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a rate of ``successes`` in ``trials``."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def win_credits(ranks: Sequence[int]) -> list[float]:
    """Each seat's share of the win: 1 for a sole winner, 1/k to each of k sharing it."""
    winners = [seat for seat, rank in enumerate(ranks) if rank == 1]
    return [(1 / len(winners) if seat in winners else 0.0) for seat in range(len(ranks))]


def arena_summary(game_id: str, results: Sequence[GameResult]) -> dict[str, Any]:
    """Win rates per bot kind, overall, per seat and as the first mover, with 95% intervals.

    A shared victory counts as a fraction to each side sharing it (half each for two), and
    such a game is counted among ``draws``. ``first_mover`` counts, for each kind, the games
    where a seat of that kind moved first and the wins of that seat.
    """
    kinds: list[str] = []
    for result in results:
        for kind in result.kinds:
            if kind not in kinds:
                kinds.append(kind)
    games = len(results)
    seats = max((len(r.kinds) for r in results), default=0)
    wins = {kind: 0.0 for kind in kinds}
    seat_wins = {kind: [0.0] * seats for kind in kinds}
    seat_games = {kind: [0] * seats for kind in kinds}
    think = {kind: [0, 0.0, 0.0] for kind in kinds}
    first_games = {kind: 0 for kind in kinds}
    first_wins = {kind: 0.0 for kind in kinds}
    draws = 0
    for result in results:
        credits = win_credits(result.ranks)
        if result.first_mover is not None:
            first_kind = result.kinds[result.first_mover]
            first_games[first_kind] += 1
            first_wins[first_kind] += credits[result.first_mover]
        if sum(1 for rank in result.ranks if rank == 1) > 1:
            draws += 1
        for kind in set(result.kinds):
            wins[kind] += sum(c for c, k in zip(credits, result.kinds, strict=True) if k == kind)
        for seat, kind in enumerate(result.kinds):
            seat_wins[kind][seat] += credits[seat]
            seat_games[kind][seat] += 1
        for (decisions, seconds, worst), kind in zip(result.think, result.kinds, strict=False):
            think[kind][0] += decisions
            think[kind][1] += seconds
            think[kind][2] = max(think[kind][2], worst)
    entries = {}
    for kind in kinds:
        per_seat = []
        for seat in range(seats):
            n = seat_games[kind][seat]
            per_seat.append(
                {
                    "seat": seat,
                    "games": n,
                    "wins": seat_wins[kind][seat],
                    "win_rate": seat_wins[kind][seat] / n if n else None,
                    "ci95": list(wilson_interval(seat_wins[kind][seat], n)) if n else None,
                }
            )
        entries[kind] = {
            "bot": kind,
            "wins": wins[kind],
            "win_rate": wins[kind] / games if games else 0.0,
            "ci95": list(wilson_interval(wins[kind], games)),
            "per_seat": per_seat,
            "first_mover": _rate(first_wins[kind], first_games[kind]),
            "think": {
                "decisions": think[kind][0],
                "mean_ms": 1000 * think[kind][1] / think[kind][0] if think[kind][0] else None,
                "worst_ms": 1000 * think[kind][2],
            },
        }
    return {"game": game_id, "games": games, "draws": draws, "bots": entries}


def _rate(wins: float, games: int) -> dict[str, Any]:
    """``{"games", "wins", "win_rate", "ci95"}``; the rate and interval are ``None`` without
    games."""
    return {
        "games": games,
        "wins": wins,
        "win_rate": wins / games if games else None,
        "ci95": list(wilson_interval(wins, games)) if games else None,
    }
