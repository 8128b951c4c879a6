"""Finished games made in-process for the replay and verify tests: a bot-only match of a real
game played out on the simulated clock, kept as the room would have stored it (its row and its
records, one per command or clock tick)."""

from __future__ import annotations

from typing import Any

from engine.core import Command, Event, to_wire
from engine.match import Match, make_bots, play_out
from engine.registry import get_game
from protocol.fairness import commit
from server.seats import seat_specs
from server.store import Record, RoomRow

SEED, SALT = bytes(range(16)), bytes(range(16, 32))


def finished_game(
    game_id: str, seats: int = 2, private: bool = False, user: str = "u-ada"
) -> tuple[RoomRow, list[Record]]:
    """A finished game of ``game_id`` between ``seats`` default bots, seat 0 held by ``user``
    (a person who played), as its stored row and records."""
    game = get_game(game_id)
    stored: list[dict[str, Any]] = [{"kind": "human", "user": user, "name": "Ada", "choices": {}}]
    stored += [
        {"kind": "bot", "bot": game.default_bot, "name": f"Bot {n}", "choices": {}}
        for n in range(1, seats)
    ]
    # Dealt as a room deals its stored seats; every seat is played by the game's default bot.
    match = Match.start(game, seat_specs(stored), SEED)
    records: list[Record] = []

    def keep(match: Match, seat: int | None, command: Command | None, events: list[Event]) -> None:
        records.append(
            Record(
                seq=len(records) + 1,
                position=len(match.log) - len(events),
                seat=seat,
                command=None if command is None else to_wire(command),
                at=match.now,
                events=tuple(to_wire(event) for event in events),
            )
        )

    play_out(match, make_bots(match, [game.default_bot] * seats, SEED), on_step=keep)
    assert match.outcome is not None
    row = RoomRow(
        f"{game_id}-done", game_id, dict(match.options), stored, SEED, SALT, commit(SEED, SALT),
        private, "CODE42" if private else None, user, "finished", 1.0, 2.0, 3.0, {},
    )  # fmt: skip
    return row, records
