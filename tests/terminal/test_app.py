"""``lumin play``'s request plumbing: a failure inside what runs on an answer is a sentence on
the status line, not a crash; an answer that comes after the player moved on opens no screen
over the one they look at now."""

from __future__ import annotations

import asyncio
from typing import Any

from clients.sdk import LuminClient, human
from clients.terminal.app import LuminApp
from clients.terminal.create import CreateScreen
from clients.terminal.lobby import LobbyScreen
from tests.terminal.drive import room_screen, screen_text, until


async def test_a_failing_answer_callback_is_said_on_the_status_line(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(100, 24)) as pilot:
        lobby = await until(
            pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen, "the lobby"
        )
        client = app.client
        assert client is not None

        def broken(_: Any) -> None:
            raise RuntimeError("a drawing bug")

        app.request(client.ping(), broken, lobby)
        await until(pilot, lambda: "Something went wrong" in screen_text(app), "the sentence")
        assert app.is_running and app.screen is lobby and app.return_code is None
        await pilot.press("c")  # the app still takes keys
        await until(pilot, lambda: isinstance(app.screen, CreateScreen), "the create form")


async def test_an_answer_after_the_player_moved_on_opens_nothing_over_it(url: str) -> None:
    host = await LuminClient.connect(url, "Host")
    try:
        room = await host.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        app = LuminApp(url, "Ada")
        async with app.run_test(size=(100, 24)) as pilot:
            lobby = await until(
                pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen, "the lobby"
            )
            client = app.client
            assert client is not None
            gate = asyncio.Event()

            async def slow_watch() -> None:
                await gate.wait()
                await client.watch(room)

            entered: list[bool] = []

            def enter(_: None) -> None:
                lobby.enter(room, None)
                entered.append(True)

            app.request(slow_watch(), enter, lobby)
            await pilot.press("c")  # the player moves on before the answer
            form = await until(
                pilot, lambda: isinstance(app.screen, CreateScreen) and app.screen, "the form"
            )
            gate.set()
            await until(pilot, lambda: entered, "the watch answered and its callback ran")
            assert app.screen is form and room_screen(app) is None
    finally:
        await host.close()


async def test_a_refused_token_is_said_and_a_revoked_one_ends_the_session(url: str) -> None:
    app = LuminApp(url, "Ada", token="tk_forged")
    async with app.run_test(size=(120, 24)) as pilot:
        await until(pilot, lambda: "did not know your --token" in screen_text(app), "the news")
        client = app.client
        assert client is not None and client.token_refused is not None
        await client.claim_name("Ada", "correct horse")
        other = await LuminClient.connect(url, "Someone")
        try:
            await other.sign_in("ada", "correct horse")
            await other.revoke_session()  # Ada's session: her reconnect is refused
            await until(pilot, lambda: "OFFLINE (bad_token)" in screen_text(app), "the end")
            assert "no longer knows this identity" in screen_text(app)
        finally:
            await other.close()


async def test_the_create_form_takes_typed_seat_counts_and_clamps_typed_options(
    url: str,
) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("c")
        form = await until(pilot, lambda: app.screen.query("RoomForm").first(), "the form")
        for _ in range(len(form.games)):
            if form.game.id == "flash8":
                break
            await pilot.press("right")
        assert form.game.id == "flash8"
        await _row(pilot, form, "option:lockout")
        await pilot.press("9", "9")  # its maximum is 60 s
        assert form.options["lockout"] == 60.0
        await _row(pilot, form, "seats")
        await pilot.press("3")
        assert len(form.seats) == 3
        await pilot.press("backspace", "9")  # a race seats at most 4
        assert len(form.seats) == 4


async def _row(pilot: Any, form: Any, key: str) -> None:
    for _ in range(len(form.rows()) + 1):
        if form.rows()[form.row].key == key:
            return
        await pilot.press("down")
    raise AssertionError(f"the form has no row {key!r}")
