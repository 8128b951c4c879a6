"""Seeded Flip Over Frog games recorded as golden playthroughs (``scripts/golden.py``)."""

CASES = [
    ("two_bots", "00112233445566778899aabbccddeeff", ["bot", "bot"], {}),
    ("three_mixed", "0f1e2d3c4b5a69788796a5b4c3d2e1f0", ["bot", "random", "bot"], {}),
    ("four_bots", "deadbeefdeadbeefdeadbeefdeadbeef", ["bot", "bot", "bot", "bot"], {}),
]
