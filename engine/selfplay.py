"""Self-play and arena runs: many seeded games between bots, and the statistics of them.

Pure functions over :mod:`engine.match`; the ``lumin selfplay`` and ``lumin arena`` commands
add processes, progress and printing around them.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from engine.core import SeatSpec
from engine.match import Match, make_bots, play_out
from engine.registry import get_game

__all__ = [
    "GameResult",
    "arena_summary",
    "game_seed",
    "play_game",
    "seat_kinds",
    "wilson_interval",
    "win_credits",
]


@attrs.frozen
class GameResult:
    """What one finished game says for the statistics."""

    index: int
    kinds: tuple[str, ...]
    ranks: tuple[int, ...]
    commands: int
    events: int
    turns: int | None
    sim_seconds: float
    details: Mapping[str, Any]


def game_seed(seed: int, index: int) -> bytes:
    """The room seed of game ``index`` in a run started with ``seed``: 16 bytes of SHA-256."""
    return hashlib.sha256(f"lumin-selfplay:{seed}:{index}".encode()).digest()[:16]


def seat_kinds(kinds: Sequence[str], index: int) -> tuple[str, ...]:
    """The bot kinds seated in game ``index``: the list rotated by one seat per game, so every
    kind plays every seat equally often (with two kinds, seats simply alternate)."""
    shift = index % len(kinds)
    return tuple(kinds[shift:]) + tuple(kinds[:shift])


def play_game(
    game_id: str, kinds: Sequence[str], seed: int, index: int, options: Mapping[str, Any]
) -> GameResult:
    """Play game ``index`` of a run to the end with the given bot kinds seated in order."""
    game = get_game(game_id)
    room_seed = game_seed(seed, index)
    seats = [SeatSpec(name=f"{kind}-{seat}", bot=kind) for seat, kind in enumerate(kinds)]
    match = Match.start(game, seats, room_seed, options)
    play_out(match, make_bots(match, list(kinds), room_seed))
    outcome = match.outcome
    assert outcome is not None
    turns = outcome.details.get("turns")
    return GameResult(
        index=index,
        kinds=tuple(kinds),
        ranks=outcome.ranks,
        commands=match.commands,
        events=len(match.log),
        turns=int(turns) if turns is not None else None,
        sim_seconds=match.now,
        details=dict(outcome.details),
    )


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
    """Win rates per bot kind, overall and per seat, with 95% intervals.

    A shared victory counts as a fraction to each side sharing it (half each for two), and
    such a game is counted among ``draws``.
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
    draws = 0
    for result in results:
        credits = win_credits(result.ranks)
        if sum(1 for rank in result.ranks if rank == 1) > 1:
            draws += 1
        for kind in set(result.kinds):
            wins[kind] += sum(c for c, k in zip(credits, result.kinds, strict=True) if k == kind)
        for seat, kind in enumerate(result.kinds):
            seat_wins[kind][seat] += credits[seat]
            seat_games[kind][seat] += 1
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
        }
    return {"game": game_id, "games": games, "draws": draws, "bots": entries}
