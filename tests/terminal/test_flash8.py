"""``lumin play``: Flash 8 by key presses, a race against a server bot (arrows, naming
electrons, FLASH, a lockout, the clock) and a solo game (the grid, claiming a line and its
shape)."""

from __future__ import annotations

import re
from typing import Any

from textual.pilot import Pilot

from clients.terminal.app import LuminApp
from tests.terminal.drive import (
    create_room,
    log_pane,
    save_shot,
    screen_text,
    start_game,
    state,
    until,
)


def _me(app: LuminApp, room: str) -> dict[str, Any]:
    assert app.client is not None
    view = app.client.view(room)
    return next(s for s in view["seats"] if s["seat"] == view["seat"])


async def _follow_hint(pilot: Pilot[Any], app: LuminApp, room: str) -> dict[str, Any] | None:
    """Ask for a hint with ``h`` and return it once the board has it (None if the game ended
    or the seat is locked out)."""
    client = app.client
    assert client is not None
    await until(
        pilot, lambda: client.legal(room) or state(app, room) == "finished", "a usable tablet"
    )
    if state(app, room) == "finished":
        return None
    before = client.seq(room)
    await pilot.press("h")
    await until(
        pilot,
        lambda: client.seq(room) != before or state(app, room) == "finished",
        "the hint",
    )
    return None if state(app, room) == "finished" else _me(app, room).get("hint")


async def test_a_flash8_race_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(
            pilot,
            app,
            "flash8",
            {
                "option:lockout": 3,
                "option:time_limit": 10,
                "option:countdown": 0,
                "option:hints": "yes",
                "seat:1": "bot: fast",
            },
        )
        await start_game(pilot, app, room)
        client = app.client
        assert client is not None
        await until(pilot, lambda: "RUNNING" in screen_text(app), "the running clock")
        # An arrow slides an electron into the free space.
        slides = _me(app, room)["slides"]
        for key in ("left", "right", "up", "down"):
            await pilot.press(key)
            if _me(app, room)["slides"] > slides:
                break
        await until(pilot, lambda: _me(app, room)["slides"] > slides, "a slide by arrow")
        # A FLASH that matches no card locks the seat out, on the board in words.
        tablet = _me(app, room)["tablet"]
        if not any(
            s["top"] and _matches(tablet, s["top"]["pattern"]) for s in client.view(room)["stacks"]
        ):
            await pilot.press("f")
            await until(pilot, lambda: "LOCKED OUT" in screen_text(app), "the lockout")
            save_shot(app, "flash8-race")
        # Then follow the server's hints: name the electron (its cell's digit), FLASH on a match.
        while state(app, room) != "finished":
            hint = await _follow_hint(pilot, app, room)
            if hint is None:
                continue
            if hint.get("slides") == 0:
                await pilot.press("f")
            elif hint.get("src") is not None:
                await pilot.press(str(hint["src"] + 1))
        await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
        view = client.view(room)
        assert view["outcome"]["reason"] in ("time_up", "stacks_empty")
        await until(pilot, lambda: "· The game is over." in log_pane(app), "the log's end")
        lines = log_pane(app)
        takes = [line for line in lines if re.match(r"^· (You|Fast bot 2) took ", line)]
        assert takes, lines
        # Stacks count from 1, as the board labels them.
        assert all(re.search(r" from stack [1-8] for ", line) for line in takes), takes
        save_shot(app, "flash8-race-over")


def _matches(tablet: str, pattern: str) -> bool:
    return all(p in ("-", t) for t, p in zip(tablet, pattern, strict=True))


async def test_a_flash8_solo_game_by_keys(url: str) -> None:
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        room = await create_room(
            pilot,
            app,
            "flash8",
            {
                "option:mode": "solo",
                "option:countdown": 0,
                "option:hints": "yes",
                "option:solo_seconds": 25,
            },
        )
        await start_game(pilot, app, room)
        client = app.client
        assert client is not None
        await until(
            pilot,
            lambda: "Grid: each card's colour, shape and depth" in screen_text(app),
            "the grid",
        )
        save_shot(app, "flash8-solo")
        claimed = 0
        while state(app, room) != "finished":
            hint = await _follow_hint(pilot, app, room)
            if hint is None:
                continue
            if hint.get("slides") != 0:
                await pilot.press(str(hint["src"] + 1))
                continue
            # Claim the hinted line: l, the line in the list, then the first shape.
            lines = sorted({c["line"] for c in client.legal(room) if c["type"] == "claim_line"})
            if hint["target"] not in lines:
                continue
            before = client.seq(room)
            await pilot.press("l")
            await until(pilot, lambda: "Claim which line?" in screen_text(app), "the line prompt")
            await pilot.press(*["down"] * lines.index(hint["target"]), "enter")
            await until(pilot, lambda: "which shape?" in screen_text(app), "the shape prompt")
            await pilot.press("enter")
            await until(
                pilot,
                lambda before=before: client.seq(room) != before or state(app, room) == "finished",
                "the claim",
            )
            # The clock may run out between the hint and the keys: count what the server took.
            claimed = len(client.view(room)["claims"])
        await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
        # 25 s leave room for one claim (a few slides) on a loaded machine.
        assert claimed >= 1
        assert client.view(room)["outcome"]["details"]["claims"] >= 1
        save_shot(app, "flash8-solo-over")
