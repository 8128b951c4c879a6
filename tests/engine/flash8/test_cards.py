"""The deck of 52 cards (flash8.decisions 3 and 11) and its generator."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from importlib import resources
from pathlib import Path

from engine.flash8.board import BLANK, COLOURS, FULL_SET, HANDICAP_SET, LIMITS, to_seat
from engine.flash8.cards import CARDS, SHAPES, card_pattern
from engine.flash8.solver import UNREACHABLE, Space, table

ROOT = Path(__file__).resolve().parents[3]


def test_fifty_two_cards_forty_one_point_and_twelve_two_star() -> None:
    # flash8.decisions 3: 40 one-point and 12 two-star cards
    assert len(CARDS) == 52
    points = Counter(card.points for card in CARDS)
    assert points == {1: 40, 2: 12}
    for card in CARDS:
        assert 3 <= card.electrons <= 7
        assert card.points == (2 if card.electrons >= 6 else 1)


def test_cards_ask_no_more_than_a_handicapped_tablet_holds() -> None:
    # flash8.decisions 3: no card asks for more of a colour than a tablet has, none shows 3 blues
    for card in CARDS:
        assert len(card.pattern) == 9
        assert set(card.pattern) <= set(COLOURS + BLANK)
        for colour in COLOURS:
            assert card.pattern.count(colour) <= LIMITS[colour]
        assert card.pattern.count("B") <= 2


def test_no_two_cards_alike_even_turned() -> None:
    # flash8.decisions 3: no two the same; seats see cards turned (decisions 5)
    seen: dict[str, str] = {}
    for card in CARDS:
        for side in range(4):
            turned = to_seat(side, card.pattern)
            assert seen.setdefault(turned, card.id) == card.id
    assert len({card.id for card in CARDS}) == 52


def test_solo_faces_follow_decision_11() -> None:
    # flash8.decisions 11: each shape on 13 cards: 4 blue, 3 yellow, 2 red, 2 violet, 2 green
    for shape in SHAPES:
        colours = Counter(card.colour for card in CARDS if card.shape == shape)
        assert colours == {"B": 4, "Y": 3, "R": 2, "V": 2, "G": 2}
    assert Counter(card.colour for card in CARDS) == {"B": 16, "Y": 12, "R": 8, "V": 8, "G": 8}


def test_every_card_reachable_from_every_start_in_every_orientation() -> None:
    # flash8.decisions 3: "a test proves every card reachable from every starting tablet",
    # for full and handicapped tablets (decisions 1), from every seat's side (decisions 5).
    # The arrangement graph is connected (one search from one tablet reaches all), and every
    # card turned to every side has matching arrangements, so each is reachable from anywhere.
    for electrons, size in ((FULL_SET, 30240), (HANDICAP_SET, 45360)):
        space = Space(electrons)
        assert len(space) == size
        reach = space.bfs(space.states[0])  # the goal set of a fully given tablet: itself
        assert UNREACHABLE not in reach
        for card in CARDS:
            for side in range(4):
                assert space.goals(card_pattern(card.number, side)), (card.id, electrons)
        # And directly: every tablet gets a finite distance to every card.
        for card in CARDS:
            assert UNREACHABLE not in table(electrons, card.pattern)


def test_generator_and_seed_reproduce_the_shipped_deck() -> None:
    spec = importlib.util.spec_from_file_location("flash8_cards", ROOT / "scripts/flash8_cards.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shipped = resources.files("engine.flash8").joinpath("cards.json").read_text()
    assert module.dumps(module.generate()) == shipped
    assert json.loads(shipped)["seed"] == module.SEED
