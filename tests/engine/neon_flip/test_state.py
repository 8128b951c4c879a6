"""Neon Flip's state queries: the Overdrive thresholds (decisions 14)."""

from __future__ import annotations

from tests.engine.neon_flip.helpers import start


def test_overdrive_thresholds() -> None:
    # decisions 14: 24 of 36; 16 with obstacles; 12 with 3 or 4; 24 for a team
    from engine.neon_flip.state import threshold

    assert threshold(start(2, mode="overdrive")) == 24
    assert threshold(start(2, mode="overdrive", obstacles=True)) == 16
    assert threshold(start(3, mode="overdrive")) == 12
    assert threshold(start(4, mode="overdrive", teams=True)) == 24
