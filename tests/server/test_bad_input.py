"""Garbage thrown at a live server: it answers with errors, stays up, and a game in another
room completes untouched."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect as ws_connect

from clients.sdk import LuminClient, ServerError, bot, human
from protocol.codec import decode
from protocol.messages import Bye, Error, SeatChoice
from server.app import LuminServer
from server.config import Settings
from tests.server.test_rooms import wait_over

ROOT = Path(__file__).resolve().parents[2]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(max_size=8) | st.integers(-1000, 1000), inner, max_size=5)
    ),
    max_leaves=30,
)
TYPES = ["hello", "act", "create_room", "join_seat", "resume", "chat_send", "nope", "", "welcome"]
frames = st.one_of(
    st.binary(max_size=200),
    values.map(lambda v: msgpack.packb(v, use_bin_type=True)),
    st.builds(
        lambda t, body: msgpack.packb({"type": t, **body}, use_bin_type=True),
        st.sampled_from(TYPES),
        st.dictionaries(
            st.sampled_from(
                ["id", "room", "command", "seq", "name", "versions", "seats", "game", "text"]
            ),
            values,
            max_size=4,
        ),
    ),
)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """This module's server keeps the default rate limit (50 per second, bursts of 100)."""
    return Settings(host="127.0.0.1", port=0, data=tmp_path / "data", bot_delay=0.0)


def nested(depth: int) -> bytes:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return msgpack.packb({"type": "act", "room": "r", "command": {"type": "x", "deep": value}})


async def test_garbage_frames_get_errors_and_other_rooms_finish(connect, url, server) -> None:
    watcher: LuminClient = await connect("Eve")
    room = await watcher.create_room("flip_over_frog", seats=[bot(), bot(), bot()])
    await watcher.watch(room)
    attacker: LuminClient = await connect("Mallory")

    @hypothesis_settings(
        max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    @given(frame=frames)
    def throw(frame: bytes) -> None:
        pending.append(frame)

    pending: list[bytes] = []
    throw()
    for frame in pending:
        await attacker.send_raw(frame)
    # Huge, deeply nested, text and oversized frames too.
    await attacker.send_raw(nested(200))
    await attacker.send_raw("a text frame")
    await attacker.send_raw(b"\x92" + b"\xc1")
    await attacker.send_raw(
        msgpack.packb({"type": "chat_send", "room": "r", "text": "x" * 100_000})
    )
    # The attacker's connection is still usable once its rate limit refills: it gets a pong.
    await asyncio.sleep(2.5)
    assert await attacker.ping() > 0
    codes = {e.code.value for e in attacker.errors}
    errors = [m for m in drain(attacker) if isinstance(m, Error)]
    assert errors, "garbage was answered with errors"
    assert {e.code for e in errors} & {
        "not_msgpack",
        "unknown_type",
        "bad_field",
        "missing_field",
        "too_deep",
        "too_large",
        "not_a_map",
    }
    assert not codes, f"the server sent frames the client could not read: {codes}"
    await wait_over(watcher, room, timeout=60)


async def test_floods_are_rate_limited_and_the_connection_survives_a_burst(connect) -> None:
    client: LuminClient = await connect("Flood")
    for n in range(400):
        await client.send_raw(msgpack.packb({"type": "ping", "id": 1000 + n}))
    # Past a burst of refusals the server stops reading for a moment (the flood waits in the
    # socket), so the last answers come a little later.
    messages: list[object] = []
    for _ in range(100):
        await asyncio.sleep(0.1)
        messages += drain(client)
        if {getattr(m, "ref", None) for m in messages} >= set(range(1000, 1400)):
            break
    limited = [m for m in messages if isinstance(m, Error) and m.code == "rate_limited"]
    assert limited, "the flood was answered"
    # Every request is answered, with a pong or with a rate_limited error naming it.
    answered = {m.ref for m in messages if getattr(m, "ref", None) is not None}
    assert {ref for ref in answered if ref >= 1000} == set(range(1000, 1400))
    await asyncio.sleep(2.5)  # the bucket refills
    assert await client.ping() > 0


async def test_oversized_frame_is_answered_and_a_giant_one_closes(url) -> None:
    async with ws_connect(url) as socket:
        await socket.send(msgpack.packb({"type": "hello", "versions": [1], "name": "Big"}))
        await socket.recv()
        await socket.send(msgpack.packb({"type": "ping", "id": 2, "pad": "x" * 70_000}))
        answer = decode(await socket.recv(), sender="server")
        assert isinstance(answer, Error) and answer.code == "too_large"
        await socket.send(b"\x00" * (2 << 20))
        await socket.wait_closed()
        assert socket.close_code == 1009


def drain(client: LuminClient) -> list[object]:
    out = []
    while not client.messages.empty():
        out.append(client.messages.get_nowait())
    return out


async def _hello(socket) -> None:
    await socket.send(msgpack.packb({"type": "hello", "versions": [1], "name": "Fuzz"}))
    assert decode(await socket.recv(), sender="server").TYPE == "welcome"


@pytest.mark.parametrize("bad", [2**53, 2**64 - 1])
async def test_a_request_id_of_2_53_or_more_is_bad_field_and_the_connection_stays(url, bad) -> None:
    async with ws_connect(url) as socket:
        await _hello(socket)
        for _ in range(3):
            await socket.send(msgpack.packb({"type": "ping", "id": bad}))
            answer = decode(await socket.recv(), sender="server")
            assert isinstance(answer, Error)
            assert (answer.code, answer.ref) == ("bad_field", None)
            assert "id" in answer.message
        await socket.send(msgpack.packb({"type": "ping", "id": 5}))
        assert decode(await socket.recv(), sender="server").TYPE == "pong"


async def test_a_map_key_that_is_not_a_string_is_bad_field(url) -> None:
    async with ws_connect(url) as socket:
        await _hello(socket)
        await socket.send(msgpack.packb({"type": "ping", "id": 3, 7: "seven"}))
        answer = decode(await socket.recv(), sender="server")
        assert isinstance(answer, Error) and answer.code == "bad_field"
        await socket.send(msgpack.packb({"type": "ping", "id": 4}))
        assert decode(await socket.recv(), sender="server").TYPE == "pong"


async def test_an_unsupported_version_is_fatal_and_closes_with_1008(url) -> None:
    async with ws_connect(url) as socket:
        await socket.send(msgpack.packb({"type": "hello", "versions": [99], "name": "Future"}))
        answer = decode(await socket.recv(), sender="server")
        assert isinstance(answer, Error)
        assert (answer.code, answer.fatal) == ("unsupported_version", True)
        await socket.wait_closed()
        assert socket.close_code == 1008


async def test_a_bye_from_the_client_closes_with_1000(url) -> None:
    async with ws_connect(url) as socket:
        await _hello(socket)
        await socket.send(msgpack.packb({"type": "bye"}))
        await socket.wait_closed()
        assert socket.close_code == 1000


async def test_shutdown_says_bye_going_away_before_closing_with_1001(settings) -> None:
    lumin = LuminServer(settings)
    await lumin.start()
    stopping = None
    try:
        async with ws_connect(f"ws://127.0.0.1:{lumin.port}/ws") as socket:
            await _hello(socket)
            stopping = asyncio.create_task(lumin.stop())
            answer = decode(await socket.recv(), sender="server")
            assert isinstance(answer, Bye) and answer.code == "going_away"
            await socket.wait_closed()
            assert socket.close_code == 1001
            await stopping
    finally:
        await (stopping or asyncio.create_task(lumin.stop()))


async def test_a_nul_or_an_escape_in_a_name_or_an_id_is_bad_field_and_the_connection_stays(
    url,
) -> None:
    async with ws_connect(url) as socket:
        await socket.send(msgpack.packb({"type": "hello", "versions": [6], "name": "Ada\x00",
                                         "id": 1}))  # fmt: skip
        answer = decode(await socket.recv(), sender="server")
        assert isinstance(answer, Error) and (answer.code, answer.ref) == ("bad_field", 1)
        assert answer.message.startswith("hello.name: expected a text without control")
        await _hello(socket)  # the same connection says hello again, rightly
        for frame in (
            {"type": "watch_room", "room": "r1\x00", "id": 2},
            {"type": "open_replay", "room": "\x1b[2J", "id": 3},
            {"type": "set_name", "name": "Bea\x07", "id": 4},
        ):
            await socket.send(msgpack.packb(frame))
            answer = decode(await socket.recv(), sender="server")
            assert isinstance(answer, Error), answer
            assert (answer.code, answer.ref) == ("bad_field", frame["id"]), answer
        await socket.send(msgpack.packb({"type": "ping", "id": 5}))
        assert decode(await socket.recv(), sender="server").TYPE == "pong"


async def test_a_nul_in_a_query_parameter_is_a_400_not_a_server_error(server) -> None:
    def get(path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}") as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    for path in ("/history?user=u%00x", "/highscores?player=%1b", "/rooms/r%00/log",
                 "/leaderboard?game=neon_hex&after=%00"):  # fmt: skip
        status, body = await asyncio.to_thread(get, path)
        assert status == 400, (path, status, body)
        assert b"no control characters" in body


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("B" * 8000, "a name has 1 to 40 characters"),
        ("   ", "a name has 1 to 40 characters"),
        ("Bot\u200b", "no control or invisible characters"),
        ("\u202eBot", "no control or invisible characters"),
    ],
)
async def test_a_bot_seats_name_follows_a_persons_rule(connect, server, name, why) -> None:
    ada = await connect("Ada")
    with pytest.raises(ServerError) as refused:
        await ada.create_room("flip_over_frog", seats=[human(), SeatChoice(kind="bot", name=name)])
    assert refused.value.code == "bad_field"
    assert (
        refused.value.message.startswith("create_room.seats[1].name: ")
        and why in refused.value.message
    )
    room = await ada.create_room(
        "flip_over_frog", seats=[human(), SeatChoice(kind="bot", name="  " + "B" * 40)]
    )
    assert server.hub.rooms[room].seats[1].name == "B" * 40


@pytest.mark.parametrize(("size", "closed"), [(2 * 65536, False), (2 * 65536 + 1, True)])
async def test_a_message_over_twice_the_frame_limit_closes_as_the_protocol_says(
    url, settings, size: int, closed: bool
) -> None:
    # docs/protocol.md: "a websocket message larger than twice that ... closes the connection
    # with close code 1009"; one up to twice the limit is answered too_large
    document = (ROOT / "docs" / "protocol.md").read_text()
    assert "larger than twice that" in document and "over twice `max_frame`" in document
    assert settings.max_frame == 65536
    async with ws_connect(url, max_size=None) as socket:
        await _hello(socket)
        await socket.send(b"\x00" * size)
        if closed:
            await socket.wait_closed()
            assert socket.close_code == 1009
        else:
            answer = decode(await socket.recv(), sender="server")
            assert isinstance(answer, Error) and answer.code == "too_large"
