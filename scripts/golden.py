"""Regenerate golden playthroughs: ``python scripts/golden.py GAME [GAME ...]``.

Each game lists its cases in ``tests/engine/<game>/golden_cases.py`` as ``CASES``: a list of
``(file name, seed hex, bot kinds, options)``. Review the diff before committing.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.golden import dumps, golden_dir, record


def main(games: list[str]) -> None:
    for game_id in games:
        cases = importlib.import_module(f"tests.engine.{game_id}.golden_cases").CASES
        folder = golden_dir(game_id)
        folder.mkdir(parents=True, exist_ok=True)
        for name, seed_hex, kinds, options in cases:
            path = folder / f"{name}.json"
            path.write_text(dumps(record(game_id, seed_hex, kinds, options)))
            print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
