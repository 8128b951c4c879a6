"""Flash 8's state: a race (:class:`RaceState`, 2-4 players) or a solo game
(:class:`SoloState`), with the records they keep (takes, claims) and where each seat sits.

Decisions are cited by number from ``flash8.decisions.md``, the rulebook by heading.
"""

from __future__ import annotations

import attrs

from engine.flash8.cards import CARDS, card_pattern
from engine.flash8.messages import ClaimHeld, HintGiven
from engine.movelog import Entry

__all__ = ["GRID", "Claim", "Hold", "RaceState", "SoloState", "State", "Take", "side_of"]

#: Cells of the solo grid (rulebook "Solo Mode: Setup").
GRID = 9

_SIDES_BY_COUNT = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}


def side_of(players: int, seat: int) -> int:
    """The side (0 south, 1 west, 2 north, 3 east) where ``seat`` sits: two players sit south
    and north, three south, west and north (decisions 5)."""
    return _SIDES_BY_COUNT.get(players, (0, 1, 2, 3))[seat]


@attrs.frozen
class Take:
    """A card taken: by ``seat`` from ``stack`` at ``at``; see :class:`CardTaken`.
    ``effective`` is the winning claim's effective time (its reveal plus ``took``), which the
    half-second grace is judged on (decisions 7, 17)."""

    seat: int
    card: int
    stack: int
    at: float
    took: float
    slides: int
    optimal: int
    points: int
    effective: float


@attrs.frozen
class Hold:
    """A stack's top card whose matching claims are held until ``until`` (decisions 17):
    ``claims`` in the order received, the first one's ``until`` for all."""

    card: int
    until: float
    claims: tuple[ClaimHeld, ...]

    def seats(self) -> tuple[int, ...]:
        """The seats holding a claim on the card."""
        return tuple(claim.seat for claim in self.claims)


@attrs.frozen(slots=False)  # engine.core.replace copies its __dict__
class RaceState:
    """A race. ``stacks`` hold card numbers, top first; only tops are public (decisions 4).
    ``tablets`` are in their owners' frames. ``reveal_*`` remember, per stack, when its top
    was revealed and every tablet and slide count at that moment; ``mark_*`` the same for each
    seat's last card, so each take records slides used against the optimum. ``credit_cap``
    is the most lag a claim is credited (0: compensation off); ``holds`` the held claims on
    each stack's top (``None`` where none is held; decisions 17); ``limit_passed`` is set
    once the time limit has passed and only late-arriving credited claims can still count."""

    players: int
    handicap: tuple[bool, ...]
    lockout: float
    time_limit: float
    countdown: float
    hints: bool
    same_start: bool
    tablets: tuple[str, ...]
    stacks: tuple[tuple[int, ...], ...]
    phase: str = "waiting"
    starts_at: float | None = None
    started_at: float | None = None
    ends_at: float | None = None
    revealed_at: tuple[float, ...] = ()
    reveal_tablets: tuple[tuple[str, ...], ...] = ()
    reveal_slides: tuple[tuple[int, ...], ...] = ()
    slides: tuple[int, ...] = ()
    mark_at: tuple[float, ...] = ()
    mark_tablet: tuple[str, ...] = ()
    mark_slides: tuple[int, ...] = ()
    locked_until: tuple[float | None, ...] = ()
    takes: tuple[Take, ...] = ()
    misses: tuple[int, ...] = ()
    late: tuple[int, ...] = ()
    hints_given: tuple[int, ...] = ()
    last_hint: tuple[HintGiven | None, ...] = ()
    ended_reason: str | None = None
    ended_at: float | None = None
    credit_cap: float = 0.0
    holds: tuple[Hold | None, ...] = ()
    limit_passed: bool = False
    #: The recent happenings (:mod:`engine.flash8.movelog`).
    log: tuple[Entry, ...] = ()

    def pattern(self, card: int, seat: int) -> str:
        """Card ``card`` as ``seat`` must reproduce it (decisions 5)."""
        return card_pattern(card, side_of(self.players, seat))


@attrs.frozen
class Claim:
    """A line reproduced: see :class:`LineClaimed`."""

    line: int
    shape: str
    covered: tuple[int, ...]
    at: float
    took: float
    slides: int
    optimal: int


@attrs.frozen(slots=False)  # engine.core.replace copies its __dict__
class SoloState:
    """A solo game. ``grid`` holds the card on top of each cell and ``depth`` how many cards
    lie there; ``reserve`` is top first and only its top shows (decisions 12)."""

    lockout: float
    seconds: float
    countdown: float
    hints: bool
    tablet: str
    grid: tuple[int, ...]
    reserve: tuple[int, ...]
    depth: tuple[int, ...] = (1,) * GRID
    deals: int = 1
    phase: str = "waiting"
    starts_at: float | None = None
    started_at: float | None = None
    ends_at: float | None = None
    token: int | None = None
    slides: int = 0
    locked_until: float | None = None
    mark_at: float = 0.0
    mark_tablet: str = ""
    mark_slides: int = 0
    claims: tuple[Claim, ...] = ()
    misses: int = 0
    hints_given: int = 0
    last_hint: HintGiven | None = None
    ended_reason: str | None = None
    ended_at: float | None = None
    #: The recent happenings (:mod:`engine.flash8.movelog`).
    log: tuple[Entry, ...] = ()

    @property
    def players(self) -> int:
        return 1

    def colours(self) -> str:
        """The solo colour showing on each grid cell."""
        return "".join(CARDS[card].colour for card in self.grid)


#: Either mode's state; the rules dispatch on its type.
State = RaceState | SoloState
