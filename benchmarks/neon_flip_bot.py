"""How long the Neon Flip bots take to decide: median, 90th percentile and worst, per mode and
per level of the ladder (easy, medium, hard; ``bot`` is hard).

Plays seeded games with the bot in every seat (solo: against PROTO-ZERO) and times each call
of ``act``, with the node count the decision used. "all" counts every decision (cascade
choices and discards are quick); "phase 2" only those where the bot chose among actions A-D
and ending its turn, the expensive ones.

    .venv/bin/python -m benchmarks.neon_flip_bot [--games N] [--smoke] [--level LEVEL ...]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Action, Command, SeatSpec
from engine.match import Match, play_out
from engine.neon_flip.bots import EASY, HARD, MEDIUM, Level, NeonBot
from engine.neon_flip.messages import EndTurn
from engine.registry import get_game
from engine.selfplay import game_seed

GAME = get_game("neon_flip")
ROOMS: list[tuple[str, dict[str, Any], int]] = [
    ("classic-2", {}, 2),
    ("classic-3", {}, 3),
    ("classic-4", {}, 4),
    ("teams", {"teams": True}, 4),
    ("overdrive-2", {"mode": "overdrive"}, 2),
    ("solo", {"mode": "solo"}, 1),
]


class TimedBot:
    """A NeonBot whose decisions are timed."""

    def __init__(
        self, bot: NeonBot, times: list[float], nodes: list[int], main: list[float]
    ) -> None:
        self.bot = bot
        self.times = times
        self.nodes = nodes
        self.main = main

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        started = time.perf_counter()
        action = self.bot.act(view, options, now)
        elapsed = time.perf_counter() - started
        self.times.append(elapsed)
        self.nodes.append(self.bot.nodes)
        if any(isinstance(option, EndTurn) for option in options):
            self.main.append(elapsed)
        return action


LEVELS = {"easy": EASY, "medium": MEDIUM, "hard": HARD}


def run(
    label: str, options: dict[str, Any], seats: int, games: int, level: Level = HARD
) -> tuple[list[float], list[float]]:
    times: list[float] = []
    nodes: list[int] = []
    main: list[float] = []
    for index in range(games):
        seed = game_seed(7, index)
        specs = [SeatSpec(f"bot-{n}", "bot") for n in range(seats)]
        match = Match.start(GAME, specs, seed, options)
        bots = [
            TimedBot(NeonBot(random.Random(index * 10 + n), level=level), times, nodes, main)
            for n in range(seats)
        ]
        play_out(match, bots)
    ms = sorted(t * 1000 for t in times)
    main_ms = sorted(t * 1000 for t in main)
    p90 = ms[int(len(ms) * 0.9)]
    print(
        f"{label:12s} decisions {len(ms):6d}  median {statistics.median(ms):6.2f} ms  "
        f"p90 {p90:6.2f} ms  worst {ms[-1]:7.2f} ms  | phase 2: {len(main_ms):5d}  median "
        f"{statistics.median(main_ms):6.2f} ms  worst {main_ms[-1]:7.2f} ms  | nodes median "
        f"{statistics.median(nodes):.0f} max {max(nodes)}"
    )
    return ms, main_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5, help="games per mode")
    parser.add_argument("--smoke", action="store_true", help="one short game per mode")
    parser.add_argument("--level", nargs="*", choices=list(LEVELS), help="default: all three")
    args = parser.parse_args()
    for name in args.level or list(LEVELS):
        print(f"--- {name}")
        everything: list[float] = []
        phase2: list[float] = []
        for label, options, seats in ROOMS:
            room = dict(options)
            games = args.games
            if args.smoke:
                games = 1
                if room.get("mode") != "solo":
                    room["rounds"] = 1
            every, main = run(label, room, seats, games, LEVELS[name])
            everything += every
            phase2 += main
        everything.sort()
        phase2.sort()
        print(
            f"{'all modes':12s} decisions {len(everything):6d}  median "
            f"{statistics.median(everything):6.2f} ms  worst {everything[-1]:7.2f} ms  | "
            f"phase 2: median {statistics.median(phase2):6.2f} ms  worst {phase2[-1]:7.2f} ms"
        )


if __name__ == "__main__":
    main()
