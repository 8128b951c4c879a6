"""``lumin play`` says which server it is connected to: the lobby's heading and each room's."""

from __future__ import annotations

from urllib.parse import urlsplit

from clients.terminal.app import LuminApp
from tests.terminal.drive import create_room, screen_text, until


async def test_the_headings_name_the_server(url: str) -> None:
    at = urlsplit(url).netloc
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: f"Lumin lobby on {at}:" in screen_text(app), "the server")
        await create_room(pilot, app, "flip_over_frog", {"seat:1": "bot: easy"})
        heading = screen_text(app).splitlines()[0]
        assert heading.rstrip().endswith(f"| on {at}"), heading
