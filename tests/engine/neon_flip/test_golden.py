"""Neon Flip's golden playthroughs still play out step for step (regenerate with
``scripts/golden_neon_flip.py`` and review the diff)."""

import json

import pytest

from tests.engine.neon_flip.golden_cases import CASES
from tests.golden import golden_dir, record


@pytest.mark.parametrize(("name", "seed", "kinds", "options"), CASES, ids=[c[0] for c in CASES])
def test_golden_playthrough(name: str, seed: str, kinds: list[str], options: dict) -> None:
    expected = json.loads((golden_dir("neon_flip") / f"{name}.json").read_text())
    assert record("neon_flip", seed, kinds, options) == expected
