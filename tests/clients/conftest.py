"""The server fixtures of tests/server (a real Lumin server on a loopback port per test)."""

from tests.server.conftest import connect, server, settings, url

__all__ = ["connect", "server", "settings", "url"]
