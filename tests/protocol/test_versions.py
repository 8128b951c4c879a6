"""Version negotiation: the highest version both sides speak, or none."""

from __future__ import annotations

from protocol.versions import SUPPORTED_VERSIONS, choose_version


def test_version_choice() -> None:
    assert choose_version([1, 2, 3], [2, 3, 4]) == 3
    assert choose_version([5], [1]) is None
    assert choose_version(SUPPORTED_VERSIONS) == max(SUPPORTED_VERSIONS)
