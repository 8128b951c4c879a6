"""What every board draws from, and what a board module provides.

A board turns a game's view (as the server sends it) into text for the terminal, describes
each legal command in words, and may map keys to commands (Flash 8's arrows). Boards read
nothing but the view, the legal entries and the room summary: no rules of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from clients.sdk.legal import Option

__all__ = ["ENDINGS", "Board", "Context", "Prompt", "Reply", "ending_sentence", "outcome_text"]


@dataclass
class Context:
    """One moment of a room as a board draws it.

    ``seat`` is the viewer's seat (``None`` for a spectator or a public replay), ``choices``
    the expanded legal commands, ``highlight`` the one the player is looking at (its preview is
    drawn), ``now`` the room clock in seconds (a replay's ``at``), ``names`` the seats' names,
    ``live`` false in a replay (no animation). Boards mark everything in letters and words as
    well as colour, so they draw the same under ``NO_COLOR``."""

    view: Any
    seat: int | None
    choices: Sequence[Option] = ()
    highlight: Option | None = None
    now: float = 0.0
    names: Sequence[str] = ()
    live: bool = True


@dataclass
class Prompt:
    """A question a key asks before a command exists (which line, which shape...): the player
    picks one of ``options`` (label, value) and ``then`` turns the value into the next step."""

    title: str
    options: Sequence[tuple[str, Any]]
    then: Callable[[Any], Reply]


#: What a key gives: a command to send, a question to ask first, or nothing (key unused).
Reply = Mapping[str, Any] | Prompt | str | None


@dataclass
class Board:
    """The generic board: the view's top-level fields as text. Game boards subclass it."""

    game: str = ""
    #: Whether the board takes the keys (real time games) rather than the command list.
    takes_keys: bool = False
    #: Seconds between redraws while the game runs (a live clock), or 0 for none.
    tick: float = 0.0
    #: The board's own keys in a few words (under the command list, at most 24 characters).
    keys_help: str = "enter sends"

    def render(self, ctx: Context) -> Text:
        """The board as text (at most 50 columns and 16 rows for an 80x24 terminal)."""
        text = Text()
        view = ctx.view
        if not isinstance(view, Mapping):
            return Text("(no view yet)")
        for key, value in view.items():
            text.append(f"{key}: ", style="bold")
            text.append(f"{_short(value)}\n")
        return text

    def moving(self, view: Any) -> bool:
        """Whether the board changes by itself now (a running clock, tiles still turning), so
        the screen redraws it every :attr:`tick` seconds."""
        return False

    def describe(self, choice: Option, ctx: Context) -> str:
        """A command in words, for the command list."""
        fields = ", ".join(
            f"{key} {value}" for key, value in choice.command.items() if key != "type"
        )
        return f"{choice.type.replace('_', ' ')} {fields}".strip()

    def key(self, key: str, ctx: Context) -> Reply:
        """The command (or question) a key stands for now; ``None`` when the key means nothing
        here. A string is a message for the player (why the key did nothing)."""
        return None


def _short(value: Any, limit: int = 60) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: How a game ended, in a sentence, by the outcome's ``reason`` (the browser client's words).
ENDINGS: dict[str, str] = {
    "board_full": "The board is full.",
    "tiles_exhausted": "No tiles are left to play.",
    "twelve_hexes": "A faction reached 12 hexes.",
    "stalled": "A full round passed without a claim.",
    "stacks_empty": "Every stack is empty.",
    "time_up": "Time is up.",
    "reserve_empty": "The reserve is empty.",
    "dead_end": "No line can be reproduced any more.",
    "rounds": "The last checkpoint was counted.",
    "fifty": "A side reached 50 VP at a checkpoint.",
    "overdrive": "A side held two thirds of the grid.",
    "clock": "The game clock ran out.",
    "wiped": "PROTO-ZERO was wiped from the grid.",
    "ai_deck_spent": "PROTO-ZERO's deck is spent.",
}


def ending_sentence(reason: str) -> str:
    """The sentence for an outcome's ``reason``; an id it does not know, in words."""
    known = ENDINGS.get(reason)
    if known is not None:
        return known
    text = reason.replace("_", " ").strip() or "over"
    return text[0].upper() + text[1:] + "."


def outcome_text(view: Mapping[str, Any], names: Sequence[str]) -> Text:
    """The outcome of a finished game (``view["outcome"]``) in words, or empty text."""
    outcome = view.get("outcome") if isinstance(view, Mapping) else None
    text = Text()
    if not isinstance(outcome, Mapping):
        return text
    winners = [_name(names, seat) for seat in outcome.get("winners", ())]
    text.append("GAME OVER", style="bold reverse")
    text.append(f"  {ending_sentence(str(outcome.get('reason', '')))}\n")
    text.append("Winner: " + (", ".join(winners) or "nobody") + "\n", style="bold")
    ranks = outcome.get("ranks", ())
    scores = outcome.get("scores", ())
    for seat, (rank, score) in enumerate(zip(ranks, scores, strict=False)):
        text.append(f"  #{rank} {_name(names, seat)}: {score:g}\n")
    return text


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"Seat {seat + 1}"
