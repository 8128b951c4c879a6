"""What ``lumin play`` says when a room is closed to the player: the server's operator closes it
or takes the player's seat (the operator's words on the status line, and the heading stops
saying ``playing``), or the server was restored from a backup older than the room (the room is
no longer shown as live, and a sentence says why)."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import attrs
import pytest

from clients.sdk import LuminClient
from clients.terminal.app import LuminApp
from server.app import LuminServer
from server.backup import backup, restore
from server.config import Settings
from tests.terminal.drive import create_room, screen_text, start_game, until

TOKEN = "test-admin-token-0123456789"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return attrs.evolve(settings, admin_token=TOKEN, grace=60.0)


async def operator(server: LuminServer, path: str) -> dict[str, object]:
    """``POST /api/admin/PATH`` with the admin token (from a thread: the server runs here)."""

    def post() -> dict[str, object]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/api/admin/{path}",
            method="POST",
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            return dict(json.loads(answer.read()))

    return await asyncio.to_thread(post)


def heading(app: LuminApp) -> str:
    return screen_text(app).splitlines()[0]


async def test_an_operators_close_is_said_in_their_words(server: LuminServer, url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(100, 24)) as pilot:
        room = await create_room(pilot, app, "flip_over_frog", {"seat:1": "bot: easy"})
        await start_game(pilot, app, room)
        assert "| playing |" in heading(app)
        await operator(server, f"rooms/{room}/close?reason=server+maintenance")
        said = "The server's operator closed this room: server maintenance."
        await until(pilot, lambda: said in screen_text(app), "the operator's words")
        await until(pilot, lambda: "closed by the operator" in heading(app), "the heading")
        assert "playing" not in heading(app) and "closed_by_operator" not in screen_text(app)


async def test_an_operators_kick_is_said_in_their_words(server: LuminServer, url: str) -> None:
    app = LuminApp(url, "Ada")
    bea = await LuminClient.connect(url, "Bea")  # she never moves: the game goes on
    try:
        async with app.run_test(size=(100, 24)) as pilot:
            room = await create_room(pilot, app, "flip_over_frog", {"seat:1": "person"})
            await bea.join(room, 1)
            await bea.ready(room)
            await start_game(pilot, app, room)
            await operator(server, f"rooms/{room}/kick?seat=0&reason=abusive+chat")
            said = "The server's operator removed you from seat 1: abusive chat. A bot plays on."
            await until(pilot, lambda: said in screen_text(app), "the operator's words")
            await until(pilot, lambda: "| playing | watching" in heading(app), "watching")
    finally:
        await bea.close()


async def test_a_room_a_restore_removed_is_no_longer_shown_as_live(settings: Settings) -> None:
    """A backup is taken, then a game started; the server is stopped, the backup restored and
    the server started again: the terminal's resume of the game is refused for good."""
    first = LuminServer(settings)
    await first.start()
    port = first.port
    again: LuminServer | None = None
    app = LuminApp(f"ws://127.0.0.1:{port}/ws", "Ada")
    try:
        async with app.run_test(size=(100, 24)) as pilot:
            await until(pilot, lambda: "Lumin lobby" in screen_text(app), "the lobby")
            kept = settings.data.parent / "before.sqlite3"
            await asyncio.to_thread(backup, settings.data, kept)  # Ada's identity is in it
            room = await create_room(pilot, app, "flip_over_frog", {"seat:1": "bot: easy"})
            await start_game(pilot, app, room)
            await first.stop()
            await until(pilot, lambda: "RECONNECTING" in screen_text(app), "the reconnecting")
            await asyncio.to_thread(restore, settings.data, kept)
            again = LuminServer(attrs.evolve(settings, port=port))
            await again.start()
            said = f"This room is no longer on the server: There is no live room '{room}'."
            await until(pilot, lambda: said in screen_text(app), "why the room is gone")
            await until(pilot, lambda: "| gone |" in heading(app), "the heading: gone")
            assert "playing" not in heading(app)
            client = app.client
            assert client is not None and client.online
            assert room not in client.room_info and room not in client.conn.views
            await pilot.press("escape")
            await until(pilot, lambda: "Lumin lobby" in screen_text(app), "the lobby again")
            assert room not in screen_text(app)
    finally:
        await (again or first).stop()
