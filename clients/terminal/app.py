"""The ``lumin play`` application: one connection, the lobby first, a screen per room.

The app owns one :class:`clients.sdk.LuminClient` (it reconnects, resumes and follows
``moved`` by itself) and one reader task that takes every message the client receives and
hands it to the screens that are open (``on_server``), then tells them of every room the client
library closed to this player meanwhile (``on_closed``, with its
:class:`~clients.sdk.events.Closed`: the room closed, the seat taken, or a room that could not
be resumed after a reconnect). Requests run as workers; a refusal is shown in words on the
status line, and the connection and the screen stay.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from rich.text import Text
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from clients.sdk import Closed, LuminClient, ServerError
from clients.terminal.text import visible
from protocol.messages import GameInfo, Message

__all__ = ["LuminApp"]

T = TypeVar("T")


class LuminApp(App[None]):
    """``lumin play``: connect to ``url`` as ``name`` (with ``token``, the identity comes back
    with its seats) and open the lobby."""

    TITLE = "Lumin"
    #: Seconds to keep reconnecting after a drop before the client gives up (a person at a
    #: terminal waits for a server that restarts, and sees RECONNECTING meanwhile).
    GIVE_UP = 900.0
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]
    CSS = """
    Screen { layout: vertical; }
    #status { height: 1; background: $boost; }
    """

    def __init__(self, url: str, name: str = "player", token: str | None = None) -> None:
        super().__init__()
        self.url = url
        self.player_name = name
        self.token = token
        self.client: LuminClient | None = None
        self.games: dict[str, GameInfo] = {}
        self.failure: str | None = None
        self._reader: asyncio.Task[None] | None = None

    @property
    def colour(self) -> bool:
        """Whether the terminal shows colour (``NO_COLOR`` unset)."""
        return not self.no_color

    def server_time(self) -> float:
        """The server's clock now, as the client library estimates it (room clocks)."""
        return time.time() if self.client is None else self.client.server_time()

    async def on_mount(self) -> None:
        from clients.terminal.lobby import LobbyScreen

        try:
            self.client = await LuminClient.connect(
                self.url,
                self.player_name,
                token=self.token,
                new_identity=True,
                give_up=self.GIVE_UP,
            )
            self.games = {game.id: game for game in await self.client.list_games()}
        except ServerError as error:
            self.failure = error.message
            self.exit(return_code=1, message=Text(visible(f"lumin play: {error.message}")))
            return
        self._reader = asyncio.create_task(self._read())
        await self.push_screen(LobbyScreen())
        if self.client.token_refused is not None:
            self.say(
                f"The server did not know your --token, so you play as a new guest,"
                f" {self.client.name} (i: this identity's token)."
            )

    async def on_unmount(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self.client is not None:
            await self.client.close()

    async def _read(self) -> None:
        """Hand every message the client receives to the open screens, in order, and after
        each the rooms closed to this player since (the client library keeps them in
        ``closed``: a ``room_closed``, a ``kicked``, or a resume refused for good, which comes
        as the answer to a request and names no room)."""
        client = self.client
        assert client is not None
        told = dict(client.closed)
        while True:
            message = await client.messages.get()
            self._tell("on_server", message)
            news = [c for room, c in client.closed.items() if told.get(room) is not c]
            told = dict(client.closed)
            for closed in news:
                self._tell("on_closed", closed)

    def _tell(self, name: str, what: Message | Closed) -> None:
        """Call every open screen's handler ``name`` (if it has one) with ``what``."""
        for screen in list(self.screen_stack):
            handler: Callable[[Any], None] | None = getattr(screen, name, None)
            if handler is not None:
                try:
                    handler(what)
                except Exception as error:  # a drawing bug must not stop the reader
                    self.log.error(f"{name} failed: {error!r}")

    def request(
        self,
        work: Awaitable[T],
        then: Callable[[T], Any] | None = None,
        screen: Screen[Any] | None = None,
    ) -> None:
        """Run a request in the background; ``then`` gets its answer. A refusal is shown on
        ``screen``'s status line (or as a notification); so is a failure of ``then`` itself
        (a bug, logged): the app and its screens stay."""

        async def run() -> None:
            try:
                answer = await work
                if then is not None:
                    result = then(answer)
                    if asyncio.iscoroutine(result):
                        await result
            except ServerError as error:
                self.say(error.message, screen)  # players read sentences, not codes
            except Exception as error:
                self.log.error(f"request failed: {error!r}")
                self.say(f"Something went wrong here ({error!r}); the game goes on.", screen)

        self.run_worker(run(), group="requests", exit_on_error=False)

    def open_from(self, screen: Screen[Any], new: Screen[Any], switch: bool = False) -> bool:
        """Push ``new`` (or, with ``switch``, put it in place of ``screen``) when ``screen`` is
        still the one shown: an answer that comes after the player moved on opens nothing
        over what they look at now. Returns whether it did."""
        if self.screen is not screen:
            return False
        if switch:
            self.switch_screen(new)
        else:
            self.push_screen(new)
        return True

    def say(self, text: str, screen: Screen[Any] | None = None) -> None:
        """Show a sentence to the player on the screen's status line (or as a notification),
        as text: it may hold the server's words."""
        target = screen or self.screen
        show: Callable[[str], None] | None = getattr(target, "show_status", None)
        if show is not None:
            show(text)
        else:
            self.notify(visible(text), markup=False)
