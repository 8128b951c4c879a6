"""Generate PROTO-ZERO's 24-card AI Protocol deck (neon-flip.decisions 16).

The deck holds 6 Cross, 5 Diagonal X, 4 Linear Sweeps of a row, 4 of a column and 5 Perimeter
Rings. Targets are drawn once from ``SEED``: the 16 pattern cards get 16 different slots, the
sweeps different lines, and a draw is kept only when every row and every column is hit (holds
a pattern card's target or is swept). The result is committed as
``engine/neon_flip/ai_deck.json``; ``--check`` verifies the committed file matches.

    .venv/bin/python scripts/neon_flip_ai_deck.py [--check]
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

SEED = 20260005
OUT = Path(__file__).resolve().parent.parent / "engine" / "neon_flip" / "ai_deck.json"
MIX = (("cross", 6), ("diagonal", 5), ("row", 4), ("column", 4), ("ring", 5))


def generate(seed: int = SEED) -> dict[str, Any]:
    """The deck file's content for ``seed``: the first draw that hits every row and column."""
    rng = random.Random(seed)
    attempt = 0
    while True:
        attempt += 1
        slots = iter(rng.sample(range(1, 37), 16))
        rows = iter(rng.sample(range(1, 7), 4))
        columns = iter(rng.sample(range(1, 7), 4))
        cards: list[dict[str, Any]] = []
        for pattern, count in MIX:
            for _ in range(count):
                if pattern == "row":
                    target = next(rows)
                elif pattern == "column":
                    target = next(columns)
                else:
                    target = next(slots)
                cards.append(
                    {"id": f"ai{len(cards) + 1:02d}", "pattern": pattern, "target": target}
                )
        hit_rows = {c["target"] for c in cards if c["pattern"] == "row"}
        hit_columns = {c["target"] for c in cards if c["pattern"] == "column"}
        for card in cards:
            if card["pattern"] not in ("row", "column"):
                hit_rows.add((card["target"] - 1) // 6 + 1)
                hit_columns.add((card["target"] - 1) % 6 + 1)
        if hit_rows == set(range(1, 7)) and hit_columns == set(range(1, 7)):
            return {
                "generator": "scripts/neon_flip_ai_deck.py",
                "seed": seed,
                "attempt": attempt,
                "cards": cards,
            }


def render(deck: dict[str, Any]) -> str:
    """The committed text form: one card per line."""
    head = {k: v for k, v in deck.items() if k != "cards"}
    lines = ",\n    ".join(json.dumps(card, sort_keys=True) for card in deck["cards"])
    text = json.dumps(head, sort_keys=True, indent=2)
    return text[:-2] + ',\n  "cards": [\n    ' + lines + "\n  ]\n}\n"


def main(argv: list[str]) -> int:
    text = render(generate())
    if "--check" in argv:
        same = OUT.read_text() == text
        print("ai_deck.json is up to date" if same else "ai_deck.json differs from its generator")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
