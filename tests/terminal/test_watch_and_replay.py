"""``lumin play`` by key presses: watching a live game as a spectator (spectator chat, no
commands), replaying it (step, seek, every seat's view), the lobby, and a private room joined
by its code."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from clients.sdk import LuminClient, bot, human
from clients.terminal.app import LuminApp
from clients.terminal.replay import ReplayScreen
from tests.server.test_play import play_seat
from tests.terminal.drive import create_room, room_screen, save_shot, screen_text, state, until


async def test_watch_a_live_game_then_replay_it_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(
            pilot,
            app,
            "flash8",
            {
                "option:time_limit": 8,
                "option:countdown": 0,
                "seat:0": "bot: fast",
                "seat:1": "bot: bot",
                "sit": "watch",
            },
        )
        await until(pilot, lambda: "watching" in screen_text(app), "the spectator's header")
        # A room with no human seat starts by itself.
        await until(pilot, lambda: state(app, room) == "playing", "the game started")
        await until(pilot, lambda: "Cards as printed" in screen_text(app), "the public board")
        save_shot(app, "flash8-spectator")
        client = app.client
        assert client is not None and client.legal(room) == []
        await pilot.press("f")
        await until(pilot, lambda: "You are watching." in screen_text(app), "a refusal in words")
        await pilot.press("t", *"hello all", "enter")
        await until(pilot, lambda: "(spectators) Ada: hello all" in screen_text(app), "chat")
        await until(pilot, lambda: state(app, room) == "finished", "the end of the race", 30)
        await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")

        await pilot.press("escape")
        await until(
            pilot,
            lambda: room in screen_text(app) and "finished" in screen_text(app),
            "the finished game in the lobby",
        )
        save_shot(app, "lobby")
        await pilot.press("r")
        replay = await until(
            pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen, "the replay"
        )
        await until(pilot, lambda: replay.state is not None, "the replay's first state")
        assert replay.state.position == 0 and replay.state.viewer is None
        await pilot.press("right", "right")
        await until(pilot, lambda: replay.state.position == 2, "two steps on")
        await pilot.press("left")
        await until(pilot, lambda: replay.state.position == 1, "a step back")
        await pilot.press("end")
        await until(pilot, lambda: replay.state.position == replay.state.length, "the end")
        assert "GAME OVER" in screen_text(app)
        assert "The game is over." in screen_text(app)  # the move log, beside the board
        await pilot.press("g", "3", "enter")
        await until(pilot, lambda: replay.state.position == 3, "a seek to step 3")
        await pilot.press("v")
        await until(pilot, lambda: replay.state.viewer == 0, "seat 0's view")
        assert "Your tablet" in screen_text(app)
        # Seen from seat 0, the log still names seat 0 by its name: a replay has no "You".
        said = str(replay.query_one("#log").render())
        assert "The race started." in said and "You" not in said, said
        await pilot.press("v")
        await until(pilot, lambda: replay.state.viewer == 1, "seat 1's view")
        assert f"step 3 of {replay.state.length}" in screen_text(app)
        save_shot(app, "replay")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen.query("DataTable"), "the lobby again")


async def test_a_private_room_is_joined_by_its_code(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(pilot, app, "flip_over_frog", {"private": "yes"})
        client = app.client
        assert client is not None
        code = client.codes[room]
        await until(pilot, lambda: f"its code is {code}" in screen_text(app), "the code")
        assert "private" in screen_text(app)
        await pilot.press("escape")  # leave the waiting room: the lobby does not list it
        await until(pilot, lambda: app.screen.query("DataTable"), "the lobby")
        await until(pilot, lambda: room not in client.conn.views, "the room left")
        assert room not in screen_text(app)
        await pilot.press("i")  # the token that brings this identity back
        await until(pilot, lambda: f"--token {client.token}" in screen_text(app), "the token")
        await pilot.press("p", *f"{room} {code}", "enter")
        await until(pilot, lambda: f"Private room {room}" in screen_text(app), "what to do")
        await pilot.press("enter")  # take a seat
        await until(pilot, lambda: "Take which seat" in screen_text(app), "the seat list")
        await pilot.press("enter")  # seat 0
        screen = await until(pilot, lambda: room_screen(app), "the room")
        assert screen.room == room
        await until(pilot, lambda: "you: seat 1" in screen_text(app), "the seat taken")


async def test_escape_from_a_live_game_one_watches_stops_watching_it(server, url: str) -> None:
    host = await LuminClient.connect(url, "Host")
    try:
        room = await host.create_room("flip_over_frog", seats=[human(), bot("easy")], sit=0)
        await host.ready(room)
        await host.start(room)  # the host never moves: the game stays under way
        app = LuminApp(url, "Ada")
        async with app.run_test(size=(100, 24)) as pilot:
            await until(pilot, lambda: room in screen_text(app), "the room in the lobby")
            await pilot.press("w")
            await until(pilot, lambda: room_screen(app), "the room, watched")
            client = app.client
            assert client is not None and state(app, room) == "playing"
            live = server.hub.rooms[room]
            await until(pilot, lambda: _watches(live, client.user), "Ada among the spectators")
            await pilot.press("escape")
            await until(pilot, lambda: not room_screen(app), "back in the lobby")
            await until(pilot, lambda: not _watches(live, client.user), "Ada no longer watching")
            await until(pilot, lambda: room not in client.room_info, "the room's summary dropped")
            assert room not in client.conn.views and room not in client._changed
    finally:
        await host.close()


def _watches(room: Any, user: str) -> bool:
    return any(peer.user == user for peer in room.peers)


async def test_a_spectator_presses_m_to_watch_the_rematch(url: str) -> None:
    host = await LuminClient.connect(url, "Host")
    try:
        room = await host.create_room("flip_over_frog", seats=[human(), bot("easy")], sit=0)
        app = LuminApp(url, "Ada")
        async with app.run_test(size=(100, 24)) as pilot:
            await until(pilot, lambda: room in screen_text(app), "the room in the lobby")
            await pilot.press("w")
            await until(pilot, lambda: room_screen(app), "the room, watched")
            await host.ready(room)
            await host.start(room)
            await play_seat(host, room, random.Random(3), "flip_over_frog")
            await until(pilot, lambda: state(app, room) == "finished", "the end of the game")
            again = await host.rematch(room)
            await until(pilot, lambda: "press m" in screen_text(app), "the rematch offered")
            await pilot.press("m")
            await until(
                pilot,
                lambda: (screen := room_screen(app)) is not None and screen.room == again,
                "the rematch room, watched",
            )
            assert app.client is not None and app.client.legal(again) == []
    finally:
        await host.close()


async def _finished_game(url: str, private: bool = False) -> tuple[LuminClient, str]:
    """A Flip Over Frog game played to its end by a host against a bot."""
    host = await LuminClient.connect(url, "Host")
    room = await host.create_room(
        "flip_over_frog", seats=[human(), bot("easy")], sit=0, private=private
    )
    await host.ready(room)
    await host.start(room)
    await play_seat(host, room, random.Random(5), "flip_over_frog")
    return host, room


async def test_v_in_a_private_rooms_replay_shows_each_seats_view(url: str) -> None:
    host, room = await _finished_game(url, private=True)
    try:
        app = LuminApp(url, "Ada")
        async with app.run_test(size=(100, 24)) as pilot:
            await until(pilot, lambda: "lobby" in screen_text(app), "the lobby")
            await pilot.press("p", *f"{room} {host.codes[room]}", "enter")
            await until(pilot, lambda: "Private room" in screen_text(app), "what to do")
            await pilot.press("down", "down", "enter")  # replay
            replay = await until(
                pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen, "the replay"
            )
            await until(pilot, lambda: replay.state is not None, "the replay's first state")
            assert replay.state.viewer is None and replay.seats == 2
            await pilot.press("v")
            await until(pilot, lambda: replay.state.viewer == 0, "seat 0's view")
            await pilot.press("v")
            await until(pilot, lambda: replay.state.viewer == 1, "seat 1's view")
    finally:
        await host.close()


async def test_a_replay_left_before_it_opens_is_closed_and_one_lost_is_reopened(
    server, url: str
) -> None:
    host, room = await _finished_game(url)
    try:
        app = LuminApp(url, "Ada")
        async with app.run_test(size=(100, 24)) as pilot:
            await until(pilot, lambda: room in screen_text(app), "the game in the lobby")
            client = app.client
            assert client is not None
            gate = asyncio.Event()
            opened: list[str] = []
            closed: list[str] = []
            open_replay, close_replay = client.open_replay, client.close_replay

            async def slow_open(*args: Any, **kwargs: Any) -> Any:
                await gate.wait()
                state = await open_replay(*args, **kwargs)
                opened.append(state.replay)
                return state

            async def spy_close(replay: str) -> None:
                await close_replay(replay)
                closed.append(replay)

            client.open_replay = slow_open  # type: ignore[method-assign]
            client.close_replay = spy_close  # type: ignore[method-assign]
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
            await pilot.press("escape")  # before it opened
            await until(pilot, lambda: not isinstance(app.screen, ReplayScreen), "the lobby")
            gate.set()
            await until(pilot, lambda: opened and closed == opened, "the late replay closed")

            await pilot.press("r")  # again, and the connection drops while it is open
            replay = await until(
                pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen, "the replay"
            )
            await until(pilot, lambda: replay.state is not None, "the replay's first state")
            await pilot.press("right")
            await until(pilot, lambda: replay.state.position == 1, "a step on")
            first = client.conn
            for socket in list(server.server.connections):
                socket.transport.abort()
            await until(pilot, lambda: client.conn is not first and client.online, "reconnected")
            await pilot.press("right")
            await until(pilot, lambda: replay.state.position == 2, "a step on, reopened")
            assert len(opened) == 3 and replay.state.replay == opened[-1]
    finally:
        await host.close()


@pytest.mark.parametrize(
    ("game", "key"), [("neon_hex", "e"), ("neon_flip", "e"), ("neon_flip", "x")]
)
async def test_a_boards_acting_key_tells_a_spectator_they_watch(
    url: str, game: str, key: str
) -> None:
    host = await LuminClient.connect(url, "Host")
    try:
        room = await host.create_room(game, seats=[human(), bot()], sit=0)
        app = LuminApp(url, "Ada")
        async with app.run_test(size=(100, 24)) as pilot:
            await until(pilot, lambda: room in screen_text(app), "the room in the lobby")
            await pilot.press("w")
            screen = await until(pilot, lambda: room_screen(app), "the room, watched")
            await until(pilot, lambda: screen.board.game == game, "the game's board")
            await pilot.press(key)
            await until(pilot, lambda: "You are watching." in screen_text(app), "the sentence")
    finally:
        await host.close()
