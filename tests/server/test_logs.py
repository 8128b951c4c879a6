"""What an operator reads on standard error (docs/operating.md, "Logs"): one line per lifecycle
event, each naming whoever acted, JSON lines unless ``--log-format console`` asks otherwise,
and a line per request at ``--log-level debug``.

The first tests run a server in this process and capture its log lines with their context
variables; the others run ``lumin serve`` for real (scripts/game_log.py) and read its
standard error."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import structlog
from structlog.testing import capture_logs
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients.sdk import LuminClient, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from protocol.codec import encode
from protocol.messages import Hello, Kick
from scripts.game_log import play_frog, serving
from server import logs


def _captured() -> Any:
    """Capture log lines as dicts, context variables merged in (as the server's config does)."""
    return capture_logs(processors=[structlog.contextvars.merge_contextvars])


def _one(lines: list[dict[str, Any]], event: str) -> dict[str, Any]:
    found = [line for line in lines if line["event"] == event]
    assert len(found) == 1, (event, lines)
    return found[0]


async def _settled(predicate: Any) -> None:
    for _ in range(200):
        if predicate():
            return
        await asyncio.sleep(0.01)


async def test_a_room_line_names_who_acted_not_who_made_the_room(connect) -> None:
    """A room's task was started from its creator's connection; a line it logs for the second
    person's request still names the second person and their connection."""
    ada: LuminClient = await connect("Ada")
    bob: LuminClient = await connect("Bob")
    with _captured() as lines:
        room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        await bob.join(room, 1)
        await bob.ready(room)
        await ada.start(room)
    created, taken, started = (
        _one(lines, e) for e in ("room_created", "seat_taken", "room_started")
    )
    assert created["user"] == ada.user and created["room"] == room
    assert taken["user"] == bob.user, taken
    assert taken["connection"] != created["connection"]
    assert taken["room"] == room and taken["game"] == "flip_over_frog" and taken["seat"] == 1
    assert started["user"] == ada.user and started["by"] == ada.user
    assert started["connection"] == created["connection"]


async def test_a_bots_request_runs_with_the_bots_context(connect, server) -> None:
    """A bot's move runs in the room's task with the bot's seat bound, not with the context of
    the person whose request started the game; the person's next move names the person."""
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[bot("bot"), human()], sit=1)
    live = server.hub.rooms[room]
    bound: list[dict[str, Any]] = []
    acting = live._acting

    def spy(delivery: Any) -> None:  # what the room's task has bound for each request
        acting(delivery)
        bound.append(structlog.contextvars.get_contextvars())

    live._acting = spy  # type: ignore[method-assign]
    await ada.start(room)
    await _settled(lambda: any("bot" in context for context in bound))
    while not ada.legal(room):
        await ada.changed(room)
    game = get_game("flip_over_frog")
    await ada.act(room, to_wire(expand_legal(game, ada.legal(room))[0]))
    bots = [context for context in bound if "bot" in context]
    people = [context for context in bound if "user" in context]
    assert bots and people
    assert all(c["seat"] == 0 and c["bot"] == "bot" and "user" not in c for c in bots), bots
    assert all(c["user"] == ada.user and "bot" not in c for c in people), people
    assert all(c["room"] == room and c["game"] == "flip_over_frog" for c in bound)


async def test_the_host_kick_is_logged_with_who_and_whom(connect) -> None:
    ada: LuminClient = await connect("Ada")
    bob: LuminClient = await connect("Bob")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bob.join(room, 1)
    with _captured() as lines:
        await ada.request(Kick(room=room, seat=1))
    kicked = _one(lines, "seat_kicked")
    assert kicked["kicked"] == bob.user and kicked["by"] == ada.user and kicked["seat"] == 1
    assert kicked["room"] == room and kicked["user"] == ada.user


def test_the_shared_lifecycle_helpers_log_fixed_fields() -> None:
    """The admin API and the server's own code log room_closed, seat_kicked and banned through
    one helper each: the same fields whoever acts."""
    with _captured() as lines:
        logs.room_closed("r1", "admin", by="admin:eve")
        logs.seat_kicked("r1", 2, "u2", by="admin:eve")
        logs.banned(by="admin:eve", reason="cheating", user="u2", until=None)
    assert [(line["event"], line["log_level"]) for line in lines] == [
        ("room_closed", "info"),
        ("seat_kicked", "info"),
        ("banned", "warning"),
    ]
    assert lines[0] | {} == {
        "event": "room_closed", "log_level": "info", "room": "r1", "reason": "admin",
        "by": "admin:eve",
    }  # fmt: skip
    assert {"room", "seat", "kicked", "by"} <= lines[1].keys()
    assert {"user", "address", "until", "by", "reason"} <= lines[2].keys()


async def test_an_expired_room_is_logged_closed_once(connect, server) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await ada.leave(room)
    live = server.hub.rooms[room]
    with _captured() as lines:
        live.touched -= 10 * server.settings.idle_expiry
        server.hub.sweep(live.touched + 10 * server.settings.idle_expiry)
        await _settled(lambda: live.closed)
    closed = _one(lines, "room_closed")
    assert closed["room"] == room and closed["reason"] == "expired" and closed["by"] is None


# -- lumin serve, for real ----------------------------------------------------------------------


def _in_order(events: list[str], expected: list[str]) -> bool:
    """Whether ``expected`` appears in ``events`` in this order (others may come between)."""
    left = iter(events)
    return all(any(event == wanted for event in left) for wanted in expected)


async def _refused_and_outdated(url: str) -> None:
    """A browser page of another site (403), and a client speaking only a future version."""
    try:
        async with ws_connect(url, origin="http://elsewhere.example"):  # type: ignore[arg-type]
            raise AssertionError("a foreign origin was let in")
    except InvalidStatus as refused:
        assert refused.response.status_code == 403
    async with ws_connect(url) as socket:
        await socket.send(encode(Hello(versions=(99,), name="Future", id=1)))
        with contextlib.suppress(ConnectionClosed):
            async for _ in socket:  # the fatal error, then the server closes (1008)
                pass


def test_lumin_serve_writes_json_lines_of_a_game_in_order(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        room = asyncio.run(play_frog(server.url))
        asyncio.run(_refused_and_outdated(server.url))
        server.wait_for("connection_closed", 2)  # each is logged once the server has closed it
        assert server.stop() == 0
        lines = server.lines()
    events = [json.loads(line) for line in lines]  # every line is JSON
    names = [event["event"] for event in events]
    assert _in_order(
        names,
        [
            "recovered", "listening", "connection_opened", "greeted", "room_created",
            "room_started", "room_finished", "connection_closed", "handshake_refused",
            "connection_opened", "hello_refused", "connection_closed", "shutting_down",
            "stopped",
        ],
    ), " ".join(names)  # fmt: skip
    assert "request" not in names, "per-request lines are for --log-level debug"
    listening = _one(events, "listening")
    assert listening["url"] == f"ws://127.0.0.1:{listening['port']}/ws"
    game = [event for event in events if event.get("room") == room]
    assert {event["event"] for event in game} == {"room_created", "room_started", "room_finished"}
    assert all(event["game"] == "flip_over_frog" and event["level"] == "info" for event in game)
    first, last = (e for e in events if e["event"] == "connection_closed")
    assert first["code"] == 1000 and first["by"] == "client" and first["cause"] == "normal"
    assert last["code"] == 1008 and last["by"] == "server" and last["cause"] == "version"
    refused = _one(events, "handshake_refused")
    assert refused["reason"] == "origin" and refused["origin"] == "http://elsewhere.example"
    for event in events:
        assert {"event", "level", "timestamp"} <= event.keys()


def test_console_logs_are_for_people_and_debug_adds_requests(tmp_path: Path) -> None:
    with serving(tmp_path, "--log-format", "console", "--log-level", "debug") as server:
        asyncio.run(play_frog(server.url))
        assert server.stop() == 0
        lines = server.lines()
    listening = next(line for line in lines if "listening" in line)
    assert not listening.startswith("{") and "\x1b[" not in listening  # no colour in a file
    assert "port=" in listening and "url=ws://127.0.0.1:" in listening
    requests = [line for line in lines if "request " in line and "type=act" in line]
    assert requests and all("room=r" in line and "seconds=" in line for line in requests)


#: What must never reach an operator's terminal from a console line: C0 controls but the
#: newline, DEL, C1 controls, the right-to-left override.
_RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]")

_CONSOLE_PROGRAM = """
import structlog
from server import logs

logs.configure_logging(json=False)
log = structlog.get_logger("test")
said = "spam\\x9b31m here\\nlevel=info forged"
log.info("greeted", name="Ada\\x1b[2J", said=said, rtl="\\u202eabc")
try:
    raise ValueError("bad \\x1b[31m value")
except ValueError:
    log.exception("failed", who="x\\x07")
"""


def test_console_lines_escape_what_is_not_printable() -> None:
    """An escape sequence in a name (it would clear the operator's screen), a C1 control, a
    right-to-left override and a newline (it would forge a line) are written escaped, in a
    value with spaces or without; a traceback keeps its newlines."""
    ran = subprocess.run(
        [sys.executable, "-c", _CONSOLE_PROGRAM],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = ran.stderr.splitlines()
    assert _RAW.search(ran.stderr) is None, ran.stderr
    greeted, failed, *traceback = lines
    assert "name=Ada\\x1b[2J" in greeted and "rtl=\\u202eabc" in greeted
    assert "said='spam\\x9b31m here\\nlevel=info forged'" in greeted
    assert "who=x\\x07" in failed
    assert traceback[0] == "Traceback (most recent call last):"
    assert traceback[-1] == "ValueError: bad \\x1b[31m value"


def test_the_hellos_client_field_is_logged_cut_like_a_name(tmp_path: Path) -> None:
    """The ``client`` a hello says is free text: it is logged without its invisible characters
    (a control character is refused with the hello, ``bad_field``) and cut to a name's length,
    on a console line as on a JSON one."""

    async def hello(url: str) -> None:
        async with ws_connect(url) as socket:
            said = Hello(versions=(6,), name="Ada", client="evil\u202e\u200b[2J" + "x" * 300, id=1)
            await socket.send(encode(said))
            await socket.recv()  # the welcome

    with serving(tmp_path, "--log-format", "console") as server:
        asyncio.run(hello(server.url))  # the greeted line is written before the welcome
        assert server.stop() == 0
        log = server.log.read_text()
    assert _RAW.search(log) is None, log
    (greeted,) = [line for line in log.splitlines() if " greeted " in line]
    client = re.search(r"\bclient=(\S+)", greeted)
    assert client is not None and client.group(1) == "evil[2J" + "x" * 17, greeted
