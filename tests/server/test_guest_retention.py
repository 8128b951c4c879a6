"""Guest retention on a real server, on both stores: a hello with a token counts as the
identity's last use, and the housekeeping sweep forgets unclaimed identities unseen for
``guest_retention_days``, so their token no longer resumes; recently seen and claimed
identities are kept."""

from __future__ import annotations

import hashlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from clients.sdk import LuminClient
from server.app import LuminServer
from server.config import Settings
from tests.server.conftest import TEST_LIMITS
from tests.server.test_store_contract import claim, reset_postgres

DAY = 86400.0


@pytest.fixture(params=["sqlite", "postgresql"])
async def server(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[LuminServer]:
    store = None
    if request.param == "postgresql":
        store = request.getfixturevalue("postgres_url")
        await reset_postgres(store)
    settings = Settings(
        port=0,
        data=tmp_path / "data",
        store=store,
        bot_delay=0.0,
        guest_retention_days=90,
        **TEST_LIMITS,
    )
    lumin = LuminServer(settings)
    await lumin.start()
    yield lumin
    await lumin.stop()
    if store is not None:
        await reset_postgres(store)  # the worker's database is shared: leave it empty


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def test_a_guest_unseen_past_the_retention_is_forgotten_and_gets_a_fresh_identity(
    server: LuminServer,
) -> None:
    url = f"ws://127.0.0.1:{server.port}/ws"
    people = {name: await LuminClient.connect(url, name) for name in ("Ada", "Bea", "Cy")}
    first = {name: (client.user, client.token) for name, client in people.items()}
    for client in people.values():
        await client.close()
    store = server.store
    long_ago = time.time() - 91 * DAY
    for _, token in first.values():  # all three last seen 91 days ago
        await store.touch_identity(digest(token), long_ago)
    await claim(store, digest(first["Cy"][1]))  # Cy's identity is an account's
    bea = await LuminClient.connect(url, "Bea", token=first["Bea"][1])  # seen again now
    await bea.close()

    server.hub.sweep(time.time())
    await store.probe()  # writes commit in order: the sweep's deletion is in by now

    ada = await LuminClient.connect(url, "Ada", token=first["Ada"][1], new_identity=True)
    assert ada.token_refused is not None and ada.token_refused.code == "bad_token"
    assert (ada.user, ada.token) != first["Ada"], "a fresh guest identity"
    for name in ("Bea", "Cy"):
        back = await LuminClient.connect(url, name, token=first[name][1])
        assert back.token_refused is None and back.user == first[name][0]
        await back.close()
    await ada.close()
    # The fresh identity is kept like any other: it was seen just now.
    server.hub.sweep(time.time())
    await store.probe()
    assert await store.get_identity(digest(ada.token)) == "Ada"
