"""A real Lumin server on a loopback port for each test, with a fresh data folder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from clients.sdk import LuminClient
from server.app import LuminServer
from server.config import Settings

#: The limits a test server runs with (loopback gets no exemption).
TEST_LIMITS = {
    "rate": 10_000.0,
    "burst": 10_000,
    "address_rate": 100_000.0,
    "address_burst": 100_000,
    "connect_rate": 1_000.0,
    "connect_burst": 1_000,
    "connections_per_address": 10_000,
    "rooms_per_identity": 1_000,
    "rooms_per_address": 10_000,
    "opening_per_address": 10_000,
    "http_rate": 100_000.0,
    "http_burst": 100_000,
    "quick_play_per_address": 10_000,
    # turn clocks a test can wait out
    "min_turn_clock": 0.1,
}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # Test clients act as fast as the server answers, dozens of them from this one loopback
    # address: generous limits (the limit and flood tests set their own).
    return Settings(
        host="127.0.0.1",
        port=0,
        data=tmp_path / "data",
        bot_delay=0.0,
        grace=0.5,
        **TEST_LIMITS,
    )


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[LuminServer]:
    lumin = LuminServer(settings)
    await lumin.start()
    yield lumin
    await lumin.stop()


@pytest.fixture
def url(server: LuminServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


@pytest.fixture
async def connect(url: str) -> AsyncIterator[Callable[..., object]]:
    clients: list[LuminClient] = []

    async def open_client(name: str = "Ada", token: str | None = None, **options) -> LuminClient:
        client = await LuminClient.connect(url, name, token=token, **options)
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        await client.close()
