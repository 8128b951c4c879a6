"""Flash 8's golden playthroughs still play out step for step."""

import json

import pytest

from tests.engine.flash8.golden_cases import CASES
from tests.golden import golden_dir, record


@pytest.mark.parametrize(("name", "seed", "kinds", "options"), CASES, ids=[c[0] for c in CASES])
def test_golden_playthrough(name: str, seed: str, kinds: list[str], options: dict) -> None:
    expected = json.loads((golden_dir("flash8") / f"{name}.json").read_text())
    assert record("flash8", seed, kinds, options) == expected
