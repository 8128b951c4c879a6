"""Flash 8's commands (what a seat sends) and events (what the rules decided).

Times (``at``, ``until``, ``starts_at``...) are room seconds stamped by the server's clock
(decisions 9). Cells are 0-8, row by row in the acting player's own frame (decisions 5).
"""

from __future__ import annotations

import attrs

from engine.core import Command, Event, server_field

__all__ = [
    "COMMANDS",
    "EVENTS",
    "CardTaken",
    "ClaimHeld",
    "ClaimLate",
    "ClaimLine",
    "ClaimMissed",
    "CountdownStarted",
    "Ended",
    "Flash",
    "Hint",
    "HintGiven",
    "LimitReached",
    "LineClaimed",
    "LockoutEnded",
    "Slid",
    "Slide",
    "Started",
    "TieSettled",
]


# --- commands ----------------------------------------------------------------------------------


@attrs.frozen
class Slide(Command):
    """Slide the electron on cell ``src`` into the adjacent free cell ``dst`` (decisions 2)."""

    TYPE = "slide"
    src: int
    dst: int


@attrs.frozen
class Flash(Command):
    """Call FLASH: claim the top card of ``stack``, or of the first stack that matches when
    ``stack`` is ``None`` (race mode, decisions 7).

    Two fields only the server sets (decisions 17; a client's ``flash`` naming them is refused):
    ``credit``, the lag in seconds the server credits this claim from its own measure of the
    claimant's round trip, and ``rival_credit``, the largest credit it could still give any
    rival while the claim is held. Both are 0 where nobody lags (in-process games)."""

    TYPE = "flash"
    stack: int | None = None
    credit: float = server_field(0.0)
    rival_credit: float = server_field(0.0)


@attrs.frozen
class ClaimLine(Command):
    """Claim grid ``line`` (0-2 rows top to bottom, 3-5 columns left to right) and cover the
    cards in it showing ``shape`` (solo mode, decisions 13-14)."""

    TYPE = "claim_line"
    line: int
    shape: str


@attrs.frozen
class Hint(Command):
    """Ask for the next slide toward the nearest target, where the room allows hints."""

    TYPE = "hint"


# --- events ------------------------------------------------------------------------------------


@attrs.frozen
class CountdownStarted(Event):
    """The countdown began; the clock starts at ``starts_at`` (decisions 6)."""

    TYPE = "countdown_started"
    at: float
    starts_at: float


@attrs.frozen
class Started(Event):
    """Play began for everyone at once; ``ends_at`` is when the clock runs out, if it can."""

    TYPE = "started"
    at: float
    ends_at: float | None


@attrs.frozen
class Slid(Event):
    """``seat`` slid the electron on ``src`` into ``dst``."""

    TYPE = "slid"
    seat: int
    at: float
    src: int
    dst: int


@attrs.frozen
class CardTaken(Event):
    """``seat`` took the top card of ``stack`` worth ``points``; it had been showing for
    ``took`` seconds, the player used ``slides`` slides on it where ``optimal`` would do
    (both counted from the later of its reveal and the player's previous card)."""

    TYPE = "card_taken"
    seat: int
    at: float
    stack: int
    card: str
    points: int
    took: float
    slides: int
    optimal: int


@attrs.frozen
class LineClaimed(Event):
    """``seat`` reproduced solo ``line`` and named ``shape``; the cards on ``covered`` (in
    reading order) were covered from the top of the reserve (decisions 14). ``took``,
    ``slides`` and ``optimal`` count from the previous claim or the start."""

    TYPE = "line_claimed"
    seat: int
    at: float
    line: int
    shape: str
    covered: tuple[int, ...]
    took: float
    slides: int
    optimal: int


@attrs.frozen
class ClaimMissed(Event):
    """A claim matched nothing: ``seat`` is locked out until ``until`` (decisions 7, 14).
    ``stack`` is the stack named (race), ``line`` the line claimed (solo)."""

    TYPE = "claim_missed"
    seat: int
    at: float
    until: float
    stack: int | None = None
    line: int | None = None


@attrs.frozen
class ClaimLate(Event):
    """``seat`` claimed ``card`` ``behind`` seconds after seat ``by`` took it, both times
    effective (received less the credited lag): the claim gets nothing and costs no lockout
    (decisions 7, the half-second grace; decisions 17). ``behind`` is negative for a claim that
    lost a tie to the room's chance, or that came from a rival too far from the card to be
    waited for."""

    TYPE = "claim_late"
    seat: int
    at: float
    card: str
    by: int
    behind: float


@attrs.frozen
class ClaimHeld(Event):
    """``seat``'s matching claim on ``card`` (the top of ``stack``) is held until ``until``,
    while a rival could still show an earlier ``effective`` time (``at`` less the claim's
    ``credit``; decisions 17). ``took``, ``slides`` and ``optimal`` are the records the take
    will carry if the claim wins. Only the claimant's view shows it."""

    TYPE = "claim_held"
    seat: int
    at: float
    stack: int
    card: str
    credit: float
    effective: float
    until: float
    took: float
    slides: int
    optimal: int


@attrs.frozen
class TieSettled(Event):
    """The held claims of ``seats`` on ``card`` had effective times less than 0.02 s apart;
    the room's chance gave it to ``winner`` (decisions 17)."""

    TYPE = "tie_settled"
    at: float
    stack: int
    card: str
    seats: tuple[int, ...]
    winner: int


@attrs.frozen
class LockoutEnded(Event):
    """``seat``'s lockout ran out."""

    TYPE = "lockout_ended"
    seat: int
    at: float


@attrs.frozen
class HintGiven(Event):
    """The solver's advice to ``seat``: ``target`` (a stack, or a solo line) is ``slides``
    slides away, and sliding ``src`` into ``dst`` is a first step (``None`` if it matches)."""

    TYPE = "hint_given"
    seat: int
    at: float
    target: int
    slides: int
    src: int | None
    dst: int | None


@attrs.frozen
class LimitReached(Event):
    """The race's time limit passed where claims are lag-credited: until ``credit_cap``
    seconds later a claim whose effective time is before the limit still counts, and nothing
    is offered (decisions 8, 17)."""

    TYPE = "limit_reached"
    at: float


@attrs.frozen
class Ended(Event):
    """The game ended: ``stacks_empty`` or ``time_up`` (race); ``time_up``, ``reserve_empty``
    or ``dead_end`` (solo)."""

    TYPE = "ended"
    at: float
    reason: str


COMMANDS: tuple[type[Command], ...] = (Slide, Flash, ClaimLine, Hint)
EVENTS: tuple[type[Event], ...] = (
    CountdownStarted,
    Started,
    Slid,
    CardTaken,
    LineClaimed,
    ClaimMissed,
    ClaimLate,
    LockoutEnded,
    HintGiven,
    Ended,
    ClaimHeld,
    TieSettled,
    LimitReached,
)
