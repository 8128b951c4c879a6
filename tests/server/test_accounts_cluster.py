"""Accounts across a cluster, on real PostgreSQL and Redis: revoking a session closes its
connections on every node, and ``set_name`` renames the person's seats in rooms another node
plays."""

from __future__ import annotations

import asyncio

from clients.sdk import LuminClient, human
from protocol.messages import Account, Bye, ClaimName, RevokeSession, SetName, SignIn
from tests.server.test_cluster import known_to_each_other, nodes, until, url

__all__ = ["nodes"]

#: Leases and heartbeats a loaded machine cannot let lapse (1 s proved load-sensitive).
TTL = 6.0


async def test_revoking_a_session_closes_its_connections_on_every_node(nodes) -> None:
    a = await nodes("node-a", lease_ttl=TTL)
    b = await nodes("node-b", lease_ttl=TTL)
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    await ada.request(ClaimName(name="Ada", password="correct horse"))
    laptop = await LuminClient.connect(url(b), "x")
    signed = await laptop.request(SignIn(name="Ada", password="correct horse"))
    assert isinstance(signed, Account)
    await ada.request(RevokeSession(session=signed.session))
    while True:  # told on node B, where the revoked session is connected
        message = await asyncio.wait_for(laptop.messages.get(), 10)
        if isinstance(message, Bye):
            assert message.code == "signed_out"
            break
    await until(lambda: not b.hub.signed_in)
    await ada.close()
    await laptop.close()


async def test_set_name_renames_the_seats_another_node_plays(nodes) -> None:
    a = await nodes("node-a", lease_ttl=TTL)
    b = await nodes("node-b", lease_ttl=TTL)
    await known_to_each_other(a, b)
    eve = await LuminClient.connect(url(a), "Eve")
    room = await eve.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    elsewhere = await LuminClient.connect(url(b), "Eve", token=eve.token)
    assert elsewhere.user == eve.user
    await elsewhere.request(SetName(name="Evelyn"))
    await until(lambda: a.hub.rooms[room].seats[0].name == "Evelyn")
    for client in (eve, elsewhere):
        await client.close()
