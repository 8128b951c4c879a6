"""Answers from a node whose lease on a room another node took (a node woken from a pause
past its lease, before its next lease round), on real PostgreSQL and Redis: every request that
changes the room is answered ``ok`` only after its fenced write commits, so the stale node
answers ``moved`` to the room's owner instead; and every request gets exactly one answer,
an ``act`` whose commit was under way when the node lost the room included."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import msgpack
import pytest

from clients.sdk import LuminClient, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from server.app import LuminServer
from tests.server.test_cluster import TTL, Raw, known_to_each_other, nodes, until, url
from tests.server.test_play import play_seat

__all__ = ["nodes"]


async def taken_by(stale: LuminServer, owner: LuminServer, room: str) -> None:
    """``stale`` stops renewing its leases (it pauses) and ``owner`` takes ``room`` over once
    its lease lapses; ``stale`` still holds the room in memory, as a woken node does until
    its next lease round."""
    owner.hub.ownership.claiming = False  # taken here, at a known moment
    await stale.hub.ownership.stop()
    await asyncio.sleep(TTL * 1.2)
    assert await owner.hub.take(room) is not None
    assert owner.hub.ownership.epochs[room] == 2 and room in stale.hub.rooms


#: Each request that changes a waiting room, sent into the stale node by the host (Ada, seat
#: 0) or by Bea (seated at 1 unless the request is her joining).
REQUESTS: dict[str, tuple[str, bool, Callable[[str], dict[str, Any]]]] = {
    "join_seat": ("bea", False, lambda room: {"type": "join_seat", "room": room, "seat": 1}),
    "ready": ("bea", True, lambda room: {"type": "ready", "room": room, "ready": True}),
    "start": ("ada", True, lambda room: {"type": "start", "room": room}),
    "kick": ("ada", True, lambda room: {"type": "kick", "room": room, "seat": 1}),
    "leave": ("bea", True, lambda room: {"type": "leave", "room": room}),
    "chat_send": ("bea", True, lambda room: {"type": "chat_send", "room": room, "text": "hi"}),
}


@pytest.mark.parametrize("kind", sorted(REQUESTS))
async def test_a_stale_node_answers_a_room_change_moved_never_ok(nodes, kind: str) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    sender, seated, request = REQUESTS[kind]
    ada = await Raw.open(a, [6])
    created = await ada.request(
        {"type": "create_room", "game": "flip_over_frog", "seats": [{}, {}], "sit": 0}
    )
    room = created["room"]
    bea = await Raw.open(a, [6])
    if seated:
        assert (await bea.request({"type": "join_seat", "room": room, "seat": 1}))["type"] == "ok"
        if kind == "start":
            ready = {"type": "ready", "room": room, "ready": True}
            assert (await bea.request(ready))["type"] == "ok"
    await taken_by(a, b, room)
    answer = await (ada if sender == "ada" else bea).request(request(room))
    assert answer["type"] == "moved", answer
    assert (answer["room"], answer["url"]) == (room, url(b))
    # The owner's room is as it was: the stale node changed nothing of it.
    row = await b.store.get_room(room)
    assert row is not None and row.status == "waiting"
    assert [seat.get("user") for seat in row.seats] == [
        seat.user for seat in b.hub.rooms[room].seats
    ]
    await ada.socket.close()
    await bea.socket.close()


async def test_an_act_whose_commit_was_under_way_when_the_room_moved_is_answered(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await until(lambda: bool(ada.legal(room)))
    # Node A pauses with the act's commit on its way to PostgreSQL.
    gate, held = asyncio.Event(), asyncio.Event()
    append = a.hub.store.append

    def paused_append(room_id: str, *records: Any, epoch: int | None = None) -> Any:
        done = asyncio.get_running_loop().create_future()

        async def later() -> None:
            held.set()
            await gate.wait()
            try:
                await append(room_id, *records, epoch=epoch)
            except Exception as error:
                done.set_exception(error)
            else:
                done.set_result(None)

        a.hub.spawn(later())
        return done

    a.hub.store.append = paused_append  # type: ignore[method-assign]
    command = to_wire(expand_legal(get_game("flip_over_frog"), ada.legal(room))[0])
    acting = asyncio.ensure_future(ada.act(room, command))
    await asyncio.wait_for(held.wait(), 5)
    await taken_by(a, b, room)
    await a.hub.ownership.round()  # A wakes: its renewal finds the lease gone, it lets go
    gate.set()  # and the act's append arrives, under the old epoch
    answer = await asyncio.wait_for(acting, 15)
    assert answer.TYPE == "accepted", answer  # sent on to node B, which took it
    assert ada.url == ada.answered_on == url(b), "the client says which node accepted it"
    records = await b.store.get_records(room)
    assert any(record.seat == 0 for record in records), "the accepted command is in the log"
    await ada.close()


async def test_a_rematch_is_made_only_where_the_finished_room_is_owned(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await LuminClient.connect(url(a), "Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(7), "flip_over_frog"), 60)
    raw = await Raw.open(a, [6], token=ada.token)
    await raw.request({"type": "resume", "room": room, "seq": 0, "epoch": ""})
    # Another node holds the finished room's lease now (node A paused past it).
    await a.hub.ownership.stop()
    await asyncio.sleep(TTL * 1.2)
    assert await b.hub.ownership.claim(room) == 2
    answer = await raw.request({"type": "rematch", "room": room})
    assert answer["type"] == "moved" and answer["url"] == url(b), answer
    row = await b.store.get_room(room)
    assert row is not None and "rematch" not in row.meta, "no rematch only node A knows of"
    await until(lambda: not any(r.status == "waiting" for r in a.hub.rooms.values()))
    await raw.socket.close()
    await ada.close()


async def test_requests_queued_in_a_room_that_moves_are_answered_moved(nodes) -> None:
    a, b = await nodes("node-a"), await nodes("node-b")
    await known_to_each_other(a, b)
    ada = await Raw.open(a, [6])
    created = await ada.request(
        {"type": "create_room", "game": "flip_over_frog", "seats": [{}, {}, {}], "sit": 0}
    )
    room = created["room"]
    bea, cy = await Raw.open(a, [6]), await Raw.open(a, [6])
    assert (await bea.request({"type": "join_seat", "room": room, "seat": 1}))["type"] == "ok"
    # Cy's seat is being written when node A pauses; Bea's ready waits behind it.
    gate, held = asyncio.Event(), asyncio.Event()
    update_room = a.hub.store.update_room

    def paused_update(room_id: str, epoch: int | None = None, **fields: Any) -> Any:
        done = asyncio.get_running_loop().create_future()

        async def later() -> None:
            held.set()
            await gate.wait()
            try:
                await update_room(room_id, epoch=epoch, **fields)
            except Exception as error:
                done.set_exception(error)
            else:
                done.set_result(None)

        a.hub.spawn(later())
        return done

    a.hub.store.update_room = paused_update  # type: ignore[method-assign]
    await cy.socket.send(msgpack.packb({"type": "join_seat", "room": room, "seat": 2, "id": 5}))
    await asyncio.wait_for(held.wait(), 5)
    ready = {"type": "ready", "room": room, "ready": True, "id": 6}
    await bea.socket.send(msgpack.packb(ready))
    await until(lambda: a.hub.rooms[room]._mailbox._queue.qsize() == 1)
    await taken_by(a, b, room)
    await a.hub.ownership.round()  # A wakes: its renewal finds the lease gone, it lets go
    gate.set()
    for client, ref in ((bea, 6), (cy, 5)):
        answer = await client.answer(ref)
        assert (answer["type"], answer.get("url")) == ("moved", url(b)), answer
    for client in (ada, bea, cy):
        await client.socket.close()
