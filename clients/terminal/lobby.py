"""The lobby: live rooms and finished games (a ``watch_lobby`` kept current by
``lobby_update``), and the ways into a room: create, join a seat, watch, replay, and a private
room by its code."""

from __future__ import annotations

import time
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Resize
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Label

from clients.terminal.picker import PickScreen
from clients.terminal.seats import seat_label
from clients.terminal.status import LuminScreen, StatusLine
from clients.terminal.text import Plain, PlainLabel, plain
from protocol.messages import LobbyUpdate, Message, RoomList, RoomSummary

__all__ = ["CodeScreen", "LobbyScreen", "ago_words", "result_words", "seat_words"]


def seat_words(summary: RoomSummary) -> str:
    """The seats of a room in words, as the room names them: ``Ada, open, Easy bot 3``."""
    return ", ".join(
        "open" if seat.kind == "open" else seat_label(seat.seat, seat.name, seat.kind, seat.bot)
        for seat in summary.seats
    )


def ago_words(then: float, now: float) -> str:
    """How long ago ``then`` was at ``now`` (seconds), in words: ``2 h ago``."""
    seconds = max(0.0, now - then)
    if seconds < 60:
        return "just now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} min ago"
    hours = minutes // 60
    if hours < 24:
        return f"{hours} h ago"
    days = hours // 24
    return "yesterday" if days == 1 else f"{days} days ago"


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _score(score: float) -> str:
    return str(int(score)) if float(score).is_integer() else f"{score:.1f}"


def result_words(summary: RoomSummary, now: float | None = None) -> str:
    """A finished game's result in words, as the browser lobby says it: ``Ada won · 34-28 ·
    2 h ago`` (an en dash between the scores); empty when the summary has none (playing, or a
    server older than version 6)."""
    result = summary.result
    if result is None:
        return ""

    def name(seat: int) -> str:
        info = summary.seats[seat] if seat < len(summary.seats) else None
        if info is None or info.kind == "open":
            return f"seat {seat + 1}"
        if info.kind == "bot" and (info.name is None or info.name == f"{info.bot} bot"):
            return f"bot {seat + 1}"
        return info.name or f"seat {seat + 1}"

    solo = len(summary.seats) == 1
    everyone = [name(n) for n in range(len(summary.seats))]
    if solo and summary.game == "flash8":
        left = f" with {_score(result.scores[0])} left" if result.scores else ""
        parts = [f"{everyone[0]} finished{left}"]
    else:
        winners = [name(seat) for seat in result.winners]
        if not winners:
            who = f"PROTO-ZERO beat {everyone[0]}" if solo else f"{_listed(everyone)} lost"
        elif len(winners) == 1:
            who = f"{winners[0]} won"
        elif len(winners) == len(everyone):
            who = f"{_listed(winners)} tied"
        else:
            who = f"{_listed(winners)} shared the win"
        parts = [who]
        if result.scores:
            parts.append("\u2013".join(_score(score) for score in result.scores))
    parts.append(ago_words(result.finished, time.time() if now is None else now))
    return " · ".join(parts)


def _cut(text: str, width: int) -> str:
    """``text`` within ``width`` characters, ending in "…" where it was cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


class CodeScreen(ModalScreen[tuple[str, str] | None]):
    """Asks for a private room's id and code (``ROOM CODE``)."""

    DEFAULT_CSS = """
    CodeScreen { align: center middle; }
    CodeScreen > Vertical { width: 60; height: auto; border: round $accent; background: $surface; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Private room: type its id and code, separated by a space")
            yield Input(placeholder="r1234abcd CODE", id="code")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        parts = event.value.split()
        if len(parts) != 2:
            self.query_one(Label).update("Type the room id, a space, then the code.")
            return
        self.dismiss((parts[0], parts[1]))

    def action_cancel(self) -> None:
        self.dismiss(None)


class LobbyScreen(LuminScreen):
    """Rooms newest first, then finished games; keys in the footer."""

    DEFAULT_CSS = "#rooms { height: 1fr; } #detail { height: 2; }"

    BINDINGS = [
        Binding("c", "create", "Create"),
        Binding("j", "join", "Join"),
        Binding("w", "watch", "Watch"),
        Binding("r", "replay", "Replay"),
        Binding("p", "private", "Code"),
        # Always there, but not worth the footer's room at 80 columns: help lists them.
        Binding("g", "reload", "Reload", show=False),
        Binding("i", "identity", "Identity", show=False),
        Binding("b", "leaderboard", "Leaderboards"),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
    ]
    #: What each key does, in a sentence, for the help screen's "Keys now".
    KEY_WORDS = {
        "create": "create a room: the game, its options, its seats (people or bots)",
        "join": "take a seat in the highlighted room",
        "watch": "watch the highlighted room",
        "replay": "replay the highlighted finished game",
        "private": "a private room, by its id and code",
        "reload": "list the rooms again",
        "identity": "who you are, and the --token that brings you back",
        "leaderboard": "each game's best players",
        "help": "this page",
    }

    def __init__(self) -> None:
        super().__init__()
        self.rooms: dict[str, RoomSummary] = {}
        #: The screen width the columns were last fitted to.
        self.drawn_width = 0

    def compose(self) -> ComposeResult:
        yield PlainLabel(self.title_text(), id="title")
        yield DataTable(id="rooms", cursor_type="row", zebra_stripes=True)
        yield Plain("", id="detail")
        yield StatusLine()
        yield Footer(compact=True, show_command_palette=False)

    #: The lobby table's columns: a finished game's state is its result. The highlighted
    #: room's id and its seats in full are on the line under the table.
    COLUMNS = ("game", "state or result", "seats", "watch")
    #: The column that gives way (cut with "…") when the table is wider than the screen.
    SHRINKS = 2

    def title_text(self) -> str:
        return f"Lumin lobby on {self.server}: live rooms, then finished games"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Join and watch need a room, replay a finished game: the footer lists them then."""
        if action in ("join", "watch"):
            return self.selected() is not None
        if action == "replay":
            room = self.selected()
            return room is not None and room.state == "finished"
        return True

    def on_resize(self, event: Resize) -> None:
        # Only a new width changes the columns (a redraw lays the screen out again, which
        # may tell it of its size again: redrawing then would never end).
        if event.size.width != self.drawn_width:
            self.redraw()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()
        self.refresh_bindings()

    def show_detail(self) -> None:
        """The highlighted room's id, game, state and seats in full (and how to act on it)."""
        room = self.selected()
        if room is None:
            self.query_one("#detail", Plain).update("No rooms yet: c creates one.")
            return
        game = self.lumin.games.get(room.game)
        name = game.name if game else room.game
        state = result_words(room) or room.state
        self.query_one("#detail", Plain).update(
            f"{room.room}: {name}, {state}\nseats: {seat_words(room)}"
        )

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*self.COLUMNS)
        table.focus()

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_identity(self) -> None:
        """Say the token that brings this identity (and its seats) back in another session."""
        client = self.lumin.client
        if client is not None:
            self.show_status(f"come back as {client.name} with --token {client.token}")

    def action_reload(self) -> None:
        client = self.lumin.client
        if client is None:
            return

        def got(rooms: list[RoomSummary]) -> None:
            self.rooms = {room.room: room for room in rooms}
            self.redraw()

        self.lumin.request(client.watch_lobby(), got, self)

    def on_server(self, message: Message) -> None:
        if isinstance(message, LobbyUpdate):
            for room in message.rooms:
                self.rooms[room.room] = room
            for gone in message.removed:
                self.rooms.pop(gone, None)
            self.redraw()
        client = self.lumin.client
        if isinstance(message, RoomList) and client is not None and message.ref == client.lobby_ref:
            # The lobby as listed now (the client watched it again after a reconnect).
            self.rooms = {room.room: room for room in message.rooms}
            self.redraw()

    def ordered(self) -> list[RoomSummary]:
        """Live rooms newest first, then finished games (the lobby's order)."""
        live = [r for r in self.rooms.values() if r.state != "finished"]
        done = [r for r in self.rooms.values() if r.state == "finished"]
        return sorted(live, key=lambda r: -r.created) + sorted(
            done, key=lambda r: -(r.result.finished if r.result else r.created)
        )

    def redraw(self) -> None:
        """Draw the rooms again. Each column is as wide as its widest cell, set here: a
        DataTable measures its automatic widths only when the app is idle, which a busy app
        may not be for a long time, and until then it cuts every cell to its heading."""
        table = self.query_one(DataTable)
        current = self.selected()
        rows = []
        for room in self.ordered():
            game = self.lumin.games.get(room.game)
            name = game.name if game else room.game
            state = result_words(room) or room.state
            rows.append((room.room, [name, state, seat_words(room), str(room.spectators)]))
        widths = [
            max([len(label), *(len(cells[n]) for _, cells in rows)])
            for n, label in enumerate(self.COLUMNS)
        ]
        # Each column has a cell's padding on both sides, and the table a scroll bar.
        self.drawn_width = self.size.width
        room_for = self.size.width - 2 * len(widths) - 2
        over = sum(widths) - room_for
        if over > 0 and self.size.width:
            widths[self.SHRINKS] = max(len(self.COLUMNS[self.SHRINKS]), widths[self.SHRINKS] - over)
        table.clear(columns=True)
        for label, width in zip(self.COLUMNS, widths, strict=True):
            table.add_column(label, width=width)
        for key, cells in rows:
            table.add_row(*[plain(_cut(c, w)) for c, w in zip(cells, widths, strict=True)], key=key)
        if current is not None and current.room in self.rooms:
            table.move_cursor(row=table.get_row_index(current.room))
        self.show_detail()
        if self.is_current:  # under a modal screen, refreshing can leave that one undrawn
            self.refresh_bindings()
        self.query_one("#title", PlainLabel).update(self.title_text())

    def selected(self) -> RoomSummary | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.rooms.get(str(key))

    def action_help(self) -> None:
        """The how-to of the highlighted room's game (the first game's with none), and the
        lobby's keys."""
        from clients.terminal.help import HelpScreen
        from clients.terminal.howto import how_tos

        room = self.selected()
        game = room.game if room is not None else how_tos()[0]["id"]
        keys = []
        for binding in self.BINDINGS:
            assert isinstance(binding, Binding)
            key = binding.key_display or self.app.get_key_display(binding)
            keys.append((key, self.KEY_WORDS.get(binding.action, binding.description)))
        keys += [("up/down", "highlight a room"), ("ctrl+q", "quit lumin play")]
        self.app.push_screen(HelpScreen(game, keys))

    def action_leaderboard(self) -> None:
        """Each game's best players by rating (the selected room's game first)."""
        from clients.terminal.leaderboard import LeaderboardScreen

        room = self.selected()
        self.app.push_screen(LeaderboardScreen(room.game if room is not None else None))

    def action_create(self) -> None:
        from clients.terminal.create import CreateScreen

        self.app.push_screen(CreateScreen())

    def action_join(self) -> None:
        room = self.selected()
        if room is None:
            self.show_status("No room to join: create one with c.")
            return
        self.join(room.room, None, room)

    def join(self, room: str, code: str | None, summary: RoomSummary | None) -> None:
        """Ask which seat (open seats, one's own, bots to take over), then enter the room."""
        client = self.lumin.client
        assert client is not None
        seats = summary.seats if summary is not None else ()
        # Open seats first, then one's own, then bots to take over.
        options = [(f"seat {s.seat + 1}: open", s.seat) for s in seats if s.kind == "open"]
        options += [(f"seat {s.seat + 1}: yours", s.seat) for s in seats if s.user == client.user]
        options += [
            (f"seat {s.seat + 1}: take over the {s.bot} bot", s.seat)
            for s in seats
            if s.kind == "bot"
        ]
        if summary is not None and not options:
            self.show_status("No seat to take in that room; watch it with w.")
            return
        if summary is None:
            options = [(f"seat {n + 1}", n) for n in range(8)]

        def chosen(seat: Any) -> None:
            if seat is None:
                return
            self.lumin.request(
                client.join(room, seat, code), lambda _: self.enter(room, code), self
            )

        self.app.push_screen(PickScreen(f"Take which seat of {room}?", options), chosen)

    def enter(self, room: str, code: str | None) -> None:
        from clients.terminal.room import RoomScreen

        self.lumin.open_from(self, RoomScreen(room))

    def action_watch(self) -> None:
        room = self.selected()
        if room is None:
            self.show_status("No room to watch.")
            return
        self.spectate(room.room, None)

    def spectate(self, room: str, code: str | None) -> None:
        client = self.lumin.client
        assert client is not None
        self.lumin.request(client.watch(room, code), lambda _: self.enter(room, code), self)

    def action_replay(self) -> None:
        room = self.selected()
        if room is None or room.state != "finished":
            self.show_status("Choose a finished game to replay.")
            return
        self.replay(room.room, len(room.seats), room.game)

    def replay(self, room: str, seats: int, game: str = "") -> None:
        from clients.terminal.replay import ReplayScreen

        self.app.push_screen(ReplayScreen(room, seats, game))

    def action_private(self) -> None:
        def entered(answer: tuple[str, str] | None) -> None:
            if answer is None:
                return
            room, code = answer
            options = [("take a seat", "join"), ("watch", "watch"), ("replay", "replay")]

            def how(what: Any) -> None:
                if what == "join":
                    self.join(room, code, None)
                elif what == "watch":
                    self.spectate(room, code)
                elif what == "replay":
                    self.lumin.client.codes[room] = code  # type: ignore[union-attr]
                    self.replay(room, 0)

            self.app.push_screen(PickScreen(f"Private room {room}", options), how)

        self.app.push_screen(CodeScreen(), entered)
