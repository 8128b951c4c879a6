"""The server fixtures of tests/server (a real Lumin server on a loopback port per test)."""

from tests.server.conftest import server, settings, url

__all__ = ["server", "settings", "url"]
