"""Self-play speed: complete in-process games per second for each game Lumin hosts.

``python -m benchmarks.selfplay [--games N] [--smoke] [GAME ...]`` plays N seeded games of each
game with its default bots at its most common seat count on one core, and prints one line per
game: games, seconds, games per second, and average commands per game.
"""

from __future__ import annotations

import argparse
import time

from engine.core import validate_options
from engine.registry import game_ids, get_game
from engine.selfplay import play_game

#: Seats for the headline number of each game (the rules' common table).
SEATS = {"flip_over_frog": 4, "neon_hex": 2, "flash8": 4, "neon_flip": 2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games_ids", nargs="*", metavar="GAME", help="default: every game")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="a few games, to check it runs")
    args = parser.parse_args()
    count = 3 if args.smoke else args.games
    for game_id in args.games_ids or game_ids():
        game = get_game(game_id)
        counts = game.seat_counts(validate_options(game, {}))
        seats = SEATS.get(game_id, counts.start)
        seats = seats if seats in counts else counts.start
        started = time.perf_counter()
        results = [
            play_game(game_id, [game.default_bot] * seats, args.seed, i, {}) for i in range(count)
        ]
        elapsed = time.perf_counter() - started
        commands = sum(r.commands for r in results) / count
        print(
            f"selfplay {game_id} seats={seats} games={count} seconds={elapsed:.2f} "
            f"games_per_second={count / elapsed:.1f} avg_commands={commands:.1f}"
        )


if __name__ == "__main__":
    main()
