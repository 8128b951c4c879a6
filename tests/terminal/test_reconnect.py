"""``lumin play`` reconnects and resumes on its own: the server restarts mid-game (same port
and data folder), the screen says so in words, and the game goes on by key presses to its
end."""

from __future__ import annotations

import attrs

from clients.terminal.app import LuminApp
from server.app import LuminServer
from server.config import Settings
from tests.terminal.drive import create_room, play_out, screen_text, start_game, until


async def test_the_terminal_resumes_a_game_after_the_server_restarts(settings: Settings) -> None:
    settings = attrs.evolve(settings, grace=60.0)  # no bot takes the seat while it is away
    first = LuminServer(settings)
    await first.start()
    port = first.port
    again: LuminServer | None = None
    app = LuminApp(f"ws://127.0.0.1:{port}/ws", "Ada")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            room = await create_room(pilot, app, "flip_over_frog", {"seat:1": "bot: easy"})
            await start_game(pilot, app, room)
            client = app.client
            assert client is not None
            await until(pilot, lambda: client.legal(room), "our first turn")
            seq, epoch = client.seq(room), client.conn.views[room].epoch
            await first.stop()
            await until(pilot, lambda: "RECONNECTING" in screen_text(app), "the reconnecting")
            again = LuminServer(attrs.evolve(settings, port=port))
            await again.start()
            await until(
                pilot,
                lambda: client.online and client.conn.views[room].epoch != epoch,
                "the room resumed after the restart",
            )
            await until(pilot, lambda: "online" in screen_text(app), "online again")
            assert client.seq(room) == seq and client.legal(room)
            await play_out(pilot, app, room)
            await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
    finally:
        if again is not None:
            await again.stop()
        else:
            await first.stop()
