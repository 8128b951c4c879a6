"""The engine contract, checked on every game Lumin hosts (docs/engine.md, "Tests every game runs").

Random full games from Hypothesis-chosen seeds and room options check that:
- replaying the log from the first state gives the live state, at every step;
- every command ``legal()`` offers is accepted, the ones the game names illegal are refused
  with their code, and a finished game offers nothing and refuses everything with
  ``game_over``;
- each viewer's view is unchanged when what it cannot see is changed, and holds none of the
  secret values the game names;
- views are plain msgpack data with string keys; every command and event survives a msgpack
  round trip.
"""

from __future__ import annotations

import random
from typing import Any

import attrs
import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import (
    Command,
    Event,
    Rejected,
    SeatSpec,
    ViewPatcher,
    from_wire,
    replay,
    to_wire,
)
from engine.match import Match, make_bots, play_out
from engine.registry import game_ids, get_game
from protocol.delta import apply, op_from_wire
from tests.contract.spec import ContractSpec, load_spec

GAMES = game_ids()


def walk(value: Any, path: tuple[Any, ...] = ()) -> Any:
    """Every (path, leaf) of plain data, map keys included as leaves."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), f"view key {key!r} at {path} is not a string"
            yield path, key
            yield from walk(item, (*path, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from walk(item, (*path, index))
    else:
        yield path, value


def round_trip(classes: Any, item: Command | Event) -> None:
    packed = msgpack.packb(to_wire(item), use_bin_type=True)
    again = from_wire(classes, msgpack.unpackb(packed, raw=False))
    assert again == item, f"{item!r} came back as {again!r}"


def check_views(game: Any, spec: ContractSpec, match: Match, rng: random.Random) -> None:
    state = match.state
    viewers: list[int | None] = [None, *range(len(match.seats))]
    for viewer in viewers:
        view = game.view(state, viewer)
        msgpack.packb(view, use_bin_type=True)
        secrets = spec.secrets(state, viewer)
        for path, leaf in walk(view):
            if isinstance(leaf, str | int) and not isinstance(leaf, bool):
                assert leaf not in secrets, f"viewer {viewer} sees secret {leaf!r} at {path}"
        other = spec.perturb(state, viewer, rng)
        if other is not None:
            assert game.view(other, viewer) == view, f"viewer {viewer}'s view reveals a secret"


def check_patches(game: Any, before: Any, after: Any, events: list[Event], count: int) -> int:
    """A game's view patches (``engine.core.ViewPatcher``) turn every viewer's view before a
    step into exactly the view after it; returns how many viewers got a patch."""
    if not isinstance(game, ViewPatcher):
        return 0
    patched = 0
    for viewer in [None, *range(count)]:
        ops = game.view_patch(before, after, events, viewer)
        if ops is None:
            continue
        patched += 1
        result = apply(game.view(before, viewer), [op_from_wire(op) for op in ops])
        expected = game.view(after, viewer)
        assert msgpack.packb(result) == msgpack.packb(expected), f"viewer {viewer}: {ops}"
    seats = game.legal_seats(before, after, events)
    if seats is not None:
        for seat in set(range(count)) - set(seats):
            assert game.legal(before, seat) == game.legal(after, seat), f"seat {seat}: {events}"
    return patched


def check_offers(game: Any, spec: ContractSpec, match: Match, rng: random.Random) -> None:
    state = match.state
    for seat in range(len(match.seats)):
        options = match.options_for(seat)
        for command in rng.sample(options, min(len(options), 4)):
            round_trip(game.commands, command)
            try:
                game.decide(state, seat, command, match.now, random.Random(0))
            except Rejected as refusal:  # pragma: no cover - the assertion explains
                pytest.fail(f"seat {seat}: legal() offered {command!r}, refused: {refusal}")
        for command, code in spec.illegal(state, seat, rng):
            with pytest.raises(Rejected) as refused:
                game.decide(state, seat, command, match.now, random.Random(0))
            assert refused.value.code == code, f"{command!r}: {refused.value.code} != {code}"
            assert refused.value.message


@pytest.mark.parametrize("game_id", GAMES)
def test_random_games_keep_the_contract(game_id: str) -> None:
    game = get_game(game_id)
    spec = load_spec(game_id)

    @settings(
        max_examples=spec.max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )
    @given(seed=st.binary(min_size=16, max_size=16), room=spec.rooms)
    def play(seed: bytes, room: tuple[dict[str, Any], int]) -> None:
        options, count = room
        seats = [SeatSpec(name=f"p{n}", bot=spec.bots) for n in range(count)]
        match = Match.start(game, seats, seed, options)
        assert replay(game, match.first, []) == match.first
        rng = random.Random(seed)
        steps = 0
        offered: dict[type, Command] = {}

        before = [match.state]

        def on_step(m: Match, seat: int | None, command: Command | None, events: list) -> None:
            nonlocal steps
            steps += 1
            check_patches(game, before[0], m.state, events, count)
            before[0] = m.state
            for event in events:
                round_trip(game.events, event)
            assert replay(game, m.first, m.log) == m.state, "the log's fold is not the state"
            if m.outcome is None:
                for seat in range(count):
                    for command in m.options_for(seat)[:50]:
                        offered.setdefault(type(command), command)
            if steps % spec.check_every == 0 or m.outcome is not None:
                check_views(game, spec, m, rng)
                check_offers(game, spec, m, rng)

        check_views(game, spec, match, rng)
        check_offers(game, spec, match, rng)
        play_out(match, make_bots(match, [spec.bots] * count, seed), on_step=on_step)

        assert match.outcome is not None
        assert len(match.outcome.ranks) == count
        for seat in range(count):
            assert game.legal(match.state, seat) == [], "a finished game offers commands"
        assert game.deadline(match.state) is None, "a finished game still sets a deadline"
        # Any command, of any type the game offered during play, now meets game_over.
        assert offered, "the game offered no command at all"
        for seat in range(count):
            for command in offered.values():
                with pytest.raises(Rejected) as refused:
                    game.decide(match.state, seat, command, match.now, random.Random(0))
                assert refused.value.code == "game_over"
        view = game.view(match.state, None)
        assert "outcome" in view, "the public view of a finished game shows its outcome"

    play()


@pytest.mark.parametrize("game_id", GAMES)
def test_unknown_and_malformed_commands_are_refused(game_id: str) -> None:
    game = get_game(game_id)
    for bad in ({"type": "no_such_command"}, {"nope": 1}, "text"):
        with pytest.raises(Rejected) as refused:
            from_wire(game.commands, bad)  # type: ignore[arg-type]
        assert refused.value.code == "bad_command"
    for cls in game.commands:
        fields = attrs.fields(cls)
        if fields:
            with pytest.raises(Rejected) as refused:
                from_wire(game.commands, {"type": cls.TYPE, fields[0].name: {"deep": [None]}})
            assert refused.value.code == "bad_command"


@pytest.mark.parametrize("game_id", GAMES)
def test_registry_entry_is_complete(game_id: str) -> None:
    game = get_game(game_id)
    assert game.id == game_id
    assert "random" in game.bots and game.default_bot in game.bots
    types = [cls.TYPE for cls in game.commands] + [cls.TYPE for cls in game.events]
    assert all(types) and len(set(types)) == len(types), "command and event types are unique"
