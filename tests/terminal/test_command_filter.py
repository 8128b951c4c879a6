"""``lumin play``'s command filter: it matches words in any order, not a phrase, and a new
turn starts with the whole list (never an empty list under YOUR TURN)."""

from __future__ import annotations

from clients.terminal.app import LuminApp
from clients.terminal.room import filter_matches
from tests.terminal.drive import create_room, room_screen, screen_text, start_game, state, until


def test_the_filter_matches_words_not_a_phrase() -> None:
    assert filter_matches("R7x 5", "R7x on 5 flips 6")
    assert filter_matches("5 r7X", "R7x on 5")
    assert filter_matches("end turn", "end turn")
    assert filter_matches("", "anything")
    assert filter_matches("flip 14", "R2+ on 3 flips 14,2")
    assert not filter_matches("R7x 6", "R7x on 5")
    assert not filter_matches("R7x on 5", "R7x at 5")


async def test_a_filter_from_one_turn_is_gone_at_the_next(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(pilot, app, "neon_hex", {"seat:1": "bot: easy"})
        await start_game(pilot, app, room)
        client = app.client
        screen = room_screen(app)
        assert client is not None and screen is not None
        await until(pilot, lambda: client.legal(room) and screen.shown, "our first turn")
        everything = len(screen.shown)
        # Words of one command, in another order, find it.
        words = screen.board.describe(screen.shown[-1], screen.context()).split()
        await pilot.press("slash", *f"{words[-1]} {words[0]}", "enter")
        await until(pilot, lambda: screen.filter_text, "the filter")
        assert screen.shown and all(
            filter_matches(screen.filter_text, screen.board.describe(c, screen.context()))
            for c in screen.shown
        )
        # Filter for the end of the turn and send it: the bot plays, then our next turn.
        await pilot.press("escape")
        await until(pilot, lambda: len(screen.shown) == everything, "the whole list again")
        await pilot.press("slash", *"end turn", "enter")
        await until(pilot, lambda: len(screen.shown) == 1, "end turn alone")
        before = client.seq(room)
        await pilot.press("enter")
        await until(pilot, lambda: client.seq(room) != before, "the turn ended")
        await until(pilot, lambda: client.legal(room) and screen.shown, "our next turn")
        assert state(app, room) == "playing"  # two turns never end a game of Neon Hex
        assert screen.filter_text == "" and len(screen.shown) > 1
        assert "YOUR TURN" in screen_text(app)
