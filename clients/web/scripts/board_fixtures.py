"""What the boards' fixture scripts (``src/boards/<game>/fixtures.py``) share: one fixture made
from an engine state, and writing them all to the ``fixtures.json`` beside the script."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.core import Game


def fixture(game: Game, state: Any, viewer: int | None) -> dict[str, Any]:
    """The view of ``viewer`` and its legal commands, as the server sends them (JSON round
    trip: tuples become lists)."""
    legal = game.legal(state, viewer) if viewer is not None else []
    return json.loads(json.dumps({"view": game.view(state, viewer), "legal": legal}))


def write_fixtures(build: Callable[[], dict[str, Any]], script: str) -> None:
    """Build the fixtures and write them to ``fixtures.json`` beside ``script``."""
    target = Path(script).with_name("fixtures.json")
    data = build()
    target.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(data)} fixtures to {target}")
