"""Coming back: a quick reconnect after the last connection of a viewer dropped resumes with the
deltas it missed (within the resume window), a resume changes nobody's room summary when the
connection was already there, ``get_snapshot`` has no side effect, and an ``act`` from a seq
the room has not reached is refused; and the resume rule itself (``server.resume``): whatever
deltas are lost, a client that resumes ends with exactly the room's latest view."""

from __future__ import annotations

import asyncio
import collections
import itertools
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect as ws_connect

from clients.sdk import LuminClient, bot, human
from protocol.codec import decode, encode
from protocol.connection import ClientConnection, ServerConnection
from protocol.delta import diff
from protocol.messages import (
    Act,
    CommandRejected,
    Delta,
    GetSnapshot,
    Hello,
    Ok,
    Resume,
    RoomUpdate,
    Snapshot,
    Welcome,
)
from protocol.views import RoomView
from server.app import LuminServer
from server.config import Settings
from server.resume import plan_resume
from tests.protocol.strategies import views
from tests.server.conftest import TEST_LIMITS


async def _hello(socket, token: str | None = None) -> dict:
    hello = {"type": "hello", "versions": [1], "name": "Ada", **({"token": token} if token else {})}
    await socket.send(msgpack.packb(hello))
    while True:
        message = msgpack.unpackb(await socket.recv())
        if message["type"] == "welcome":
            return message


async def _answers(socket, ref: int, seconds: float = 5.0) -> list[object]:
    """Everything the server sends until the message answering ``ref`` (included)."""
    got = []
    async with asyncio.timeout(seconds):
        while True:
            message = decode(await socket.recv(), sender="server")
            got.append(message)
            if getattr(message, "ref", None) == ref:
                return got


@pytest.mark.parametrize("window", [60.0, 0.0])
async def test_a_quick_reconnect_resumes_with_the_deltas_it_missed(
    tmp_path: Path, window: float
) -> None:
    settings = Settings(
        port=0, data=tmp_path / "data", bot_delay=0.05, resume_window=window, **TEST_LIMITS
    )
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    try:
        host = await LuminClient.connect(url, "Host")
        room = await host.create_room("neon_hex", seats=[bot(), bot(), bot()])
        await host.leave(room)
        live = lumin.hub.rooms[room]
        async with ws_connect(url) as socket:
            welcome = await _hello(socket)
            await socket.send(msgpack.packb({"type": "watch_room", "room": room, "id": 2}))
            answers = await _answers(socket, 2)
            seen = next(a for a in answers if isinstance(a, Snapshot)).seq
            while True:  # follow the deltas to the newest seq
                message = decode(await socket.recv(), sender="server")
                if isinstance(message, Delta):
                    seen = message.seq
                    if seen >= 2:
                        break
        epoch = lumin.hub.epoch
        # The only spectator is gone; the bots play on.
        while live.seq < seen + 3:
            await asyncio.sleep(0.02)
        async with ws_connect(url) as socket:
            await _hello(socket, welcome["token"])
            resume = {"type": "resume", "room": room, "seq": seen, "epoch": epoch, "id": 3}
            await socket.send(msgpack.packb(resume))
            answers = await _answers(socket, 3)
        kinds = [type(a) for a in answers if not isinstance(a, RoomUpdate)]
        if window:
            assert kinds[-1] is Ok and Snapshot not in kinds
            deltas = [a for a in answers if isinstance(a, Delta)]
            assert deltas[0].base == seen
            assert all(b.base == a.seq for a, b in itertools.pairwise(deltas))
        else:
            assert kinds == [Snapshot]
        await host.close()
    finally:
        await lumin.stop()


async def test_a_resume_on_a_connection_already_there_sends_no_room_update(connect, url) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    async with ws_connect(url) as socket:
        await _hello(socket)
        await socket.send(msgpack.packb({"type": "watch_room", "room": room, "id": 2}))
        await _answers(socket, 2)
        await asyncio.sleep(0.4)  # past the watch's own (throttled) room_update
        while True:
            try:
                await asyncio.wait_for(socket.recv(), 0.05)
            except TimeoutError:
                break
        await socket.send(
            msgpack.packb({"type": "resume", "room": room, "seq": 0, "epoch": "", "id": 3})
        )
        await _answers(socket, 3)
        with pytest.raises(TimeoutError):
            while True:
                message = decode(await asyncio.wait_for(socket.recv(), 0.6), sender="server")
                assert not isinstance(message, RoomUpdate), "nothing changed for anyone"


async def test_get_snapshot_answers_with_the_view_and_changes_nothing(connect, server) -> None:
    ada: LuminClient = await connect("Ada")
    eve: LuminClient = await connect("Eve")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    await eve.watch(room)
    await asyncio.sleep(0.4)
    while not eve.messages.empty():
        eve.messages.get_nowait()
    live = server.hub.rooms[room]
    peers_before = dict(live.peers)
    snapshot = await ada.request(GetSnapshot(room=room))
    assert isinstance(snapshot, Snapshot)
    assert (snapshot.seat, snapshot.seq) == (0, live.seq)
    assert "hand" in snapshot.view
    assert snapshot.view == ada.view(room)
    public = await eve.request(GetSnapshot(room=room))
    assert public.seat is None and "hand" not in public.view
    await asyncio.sleep(0.4)
    updates = []
    while not eve.messages.empty():
        message = eve.messages.get_nowait()
        if isinstance(message, RoomUpdate):
            updates.append(message)
    assert updates == [], "a snapshot request is not news to anyone"
    assert live.peers == peers_before
    outsider: LuminClient = await connect("Zed")
    with pytest.raises(Exception) as refused:
        await outsider.request(GetSnapshot(room=room))
    assert getattr(refused.value, "code", None) == "not_in_room"


async def test_an_act_from_a_seq_the_room_has_not_reached_is_stale(connect, server) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    while not ada.legal(room):
        await ada.changed(room)
    entry = ada.legal(room)[0]
    command = {"type": entry["type"], "tile": entry["tile"], "space": entry["choose"]["space"][0]}
    future = server.hub.rooms[room].seq + 5
    answer = await ada.request(Act(room=room, command=command, seq=future))
    assert isinstance(answer, CommandRejected) and answer.code == "stale"
    assert "has not reached" in answer.message


class KeptRoom:
    """A room's history as :class:`~server.fanout.Fanout` keeps it (each batch's delta frame
    per viewer, from ``base`` to ``seq``), answering a resume by the shipped rule,
    :func:`server.resume.plan_resume`."""

    def __init__(self, first: Any) -> None:
        self.views = [first]
        self.epoch = "e1"
        self.history: collections.deque[tuple[int, int, dict[int | None, bytes]]] = (
            collections.deque(maxlen=64)
        )

    def advance(self, view: Any) -> bytes:
        base = len(self.views) - 1
        self.views.append(view)
        delta = Delta(room="r", base=base, seq=base + 1, ops=tuple(diff(self.views[base], view)))
        frame = encode(delta)
        self.history.append((base, base + 1, {None: frame}))
        return frame

    def answer(self, resume: Resume) -> list[Snapshot | Ok | bytes]:
        latest = len(self.views) - 1
        frames = plan_resume(self.history, resume.seq, latest, None, resume.epoch == self.epoch)
        if frames is None:
            return [self.snapshot(ref=resume.id)]
        return [*frames, Ok(ref=resume.id, room="r")]

    def snapshot(self, ref: int | None = None) -> Snapshot:
        seq = len(self.views) - 1
        return Snapshot(ref=ref, room="r", epoch=self.epoch, seq=seq, view=self.views[seq])


@settings(max_examples=60, deadline=None)
@given(
    first=st.dictionaries(st.text(max_size=3), views(max_leaves=8), max_size=4),
    steps=st.lists(
        st.tuples(
            st.dictionaries(st.text(max_size=3), views(max_leaves=8), max_size=4),
            st.sampled_from(["deliver", "deliver", "lose", "restart", "forget"]),
        ),
        min_size=1,
        max_size=12,
    ),
)
def test_a_resuming_client_always_ends_with_the_latest_view(
    first: dict[str, Any], steps: list[tuple[dict[str, Any], str]]
) -> None:
    room = KeptRoom(first)

    def connect(views: dict[str, RoomView]) -> tuple[ClientConnection, ServerConnection]:
        client, server = ClientConnection(views=views), ServerConnection()
        client.hello("Ada")
        for frame in client.data_to_send():
            server.receive_data(frame)
        assert [type(event) for event in server.events_received()] == [Hello]
        assert server.version is not None
        server.send(
            Welcome(
                ref=1, version=server.version, token="t", user="u", name="Ada", server_time=0.0,
                max_frame=1,
            )
        )  # fmt: skip
        return client, server

    client, server = connect({})
    #: Frames on their way to the client: the connection's, and the room's own delta frames.
    wire: list[bytes] = []

    def send(item: Snapshot | Ok | bytes) -> None:
        if isinstance(item, bytes):
            wire.append(item)
        else:
            server.send(item)
            wire.extend(server.data_to_send())

    send(room.snapshot())

    def deliver() -> None:
        """Carry frames both ways until nothing is left; the model room answers resumes."""
        while wire:
            frames = wire.copy()
            wire.clear()
            for frame in frames:
                client.receive_data(frame)
            client.events_received()
            for frame in client.data_to_send():
                server.receive_data(frame)
                (request,) = server.events_received()
                assert isinstance(request, Resume)
                for answer in room.answer(request):
                    send(answer)

    deliver()
    for view, fate in steps:
        if fate == "restart":  # same log, new epoch, no deltas kept; the client reconnects
            room.epoch += "'"
            room.history.clear()
            client, server = connect(client.views)
            client.resume_all()
            for frame in client.data_to_send():
                server.receive_data(frame)
            for request in server.events_received():
                assert isinstance(request, Resume)
                for answer in room.answer(request):
                    send(answer)
        if fate == "forget":  # the server stops keeping old deltas
            room.history.clear()
        delta = room.advance(view)
        if fate != "lose":
            send(delta)
        deliver()
    # One last change reveals any loss at the end of the run.
    send(room.advance({"final": True}))
    deliver()
    copy = client.views["r"]
    assert copy.view == room.views[-1]
    assert copy.seq == len(room.views) - 1
    assert copy.epoch == room.epoch
    assert client.resyncing == set()
