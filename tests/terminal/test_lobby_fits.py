"""``lumin play``'s lobby at 80 x 24: every column and a finished game's whole result fit,
and the footer lists the keys that apply, Leaderboards, help and how to quit among them."""

from __future__ import annotations

from clients.sdk import LuminClient, bot, human
from clients.terminal.app import LuminApp
from tests.terminal.drive import save_shot, screen_text, until
from tests.terminal.test_watch_and_replay import _finished_game


def _lines(app: LuminApp) -> list[str]:
    return screen_text(app).splitlines()


async def test_the_lobby_fits_80_by_24(url: str) -> None:
    host, finished = await _finished_game(url)
    other = await LuminClient.connect(url, "Bartholomew")
    try:
        live = await other.create_room(
            "neon_hex", seats=[human(), bot("easy"), bot("medium"), human()], sit=0
        )
        app = LuminApp(url, "Ada")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: live in screen_text(app), "the live room highlighted")
            footer = await until(
                pilot, lambda: "Quit" in _lines(app)[-1] and _lines(app)[-1], "keys"
            )
            for key in ("c Create", "j Join", "w Watch", "b Leaderboards", "? Help", "^q Quit"):
                assert key in footer, footer
            assert "Replay" not in footer  # the highlighted room is not finished
            heading = next(line for line in _lines(app) if "state or result" in line)
            assert heading.split() == ["game", "state", "or", "result", "seats", "watch"]
            await pilot.press("down")  # the finished game
            await until(pilot, lambda: finished in screen_text(app), "the finished game")
            summary = app.client.room_info.get(finished) if app.client else None
            row = next(line for line in _lines(app) if "Flip Over Frog" in line)
            assert "won · " in row or "tied · " in row or "shared the win · " in row, row
            assert "just now" in row or "min ago" in row, row  # the whole result, uncut
            await until(pilot, lambda: "r Replay" in _lines(app)[-1], "Replay in the footer")
            assert all(len(line.rstrip()) <= 80 for line in _lines(app))
            save_shot(app, "lobby-80x24")
            del summary
    finally:
        await host.close()
        await other.close()
