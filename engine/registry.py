"""Where the rest of Lumin finds a game by its id.

Each entry names two module attributes: the game's rules object (``<game>.rules:GAME``) and
its bots (``<game>.bots:BOTS``, a mapping from bot kind to factory). Modules are imported on
first use, so a process pays only for the games it hosts.

The rules never import their bots (the bots import the rules, so the other way round would be
a circle): a rules module's ``GAME`` has an empty ``bots`` mapping. :func:`get_game` hands out
a copy of it with the game's ``BOTS`` attached, which is the object the contract of
:class:`engine.core.Game` describes (``bots`` and ``default_bot``, one of its kinds). Every
caller outside the game's own package gets its game here.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Mapping
from typing import Any

from engine.core import BotFactory, Game

__all__ = ["game_ids", "get_game"]

_GAMES: dict[str, tuple[str, str]] = {
    "flip_over_frog": ("engine.flip_over_frog.rules:GAME", "engine.flip_over_frog.bots:BOTS"),
    "neon_flip": ("engine.neon_flip.rules:GAME", "engine.neon_flip.bots:BOTS"),
    "flash8": ("engine.flash8.rules:GAME", "engine.flash8.bots:BOTS"),
    "neon_hex": ("engine.neon_hex.rules:GAME", "engine.neon_hex.bots:BOTS"),
}

_loaded: dict[str, Game] = {}


def game_ids() -> list[str]:
    """The ids of every game Lumin hosts."""
    return list(_GAMES)


def get_game(game_id: str) -> Game:
    """The game ``game_id`` (its rules with its bots attached); ``KeyError`` names the known
    ids when it is unknown."""
    if game_id not in _loaded:
        if game_id not in _GAMES:
            raise KeyError(f"unknown game {game_id!r}; Lumin hosts {', '.join(_GAMES)}")
        rules_path, bots_path = _GAMES[game_id]
        _loaded[game_id] = _with_bots(_attribute(rules_path), _attribute(bots_path))
    return _loaded[game_id]


def _attribute(path: str) -> Any:
    """The attribute ``module:name`` names, importing the module."""
    module_name, attribute = path.split(":")
    return getattr(importlib.import_module(module_name), attribute)


def _with_bots(rules: Game, bots: Mapping[str, BotFactory]) -> Game:
    """A copy of ``rules`` whose ``bots`` are ``bots``; its ``default_bot`` must be one of them."""
    if rules.default_bot not in bots:
        raise ValueError(f"{rules.id}: default bot {rules.default_bot!r} is not among its bots")
    game = copy.copy(rules)
    game.bots = bots
    return game
