"""``lumin play``: a whole game of Neon Hex by key presses against a server bot, with Risk
rolls (odds and dice on the board)."""

from __future__ import annotations

import re

from clients.terminal.app import LuminApp
from tests.terminal.drive import (
    create_room,
    log_pane,
    play_out,
    save_shot,
    screen_text,
    start_game,
    until,
)


async def test_a_whole_neon_hex_game_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(pilot, app, "neon_hex", {"seat:1": "bot: easy"})
        await start_game(pilot, app, room)
        assert "9+ succeeds: 10/36" in screen_text(app)

        async def turn(n: int) -> None:
            if n < 2:
                await pilot.press("down")  # the second entry: a Risk expansion
                assert "Risk on hex" in screen_text(app)
            if n == 2:
                save_shot(app, "neon-hex")

        sent = await play_out(pilot, app, room, turn)
        assert sent >= 2
        await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
        assert "Last roll:" in screen_text(app)
        await until(pilot, lambda: "· The game is over." in log_pane(app), "the log's end")
        lines = log_pane(app)
        assert any(re.match(r"^· Turn \d+: You to play, \+\d+ ⚡\.$", line) for line in lines)
        assert any(line.startswith("· Easy bot 2 ") for line in lines), lines
        # Our Risk rolls in words: the dice, their total and the hex.
        assert any(re.match(r"^· You rolled \d \+ \d = \d+: ", line) for line in lines), lines
        save_shot(app, "neon-hex-over")
