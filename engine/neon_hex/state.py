"""Neon Hex Strategy's state: the table (factions, owners, whose turn), and the numbers of the
rules every reader of it shares (the rules, the views and the bots).

Decisions are cited by number from ``neon-hex.decisions.md``, the rulebook by section heading.
"""

from __future__ import annotations

import attrs

from engine.movelog import Entry

__all__ = [
    "COLOURS",
    "NEUTRAL",
    "RISK_BONUS",
    "RISK_COST",
    "RISK_ODDS",
    "RISK_REFUND",
    "RISK_TARGET",
    "ROLES",
    "SAFE_COST",
    "START_ENERGY",
    "WIN_HEXES",
    "Faction",
    "State",
    "income",
]

#: Roles only identify a faction (rulebook "Roles, Factions, and Difficulty"; decisions 1).
ROLES = ("builder", "technologist", "merchant", "diplomat", "explorer")
#: Faction colours a seat may pick; ``auto`` gives seat k the k-th colour.
COLOURS = ("cyan", "magenta", "lime", "amber", "violet", "red", "blue", "white")

START_ENERGY = 3
WIN_HEXES = 12
SAFE_COST = 1
RISK_COST = 2
RISK_REFUND = 1
RISK_TARGET = 9
RISK_BONUS = 2
#: Ways two dice reach 9 or more, out of 36 (rulebook "2d6 Risk Expansion").
RISK_ODDS = (sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= RISK_TARGET), 36)

NEUTRAL = -1


def income(hexes: int) -> int:
    """Energy produced at the start of a turn: 1 plus 1 per 4 hexes (decisions 4)."""
    return 1 + hexes // 4


@attrs.frozen
class Faction:
    """One faction's identity and purse. Roles and colours never change a rule (decisions 1)."""

    name: str
    role: str
    colour: str
    corner: int
    energy: int


@attrs.frozen
class State:
    """The whole table. ``owners[hex]`` is a seat, or -1 for neutral.

    ``current`` is the faction whose turn runs (its income for this turn already paid);
    ``turn`` counts turns over all factions from 1; ``claimed`` says whether the current turn
    has claimed a hex; ``quiet`` counts the finished turns in a row that claimed nothing.
    ``last_roll`` is the latest Risk roll as ``(seat, target, die, die, success)``; ``log``
    the recent happenings (:mod:`engine.movelog`).
    """

    factions: tuple[Faction, ...]
    owners: tuple[int, ...]
    current: int = 0
    turn: int = 1
    claimed: bool = False
    quiet: int = 0
    last_roll: tuple[int, ...] | None = None
    ended: str | None = None
    log: tuple[Entry, ...] = ()

    @property
    def players(self) -> int:
        return len(self.factions)

    def hexes(self, seat: int) -> int:
        """How many hexes ``seat`` controls."""
        return sum(1 for owner in self.owners if owner == seat)
