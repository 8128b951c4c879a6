"""Where the rest of Lumin finds a game by its id.

Each entry names the module attribute holding the game's rules object; modules are imported
on first use, so a process pays only for the games it hosts.
"""

from __future__ import annotations

import importlib

from engine.core import Game

__all__ = ["game_ids", "get_game"]

_GAMES: dict[str, str] = {
    "flip_over_frog": "engine.flip_over_frog.rules:GAME",
    "neon_flip": "engine.neon_flip.rules:GAME",
    "flash8": "engine.flash8.rules:GAME",
    "neon_hex": "engine.neon_hex.rules:GAME",
}

_loaded: dict[str, Game] = {}


def game_ids() -> list[str]:
    """The ids of every game Lumin hosts."""
    return list(_GAMES)


def get_game(game_id: str) -> Game:
    """The rules object for ``game_id``; ``KeyError`` names the known ids when it is unknown."""
    if game_id not in _loaded:
        if game_id not in _GAMES:
            raise KeyError(f"unknown game {game_id!r}; Lumin hosts {', '.join(_GAMES)}")
        module_name, attribute = _GAMES[game_id].split(":")
        _loaded[game_id] = getattr(importlib.import_module(module_name), attribute)
    return _loaded[game_id]
