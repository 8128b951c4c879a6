"""``lumin play``: a whole game of Flip Over Frog by key presses against a server bot, then a
rematch."""

from __future__ import annotations

import re

from clients.terminal.app import LuminApp
from tests.terminal.drive import (
    create_room,
    log_pane,
    room_screen,
    save_shot,
    screen_text,
    state,
    until,
)

#: A Frog or Snake play as the move log says it, places counted from 1.
PLAY = re.compile(
    r"^· (You|Easy bot 2) played (\w+ Frog \S+ on space ([1-9]|1[0-6]), flipping "
    r"(nothing|\d+ tiles? \(([1-9]|1[0-6])(, ([1-9]|1[0-6]))*\))"
    r"|Snake \S+ on space ([1-9]|1[0-6]), taking \w+ Frog \S+ off the board)\.$"
)


async def test_a_whole_frog_game_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(pilot, app, "flip_over_frog", {"seat:1": "bot: easy"})
        await pilot.press("r")
        await until(pilot, lambda: "Ada [ready]" in screen_text(app), "the seat ready")
        await pilot.press("s")
        await until(pilot, lambda: state(app, room) == "playing", "the game started")
        # Seats count from 1, a bot is named as the browser names it, plays read as words.
        text = screen_text(app)
        assert "you: seat 1" in text and "*1: Ada" in text and " 2: Easy bot 2" in text, text
        assert "bot (easy)" not in text
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
        # The move log said every play in words, the bot's and ours, and the end.
        await until(pilot, lambda: "· The game is over." in log_pane(app), "the log's end")
        lines = log_pane(app)
        plays = [line for line in lines if PLAY.match(line)]
        assert any(line.startswith("· You played") for line in plays), lines
        assert any(line.startswith("· Easy bot 2 played") for line in plays), lines
        assert any(re.match(r"^· You drew [RGBY]\d", line) for line in lines), lines
        assert "· Easy bot 2 drew a tile." in lines  # never the tile a bot drew
        text = screen_text(app)
        assert "Winner:" in text
        # The ending is said in words (flip-over-frog.decisions 9), never as its id.
        assert "No tiles are left to play." in text or "The board is full." in text
        assert "tiles_exhausted" not in text and "board_full" not in text
        save_shot(app, "frog-over")
        # m asks for a rematch and takes the same seat in the new room.
        await pilot.press("m")
        again = await until(
            pilot,
            lambda: (screen := room_screen(app)) is not None and screen.room != room and screen,
            "the rematch room",
        )
        await until(
            pilot,
            lambda: "waiting" in screen_text(app) and "you: seat 1" in screen_text(app),
            "our seat in the rematch",
        )
        assert client.room_info[again.room].seats[0].user == client.user
