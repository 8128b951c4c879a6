"""``lumin play``: whole games of Neon Flip by key presses, Classic against a server bot and
solo against PROTO-ZERO (the grid, previews, cascades, PROTO-ZERO's turns)."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from clients.terminal.app import LuminApp
from tests.terminal.drive import (
    create_room,
    log_pane,
    play_out,
    room_screen,
    save_shot,
    screen_text,
    start_game,
    state,
    until,
)


async def end_turn_by_key(pilot: Pilot[Any], app: LuminApp, room: str) -> None:
    """In the main phase with no cascade pending, end the turn with ``e`` and wait for the
    next turn of ours (the bots' or PROTO-ZERO's turns come between), or for the discards a
    hand over its limit asks first (the game's own loop plays them)."""
    client = app.client
    assert client is not None
    view = client.view(room)
    if view["phase"] != "main" or view.get("pending_cascade"):
        return
    turns = view["turns"]
    await pilot.press("e")
    await until(
        pilot,
        lambda: (
            state(app, room) == "finished"
            or client.view(room)["turns"] > turns
            or client.view(room)["phase"] == "discard"
        ),  # too many cards: the discards come first
        "the turn ended",
    )
    await until(
        pilot, lambda: state(app, room) == "finished" or client.legal(room), "our next turn"
    )


async def buy_first(pilot: Pilot[Any], app: LuminApp, room: str) -> None:
    """Keep the command list filtered to ``buy`` while a card can be bought (each buy refills
    the market from the draw pile, so the round, and the game, end sooner); clear the filter
    otherwise."""
    client = app.client
    screen = room_screen(app)
    assert client is not None and screen is not None
    buys = any(entry["type"] == "buy_card" for entry in client.legal(room))
    if buys and screen.filter_text != "buy":
        await pilot.press("slash", *"buy", "enter")
        await until(pilot, lambda: screen.shown and screen.shown[0].type == "buy_card", "buys")
    elif not buys and screen.filter_text:
        await pilot.press("escape")
        await until(pilot, lambda: not screen.filter_text, "the filter cleared")


async def test_a_whole_neon_flip_classic_game_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(
            pilot, app, "neon_flip", {"option:rounds": 1, "seat:1": "bot: easy"}
        )
        await start_game(pilot, app, room)
        client = app.client
        assert client is not None

        async def turn(n: int) -> None:
            view = client.view(room)
            if n == 2 and view["phase"] == "main" and not view.get("pending_cascade"):
                # / filters the command list by its words; escape clears the filter.
                screen = room_screen(app)
                assert screen is not None
                await pilot.press("slash", *"end turn", "enter")
                await until(pilot, lambda: len(screen.shown) == 1, "the filtered list")
                assert screen.board.describe(screen.shown[0], screen.context()) == "end turn"
                await pilot.press("escape")
                await until(pilot, lambda: len(screen.shown) > 1, "the whole list again")
            if n == 6:
                save_shot(app, "neon-flip")
            if client.view(room).get("pending_cascade"):
                assert "CASCADE" in screen_text(app)
            await buy_first(pilot, app, room)

        await play_out(pilot, app, room, turn)
        await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
        save_shot(app, "neon-flip-over")


async def test_a_whole_neon_flip_solo_game_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(pilot, app, "neon_flip", {"option:mode": "solo"})
        await start_game(pilot, app, room)
        client = app.client
        assert client is not None
        assert "PROTO-ZERO (standard)" in screen_text(app)

        async def turn(n: int) -> None:
            if n > 3:
                await end_turn_by_key(pilot, app, room)  # PROTO-ZERO plays its card
            if n == 8:
                save_shot(app, "neon-flip-solo")

        await play_out(pilot, app, room, turn)
        await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
        assert client.view(room)["proto_zero"]["played"]
        lines = log_pane(app)
        assert any(line.startswith("· PROTO-ZERO played a card: ") for line in lines), lines
        assert any(line == "· You ended the turn." for line in lines), lines
        save_shot(app, "neon-flip-solo-over")


async def test_a_whole_neon_flip_overdrive_game_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(
            pilot,
            app,
            "neon_flip",
            {"option:mode": "overdrive", "option:rounds": 1, "seat:1": "bot: easy"},
        )
        await start_game(pilot, app, room)
        client = app.client
        assert client is not None
        await until(pilot, lambda: "to end it" in screen_text(app), "the threshold")

        async def turn(n: int) -> None:
            await buy_first(pilot, app, room)

        await play_out(pilot, app, room, turn)
        await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
        save_shot(app, "neon-flip-overdrive-over")
