"""``lumin play`` shows what a server or another person sends as text, never as markup or
terminal instructions: names such as ``[/]``, ``[b]Ada[/b]``, ``[@click=app.quit]zap`` and
``[link=...]`` in the lobby, a room, its chat and a leaderboard show as typed and run nothing
when clicked; a hostile server's escape sequences and control characters in every id, name,
sentence and view (tests/terminal/hostile.py) are drawn as visible characters (control
pictures such as ``␛``, or ``�``, one for one) and never reach the terminal."""

from __future__ import annotations

import re
from typing import Any

import attrs
import pytest
from rich.text import Text
from textual.pilot import Pilot

from clients.sdk import LuminClient, human
from clients.terminal.app import LuminApp
from clients.terminal.leaderboard import LeaderboardScreen
from clients.terminal.lobby import LobbyScreen
from clients.terminal.text import safe, visible
from server.app import LuminServer
from server.config import Settings
from tests.server.test_ratings import changes_of, play
from tests.terminal.drive import room_screen, screen_text, until
from tests.terminal.hostile import hostile_server

#: What must never be on the screen as it is: C0 controls but the newline, DEL, C1 controls,
#: the right-to-left override.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]")
#: tests.terminal.hostile.EVIL as the terminal must draw it.
EVIL_SHOWN = "␛]8;;http://evil.example/␇link␛]8;;␇␛[2J�31m␇�[/][@click=app.quit]q"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return attrs.evolve(settings, leaderboard_games=1)


def shown_as_text(app: LuminApp) -> str:
    """The screen's text, checked to hold no raw control character; returns it."""
    text = screen_text(app)
    raw = RAW.search(text)
    assert raw is None, f"{raw.group()!r} reached the terminal in:\n{text}"
    return text


async def click_on(pilot: Pilot[Any], app: LuminApp, words: str, line_with: str = "") -> None:
    """Click the screen where ``words`` are drawn (their middle; on the first line that also
    holds ``line_with``)."""
    for y, line in enumerate(screen_text(app).splitlines()):
        x = line.find(words)
        if x >= 0 and line_with in line:
            await pilot.click(offset=(x + len(words) // 2, y))
            return
    raise AssertionError(f"{words!r} is not on the screen:\n{screen_text(app)}")


async def test_markup_in_names_shows_as_typed_and_runs_nothing(url: str) -> None:
    host = await LuminClient.connect(url, "[link=http://e.vil]Ann")
    zap = await LuminClient.connect(url, "[@click=app.quit]zap")
    closer = await LuminClient.connect(url, "[/]")
    app = LuminApp(url, "[b]Ada[/b]")  # her own name, on the status line
    try:
        async with app.run_test(size=(160, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            room = await host.create_room("flip_over_frog", seats=[human()] * 3, sit=0)
            await zap.join(room, 1)
            await closer.join(room, 2)
            seats = "[link=http://e.vil]Ann, [@click=app.quit]zap, [/]"
            await until(pilot, lambda: seats in screen_text(app), "the names in the lobby")
            assert "[[b]Ada[/b]: online]" in shown_as_text(app)
            await click_on(pilot, app, "zap, [/]")  # on the name that holds an action
            await pilot.pause(0.2)
            assert app.is_running and app.return_code is None
            await pilot.press("w")
            await until(pilot, lambda: room_screen(app), "the room")
            await host.say(room, "[/] [@click=app.quit]quit [link=http://e.vil]here[/link]")
            said = "[/] [@click=app.quit]quit [link=http://e.vil]here[/link]"
            await until(pilot, lambda: said in screen_text(app), "the chat line as typed")
            text = shown_as_text(app)
            assert "2: [@click=app.quit]zap" in text and "3: [/]" in text  # seats from 1
            await click_on(pilot, app, "quit [link")
            await click_on(pilot, app, "2: [@click=app.quit]zap")
            await pilot.pause(0.2)
            assert app.is_running and app.return_code is None
    finally:
        for client in (host, zap, closer):
            await client.close()


async def test_a_leaderboard_of_names_with_markup(server: LuminServer, url: str) -> None:
    ann = await LuminClient.connect(url, "[/]")
    zap = await LuminClient.connect(url, "[@click=app.quit]zap")
    try:
        room = await play([ann, zap])
        await changes_of(ann, room)
    finally:
        await ann.close()
        await zap.close()
    app = LuminApp(url, "Cy")
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen), "a leaderboard")
        while "Flip Over Frog" not in screen_text(app):  # g: the next game's board
            await pilot.press("g")
            await until(pilot, lambda: "Leaderboard: " in screen_text(app), "the next board")
        await until(
            pilot,
            lambda: "[@click=app.quit]zap" in screen_text(app) and "[/]" in screen_text(app),
            "both names on the board as typed",
        )
        shown_as_text(app)
        await click_on(pilot, app, "[@click=app.quit]zap")
        await pilot.pause(0.2)
        assert app.is_running and app.return_code is None


async def test_a_hostile_servers_escapes_never_reach_the_terminal() -> None:
    async with hostile_server() as url:
        app = LuminApp(url, "Ada")
        async with app.run_test(size=(300, 40)) as pilot:
            await until(pilot, lambda: "r-evil" in screen_text(app), "the hostile room")
            lobby = shown_as_text(app)
            assert f"Eve{EVIL_SHOWN}" in lobby and "r-evil␛[5m" in lobby  # a name, the room id
            await pilot.press("w")
            await until(pilot, lambda: f"hello{EVIL_SHOWN}" in screen_text(app), "the chat")
            room = shown_as_text(app)
            assert f"Eve{EVIL_SHOWN}:" in room and f"hello{EVIL_SHOWN}" in room  # chat
            assert "r-evil␛[5m" in room and "evil␛[8m" in room  # the heading: room, game
            assert f"2: Bot{EVIL_SHOWN} (kind{EVIL_SHOWN} bot)" in room  # the seats
            assert "field␛]8;;http://evil.example/" in room  # the board's view
            # A chat line (ready would not apply to a spectator): refused in hostile words.
            await pilot.press("t", *"hi", "enter")
            await until(pilot, lambda: f"Refused: {EVIL_SHOWN}" in screen_text(app), "refusal")
            shown_as_text(app)
            await click_on(pilot, app, "[@click=app.quit]q", line_with="Refused: ")
            await pilot.pause(0.2)
            assert app.is_running and app.return_code is None


def test_control_characters_are_drawn_one_for_one_and_styles_stay_in_place() -> None:
    assert visible("Ada\x1b[2J\x07\x7f\x9b\u202e\u2028\n") == "Ada␛[2J␇␡���␊"
    assert visible("a\nb\tc", lines=True) == "a\nb␉c"
    assert visible("Zoë 🎲 [/]") == "Zoë 🎲 [/]"  # printable text, markup included, as it is
    text = Text("x\x1bred\n")
    text.stylize("red", 2, 5)
    shown = safe(text)
    assert shown.plain == "x␛red\n" and text.plain == "x\x1bred\n"  # a copy
    assert [(span.start, span.end, span.style) for span in shown.spans] == [(2, 5, "red")]
