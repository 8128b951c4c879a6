"""The games the server hosts, as clients see them (``list_games``): each game's options,
per-seat choices, bots and the numbers of seats its options allow."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import attrs

from engine.core import Game, OptionSpec, server_fields
from engine.registry import game_ids, get_game
from protocol.messages import GameInfo, OptionInfo
from protocol.versions import RESULTS_VERSION

__all__ = ["catalog", "catalog_for", "game_info"]


def _option(spec: OptionSpec) -> OptionInfo:
    return OptionInfo(
        name=spec.name,
        kind=spec.kind,  # type: ignore[arg-type]  # OptionSpec documents the same four kinds
        default=spec.default,
        doc=spec.doc,
        choices=tuple(spec.choices),
        minimum=spec.minimum,
        maximum=spec.maximum,
        when={name: list(values) for name, values in spec.when},
    )


def _values(spec: OptionSpec) -> tuple[Any, ...]:
    if spec.kind == "choice":
        return tuple(spec.choices)
    if spec.kind == "bool":
        return (False, True)
    return ()


def _seat_rules(game: Game) -> tuple[dict[str, Any], ...]:
    """``{"when", "min", "max"}`` entries covering every value of the options that change the
    number of seats (choices and switches; numeric options never do in Lumin's games).

    An option matters when changing it alone changes the seat range; the entries enumerate the
    values of the options that matter, the others at their defaults. Combinations no room can
    have (an empty range) get no entry.
    """
    defaults = {spec.name: spec.default for spec in game.options}
    discrete = [spec for spec in game.options if _values(spec)]

    def seats(overrides: dict[str, Any]) -> range:
        return game.seat_counts({**defaults, **overrides})

    grid = [[(spec.name, value) for value in _values(spec)] for spec in discrete]
    combos = [dict(combo) for combo in itertools.product(*grid)]
    matters = []
    for spec in discrete:
        for combo in combos:
            if any(seats({**combo, spec.name: value}) != seats(combo) for value in _values(spec)):
                matters.append(spec)
                break
    entries = []
    for combo in itertools.product(*[[(s.name, v) for v in _values(s)] for s in matters]):
        allowed = seats(dict(combo))
        if len(allowed):
            entries.append({"when": dict(combo), "min": allowed[0], "max": allowed[-1]})
    return tuple(entries)


def game_info(game: Game) -> GameInfo:
    """What a client needs to offer a room of ``game``."""
    return GameInfo(
        id=game.id,
        name=game.name,
        options=tuple(_option(spec) for spec in game.options),
        seat_options=tuple(_option(spec) for spec in game.seat_options),
        bots=tuple(game.bots),
        default_bot=game.default_bot,
        seats=_seat_rules(game),
        commands={cls.TYPE: _client_fields(cls) for cls in game.commands},
    )


def _client_fields(command: type[Any]) -> list[str]:
    """The fields a client may send in ``command``: all of them but those only the server sets
    (a claim's lag credit), which a client's command naming them is refused for."""
    kept = server_fields(command)
    return [field.name for field in attrs.fields(command) if field.name not in kept]


@functools.cache
def catalog() -> tuple[GameInfo, ...]:
    """Every hosted game, in the registry's order (computed once)."""
    return tuple(game_info(get_game(game_id)) for game_id in game_ids())


def _without_when(game: GameInfo) -> GameInfo:
    return attrs.evolve(
        game,
        options=tuple(attrs.evolve(option, when={}) for option in game.options),
        seat_options=tuple(attrs.evolve(option, when={}) for option in game.seat_options),
    )


@functools.cache
def catalog_for(version: int) -> tuple[GameInfo, ...]:
    """The catalogue as a client of protocol ``version`` is sent it: the options' ``when``
    from version 6 (older decoders refuse fields they do not know)."""
    if version >= RESULTS_VERSION:
        return catalog()
    return tuple(_without_when(game) for game in catalog())
