"""Room options and seat choices are checked completely before a room exists: a value no bound
can hold (NaN, an infinity), one outside the game's documented range, a fraction for a whole
number, and a seat choice the room's mode does not allow are refused with ``bad_option``."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core import Rejected, validate_options, validate_seat_choices, validate_seats
from engine.registry import game_ids, get_game

NUMERIC = [
    (game_id, spec)
    for game_id in game_ids()
    for spec in get_game(game_id).options
    if spec.kind in ("int", "float")
]


def _refused(game_id: str, options: dict[str, object]) -> str:
    with pytest.raises(Rejected) as refused:
        validate_options(get_game(game_id), options)
    assert refused.value.code == "bad_option"
    return refused.value.message


@pytest.mark.parametrize(("game_id", "spec"), NUMERIC, ids=lambda v: getattr(v, "name", v))
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "nan", "inf", "-Infinity"])
def test_numbers_no_bound_can_hold_are_refused(game_id: str, spec: object, bad: object) -> None:
    # flash8.decisions 6-8 name lockout, time limit and countdown in seconds: a number of them
    message = _refused(game_id, {spec.name: bad})  # type: ignore[attr-defined]
    assert spec.name in message  # type: ignore[attr-defined]
    assert "finite" in message


@pytest.mark.parametrize(("game_id", "spec"), NUMERIC, ids=lambda v: getattr(v, "name", v))
def test_numbers_outside_the_documented_range_are_refused(game_id: str, spec: object) -> None:
    low, high = spec.minimum, spec.maximum  # type: ignore[attr-defined]
    assert low is not None and high is not None, "every numeric option has documented bounds"
    assert "at least" in _refused(game_id, {spec.name: low - 1})  # type: ignore[attr-defined]
    assert "at most" in _refused(game_id, {spec.name: high + 1})  # type: ignore[attr-defined]
    assert "at most" in _refused(game_id, {spec.name: 10**400})  # type: ignore[attr-defined]


def test_an_int_option_takes_whole_numbers_only() -> None:
    game = get_game("neon_flip")
    assert validate_options(game, {"rounds": 2})["rounds"] == 2
    assert validate_options(game, {"rounds": 2.0})["rounds"] == 2
    assert validate_options(game, {"rounds": "3"})["rounds"] == 3
    assert "whole number" in _refused("neon_flip", {"rounds": 2.5})
    assert "takes a number" in _refused("neon_flip", {"rounds": True})
    assert "takes a number" in _refused("neon_flip", {"rounds": [2]})


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_every_accepted_float_option_is_finite_and_in_range(value: float) -> None:
    game = get_game("flash8")
    for spec in game.options:
        if spec.kind != "float":
            continue
        try:
            checked = validate_options(game, {spec.name: value})[spec.name]
        except Rejected as refusal:
            assert refusal.code == "bad_option"
            continue
        assert math.isfinite(checked)
        assert spec.minimum <= checked <= spec.maximum


def test_a_handicap_in_solo_is_refused_before_the_room_exists() -> None:
    # flash8.decisions 1: the handicap is chosen before a race starts; not in solo
    game = get_game("flash8")
    solo = validate_options(game, {"mode": "solo"})
    choice = validate_seat_choices(game, {"handicap": True})
    with pytest.raises(Rejected) as refused:
        validate_seats(game, solo, [choice])
    assert refused.value.code == "bad_option"
    race = validate_options(game, {"mode": "race"})
    validate_seats(game, race, [choice, validate_seat_choices(game, {})])
    validate_seats(game, solo, [validate_seat_choices(game, {})])


def test_games_without_seat_rules_accept_any_valid_choices() -> None:
    game = get_game("neon_hex")
    options = validate_options(game, {})
    validate_seats(game, options, [validate_seat_choices(game, {"role": "builder"})] * 3)
