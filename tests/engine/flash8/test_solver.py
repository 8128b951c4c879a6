"""The exact solver: tables agree with a plain search and with the slide rules."""

from __future__ import annotations

import random
from collections import deque

from engine.flash8.board import FULL_SET, HANDICAP_SET, matches, random_tablet, remove_blue, slides
from engine.flash8.cards import CARDS, card_pattern
from engine.flash8.solver import UNREACHABLE, distance, next_slide, space_for


def _slide(tablet: str, src: int, dst: int) -> str:
    cells = list(tablet)
    cells[dst], cells[src] = cells[src], "."
    return "".join(cells)


def _search(tablet: str, pattern: str) -> int:
    """Forward breadth-first search over slides (decisions 2), independent of the tables."""
    seen = {tablet}
    queue = deque([(tablet, 0)])
    while queue:
        here, far = queue.popleft()
        if matches(here, pattern):
            return far
        for src, dst in slides(here):
            after = _slide(here, src, dst)
            if after not in seen:
                seen.add(after)
                queue.append((after, far + 1))
    return UNREACHABLE


def test_space_sizes() -> None:
    # 9!/(3!·2!) full tablets, 9!/(2!·2!·2!) handicapped ones (decisions 1)
    assert len(space_for(FULL_SET)) == 30240
    assert len(space_for(HANDICAP_SET)) == 45360


def test_tables_agree_with_a_forward_search() -> None:
    rng = random.Random(8)
    for _ in range(12):
        card = rng.choice(CARDS)
        pattern = card_pattern(card.number, rng.randrange(4))
        tablet = random_tablet(rng)
        if rng.random() < 0.5:
            tablet = remove_blue(tablet, rng)
        assert distance(tablet, pattern) == _search(tablet, pattern)


def test_next_slide_walks_an_optimal_path() -> None:
    rng = random.Random(9)
    for _ in range(20):
        pattern = card_pattern(rng.randrange(len(CARDS)), rng.randrange(4))
        tablet = random_tablet(rng)
        far = distance(tablet, pattern)
        for step in range(far, 0, -1):
            move = next_slide(tablet, pattern)
            assert move is not None and move in slides(tablet)
            tablet = _slide(tablet, *move)
            assert distance(tablet, pattern) == step - 1
        assert matches(tablet, pattern)
        assert next_slide(tablet, pattern) is None


def test_impossible_patterns_are_unreachable() -> None:
    # a line needing two reds can never be reproduced (decisions 15)
    assert distance("BBBYYRVG.", "RR-------") == UNREACHABLE
    assert next_slide("BBBYYRVG.", "RR-------") is None
    assert distance("BBYYRVG..", "BBB------") == UNREACHABLE
