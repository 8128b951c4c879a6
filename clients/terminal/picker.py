"""A small modal list: pick one of a few options by arrows and enter (escape cancels)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList

from clients.terminal.text import PlainLabel, plain

__all__ = ["PickScreen"]


class PickScreen(ModalScreen[Any]):
    """Asks ``title`` and dismisses with the chosen option's value (``None`` on escape). The
    title and the options' labels are shown as text (they may hold the server's words)."""

    DEFAULT_CSS = """
    PickScreen { align: center middle; }
    PickScreen > Vertical { width: 60; height: auto; max-height: 20; border: round $accent;
                            background: $surface; padding: 0 1; }
    PickScreen OptionList { height: auto; max-height: 16; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, options: Sequence[tuple[str, Any]]) -> None:
        super().__init__()
        self.title_text = title
        self.options = list(options)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield PlainLabel(self.title_text)
            yield OptionList(*[plain(label) for label, _ in self.options], id="pick")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.options[event.option_index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)
