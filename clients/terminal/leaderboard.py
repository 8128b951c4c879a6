"""Leaderboards: each game's best players by rating, pool by pool (``GET /leaderboard`` on
the server the client is connected to; docs/protocol.md, "Leaderboards and history")."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer

from clients.terminal.status import LuminScreen, StatusLine
from clients.terminal.text import PlainLabel, plain

__all__ = ["LeaderboardScreen"]


class LeaderboardScreen(LuminScreen):
    """One game's pool at a time: rank, name, rating and rated games. ``g`` goes to the next
    game, ``p`` to the game's next pool, escape back to the lobby."""

    DEFAULT_CSS = "#board { height: 1fr; }"

    BINDINGS = [
        Binding("g", "next_game", "Next game"),
        Binding("p", "next_pool", "Next pool"),
        Binding("escape", "back", "Lobby"),
    ]

    def __init__(self, game: str | None = None) -> None:
        super().__init__()
        self.game = game
        self.pool: str | None = None
        self.pools: list[str] = []

    def compose(self) -> ComposeResult:
        yield PlainLabel("Leaderboard", id="title")
        yield DataTable(id="board", cursor_type="row", zebra_stripes=True)
        yield StatusLine()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("rank", "player", "rating", "rated games")
        if self.game is None:
            self.game = next(iter(self.lumin.games), None)
        self.load()

    def load(self) -> None:
        """Ask the server for the board of :attr:`game` and :attr:`pool`."""
        client = self.lumin.client
        if client is None or self.game is None:
            self.show_status("No game to show: the server lists none.")
            return
        self.lumin.request(client.leaderboard(self.game, self.pool), self.show, self)

    def show(self, board: dict[str, Any]) -> None:
        self.pool, self.pools = board["pool"], list(board.get("pools", [board["pool"]]))
        info = self.lumin.games.get(board["game"])
        name = info.name if info is not None else board["game"]
        more = f" ({len(self.pools)} pools: p for the next)" if len(self.pools) > 1 else ""
        self.query_one("#title", PlainLabel).update(f"Leaderboard: {name}, pool {self.pool}{more}")
        table = self.query_one(DataTable)
        table.clear()
        for player in board["players"]:
            games = player["games"]
            table.add_row(
                plain(f"#{player['rank']}"),
                plain(player["name"]),
                plain(f"{player['rating']:.1f}"),
                plain(f"{games} game{'s' if games != 1 else ''}"),
            )
        if not board["players"]:
            self.show_status("Nobody is on this board yet: rated games put players here.")
        else:
            self.show_status(f"{len(board['players'])} players, best first.")

    def action_next_game(self) -> None:
        games = list(self.lumin.games)
        if not games:
            return
        at = games.index(self.game) if self.game in games else -1
        self.game, self.pool = games[(at + 1) % len(games)], None
        self.load()

    def action_next_pool(self) -> None:
        if len(self.pools) < 2 or self.pool not in self.pools:
            return
        self.pool = self.pools[(self.pools.index(self.pool) + 1) % len(self.pools)]
        self.load()

    def action_back(self) -> None:
        self.app.pop_screen()
