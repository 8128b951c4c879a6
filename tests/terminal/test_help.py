"""``lumin play``'s help key: ``?`` or F1 opens the game's how-to (the browser's text) and the
keys that apply now, in a room and in the lobby."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from clients.terminal.app import LuminApp
from clients.terminal.help import HelpScreen
from clients.terminal.howto import how_tos
from tests.terminal.drive import create_room, save_shot, screen_text, start_game, until

BROWSER = Path(__file__).parents[2] / "clients/web/src/app/howto_content.ts"


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def test_the_how_to_is_the_browsers_text_word_for_word() -> None:
    source = BROWSER.read_text(encoding="utf-8")
    pages = how_tos()
    assert [page["id"] for page in pages] == ["flip_over_frog", "neon_hex", "flash8", "neon_flip"]
    for text in _strings(list(pages)):
        assert json.dumps(text, ensure_ascii=False) in source, text


def _help(app: LuminApp) -> HelpScreen | None:
    return app.screen if isinstance(app.screen, HelpScreen) else None


def _help_text(app: LuminApp) -> str:
    screen = _help(app)
    assert screen is not None
    return str(screen.query_one("#howto-text").render())


async def test_help_in_a_room_shows_the_how_to_and_the_keys_that_apply_now(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(pilot, app, "flip_over_frog", {"seat:1": "bot: easy"})
        await pilot.press("question_mark")
        await until(pilot, lambda: _help(app), "the help screen")
        assert "How to play Flip Over Frog" in screen_text(app)
        save_shot(app, "help")
        said = _help_text(app)
        assert "Each player is dealt one secret frog colour" in said  # the browser's Goal
        assert "click it" not in said  # the browser's own "Playing it here" is left out
        assert "Enter plays it." in said  # the terminal's instead
        keys = said[said.index("Keys now") :]
        assert " r " in keys and "ready" in keys and " s " in keys and "start the game" in keys
        assert "rematch" not in keys  # no finished game to rematch
        await pilot.press("escape")
        await until(pilot, lambda: not _help(app), "the room again")
        await start_game(pilot, app, room)
        await pilot.press("f1")
        await until(pilot, lambda: _help(app), "the help screen again")
        keys = _help_text(app)[_help_text(app).index("Keys now") :]
        assert "ready" not in keys and "start the game" not in keys  # the game is under way
        assert "back to the lobby" in keys
        await pilot.press("right")  # the next game's page: its how-to, not this room's keys
        await until(pilot, lambda: "How to play Neon Hex" in _help_text(app), "Neon Hex's page")
        assert "Keys now" not in _help_text(app)
        await pilot.press("question_mark")
        await until(pilot, lambda: not _help(app), "the room again")


async def test_help_in_the_lobby_shows_a_how_to_and_the_lobby_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.screen.query("DataTable"), "the lobby")
        await pilot.press("question_mark")
        await until(pilot, lambda: _help(app), "the help screen")
        said = _help_text(app)
        assert "How to play Flip Over Frog" in said
        assert "create a room" in said and "quit lumin play" in said
        await pilot.press("left")
        await until(pilot, lambda: "How to play Neon Flip" in _help_text(app), "the last game")
