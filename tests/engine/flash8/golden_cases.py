"""Seeded Flash 8 games recorded as golden playthroughs (``scripts/golden.py flash8``)."""

CASES = [
    ("race_two_bots", "f1a5b8f1a5b8f1a5b8f1a5b8f1a5b8f1", ["bot", "fast"], {}),
    (
        "race_random_timed",
        "0badc0de0badc0de0badc0de0badc0de",
        ["random", "bot", "random"],
        {"time_limit": 8.0, "lockout": 1.0, "same_start": True, "hints": True},
    ),
    (
        "solo_short",
        "5010501050105010501050105010501a",
        ["bot"],
        {"mode": "solo", "solo_seconds": 40.0},
    ),
]
