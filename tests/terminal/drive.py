"""Driving ``lumin play`` in tests: the app under Textual's pilot, key presses only, and waits
for what the screen shows (never for a fixed time)."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.pilot import Pilot

from clients.terminal.app import LuminApp
from clients.terminal.room import RoomScreen

__all__ = [
    "SHOTS",
    "create_room",
    "log_pane",
    "play_out",
    "room_screen",
    "save_shot",
    "screen_text",
    "start_game",
    "state",
    "until",
]

#: Where the tests leave text and SVG captures of each board (docs/terminal.md).
SHOTS = Path(os.environ.get("LUMIN_TERM_SHOTS", "/tmp/lumin-term-shots"))


async def until(pilot: Pilot[Any], check: Callable[[], Any], what: str, limit: float = 60) -> Any:
    """Let the app run until ``check()`` is true (returns it); fails naming ``what`` after
    ``limit`` seconds (a bound for a broken run, not a measure), with what the screen shows."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while True:
        result = check()
        if result:
            return result
        if loop.time() > deadline:
            shown = screen_text(pilot.app) if isinstance(pilot.app, LuminApp) else ""
            raise AssertionError(f"the terminal never showed {what}; it shows:\n{shown}")
        await pilot.pause(0.02)


def room_screen(app: LuminApp) -> RoomScreen | None:
    screen = app.screen
    return screen if isinstance(screen, RoomScreen) else None


def state(app: LuminApp, room: str) -> str | None:
    assert app.client is not None
    summary = app.client.room_info.get(room)
    return None if summary is None else summary.state


async def create_room(pilot: Pilot[Any], app: LuminApp, game: str, rows: dict[str, Any]) -> str:
    """From the lobby, create a room of ``game`` by keys: ``c``, right until the game shows,
    then for each row key (``option:mode``, ``seats``, ``seat:1``...) the keys that set it:
    a value to reach by pressing right, or a number typed. Returns the room id."""
    from clients.terminal.create import RoomForm

    await until(pilot, lambda: app.screen.query("DataTable"), "the lobby")
    await pilot.press("c")
    form = await until(pilot, lambda: _form(app), "the create form")
    for _ in range(len(form.games)):
        if form.game.id == game:
            break
        await pilot.press("right")
    assert form.game.id == game
    for key, value in rows.items():
        await _go_to_row(pilot, form, key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            await pilot.press(*str(value))
        else:
            for _ in range(20):
                if form.rows()[form.row].value == value:
                    break
                await pilot.press("right")
            assert form.rows()[form.row].value == value, (key, form.rows()[form.row])
    await _go_to_row(pilot, form, "create")
    await pilot.press("enter")
    screen = await until(pilot, lambda: room_screen(app), "the new room")
    assert isinstance(form, RoomForm)
    return screen.room


def _form(app: LuminApp) -> Any:
    found = app.screen.query("RoomForm")
    return found.first() if found else None


async def _go_to_row(pilot: Pilot[Any], form: Any, key: str) -> None:
    for _ in range(len(form.rows()) + 1):
        if form.rows()[form.row].key == key:
            return
        await pilot.press("down")
    raise AssertionError(f"the form has no row {key!r}")


def log_pane(app: LuminApp) -> list[str]:
    """The move log's sentences in the room's log and chat pane (all of them, as it scrolls),
    each ``"· ..."`` whole again where the pane wrapped it (a test's room has no chat)."""
    from textual.widgets import RichLog

    text = " ".join(line.text.strip() for line in app.screen.query_one("#chat", RichLog).lines)
    return ["· " + " ".join(part.split()) for part in text.split("· ")[1:]]


def save_shot(app: LuminApp, name: str) -> Path:
    """Save the screen as SVG and as plain text under :data:`SHOTS`; returns the text file."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    app.save_screenshot(f"{name}.svg", path=str(SHOTS))
    text = SHOTS / f"{name}.txt"
    text.write_text(screen_text(app))
    return text


def screen_text(app: LuminApp) -> str:
    """The screen as plain text, row by row (what a monochrome terminal shows). Drawn the way
    Textual's own ``export_screenshot`` draws its SVG (through the screen's compositor), into
    a console that records text instead."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


async def start_game(pilot: Pilot[Any], app: LuminApp, room: str) -> None:
    """Ready (``r``) and start (``s``) a room whose other seats are bots."""
    await pilot.press("r")
    await until(pilot, lambda: "[ready]" in screen_text(app), "the seat ready")
    await pilot.press("s")
    await until(pilot, lambda: state(app, room) == "playing", "the game started")


async def play_out(
    pilot: Pilot[Any],
    app: LuminApp,
    room: str,
    turn: Callable[[int], Awaitable[None]] | None = None,
    limit: float = 120,
) -> int:
    """Play until the game ends: on each of our turns ``turn(n)`` may press keys first (the
    n-th turn), then enter sends the highlighted command. Returns how many we sent."""
    client = app.client
    assert client is not None
    sent = 0
    while True:
        await until(
            pilot,
            lambda: client.legal(room) or state(app, room) == "finished",
            "a turn of ours or the end",
            limit,
        )
        if state(app, room) == "finished":
            return sent
        if turn is not None:
            await turn(sent)
        before = client.seq(room)
        await pilot.press("enter")
        sent += 1
        await until(
            pilot,
            lambda before=before: client.seq(room) != before or state(app, room) == "finished",
            "our command applied",
            limit,
        )
