"""Neon Hex Strategy's commands (what a faction sends) and events (what the rules decided).

Hexes are ids 0-36 (see :data:`engine.neon_hex.board.HEXES`); decisions are cited by number from
``neon-hex.decisions.md``, the rulebook by section heading.
"""

from __future__ import annotations

import attrs

from engine.core import Command, Event

__all__ = [
    "COMMANDS",
    "EVENTS",
    "EndTurn",
    "Expand",
    "Expanded",
    "GameEnded",
    "RiskRolled",
    "TurnEnded",
    "TurnStarted",
]


# --- commands ----------------------------------------------------------------------------------


@attrs.frozen
class Expand(Command):
    """Expand into neutral hex ``target`` (an id, see ``board.HEXES``) beside the faction's
    territory (decisions 6). ``kind`` is ``"safe"`` or ``"risk"``; a Risk command may name up
    to two ``bonus`` hexes (neutral, beside the target); ``source`` optionally names the owned
    hex the expansion comes from."""

    TYPE = "expand"
    target: int
    kind: str = "safe"
    bonus: tuple[int, ...] = ()
    source: int | None = None


@attrs.frozen
class EndTurn(Command):
    """End the faction's turn; unspent Energy carries over (decisions 4, 5)."""

    TYPE = "end_turn"


# --- events ------------------------------------------------------------------------------------


@attrs.frozen
class TurnStarted(Event):
    """``seat``'s turn ``turn`` (counted over all factions, from 1) began and it produced
    ``income`` Energy (rulebook "Turn and Energy Rules"; decisions 4)."""

    TYPE = "turn_started"
    seat: int
    turn: int
    income: int


@attrs.frozen
class Expanded(Event):
    """A Safe Expansion: ``seat`` paid ``cost`` Energy and claimed ``target``
    (rulebook "Safe Expansion")."""

    TYPE = "expanded"
    seat: int
    target: int
    cost: int


@attrs.frozen
class RiskRolled(Event):
    """A Risk Expansion: ``seat`` paid ``cost`` and rolled ``dice``; on a total of 9+ it claimed
    ``claimed`` (the target first, then the bonus hexes) and got ``refund`` back
    (rulebook "2d6 Risk Expansion"; decisions 6)."""

    TYPE = "risk_rolled"
    seat: int
    target: int
    dice: tuple[int, ...]
    success: bool
    claimed: tuple[int, ...]
    cost: int
    refund: int


@attrs.frozen
class TurnEnded(Event):
    """``seat``'s turn ended: ``"ended"`` by its own command, ``"no_expansion"`` by the server
    because no neutral hex borders its territory (decisions 5)."""

    TYPE = "turn_ended"
    seat: int
    reason: str


@attrs.frozen
class GameEnded(Event):
    """The game ended: ``"twelve_hexes"`` (a faction reached 12), ``"board_full"`` or
    ``"stalled"`` (a full round of turns without a claim) (decisions 7)."""

    TYPE = "game_ended"
    reason: str


#: Every command Neon Hex takes, and every event it records.
COMMANDS: tuple[type[Command], ...] = (Expand, EndTurn)
EVENTS: tuple[type[Event], ...] = (TurnStarted, Expanded, RiskRolled, TurnEnded, GameEnded)
