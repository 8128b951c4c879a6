"""The help screen (``?`` or F1): the game's how-to (:mod:`clients.terminal.howto`), how to
play it in the terminal, and the keys that apply on the screen it was opened from, now.
Up/down and page up/down scroll it, left and right turn to the other games' pages; escape
(or ``?`` again) closes it."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer

from clients.terminal.howto import BROWSER_ONLY, IN_THE_TERMINAL, how_to, how_tos
from clients.terminal.text import Plain

__all__ = ["HelpScreen", "help_text"]


def help_text(game: str, keys: Sequence[tuple[str, str]]) -> Text:
    """``game``'s how-to as text, then how to play it here, then ``keys`` (key, what it does
    now)."""
    text = Text()
    page = how_to(game)
    if page is None:
        text.append("No how-to for this game here.\n\n")
    else:
        text.append(f"How to play {page['name']}\n", style="bold reverse")
        text.append(f"{page['tagline']}\n{page['players']}\n")
        for section in page["sections"]:
            if section["title"] == BROWSER_ONLY:
                continue
            text.append(f"\n{section['title']}\n", style="bold underline")
            for item in section["body"]:
                if isinstance(item, str):
                    text.append(f"{item}\n")
                else:
                    for line in item:
                        text.append(f" • {line}\n")
        playing = IN_THE_TERMINAL.get(game, [])
        if playing:
            text.append("\nPlaying it here\n", style="bold underline")
            for line in playing:
                text.append(f" • {line}\n")
    if keys:
        text.append("\nKeys now\n", style="bold underline")
        width = max(len(key) for key, _ in keys)
        for key, what in keys:
            text.append(f" {key:<{width}}  ", style="bold")
            text.append(f"{what}\n")
    return text


class HelpScreen(ModalScreen[None]):
    """The how-to of ``game`` and the ``keys`` that apply now (see the module docstring)."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 100%; max-width: 100; height: 1fr;
                                  border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark,f1", "close", "Close", show=False),
        # Before the scrolling page's own left and right (it never scrolls sideways).
        Binding("left", "turn(-1)", "Other game", priority=True),
        Binding("right", "turn(1)", "Other game", show=False, priority=True),
    ]

    def __init__(self, game: str, keys: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__()
        self.game = game
        self.first = game
        self.keys = list(keys)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="howto"):
            yield Plain(help_text(self.game, self.keys), id="howto-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_turn(self, step: int) -> None:
        """Show the next (or previous) game's page; the keys belong to the game it was
        opened for, so only its page lists them."""
        ids = [page["id"] for page in how_tos()]
        now = ids.index(self.game) if self.game in ids else -1
        self.game = ids[(now + step) % len(ids)]
        keys = self.keys if self.game == self.first else []
        self.query_one("#howto-text", Plain).update(help_text(self.game, keys))
        self.query_one(VerticalScroll).scroll_home(animate=False)
