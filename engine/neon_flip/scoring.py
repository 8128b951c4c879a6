"""Scoring: tile counts, Continuous Circuits, the 12 Target Objectives, the final tally and
the outcome with its tie-breakers.

Sources: rulebook 2.6 ("Final Scoring", "Tie-Breakers") and neon-flip.decisions 10, 13 and 15.
Every check takes the board (a tuple of 36 colour indexes) and one colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.core import Outcome
from engine.neon_flip.board import (
    BLOCKS,
    CENTRE,
    COLUMNS,
    CORNERS,
    DIAGONALS,
    EDGES,
    PINK,
    QUADRANTS,
    ROWS,
    WINDOWS,
    block_cells,
    runs,
)
from engine.neon_flip.state import State, sides

__all__ = [
    "CIRCUIT_POINTS",
    "OBJECTIVES",
    "OBJECTIVE_NAMES",
    "OBJECTIVE_POINTS",
    "Board",
    "circuits",
    "corners",
    "count",
    "objective_met",
    "outcome",
    "surplus",
]

CIRCUIT_POINTS = 3
OBJECTIVE_POINTS = 5

Board = Sequence[int]


def count(board: Board, colour: int) -> int:
    """Tiles showing ``colour`` (Grid Dominance, rulebook 2.6)."""
    return sum(1 for tile in board if tile == colour)


def corners(board: Board, colour: int) -> int:
    """Corner tiles showing ``colour`` (first tie-breaker, rulebook 2.6)."""
    return sum(1 for cell in CORNERS if board[cell] == colour)


def circuits(board: Board, colour: int) -> int:
    """Maximal straight runs of 4 or more along rows and columns (decisions 13)."""
    return sum(1 for length in runs(board, colour, ROWS + COLUMNS) if length >= 4)


def surplus(energy: int) -> int:
    """Resource Surplus: 1 point per 3 Energy (rulebook 2.6)."""
    return energy // 3


def _all(board: Board, colour: int, cells: Sequence[int]) -> bool:
    return all(board[cell] == colour for cell in cells)


def _corner_control(board: Board, colour: int, players: int) -> bool:
    return _all(board, colour, CORNERS)


def _diagonal_link(board: Board, colour: int, players: int) -> bool:
    return any(length >= 4 for length in runs(board, colour, DIAGONALS))


def _core_access(board: Board, colour: int, players: int) -> bool:
    return _all(board, colour, CENTRE)


def _full_row(board: Board, colour: int, players: int) -> bool:
    return any(_all(board, colour, row) for row in ROWS)


def _full_column(board: Board, colour: int, players: int) -> bool:
    return any(_all(board, colour, column) for column in COLUMNS)


def _perimeter_hold(board: Board, colour: int, players: int) -> bool:
    return sum(1 for cell in EDGES if board[cell] == colour) >= 12


def _twin_circuits(board: Board, colour: int, players: int) -> bool:
    windows = [set(w) for w in WINDOWS if _all(board, colour, w)]
    return any(not first & second for i, first in enumerate(windows) for second in windows[i + 1 :])


def _sector_lord(board: Board, colour: int, players: int) -> bool:
    return any(_all(board, colour, block_cells(top_left)) for top_left in BLOCKS)


def _spread(lines: Sequence[Sequence[int]]) -> Callable[[Board, int, int], bool]:
    def check(board: Board, colour: int, players: int) -> bool:
        need = 3 if players <= 2 else 2
        return all(sum(1 for cell in line if board[cell] == colour) >= need for line in lines)

    return check


def _quadrant_sweep(board: Board, colour: int, players: int) -> bool:
    for quadrant in QUADRANTS:
        tally = [0, 0, 0, 0]
        for cell in quadrant:
            tally[board[cell]] += 1
        mine = tally[colour]
        if any(tally[other] >= mine for other in range(4) if other != colour):
            return False
    return True


_ANCHORS = ((0, 5, 2, 3), (30, 35, 32, 33), (0, 30, 12, 18), (5, 35, 17, 23))


def _anchor_pair(board: Board, colour: int, players: int) -> bool:
    return any(_all(board, colour, edge) for edge in _ANCHORS)


#: The 12 Target Objective cards (decisions 10): key -> (name, check(board, colour, players)).
OBJECTIVES: dict[str, tuple[str, Callable[[Board, int, int], bool]]] = {
    "corner_control": ("Corner Control", _corner_control),
    "diagonal_link": ("Diagonal Link", _diagonal_link),
    "core_access": ("Core Access", _core_access),
    "full_row": ("Full Row", _full_row),
    "full_column": ("Full Column", _full_column),
    "perimeter_hold": ("Perimeter Hold", _perimeter_hold),
    "twin_circuits": ("Twin Circuits", _twin_circuits),
    "sector_lord": ("Sector Lord", _sector_lord),
    "spread_network": ("Spread Network", _spread(ROWS)),
    "pillar_network": ("Pillar Network", _spread(COLUMNS)),
    "quadrant_sweep": ("Quadrant Sweep", _quadrant_sweep),
    "anchor_pair": ("Anchor Pair", _anchor_pair),
}

OBJECTIVE_NAMES: dict[str, str] = {key: name for key, (name, _) in OBJECTIVES.items()}


def objective_met(key: str, board: Board, colour: int, players: int) -> bool:
    """Whether the objective ``key`` holds for ``colour`` with ``players`` in the game."""
    return OBJECTIVES[key][1](board, colour, players)


# --- the final tally ---------------------------------------------------------------------------


def outcome(state: State) -> Outcome | None:
    """Final tally (decisions 13), ranks by sides with the tie-breakers of rulebook 2.6
    (decisions 15); solo is won or lost against PROTO-ZERO (decisions 18)."""
    if state.phase != "over":
        return None
    players = state.seats
    if state.solo:
        won = state.ended in ("wiped", "fifty")
        return Outcome(
            ranks=(1 if won else 2,),
            scores=(float(state.players[0].vp),),
            reason=state.ended,
            details={
                "turns": state.turns,
                "mode": state.mode,
                "checkpoints": state.checkpoints,
                "winner": "human" if won else "proto_zero",
                "proto_zero": state.proto_zero,
                "ai_cards_played": len(state.ai_played),
                "pink_left": count(state.board, PINK),
            },
        )
    tallies: list[dict[str, Any]] = []
    totals: list[int] = []
    for seat, p in enumerate(state.players):
        runs = circuits(state.board, p.colour) * CIRCUIT_POINTS
        met = bool(p.objective) and objective_met(p.objective, state.board, p.colour, players)
        points = OBJECTIVE_POINTS if met else 0
        total = p.vp + runs + points + surplus(p.energy)
        totals.append(total)
        tallies.append(
            {
                "seat": seat,
                "vp": p.vp,
                "circuits": runs,
                "objective": p.objective,
                "objective_met": met,
                "objective_points": points,
                "surplus": surplus(p.energy),
                "total": total,
            }
        )
    details: dict[str, Any] = {
        "turns": state.turns,
        "first_player": state.first,
        "mode": state.mode,
        "checkpoints": state.checkpoints,
        "tallies": tallies,
    }
    groups = sides(state)
    keys = []
    for side in groups:
        keys.append(
            (
                sum(totals[s] for s in side),
                sum(corners(state.board, state.players[s].colour) for s in side),
                sum(state.players[s].energy for s in side),
                max(state.players[s].longest for s in side),
            )
        )
    side_rank = [1 + sum(1 for other in keys if other > key) for key in keys]
    ranks = [0] * players
    for index, side in enumerate(groups):
        for seat in side:
            ranks[seat] = side_rank[index]
    tiebreak = _tiebreak(keys)
    if state.teams:
        details["team_scores"] = [key[0] for key in keys]
    return Outcome(
        ranks=tuple(ranks),
        scores=tuple(float(total) for total in totals),
        reason=state.ended,
        tiebreak=tiebreak,
        details=details,
    )


_TIEBREAKS = ("corners", "energy", "longest_chain")


def _tiebreak(keys: Sequence[tuple[int, int, int, int]]) -> str | None:
    """The tie-breaker that split equal scores, looking at the best-placed tie first."""
    for score in sorted({key[0] for key in keys}, reverse=True):
        tied = [key for key in keys if key[0] == score]
        if len(tied) < 2:
            continue
        for index, name in enumerate(_TIEBREAKS, start=1):
            if len({key[index] for key in tied}) > 1:
                return name
    return None
