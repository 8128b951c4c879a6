"""Neon Flip's Protocol deck: the card table and Overdrive costs (decisions, "The Protocol
deck")."""

from __future__ import annotations

from collections import Counter

from engine.neon_flip.cards import CARDS, DECK, card_cost, kind_of


def test_deck_matches_the_card_table() -> None:
    # decisions, "The Protocol deck": counts and costs line by line
    table_ = {
        "single_flip": (4, 1),
        "cross_flip": (4, 1),
        "diagonal_x": (4, 1),
        "linear_sweep": (4, 2),
        "perimeter_ring": (4, 2),
        "node_swap": (6, 2),
        "node_shift": (6, 1),
        "cascade_surge": (4, 1),
        "power_surge": (4, 0),
        "overclock": (2, 1),
        "system_drain": (2, 2),
        "grid_overcharge": (3, 4),
        "overcharge_loop": (2, 3),
        "chain_reactor": (2, 4),
        "mainframe_hijack": (1, 5),
    }
    assert Counter(kind_of(c).key for c in DECK) == {k: n for k, (n, _) in table_.items()}
    assert {k: CARDS[k].cost for k in table_} == {k: c for k, (_, c) in table_.items()}
    assert len(DECK) == 52


def test_overdrive_costs_one_less_never_below_zero() -> None:
    # rulebook 2.5.2, decisions: every card 1 less, never below 0
    assert card_cost("grid_overcharge.1", True) == 3
    assert card_cost("power_surge.1", True) == 0
    assert card_cost("single_flip.1", True) == 0
