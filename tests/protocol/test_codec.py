"""The msgpack codec: round trips of every message type, strictness, limits, and garbage that
must only ever produce ProtocolError (docs/protocol.md, "Frames" and "Error codes")."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import codec
from protocol.codec import (
    CLIENT_FRAME_LIMITS,
    SERVER_FRAME_LIMITS,
    Limits,
    Peek,
    decode,
    encode,
    encode_accepted,
    encode_delta,
    encode_refusal,
    from_map,
    peek,
    to_map,
)
from protocol.delta import RemoveOp, ReplaceOp, op_to_wire
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    CLIENT_MESSAGES,
    MAX_ID,
    MESSAGES,
    SERVER_MESSAGES,
    Act,
    CommandAccepted,
    CommandRejected,
    CreateRoom,
    Delta,
    Error,
    Hello,
    Ok,
    SeatChoice,
)
from tests.protocol.strategies import any_message, data_maps, message, patch_ops, views

#: Room enough for the nesting the strategies generate; the limits are tested on their own.
ROOMY = Limits(max_frame=1 << 24, max_depth=64)

ALL_TYPES = sorted(MESSAGES)


def pack(value: object) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def code_of(frame: bytes, limits: Limits = CLIENT_FRAME_LIMITS, sender: str | None = None) -> str:
    with pytest.raises(ProtocolError) as caught:
        decode(frame, limits=limits, sender=sender)  # type: ignore[arg-type]
    assert isinstance(caught.value.code, ErrorCode)
    return caught.value.code.value


@pytest.mark.parametrize("tag", ALL_TYPES)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_every_message_type_survives_a_round_trip(tag: str, data: st.DataObject) -> None:
    cls = MESSAGES[tag]
    original = data.draw(message(cls))
    frame = encode(original)
    again = decode(frame, limits=ROOMY)
    assert again == original
    assert type(again) is cls
    # The sender restriction lets each side's messages through and no others.
    for sender in cls.SENDERS:
        assert decode(frame, sender=sender, limits=ROOMY) == original


def test_client_and_server_messages_cover_every_type_and_share_only_bye() -> None:
    assert set(CLIENT_MESSAGES) | set(SERVER_MESSAGES) == set(MESSAGES)
    assert set(CLIENT_MESSAGES) & set(SERVER_MESSAGES) == {"bye"}


@pytest.mark.parametrize("tag", sorted(set(MESSAGES) - {"bye"}))
def test_a_message_from_the_wrong_side_is_an_unknown_type(tag: str) -> None:
    cls = MESSAGES[tag]
    wrong = "server" if "client" in cls.SENDERS else "client"
    frame = pack({"type": tag, "id": 9})
    assert code_of(frame, sender=wrong) == "unknown_type"


def test_fields_equal_to_their_default_are_left_out() -> None:
    assert to_map(Ok(ref=3)) == {"type": "ok", "ref": 3}
    room = CreateRoom(game="flash8", seats=(SeatChoice(), SeatChoice(kind="bot")), id=1)
    assert msgpack.unpackb(encode(room)) == {
        "type": "create_room",
        "game": "flash8",
        "seats": [{}, {"kind": "bot"}],
        "id": 1,
    }


def test_a_delta_carries_operations_as_short_arrays() -> None:
    delta = Delta(room="r1", base=4, seq=5, ops=(ReplaceOp("/a/0", None), RemoveOp("/b")))
    assert msgpack.unpackb(encode(delta)) == {
        "type": "delta",
        "room": "r1",
        "base": 4,
        "seq": 5,
        "ops": [["replace", "/a/0", None], ["remove", "/b"]],
    }


# --- each error code --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "frame",
    [
        b"",  # nothing
        b"\xc1",  # the one byte msgpack never uses
        b"\x82\xa4type",  # truncated
        pack({"type": "ping"}) + b"\x00",  # trailing data
        b"\xa2\xff\xfe",  # a string that is not UTF-8
        pack(msgpack.ExtType(5, b"xy")),  # an extension type
        pack(msgpack.Timestamp(1)),  # the timestamp extension
    ],
)
def test_not_msgpack(frame: bytes) -> None:
    assert code_of(frame) == "not_msgpack"


def test_text_frames_are_not_msgpack() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode("hello")  # type: ignore[arg-type]
    assert caught.value.code is ErrorCode.NOT_MSGPACK


@pytest.mark.parametrize("value", [1, "ping", [{"type": "ping"}], None, 2.5])
def test_not_a_map(value: object) -> None:
    assert code_of(pack(value)) == "not_a_map"


@pytest.mark.parametrize(
    "value", [{}, {"type": 3}, {"type": "teleport"}, {"type": None}, {"kind": "ping"}]
)
def test_unknown_type(value: object) -> None:
    assert code_of(pack(value)) == "unknown_type"


def test_missing_field_names_the_field_and_keeps_the_request_id() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode(pack({"type": "join_seat", "room": "r1", "id": 7}))
    assert caught.value.code is ErrorCode.MISSING_FIELD
    assert "join_seat.seat" in caught.value.message
    assert caught.value.ref == 7


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"type": "join_seat", "room": "r", "seat": "1"}, "join_seat.seat"),  # numeric string
        ({"type": "join_seat", "room": "r", "seat": True}, "join_seat.seat"),  # bool for int
        ({"type": "join_seat", "room": "r", "seat": 1.0}, "join_seat.seat"),  # float for int
        ({"type": "join_seat", "room": "r", "seat": -1}, "seat"),  # out of range
        ({"type": "join_seat", "room": "r", "seat": 1, "id": 2**53}, "id"),  # out of range
        ({"type": "join_seat", "room": 5, "seat": 1}, "join_seat.room"),
        ({"type": "join_seat", "room": "r", "seat": 1, "sneaky": 1}, "sneaky"),  # unknown field
        ({"type": "ready", "room": "r", "ready": 1}, "ready.ready"),  # int for bool
        ({"type": "ping", "client_time": "now"}, "ping.client_time"),
        ({"type": "hello", "versions": [], "name": "a"}, "versions"),
        ({"type": "hello", "versions": "1", "name": "a"}, "hello.versions"),  # str for list
        ({"type": "hello", "versions": [0], "name": "a"}, "versions"),
        ({"type": "act", "room": "r", "command": [1]}, "act.command"),  # list for map
        ({"type": "act", "room": "r", "command": {"x": {b"k": 1}}}, "keys"),  # bytes map key
        ({"type": "act", "room": "r", "command": {"x": {7: 1}}}, "keys"),  # int map key
        ({"type": "ping", 1: 2}, "keys"),  # int key at the top
        ({"type": "ping", None: 2}, "keys"),  # nil key
        (
            {"type": "create_room", "game": "g", "seats": [{"kind": "robot"}]},
            "create_room.seats[0].kind",
        ),
        (
            {"type": "create_room", "game": "g", "seats": [{}, {"kind": "human", "bot": "x"}]},
            "create_room.seats[1]",
        ),
        (
            {"type": "delta", "room": "r", "base": 0, "seq": 1, "ops": [["move", "/a", "/b"]]},
            "delta.ops[0]",
        ),
        (
            {"type": "delta", "room": "r", "base": 0, "seq": 1, "ops": [["remove"]]},
            "delta.ops[0]",
        ),
        (
            {"type": "delta", "room": "r", "base": 0, "seq": 1, "ops": [["add", "/a"]]},
            "delta.ops[0]",
        ),
        (
            {
                "type": "delta",
                "room": "r",
                "base": 0,
                "seq": 1,
                "ops": [["remove", "a"]],  # a pointer starts with '/'
            },
            "delta.ops[0]",
        ),
    ],
)
def test_bad_field(value: dict[str, object], where: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode(pack(value), limits=SERVER_FRAME_LIMITS)
    assert caught.value.code is ErrorCode.BAD_FIELD, caught.value
    assert where in caught.value.message


@pytest.mark.parametrize("bad", [2**53, 2**63, 2**64 - 1, -1, -(2**63)])
def test_an_id_out_of_range_is_bad_field_and_never_a_ref(bad: int) -> None:
    """The answer to a bad frame carries its ``id`` as ``ref`` only when a valid request
    could have that id: an error with an out-of-range ``ref`` could not be sent."""
    with pytest.raises(ProtocolError) as caught:
        decode(pack({"type": "ping", "id": bad}))
    assert caught.value.code is ErrorCode.BAD_FIELD
    assert caught.value.ref is None
    assert "id" in caught.value.message
    Error(code=caught.value.code.value, message=caught.value.message, ref=caught.value.ref)


def test_too_deep_counts_the_top_level_map_as_one() -> None:
    limits = Limits(max_depth=4)
    command: object = {"a": 1}
    ok = {"type": "act", "room": "r", "command": {"x": [command]}}  # depth 4
    assert isinstance(decode(pack(ok), limits=limits), Act)
    deeper = {"type": "act", "room": "r", "command": {"x": [[command]]}}  # depth 5
    assert code_of(pack(deeper), limits=limits) == "too_deep"


def test_nesting_beyond_msgpacks_own_stack_is_too_deep() -> None:
    frame = b"\x91" * 5000 + b"\x01"
    assert code_of(frame, limits=Limits(max_frame=10_000)) == "too_deep"


@pytest.mark.parametrize(
    "value",
    [
        {"type": "chat_send", "room": "r", "text": "x" * 101},
        {"type": "act", "room": "r", "command": {"b": b"x" * 101}},
        {"type": "act", "room": "r", "command": {"l": list(range(11))}},
        {"type": "act", "room": "r", "command": {str(k): k for k in range(11)}},
    ],
)
def test_too_large_values(value: object) -> None:
    limits = Limits(max_str=100, max_bin=100, max_array=10, max_map=10)
    assert code_of(pack(value), limits=limits) == "too_large"


def test_too_large_frame_is_refused_before_unpacking() -> None:
    frame = pack({"type": "chat_send", "room": "r", "text": "x" * 70_000})
    assert code_of(frame) == "too_large"
    assert len(frame) > CLIENT_FRAME_LIMITS.max_frame


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        Limits(max_depth=0)


def test_unpackable_values_are_refused_when_encoding() -> None:
    with pytest.raises(ProtocolError) as caught:
        encode(Act(room="r", command={"cells": {1, 2}}))
    assert caught.value.code is ErrorCode.BAD_FIELD
    with pytest.raises(ProtocolError):
        encode(Act(room="r", command={"n": 2**70}))


def test_hello_decodes_with_its_defaults() -> None:
    hello = decode(pack({"type": "hello", "versions": [1, 2], "name": "Ada"}), sender="client")
    assert hello == Hello(versions=(1, 2), name="Ada")


# --- garbage ----------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(frame=st.binary(max_size=200))
def test_random_bytes_raise_nothing_but_protocol_error(frame: bytes) -> None:
    try:
        decode(frame)
    except ProtocolError as error:
        assert isinstance(error.code, ErrorCode)


@settings(max_examples=300, deadline=None)
@given(
    tag=st.sampled_from([*ALL_TYPES, "", "nope"]),
    fields=st.dictionaries(
        st.sampled_from(["id", "room", "seat", "seq", "versions", "name", "ops", "command", "x"]),
        views(max_leaves=6),
        max_size=5,
    ),
    sender=st.sampled_from([None, "client", "server"]),
)
def test_maps_with_random_fields_raise_nothing_but_protocol_error(
    tag: str, fields: dict[str, object], sender: str | None
) -> None:
    try:
        frame = pack({"type": tag, **fields})
    except (OverflowError, ValueError):
        return  # not even msgpack can hold it
    try:
        decoded = decode(frame, sender=sender, limits=ROOMY)  # type: ignore[arg-type]
    except ProtocolError as error:
        assert isinstance(error.code, ErrorCode)
    else:
        assert tag == decoded.TYPE
        assert decode(encode(decoded), limits=ROOMY) == decoded


@settings(max_examples=200, deadline=None)
@given(original=any_message(), data=st.data())
def test_corrupted_frames_raise_nothing_but_protocol_error(
    original: object, data: st.DataObject
) -> None:
    frame = bytearray(encode(original))  # type: ignore[arg-type]
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(frame) - 1))
        frame[position] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(frame)))
    try:
        decode(bytes(frame[:cut]), limits=ROOMY)
    except ProtocolError as error:
        assert isinstance(error.code, ErrorCode)


def test_from_map_refuses_what_is_not_a_map() -> None:
    with pytest.raises(ProtocolError) as caught:
        from_map([1, 2])
    assert caught.value.code is ErrorCode.NOT_A_MAP


@given(
    room=st.text(max_size=8),
    base=st.integers(0, MAX_ID),
    ops=st.lists(patch_ops, max_size=4),
    legal=st.none() | st.lists(data_maps, max_size=3),
)
def test_encode_delta_is_encode_of_the_delta_message(room, base, ops, legal) -> None:
    kept = None if legal is None else tuple(legal)
    message = Delta(room=room, base=base, seq=base, ops=tuple(ops), legal=kept)
    wire = [op_to_wire(op) for op in ops]
    assert encode_delta(room, base, base, wire, legal) == encode(message)


@given(
    ref=st.none() | st.integers(0, MAX_ID),
    room=st.text(max_size=8),
    seq=st.integers(0, MAX_ID),
)
def test_encode_accepted_is_encode_of_the_accepted_message(ref, room, seq) -> None:
    assert encode_accepted(ref, room, seq) == encode(CommandAccepted(ref=ref, room=room, seq=seq))


@given(
    ref=st.none() | st.integers(0, MAX_ID),
    room=st.none() | st.text(max_size=8),
    code=st.sampled_from([code.value for code in ErrorCode]),
    message=st.text(max_size=40),
)
def test_encode_refusal_is_encode_of_the_error_or_rejected_message(ref, room, code, message):
    expected = (
        Error(code=code, message=message, ref=ref)
        if room is None
        else CommandRejected(ref=ref, room=room, code=code, message=message)
    )
    assert encode_refusal(code, message, ref, room) == encode(expected)


@given(
    room=st.text(max_size=8),
    command=data_maps,
    seq=st.none() | st.integers(-3, MAX_ID + 3),
    ref=st.none() | st.integers(-3, MAX_ID + 3) | st.booleans(),
)
def test_act_frames_decode_as_the_converter_would(room, command, seq, ref) -> None:
    # Moves arrive as `act`; well-formed ones are built directly (protocol.codec._plain_act),
    # and anything else must fail exactly as the converter explains it.
    data = {"type": "act", "room": room, "command": command, "seq": seq, "id": ref}
    slow = codec._client_converter.get_structure_hook(Act)
    try:
        expected = slow({k: v for k, v in data.items() if k != "type"}, Act)
    except Exception:
        with pytest.raises(ProtocolError) as refused:
            from_map(data, sender="client")
        assert refused.value.code is ErrorCode.BAD_FIELD
    else:
        assert from_map(data, sender="client") == expected


# --- peek: a flooding frame's answer without decoding it ----------------------------------------


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (
            pack({"type": "act", "room": "r1", "command": {"a": [1] * 4000}, "id": 9}),
            ("act", 9, "r1"),
        ),
        (pack({"id": 3, "type": "ping", "pad": "x" * 8000}), ("ping", 3, None)),
        (pack({"type": "ping", "id": 2**53}), ("ping", None, None)),
        (pack({"type": 5, "id": "7", "room": 1}), (None, None, None)),
        (pack({"type": "ping", "id": 4})[:-1], ("ping", None, None)),  # cut short after type
        (b"\xc1\x00", (None, None, None)),
        (pack(["ping", 4]), (None, None, None)),
        (b"", (None, None, None)),
    ],
)
def test_peek_reads_type_id_and_room_and_skips_the_rest(frame: bytes, expected: tuple) -> None:
    seen = peek(frame, Limits(max_frame=100_000))
    assert (seen.type, seen.id, seen.room) == expected


def test_peek_reads_nothing_of_a_frame_over_the_limit() -> None:
    frame = pack({"type": "ping", "id": 1, "pad": "x" * 70_000})
    assert peek(frame) == Peek()


@pytest.mark.parametrize(
    ("frame", "path"),
    [
        ({"type": "hello", "versions": [6], "name": "Ada\x00"}, "hello.name"),
        ({"type": "hello", "versions": [6], "name": "Ada", "client": "x\x1b[2J"}, "hello.client"),
        ({"type": "watch_room", "room": "r1\x00", "id": 3}, "watch_room.room"),
        ({"type": "act", "room": "r\x7f", "command": {"type": "pass"}, "id": 4}, "act.room"),
        ({"type": "chat_send", "room": "r1", "text": "hi\nthere"}, "chat_send.text"),
        (
            {
                "type": "create_room",
                "game": "flip_over_frog",
                "seats": [{"kind": "bot", "name": "\x9bBot"}],
            },
            "create_room.seats[0].name",
        ),
    ],
)
def test_control_characters_in_a_clients_texts_are_refused_naming_the_field(
    frame: dict[str, Any], path: str
) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode(msgpack.packb(frame), sender="client")
    assert refused.value.code == ErrorCode.BAD_FIELD
    assert refused.value.message.startswith(f"{path}: expected a text without control")
    if "id" in frame:
        assert refused.value.ref == frame["id"]


def test_a_servers_texts_may_hold_what_an_older_server_kept() -> None:
    # a client reads a name with a control character the server kept before it refused them
    frame = {"type": "chat", "room": "r1", "channel": "players", "user": "u1",
             "name": "Old\x07Name", "text": "hi", "server_time": 1.0}  # fmt: skip
    assert decode(msgpack.packb(frame), sender="server").name == "Old\x07Name"
