"""``lumin play`` reconnects and resumes on its own: the server restarts mid-game (same port
and data folder), the screen says so in words, and the game goes on by key presses to its
end."""

from __future__ import annotations

import attrs

from clients.sdk import LobbyListed, LuminClient, human
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


async def test_the_lobby_keeps_updating_after_the_server_restarts(settings: Settings) -> None:
    first = LuminServer(settings)
    await first.start()
    port = first.port
    url = f"ws://127.0.0.1:{port}/ws"
    again: LuminServer | None = None
    app = LuminApp(url, "Ada")
    try:
        async with app.run_test(size=(100, 24)) as pilot:
            host = await LuminClient.connect(url, "Host", give_up=0)
            before = await host.create_room("flip_over_frog", seats=[human(), human()], sit=0)
            await until(pilot, lambda: before in screen_text(app), "the room in the lobby")
            await host.close()
            await first.stop()
            await until(pilot, lambda: "RECONNECTING" in screen_text(app), "the reconnecting")
            again = LuminServer(attrs.evolve(settings, port=port))
            await again.start()
            client = app.client
            assert client is not None
            await until(pilot, lambda: client.online, "online again")
            listed: list[object] = []

            def lobby_listed() -> bool:
                while not client.events.empty():
                    listed.append(client.events.get_nowait())
                return any(isinstance(event, LobbyListed) for event in listed)

            await until(pilot, lobby_listed, "the lobby listed again (a LobbyListed event)")
            # A room made on the restarted server reaches the lobby by lobby_update.
            host = await LuminClient.connect(url, "Host")
            after = await host.create_room("flip_over_frog", seats=[human(), human()], sit=0)
            await until(pilot, lambda: after in screen_text(app), "the new room in the lobby")
            await host.close()
    finally:
        if again is not None:
            await again.stop()
        else:
            await first.stop()
