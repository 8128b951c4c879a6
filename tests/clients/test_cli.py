"""``lumin bot`` and ``lumin verify`` on bad input: one clear line on standard error and a
non-zero exit, never a traceback. ``lumin bot`` runs as the real command against a real server
on a loopback port; ``lumin verify`` through click's runner."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import random
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner

from clients.load import free_port
from clients.sdk import LuminClient, human
from lumin.cli import main
from lumin.urls import BadUrl, ServerUrl, browser_line
from server.app import LuminServer
from server.config import Settings
from server.room import Room
from tests.server.test_play import play_seat
from tests.server.test_rooms import bots_only, wait_over

LUMIN = Path(sys.executable).parent / "lumin"


@attrs.frozen
class Ran:
    """What a finished command did."""

    status: int
    stdout: str
    stderr: str

    def one_line(self) -> str:
        """The single line on standard error (fails when there is not exactly one)."""
        lines = self.stderr.splitlines()
        assert len(lines) == 1, self.stderr
        assert "Traceback" not in self.stderr
        return lines[0]

    def after_seated(self, room: str, seat: int, server: str) -> str:
        """The single line on standard error after the one ``lumin bot`` says once seated,
        which names the server that answered."""
        seated, *rest = self.stderr.splitlines()
        assert seated == f"lumin bot: playing seat {seat} of {room} on {server} (the URL argument)"
        assert len(rest) == 1 and "Traceback" not in self.stderr, self.stderr
        return rest[0]


async def lumin(*args: str, seconds: float = 60) -> Ran:
    """Run the ``lumin`` command without blocking the event loop the test server runs on;
    killed (and the test failed) after ``seconds``."""
    env = {k: v for k, v in os.environ.items() if k != "LUMIN_TOKEN"}
    process = await asyncio.create_subprocess_exec(
        str(LUMIN),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), seconds)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError(f"lumin {' '.join(args)} still running after {seconds} s") from None
    assert process.returncode is not None
    return Ran(process.returncode, out.decode(), err.decode())


@pytest.fixture
def joins(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seats anyone asked the server to join, in order."""
    asked: list[int] = []
    original = Room.join

    async def spying(self: Room, peer: Any, seat: int, code: str | None) -> None:
        asked.append(seat)
        await original(self, peer, seat, code)

    monkeypatch.setattr(Room, "join", spying)
    return asked


# -- lumin bot ----------------------------------------------------------------------------------


async def test_bot_with_an_unreachable_url_fails_in_one_line() -> None:
    ran = await lumin("bot", f"ws://127.0.0.1:{free_port()}/ws", "r-none", "--seat", "1")
    assert ran.status == 2
    assert ran.one_line().startswith("lumin bot: unreachable: Cannot reach a Lumin server at ws://")


async def test_bot_with_a_bad_url_fails_in_one_line() -> None:
    ran = await lumin("bot", "127.0.0.1:8700", "r-none", "--seat", "1")
    assert ran.status == 2
    assert ran.one_line().startswith(
        "lumin bot: '127.0.0.1:8700' (the URL argument) is not a Lumin server's URL: give ws://"
    )


async def test_bot_of_an_unknown_kind_fails_before_taking_a_seat(connect, url, joins) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    ran = await lumin("bot", url, room, "--seat", "1", "--kind", "nope")
    assert ran.status == 2
    line = ran.one_line()
    assert line.startswith("lumin bot: Flip Over Frog has no bot 'nope' (its bots: "), line
    assert joins == [], "the bot asked for no seat"


async def test_bot_in_a_room_that_does_not_exist_fails_in_one_line(url, joins) -> None:
    ran = await lumin("bot", url, "r-none", "--seat", "1")
    assert ran.status == 2
    assert ran.one_line().startswith("lumin bot: no_such_room: ")
    assert joins == []


async def test_bot_with_an_unknown_token_fails_in_one_line(connect, url, joins) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    ran = await lumin("bot", url, room, "--seat", "1", "--token", "tk_forged")
    assert ran.status == 2
    assert ran.one_line().startswith("lumin bot: bad_token: ")
    assert joins == []


async def test_bot_plays_a_whole_game_and_prints_its_outcome(connect, url) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    running = asyncio.create_task(lumin("bot", url, room, "--seat", "1", "--seed", "4"))
    async with asyncio.timeout(30):
        while not (ada.room_info.get(room) and ada.room_info[room].seats[1].ready):
            await ada.changed(room)
    await ada.ready(room)
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(2), "flip_over_frog"), 60)
    ran = await running
    assert ran.status == 0, ran.stderr
    outcome = json.loads(ran.stdout)
    assert list(outcome["ranks"]) == list(ada.game_over[room].outcome.ranks)


async def test_bot_exits_in_one_line_when_the_operator_closes_its_room(
    connect, url, server
) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    running = asyncio.create_task(lumin("bot", url, room, "--seat", "1"))
    async with asyncio.timeout(30):
        while not (ada.room_info.get(room) and ada.room_info[room].seats[1].ready):
            await ada.changed(room)
    live = server.hub.rooms[room]
    await live.call(lambda: live.close_by_operator("maintenance"))
    ran = await asyncio.wait_for(running, 30)
    assert ran.status == 1, ran.stderr
    line = ran.after_seated(room, 1, f"http://127.0.0.1:{server.port}")
    assert line.startswith("lumin bot: closed_by_operator: "), line


async def test_bot_exits_in_one_line_once_the_server_stays_away(settings: Settings) -> None:
    lumin_server = LuminServer(settings)
    await lumin_server.start()
    url = f"ws://127.0.0.1:{lumin_server.port}/ws"
    ada = await LuminClient.connect(url, "Ada", give_up=0)
    try:
        room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        running = asyncio.create_task(lumin("bot", url, room, "--seat", "1", "--give-up", "1"))
        async with asyncio.timeout(30):
            while not (ada.room_info.get(room) and ada.room_info[room].seats[1].ready):
                await ada.changed(room)
        await lumin_server.stop()
        stopped = time.monotonic()
        ran = await running
        assert time.monotonic() - stopped < 10
        assert ran.status == 1
        line = ran.after_seated(room, 1, url.replace("ws://", "http://").removesuffix("/ws"))
        assert line.startswith("lumin bot: gave_up: Lost the connection to ws://"), line
        assert "within 1 s" in line
    finally:
        await ada.close()


# -- lumin verify -------------------------------------------------------------------------------


def verify(source: str | Path) -> Ran:
    """``lumin verify SOURCE`` through click's runner."""
    result = CliRunner().invoke(main, ["verify", str(source)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


async def finished_log(connect, server: LuminServer) -> dict[str, Any]:
    """The log document of a finished bots-only game, as the server serves it."""
    ada: LuminClient = await connect("Ada")
    room = await bots_only(ada)
    await ada.watch(room)
    await wait_over(ada, room)
    url = f"http://127.0.0.1:{server.port}/rooms/{room}/log"
    for _ in range(50):  # the store writes the finished game right after game_over
        try:
            return await asyncio.to_thread(lambda: json.load(urllib.request.urlopen(url)))
        except urllib.error.HTTPError:
            await asyncio.sleep(0.1)
    raise AssertionError("the log never appeared")


def test_verify_a_missing_file_fails_in_one_line(tmp_path: Path) -> None:
    ran = verify(tmp_path / "missing.json")
    assert ran.status == 2
    assert (
        ran.one_line()
        == f"lumin verify: cannot read {tmp_path / 'missing.json'}: No such file or directory"
    )


def test_verify_a_folder_fails_in_one_line(tmp_path: Path) -> None:
    ran = verify(tmp_path)
    assert ran.status == 2
    assert ran.one_line().startswith(f"lumin verify: cannot read {tmp_path}: ")


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"not json at all", "is not JSON"),
        (b"\xff\xfe\x00", "is not JSON"),
        (b"[1, 2]", "is not a Lumin game log: the document is not a JSON object"),
        (b'{"game": "flip_over_frog"}', "is not a Lumin game log: the document has no 'options'"),
    ],
)
def test_verify_a_file_that_is_no_log_fails_in_one_line(
    tmp_path: Path, content: bytes, says: str
) -> None:
    path = tmp_path / "log.json"
    path.write_bytes(content)
    ran = verify(path)
    assert ran.status == 2
    assert ran.one_line().startswith(f"lumin verify: {path} "), ran.stderr
    assert says in ran.stderr


async def test_verify_a_log_with_broken_fields_fails_in_one_line(
    connect, server, tmp_path: Path
) -> None:
    document = await finished_log(connect, server)
    path = tmp_path / "log.json"
    no_events = {k: v for k, v in document["records"][1].items() if k != "events"}
    breakages = {
        "its game 'chess' is not one Lumin hosts": {"game": "chess"},
        "its 'seed' is not hexadecimal": {"seed": "zz"},
        "its 'seed' is null, but the game is not under way": {"seed": None},
        "the document's 'status' has the wrong type": {"status": 3},
        "the document's 'records' has the wrong type": {"records": {}},
        "record 1 has no 'events' field": {"records": [document["records"][0], no_events]},
        "record 0's 'seq' has the wrong type": {"records": [{**no_events, "seq": "1"}]},
    }
    for says, change in breakages.items():
        path.write_text(json.dumps({**document, **change}))
        ran = verify(path)
        assert ran.status == 2, says
        assert ran.one_line() == f"lumin verify: {path} is not a Lumin game log: {says}"


async def test_verify_a_good_log_and_a_tampered_one(connect, server, tmp_path: Path) -> None:
    document = await finished_log(connect, server)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(document))
    ran = verify(path)
    assert ran.status == 0 and "verified" in ran.stdout and not ran.stderr
    document["seed"] = "00" * (len(document["seed"]) // 2)
    path.write_text(json.dumps(document))
    ran = verify(path)
    assert ran.status == 1 and "MISMATCH" in ran.stdout


async def test_verify_an_unreachable_url_fails_in_one_line() -> None:
    url = f"http://127.0.0.1:{free_port()}/rooms/r-none/log"
    ran = await asyncio.to_thread(verify, url)
    assert ran.status == 2
    assert ran.one_line().startswith(f"lumin verify: cannot fetch {url}: ")


async def test_verify_a_url_without_a_log_fails_in_one_line(server) -> None:
    url = f"http://127.0.0.1:{server.port}/rooms/r-none/log"
    ran = await asyncio.to_thread(verify, url)
    assert ran.status == 2
    assert ran.one_line() == f"lumin verify: {url} answered HTTP 404 Not Found"


# -- which server: --url anywhere, LUMIN_URL, either scheme ------------------------------------


@pytest.mark.parametrize(
    ("given", "websocket", "http"),
    [
        ("ws://127.0.0.1:8700/ws", "ws://127.0.0.1:8700/ws", "http://127.0.0.1:8700"),
        ("http://127.0.0.1:8700", "ws://127.0.0.1:8700/ws", "http://127.0.0.1:8700"),
        ("http://127.0.0.1:8700/", "ws://127.0.0.1:8700/ws", "http://127.0.0.1:8700"),
        ("https://games.example.org", "wss://games.example.org/ws", "https://games.example.org"),
        ("wss://games.example.org/ws", "wss://games.example.org/ws", "https://games.example.org"),
        ("https://example.org/games/", "wss://example.org/games/ws", "https://example.org/games"),
        ("ws://[::1]:9000", "ws://[::1]:9000/ws", "http://[::1]:9000"),
    ],
)
def test_a_server_url_in_either_scheme_gives_the_other(given: str, websocket: str, http: str):
    url = ServerUrl(given)
    assert (url.websocket, url.http) == (websocket, http)


@pytest.mark.parametrize("given", ["127.0.0.1:8700", "ftp://h/", "http://", "http://h:port/"])
def test_a_url_that_names_no_server_is_refused_saying_where_it_came_from(given: str) -> None:
    with pytest.raises(BadUrl, match="LUMIN_URL"):
        ServerUrl(given, "LUMIN_URL")


def admin_run(args: list[str], env: dict[str, str]) -> Ran:
    """``lumin ARGS`` through click's runner, with only ``env`` of the server variables."""
    cleared = {"LUMIN_URL": None, "LUMIN_ADMIN_URL": None, "LUMIN_ADMIN_TOKEN": "t0ken"}
    result = CliRunner().invoke(main, args, env=cleared | env)
    return Ran(result.exit_code, result.stdout, result.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ["--url", "{url}", "admin", "rooms"],
        ["admin", "--url", "{url}", "rooms"],
        ["admin", "rooms", "--url", "{url}"],
        ["--url", "http://127.0.0.1:1", "admin", "rooms", "--url", "{url}"],  # the last wins
    ],
)
def test_admin_takes_url_before_or_after_its_subcommand(args: list[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    ran = admin_run([a.replace("{url}", url) for a in args], {})
    assert ran.status == 1
    assert ran.one_line().startswith(f"Error: cannot reach {url} (--url): ")


@pytest.mark.parametrize(
    ("env", "source"),
    [
        ({"LUMIN_URL": "ws://127.0.0.1:{port}/ws"}, "LUMIN_URL"),
        ({"LUMIN_ADMIN_URL": "http://127.0.0.1:{port}"}, "LUMIN_ADMIN_URL"),
        # the admin's own variable is the more specific one
        (
            {"LUMIN_ADMIN_URL": "http://127.0.0.1:{port}", "LUMIN_URL": "ws://h:1/ws"},
            "LUMIN_ADMIN_URL",
        ),
    ],
)
def test_admin_reaches_the_server_of_the_environment(env: dict[str, str], source: str) -> None:
    port = free_port()
    ran = admin_run(["admin", "rooms"], {k: v.replace("{port}", str(port)) for k, v in env.items()})
    assert ran.status == 1
    assert ran.one_line().startswith(f"Error: cannot reach http://127.0.0.1:{port} ({source}): ")


def test_ratings_download_takes_its_server_from_lumin_url(tmp_path: Path) -> None:
    port = free_port()
    env = {"LUMIN_URL": f"ws://127.0.0.1:{port}/ws"}
    ran = admin_run(["ratings", "download", str(tmp_path / "logs")], env)
    assert ran.status == 1
    assert ran.one_line().startswith(
        f"Error: cannot download from http://127.0.0.1:{port} (LUMIN_URL): "
    )


def test_admin_without_any_url_says_it_asked_the_default() -> None:
    ran = admin_run(["admin", "rooms"], {})
    # whether a server listens there or not, the line names it as the default
    assert "http://127.0.0.1:8700 (the default: no --url or LUMIN_URL)" in ran.stderr


async def test_admin_says_which_server_answered_but_keeps_json_clean(settings: Settings) -> None:
    token = "test-admin-token-0123456789"
    lumin_server = LuminServer(attrs.evolve(settings, admin_token=token))
    await lumin_server.start()
    try:
        port = lumin_server.port
        ada = await LuminClient.connect(f"ws://127.0.0.1:{port}/ws", "Ada")
        env = {"LUMIN_URL": f"ws://127.0.0.1:{port}/ws", "LUMIN_ADMIN_TOKEN": token}
        ran = await asyncio.to_thread(admin_run, ["admin", "connections"], env)
        assert ran.status == 0, ran.stderr
        assert ran.one_line() == f"lumin admin: answered by http://127.0.0.1:{port} (LUMIN_URL)"
        assert "CONNECTION" in ran.stdout
        ran = await asyncio.to_thread(admin_run, ["admin", "--json", "connections"], env)
        assert ran.status == 0 and not ran.stderr
        assert len(json.loads(ran.stdout)["connections"]) == 1
        await ada.close()
    finally:
        await lumin_server.stop()


async def test_bot_takes_its_server_from_lumin_url_with_an_http_address(connect, url) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    http = url.replace("ws://", "http://").removesuffix("/ws")
    env = {k: v for k, v in os.environ.items() if k != "LUMIN_TOKEN"} | {"LUMIN_URL": http}
    process = await asyncio.create_subprocess_exec(
        str(LUMIN), "bot", room, "--seat", "1", "--seed", "4",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    try:
        async with asyncio.timeout(30):
            while not (ada.room_info.get(room) and ada.room_info[room].seats[1].ready):
                await ada.changed(room)
        await ada.ready(room)
        await ada.start(room)
        await asyncio.wait_for(play_seat(ada, room, random.Random(2), "flip_over_frog"), 60)
        out, err = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()
    assert err.decode().splitlines() == [
        f"lumin bot: playing seat 1 of {room} on {http} (LUMIN_URL)"
    ]
    assert json.loads(out)["ranks"] == list(ada.game_over[room].outcome.ranks)


# -- lumin serve's browser line, --version, --help ---------------------------------------------


@pytest.mark.parametrize(
    ("host", "public_url", "address"),
    [
        ("127.0.0.1", None, "http://127.0.0.1:8123/"),
        ("::1", None, "http://[::1]:8123/"),
        ("0.0.0.0", None, "http://127.0.0.1:8123/"),
        ("0.0.0.0", "wss://games.example.org/ws", "https://games.example.org/"),
        ("0.0.0.0", "ws://node-1:{port}/ws", "http://node-1:8123/"),
    ],
)
def test_the_browser_line_names_the_address_a_browser_opens(host, public_url, address) -> None:
    line = browser_line(host, 8123, public_url, serves_client=True)
    assert line.startswith(f"Lumin is serving: point a browser at {address}")
    assert ("every address" in line) == (host == "0.0.0.0" and public_url is None)
    assert "without the browser client" in browser_line(host, 8123, public_url, False)


async def test_serve_prints_where_to_point_a_browser_once_it_listens(tmp_path: Path) -> None:
    client = tmp_path / "web"
    client.mkdir()
    (client / "index.html").write_text("<!doctype html><title>Lumin</title>")
    port = free_port()
    for log_format in ("json", "console"):
        process = await asyncio.create_subprocess_exec(
            str(LUMIN), "serve", "--data", str(tmp_path / "data"), "--port", str(port),
            "--static", str(client), "--log-format", log_format,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        try:
            assert process.stdout is not None
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            assert (
                line.decode() == f"Lumin is serving: point a browser at http://127.0.0.1:{port}/\n"
            )
            page = await asyncio.to_thread(
                lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read()
            )
            assert b"<title>Lumin</title>" in page, "the line comes once the page is served"
        finally:
            process.terminate()
            await process.wait()


def test_the_help_shows_the_browser_line_examples_and_the_version() -> None:
    runner = CliRunner()
    served = runner.invoke(main, ["serve", "--help"])
    assert "Lumin is serving: point a browser at http://127.0.0.1:8700/" in served.stdout
    assert "Examples:" in served.stdout
    for command in ([], ["admin"], ["bot"], ["play"]):
        shown = runner.invoke(main, [*command, "--help"])
        assert shown.exit_code == 0 and "Examples:" in shown.stdout, command
        assert "--url URL" in shown.stdout, command
    version = runner.invoke(main, ["--version"])
    assert version.exit_code == 0
    assert version.stdout == f"lumin {importlib.metadata.version('lumin')}\n"


def test_shell_completion_as_docs_install_describes_it() -> None:
    source = subprocess.run(
        [str(LUMIN)], env=os.environ | {"_LUMIN_COMPLETE": "bash_source"},
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "_lumin_completion()" in source.stdout
    for words, offered in (("lumin ad", "admin"), ("lumin admin ro", "rooms")):
        env = {"_LUMIN_COMPLETE": "bash_complete", "COMP_WORDS": words}
        env["COMP_CWORD"] = str(len(words.split()) - 1)
        done = subprocess.run(
            [str(LUMIN)], env=os.environ | env, capture_output=True, text=True, timeout=60
        )
        assert f"plain,{offered}" in done.stdout.splitlines(), (words, done.stdout)
    documented = (Path(__file__).resolve().parents[2] / "docs" / "install.md").read_text()
    assert "_LUMIN_COMPLETE=bash_source lumin" in documented


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (
            ["play"],
            {"LUMIN_URL": "https://games.example.org"},
            "https://games.example.org (LUMIN_URL)",
        ),
        (["--url", "http://h:9000", "play"], {}, "http://h:9000 (--url)"),
        (
            ["play", "ws://h:9000/ws"],
            {"LUMIN_URL": "http://x:1"},
            "http://h:9000 (the URL argument)",
        ),
    ],
)
def test_play_connects_to_the_websocket_of_the_server_it_is_told_of(
    args: list[str], env: dict[str, str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import clients.terminal

    opened: list[str] = []
    monkeypatch.setattr(clients.terminal, "run", lambda url, name, token: opened.append(url) or 0)
    ran = admin_run(args, env)
    assert ran.status == 0, ran.stderr
    assert opened == [ServerUrl(said.split(" ")[0]).websocket]
    assert ran.one_line() == f"lumin play: played on {said}"
