"""How ``lumin play`` names a room's seats: as the browser does (``seatLabel`` in
``clients/web/src/app/state.ts``), counted from 1, control characters made visible."""

from __future__ import annotations

from clients.terminal.text import visible
from protocol.messages import RoomSummary

__all__ = ["seat_label", "seat_names"]


def seat_label(seat: int, name: str | None, kind: str, bot: str | None) -> str:
    """A seat's name on screen: a person's name, a bot's own name, or for a bot the server
    named after its kind alone ("bot bot", "easy bot") its kind and seat number ("Bot 2",
    "Easy bot 2"), so two of one kind read apart; an open seat is "Seat 2 (open)"."""
    if kind == "open":
        return f"Seat {seat + 1} (open)"
    if kind == "bot":
        plain = f"{bot or 'bot'} bot"
        if name is not None and name != plain:
            return name
        kind_name = "Bot" if bot is None or bot == "bot" else f"{bot[:1].upper()}{bot[1:]} bot"
        return f"{kind_name} {seat + 1}"
    return name if name is not None else f"Seat {seat + 1}"


def seat_names(summary: RoomSummary | None, count: int = 0) -> list[str]:
    """Each seat's name by index (see :func:`seat_label`); ``count`` seats named by number
    when there is no summary (a private room's replay)."""
    if summary is None:
        return [f"Seat {n + 1}" for n in range(count)]
    return [visible(seat_label(s.seat, s.name, s.kind, s.bot)) for s in summary.seats]
