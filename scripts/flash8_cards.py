"""Generate Flash 8's 52 cards: ``python scripts/flash8_cards.py [--check]``.

Writes ``engine/flash8/cards.json`` from :data:`SEED` (``--check`` only compares). The deck
follows flash8.decisions 3 and 11:

- multiplayer faces: 13 cards of 3 electrons, 14 of 4, 13 of 5 (40 one-point cards), 6 of 6
  and 6 of 7 (12 two-star cards); each drawn from the electrons ``BBYYRVG`` (at most two blues,
  so a handicapped tablet can complete it) at random cells; no card equals another, nor any
  quarter turn of another (players at other seats see cards turned);
- solo faces: each of the four shapes on 13 cards, 4 blue, 3 yellow, 2 red, 2 violet and
  2 green, shuffled over the deck.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "engine" / "flash8" / "cards.json"

#: The generator's seed; changing it deals a different deck.
SEED = 20260808
#: How many cards show each number of electrons.
SIZES = {3: 13, 4: 14, 5: 13, 6: 6, 7: 6}
#: The electrons a card may show: at most two blues (decisions 3).
POOL = "BBYYRVG"
SHAPES = ("circle", "cross", "star", "square")
#: Solo colours per shape (decisions 11).
SOLO_COLOURS = "BBBBYYYRRVVGG"


def _turn(pattern: str) -> str:
    """A pattern turned a quarter: cell (r, c) moves to (c, 2 - r)."""
    out = [""] * 9
    for cell, item in enumerate(pattern):
        r, c = divmod(cell, 3)
        out[c * 3 + (2 - r)] = item
    return "".join(out)


def _turns(pattern: str) -> set[str]:
    seen = {pattern}
    for _ in range(3):
        pattern = _turn(pattern)
        seen.add(pattern)
    return seen


def generate(seed: int = SEED) -> dict[str, Any]:
    """The deck as the JSON document ``cards.json`` holds."""
    rng = random.Random(seed)
    taken: set[str] = set()
    patterns: list[str] = []
    for size, count in SIZES.items():
        made = 0
        while made < count:
            colours = rng.sample(POOL, size)
            cells = rng.sample(range(9), size)
            grid = ["-"] * 9
            for cell, colour in zip(cells, colours, strict=True):
                grid[cell] = colour
            pattern = "".join(grid)
            if _turns(pattern) & taken:
                continue
            taken |= _turns(pattern)
            patterns.append(pattern)
            made += 1
    order = list(range(len(patterns)))
    rng.shuffle(order)
    solo = [(shape, colour) for shape in SHAPES for colour in SOLO_COLOURS]
    rng.shuffle(solo)
    cards = []
    for number, which in enumerate(order):
        pattern = patterns[which]
        electrons = sum(1 for item in pattern if item != "-")
        shape, colour = solo[number]
        cards.append(
            {
                "id": f"F8-{number + 1:02d}",
                "pattern": pattern,
                "electrons": electrons,
                "points": 2 if electrons >= 6 else 1,
                "solo": {"colour": colour, "shape": shape},
            }
        )
    return {"seed": seed, "cards": cards}


def dumps(deck: dict[str, Any]) -> str:
    """The file form: one card per line."""
    lines = [json.dumps(card, sort_keys=True) for card in deck["cards"]]
    body = ",\n    ".join(lines)
    return f'{{\n  "seed": {deck["seed"]},\n  "cards": [\n    {body}\n  ]\n}}\n'


def main(argv: list[str]) -> int:
    text = dumps(generate())
    if "--check" in argv:
        same = OUT.exists() and OUT.read_text() == text
        print("cards.json is up to date" if same else "cards.json differs from the generator")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
