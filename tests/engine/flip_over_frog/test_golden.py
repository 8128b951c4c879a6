"""Flip Over Frog's golden playthroughs still play out step for step."""

import json

import pytest

from tests.engine.flip_over_frog.golden_cases import CASES
from tests.golden import golden_dir, record


@pytest.mark.parametrize(("name", "seed", "kinds", "options"), CASES, ids=[c[0] for c in CASES])
def test_golden_playthrough(name: str, seed: str, kinds: list[str], options: dict) -> None:
    expected = json.loads((golden_dir("flip_over_frog") / f"{name}.json").read_text())
    assert record("flip_over_frog", seed, kinds, options) == expected
