"""How ratings move between bot levels: simulated games rated as Lumin rates people.

``python -m benchmarks.rating_ladder [--games N] [--jobs J] [--seats K] [--smoke] [GAME ...]``
plays N seeded in-process games of each game between K (default 2) bot levels of its ladder
(``server.ratings.LADDERS``, weakest first), drawn at random and seated in random order, the
bots paced as a server paces them (``bot_delay`` 0.8 s), and rates each level as one player
through the server's own rating code (:func:`server.ratings.rate`, openskill's
Plackett-Luce), in the order the games were dealt.
It prints, per game, each level's games, ``mu``, ``sigma`` and shown rating (``mu - 3
sigma``), the wins of the stronger level over the weaker in each pairing within a game (ranked above
it; and the places they shared), and
whether the shown ratings order the ladder (``ladder ordered: yes``). With ``--smoke`` it
plays a few games of one game.
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations

from engine.core import validate_options
from engine.registry import get_game
from engine.selfplay import DEFAULT_BOT_DELAY, play_game
from server.playerrows import RatingRow
from server.ratings import LADDERS, Player, pool_of, rate


def _deal(game: str, games: int, seed: int, seats: int) -> list[tuple[str, ...]]:
    """The seated levels of each game: ``seats`` distinct levels, in a random seat order."""
    rng = random.Random(f"{seed}:{game}:{seats}")
    ladder = LADDERS[game]
    return [tuple(rng.sample(ladder, seats)) for _ in range(games)]


def _play(game: str, kinds: tuple[str, ...], seed: int, index: int) -> tuple[int, ...]:
    return play_game(game, kinds, seed, index, {}, bot_delay=DEFAULT_BOT_DELAY).ranks


def ladder(game: str, games: int, seed: int, jobs: int, seats: int = 2) -> list[str]:
    """The report lines of one game's ladder, from games of ``seats`` seats."""
    deals = _deal(game, games, seed, seats)
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(
            pool.map(_play, [game] * games, deals, [seed] * games, range(games), chunksize=4)
        )
    elapsed = time.perf_counter() - started
    rules = get_game(game)
    pool_name = pool_of(game, validate_options(rules, {}), seats) or "unrated"
    held: dict[str, RatingRow] = {}
    wins: dict[tuple[str, str], list[int]] = {}
    for n, (kinds, ranks) in enumerate(zip(deals, results, strict=True)):
        players = [Player(seat, kind, kind) for seat, kind in enumerate(kinds)]
        for row in rate(game, pool_name, players, ranks, held, float(n)):
            held[row.player] = row
        for weak, strong in combinations(sorted(kinds, key=LADDERS[game].index), 2):
            tally = wins.setdefault((strong, weak), [0, 0, 0])
            tally[1] += 1
            tally[0] += ranks[kinds.index(strong)] < ranks[kinds.index(weak)]
            tally[2] += ranks[kinds.index(strong)] == ranks[kinds.index(weak)]
    lines = [f"{game} ({pool_name}): {games} games in {elapsed:.1f} s on {jobs} processes"]
    for kind in LADDERS[game]:
        row = held.get(kind)
        if row is not None:
            lines.append(
                f"  {kind:>7}: games {row.games:4d}  mu {row.mu:6.2f}  sigma {row.sigma:5.2f}"
                f"  rating {row.shown:6.2f}"
            )
    for weak, strong in combinations(LADDERS[game], 2):
        won, played, tied = wins.get((strong, weak), [0, 0, 0])
        if played:
            lines.append(
                f"  {strong} beats {weak}: {won}/{played} ({100 * won / played:.0f}%),"
                f" shared {tied}"
            )
    shown = [held[k].shown for k in LADDERS[game] if k in held]
    ordered = len(shown) == len(LADDERS[game]) and shown == sorted(shown)
    lines.append(f"  ladder ordered: {'yes' if ordered else 'no'}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game_ids", nargs="*", metavar="GAME", help="default: every game")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--seats", type=int, default=2, help="levels per game (at most the ladder's length)"
    )
    parser.add_argument("--smoke", action="store_true", help="a few games, to check it runs")
    args = parser.parse_args()
    games = 6 if args.smoke else args.games
    chosen = args.game_ids or (["flip_over_frog"] if args.smoke else list(LADDERS))
    for game in chosen:
        seats = min(args.seats, len(LADDERS[game]))
        for line in ladder(game, games, args.seed, 1 if args.smoke else args.jobs, seats):
            print(line, flush=True)


if __name__ == "__main__":
    main()
