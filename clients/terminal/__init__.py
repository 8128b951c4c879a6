"""``lumin play``: a full-screen terminal client for every Lumin game (docs/terminal.md).

Built on Textual: it draws in any terminal (80x24 upward, colour or monochrome with
``NO_COLOR``), runs on asyncio like the client library it uses (one event loop for the
websocket and the screen, no threads), and ships a headless test pilot (``App.run_test``) that
presses keys exactly as a player would, so the tests play whole games through the keyboard.
Curses would leave layout, widgets and testing to hand-written code; urwid has no asyncio-first
design nor a comparable pilot.

The client knows nothing about the games but what the server sends: views, ``legal`` and
``GameInfo`` (it imports nothing of ``engine/`` or ``server/``).
"""

from __future__ import annotations

from clients.terminal.app import LuminApp

__all__ = ["LuminApp", "run"]


def run(url: str, name: str, token: str | None = None) -> int:
    """Run ``lumin play`` in this terminal until the player quits; returns the exit status
    (1 when no Lumin server answered at ``url``, with the reason printed)."""
    app = LuminApp(url, name, token)
    app.run()
    return app.return_code or 0
