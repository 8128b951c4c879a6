"""How long each Neon Hex AI level takes to decide: median, 90th percentile and worst.

Plays seeded games with one timed bot of each level (Easy, Medium, Hard) against Medium
opponents, with 2 and with 5 factions, and times every call of ``act`` along with the work the
decision counted (``nodes``). The Hard level's first decision in a process also builds its
shared race tables, so its worst time is a cold start; the later ones reuse them.

    .venv/bin/python -m benchmarks.neon_hex_ai [--games N] [--smoke]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Action, Bot, Command, SeatSpec, chance
from engine.match import Match, make_bots, play_out
from engine.registry import get_game
from engine.selfplay import game_seed

GAME = get_game("neon_hex")
LEVELS = ("easy", "medium", "hard")


class TimedBot:
    """A bot whose decisions are timed."""

    def __init__(self, bot: Bot, times: list[float], nodes: list[int]) -> None:
        self.bot = bot
        self.times = times
        self.nodes = nodes

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        started = time.perf_counter()
        action = self.bot.act(view, options, now)
        self.times.append(time.perf_counter() - started)
        self.nodes.append(int(getattr(self.bot, "nodes", 0)))
        return action


def measure(level: str, seats: int, games: int) -> tuple[list[float], list[int]]:
    """Decision times (seconds) and node counts of ``level`` over ``games`` games."""
    times: list[float] = []
    nodes: list[int] = []
    for index in range(games):
        seat = index % seats
        kinds = ["medium"] * seats
        kinds[seat] = level
        seed = game_seed(7, index)
        match = Match.start(GAME, [SeatSpec(k, bot=k) for k in kinds], seed)
        bots: list[Bot | None] = list(make_bots(match, kinds, seed))
        timed = GAME.bots[level](GAME, seat, random.Random(chance(seed, "timed").random()))
        bots[seat] = TimedBot(timed, times, nodes)
        play_out(match, bots)
    return times, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per level and size")
    parser.add_argument("--smoke", action="store_true", help="a quick run (CI)")
    args = parser.parse_args()
    games = 12 if args.smoke else args.games
    print(f"Neon Hex AI think time, {games} games per row (timed bot vs Medium)")
    print(
        f"{'level':8} {'seats':>5} {'decisions':>9} {'median ms':>10} {'p90 ms':>8} "
        f"{'worst ms':>9} {'median nodes':>12}"
    )
    for level in LEVELS:
        for seats in (2, 5):
            times, nodes = measure(level, seats, games)
            ordered = sorted(times)
            p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
            print(
                f"{level:8} {seats:>5} {len(times):>9} {statistics.median(times) * 1e3:>10.3f} "
                f"{p90 * 1e3:>8.3f} {max(times) * 1e3:>9.3f} {statistics.median(nodes):>12.0f}"
            )


if __name__ == "__main__":
    main()
