"""Neon Flip's commands (what a seat may send, neon-flip.decisions 4, 7, 8, 10) and events
(what the rules decided).

Slots are 1-36, row by row from the top left (decisions 3).
"""

from __future__ import annotations

import attrs

from engine.core import Command, Event

__all__ = [
    "COMMANDS",
    "EVENTS",
    "AiCardPlayed",
    "AiCascaded",
    "AiOvercharged",
    "BuyCard",
    "CardBought",
    "CardDiscarded",
    "CardDrawn",
    "CardPlayed",
    "Cascade",
    "CascadeFlipped",
    "CascadeStopped",
    "Checkpoint",
    "ChooseObjective",
    "ClockExpired",
    "DeckReshuffled",
    "Discard",
    "DominanceCounted",
    "EndTurn",
    "GameEnded",
    "Lock",
    "ManualFlip",
    "ManualFlipped",
    "NodeLocked",
    "ObjectiveChosen",
    "PlayCard",
    "StopCascade",
    "TurnEnded",
    "TurnStarted",
]


@attrs.frozen
class ChooseObjective(Command):
    """Keep one of the two dealt Target Objectives; the other goes back (decisions 10)."""

    TYPE = "choose_objective"
    objective: str


@attrs.frozen
class PlayCard(Command):
    """Action A: pay a card's cost and resolve it. Fields a card does not use keep their
    defaults: ``slot`` (1-36: the target, a sector's top-left, a swap's first tile, a
    surge's start, the crossing of a hijack's row and column), ``other`` (a swap's second
    tile), ``line`` ("row"/"column") with ``index`` (1-6) and ``step`` (+1 right/down, -1
    left/up), ``target`` (the drained seat; -1 for PROTO-ZERO) and ``colour`` (a hijack's)."""

    TYPE = "play_card"
    card: str
    slot: int = 0
    other: int = 0
    line: str = ""
    index: int = 0
    step: int = 0
    target: int = -1
    colour: str = ""


@attrs.frozen
class ManualFlip(Command):
    """Action B: flip one tile for 2 Energy, at most twice a turn (decisions 7)."""

    TYPE = "manual_flip"
    slot: int


@attrs.frozen
class BuyCard(Command):
    """Action C: take a face-up market card for 1 Energy (decisions 7)."""

    TYPE = "buy_card"
    card: str


@attrs.frozen
class Lock(Command):
    """Action D: lock a tile showing your colour for 3 Energy (decisions 7)."""

    TYPE = "lock"
    slot: int


@attrs.frozen
class Cascade(Command):
    """Flip the next tile of the pending cascade (decisions 4)."""

    TYPE = "cascade"
    slot: int


@attrs.frozen
class StopCascade(Command):
    """End the pending cascade here (decisions 4)."""

    TYPE = "stop_cascade"


@attrs.frozen
class EndTurn(Command):
    """End Phase 2; Phase 3 follows (decisions 8)."""

    TYPE = "end_turn"


@attrs.frozen
class Discard(Command):
    """Phase 3: discard one card while holding more than 6 (decisions 8)."""

    TYPE = "discard"
    card: str


# --- events ------------------------------------------------------------------------------------


@attrs.frozen
class ObjectiveChosen(Event):
    """``seat`` kept ``objective``; ``returned`` went back to the deck (decisions 10)."""

    TYPE = "objective_chosen"
    seat: int
    objective: str
    returned: str


@attrs.frozen
class TurnStarted(Event):
    """Phase 1 (decisions 6): income, bonus, lock removal, this turn's drain surcharge."""

    TYPE = "turn_started"
    seat: int
    income: int
    surcharge: int
    at: float


@attrs.frozen
class CardPlayed(Event):
    """``seat`` paid ``cost`` and played ``card`` with the command's targets; ``evolve``
    resolves it with the card's effect (decisions, card table)."""

    TYPE = "card_played"
    seat: int
    card: str
    cost: int
    slot: int = 0
    other: int = 0
    line: str = ""
    index: int = 0
    step: int = 0
    target: int = -1
    colour: str = ""


@attrs.frozen
class ManualFlipped(Event):
    """Action B: ``seat`` paid ``cost`` and flipped ``slot`` (decisions 7)."""

    TYPE = "manual_flipped"
    seat: int
    slot: int
    cost: int


@attrs.frozen
class CardBought(Event):
    """Action C: ``seat`` bought ``card`` for 1 Energy; its market slot refills (decisions 7)."""

    TYPE = "card_bought"
    seat: int
    card: str


@attrs.frozen
class NodeLocked(Event):
    """Action D: ``seat`` locked ``slot`` for 3 Energy (decisions 7)."""

    TYPE = "node_locked"
    seat: int
    slot: int


@attrs.frozen
class CascadeFlipped(Event):
    """The pending cascade flipped ``slot`` to ``seat``'s colour (decisions 4)."""

    TYPE = "cascade_flipped"
    seat: int
    slot: int


@attrs.frozen
class CascadeStopped(Event):
    """``seat`` ended its pending cascade (decisions 4)."""

    TYPE = "cascade_stopped"
    seat: int


@attrs.frozen
class TurnEnded(Event):
    """``seat`` ended Phase 2; above 6 cards it must discard (decisions 8)."""

    TYPE = "turn_ended"
    seat: int


@attrs.frozen
class CardDiscarded(Event):
    """``seat`` discarded ``card`` in Phase 3 (decisions 8)."""

    TYPE = "card_discarded"
    seat: int
    card: str


@attrs.frozen
class CardDrawn(Event):
    """The end-of-turn draw; with an empty pile it is owed and the round ends (decisions 11)."""

    TYPE = "card_drawn"
    seat: int


@attrs.frozen
class DeckReshuffled(Event):
    """Solo: the discards shuffled under what is left of the draw pile (decisions 18)."""

    TYPE = "deck_reshuffled"
    order: tuple[str, ...]


@attrs.frozen
class Checkpoint(Event):
    """A Grid Checkpoint (decisions 11, 17): ``gains`` per seat; the discards, shuffled into
    ``order``, become the draw pile and the owed draws are made (empty ``order`` in solo)."""

    TYPE = "checkpoint"
    number: int
    gains: tuple[int, ...]
    order: tuple[str, ...]


@attrs.frozen
class AiCardPlayed(Event):
    """PROTO-ZERO set ``slots`` to Pink and gained ``energy`` (decisions 16)."""

    TYPE = "ai_card_played"
    card: str
    slots: tuple[int, ...]
    energy: int


@attrs.frozen
class AiOvercharged(Event):
    """PROTO-ZERO spent its Energy to set ``slots`` of the block at ``block`` to Pink."""

    TYPE = "ai_overcharged"
    block: int
    slots: tuple[int, ...]


@attrs.frozen
class AiCascaded(Event):
    """An overclocked PROTO-ZERO's cascade after its card or its overcharge (decisions 16a):
    ``slots`` set to Pink in chain order, each next to the one before."""

    TYPE = "ai_cascaded"
    slots: tuple[int, ...]


@attrs.frozen
class DominanceCounted(Event):
    """A Grid Dominance count added when Overdrive ends on the threshold or the clock
    (decisions 14)."""

    TYPE = "dominance_counted"
    gains: tuple[int, ...]


@attrs.frozen
class ClockExpired(Event):
    """The Overdrive game clock ran out: the game ends after this turn (decisions 14)."""

    TYPE = "clock_expired"


@attrs.frozen
class GameEnded(Event):
    """The game is over: ``rounds``, ``fifty``, ``overdrive``, ``clock`` (all modes but solo);
    ``wiped``, ``fifty``, ``ai_deck_spent`` (solo)."""

    TYPE = "game_ended"
    reason: str


#: Every command Neon Flip takes, and every event it records.
COMMANDS: tuple[type[Command], ...] = (
    ChooseObjective,
    PlayCard,
    ManualFlip,
    BuyCard,
    Lock,
    Cascade,
    StopCascade,
    EndTurn,
    Discard,
)
EVENTS: tuple[type[Event], ...] = (
    ObjectiveChosen,
    TurnStarted,
    CardPlayed,
    ManualFlipped,
    CardBought,
    NodeLocked,
    CascadeFlipped,
    CascadeStopped,
    TurnEnded,
    CardDiscarded,
    CardDrawn,
    DeckReshuffled,
    Checkpoint,
    AiCardPlayed,
    AiOvercharged,
    AiCascaded,
    DominanceCounted,
    ClockExpired,
    GameEnded,
)
