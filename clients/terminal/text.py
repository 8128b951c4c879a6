"""Text from the server or from other people, as ``lumin play`` shows it: always as text.

A name, a chat line, a refusal, a room id or a board's words is never read as markup (a guest
named ``[/]`` or ``[@click=app.quit]`` shows those characters, and no link or action comes of
it), and no control character reaches the terminal: the C0 controls and DEL are drawn as
Unicode's control pictures (``␛`` for escape, ``␊`` for a newline inside a name), every other
character a terminal could take as an instruction or that reorders the text around it (the C1
controls, the bidirectional controls, the line and paragraph separators, lone surrogates) as
``�``. One character is drawn for each, so a :class:`rich.text.Text`'s styles keep their places.
(Where a board draws a view's strings into its ``Text``, Rich itself drops a bell, backspace,
vertical tab, form feed or carriage return before this module sees it; those never reach the
terminal either.)

Every widget that shows such text takes it through here: :class:`Plain` (a ``Static`` for the
status line, headings, seat lists and boards), :func:`plain` for a line of a table, a list or
the chat log, and :func:`safe` for a ``Text`` a screen drew itself.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.widgets import Static

__all__ = ["Plain", "PlainLabel", "plain", "safe", "visible"]

#: Characters never sent to the terminal as they are: C0 and C1 controls and DEL, the
#: bidirectional marks, embeddings, overrides and isolates, the line and paragraph separators,
#: and surrogates (which a terminal's UTF-8 cannot even encode).
_HIDDEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
_HIDDEN_BUT_NEWLINES = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _picture(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code < 0x20:
        return chr(0x2400 + code)  # SYMBOL FOR NULL ... SYMBOL FOR UNIT SEPARATOR
    if code == 0x7F:
        return "\u2421"  # SYMBOL FOR DELETE
    return "\ufffd"


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character made visible (see the module docstring), one
    character for one; with ``lines``, newlines stay newlines."""
    return (_HIDDEN_BUT_NEWLINES if lines else _HIDDEN).sub(_picture, text)


def plain(value: object, style: str = "") -> Text:
    """``value`` as one line of plain text (never markup, no control character)."""
    return Text(visible(str(value)), style=style, end="")


def safe(text: Text) -> Text:
    """A copy of ``text`` (which may hold what the server sent) with its control characters
    made visible, its newlines and styles kept."""
    shown = visible(text.plain, lines=True)
    if shown == text.plain:
        return text
    copy = text.copy()
    copy.plain = shown  # as long as before: every span stays on its characters
    return copy


class Plain(Static):
    """A ``Static`` that shows what it is given as text: a string is never markup and a
    ``Text`` keeps its styles; in both, control characters are made visible."""

    def __init__(self, content: str | Text = "", **options: Any) -> None:
        super().__init__(self._shown(content), markup=False, **options)

    @staticmethod
    def _shown(content: str | Text) -> Text:
        if isinstance(content, Text):
            return safe(content)
        return Text(visible(content, lines=True))

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        super().update(self._shown(content), layout=layout)


class PlainLabel(Plain):
    """A :class:`Plain` as wide as its text, as a ``Label`` is (headings)."""

    DEFAULT_CSS = "PlainLabel { width: auto; height: auto; }"
