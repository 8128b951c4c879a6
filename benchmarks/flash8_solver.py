"""Flash 8 solver benchmark: ``python -m benchmarks.flash8_solver [--smoke]``.

Prints the time to index each arrangement space, to build a distance table per card, the time
per query, and the deck's optimal distances: per card the largest distance from any tablet (the
same for every seat, since turning tablet and card together keeps distances), and the spread of
distances over every (tablet, card) pair, for full and handicapped tablets. Without ``--smoke``
it also builds every solo line's table.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from collections import Counter

from engine.flash8.board import FULL_SET, HANDICAP_SET, random_tablet, remove_blue
from engine.flash8.cards import CARDS, card_pattern
from engine.flash8.solo import LINES, line_pattern, possible
from engine.flash8.solver import UNREACHABLE, Space, distance, next_slide, space_for, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="a quick run (a few cards)")
    args = parser.parse_args()
    cards = CARDS[::6] if args.smoke else CARDS

    for electrons in (FULL_SET, HANDICAP_SET):
        began = time.perf_counter()
        space = Space(electrons)
        print(
            f"space {electrons}: {len(space)} arrangements indexed in "
            f"{time.perf_counter() - began:.3f} s"
        )
    space_for(FULL_SET)
    space_for(HANDICAP_SET)

    for electrons in (FULL_SET, HANDICAP_SET):
        kind = "full" if electrons == FULL_SET else "handicap"
        builds = []
        per_card_max: list[int] = []
        spread: Counter[int] = Counter()
        means = []
        for card in cards:
            began = time.perf_counter()
            dist = table(electrons, card.pattern)
            builds.append(time.perf_counter() - began)
            assert UNREACHABLE not in dist
            per_card_max.append(max(dist))
            spread.update(dist)
            means.append(sum(dist) / len(dist))
        hardest = max(range(len(cards)), key=lambda n: (per_card_max[n], means[n]))
        print(
            f"[{kind}] table build per card: mean {statistics.mean(builds) * 1000:.1f} ms, "
            f"max {max(builds) * 1000:.1f} ms, all {len(cards)} cards {sum(builds):.2f} s"
        )
        print(
            f"[{kind}] hardest card {cards[hardest].id} ({cards[hardest].pattern}): at most "
            f"{per_card_max[hardest]} slides from any tablet, {means[hardest]:.2f} on average"
        )
        print(f"[{kind}] largest distance per card: {sorted(Counter(per_card_max).items())}")
        print(
            f"[{kind}] mean distance per card: min {min(means):.2f}, median "
            f"{statistics.median(means):.2f}, max {max(means):.2f}"
        )
        total = sum(spread.values())
        shares = ", ".join(f"{d}: {100 * n / total:.1f}%" for d, n in sorted(spread.items()))
        print(f"[{kind}] distance over all (tablet, card) pairs: {shares}")

    rng = random.Random(4)
    queries = [
        (
            (lambda t: remove_blue(t, rng) if rng.random() < 0.25 else t)(random_tablet(rng)),
            card_pattern(rng.choice(cards).number, rng.randrange(4)),
        )
        for _ in range(2000 if args.smoke else 20000)
    ]
    for tablet, pattern in queries:  # tables for the turned patterns, built outside the timing
        distance(tablet, pattern)
    began = time.perf_counter()
    for tablet, pattern in queries:
        distance(tablet, pattern)
    per_query = (time.perf_counter() - began) / len(queries)
    began = time.perf_counter()
    for tablet, pattern in queries:
        next_slide(tablet, pattern)
    per_step = (time.perf_counter() - began) / len(queries)
    print(f"query distance: {per_query * 1e6:.2f} us; query next slide: {per_step * 1e6:.2f} us")

    if not args.smoke:
        began = time.perf_counter()
        worst: Counter[int] = Counter()
        count = 0
        for line, colours in itertools.product(
            range(len(LINES)), itertools.product("BYRVG", repeat=3)
        ):
            grid = ["B"] * 9
            for cell, colour in zip(LINES[line], colours, strict=True):
                grid[cell] = colour
            if not possible("".join(grid), line):
                continue
            worst[max(table(FULL_SET, line_pattern("".join(grid), line)))] += 1
            count += 1
        print(
            f"solo lines: {count} line tables in {time.perf_counter() - began:.2f} s; "
            f"largest distance per line: {sorted(worst.items())}"
        )


if __name__ == "__main__":
    main()
