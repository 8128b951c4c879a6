"""The views of Lumin's games, typed: what ``client.view(room)`` and ``turn.view`` hold.

A view arrives as plain msgpack data; these :class:`~typing.TypedDict` s name its fields as
each game's rules document (``docs/rules/<game>.md``, "Views") describes them, so a type
checker can follow a bot's reads::

    view = cast(FlipOverFrogView, turn.view)
    mine = view["colour"]          # NotRequired: a spectator's view has no colour

Keys that only some viewers, modes or phases have are ``NotRequired``. Parts whose shape
depends on the game's state more than a type can say (a Neon Flip objective, a Flash 8 take)
are ``dict[str, Any]``. :data:`VIEWS` maps each game id to its view type;
``tests/clients/test_views.py`` checks every view of random games of each game and mode
against these types.
"""

# No ``from __future__ import annotations``: Python 3.11's TypedDict reads ``NotRequired`` only
# from annotations evaluated at class creation.
from typing import Any, NotRequired, TypedDict

__all__ = [
    "VIEWS",
    "Flash8Held",
    "Flash8Seat",
    "Flash8View",
    "FlipOverFrogView",
    "FrogPlayer",
    "FrogSpace",
    "FrogTile",
    "HexBoard",
    "HexFaction",
    "HexRoll",
    "LogEntry",
    "NeonFlipCard",
    "NeonFlipPlayer",
    "NeonFlipView",
    "NeonHexView",
    "Outcome",
]


class Outcome(TypedDict):
    """How a finished game ended (every game's ``outcome`` once it is over): ``ranks`` by
    seat (1 for the winners), ``scores``, the ``winners``' seats, the ``reason`` and the
    ``tiebreak`` rule that split equal scores, if one did."""

    ranks: list[int]
    scores: list[float]
    winners: list[int]
    reason: str
    tiebreak: str | None
    details: dict[str, Any]


#: One happening of a view's ``log`` (every game's: the recent happenings, oldest first, at most
#: 12): always ``n`` (counting the game's happenings from 1; a new entry has a higher ``n``),
#: ``seat`` (who acted; ``None`` for the table, -1 for Neon Flip's PROTO-ZERO) and ``what``
#: (the kind of happening), then that kind's fields, as each game's rules page lists them.
LogEntry = dict[str, Any]


# --- Flip Over Frog ------------------------------------------------------------------------------


class FrogTile(TypedDict):
    """A face: a Frog (``id``, ``colour``, ``arrows``: ``orthogonal`` or ``diagonal``), a
    Snake (``id``), or a face-down ``back`` (no id: what lies under it is hidden)."""

    kind: str
    id: NotRequired[str]
    colour: NotRequired[str]
    arrows: NotRequired[str]


class FrogSpace(TypedDict):
    """One of the 16 spaces: how many tiles it holds and the top one (``None`` when empty)."""

    height: int
    top: FrogTile | None


class FrogPlayer(TypedDict):
    """A seat as everyone sees it; its ``colour`` is shown once the game is over."""

    seat: int
    hand_size: int
    colour: NotRequired[str]


class FlipOverFrogView(TypedDict):
    """Flip Over Frog (docs/rules/flip-over-frog.md). ``colour`` and ``hand`` are a seat's
    own (a spectator has neither); ``turn`` is ``None`` once the game is over."""

    game: str
    seat: int | None
    turn: int | None
    plays: int
    board: list[FrogSpace]
    discards: list[FrogTile]
    stack_size: int
    frogs_face_up: dict[str, int]
    players: list[FrogPlayer]
    colour: NotRequired[str]
    hand: NotRequired[list[FrogTile]]
    log: list[LogEntry]
    outcome: NotRequired[Outcome]


# --- Neon Hex ----------------------------------------------------------------------------------


class HexBoard(TypedDict):
    """The map: ``hexes[id]`` is the axial ``[q, r]`` of hex ``id``."""

    radius: int
    hexes: list[list[int]]


class HexFaction(TypedDict):
    """A seat's faction: its role, colour, corner and home hex, Energy, hexes held, and the
    income its next turn would produce."""

    seat: int
    name: str
    role: str
    colour: str
    corner: int
    home: int
    energy: int
    hexes: int
    income: int


class HexRoll(TypedDict):
    """The latest Risk roll."""

    seat: int
    target: int
    dice: list[int]
    total: int
    success: bool


class NeonHexView(TypedDict):
    """Neon Hex (docs/rules/neon-hex.md): the same for every viewer, but ``you`` (the
    viewer's seat, ``None`` for a spectator)."""

    game: str
    you: int | None
    board: HexBoard
    owners: list[int | None]
    factions: list[HexFaction]
    current: int | None
    turn: int
    claimed_this_turn: bool
    quiet_turns: int
    last_roll: HexRoll | None
    win_hexes: int
    risk_odds: list[int]
    log: list[LogEntry]
    outcome: NotRequired[Outcome]


# --- Flash 8 -----------------------------------------------------------------------------------


class Flash8Seat(TypedDict):
    """A seat: its side, its tablet (in its owner's frame; ``.`` is the free space), slides,
    misses, lockout end and last hint; in a race also points, cards taken and late FLASHes."""

    seat: int
    side: str
    tablet: str
    handicap: bool
    slides: int
    misses: int
    locked_until: float | None
    hint: Any
    points: NotRequired[int]
    cards: NotRequired[list[str]]
    late: NotRequired[int]


class Flash8Held(TypedDict):
    """One of the viewer's own FLASHes held while a rival's could still be earlier (race,
    decisions 17): only the claimant's view has ``held``, until the card is awarded."""

    stack: int
    card: str
    at: float
    effective: float
    until: float


class Flash8View(TypedDict):
    """Flash 8 (docs/rules/flash8.md), race or solo (``mode``). Race views have ``stacks``
    and ``takes``; solo views ``grid``, ``lines``, ``token``, ``reserve``, ``claims``,
    ``score`` and ``rank``. Times are on the room clock."""

    game: str
    mode: str
    seat: int | None
    frame: dict[str, str]
    phase: str
    starts_at: float | None
    started_at: float | None
    ends_at: float | None
    ended_at: float | None
    lockout: float
    hints: bool
    seats: list[Flash8Seat]
    same_start: NotRequired[bool]
    stacks: NotRequired[list[dict[str, Any]]]
    takes: NotRequired[list[dict[str, Any]]]
    grid: NotRequired[list[dict[str, Any]]]
    lines: NotRequired[list[dict[str, Any]]]
    token: NotRequired[Any]
    reserve: NotRequired[dict[str, Any]]
    claims: NotRequired[list[Any]]
    score: NotRequired[float]
    rank: NotRequired[Any]
    held: NotRequired[list[Flash8Held]]
    log: list[LogEntry]
    outcome: NotRequired[Outcome]


# --- Neon Flip ---------------------------------------------------------------------------------


class NeonFlipCard(TypedDict):
    """A card as views show it (its cost already reduced in Overdrive)."""

    id: str
    kind: str
    name: str
    cost: int


class NeonFlipPlayer(TypedDict):
    """A seat as everyone sees it (its ``objective`` once the game is over)."""

    seat: int
    colour: str
    team: int | None
    energy: int
    vp: int
    tiles: int
    hand: int
    locks: list[Any]
    longest_chain: int
    drain_next: int
    objective_chosen: bool
    objective: NotRequired[str | None]


class NeonFlipView(TypedDict):
    """Neon Flip (docs/rules/neon-flip.md, decisions 9). ``you`` is a seat's own hand,
    objective and offers (``None`` for a spectator); ``proto_zero`` is PROTO-ZERO's side in
    solo."""

    mode: str
    teams: bool
    obstacles: bool
    rounds: int
    seats: int
    board: list[str]
    locks: list[dict[str, Any]]
    players: list[NeonFlipPlayer]
    phase: str
    turn: int | None
    turns: int
    surcharge: int
    manual_flips_left: int
    market: list[NeonFlipCard | None]
    discard: list[NeonFlipCard]
    draw_pile: int
    round_over: bool
    checkpoints: int
    threshold: int | None
    pending_cascade: dict[str, Any] | None
    log: list[LogEntry]
    you: NotRequired[dict[str, Any] | None]
    clock: NotRequired[Any]
    proto_zero: NotRequired[dict[str, Any] | None]
    outcome: NotRequired[Outcome]


#: Each game's view type, by game id.
VIEWS: dict[str, type] = {
    "flip_over_frog": FlipOverFrogView,
    "neon_hex": NeonHexView,
    "flash8": Flash8View,
    "neon_flip": NeonFlipView,
}
