"""Neon Flip's state: the table (board, dashboards, piles, market, phase, a pending cascade,
PROTO-ZERO's deck in solo), the numbers of the rules its readers share, and the queries over a
state that the rules, the views and the scoring share (sides, opponents, locks, the Overdrive
threshold and clock).

Sources: ``neon-flip.rulebook.txt`` (cited by section number) and ``neon-flip.decisions.md``
(cited by number).
"""

from __future__ import annotations

import attrs

from engine.movelog import Entry
from engine.neon_flip.board import PINK
from engine.neon_flip.cards import PROTO_ZERO, Context

__all__ = [
    "BONUS_TILES",
    "BUY_COST",
    "FIFTY",
    "HAND_LIMIT",
    "INCOME",
    "LOCK_COST",
    "LOCK_LIMIT",
    "MANUAL_FLIPS_PER_TURN",
    "MANUAL_FLIP_COST",
    "MARKET_SIZE",
    "START_HAND",
    "Pending",
    "Player",
    "State",
    "clock_deadline",
    "context",
    "locked_cells",
    "opponents",
    "sides",
    "team_of",
    "threshold",
]

HAND_LIMIT = 6
MARKET_SIZE = 3
START_HAND = 4
MANUAL_FLIP_COST = 2
MANUAL_FLIPS_PER_TURN = 2
BUY_COST = 1
LOCK_COST = 3
LOCK_LIMIT = 2
INCOME = 2
BONUS_TILES = 10
FIFTY = 50


@attrs.frozen
class Player:
    """One seat's dashboard. ``locks`` are cells; ``drain_next`` is the surcharge waiting for
    the seat's next turn; ``longest`` its longest cascade chain (decisions 5)."""

    colour: int
    energy: int
    hand: tuple[str, ...] = ()
    offers: tuple[str, ...] = ()
    objective: str = ""
    vp: int = 0
    locks: tuple[int, ...] = ()
    longest: int = 0
    drain_next: int = 0


@attrs.frozen
class Pending:
    """A cascade waiting for its player's next choice: it continues from ``sources``."""

    seat: int
    sources: tuple[int, ...]
    made: int
    limit: int


@attrs.frozen
class State:
    """The table. ``board`` holds 36 colour indexes by cell; ``draw`` is top first; an empty
    string marks an empty market slot; ``owed`` lists draws the empty pile could not make,
    as ``("hand", seat)`` or ``("market", slot)``."""

    mode: str
    teams: bool
    obstacles: bool
    rounds: int
    clock: int
    board: tuple[int, ...]
    players: tuple[Player, ...]
    draw: tuple[str, ...]
    market: tuple[str, ...]
    objective_deck: tuple[str, ...]
    turn: int
    discard: tuple[str, ...] = ()
    phase: str = "objectives"
    turns: int = 0
    surcharge: int = 0
    manual_flips: int = 0
    pending: Pending | None = None
    owed: tuple[tuple[str, int], ...] = ()
    round_over: bool = False
    checkpoints: int = 0
    ai_deck: tuple[str, ...] = ()
    ai_played: tuple[str, ...] = ()
    ai_energy: int = 0
    ai_drained: int = 0
    clock_start: float | None = None
    clock_out: bool = False
    ended: str = ""
    #: The seat that moved first (decisions 3), for the outcome's details.
    first: int = 0
    #: PROTO-ZERO's level in solo: ``standard`` (decisions 16) or ``overclocked`` (16a).
    proto_zero: str = "standard"
    #: The recent happenings (:mod:`engine.neon_flip.movelog`).
    log: tuple[Entry, ...] = ()

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def solo(self) -> bool:
        return self.mode == "solo"

    @property
    def overdrive(self) -> bool:
        return self.mode == "overdrive"


def locked_cells(state: State) -> frozenset[int]:
    """Every cell under a lock, whoever placed it."""
    return frozenset(cell for player in state.players for cell in player.locks)


def team_of(state: State, seat: int) -> int:
    """A seat's side: with ``teams`` seats 0 and 2 (Cyan, Green) against 1 and 3 (Pink,
    Yellow) (decisions 2); otherwise every seat is its own side."""
    return seat % 2 if state.teams else seat


def sides(state: State) -> list[list[int]]:
    """The seats of each side, in side order."""
    if state.teams:
        return [[0, 2], [1, 3]]
    return [[seat] for seat in range(state.seats)]


def opponents(state: State, seat: int) -> tuple[int, ...]:
    """The seats a card may target as opponents; ``(-1,)`` (PROTO-ZERO) in solo."""
    if state.solo:
        return (PROTO_ZERO,)
    mine = team_of(state, seat)
    return tuple(s for s in range(state.seats) if team_of(state, s) != mine)


def context(state: State, seat: int) -> Context:
    """What the card effects need to judge ``seat``'s plays."""
    rivals = opponents(state, seat)
    colours = (PINK,) if state.solo else tuple(state.players[s].colour for s in rivals)
    return Context(
        board=state.board,
        locked=locked_cells(state),
        colour=state.players[seat].colour,
        opponents=rivals,
        opponent_colours=colours,
    )


def threshold(state: State) -> int:
    """Tiles a player (or team) must show at the start of its turn to end Overdrive: two
    thirds of the tiles its colours can ever show (decisions 14)."""
    if state.teams:
        return 24
    if state.seats == 2:
        return 16 if state.obstacles else 24
    return 12


def clock_deadline(state: State) -> float | None:
    """The Overdrive game clock's end, once the first turn has started (decisions 14)."""
    if not state.overdrive or state.phase == "over" or state.clock_out or state.clock_start is None:
        return None
    return state.clock_start + state.clock * 60.0
