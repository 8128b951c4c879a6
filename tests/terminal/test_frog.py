"""``lumin play``: a whole game of Flip Over Frog by key presses against a server bot."""

from __future__ import annotations

from clients.terminal.app import LuminApp
from tests.terminal.drive import create_room, room_screen, save_shot, screen_text, state, until


async def test_a_whole_frog_game_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(pilot, app, "flip_over_frog", {"seat:1": "bot: easy"})
        await pilot.press("r")
        await until(pilot, lambda: "Ada [ready]" in screen_text(app), "the seat ready")
        await pilot.press("s")
        await until(pilot, lambda: state(app, room) == "playing", "the game started")
        client = app.client
        assert client is not None
        shot = False
        while state(app, room) != "finished":
            await until(
                pilot,
                lambda: client.legal(room) or state(app, room) == "finished",
                "a turn of ours or the end",
            )
            if state(app, room) == "finished":
                break
            if not shot and client.view(room)["plays"] >= 4:
                await pilot.press("down", "down")
                save_shot(app, "frog")
                shot = True
            before = client.seq(room)
            await pilot.press("enter")  # the highlighted command: a legal play
            await until(
                pilot,
                lambda before=before: client.seq(room) != before or state(app, room) == "finished",
                "our play applied",
            )
        await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
        text = screen_text(app)
        assert "Winner:" in text
        save_shot(app, "frog-over")
        assert room_screen(app) is not None
