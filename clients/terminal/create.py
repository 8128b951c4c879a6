"""Creating a room: every option the server lists for the game (``GameInfo``), the seats (a
person or any of the game's bots, with the per-seat choices), privacy, the turn clock, and the
seat the creator takes.

The form is one list of rows: up/down picks a row, left/right changes its value (choices and
yes/no cycle, numbers step), digits type a number, backspace erases it, enter on a row creates
the room. Only what the server lists is offered; the server checks the rest (``bad_option``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Key
from textual.widget import Widget
from textual.widgets import Footer, Label

from clients.sdk import bot, human
from clients.terminal.status import LuminScreen, StatusLine
from clients.terminal.text import safe
from protocol.messages import GameInfo, OptionInfo, SeatChoice

__all__ = ["CreateScreen", "RoomForm", "Row", "applies", "seat_range"]


def seat_range(game: GameInfo, options: Mapping[str, Any]) -> tuple[int, int]:
    """The fewest and most seats a room of ``game`` with ``options`` may have (``GameInfo.seats``:
    the first entry whose ``when`` matches), or ``(0, 0)`` when no entry matches."""
    filled = {o.name: options.get(o.name, o.default) for o in game.options}
    for entry in game.seats:
        when = entry.get("when", {})
        if all(filled.get(key) == value for key, value in when.items()):
            return int(entry["min"]), int(entry["max"])
    return 0, 0


def applies(option: OptionInfo, game: GameInfo, options: Mapping[str, Any], seats: int) -> bool:
    """Whether ``option`` means anything in a room of ``game`` with ``options`` and ``seats``
    seats (protocol version 6's ``OptionInfo.when``; without it, always): the form shows and
    sends only the options that do."""
    filled = {o.name: options.get(o.name, o.default) for o in game.options}
    return all(
        (seats if name == "seats" else filled.get(name)) in allowed
        for name, allowed in option.when.items()
    )


@dataclass
class Row:
    """One line of the form: what it sets and how it shows."""

    key: str
    label: str
    value: str
    doc: str = ""


class RoomForm(Widget, can_focus=True):
    """The create-room form's rows and their values (see the module docstring)."""

    DEFAULT_CSS = "RoomForm { height: 1fr; }"

    def __init__(self, games: Sequence[GameInfo]) -> None:
        super().__init__(id="form")
        self.games = list(games)
        self.row = 0
        self.typing: str | None = None
        self.select_game(0)

    # -- the state ------------------------------------------------------------------------------

    def select_game(self, index: int) -> None:
        self.game_index = index % len(self.games)
        self.options: dict[str, Any] = {o.name: o.default for o in self.game.options}
        low, _ = seat_range(self.game, self.options)
        self.seats: list[dict[str, Any]] = []
        self.set_seat_count(max(low, 1))
        self.private = False
        self.turn_clock: float | None = None
        self.sit: int | None = 0

    @property
    def game(self) -> GameInfo:
        return self.games[self.game_index]

    def set_seat_count(self, count: int) -> None:
        while len(self.seats) < count:
            first = not self.seats
            choices = {o.name: o.default for o in self.game.seat_options}
            self.seats.append(
                {"kind": "human" if first else "bot", "bot": None, "choices": choices}
            )
        del self.seats[count:]

    def fit_seats(self) -> None:
        """Bring the seat count within what the options allow."""
        low, high = seat_range(self.game, self.options)
        if high and not low <= len(self.seats) <= high:
            self.set_seat_count(min(max(len(self.seats), low), high))

    def seat_kinds(self) -> list[tuple[str, str | None]]:
        return [("human", None)] + [("bot", kind) for kind in self.game.bots]

    def rows(self) -> list[Row]:
        rows = [Row("game", "Game", self.game.name, "left/right: the games this server hosts")]
        for option in self.shown(self.game.options):
            rows.append(
                Row(
                    f"option:{option.name}",
                    option.name,
                    _show(self.options[option.name]),
                    option.doc,
                )
            )
        low, high = seat_range(self.game, self.options)
        rows.append(
            Row("seats", "Seats", str(len(self.seats)), f"{low} to {high} with these options")
        )
        for n, seat in enumerate(self.seats):
            who = (
                "person"
                if seat["kind"] == "human"
                else f"bot: {seat['bot'] or self.game.default_bot}"
            )
            rows.append(
                Row(f"seat:{n}", f"Seat {n + 1}", who, "a person, or one of the game's bots")
            )
            for option in self.shown(self.game.seat_options):
                rows.append(
                    Row(
                        f"choice:{n}:{option.name}",
                        f"  seat {n + 1} {option.name}",
                        _show(seat["choices"][option.name]),
                        option.doc,
                    )
                )
        rows.append(
            Row("sit", "You sit at", "watch" if self.sit is None else f"seat {self.sit + 1}")
        )
        rows.append(
            Row("private", "Private", "yes" if self.private else "no", "unlisted; a code joins")
        )
        clock = "off" if self.turn_clock is None else f"{self.turn_clock:g} s"
        rows.append(Row("turn_clock", "Turn clock", clock, "a bot moves for a slow player"))
        rows.append(Row("create", "[ Create the room ]", "", "enter creates the room"))
        return rows

    def shown(self, options: Sequence[OptionInfo]) -> list[OptionInfo]:
        """The ``options`` that apply to the room as the form has it now."""
        return [o for o in options if applies(o, self.game, self.options, len(self.seats))]

    def request(self) -> dict[str, Any]:
        """The ``create_room`` fields the form describes (options that do not apply left
        out: the server takes their defaults)."""
        names = {option.name for option in self.shown(self.game.seat_options)}
        seats: list[SeatChoice] = []
        for seat in self.seats:
            choices = {k: v for k, v in seat["choices"].items() if k in names}
            if seat["kind"] == "human":
                seats.append(human(**choices))
            else:
                seats.append(bot(seat["bot"], **choices))
        return {
            "game": self.game.id,
            "seats": seats,
            "options": {o.name: self.options[o.name] for o in self.shown(self.game.options)},
            "sit": self.sit,
            "private": self.private,
            "turn_clock": self.turn_clock,
        }

    # -- changing values ------------------------------------------------------------------------

    def change(self, step: int) -> None:
        """Left/right on the current row."""
        key = self.rows()[self.row].key
        if key == "game":
            self.select_game(self.game_index + step)
        elif key.startswith("option:"):
            option = _option(self.game.options, key.partition(":")[2])
            self.options[option.name] = _step(option, self.options[option.name], step)
            self.fit_seats()
        elif key == "seats":
            low, high = seat_range(self.game, self.options)
            self.set_seat_count(min(max(len(self.seats) + step, max(low, 1)), max(high, 1)))
        elif key.startswith("seat:"):
            seat = self.seats[int(key.partition(":")[2])]
            kinds = self.seat_kinds()
            # A bot seat not yet changed has no kind of its own: it is the game's default
            # bot, as its row shows, and left/right step from there.
            shown = (seat["kind"], seat["bot"] or self.game.default_bot)
            if seat["kind"] == "human":
                shown = ("human", None)
            now = kinds.index(shown) if shown in kinds else 0
            seat["kind"], seat["bot"] = kinds[(now + step) % len(kinds)]
        elif key.startswith("choice:"):
            _, n, name = key.split(":")
            option = _option(self.game.seat_options, name)
            choices = self.seats[int(n)]["choices"]
            choices[name] = _step(option, choices[name], step)
        elif key == "sit":
            places: list[int | None] = [None, *range(len(self.seats))]
            self.sit = places[(places.index(self.sit) + step) % len(places)]
        elif key == "private":
            self.private = not self.private
        elif key == "turn_clock":
            self.turn_clock = (
                None
                if self.turn_clock is None and step < 0
                else max(0.0, (self.turn_clock or 0.0) + 10.0 * step) or None
            )
        if self.sit is not None and self.sit >= len(self.seats):
            self.sit = 0
        self.row = min(self.row, len(self.rows()) - 1)  # fewer options may apply now
        self.refresh()

    def type_number(self, char: str | None) -> None:
        """A digit or point typed on a numeric row (``None``: backspace)."""
        key = self.rows()[self.row].key
        text = (self.typing or "") if char is not None else (self.typing or "")[:-1]
        if char is not None:
            text += char
        self.typing = text
        try:
            number = float(text) if text else 0.0
        except ValueError:
            return
        if key.startswith("option:"):
            option = _option(self.game.options, key.partition(":")[2])
            if option.kind in ("int", "float"):
                self.options[option.name] = _step(option, number, 0)  # within min and max
                self.fit_seats()
        elif key == "seats":
            low, high = seat_range(self.game, self.options)
            self.set_seat_count(min(max(int(number), max(low, 1)), max(high, 1)))
            if self.sit is not None and self.sit >= len(self.seats):
                self.sit = 0
        elif key == "turn_clock":
            self.turn_clock = number or None
        self.refresh()

    def on_key(self, event: Key) -> None:
        rows = self.rows()
        if event.key in ("up", "down"):
            self.row = (self.row + (1 if event.key == "down" else -1)) % len(rows)
            self.typing = None
        elif event.key in ("left", "right"):
            self.change(1 if event.key == "right" else -1)
            self.typing = None
        elif event.character is not None and (event.character.isdigit() or event.character == "."):
            self.type_number(event.character)
        elif event.key == "backspace":
            self.type_number(None)
        elif event.key == "enter":
            screen: Any = self.screen
            screen.create()
        else:
            return
        event.stop()
        self.refresh()

    def render(self) -> Text:
        text = Text()
        rows = self.rows()
        top = max(0, self.row - 14)
        for index, row in enumerate(rows[top : top + 16], start=top):
            marker = "> " if index == self.row else "  "
            style = "reverse" if index == self.row else ""
            text.append(f"{marker}{row.label:<22}", style=style)
            text.append(f" {row.value}\n", style="bold" if index == self.row else "")
        doc = rows[self.row].doc
        text.append(f"\n{doc[:156]}", style="italic")
        return safe(text)  # option names, choices and help come from the server


def _option(options: Sequence[OptionInfo], name: str) -> OptionInfo:
    return next(option for option in options if option.name == name)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _step(option: OptionInfo, value: Any, step: int) -> Any:
    """The next value of an option (a choice cycles, a bool flips, a number steps by one and
    stays within the option's minimum and maximum; a step of 0 only clamps a typed number)."""
    if option.kind == "choice":
        choices = list(option.choices)
        return choices[(choices.index(value) + step) % len(choices)]
    if option.kind == "bool":
        return not value
    number = value + step
    if option.minimum is not None:
        number = max(number, option.minimum)
    if option.maximum is not None:
        number = min(number, option.maximum)
    return int(number) if option.kind == "int" else float(number)


class CreateScreen(LuminScreen):
    """The form, and the room screen once the server created the room."""

    BINDINGS = [Binding("escape", "back", "Back")]

    def compose(self) -> ComposeResult:
        yield Label("Create a room: up/down a row, left/right or digits its value, enter creates")
        yield RoomForm(list(self.lumin.games.values()))
        yield StatusLine()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(RoomForm).focus()

    def action_back(self) -> None:
        self.app.pop_screen()

    def create(self) -> None:
        from clients.terminal.room import RoomScreen

        client = self.lumin.client
        assert client is not None
        fields = self.query_one(RoomForm).request()

        def created(room: str) -> None:
            code = client.codes.get(room)
            note = None if code is None else f"Private room {room}: its code is {code}"
            self.lumin.open_from(self, RoomScreen(room, note), switch=True)

        self.lumin.request(client.create_room(**fields), created, self)
