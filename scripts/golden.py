"""Regenerate golden playthroughs: ``python scripts/golden.py GAME [GAME ...]`` or ``--all``.

Each game lists its cases in ``tests/engine/<game>/golden_cases.py`` as ``CASES``: a list of
``(file name, seed hex, bot kinds, options)``; the files land in ``tests/engine/<game>/golden/``
(see ``tests/golden.py``). The games are the registry's (``engine.registry.game_ids``). Review
the diff before committing.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.registry import game_ids
from tests.golden import dumps, golden_dir, record


def main(games: list[str]) -> None:
    """Write every golden file of ``games``."""
    for game_id in games:
        cases = importlib.import_module(f"tests.engine.{game_id}.golden_cases").CASES
        folder = golden_dir(game_id)
        folder.mkdir(parents=True, exist_ok=True)
        for name, seed_hex, kinds, options in cases:
            path = folder / f"{name}.json"
            data = record(game_id, seed_hex, kinds, options)
            path.write_text(dumps(data))
            print(f"wrote {path}: {len(data['steps'])} steps, {data['outcome']['reason']}")


def parse(argv: list[str]) -> list[str]:
    """The games named on the command line, or every game with ``--all``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help=", ".join(game_ids()))
    parser.add_argument("--all", action="store_true", help="every game the registry hosts")
    args = parser.parse_args(argv)
    if args.all == bool(args.games):
        parser.error("name one or more games, or --all")
    unknown = [game for game in args.games if game not in game_ids()]
    if unknown:
        parser.error(f"unknown game {', '.join(unknown)}; Lumin hosts {', '.join(game_ids())}")
    return game_ids() if args.all else list(args.games)


if __name__ == "__main__":
    main(parse(sys.argv[1:]))
