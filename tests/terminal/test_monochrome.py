"""``lumin play`` without colour (``NO_COLOR``): the board says in words and letters what
colour would show (owners, turn, odds)."""

from __future__ import annotations

import pytest

from clients.terminal.app import LuminApp
from tests.terminal.drive import create_room, save_shot, screen_text, start_game, until


async def test_neon_hex_reads_in_monochrome(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = LuminApp(url, "Ada")
    assert app.no_color and not app.colour
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(pilot, app, "neon_hex", {"seat:1": "bot: easy"})
        await start_game(pilot, app, room)
        client = app.client
        assert client is not None
        await until(pilot, lambda: client.legal(room), "our first turn")
        text = screen_text(app)
        view = client.view(room)
        homes = {f["seat"]: f["home"] for f in view["factions"]}
        assert f"{homes[0]:>2}A" in text and f"{homes[1]:>2}B" in text  # owners by letter
        assert "YOUR TURN" in text and ">A Ada (you)" in text
        assert "9+ succeeds: 10/36 (28%)" in text
        save_shot(app, "neon-hex-monochrome")
