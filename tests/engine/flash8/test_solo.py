"""Solo mode, clause by clause (rulebook "Solo Mode"; flash8.decisions 11-16)."""

from __future__ import annotations

import random

import attrs
import pytest

from engine.core import Rejected, validate_options
from engine.flash8 import solo
from engine.flash8.cards import CARDS, SHAPES
from engine.flash8.messages import (
    ClaimLine,
    ClaimMissed,
    Ended,
    Flash,
    Hint,
    HintGiven,
    LineClaimed,
    Slide,
    Started,
)
from engine.flash8.solo import dead_end, line_pattern, possible, rank_name
from engine.flash8.solver import distance
from engine.flash8.state import SoloState
from engine.registry import get_game
from tests.engine.flash8.helpers import START, act, apply, complete, new_state, solo_game

GAME = get_game("flash8")


def _refused(state: SoloState, command: object, now: float) -> str:
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 0, command, now, random.Random(0))  # type: ignore[arg-type]
    assert refused.value.message
    return refused.value.code


def _card(colour: str, shape: str, skip: int = 0) -> int:
    found = [c.number for c in CARDS if c.colour == colour and c.shape == shape]
    return found[skip]


def _grid(state: SoloState, faces: list[tuple[str, str]]) -> SoloState:
    """Lay out a grid of the given (colour, shape) faces; the reserve is every other card."""
    used: dict[tuple[str, str], int] = {}
    grid = []
    for face in faces:
        grid.append(_card(*face, skip=used.get(face, 0)))
        used[face] = used.get(face, 0) + 1
    reserve = tuple(c.number for c in CARDS if c.number not in grid)
    return attrs.evolve(state, grid=tuple(grid), reserve=reserve)


FACES = [
    ("B", "circle"), ("Y", "circle"), ("R", "star"),
    ("B", "square"), ("G", "cross"), ("Y", "star"),
    ("V", "circle"), ("B", "circle"), ("B", "star"),
]  # fmt: skip


# --- setup -------------------------------------------------------------------------------------


def test_setup_deals_nine_and_keeps_forty_three_in_reserve() -> None:
    # rulebook "Solo Mode: Setup"; decisions 12
    for seed in range(40):
        state = new_state(1, seed=seed, mode="solo")
        assert isinstance(state, SoloState)
        assert len(state.grid) == 9 and len(state.reserve) == 43
        assert len(set(state.grid) | set(state.reserve)) == 52
        colours = state.colours()
        for single in "RVG":
            assert colours.count(single) <= 3
        assert not dead_end(colours, None)


def test_a_fourth_red_violet_or_green_goes_to_the_bottom() -> None:
    # rulebook "Solo Mode: Setup" (BE CAREFUL!); decisions 12
    skipped_somewhere = False
    for seed in range(300):
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        grid, rest = solo._deal(random.Random(seed))
        last = deck.index(grid[-1])
        skipped = [card for card in deck[:last] if card not in grid]
        assert grid == [card for card in deck[: last + 1] if card not in skipped]
        for card in skipped:
            colour = CARDS[card].colour
            assert colour in "RVG"
            assert sum(CARDS[g].colour == colour for g in grid) == 3
        assert rest[len(rest) - len(skipped) :] == skipped
        skipped_somewhere |= bool(skipped)
    assert skipped_somewhere


def test_a_grid_with_no_possible_line_is_redealt(monkeypatch: pytest.MonkeyPatch) -> None:
    # decisions 12: "If no line of the dealt grid could ever be reproduced ... dealt again"
    # nine yellows: every row and column asks for three yellows, a tablet has two
    dead = [_card("Y", shape, n) for shape in ("circle", "cross", "star") for n in range(3)]
    assert dead_end("".join(CARDS[c].colour for c in dead), None)
    deals = iter([(dead, [c for c in range(52) if c not in dead]), solo._deal(random.Random(1))])
    monkeypatch.setattr(solo, "_deal", lambda rng: next(deals))
    options = validate_options(GAME, {"mode": "solo"})
    state = solo.setup(options, random.Random(0))
    assert state.deals == 2
    assert not dead_end(state.colours(), None)


def test_handicap_is_refused_in_solo() -> None:
    # decisions 1: the handicap is chosen before a race; not in solo
    with pytest.raises(Rejected) as refused:
        new_state(1, mode="solo", handicap=(True,))
    assert refused.value.code == "bad_option"


# --- lines and claims ---------------------------------------------------------------------------


def test_lines_are_reproduced_in_place() -> None:
    # rulebook "Solo Mode: Game" (the right column on the right of the board); decisions 13
    colours = "BYRBGYVBB"
    assert line_pattern(colours, 0) == "BYR------"
    assert line_pattern(colours, 5) == "--R--Y--B"
    assert line_pattern(colours, 3) == "B--B--V--"


def test_claim_covers_the_named_shape_in_reading_order_and_moves_the_token() -> None:
    # rulebook "Solo Mode: Game" 1-2; decisions 14
    state = _grid(solo_game(), FACES)
    state = attrs.evolve(state, tablet=complete(line_pattern(state.colours(), 0)))
    top, second = state.reserve[0], state.reserve[1]
    after, events = act(state, 0, ClaimLine(0, "circle"), START + 5)
    (claimed,) = events
    assert isinstance(claimed, LineClaimed)
    assert claimed.covered == (0, 1)
    assert isinstance(after, SoloState)
    assert after.grid[0] == top and after.grid[1] == second
    assert after.depth[:3] == (2, 2, 1)
    assert after.token == 0
    assert len(after.reserve) == 41
    assert _refused(after, ClaimLine(0, "circle"), START + 6) == "reminder_token"


def test_columns_cover_top_to_bottom() -> None:
    # decisions 14: reading order, rows top to bottom
    state = _grid(solo_game(), FACES)
    state = attrs.evolve(state, tablet=complete(line_pattern(state.colours(), 3)))
    _, events = act(state, 0, ClaimLine(3, "circle"), START + 1)
    assert isinstance(events[0], LineClaimed) and events[0].covered == (0, 6)


def test_a_shape_the_line_lacks_covers_nothing_but_moves_the_token() -> None:
    # decisions 14: "Naming a shape the line does not show is allowed"
    state = _grid(solo_game(), FACES)
    state = attrs.evolve(state, tablet=complete(line_pattern(state.colours(), 0)), token=4)
    after, events = act(state, 0, ClaimLine(0, "square"), START + 1)
    assert isinstance(events[0], LineClaimed) and events[0].covered == ()
    assert isinstance(after, SoloState) and after.token == 0 and after.grid == state.grid


def test_wrong_line_claim_locks_out() -> None:
    # decisions 14: refused with the same lockout as in the race
    state = _grid(solo_game(), FACES)
    state = attrs.evolve(state, tablet="BBBYYRVG.")
    assert not any(
        distance("BBBYYRVG.", line_pattern(state.colours(), line)) == 0 for line in range(6)
    )
    after, events = act(state, 0, ClaimLine(1, "star"), START + 1)
    assert events == [ClaimMissed(0, START + 1, START + 3, line=1)]
    assert isinstance(after, SoloState)
    assert GAME.legal(after, 0) == []
    assert _refused(after, Slide(7, 8), START + 2) == "locked_out"


def test_bad_claims_and_race_commands_are_refused() -> None:
    state = solo_game()
    assert _refused(state, ClaimLine(6, "star"), START) == "no_such_line"
    assert _refused(state, ClaimLine(0, "hexagon"), START) == "no_such_shape"
    assert _refused(state, Flash(), START) == "wrong_mode"
    assert _refused(state, Hint(), START) == "hints_off"


def test_legal_offers_every_line_but_the_tokens() -> None:
    # decisions 13: the token's line may not be reproduced next
    state = attrs.evolve(solo_game(), token=2)
    claims = [e for e in GAME.legal(state, 0) if e["type"] == "claim_line"]
    assert [e["line"] for e in claims] == [0, 1, 3, 4, 5]
    assert all(e["choose"] == {"shape": list(SHAPES)} for e in claims)


# --- the end -----------------------------------------------------------------------------------


def test_four_minute_clock() -> None:
    # rulebook "Solo End of game" 2; decisions 15
    state = new_state(1, mode="solo")
    state = apply(state, GAME.tick(state, 0.0, random.Random(0)))
    events = GAME.tick(state, START, random.Random(0))
    assert events == [Started(START, START + 240)]
    state = apply(state, events)
    assert GAME.deadline(state) == START + 240
    events = GAME.tick(state, START + 240, random.Random(0))
    assert events == [Ended(START + 240, "time_up")]
    state = apply(state, events)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == (43.0,) and outcome.details["rank"] == "GLUON"
    assert outcome.ranks == (1,)


def test_emptying_the_reserve_ends_the_game_with_tachyon() -> None:
    # decisions 14 ("as many as the reserve allows"), 15 (reserve empty), 16 (0 is TACHYON)
    state = _grid(solo_game(), FACES)
    state = attrs.evolve(
        state, reserve=state.reserve[:1], tablet=complete(line_pattern(state.colours(), 0))
    )
    after, events = act(state, 0, ClaimLine(0, "circle"), START + 1)
    assert isinstance(events[0], LineClaimed) and events[0].covered == (0,)
    assert events[1] == Ended(START + 1, "reserve_empty")
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.scores == (0.0,)
    assert outcome.details["rank"] == "TACHYON"


def test_the_server_detects_a_dead_end() -> None:
    # rulebook "Solo End of game" 1; decisions 15
    faces = [("Y", "circle")] * 3 + [("Y", "cross")] * 3 + [("Y", "star")] * 2 + [("B", "square")]
    state = _grid(solo_game(), faces)
    colours = state.colours()
    assert colours == "YYYYYYYYB"
    expected = [False, False, True, False, False, True]
    assert [possible(colours, line) for line in range(6)] == expected
    square = _card("Y", "square")
    reserve = (square, *[n for n in state.reserve if n != square])
    state = attrs.evolve(state, reserve=reserve, tablet=complete(line_pattern(colours, 2)))
    after, events = act(state, 0, ClaimLine(2, "square"), START + 1)
    # the blue square becomes a yellow: the right column is now three yellows, and the bottom
    # row, also three yellows, is the token's line anyway
    assert isinstance(events[0], LineClaimed) and events[0].covered == (8,)
    assert events[1] == Ended(START + 1, "dead_end")
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.reason == "dead_end"
    assert outcome.scores == (42.0,) and outcome.details["rank"] == "GLUON"


def test_dead_end_rule() -> None:
    # decisions 15: a line needs more electrons of a colour than the tablet has
    assert not possible("RRB" + "B" * 6, 0)
    assert not possible("YYY" + "B" * 6, 0)
    assert possible("BBB" + "B" * 6, 0)
    assert possible("YYR" + "B" * 6, 0)
    colours = "RRB" + "VVB" + "GGB"
    assert not dead_end(colours, None)
    assert dead_end(colours.replace("B", "R", 1), None) is False  # columns 1 and 2 remain
    assert dead_end("RRR" + "VVV" + "GGG", None) is False  # every column is R,V,G
    assert dead_end("RRY" + "RRY" + "VVY", None)


@pytest.mark.parametrize(
    ("score", "rank"),
    [(0, "TACHYON"), (1, "PHOTON"), (8, "PHOTON"), (9, "NEUTRINO"), (16, "NEUTRINO"),
     (17, "ELECTRON"), (24, "ELECTRON"), (25, "QUARK"), (32, "QUARK"), (33, "GLUON"),
     (43, "GLUON")],
)  # fmt: skip
def test_ranks(score: int, rank: str) -> None:
    # rulebook "Solo End of game" table; decisions 16 (33 and more is GLUON)
    assert rank_name(score) == rank


# --- hints and views ---------------------------------------------------------------------------


def test_hint_points_at_the_nearest_claimable_line() -> None:
    state = solo_game(hints=True)
    _, events = act(state, 0, Hint(), START + 1)
    (hint,) = events
    assert isinstance(hint, HintGiven)
    colours = state.colours()
    best = min(
        distance(state.tablet, line_pattern(colours, line))
        for line in range(6)
        if possible(colours, line)
    )
    assert hint.slides == best
