"""Seeded Neon Flip games recorded as golden playthroughs (``scripts/golden.py neon_flip``).

Short games (one round) keep the files small; every step records its command, its events and a
digest of every viewer's view.
"""

from typing import Any

CASES: list[tuple[str, str, list[str], dict[str, Any]]] = [
    ("classic_two_bots", "6e656f6e2d666c69702d636c61737331", ["bot", "bot"], {"rounds": 1}),
    (
        "three_mixed",
        "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
        ["bot", "random", "bot"],
        {"rounds": 1},
    ),
    (
        "teams_overdrive",
        "deadbeefdeadbeefdeadbeefdeadbeef",
        ["bot", "bot", "random", "random"],
        {"mode": "overdrive", "teams": True, "rounds": 1},
    ),
    ("solo_bot", "50524f544f2d5a45524f2d736f6c6f21", ["bot"], {"mode": "solo"}),
]
