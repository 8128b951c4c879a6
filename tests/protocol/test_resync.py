"""Resume as designed (docs/protocol.md, "Resume and epochs"), played against a model server:
whatever deltas are lost, a client that resumes ends with exactly the server's latest view;
plus the fairness commitment and version negotiation helpers."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.connection import ClientConnection, ServerConnection
from protocol.delta import diff
from protocol.errors import ErrorCode, ProtocolError
from protocol.fairness import commit, verify
from protocol.messages import Delta, Hello, Ok, Resume, Snapshot, Welcome
from protocol.versions import SUPPORTED_VERSIONS, choose_version
from protocol.views import RoomView
from tests.protocol.strategies import views


class ModelRoom:
    """A room's history as a server keeps it: views by seq, deltas kept from ``kept_from``."""

    def __init__(self, first: Any) -> None:
        self.views = [first]
        self.epoch = "e1"
        self.kept_from = 0

    def advance(self, view: Any) -> Delta:
        base = len(self.views) - 1
        self.views.append(view)
        return Delta(room="r", base=base, seq=base + 1, ops=tuple(diff(self.views[base], view)))

    def answer(self, resume: Resume) -> list[Snapshot | Delta | Ok]:
        latest = len(self.views) - 1
        gone = not self.kept_from <= resume.seq <= latest
        if resume.epoch != self.epoch or gone or resume.seq == 0:
            return [self.snapshot(ref=resume.id)]
        deltas: list[Snapshot | Delta | Ok] = [
            Delta(room="r", base=n, seq=n + 1, ops=tuple(diff(self.views[n], self.views[n + 1])))
            for n in range(resume.seq, latest)
        ]
        return [*deltas, Ok(ref=resume.id, room="r")]

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
    room = ModelRoom(first)

    def connect(views: dict[str, RoomView]) -> tuple[ClientConnection, ServerConnection]:
        client, server = ClientConnection(views=views), ServerConnection()
        client.hello("Ada")
        for frame in client.data_to_send():
            server.receive_data(frame)
        assert [type(event) for event in server.events_received()] == [Hello]
        server.send(
            Welcome(ref=1, version=1, token="t", user="u", name="Ada", server_time=0.0, max_frame=1)
        )
        return client, server

    client, server = connect({})
    server.send(room.snapshot())

    def deliver() -> None:
        """Carry frames both ways until nothing is left; the model room answers resumes."""
        while frames := server.data_to_send():
            for frame in frames:
                client.receive_data(frame)
            client.events_received()
            for frame in client.data_to_send():
                server.receive_data(frame)
                (request,) = server.events_received()
                assert isinstance(request, Resume)
                for answer in room.answer(request):
                    server.send(answer)

    deliver()
    for view, fate in steps:
        if fate == "restart":  # same log, new epoch, no deltas kept; the client reconnects
            room.epoch += "'"
            room.kept_from = len(room.views) - 1
            client, server = connect(client.views)
            client.resume_all()
            for frame in client.data_to_send():
                server.receive_data(frame)
            for request in server.events_received():
                assert isinstance(request, Resume)
                for answer in room.answer(request):
                    server.send(answer)
        if fate == "forget":  # the server stops keeping old deltas
            room.kept_from = len(room.views) - 1
        delta = room.advance(view)
        if fate != "lose":
            server.send(delta)
        deliver()
    # One last change reveals any loss at the end of the run.
    server.send(room.advance({"final": True}))
    deliver()
    copy = client.views["r"]
    assert copy.view == room.views[-1]
    assert copy.seq == len(room.views) - 1
    assert copy.epoch == room.epoch
    assert client.resyncing == set()


def test_the_commitment_is_sha256_of_salt_then_seed() -> None:
    seed, salt = bytes(range(16)), b"\xff" * 16
    assert commit(seed, salt) == hashlib.sha256(salt + seed).hexdigest()
    assert commit(b"", b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert verify(seed.hex(), salt.hex(), commit(seed, salt))
    assert verify(seed.hex(), salt.hex(), commit(seed, salt).upper())
    assert not verify(salt.hex(), seed.hex(), commit(seed, salt))  # order matters
    assert not verify("not hex", salt.hex(), commit(seed, salt))


def test_version_choice() -> None:
    assert choose_version([1, 2, 3], [2, 3, 4]) == 3
    assert choose_version([5], [1]) is None
    assert choose_version(SUPPORTED_VERSIONS) == max(SUPPORTED_VERSIONS)


def test_room_view_refuses_a_delta_of_another_room() -> None:
    copy = RoomView.from_snapshot(Snapshot(room="a", epoch="e", seq=1, view={}))
    with pytest.raises(ProtocolError) as caught:
        copy.apply(Delta(room="b", base=1, seq=2))
    assert caught.value.code is ErrorCode.OUT_OF_SYNC
