"""A room: seats, ready and start, chat, the game's board and the commands the seat may send.

The board (``clients.terminal.boards``) draws the live view; the command list beside it is the
seat's ``legal`` commands expanded and described in words (up/down highlights one and the board
draws its preview, enter sends it). A real-time board (Flash 8) takes the keys itself; tab
moves between the board, the commands and the chat line. Everything shown comes from the
server: the view, ``legal``, the room summary and chat.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.widgets import Footer, Input, OptionList, RichLog

from clients.sdk import Closed
from clients.sdk.legal import Option, expand
from clients.terminal.boards import board_for
from clients.terminal.boards.base import Board, Context, Prompt, Reply, ending_sentence
from clients.terminal.movelog import Namer, entries_of, sentence, since_last_turn
from clients.terminal.picker import PickScreen
from clients.terminal.seats import seat_label, seat_names
from clients.terminal.status import LuminScreen, StatusLine
from clients.terminal.text import Plain, PlainLabel, plain, visible
from protocol.messages import (
    ChatMessage,
    CommandRejected,
    Delta,
    GameOver,
    Message,
    RematchCreated,
    RoomClosed,
    RoomSummary,
    RoomUpdate,
    Snapshot,
)

__all__ = [
    "BoardView",
    "RoomScreen",
    "closed_sentence",
    "closed_state",
    "filter_matches",
    "seat_names",
]

#: Why a room closed (``room_closed``'s reasons), as the heading says it, and the sentence
#: said when the server sent none (before protocol version 3, or a host's kick).
_CLOSED: dict[str, tuple[str, str]] = {
    "closed_by_operator": ("closed by the operator", "The server's operator closed this room."),
    "expired": ("closed (expired)", "The room expired: nobody was in it."),
    "abandoned": ("closed (abandoned)", "The room was stopped: nobody attended it."),
    "internal_error": (
        "closed (server error)",
        "The room failed on the server; it is rebuilt when the server restarts.",
    ),
}


def closed_state(closed: Closed | None) -> str | None:
    """What the heading says of a room closed to the player instead of its state (``None``
    when it is not closed, or when only the seat was taken: the player watches on)."""
    if closed is None or closed.reason == "kicked":
        return None
    known = _CLOSED.get(closed.reason)
    return known[0] if known is not None else "gone"


def closed_sentence(closed: Closed) -> str:
    """Why the room is closed to the player, in the server's words where it gave them: the
    operator's reason, the seat taken from them, or the refusal of the room's resume after a
    reconnect (a room the server no longer has)."""
    if closed.reason == "kicked":
        return closed.message or "You were removed from your seat; you watch now."
    known = _CLOSED.get(closed.reason)
    if known is not None:
        return closed.message or known[1]
    return f"This room is no longer on the server: {closed.message or closed.reason}"


#: Where a command's words split for the filter: spaces and the punctuation between numbers.
_WORD_BREAK = re.compile(r"[\s,;:()/]+")


def filter_matches(wanted: str, text: str) -> bool:
    """Whether the filter ``wanted`` lets a command said as ``text`` through: each of its words
    begins a word of the text, in any order (``R7x 5`` finds ``R7x on 5``), case aside."""
    words = [word for word in _WORD_BREAK.split(text.lower()) if word]
    return all(any(word.startswith(part) for word in words) for part in wanted.lower().split())


class BoardView(Plain, can_focus=True):
    """The board (drawn from the server's view, so shown as text); when it takes the keys, it
    hands them to its screen."""

    DEFAULT_CSS = """
    BoardView { width: 52; height: 1fr; padding: 0 1; }
    BoardView:focus { border-left: wide $accent; }
    """

    def on_key(self, event: Key) -> None:
        screen: Any = self.screen
        if screen.board_key(event.key):
            event.stop()
            event.prevent_default()


class RoomScreen(LuminScreen):
    """One room, live (see the module docstring); ``note`` is shown first on the status
    line."""

    DEFAULT_CSS = """
    #head { height: 1; background: $primary-background; }
    #main { height: 1fr; }
    #side { width: 1fr; }
    #seats { height: auto; max-height: 6; }
    #commands { height: 1fr; }
    #chat { height: 4; }
    #say, #filter { height: 1; border: none; padding: 0; }
    """
    BINDINGS = [
        Binding("r", "ready", "Ready"),
        Binding("s", "start", "Start"),
        Binding("t", "chat", "Chat"),
        Binding("slash", "filter", "Filter"),
        Binding("m", "rematch", "Rematch"),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("escape", "back", "Lobby"),
    ]
    #: What each key does, in a sentence, for the help screen's "Keys now".
    KEY_WORDS = {
        "ready": "say you are ready (again: not ready); the host starts once all are",
        "start": "start the game (the host, once every person is ready)",
        "chat": "write to the room (enter sends, escape returns)",
        "filter": "filter the commands by words (/R7x 5); escape clears it",
        "rematch": "a rematch: the same seats in a new room",
        "help": "this page",
        "back": "back to the lobby",
        "quit": "quit lumin play",
    }

    def __init__(self, room: str, note: str | None = None) -> None:
        super().__init__()
        self.room = room
        #: A first sentence for the status line (a private room's code).
        self.note = note
        self.board: Board = Board()
        self.choices: list[Option] = []
        #: The commands the list shows: those whose words hold the filter's text.
        self.shown: list[Option] = []
        self.filter_text = ""
        self.legal_seen: Any = None
        self.rematch_room: str | None = None
        #: The newest move log entry (its ``n``) written into the chat pane.
        self.log_seen = 0

    def compose(self) -> ComposeResult:
        yield PlainLabel("", id="head")
        with Horizontal(id="main"):
            yield BoardView("", id="board")
            with Vertical(id="side"):
                yield Plain("", id="seats")
                yield Input(placeholder="/ filters the commands", id="filter")
                yield OptionList(id="commands")
        yield RichLog(id="chat", wrap=True, markup=False)
        yield Input(placeholder="t: chat; enter sends", id="say")
        yield StatusLine()
        yield Footer(compact=True, show_command_palette=False)

    # -- what the server says -------------------------------------------------------------------

    @property
    def summary(self) -> RoomSummary | None:
        client = self.lumin.client
        return None if client is None else client.room_info.get(self.room)

    def on_mount(self) -> None:
        summary = self.summary
        self.board = board_for(summary.game if summary else "")
        if self.board.tick:
            self.set_interval(self.board.tick, self.tick)
        client = self.lumin.client
        if client is not None:
            for line in client.chat:
                if line.room == self.room:
                    self.add_chat(line)
        self.query_one(OptionList).border_title = "your commands (enter)"
        self.query_one(OptionList).border_subtitle = self.board.keys_help
        self.redraw()
        self.focus_play()
        if self.note:
            self.show_status(self.note)

    def focus_play(self) -> None:
        if self.board.takes_keys:
            self.query_one(BoardView).focus()
        else:
            self.query_one(OptionList).focus()

    def on_server(self, message: Message) -> None:
        if getattr(message, "room", None) != self.room and not (
            isinstance(message, RoomUpdate) and message.info.room == self.room
        ):
            return
        if isinstance(message, ChatMessage):
            self.add_chat(message)
        elif isinstance(message, GameOver):
            ending = ending_sentence(message.outcome.reason)
            self.show_status(f"Game over: {ending} m: rematch, escape: lobby")
        elif isinstance(message, RematchCreated):
            self.rematch_room = message.new_room
            self.show_status(f"Rematch room {message.new_room}: press m to go there")
        if isinstance(message, RoomUpdate | Snapshot | Delta | GameOver | RoomClosed):
            self.redraw()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether a key applies now (the footer lists only those): ready and start while the
        room waits (start for its host), the filter while there are commands to filter, a
        rematch once the game is over."""
        client = self.lumin.client
        summary = self.summary
        if client is None or summary is None:
            return action not in ("ready", "start", "filter", "rematch") or None
        closed = closed_state(client.closed.get(self.room)) is not None
        seated = any(s.user == client.user for s in summary.seats)
        if action == "ready":
            return summary.state == "waiting" and seated and not closed
        if action == "start":
            return summary.state == "waiting" and summary.host == client.user and not closed
        if action == "filter":
            return bool(self.choices) or bool(self.filter_text)
        if action == "rematch":
            return summary.state == "finished" and (
                self.my_seat() is not None or self.rematch_room is not None
            )
        return True

    def keys_now(self) -> list[tuple[str, str]]:
        """The keys that apply on this screen now, each with what it does: the screen's
        (:meth:`check_action`), then the board's own."""
        keys: list[tuple[str, str]] = []
        for binding in self.BINDINGS:
            assert isinstance(binding, Binding)
            if self.check_action(binding.action, ()):
                key = binding.key_display or self.app.get_key_display(binding)
                keys.append((key, self.KEY_WORDS.get(binding.action, binding.description)))
        if self.choices:
            keys.append(("up/down", "highlight a command: the board shows what it does"))
            keys.append(("enter", "send the highlighted command"))
        if self.board.keys_help and self.board.keys_help != "enter sends":
            keys.append(("board", self.board.keys_help))
        keys.append(("tab", "move between the board, the commands and the chat line"))
        keys.append(("ctrl+q", self.KEY_WORDS["quit"]))
        return keys

    def action_help(self) -> None:
        """Open the game's how-to with the keys that apply now."""
        from clients.terminal.help import HelpScreen

        summary = self.summary
        self.app.push_screen(HelpScreen(summary.game if summary else "", self.keys_now()))

    def on_screen_resume(self) -> None:
        """Back from a modal screen: the footer shows the keys that apply now. (Refreshing a
        screen's bindings while a modal one is over it can leave the modal one undrawn.)"""
        self.refresh_bindings()

    def on_closed(self, closed: Closed) -> None:
        """The room is closed to this player (see :func:`closed_sentence`): say why."""
        if closed.room != self.room:
            return
        gone = closed_state(closed) is not None
        self.show_status(closed_sentence(closed) + (" escape: lobby" if gone else ""))
        self.redraw()

    def add_log(self, game: str, view: Any, seat: int | None, summary: RoomSummary | None) -> None:
        """Write the move log's new entries into the chat pane, in words, oldest first; on
        entering a room, what happened since this seat's last turn (see
        :func:`clients.terminal.movelog.since_last_turn`)."""
        entries = entries_of(view)
        fresh = [e for e in entries if isinstance(e.get("n"), int) and e["n"] > self.log_seen]
        if not fresh:
            return
        if self.log_seen == 0:
            fresh = since_last_turn(fresh, seat)
        namer = Namer(seat_names(summary), you=seat)
        pane = self.query_one(RichLog)
        for entry in fresh:
            pane.write(plain("· " + sentence(game, entry, namer), style="italic"))
        self.log_seen = max(int(e["n"]) for e in entries if isinstance(e.get("n"), int))

    def add_chat(self, line: ChatMessage) -> None:
        channel = "" if line.channel == "players" else "(spectators) "
        self.query_one(RichLog).write(plain(f"{channel}{line.name}: {line.text}"))

    # -- drawing --------------------------------------------------------------------------------

    def context(self) -> Context:
        client = self.lumin.client
        assert client is not None
        copy = client.conn.views.get(self.room)
        view = None if copy is None else copy.view
        seat = None if copy is None else copy.seat
        highlight = None
        commands = self.query_one(OptionList)
        if commands.highlighted is not None and commands.highlighted < len(self.shown):
            highlight = self.shown[commands.highlighted]
        now = 0.0 if copy is None else copy.room_time(self.lumin.server_time())
        summary = self.summary
        return Context(
            view=view,
            seat=seat,
            choices=self.choices,
            highlight=highlight,
            now=now,
            names=seat_names(summary),
        )

    def redraw(self) -> None:
        client = self.lumin.client
        if client is None:
            return
        summary = self.summary
        if summary is not None and self.board.game != summary.game:
            self.board = board_for(summary.game)
            self.query_one(OptionList).border_subtitle = self.board.keys_help
            if self.board.tick:
                self.set_interval(self.board.tick, self.tick)
            self.focus_play()
        copy = client.conn.views.get(self.room)
        seat = None if copy is None else copy.seat
        game = self.lumin.games.get(summary.game) if summary else None
        name = game.name if game else (summary.game if summary else "")
        state = closed_state(client.closed.get(self.room)) or (summary.state if summary else "?")
        who = "watching" if seat is None else f"you: seat {seat + 1}"
        private = " private" if summary is not None and summary.private else ""
        clock = ""
        if summary is not None and summary.turn_clock is not None:
            clock = f" | turn clock {summary.turn_clock:g} s"
        self.query_one("#head", PlainLabel).update(
            f"{name} | {self.room}{private} | {state} | {who}{clock} | on {self.server}"
        )
        self.query_one("#seats", Plain).update(self.seats_text(summary, seat))
        if copy is not None:
            self.add_log(summary.game if summary else "", copy.view, seat, summary)
        legal = None if copy is None else copy.legal
        if legal != self.legal_seen:
            new_turn = not self.legal_seen and bool(legal)
            self.legal_seen = legal
            self.choices = expand(list(legal or ()), game.commands if game else None)
            if self.filter_text and (new_turn or not self.filtered()):
                # A filter from an earlier turn (or one the new commands all miss) would
                # leave an empty list under YOUR TURN: the new turn starts unfiltered.
                self.filter_text = ""
                self.query_one("#filter", Input).value = ""
            self.fill_commands()
        if self.is_current:  # under a modal screen (a prompt, the help) it waits: see below
            self.refresh_bindings()
        self.redraw_board()

    def fill_commands(self) -> None:
        """Show the commands the filter lets through, keeping the highlight's place."""
        commands = self.query_one(OptionList)
        before = commands.highlighted
        words = self.filtered()
        self.shown = [choice for choice, _ in words]
        commands.clear_options()
        commands.add_options([plain(text) for _, text in words])
        if self.shown:
            commands.highlighted = min(before or 0, len(self.shown) - 1)

    def filtered(self) -> list[tuple[Option, str]]:
        """The commands the filter lets through, each with its words (see
        :func:`filter_matches`)."""
        ctx = self.context()
        words = [(choice, self.board.describe(choice, ctx)) for choice in self.choices]
        return [(choice, text) for choice, text in words if filter_matches(self.filter_text, text)]

    def seats_text(self, summary: RoomSummary | None, mine: int | None) -> Text:
        text = Text()
        if summary is None:
            return text
        for seat in summary.seats:
            me = "*" if seat.seat == mine else " "
            label = seat_label(seat.seat, seat.name, seat.kind, seat.bot)
            if seat.kind == "open":
                what = "open"
            elif seat.kind == "bot":
                # A bot named after its kind says it already ("Easy bot 2"); another says it.
                plain_name = label.endswith(f"bot {seat.seat + 1}")
                what = label if plain_name else f"{label} ({seat.bot or 'a'} bot)"
            else:
                flags = []
                if summary.state == "waiting":
                    flags.append("ready" if seat.ready else "not ready")
                if not seat.connected:
                    flags.append("away")
                what = label + (f" [{', '.join(flags)}]" if flags else "")
            text.append(f"{me}{seat.seat + 1}: {visible(what)}\n")
        if summary.state == "waiting":
            text.append("r ready, s start (host)\n", style="dim")
        return text

    def tick(self) -> None:
        """Redraw a board that changes by itself (a clock, tiles turning)."""
        client = self.lumin.client
        if client is not None and self.board.moving(client.view(self.room)):
            self.redraw_board()

    def redraw_board(self) -> None:
        if self.lumin.client is None:
            return
        ctx = self.context()
        self.query_one(BoardView).update(self.board.render(ctx))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.redraw_board()

    # -- acting ---------------------------------------------------------------------------------

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "commands" and event.option_index < len(self.shown):
            self.send(self.shown[event.option_index].command)

    def send(self, command: Any) -> None:
        client = self.lumin.client
        assert client is not None

        def answered(answer: Any) -> None:
            if isinstance(answer, CommandRejected):
                self.show_status(f"refused ({answer.code}): {answer.message}")
            else:
                self.show_status(f"sent {command.get('type')}")

        self.lumin.request(client.act(self.room, command), answered, self)

    def board_key(self, key: str) -> bool:
        """Offer a key to the board; true when it meant something."""
        reply = self.board.key(key, self.context())
        return self.follow(reply)

    def follow(self, reply: Reply) -> bool:
        if reply is None:
            return False
        if isinstance(reply, str):
            self.show_status(reply)
        elif isinstance(reply, Prompt):
            prompt = reply

            def picked(value: Any) -> None:
                if value is not None:
                    self.follow(prompt.then(value))

            self.app.push_screen(PickScreen(prompt.title, prompt.options), picked)
        else:
            self.send(dict(reply))
        return True

    def on_key(self, event: Key) -> None:
        if isinstance(self.focused, Input) or self.board.takes_keys:
            return
        if self.board_key(event.key):
            event.stop()

    def action_ready(self) -> None:
        """Toggle this seat's ready flag (as the room summary shows it)."""
        client = self.lumin.client
        assert client is not None
        summary = self.summary
        ready = any(s.ready for s in summary.seats if s.user == client.user) if summary else False
        self.lumin.request(client.ready(self.room, not ready), None, self)

    def action_start(self) -> None:
        client = self.lumin.client
        assert client is not None
        self.lumin.request(client.start(self.room), None, self)

    def action_chat(self) -> None:
        self.query_one("#say", Input).focus()

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.filter_text = event.value.strip()
            self.fill_commands()
            self.redraw_board()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        client = self.lumin.client
        assert client is not None
        if event.input.id == "filter":
            self.query_one(OptionList).focus()
            return
        text = event.value.strip()
        event.input.value = ""
        self.focus_play()
        if text:
            self.lumin.request(client.say(self.room, text), None, self)

    def action_rematch(self) -> None:
        client = self.lumin.client
        assert client is not None
        summary = self.summary
        if summary is None or summary.state != "finished":
            self.show_status("A rematch needs a finished game.")
            return
        seat = self.my_seat()
        if seat is None:  # a spectator cannot ask for a rematch, but may watch one
            if self.rematch_room is None:
                self.show_status("Only the players may ask for a rematch; m watches one they make.")
                return
            room = self.rematch_room

            def watching(_: None) -> None:
                if not self.lumin.open_from(self, RoomScreen(room), switch=True):
                    self.lumin.say(f"You watch rematch room {room}: find it in the lobby.")

            self.lumin.request(client.watch(room), watching, self)
            return

        def go(room: str) -> Any:
            async def enter() -> None:
                if seat is not None:
                    await client.join(room, seat)
                else:
                    await client.watch(room)
                if not self.lumin.open_from(self, RoomScreen(room), switch=True):
                    self.lumin.say(f"Rematch room {room} is ready: find it in the lobby.")

            return enter()

        self.lumin.request(client.rematch(self.room), go, self)

    def action_back(self) -> None:
        """Escape: out of the chat or filter line, then clears a filter, then to the lobby."""
        if isinstance(self.focused, Input) or self.filter_text:
            self.query_one("#filter", Input).value = ""
            self.focus_play()
            return
        client = self.lumin.client
        summary = self.summary
        if (
            client is not None
            and closed_state(client.closed.get(self.room)) is None  # a closed room is left
            and (summary is None or summary.state != "playing" or self.my_seat() is None)
        ):  # a seat in a game under way stays this player's: they come back to it
            self.lumin.request(client.leave(self.room), None, None)
        self.app.pop_screen()

    def my_seat(self) -> int | None:
        """The seat this client holds in the room (its view's, else the summary's)."""
        client = self.lumin.client
        if client is None:
            return None
        copy = client.conn.views.get(self.room)
        if copy is not None:
            return copy.seat
        summary = self.summary
        seats = [s.seat for s in summary.seats if s.user == client.user] if summary else []
        return seats[0] if seats else None
