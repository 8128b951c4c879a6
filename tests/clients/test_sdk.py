"""The Python client library (clients/sdk.py) against a real server and a scripted one: waits
without a default timeout, bounded buffers, refused tokens, and reconnecting with resume when
the server goes away (in-flight requests fail with ``disconnected``, giving up is bounded)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import AsyncIterator

import attrs
import pytest
from websockets.asyncio.server import ServerConnection as ServerSocket
from websockets.asyncio.server import serve

from clients.sdk import (
    ConnectionLost,
    LuminClient,
    Recent,
    RequestTimeout,
    ServerError,
    bot,
    human,
)
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from protocol.connection import ServerConnection
from protocol.errors import ProtocolError
from protocol.messages import (
    CommandAccepted,
    Error,
    Hello,
    Leave,
    Message,
    Ok,
    Resume,
    Snapshot,
    Welcome,
)
from server.app import LuminServer
from server.backup import backup, restore
from server.config import Settings


async def settle(client: LuminClient, room: str) -> None:
    """Take every change already signalled for ``room`` (a bounded number of short waits)."""
    for _ in range(50):
        try:
            await client.changed(room, timeout=0.3)
        except TimeoutError:
            return
    raise AssertionError(f"{room} keeps changing")


async def until(condition, seconds: float = 10.0) -> None:
    """Poll ``condition`` every 50 ms until it holds, for at most ``seconds``."""
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not reached in time")


async def my_turn(client: LuminClient, room: str) -> None:
    """Wait (at most 20 s) until the client's seat has something legal to do."""
    async with asyncio.timeout(20):
        while not client.legal(room):
            await client.changed(room)


# -- waiting ------------------------------------------------------------------------------------


async def test_changed_waits_as_long_as_it_takes_by_default(connect) -> None:
    assert inspect.signature(LuminClient.changed).parameters["timeout"].default is None
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await settle(ada, room)
    waiting = asyncio.create_task(ada.changed(room))
    await asyncio.sleep(1.5)  # far past a test-sized timeout: still waiting, no TimeoutError
    assert not waiting.done()
    bob: LuminClient = await connect("Bob")
    await bob.join(room, 1)
    await asyncio.wait_for(waiting, 5)  # the room update for Bob's seat ends the wait


async def test_changed_with_a_timeout_raises_timeout_error(connect) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await settle(ada, room)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await ada.changed(room, timeout=0.2)
    assert time.monotonic() - started < 2


# -- bounded buffers ----------------------------------------------------------------------------


async def test_recent_keeps_the_newest_items() -> None:
    queue: Recent[int] = Recent(2)
    for n in range(5):
        await asyncio.wait_for(queue.put(n), 1)  # never waits for room
    assert queue.qsize() == 2 and queue.dropped == 3
    assert [queue.get_nowait(), queue.get_nowait()] == [3, 4]
    with pytest.raises(ValueError):
        Recent(0)


async def test_messages_and_chat_are_bounded(connect) -> None:
    ada: LuminClient = await connect("Ada", keep=3)
    for _ in range(6):
        await ada.ping()
    assert ada.messages.qsize() == 3 and ada.messages.dropped == 3
    kept = [ada.messages.get_nowait() for _ in range(3)]
    assert [m.ref for m in kept] == [5, 6, 7], "the newest pongs (hello was request 1)"
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    for n in range(5):
        await ada.say(room, f"line {n}")
    await until(lambda: ada.chat and ada.chat[-1].text == "line 4")
    assert [line.text for line in ada.chat] == ["line 2", "line 3", "line 4"]
    assert ada.errors.maxlen == 3
    assert ada.messages.qsize() == 3


# -- tokens -------------------------------------------------------------------------------------


async def test_an_unknown_token_is_an_error_unless_a_new_identity_is_accepted(url) -> None:
    with pytest.raises(ServerError) as refused:
        await LuminClient.connect(url, "Ada", token="tk_forged")
    assert refused.value.code == "bad_token"
    async with await LuminClient.connect(
        url, "Ada", token="tk_forged", new_identity=True
    ) as client:
        assert client.token != "tk_forged"
        assert client.token_refused is not None and client.token_refused.code == "bad_token"


async def test_an_unreachable_url_is_a_clear_error(url) -> None:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(ConnectionLost) as lost:
        await LuminClient.connect(f"ws://127.0.0.1:{port}/nowhere", "Ada")
    assert lost.value.code == "unreachable"


# -- reconnecting -------------------------------------------------------------------------------


@attrs.define
class Scripted:
    """A scripted server: welcomes each connection (a fixed token), sends one room snapshot,
    records what each connection sent, and drops the connection at its first other request
    without answering it (or, ``silent``, keeps it open and never answers)."""

    silent: bool = False
    #: Answer this many requests ``try_again`` first, then ``ok`` (instead of dropping).
    busy: int | None = None
    #: When set, a connection after the first is welcomed only once this event is set.
    hold: asyncio.Event | None = None
    #: Seconds the server's clock is ahead of this machine's.
    skew: float = 0.0
    received: list[list[Message]] = attrs.Factory(list)

    async def handle(self, socket: ServerSocket) -> None:
        conn = ServerConnection()
        seen: list[Message] = []
        self.received.append(seen)
        async for frame in socket:
            assert isinstance(frame, bytes)
            conn.receive_data(frame)
            for event in conn.events_received():
                if isinstance(event, ProtocolError):
                    continue
                seen.append(event)
                if isinstance(event, Hello):
                    if self.hold is not None and len(self.received) > 1:
                        await self.hold.wait()
                    self.welcome(conn, event)
                elif self.busy is not None and not isinstance(event, Resume):
                    ref = getattr(event, "id", None)
                    if self.busy > 0:
                        self.busy -= 1
                        conn.send(Error(code="try_again", message="Moving; try again.", ref=ref))
                    else:
                        conn.send(Ok(ref=ref))
                elif not isinstance(event, Resume) and not self.silent:
                    await socket.close()  # the request stays unanswered
                    return
            for out in conn.data_to_send():
                await socket.send(out)

    def welcome(self, conn: ServerConnection, hello: Hello) -> None:
        assert conn.version is not None
        conn.send(
            Welcome(
                ref=hello.id,
                version=conn.version,
                token="tk_scripted",
                user="u-scripted",
                name=hello.name,
                server_time=time.time() + self.skew,
                max_frame=65536,
            )
        )
        conn.send(Snapshot(room="r1", epoch="e1", seq=7, seat=0, view={"turn": 0}))


@contextlib.asynccontextmanager
async def scripted_server(script: Scripted) -> AsyncIterator[str]:
    """Serve ``script`` on a free loopback port; yields its URL."""
    async with serve(script.handle, "127.0.0.1", 0) as listening:
        port = listening.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws"


@pytest.fixture
async def scripted() -> AsyncIterator[tuple[Scripted, str]]:
    script = Scripted()
    async with scripted_server(script) as url:
        yield script, url


@pytest.mark.parametrize("busy", [2, 10])
async def test_a_request_answered_try_again_is_sent_again_a_few_times(busy: int) -> None:
    """``try_again`` means the request was not carried out: the client sends it again after
    a moment, at most ``TRY_AGAIN_TIMES`` times, then raises the answer."""
    script = Scripted(busy=busy)
    async with scripted_server(script) as url:
        client = await LuminClient.connect(url, "Ada")
        client.RESUME_AGAIN = 0.01
        try:
            if busy <= client.TRY_AGAIN_TIMES:
                assert isinstance(await client.request(Leave(room="r1")), Ok)
            else:
                with pytest.raises(ServerError) as refused:
                    await client.request(Leave(room="r1"))
                assert refused.value.code == "try_again"
            leaves = [m for m in script.received[0] if isinstance(m, Leave)]
            assert len(leaves) == min(busy + 1, client.TRY_AGAIN_TIMES + 1)
        finally:
            await client.close()


async def test_a_request_without_an_answer_times_out_with_a_code() -> None:
    async with scripted_server(Scripted(silent=True)) as url:
        client = await LuminClient.connect(url, "Ada", timeout=0.3)
        try:
            with pytest.raises(RequestTimeout) as late:
                await asyncio.wait_for(client.ping(), 5)
            assert late.value.code == "timeout"
            assert isinstance(late.value, TimeoutError)
        finally:
            await client.close()


async def test_a_request_in_flight_when_the_connection_drops_fails_then_the_client_resumes(
    scripted,
) -> None:
    script, url = scripted
    client = await LuminClient.connect(url, "Ada", give_up=10)
    try:
        await until(lambda: client.seq("r1") == 7)
        first = client.conn
        with pytest.raises(ConnectionLost) as lost:
            await asyncio.wait_for(client.ping(), 5)
        assert lost.value.code == "disconnected"
        await until(lambda: client.conn is not first and client.online)
        await until(lambda: any(isinstance(m, Resume) for m in script.received[-1]))
        hello, resume = script.received[1][:2]
        assert isinstance(hello, Hello) and hello.token == "tk_scripted"
        assert isinstance(resume, Resume)
        assert (resume.room, resume.seq, resume.epoch) == ("r1", 7, "e1")
    finally:
        await client.close()


async def test_close_during_a_reconnect_ends_even_when_the_reconnect_ignores_its_cancel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Python 3.11's ``asyncio.wait_for`` loses a cancellation that arrives as what it waits
    for completes, so a reconnect cancelled by :meth:`close` can finish anyway: the client
    must still end, and close the connection it made, instead of reading from it for ever."""
    opened = LuminClient._open

    async def stubborn(self: LuminClient, token: str | None, first: bool = True) -> None:
        opening = asyncio.ensure_future(opened(self, token, first))
        while True:
            try:
                return await asyncio.shield(opening)
            except asyncio.CancelledError:
                if opening.done():
                    return opening.result()

    monkeypatch.setattr(LuminClient, "_open", stubborn)
    script = Scripted(hold=asyncio.Event())
    async with scripted_server(script) as url:
        client = await LuminClient.connect(url, "Ada", give_up=10)
        with pytest.raises(ConnectionLost):
            await asyncio.wait_for(client.ping(), 5)  # the server drops it: a reconnect
        await until(lambda: len(script.received) == 2 and bool(script.received[1]))
        closing = asyncio.ensure_future(client.close())
        await asyncio.sleep(0.05)  # close() is waiting for the reconnect it cancelled
        script.hold.set()  # which completes now: the welcome comes
        await asyncio.wait_for(closing, 5)
        assert client.socket is not None and client.socket.state.name == "CLOSED"


@pytest.fixture
async def patient(settings: Settings) -> AsyncIterator[LuminServer]:
    """A server whose grace period outlasts any reconnect here: no bot takes a seat meanwhile."""
    lumin = LuminServer(attrs.evolve(settings, grace=60.0))
    await lumin.start()
    yield lumin
    await lumin.stop()


async def test_the_client_resumes_by_seq_after_a_dropped_connection(patient) -> None:
    server = patient
    ada = await LuminClient.connect(f"ws://127.0.0.1:{server.port}/ws", "Ada")
    try:
        room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
        await ada.start(room)
        await my_turn(ada, room)
        seen, epoch, first = ada.seq(room), ada.conn.views[room].epoch, ada.conn
        for socket in list(server.server.connections):
            socket.transport.abort()  # the network drops: no close frame
        await until(lambda: ada.conn is not first and ada.online)
        await until(lambda: room not in ada.conn.resyncing and not ada.conn.pending)
        assert (ada.seq(room), ada.conn.views[room].epoch) == (seen, epoch)
        game = get_game("flip_over_frog")
        answer = await ada.act(room, to_wire(expand_legal(game, ada.legal(room))[0]))
        assert isinstance(answer, CommandAccepted)
        await until(lambda: ada.seq(room) > seen + 1)  # the bot's reply applies as a delta
        assert not ada.errors
    finally:
        await ada.close()


async def test_the_client_reconnects_and_resumes_after_a_server_restart(
    settings: Settings,
) -> None:
    settings = attrs.evolve(settings, grace=60.0)  # no bot takes Ada's seat while she is away
    first = LuminServer(settings)
    await first.start()
    port = first.port
    ada = await LuminClient.connect(f"ws://127.0.0.1:{port}/ws", "Ada", give_up=30)
    again: LuminServer | None = None
    try:
        room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
        await ada.start(room)
        await my_turn(ada, room)
        seen, epoch = ada.seq(room), ada.conn.views[room].epoch
        await first.stop()
        await until(lambda: not ada.online)
        with pytest.raises(ConnectionLost) as away:
            await ada.ping()
        assert away.value.code == "disconnected"
        again = LuminServer(attrs.evolve(settings, port=port))
        await again.start()
        async with asyncio.timeout(30):
            while ada.conn.views[room].epoch == epoch:
                await ada.changed(room)  # the snapshot answering the resume ends this
        assert ada.seq(room) == seen and ada.legal(room)
        game = get_game("flip_over_frog")
        answer = await ada.act(room, to_wire(expand_legal(game, ada.legal(room))[0]))
        assert isinstance(answer, CommandAccepted)
    finally:
        await ada.close()
        if again is not None:
            await again.stop()


async def test_a_room_a_restore_removed_is_dropped_and_said(settings: Settings) -> None:
    """The server is restored from a backup taken before a game was made: after the restart
    that game's resume is refused for good, so the client drops it (its copy and summary),
    keeps why in ``closed`` and says so with a ``Closed`` event; the room the backup holds is
    resumed as any other."""
    settings = attrs.evolve(settings, grace=60.0)
    first = LuminServer(settings)
    await first.start()
    port = first.port
    ada = await LuminClient.connect(f"ws://127.0.0.1:{port}/ws", "Ada", give_up=30)
    again: LuminServer | None = None
    try:
        kept = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        await settle(ada, kept)
        backup_file = settings.data.parent / "before.sqlite3"
        await asyncio.to_thread(backup, settings.data, backup_file)
        gone = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
        await ada.start(gone)
        await my_turn(ada, gone)
        epoch = ada.conn.views[kept].epoch
        await first.stop()
        await until(lambda: not ada.online)
        await asyncio.to_thread(restore, settings.data, backup_file)
        again = LuminServer(attrs.evolve(settings, port=port))
        await again.start()
        async with asyncio.timeout(30):
            while gone not in ada.closed:
                await ada.changed(gone)  # the drop wakes this wait
        closed = ada.closed[gone]
        assert closed.reason == "no_such_room" and gone in closed.message
        assert gone not in ada.conn.views and gone not in ada.room_info
        events = []
        while not ada.events.empty():
            events.append(ada.events.get_nowait())
        assert closed in events
        await until(lambda: ada.conn.views[kept].epoch != epoch)  # resumed on the new server
        assert kept in ada.room_info and ada.online
    finally:
        await ada.close()
        await (again or first).stop()


async def test_the_client_gives_up_after_its_bound(settings: Settings) -> None:
    lumin = LuminServer(settings)
    await lumin.start()
    ada = await LuminClient.connect(f"ws://127.0.0.1:{lumin.port}/ws", "Ada", give_up=1.0)
    try:
        room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
        await settle(ada, room)
        await lumin.stop()
        started = time.monotonic()
        waiting = asyncio.create_task(ada.changed(room))
        with pytest.raises(ConnectionLost) as lost:
            await asyncio.wait_for(waiting, 15)
        assert lost.value.code == "gave_up"
        assert time.monotonic() - started < 5
        with pytest.raises(ConnectionLost) as later:
            await ada.ping()
        assert later.value.code == "gave_up"
    finally:
        await ada.close()


async def test_a_client_that_signs_in_reconnects_as_the_account(patient) -> None:
    """After ``sign_in`` the client's token is the new session's: a dropped connection comes
    back as the account (with its seat), not as the guest it was before."""
    server = patient
    url = f"ws://127.0.0.1:{server.port}/ws"
    ada = await LuminClient.connect(url, "Ada")
    other = await LuminClient.connect(url, "Someone")
    try:
        claimed = await ada.claim_name("Ada", "correct horse")
        room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        signed = await other.sign_in("ada", "correct horse")
        assert (signed.user, signed.name) == (claimed.user, "Ada")
        assert (other.token, other.welcome.user, other.name) == (signed.token, claimed.user, "Ada")
        assert room in signed.rooms
        first = other.conn
        for socket in list(server.server.connections):
            socket.transport.abort()  # the network drops: no close frame
        await until(lambda: other.conn is not first and other.online)
        assert other.welcome.user == claimed.user and other.token == signed.token
        assert [s.session for s in await other.sessions()][-1] == signed.session
    finally:
        await ada.close()
        await other.close()


@pytest.mark.parametrize("new_identity", [False, True])
async def test_a_reconnect_whose_token_was_revoked_ends_the_client_with_bad_token(
    url, new_identity: bool
) -> None:
    """A session revoked from elsewhere: the server says ``bye`` and forgets the token; the
    client's reconnect is refused, and it ends (``bad_token``) rather than come back as a new
    guest, even with ``new_identity`` (which only covers the token given to ``connect``)."""
    ada = await LuminClient.connect(url, "Ada", new_identity=new_identity)
    other = await LuminClient.connect(url, "Someone")
    try:
        claimed = await ada.claim_name("Ada", "correct horse")
        await other.sign_in("ada", "correct horse")
        await other.revoke_session()  # every session but this one: Ada's
        await until(lambda: ada.failure is not None)
        assert ada.failure is not None and ada.failure.code == "bad_token"
        assert ada.user == claimed.user, "still the account, never someone else"
        with pytest.raises(ServerError) as ended:
            await ada.ping()
        assert ended.value.code == "bad_token"
    finally:
        await ada.close()
        await other.close()


async def test_a_request_cancelled_as_its_answer_arrives_is_cancelled_or_done(connect) -> None:
    """A cancel the request's task accepted is never lost (Python 3.11's ``wait_for`` returns
    the answer instead when the cancel meets it), so a caller's timeout or shutdown holds."""
    ada: LuminClient = await connect("Ada")
    for _ in range(5):
        task = asyncio.create_task(ada.ping())
        for _ in range(1000):  # the task registers its answer's future on its first step
            if ada.answers:
                break
            await asyncio.sleep(0)
        (future,) = ada.answers.values()
        accepted: list[bool] = []
        future.add_done_callback(lambda _, t=task, a=accepted: a.append(t.cancel()))
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert accepted, "the answer came"
        assert task.cancelled() or not accepted[0], "a cancel accepted was lost"


async def test_room_time_follows_the_servers_clock_not_this_machines() -> None:
    """A server whose clock is 1000 s ahead: ``server_time`` and ``room_time`` follow it, from
    the welcome, and again from the welcome of each reconnect."""
    script = Scripted(skew=1000.0)
    async with scripted_server(script) as url:
        client = await LuminClient.connect(url, "Ada", give_up=10)
        try:
            assert abs(client.server_time() - (time.time() + 1000)) < 5
            assert abs(client.room_time("r1") - (time.time() + 1000)) < 5  # clock_origin 0
            script.skew = -1000.0
            with pytest.raises(ConnectionLost):
                await client.request(Leave(room="r1"))  # the script drops the connection
            await until(lambda: client.online and len(script.received) == 2)
            assert abs(client.server_time() - (time.time() - 1000)) < 5
        finally:
            await client.close()


async def test_an_answer_of_the_wrong_type_is_an_internal_error_not_an_assert(scripted) -> None:
    """A server that answers a request with another request's answer: ``ServerError``
    (``internal``) naming both, the same under ``python -O``."""
    script, url = scripted
    script.busy = 0  # the script answers every request `ok`
    client = await LuminClient.connect(url, "Ada")
    try:
        for call in (client.list_games(), client.list_rooms(), client.sessions()):
            with pytest.raises(ServerError) as wrong:
                await call
            assert wrong.value.code == "internal" and "'ok'" in wrong.value.message
    finally:
        await client.close()
