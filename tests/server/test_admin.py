"""The admin API and ``lumin admin`` against a real server on a loopback port: off without a
token, refused with a wrong one (a player's included), and every operation an operator has
(rooms, a room, its log, connections, close, kick, mute, ban and unban, nodes, drain), with
what the players see of each.

The ``lumin admin`` command runs for real (click's runner, in a thread, so the server in this
test's event loop answers it)."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from typing import Any

import attrs
import msgpack
import pytest
from click.testing import CliRunner
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

import server.client as client_module
from clients.sdk import LuminClient, ServerError, bot, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from lumin.cli import main
from protocol.messages import Bye, ChatMessage, Kicked, RoomClosed
from protocol.versions import PROTOCOL_VERSION
from server.app import LuminServer
from server.bans import Bans, parse_address
from server.config import Settings
from server.store import Ban

TOKEN = "test-admin-token-0123456789"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return attrs.evolve(settings, admin_token=TOKEN, grace=60.0)


def base(server: LuminServer) -> str:
    return f"http://127.0.0.1:{server.port}"


async def call(
    server: LuminServer, method: str, path: str, token: str | None = TOKEN
) -> tuple[int, dict[str, Any]]:
    """One admin request (in a thread: the server answers in this loop)."""

    def fetch() -> tuple[int, dict[str, Any]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        request = urllib.request.Request(
            f"{base(server)}/api/admin/{path}", method=method, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    return await asyncio.to_thread(fetch)


async def lumin_admin(server: LuminServer, *args: str) -> tuple[int, str]:
    """``lumin admin --url ... ARGS`` with the token from the environment."""
    runner = CliRunner()
    result = await asyncio.to_thread(
        runner.invoke,
        main,
        ["admin", "--url", base(server), *args],
        env={"LUMIN_ADMIN_TOKEN": TOKEN},
    )
    return result.exit_code, result.output


async def seen(client: LuminClient, kind: type, seconds: float = 5.0) -> Any:
    """The next message of ``kind`` the client receives."""
    async with asyncio.timeout(seconds):
        while True:
            message = await client.messages.get()
            if isinstance(message, kind):
                return message


async def playing(client: LuminClient, game: str = "flip_over_frog") -> str:
    room = await client.create_room(game, seats=[human(), bot()], sit=0)
    await client.start(room)
    return room


async def test_the_admin_api_is_off_without_a_token(tmp_path) -> None:
    server = LuminServer(Settings(port=0, data=tmp_path / "data"))
    await server.start()
    try:
        status, body = await call(server, "GET", "rooms")
        assert status == 404 and body["error"] == "admin_off"
    finally:
        await server.stop()


def test_a_short_admin_token_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="at least 16"):
        Settings(admin_token="short")


async def test_a_wrong_token_or_a_players_token_is_refused(server, connect) -> None:
    ada = await connect("Ada")
    assert (await call(server, "GET", "rooms", token=None))[0] == 401
    assert (await call(server, "GET", "rooms", token="x" * 30))[0] == 401
    status, body = await call(server, "GET", "rooms", token=ada.token)
    assert status == 401 and body["error"] == "bad_admin_token"


async def test_rooms_lists_live_rooms_with_filters_in_json(server, connect) -> None:
    ada, bea = await connect("Ada"), await connect("Bea")
    frog = await playing(ada)
    hexes = await ada.create_room("neon_hex", seats=[human(), human(), bot()], sit=0)
    await bea.watch(frog)
    code, output = await lumin_admin(server, "--json", "rooms")
    assert code == 0, output
    rooms = {room["id"]: room for room in json.loads(output)["rooms"]}
    assert set(rooms) == {frog, hexes}
    assert rooms[frog] == {
        "id": frog, "game": "flip_over_frog", "state": "playing", "players": 1,
        "spectators": 1, "bots": 1, "age_seconds": rooms[frog]["age_seconds"], "node": "local",
        "lease": None, "held_without_lease": None,  # the embedded store has no leases
    }  # fmt: skip
    assert rooms[hexes]["state"] == "waiting" and rooms[hexes]["players"] == 1
    code, output = await lumin_admin(server, "--json", "rooms", "--state", "waiting")
    assert [room["id"] for room in json.loads(output)["rooms"]] == [hexes]
    code, output = await lumin_admin(server, "--json", "rooms", "--game", "flip_over_frog")
    assert [room["id"] for room in json.loads(output)["rooms"]] == [frog]
    code, output = await lumin_admin(server, "rooms")
    assert code == 0 and frog in output and "SPECTATORS" in output


async def test_a_room_its_log_and_the_connections(server, connect) -> None:
    ada = await connect("Ada")
    room = await playing(ada)
    while not ada.legal(room):
        await ada.changed(room)
    await ada.act(room, to_wire(expand_legal(get_game("flip_over_frog"), ada.legal(room))[0]))
    status, body = await call(server, "GET", f"rooms/{room}")
    assert status == 200 and body["status"] == "playing"
    assert body["seq"] == server.hub.rooms[room].seq >= 1
    assert body["seats"][0]["user"] == ada.user and body["seats"][0]["connected"]
    assert body["seats"][1]["kind"] == "bot" and body["seats"][1]["bot_playing"]
    assert body["connections"][0]["user"] == ada.user and body["connections"][0]["seat"] == 0
    code, output = await lumin_admin(server, "log", room)
    log = json.loads(output)
    assert code == 0 and log["room"] == room and log["status"] == "playing" and log["records"]
    # the deal and the draws to come stay secret while the game plays, from the operator too
    assert (log["seed"], log["salt"]) == (None, None) and log["commitment"]
    code, output = await lumin_admin(server, "--json", "connections")
    (connection,) = json.loads(output)["connections"]
    assert connection["user"] == ada.user and connection["rooms"] == [{"room": room, "seat": 0}]
    assert connection["version"] == PROTOCOL_VERSION and connection["address"] == "127.0.0.1"
    status, body = await call(server, "GET", "rooms/rnothing")
    assert status == 404 and body["error"] == "no_such_room"


async def test_lumin_verify_of_a_live_games_log_says_it_is_not_over(
    server, connect, tmp_path
) -> None:
    """``lumin admin log ROOM > game.json && lumin verify game.json`` mid-game (as
    docs/operating.md shows it): no MISMATCH, the game is not over yet, exit status 3."""
    ada = await connect("Ada")
    room = await playing(ada)
    while not ada.legal(room):
        await ada.changed(room)
    await ada.act(room, to_wire(expand_legal(get_game("flip_over_frog"), ada.legal(room))[0]))
    code, output = await lumin_admin(server, "log", room)
    assert code == 0 and json.loads(output)["status"] == "playing"
    (tmp_path / "game.json").write_text(output)
    ran = CliRunner().invoke(main, ["verify", str(tmp_path / "game.json")])
    assert ran.exit_code == 3, ran.output
    assert "MISMATCH" not in ran.output and "not over yet" in ran.output


async def test_closing_a_room_tells_everyone_why_and_records_it_aborted(server, connect) -> None:
    ada, bea = await connect("Ada"), await connect("Bea")
    room = await playing(ada)
    await bea.watch(room)
    code, output = await lumin_admin(server, "close", room, "--reason", "server maintenance")
    assert code == 0 and "aborted" in output, output
    for client in (ada, bea):
        closed = await seen(client, RoomClosed)
        assert closed.reason == "closed_by_operator"
        assert closed.message == "The server's operator closed this room: server maintenance."
    row = await server.store.get_room(room)
    assert row is not None and row.status == "aborted" and row.finished is not None
    assert room not in server.hub.rooms
    assert room not in [r.room for r in (await server.hub.summaries()).rooms], "not a result"
    code, output = await lumin_admin(server, "close", room)
    assert code == 1 and "aborted" in output and "not played now" in output


async def test_kicking_a_player_during_a_game_hands_the_seat_to_a_bot(server, connect) -> None:
    ada, bea = await connect("Ada"), await connect("Bea")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bea.join(room, 1)
    await bea.ready(room)
    await ada.start(room)
    code, output = await lumin_admin(server, "kick", room, "1", "--reason", "abusive chat")
    assert code == 0 and "plays seat 1" in output, output
    kicked = await seen(bea, Kicked)
    assert kicked.seat == 1
    with pytest.raises(ServerError) as refused:
        await bea.join(room, 1)
    assert refused.value.code == "removed", "she may watch, not take the bot's seat back"
    assert kicked.message == (
        "The server's operator removed you from seat 2: abusive chat. A bot plays on."
    ), "seats counted from 1, as players see them"
    live = server.hub.rooms[room]
    assert live.seats[1].kind == "bot" and live.seats[1].user is None
    assert 1 in server.hub.bots.seats_of(live), "the bot plays now, not after the grace"
    assert (await server.store.get_room(room)).seats[1]["kind"] == "bot", "kept"
    game = get_game("flip_over_frog")
    for _ in range(200):  # the game goes on to its end with the bot in the seat
        if room in ada.game_over:
            break
        if ada.legal(room):
            await ada.act(room, to_wire(expand_legal(game, ada.legal(room))[0]))
        else:
            await ada.changed(room)
    assert room in ada.game_over
    status, body = await call(server, "POST", f"rooms/{room}/kick?seat=1")
    assert status == 409 and body["error"] == "no_such_seat", "a bot's seat now"


async def test_kicking_before_the_start_opens_the_seat(server, connect) -> None:
    ada, bea = await connect("Ada"), await connect("Bea")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bea.join(room, 1)
    status, body = await call(server, "POST", f"rooms/{room}/kick?seat=1")
    assert status == 200 and body["bot"] is None and body["user"] == bea.user
    assert (await seen(bea, Kicked)).seat == 1
    assert server.hub.rooms[room].seats[1].kind == "open"
    status, body = await call(server, "POST", f"rooms/{room}/kick?seat=5")
    assert status == 409 and body["error"] == "no_such_seat"
    status, body = await call(server, "POST", f"rooms/{room}/kick")
    assert status == 400 and body["error"] == "bad_seat"


async def test_a_muted_player_cannot_chat_in_that_room(server, connect) -> None:
    ada, bea = await connect("Ada"), await connect("Bea")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    await bea.join(room, 1)
    code, output = await lumin_admin(server, "mute", room, bea.user)
    assert code == 0 and "muted" in output
    with pytest.raises(ServerError) as refused:
        await bea.say(room, "hello?")
    assert refused.value.code == "muted"
    await ada.say(room, "still here")
    assert (await seen(bea, ChatMessage)).text == "still here"
    await lumin_admin(server, "mute", room, bea.user, "--unmute")
    await bea.say(room, "thanks")


async def test_a_banned_identity_is_closed_and_refused_until_unbanned(server, connect) -> None:
    ada = await connect("Ada")
    room = await playing(ada)
    code, output = await lumin_admin(server, "ban", "--identity", ada.user, "--reason", "cheating")
    assert code == 0 and "closed 1 connection" in output, output
    bye = await seen(ada, Bye)
    assert bye.code == "banned" and "cheating" in bye.message
    with pytest.raises(ServerError) as refused:
        await LuminClient.connect(f"ws://127.0.0.1:{server.port}/ws", "Ada", token=ada.token)
    assert refused.value.code == "banned"
    code, output = await lumin_admin(server, "--json", "bans")
    assert [b["value"] for b in json.loads(output)["bans"]] == [ada.user]
    code, output = await lumin_admin(server, "unban", "--identity", ada.user)
    assert code == 0, output
    back = await LuminClient.connect(f"ws://127.0.0.1:{server.port}/ws", "Ada", token=ada.token)
    assert back.user == ada.user and room in back.welcome.rooms
    await back.close()
    code, output = await lumin_admin(server, "unban", "--identity", ada.user)
    assert code == 1 and "no ban" in output


async def test_a_banned_address_is_told_why_and_closed_at_once(
    server, connect, monkeypatch
) -> None:
    await connect("Ada")
    status, body = await call(server, "POST", "bans?address=127.0.0.0/8&reason=testing")
    assert status == 200 and body["closed"] == 1 and body["banned"]["value"] == "127.0.0.0/8"
    with pytest.raises(ServerError) as refused:
        await LuminClient.connect(f"ws://127.0.0.1:{server.port}/ws", "Bea", give_up=0.5)
    assert refused.value.code == "banned" and "testing" in refused.value.message
    monkeypatch.setattr(client_module, "BANNED_WAIT", 0.2)
    said = []
    async with ws_connect(f"ws://127.0.0.1:{server.port}/ws") as silent:  # never says hello
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                said.append(msgpack.unpackb(await asyncio.wait_for(silent.recv(), 5)))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert [(m["type"], m["code"]) for m in said] == [("bye", "banned")]
    status, body = await call(server, "POST", "bans?address=not-an-address")
    assert status == 400 and body["error"] == "bad_address"
    status, _ = await call(server, "DELETE", "bans?address=127.0.0.1/8")
    assert status == 200
    await connect("Bea")


async def test_a_drained_server_takes_no_new_rooms_and_is_not_ready(server, connect) -> None:
    ada = await connect("Ada")
    room = await playing(ada)
    code, output = await lumin_admin(server, "--json", "nodes")
    assert json.loads(output)["nodes"][0]["rooms"] == 1
    code, output = await lumin_admin(server, "drain", "local")
    assert code == 0 and "draining" in output, output
    with pytest.raises(ServerError) as refused:
        await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    assert refused.value.code == "shutting_down"
    assert room in server.hub.rooms, "the games under way play on"

    def ready() -> int:
        try:
            return urllib.request.urlopen(f"{base(server)}/readyz", timeout=5).status
        except urllib.error.HTTPError as error:
            return error.code

    assert await asyncio.to_thread(ready) == 503
    code, output = await lumin_admin(server, "drain", "node-x")
    assert code == 1 and "no_such_node" in output


async def test_lumin_admin_says_why_it_cannot_reach_the_server() -> None:
    runner = CliRunner()
    result = await asyncio.to_thread(
        runner.invoke, main, ["admin", "--url", "http://127.0.0.1:9", "--token", TOKEN, "rooms"]
    )
    assert result.exit_code == 1 and "cannot reach http://127.0.0.1:9" in result.output
    result = await asyncio.to_thread(runner.invoke, main, ["admin", "rooms"], env={})
    assert result.exit_code == 1 and "token is missing" in result.output


def test_address_bans_match_networks_and_ipv4_mapped_addresses() -> None:
    bans = Bans()
    assert parse_address("::ffff:203.0.113.7") == "203.0.113.7"
    assert parse_address(" 2001:db8::1/48 ") == "2001:db8::/48"
    bans.replace([Ban("address", "203.0.113.0/24", "", 1), Ban("address", "2001:db8::/48", "", 2)])
    assert bans.of_address("203.0.113.5") is not None
    assert bans.of_address("::ffff:203.0.113.5") is not None, "through a dual-stack proxy"
    assert bans.of_address("2001:db8:0:1::9") is not None
    assert bans.of_address("198.51.100.1") is None and bans.of_address("not-an-ip") is None
    with pytest.raises(ValueError, match="not an IP address"):
        parse_address("example.org")


async def test_a_token_beyond_ascii_is_refused_not_a_server_error(server) -> None:
    status, body = await call(server, "GET", "rooms", token="é" * 20)
    assert status == 401 and body["error"] == "bad_admin_token"


async def test_the_loop_shows_its_worst_lag_each_recent_second(settings) -> None:
    # a stall of 0.12 s on the loop shows in the second it ended, and in the gauge: the probe
    # (every 10 ms) was due during it
    server = LuminServer(attrs.evolve(settings, lag_probe=0.01))
    await server.start()
    try:
        await asyncio.sleep(0.05)
        time.sleep(0.12)  # holds the event loop, as a request doing unbounded work would
        ended = time.time()
        await asyncio.sleep(0.05)
        status, answer = await call(server, "GET", "loop")
        assert status == 200 and answer["probe_seconds"] == 0.01
        assert max(lag for second, lag in answer["lag"] if second == int(ended)) >= 0.1
        assert server.metrics.loop_lag_seconds.worst(ended, ended) >= 0.1
        assert b"lumin_event_loop_lag_recent_max_seconds 0.1" in server.metrics.render()
    finally:
        await server.stop()


def test_a_server_token_beyond_ascii_is_refused_at_start() -> None:
    # no HTTP header can carry it, so no request could ever match it
    with pytest.raises(ValueError, match="admin_token is printable ASCII"):
        Settings(admin_token="é" * 20)
    ran = CliRunner().invoke(main, ["serve", "--admin-token", "é" * 20])
    assert ran.exit_code == 2 and "admin_token is printable ASCII" in ran.output


async def test_lumin_admin_with_a_token_beyond_ascii_says_so_in_one_line(server) -> None:
    ran = await asyncio.to_thread(
        CliRunner().invoke, main, ["admin", "--url", base(server), "--token", "é" * 20, "rooms"]
    )
    assert ran.exit_code == 1
    assert ran.output.strip().splitlines() == [
        "Error: the admin token is printable ASCII (as the server's --admin-token must be):"
        " check --token or LUMIN_ADMIN_TOKEN"
    ]
