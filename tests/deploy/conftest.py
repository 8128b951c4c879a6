"""Fixtures of the deploy tests: the nginx they run."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.deploy.processes import missing


@pytest.fixture(scope="module")
def nginx_bin() -> str:
    """nginx's path (Debian puts it in /usr/sbin, often not on a user's PATH)."""
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None
    )
    if found is None:
        missing("nginx is not installed (Debian: apt-get install -y nginx-light)")
        raise AssertionError("unreachable")
    return found
