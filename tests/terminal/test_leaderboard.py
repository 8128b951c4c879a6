"""``lumin play``'s leaderboards: after rated games over the network, ``b`` in the lobby shows
Flip Over Frog's board (rank, name, rating, games) as ``GET /leaderboard`` has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients.sdk import LuminClient
from clients.terminal.app import LuminApp
from server.app import LuminServer
from server.config import Settings
from tests.server.conftest import TEST_LIMITS
from tests.server.test_ratings import changes_of, http, play
from tests.terminal.drive import save_shot, screen_text, until


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        port=0, data=tmp_path / "data", bot_delay=0.0, grace=0.2, leaderboard_games=1,
        **TEST_LIMITS,
    )  # fmt: skip


async def test_the_lobby_shows_a_games_leaderboard(server: LuminServer, url: str) -> None:
    ada, bea = await LuminClient.connect(url, "Ada"), await LuminClient.connect(url, "Bea")
    try:
        room = await play([ada, bea])
        await changes_of(ada, room)
    finally:
        await ada.close()
        await bea.close()
    board = await http(server, "/leaderboard?game=flip_over_frog")
    assert {p["name"] for p in board["players"]} == {"Ada", "Bea"}
    app = LuminApp(url, "Cy")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "Lumin lobby" in screen_text(app), "the lobby")
        await pilot.press("b")
        await until(pilot, lambda: "Leaderboard: " in screen_text(app), "a leaderboard")
        while "Flip Over Frog" not in screen_text(app):  # g: the next game's board
            await pilot.press("g")
            await until(pilot, lambda: "Leaderboard: " in screen_text(app), "the next board")

        def both_listed() -> str | None:
            text = screen_text(app)
            return text if "Ada" in text and "Bea" in text else None

        text = await until(pilot, both_listed, "Ada and Bea on Flip Over Frog's board")
        for player in board["players"]:
            row = next(line for line in text.splitlines() if player["name"] in line)
            assert f"#{player['rank']}" in row and f"{player['rating']:.1f}" in row
            assert "1 game" in row
        save_shot(app, "leaderboard")
        await pilot.press("escape")
        await until(pilot, lambda: "Lumin lobby" in screen_text(app), "back in the lobby")
