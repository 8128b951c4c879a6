"""The status line every screen shows: the connection (in words), then the latest sentence
for the player (a refusal, what a key did)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from textual.screen import Screen

from clients.terminal.text import Plain, plain

if TYPE_CHECKING:
    from clients.terminal.app import LuminApp

__all__ = ["LuminScreen", "StatusLine"]


class StatusLine(Plain):
    """One line: ``online``/``RECONNECTING`` and the last message (the server's words and
    names as text, :mod:`clients.terminal.text`)."""

    DEFAULT_CSS = "StatusLine { height: 1; background: $boost; }"

    def __init__(self) -> None:
        super().__init__("", id="status")
        self.message = ""

    def on_mount(self) -> None:
        self.set_interval(0.5, self.refresh_line)
        self.refresh_line()

    def refresh_line(self) -> None:
        app: Any = self.app
        client = getattr(app, "client", None)
        if client is None:
            state = "connecting"
        elif client.failure is not None:  # the client ended: say why, in its words
            state = f"OFFLINE ({client.failure.code}): {client.failure.message}"
        else:
            state = f"{client.name}: online" if client.online else "RECONNECTING..."
        self.update(plain(f"[{state}] {self.message}"))

    def show(self, text: str) -> None:
        self.message = text
        self.refresh_line()


class LuminScreen(Screen[Any]):
    """A screen with a :class:`StatusLine` (``show_status`` writes to it)."""

    @property
    def lumin(self) -> LuminApp:
        return self.app  # type: ignore[return-value]

    @property
    def server(self) -> str:
        """The server this client is connected to now, as ``host:port`` (on a cluster, the
        node it followed ``moved`` to)."""
        client = self.lumin.client
        url = client.url if client is not None else self.lumin.url
        return urlsplit(url).netloc or url

    def show_status(self, text: str) -> None:
        for line in self.query(StatusLine):
            line.show(text)
