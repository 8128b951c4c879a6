"""The request handlers (``server/handlers.py``) driven without a socket: a stand-in session
over a real hub and store answers each request as docs/protocol.md says."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from protocol.codec import decode, encode
from protocol.connection import ServerConnection
from protocol.messages import (
    Act,
    Bye,
    CommandRejected,
    CreateRoom,
    Error,
    Hello,
    Message,
    Mute,
    Ok,
    OpenReplay,
    Ping,
    Pong,
    RoomCreated,
    RoomUpdate,
    SeatChoice,
    SetName,
    Snapshot,
    WatchRoom,
    Welcome,
)
from server.config import Settings
from server.handlers import MAX_MUTED, MAX_REPLAYS, handle, limits_info
from server.hub import Hub
from server.metrics import Metrics
from server.replay import Replay
from server.room import Room
from server.store import EventStore
from tests.server.conftest import TEST_LIMITS


@attrs.define(eq=False)
class StandIn:
    """A connection as the handlers see it (``server.handlers.Session``), keeping what it is
    sent instead of writing it anywhere."""

    hub: Hub
    settings: Settings
    conn: ServerConnection = attrs.field(factory=ServerConnection)
    user: str = ""
    name: str = ""
    person: str = "c-stand-in"
    address: str = "127.0.0.1"
    address_key: str = "127.0.0.1"
    muted: set[str] = attrs.field(factory=set)
    rooms: dict[str, Room] = attrs.field(factory=dict)
    moved: dict[str, str | None] = attrs.field(factory=dict)
    replays: dict[str, Replay] = attrs.field(factory=dict)
    sent: list[Message] = attrs.field(factory=list)
    identity: str = ""
    token: str = ""
    session_hash: str | None = None
    hello_token_hash: str | None = None

    def signed_out(self, message: str = "") -> None:
        self.sent.append(Bye(code="signed_out", message=message))

    def send(self, message: Message) -> None:
        self.sent.append(message)

    def send_frame(self, frame: bytes) -> None:
        self.sent.append(decode(frame, sender="server"))

    def room_moved(self, room: str, url: str | None = None) -> None:
        self.rooms.pop(room, None)

    async def hello(
        self, name: str = "Ada", token: str | None = None, versions: tuple[int, ...] = (1,)
    ) -> list[Message]:
        """Greet the server the way a client does: the frame through the sans-I/O connection
        (which picks the version), then its handler."""
        self.conn.receive_data(encode(Hello(id=1, versions=versions, name=name, token=token)))
        (hello,) = self.conn.events_received()
        return await self.ask(hello)

    async def ask(self, request: Message) -> list[Message]:
        """Handle ``request``; what it was answered, in order."""
        before = len(self.sent)
        await handle(self, request)
        return self.sent[before:]


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[Hub]:
    settings = Settings(data=tmp_path, bot_delay=0.0, **TEST_LIMITS)
    store = EventStore(settings.database)
    hub = Hub(settings, store, Metrics())
    yield hub
    for room in list(hub.rooms.values()):
        await room.stop()
    store.close()


@pytest.fixture
async def session(hub: Hub) -> StandIn:
    return StandIn(hub, hub.settings)


async def test_hello_is_welcomed_with_a_new_identity_and_the_limits(session: StandIn) -> None:
    (welcome,) = await session.hello("Ada")
    assert isinstance(welcome, Welcome)
    assert welcome.ref == 1 and welcome.name == "Ada" and welcome.version == 1
    assert welcome.user == session.user == session.person and welcome.token
    assert welcome.limits == limits_info(session.settings)
    assert welcome.limits.replays == MAX_REPLAYS
    assert welcome.rooms == ()


async def test_an_unknown_token_is_said_before_the_welcome_with_a_new_identity(
    session: StandIn,
) -> None:
    error, welcome = await session.hello("Ada", token="no-such-token")
    assert isinstance(error, Error) and error.code == "bad_token" and error.ref is None
    assert isinstance(welcome, Welcome) and welcome.token != "no-such-token"


async def test_ping_is_answered_with_both_times(session: StandIn) -> None:
    await session.hello()
    (pong,) = await session.ask(Ping(id=7, client_time=12.5))
    assert isinstance(pong, Pong) and pong.ref == 7 and pong.client_time == 12.5
    assert pong.server_time > 0


async def test_a_message_that_is_not_a_request_is_unknown_type(session: StandIn) -> None:
    await session.hello()
    (error,) = await session.ask(Ok(ref=3))
    assert isinstance(error, Error) and error.code == "unknown_type"
    assert "'ok' is not a request" in error.message


async def test_set_name_renames_the_seats_held_without_reconnecting(session: StandIn) -> None:
    """Version 4: the seat takes the new name and the room's members are told."""
    await session.hello("Ada", versions=(1, 2, 3, 4))
    (created, *_) = await session.ask(
        CreateRoom(id=2, game="flip_over_frog", seats=(SeatChoice(), SeatChoice()), sit=0)
    )
    assert isinstance(created, RoomCreated)
    answers = await session.ask(SetName(id=3, name="  Ada Lovelace "))
    assert isinstance(answers[-1], Ok) and answers[-1].ref == 3
    assert session.name == "Ada Lovelace"
    assert session.hub.rooms[created.room].seats[0].name == "Ada Lovelace"
    updates = [m for m in answers if isinstance(m, RoomUpdate)]
    assert updates and updates[-1].info.seats[0].name == "Ada Lovelace"
    (refused,) = await session.ask(SetName(id=4, name="   "))
    assert isinstance(refused, Error) and refused.code == "bad_field" and refused.ref == 4


async def test_set_name_before_version_4_is_unknown_and_changes_nothing(session: StandIn) -> None:
    await session.hello("Ada", versions=(1, 2, 3))
    (refused,) = await session.ask(SetName(id=2, name="Bea"))
    assert isinstance(refused, Error) and refused.code == "unknown_type"
    assert "version 4" in refused.message
    assert session.name == "Ada"


async def test_create_room_answers_with_the_room_then_its_snapshot(session: StandIn) -> None:
    await session.hello()
    answers = await session.ask(
        CreateRoom(id=2, game="flip_over_frog", seats=(SeatChoice(), SeatChoice()))
    )
    created, snapshot = answers[0], answers[1]
    assert isinstance(created, RoomCreated) and created.ref == 2
    assert len(created.commitment) == 64
    assert isinstance(snapshot, Snapshot) and snapshot.room == created.room
    assert session.rooms == {created.room: session.hub.rooms[created.room]}


async def test_an_act_outside_a_room_or_from_a_spectator_is_rejected_not_an_error(
    session: StandIn, hub: Hub
) -> None:
    await session.hello()
    (rejected,) = await session.ask(Act(id=4, room="nope", command={"type": "end_turn"}))
    assert isinstance(rejected, CommandRejected)
    assert (rejected.ref, rejected.room, rejected.code) == (4, "nope", "not_in_room")

    host = StandIn(hub, hub.settings)
    await host.hello("Bea")
    created = (
        await host.ask(CreateRoom(id=2, game="flip_over_frog", seats=(SeatChoice(), SeatChoice())))
    )[0]
    assert isinstance(created, RoomCreated)
    watched = await session.ask(WatchRoom(id=5, room=created.room))
    assert isinstance(watched[-1], Ok) and watched[-1].ref == 5
    (rejected,) = await session.ask(Act(id=6, room=created.room, command={"type": "end_turn"}))
    assert isinstance(rejected, CommandRejected) and rejected.code == "not_seated"


async def test_a_refusal_is_an_error_with_the_requests_ref(session: StandIn) -> None:
    await session.hello()
    (error,) = await session.ask(WatchRoom(id=9, room="nope"))
    assert isinstance(error, Error) and (error.code, error.ref) == ("no_such_room", 9)


async def test_mutes_are_capped(session: StandIn) -> None:
    await session.hello()
    for n in range(MAX_MUTED):
        (ok,) = await session.ask(Mute(id=n + 10, user=f"u{n}", muted=True))
        assert isinstance(ok, Ok)
    (error,) = await session.ask(Mute(id=1, user="one-more", muted=True))
    assert isinstance(error, Error) and error.code == "bad_field"
    assert len(session.muted) == MAX_MUTED
    await session.ask(Mute(id=2, user="u0", muted=False))
    assert "u0" not in session.muted


async def test_open_replays_are_capped(session: StandIn, monkeypatch: Any) -> None:
    await session.hello()
    for n in range(MAX_REPLAYS):
        session.replays[f"p{n + 1}"] = object()  # type: ignore[assignment]
    (error,) = await session.ask(OpenReplay(id=3, room="anything"))
    assert isinstance(error, Error) and error.code == "bad_field"
    assert f"At most {MAX_REPLAYS} open replays" in error.message


async def test_a_failing_handler_is_an_internal_error_and_the_session_goes_on(
    session: StandIn, monkeypatch: Any
) -> None:
    await session.hello()

    async def broken(*args: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(session.hub, "create_room", broken)
    (error,) = await session.ask(
        CreateRoom(id=8, game="flip_over_frog", seats=(SeatChoice(), SeatChoice()))
    )
    assert isinstance(error, Error) and (error.code, error.ref) == ("internal", 8)
    (pong,) = await session.ask(Ping(id=9, client_time=0.0))
    assert isinstance(pong, Pong)
