"""The server fixtures of tests/server (a real Lumin server on a loopback port per test), and
the cluster nodes of tests/server/test_cluster.py (on real PostgreSQL and Redis)."""

from tests.server.conftest import server, settings, url
from tests.server.test_cluster import nodes

__all__ = ["nodes", "server", "settings", "url"]
