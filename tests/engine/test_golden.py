"""Every game's golden playthroughs still play out step for step (events and view digests).

The games are the registry's; each lists its cases in ``tests/engine/<game>/golden_cases.py``
and keeps their files in ``tests/engine/<game>/golden/``. Regenerate with
``python scripts/golden.py GAME`` (or ``--all``) and review the diff.
"""

import importlib
import json

import pytest

from engine.registry import game_ids
from tests.golden import golden_dir, record

CASES = [
    (game_id, *case)
    for game_id in game_ids()
    for case in importlib.import_module(f"tests.engine.{game_id}.golden_cases").CASES
]


@pytest.mark.parametrize(
    ("game_id", "name", "seed", "kinds", "options"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_golden_playthrough(
    game_id: str, name: str, seed: str, kinds: list[str], options: dict
) -> None:
    expected = json.loads((golden_dir(game_id) / f"{name}.json").read_text())
    assert record(game_id, seed, kinds, options) == expected
