"""Seeded Neon Hex games recorded as golden playthroughs (``scripts/golden.py neon_hex``)."""

CASES = [
    ("hard_vs_medium", "4e656f6e4865780000000000000000aa", ["hard", "medium"], {}),
    ("easy_vs_random", "4e656f6e4865780000000000000000bb", ["easy", "random"], {}),
    ("three_levels", "4e656f6e4865780000000000000000cc", ["medium", "hard", "easy"], {}),
    (
        "five_factions",
        "4e656f6e4865780000000000000000dd",
        ["hard", "easy", "medium", "random", "easy"],
        {},
    ),
]
