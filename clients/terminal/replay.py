"""Replaying a finished game: step, seek, and see it as any seat or as a spectator.

Keys: right/left step one step, page down/up ten, home/end the first and last state, ``g``
seeks to a typed position, ``v`` changes whose view it is (the public view, then each seat).
The view is the server's ``replay_state``; clocks are drawn at the position's time (``at``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label

from clients.sdk import ServerError
from clients.terminal.boards import board_for
from clients.terminal.boards.base import Board, Context
from clients.terminal.movelog import Namer, entries_of, log_lines
from clients.terminal.room import BoardView
from clients.terminal.seats import seat_names
from clients.terminal.status import LuminScreen, StatusLine
from clients.terminal.text import Plain, PlainLabel
from protocol.messages import ReplayState

__all__ = ["PositionScreen", "ReplayScreen", "seat_count"]


def seat_count(view: Any) -> int:
    """How many seats the game of ``view`` has, from the view itself (the outcome's ranks, or
    its players, seats or factions): a private room's replay comes with no summary."""
    if not isinstance(view, Mapping):
        return 0
    outcome = view.get("outcome")
    if isinstance(outcome, Mapping) and isinstance(outcome.get("ranks"), list):
        return len(outcome["ranks"])
    for key in ("players", "seats", "factions"):
        value = view.get(key)
        if isinstance(value, list):
            return len(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


class PositionScreen(ModalScreen[int | None]):
    """Asks for a position to seek to."""

    DEFAULT_CSS = """
    PositionScreen { align: center middle; }
    PositionScreen > Vertical { width: 40; height: auto; border: round $accent;
                                background: $surface; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, length: int) -> None:
        super().__init__()
        self.length = length

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Seek to which step (0 to {self.length})?")
            yield Input(id="position", type="integer")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(int(event.value) if event.value.strip() else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReplayScreen(LuminScreen):
    """The replay of ``room``, a game of ``game`` with ``seats`` seats (the viewers ``v``
    cycles through)."""

    DEFAULT_CSS = """
    #head { height: 1; background: $primary-background; }
    #main { height: 1fr; }
    #log { width: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("right", "step(1)", "Step"),
        Binding("left", "step(-1)", "Back"),
        Binding("pagedown", "step(10)", "+10"),
        Binding("pageup", "step(-10)", "-10"),
        Binding("home", "seek(0)", "Start"),
        Binding("end", "seek(-1)", "End"),
        Binding("g", "goto", "Seek"),
        Binding("v", "viewer", "Viewer"),
        Binding("escape", "back", "Lobby"),
    ]

    def __init__(self, room: str, seats: int, game: str = "") -> None:
        super().__init__()
        self.room = room
        self.seats = seats
        self.game = game
        self.state: ReplayState | None = None
        self.board: Board = Board()
        #: Whether the player left before the replay opened (it is closed when it does).
        self.gone = False

    def compose(self) -> ComposeResult:
        yield PlainLabel(f"Replay of {self.room}", id="head")
        with Horizontal(id="main"):
            yield BoardView("", id="board")
            yield Plain("", id="log")
        yield StatusLine()
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        client = self.lumin.client
        assert client is not None
        summary = client.room_info.get(self.room)
        if summary is not None:
            self.seats, self.game = len(summary.seats), summary.game
        code = client.codes.get(self.room)
        self.lumin.request(client.open_replay(self.room, code=code), self.show, self)

    def board_key(self, key: str) -> bool:
        return False

    def show(self, state: Any) -> None:
        assert isinstance(state, ReplayState)
        client = self.lumin.client
        if self.gone:  # opened after the player left: the server need not keep it
            if client is not None:
                self.lumin.request(client.close_replay(state.replay), None, None)
            return
        self.state = state
        if not self.seats:
            self.seats = seat_count(state.view)
        if not self.board.game:
            game = self.game or (state.view.get("game") if isinstance(state.view, dict) else "")
            self.board = board_for(str(game or ""))
        self.redraw()

    def redraw(self) -> None:
        state = self.state
        if state is None:
            return
        client = self.lumin.client
        summary = None if client is None else client.room_info.get(self.room)
        names = seat_names(summary, self.seats)
        viewer = (
            "spectator view"
            if state.viewer is None
            else f"as {names[state.viewer] if state.viewer < len(names) else state.viewer}"
        )
        self.query_one("#head", PlainLabel).update(
            f"Replay {self.room} | step {state.position} of {state.length} | {viewer}"
            f" | on {self.server}"
        )
        ctx = Context(
            view=state.view,
            seat=state.viewer,
            now=state.at or 0.0,
            names=names,
            live=False,
        )
        self.query_one(BoardView).update(self.board.render(ctx))
        # A replay seen from a seat is still someone else's game: nobody is "You" in it.
        lines = log_lines(self.board.game, entries_of(state.view), Namer(names))
        self.query_one("#log", Plain).update(
            "What happened (newest first)\n" + "\n".join(lines or ["Nothing has happened yet."])
        )

    def ask(self, make: Callable[[str], Awaitable[ReplayState]]) -> None:
        """Send ``make(replay_id)`` and show its answer. A replay the server no longer holds
        (the connection dropped and came back: replays belong to a connection) is opened
        again where it was, and the request sent to it."""
        client = self.lumin.client
        state = self.state
        assert client is not None and state is not None

        async def asked() -> ReplayState:
            try:
                return await make(state.replay)
            except ServerError as error:
                if error.code != "no_such_room":  # "No open replay ...": reopen it
                    raise
            code = client.codes.get(self.room)
            again = await client.open_replay(self.room, viewer=state.viewer, code=code)
            if state.position:
                again = await client.replay_seek(again.replay, state.position)
            self.state = again
            return await make(again.replay)

        self.lumin.request(asked(), self.show, self)

    def action_step(self, steps: int) -> None:
        if self.state is None:
            return
        client = self.lumin.client
        assert client is not None
        self.ask(lambda replay: client.replay_step(replay, steps))

    def action_seek(self, position: int) -> None:
        if self.state is None:
            return
        client = self.lumin.client
        assert client is not None
        target = self.state.length if position < 0 else position
        self.ask(lambda replay: client.replay_seek(replay, target))

    def action_goto(self) -> None:
        if self.state is None:
            return

        def chosen(position: int | None) -> None:
            if position is not None:
                self.action_seek(max(0, position))

        self.app.push_screen(PositionScreen(self.state.length), chosen)

    def action_viewer(self) -> None:
        if self.state is None:
            return
        client = self.lumin.client
        assert client is not None
        viewers: list[int | None] = [None, *range(self.seats)]
        now = viewers.index(self.state.viewer) if self.state.viewer in viewers else 0
        nxt = viewers[(now + 1) % len(viewers)]
        self.ask(lambda replay: client.replay_viewer(replay, nxt))

    def action_back(self) -> None:
        client = self.lumin.client
        self.gone = True
        if client is not None and self.state is not None:
            self.lumin.request(client.close_replay(self.state.replay), None, None)
        self.app.pop_screen()
