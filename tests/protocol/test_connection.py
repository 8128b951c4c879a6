"""The sans-I/O connection state machines, driven without sockets: the handshake and version
negotiation, error answers that keep the connection open, request ids, closing, and the
client's live view copies with automatic resume (docs/protocol.md, "Handshake", "Views")."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import decode, encode
from protocol.connection import ClientConnection, Event, InvalidState, ServerConnection, State
from protocol.delta import AddOp, ReplaceOp
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    Bye,
    Delta,
    Error,
    Hello,
    JoinSeat,
    Kicked,
    Leave,
    Ok,
    Ping,
    Pong,
    Resume,
    RoomClosed,
    Snapshot,
    WatchLobby,
    Welcome,
)
from protocol.versions import PROTOCOL_VERSION


def welcome(version: int = PROTOCOL_VERSION, ref: int | None = 1) -> Welcome:
    return Welcome(
        ref=ref, version=version, token="t0k3n", user="u1", name="Ada", server_time=1.0,
        max_frame=65536,
    )  # fmt: skip


Connection = ServerConnection | ClientConnection


def pump(source: Connection, target: Connection) -> list[Event]:
    """Move every pending frame from one end to the other; return the target's events."""
    for frame in source.data_to_send():
        target.receive_data(frame)
    return target.events_received()


def connected() -> tuple[ClientConnection, ServerConnection]:
    client, server = ClientConnection(), ServerConnection()
    client.hello("Ada")
    assert [type(e) for e in pump(client, server)] == [Hello]
    server.send(welcome())
    assert [type(e) for e in pump(server, client)] == [Welcome]
    return client, server


def sent(connection: Connection, sender: str) -> list[object]:
    return [decode(f, sender=sender) for f in connection.data_to_send()]  # type: ignore[arg-type]


# --- handshake --------------------------------------------------------------------------------


def test_handshake_negotiates_the_highest_common_version() -> None:
    client = ClientConnection(versions=(1, 2, 3))
    server = ServerConnection(versions=(1, 2))
    hello = client.hello("Ada", token="old")
    assert hello.id == 1 and hello.versions == (1, 2, 3)
    assert client.state is State.NEGOTIATING
    assert pump(client, server) == [hello]
    assert server.state is State.NEGOTIATING
    assert server.version == 2
    assert server.hello == hello
    server.send(welcome(version=2))
    assert server.state is State.OPEN
    assert pump(server, client) == [welcome(version=2)]
    assert client.state is State.OPEN and client.version == 2
    assert client.pending == {}  # the welcome answered the hello


def test_no_common_version_is_a_fatal_error_for_both_ends() -> None:
    client = ClientConnection(versions=(7,))
    server = ServerConnection(versions=(1,))
    client.hello("Ada")
    events = pump(client, server)
    assert [e.code for e in events if isinstance(e, ProtocolError)] == [
        ErrorCode.UNSUPPORTED_VERSION
    ]
    assert server.close_expected()
    (answer,) = pump(server, client)
    assert isinstance(answer, Error)
    assert answer.code == "unsupported_version" and answer.fatal and answer.ref == 1
    assert client.close_expected()
    assert (server.close_code, client.close_code) == (1008, 1008)


def test_a_welcome_with_a_version_not_offered_closes_the_client() -> None:
    client = ClientConnection(versions=(1,))
    client.hello("Ada")
    client.data_to_send()
    client.receive_data(encode(welcome(version=2)))
    (error,) = client.events_received()
    assert isinstance(error, ProtocolError) and error.code is ErrorCode.UNSUPPORTED_VERSION
    assert client.close_expected()


def test_before_hello_the_server_answers_hello_first_and_keeps_waiting() -> None:
    server = ServerConnection()
    server.receive_data(encode(Ping(id=5)))
    (event,) = server.events_received()
    assert isinstance(event, ProtocolError) and event.code is ErrorCode.HELLO_FIRST
    assert sent(server, "server") == [
        Error(code="hello_first", message="Send 'hello' before 'ping'.", ref=5)
    ]
    assert server.state is State.AWAITING_HELLO
    server.receive_data(encode(Hello(versions=(1,), name="Ada")))
    assert server.state is State.NEGOTIATING


def test_a_second_hello_is_refused_without_closing() -> None:
    _, server = connected()
    server.receive_data(encode(Hello(versions=(1,), name="Eve", id=9)))
    (event,) = server.events_received()
    assert isinstance(event, ProtocolError) and event.code is ErrorCode.ALREADY_GREETED
    (answer,) = sent(server, "server")
    assert isinstance(answer, Error) and answer.ref == 9 and not answer.fatal
    assert server.state is State.OPEN


def test_requests_may_follow_hello_without_waiting_for_welcome() -> None:
    client = ClientConnection()
    server = ServerConnection()
    client.hello("Ada")
    watch = client.send(WatchLobby())
    assert [type(e) for e in pump(client, server)] == [Hello, WatchLobby]
    assert client.pending.keys() == {1, 2}
    assert watch == WatchLobby(id=2)


def test_the_server_sends_nothing_but_error_or_bye_before_welcome() -> None:
    server = ServerConnection()
    with pytest.raises(InvalidState):
        server.send(Ok(ref=1))
    with pytest.raises(InvalidState):
        server.send(welcome())  # no hello yet
    server.receive_data(encode(Hello(versions=(PROTOCOL_VERSION,), name="Ada")))
    with pytest.raises(InvalidState):
        server.send(Pong(server_time=1.0))
    with pytest.raises(InvalidState):
        server.send(welcome(version=PROTOCOL_VERSION + 1))  # not the negotiated version
    server.send(Error(code="rate_limited", message="Slow down."))
    server.send(welcome())
    with pytest.raises(InvalidState):
        server.send(welcome())  # once
    with pytest.raises(InvalidState):
        server.send(Ping())  # a client's message


def test_the_client_sends_hello_first_and_once() -> None:
    client = ClientConnection()
    with pytest.raises(InvalidState):
        client.send(Ping())
    client.hello("Ada")
    with pytest.raises(InvalidState):
        client.hello("Ada")
    with pytest.raises(InvalidState):
        client.send(Ok(ref=1))  # a server's message


# --- errors, ids and closing ------------------------------------------------------------------


def test_a_bad_frame_is_answered_with_its_request_id_and_the_connection_stays_open() -> None:
    client, server = connected()
    server.receive_data(msgpack.packb({"type": "join_seat", "room": "r1", "seat": "two", "id": 4}))
    (event,) = server.events_received()
    assert isinstance(event, ProtocolError) and event.code is ErrorCode.BAD_FIELD
    (answer,) = pump(server, client)
    assert isinstance(answer, Error)
    assert (answer.code, answer.ref, answer.fatal) == ("bad_field", 4, False)
    assert "join_seat.seat" in answer.message
    server.receive_data(encode(Ping(id=6)))
    assert server.events_received() == [Ping(id=6)]


@pytest.mark.parametrize("bad", [2**53, 2**64 - 1])
def test_a_request_id_out_of_range_is_answered_and_the_connection_stays(bad: int) -> None:
    client, server = connected()
    server.receive_data(msgpack.packb({"type": "ping", "id": bad}))
    (event,) = server.events_received()
    assert isinstance(event, ProtocolError) and event.code is ErrorCode.BAD_FIELD
    (answer,) = pump(server, client)
    assert isinstance(answer, Error)
    assert (answer.code, answer.ref, answer.fatal) == ("bad_field", None, False)
    assert not server.close_expected()
    server.receive_data(encode(Ping(id=6)))
    assert server.events_received() == [Ping(id=6)]


def test_client_request_ids_increase_and_answers_clear_them() -> None:
    client, server = connected()
    join = client.send(JoinSeat(room="r1", seat=0))
    ping = client.send(Ping(client_time=3.5))
    explicit = client.send(Ping(id=40))
    after = client.send(Ping())
    assert [m.id for m in (join, ping, explicit, after)] == [2, 3, 40, 41]  # type: ignore[attr-defined]
    pump(client, server)
    server.send(Pong(ref=3, client_time=3.5, server_time=9.0))
    server.send(Ok(ref=2, room="r1"))
    assert [type(e) for e in pump(server, client)] == [Pong, Ok]
    assert set(client.pending) == {40, 41}


def test_bye_closes_both_ends() -> None:
    client, server = connected()
    client.send(Bye(code="normal", message="Good night."))
    assert client.close_expected()
    assert pump(client, server) == [Bye(code="normal", message="Good night.")]
    assert server.close_expected()
    assert (client.close_code, server.close_code) == (1000, 1000)
    server.receive_data(encode(Ping()))  # ignored once closed
    assert server.events_received() == []
    with pytest.raises(InvalidState):
        server.send(Ok())
    with pytest.raises(InvalidState):
        client.send(Ping())


def test_the_server_says_bye_when_going_away() -> None:
    client, server = connected()
    server.send(Bye(code="going_away", message="The server is restarting."))
    assert server.close_expected()
    assert pump(server, client) == [Bye(code="going_away", message="The server is restarting.")]
    assert client.close_expected()
    assert server.close_code == 1001


@settings(max_examples=200, deadline=None)
@given(frames=st.lists(st.binary(max_size=60), max_size=8))
def test_garbage_never_breaks_the_server_connection(frames: list[bytes]) -> None:
    _, server = connected()
    for frame in frames:
        server.receive_data(frame)
        events = server.events_received()
        answers = sent(server, "server")
        assert len(events) == 1
        if isinstance(events[0], ProtocolError):
            (answer,) = answers
            assert isinstance(answer, Error) and answer.code == events[0].code
        if server.close_expected():  # a garbage frame can only be a valid 'bye'
            assert isinstance(events[0], Bye)
            return
    server.receive_data(encode(Ping(id=1)))
    assert server.events_received() == [Ping(id=1)]


# --- the client's view copies -----------------------------------------------------------------


def snapshot(seq: int = 10, ref: int | None = None) -> Snapshot:
    return Snapshot(
        ref=ref, room="r1", epoch="e1", seq=seq, seat=0, view={"tablet": "RYG.", "slides": 0},
        legal=({"type": "slide", "choose": {"cell": [2]}},), clock_origin=100.0,
    )  # fmt: skip


def test_snapshots_and_deltas_keep_the_copy_current() -> None:
    client, server = connected()
    server.send(snapshot())
    server.send(Delta(room="r1", base=10, seq=12, ops=(ReplaceOp("/tablet", "RY.G"),)))
    server.send(
        Delta(room="r1", base=12, seq=13, ops=(ReplaceOp("/slides", 1),), legal=()),
    )
    pump(server, client)
    copy = client.views["r1"]
    assert copy.view == {"tablet": "RY.G", "slides": 1}
    assert (copy.seq, copy.epoch, copy.seat, copy.legal) == (13, "e1", 0, ())
    assert copy.room_time(130.0) == 30.0


def test_a_missed_delta_is_reported_and_resumed_once() -> None:
    client, server = connected()
    server.send(snapshot())
    pump(server, client)
    server.send(Delta(room="r1", base=11, seq=12, ops=()))  # 10 -> 11 went missing
    server.send(Delta(room="r1", base=12, seq=13, ops=()))
    events = pump(server, client)
    assert [e.code for e in events if isinstance(e, ProtocolError)] == [ErrorCode.OUT_OF_SYNC]
    resume = sent(client, "client")
    assert resume == [Resume(room="r1", seq=10, epoch="e1", id=2)]
    assert client.resyncing == {"r1"}
    # The answer: the missing deltas from the copy's seq, then ok.
    server.send(Delta(room="r1", base=10, seq=11, ops=(AddOp("/new", True),)))
    server.send(Delta(room="r1", base=11, seq=13, ops=()))
    server.send(Ok(ref=2, room="r1"))
    pump(server, client)
    assert client.resyncing == set()
    assert client.views["r1"].seq == 13
    assert client.views["r1"].view["new"] is True


def test_a_patch_that_does_not_fit_is_resumed_and_a_snapshot_ends_the_resync() -> None:
    client, server = connected()
    server.send(snapshot())
    pump(server, client)
    server.send(Delta(room="r1", base=10, seq=11, ops=(ReplaceOp("/missing", 1),)))
    events = pump(server, client)
    assert [e.code for e in events if isinstance(e, ProtocolError)] == [ErrorCode.BAD_PATCH]
    assert sent(client, "client") == [Resume(room="r1", seq=10, epoch="e1", id=2)]
    server.send(snapshot(seq=11, ref=2))
    pump(server, client)
    assert client.resyncing == set()
    assert client.views["r1"].seq == 11


def test_a_delta_for_an_unknown_room_is_reported() -> None:
    client, server = connected()
    server.send(Delta(room="nowhere", base=1, seq=2, ops=()))
    events = pump(server, client)
    assert [e.code for e in events if isinstance(e, ProtocolError)] == [ErrorCode.OUT_OF_SYNC]


def test_leaving_being_kicked_or_a_closed_room_forgets_the_copy() -> None:
    client, server = connected()
    server.send(snapshot())
    server.send(Snapshot(room="r2", epoch="e", seq=0, view=None))
    server.send(Snapshot(room="r3", epoch="e", seq=0, view=None))
    pump(server, client)
    leave = client.send(Leave(room="r1"))
    pump(client, server)
    server.send(Ok(ref=leave.id, room="r1"))  # type: ignore[attr-defined]
    pump(server, client)
    assert set(client.views) == {"r2", "r3"}
    server.send(RoomClosed(room="r2", reason="expired"))
    server.send(Kicked(room="r3", seat=1))
    pump(server, client)
    assert client.views == {}


def test_a_refused_resume_lets_the_next_misfit_resume_again() -> None:
    client, server = connected()
    server.send(snapshot())
    server.send(Delta(room="r1", base=11, seq=12))
    pump(server, client)
    (resume,) = sent(client, "client")
    server.send(Error(code="rate_limited", message="Slow down.", ref=resume.id))  # type: ignore[attr-defined]
    pump(server, client)
    assert client.resyncing == set()
    assert client.views["r1"].seq == 10  # the copy is kept
    server.send(Delta(room="r1", base=12, seq=13))
    pump(server, client)
    assert sent(client, "client") == [Resume(room="r1", seq=10, epoch="e1", id=3)]


def test_a_copy_kept_from_an_earlier_connection_is_resumed() -> None:
    first, server = connected()
    server.send(snapshot())
    pump(server, first)
    client = ClientConnection(views=first.views)
    client.hello("Ada", token="t0k3n")
    client.data_to_send()
    assert client.resume_all() == [Resume(room="r1", seq=10, epoch="e1", id=2)]
    assert client.resyncing == {"r1"}
