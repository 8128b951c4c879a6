"""An option's ``when`` (what lets a form hide it) tells the truth about the rules: it names
only the game's options and seat counts, and wherever the rules refuse a value of the option
(no seat count allows it, or the seats' check refuses it), the option does not apply there."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine.core import Game, OptionSpec, Rejected, SeatSpec, validate_seats
from engine.registry import game_ids, get_game

GAMES = [get_game(game_id) for game_id in game_ids()]


def values(spec: OptionSpec) -> tuple[Any, ...]:
    if spec.kind == "choice":
        return tuple(spec.choices)
    return (False, True) if spec.kind == "bool" else ()


def rooms(game: Game) -> list[dict[str, Any]]:
    """Every combination of the game's choice and switch options, the others at defaults."""
    defaults = {spec.name: spec.default for spec in game.options}
    discrete = [spec for spec in game.options if values(spec)]
    grid = [[(spec.name, value) for value in values(spec)] for spec in discrete]
    return [{**defaults, **dict(combo)} for combo in itertools.product(*grid)]


def refused(game: Game, options: dict[str, Any], seats: int, choice: dict[str, Any]) -> bool:
    """Whether the seats' check refuses a room of ``seats`` seats (seat 0 with ``choice``)."""
    defaults = {spec.name: spec.default for spec in game.seat_options}
    try:
        validate_seats(game, options, [{**defaults, **choice}] + [defaults] * (seats - 1))
    except Rejected:
        return True
    return False


def allowed_rooms(game: Game, spec: OptionSpec, value: Any) -> list[tuple[dict[str, Any], int]]:
    """The rooms (options, seat count) the rules allow with ``spec`` at ``value``."""
    seat = spec in game.seat_options
    found = []
    for room in rooms(game):
        options = room if seat else {**room, spec.name: value}
        for seats in game.seat_counts(options):
            if not refused(game, options, seats, {spec.name: value} if seat else {}):
                found.append((options, seats))
    return found


def dealt(game: Game, spec: OptionSpec, value: Any, options: dict[str, Any], seats: int) -> Any:
    """The first state of a room with ``spec`` at ``value``, dealt from one fixed seed."""
    if spec in game.seat_options:
        defaults = {other.name: other.default for other in game.seat_options}
        specs = [SeatSpec(choices={**defaults, spec.name: value})]
        specs += [SeatSpec(choices=defaults)] * (seats - 1)
    else:
        options = {**options, spec.name: value}
        specs = [SeatSpec()] * seats
    return game.setup(options, specs, random.Random(7))


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_when_names_the_games_options_and_their_values(game: Game) -> None:
    by_name = {spec.name: spec for spec in game.options}
    for spec in (*game.options, *game.seat_options):
        for name, allowed in spec.when:
            assert allowed, f"{spec.name}: an empty {name!r} never applies"
            if name != "seats":
                assert name in by_name and name != spec.name, f"{spec.name}: {name!r}"
                assert set(allowed) <= set(values(by_name[name])), f"{spec.name}: {allowed}"


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_an_option_is_hidden_only_where_no_room_could_use_another_value(game: Game) -> None:
    """A form that hides an option where it does not apply loses no room: every room the
    rules allow with a value other than the default is one where the option applies, or one
    the value does not change."""
    for spec in (*game.options, *game.seat_options):
        for value in values(spec):
            if value == spec.default:
                continue
            for options, seats in allowed_rooms(game, spec, value):
                if not spec.applies(options, seats):
                    assert dealt(game, spec, value, options, seats) == dealt(
                        game, spec, spec.default, options, seats
                    ), f"{spec.name}={value!r} changes a room where it does not apply"


def test_the_modes_own_options_apply_in_their_mode_only() -> None:
    flip, flash = get_game("neon_flip"), get_game("flash8")
    level = next(spec for spec in flip.options if spec.name == "proto_zero")
    assert level.applies({"mode": "solo"}, 1) and not level.applies({"mode": "classic"}, 2)
    teams = next(spec for spec in flip.options if spec.name == "teams")
    assert teams.applies({"mode": "overdrive"}, 4) and not teams.applies({"mode": "classic"}, 3)
    handicap = next(spec for spec in flash.seat_options if spec.name == "handicap")
    assert handicap.applies({"mode": "race"}, 2) and not handicap.applies({"mode": "solo"}, 1)
