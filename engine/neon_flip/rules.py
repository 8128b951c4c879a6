"""Neon Flip: the rules as Lumin plays them.

Sources: ``neon-flip.rulebook.txt`` (cited by section number) and ``neon-flip.decisions.md``
(cited by number; a decision wins over the rulebook). Grid and patterns live in
:mod:`engine.neon_flip.grid`, the Protocol cards in :mod:`engine.neon_flip.cards`, scoring and
objectives in :mod:`engine.neon_flip.scoring`, PROTO-ZERO in :mod:`engine.neon_flip.proto_zero`.

A game runs in phases: every seat first keeps one of two dealt Target Objectives
(``objectives``); then turns follow in seat order from a first player drawn from the seed
(``main``, with an optional ``discard`` step at the end of a turn), until ``over``. A cascade
is a pending choice of the active player, one flip at a time.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from engine.core import (
    BotFactory,
    Command,
    Event,
    OptionSpec,
    Outcome,
    Rejected,
    SeatSpec,
    Viewer,
    outcome_to_wire,
)
from engine.neon_flip.cards import (
    DECK,
    PROTO_ZERO,
    Context,
    Play,
    card_cost,
    cascade_choices,
    kind_of,
)
from engine.neon_flip.commands import (
    BuyCard,
    Cascade,
    ChooseObjective,
    Discard,
    EndTurn,
    Lock,
    ManualFlip,
    PlayCard,
    StopCascade,
)
from engine.neon_flip.grid import (
    CELLS,
    COLOURS,
    PINK,
    block_cells,
    cell_of,
    flipped,
    slot_of,
)
from engine.neon_flip.proto_zero import (
    AI_BY_ID,
    AI_CARDS,
    AI_CHECKPOINT_EVERY,
    AI_OVERCHARGE,
    overcharge_block,
)
from engine.neon_flip.scoring import (
    CIRCUIT_POINTS,
    OBJECTIVE_NAMES,
    OBJECTIVE_POINTS,
    OBJECTIVES,
    circuits,
    corners,
    count,
    objective_met,
    surplus,
)

__all__ = [
    "GAME",
    "BuyCard",
    "Cascade",
    "ChooseObjective",
    "Discard",
    "EndTurn",
    "Lock",
    "ManualFlip",
    "NeonFlip",
    "Pending",
    "PlayCard",
    "Player",
    "State",
    "StopCascade",
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
class DominanceCounted(Event):
    """A Grid Dominance count added at an Overdrive end (decisions 14)."""

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


# --- state -------------------------------------------------------------------------------------


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
    """Tiles a player (or team) must show to win Overdrive at once (decisions 14)."""
    if state.teams:
        return 24
    if state.seats == 2:
        return 16 if state.obstacles else 24
    return 12


def side_tiles(state: State) -> list[int]:
    """Tiles each side shows now."""
    return [sum(count(state.board, state.players[s].colour) for s in side) for side in sides(state)]


def _tiles_per_seat(state: State) -> tuple[int, ...]:
    return tuple(count(state.board, player.colour) for player in state.players)


def _replace(items: tuple[Player, ...], seat: int, player: Player) -> tuple[Player, ...]:
    return (*items[:seat], player, *items[seat + 1 :])


# --- evolve helpers ----------------------------------------------------------------------------


def _draw_to_hand(state: State, seat: int, n: int) -> State:
    """Draw ``n`` cards into ``seat``'s hand; draws the empty pile cannot make are owed and
    end the round (decisions 11); in solo they are simply lost (the pile was reshuffled
    before any draw that needed it, decisions 18)."""
    draw = state.draw
    owed = state.owed
    round_over = state.round_over
    hand = state.players[seat].hand
    for _ in range(n):
        if draw:
            hand, draw = (*hand, draw[0]), draw[1:]
        elif not state.solo:
            owed, round_over = (*owed, ("hand", seat)), True
    player = attrs.evolve(state.players[seat], hand=hand)
    return attrs.evolve(
        state,
        draw=draw,
        owed=owed,
        round_over=round_over,
        players=_replace(state.players, seat, player),
    )


def _refill(state: State, slot: int) -> State:
    """Refill market ``slot`` from the draw pile, or owe it (decisions 7, 11)."""
    market = list(state.market)
    if state.draw:
        market[slot] = state.draw[0]
        return attrs.evolve(state, market=tuple(market), draw=state.draw[1:])
    market[slot] = ""
    if state.solo:
        return attrs.evolve(state, market=tuple(market))
    return attrs.evolve(
        state, market=tuple(market), owed=(*state.owed, ("market", slot)), round_over=True
    )


def _after_flips(state: State, seat: int, sources: Sequence[int], limit: int) -> State:
    """Open a cascade when tiles turned to the player's colour have a tile to cascade into."""
    if not sources:
        return attrs.evolve(state, pending=None)
    colour = state.players[seat].colour
    if cascade_choices(state.board, locked_cells(state), colour, sources):
        return attrs.evolve(state, pending=Pending(seat, tuple(sources), 0, limit))
    return attrs.evolve(state, pending=None)


def _close_chain(state: State, seat: int, made: int) -> State:
    player = state.players[seat]
    if made > player.longest:
        player = attrs.evolve(player, longest=made)
    return attrs.evolve(state, pending=None, players=_replace(state.players, seat, player))


def _pay(state: State, seat: int, cost: int) -> State:
    player = state.players[seat]
    return attrs.evolve(
        state,
        players=_replace(state.players, seat, attrs.evolve(player, energy=player.energy - cost)),
    )


def _play_of(event: CardPlayed | PlayCard) -> Play:
    return Play(
        slot=event.slot,
        other=event.other,
        line=event.line,
        index=event.index,
        step=event.step,
        target=event.target,
        colour=event.colour,
    )


# --- the game ----------------------------------------------------------------------------------


class NeonFlip:
    """The rules object Lumin registers as ``neon_flip``."""

    id = "neon_flip"
    name = "Neon Flip"
    commands: tuple[type[Command], ...] = (
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
    events: tuple[type[Event], ...] = (
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
        DominanceCounted,
        ClockExpired,
        GameEnded,
    )
    options: tuple[OptionSpec, ...] = (
        OptionSpec(
            "mode",
            "choice",
            "classic",
            "classic: Classic Battle (2-4 seats); overdrive: Neon Overdrive (2-4 seats, "
            "rulebook 2.5.2); solo: Cyber-Solitaire, one seat against PROTO-ZERO (2.5.3).",
            choices=("classic", "overdrive", "solo"),
        ),
        OptionSpec(
            "teams",
            "bool",
            False,
            "4 seats only: Cyan with Green against Pink with Yellow, seated alternately "
            "(decisions 2).",
        ),
        OptionSpec(
            "obstacles",
            "bool",
            False,
            "2 seats only: 24 A tiles and 12 neutral B tiles instead of 36 A tiles (decisions 2).",
        ),
        OptionSpec(
            "rounds",
            "int",
            4,
            "Checkpoints before the game ends (decisions 12); 2 reproduces rulebook 2.6.",
            minimum=1,
            maximum=4,
        ),
        OptionSpec(
            "clock",
            "int",
            15,
            "Neon Overdrive's game clock in minutes (decisions 14).",
            minimum=1,
            maximum=120,
        ),
    )
    seat_options: tuple[OptionSpec, ...] = ()
    default_bot = "bot"

    #: The rules alone have no bots: the registry attaches ``engine.neon_flip.bots.BOTS``.
    bots: Mapping[str, BotFactory] = MappingProxyType({})

    # -- setup ----------------------------------------------------------------------------------

    def seat_counts(self, options: Mapping[str, Any]) -> range:
        """solo: 1 seat; teams: 4; obstacles: 2; otherwise 2-4. Solo with teams or obstacles,
        or teams with obstacles, allows no seat count."""
        solo = options.get("mode") == "solo"
        teams, obstacles = bool(options.get("teams")), bool(options.get("obstacles"))
        if solo:
            return range(1, 2) if not (teams or obstacles) else range(0)
        if teams and obstacles:
            return range(0)
        if teams:
            return range(4, 5)
        if obstacles:
            return range(2, 3)
        return range(2, 5)

    def setup(
        self, options: Mapping[str, Any], seats: Sequence[SeatSpec], rng: random.Random
    ) -> State:
        """Deal the grid, the hands, the market and the objectives (rulebook 2.1, decisions
        2, 3, 10); solo shuffles PROTO-ZERO's deck (decisions 16)."""
        mode = str(options.get("mode", "classic"))
        n = len(seats)
        obstacles = bool(options.get("obstacles", False))
        if mode == "solo" or (n == 2 and not obstacles):
            spectra = [0] * 36
        elif n == 2:
            spectra = [0] * 24 + [1] * 12
        else:
            spectra = [0] * 18 + [1] * 18
        rng.shuffle(spectra)
        board = tuple(spectrum * 2 + rng.randrange(2) for spectrum in spectra)
        deck = list(DECK)
        rng.shuffle(deck)
        objectives = list(OBJECTIVES)
        rng.shuffle(objectives)
        energy = 6 if mode == "overdrive" else 4
        players = []
        for seat in range(n):
            hand, deck = tuple(deck[:START_HAND]), deck[START_HAND:]
            offers, objectives = tuple(objectives[:2]), objectives[2:]
            players.append(Player(colour=seat, energy=energy, hand=hand, offers=offers))
        market, deck = tuple(deck[:MARKET_SIZE]), deck[MARKET_SIZE:]
        ai_deck: tuple[str, ...] = ()
        if mode == "solo":
            order = [card.id for card in AI_CARDS]
            rng.shuffle(order)
            ai_deck = tuple(order)
        return State(
            mode=mode,
            teams=bool(options.get("teams", False)),
            obstacles=obstacles,
            rounds=int(options.get("rounds", 4)),
            clock=int(options.get("clock", 15)),
            board=board,
            players=tuple(players),
            draw=tuple(deck),
            market=market,
            objective_deck=tuple(objectives),
            turn=rng.randrange(n),
            ai_deck=ai_deck,
        )

    # -- decide ---------------------------------------------------------------------------------

    def decide(
        self, state: State, seat: int, command: Command, now: float, rng: random.Random
    ) -> list[Event]:
        """The events ``command`` causes, or :class:`Rejected` naming the broken rule."""
        if state.phase == "over":
            raise Rejected("game_over", "The game is over.")
        if not 0 <= seat < state.seats:
            raise Rejected("bad_seat", "No such seat at this table.")
        out = _Emitter(self, state)
        if isinstance(command, ChooseObjective):
            self._choose(out, seat, command, now)
            return out.events
        if state.phase == "objectives":
            raise Rejected(
                "choose_objective_first",
                "Every player keeps a Target Objective before the first turn (rulebook 2.1).",
            )
        if seat != state.turn:
            raise Rejected("not_your_turn", "Only the active player acts (rulebook 2.3).")
        if state.phase == "discard":
            if not isinstance(command, Discard):
                raise Rejected(
                    "discard_first",
                    "Discard down to 6 cards before anything else (rulebook 2.3 Phase 3).",
                )
            self._discard(out, seat, command, now, rng)
            return out.events
        if isinstance(command, Discard):
            raise Rejected(
                "not_discarding", "Cards are discarded only in Phase 3, above 6 (decisions 8)."
            )
        if state.pending is not None:
            if isinstance(command, Cascade):
                self._cascade(out, seat, command)
            elif isinstance(command, StopCascade):
                out.emit(CascadeStopped(seat))
            else:
                raise Rejected(
                    "cascade_pending",
                    "Choose the next cascade flip or stop the cascade first (decisions 4).",
                )
            self._after_action(out)
            return out.events
        if isinstance(command, Cascade | StopCascade):
            raise Rejected("no_cascade", "No cascade is waiting for a choice (decisions 4).")
        if isinstance(command, PlayCard):
            self._play(out, seat, command, rng)
        elif isinstance(command, ManualFlip):
            self._manual_flip(out, seat, command)
        elif isinstance(command, BuyCard):
            self._buy(out, seat, command, rng)
        elif isinstance(command, Lock):
            self._lock(out, seat, command)
        elif isinstance(command, EndTurn):
            out.emit(TurnEnded(seat))
            if out.state.phase != "discard":
                self._finish_turn(out, now, rng)
            return out.events
        else:
            raise Rejected("bad_command", "Neon Flip has no such command.")
        self._after_action(out)
        return out.events

    def _choose(self, out: _Emitter, seat: int, command: ChooseObjective, now: float) -> None:
        state = out.state
        player = state.players[seat]
        if state.phase != "objectives" or not player.offers:
            raise Rejected(
                "already_chosen", "Each player keeps one objective, once (decisions 10)."
            )
        if command.objective not in player.offers:
            raise Rejected(
                "not_offered", "Keep one of the two objectives you were dealt (decisions 10)."
            )
        returned = next(o for o in player.offers if o != command.objective)
        out.emit(ObjectiveChosen(seat, command.objective, returned))
        if all(p.offers == () for p in out.state.players):
            self._start_turn(out, out.state.turn, now)

    def _start_turn(self, out: _Emitter, seat: int, now: float) -> None:
        state = out.state
        player = state.players[seat]
        bonus = 1 if count(state.board, player.colour) >= BONUS_TILES else 0
        out.emit(TurnStarted(seat, INCOME + bonus, player.drain_next, now))

    def _discard(
        self, out: _Emitter, seat: int, command: Discard, now: float, rng: random.Random
    ) -> None:
        if command.card not in out.state.players[seat].hand:
            raise Rejected("not_in_hand", "You can only discard a card from your hand.")
        out.emit(CardDiscarded(seat, command.card))
        if len(out.state.players[seat].hand) <= HAND_LIMIT:
            self._finish_turn(out, now, rng)

    def _cascade(self, out: _Emitter, seat: int, command: Cascade) -> None:
        state = out.state
        pending = state.pending
        assert pending is not None
        choices = cascade_choices(
            state.board, locked_cells(state), state.players[seat].colour, pending.sources
        )
        if not 1 <= command.slot <= CELLS or cell_of(command.slot) not in choices:
            raise Rejected(
                "bad_cascade",
                "A cascade flips an unlocked tile of the other face next to the tile last "
                "turned to your colour (decisions 4).",
            )
        out.emit(CascadeFlipped(seat, command.slot))

    def _cost(self, state: State, base: int) -> int:
        return base + state.surcharge

    def _play(self, out: _Emitter, seat: int, command: PlayCard, rng: random.Random) -> None:
        state = out.state
        player = state.players[seat]
        if command.card not in player.hand:
            raise Rejected("not_in_hand", "You can only play a card from your hand.")
        cost = self._cost(state, card_cost(command.card, state.overdrive))
        if player.energy < cost:
            raise Rejected(
                "no_energy",
                f"This card costs {cost} Energy (surcharge included) and you have "
                f"{player.energy} (rulebook 2.3 Action A).",
            )
        kind = kind_of(command.card)
        resolution = kind.effect.resolve(context(state, seat), _play_of(command))
        if state.solo and resolution.draws > len(state.draw):
            out.emit(DeckReshuffled(_reshuffled(state, rng)))
        out.emit(
            CardPlayed(
                seat,
                command.card,
                cost,
                command.slot,
                command.other,
                command.line,
                command.index,
                command.step,
                command.target,
                command.colour,
            )
        )

    def _manual_flip(self, out: _Emitter, seat: int, command: ManualFlip) -> None:
        state = out.state
        if state.manual_flips >= MANUAL_FLIPS_PER_TURN:
            raise Rejected("flip_limit", "At most two Manual Flips per turn (rulebook 2.3 B).")
        cost = self._cost(state, MANUAL_FLIP_COST)
        if state.players[seat].energy < cost:
            raise Rejected("no_energy", f"A Manual Flip costs {cost} Energy now (rulebook 2.3 B).")
        if not 1 <= command.slot <= CELLS:
            raise Rejected("bad_slot", "Slots are numbered 1 to 36 (decisions 3).")
        if cell_of(command.slot) in locked_cells(state):
            raise Rejected("locked", "Locked tiles cannot be flipped (rulebook 2.7).")
        out.emit(ManualFlipped(seat, command.slot, cost))

    def _buy(self, out: _Emitter, seat: int, command: BuyCard, rng: random.Random) -> None:
        state = out.state
        if not command.card or command.card not in state.market:
            raise Rejected("not_in_market", "Buy a face-up card of the Active Market.")
        if state.players[seat].energy < BUY_COST:
            raise Rejected("no_energy", "Buying a market card costs 1 Energy (rulebook 2.3 C).")
        if state.solo and not state.draw:
            out.emit(DeckReshuffled(_reshuffled(state, rng)))
        out.emit(CardBought(seat, command.card))

    def _lock(self, out: _Emitter, seat: int, command: Lock) -> None:
        state = out.state
        player = state.players[seat]
        if not 1 <= command.slot <= CELLS:
            raise Rejected("bad_slot", "Slots are numbered 1 to 36 (decisions 3).")
        cell = cell_of(command.slot)
        if state.board[cell] != player.colour:
            raise Rejected("not_your_colour", "Lock a tile showing your colour (rulebook 2.3 D).")
        if cell in locked_cells(state):
            raise Rejected("already_locked", "That tile is locked already.")
        if len(player.locks) >= LOCK_LIMIT:
            raise Rejected("lock_limit", "At most 2 of your locks on the board (rulebook 2.3 D).")
        if player.energy < LOCK_COST:
            raise Rejected("no_energy", "A lock costs 3 Energy (rulebook 2.3 D).")
        out.emit(NodeLocked(seat, command.slot))

    def _after_action(self, out: _Emitter) -> None:
        """After a whole action, cascades included: the Overdrive instant end (decisions 14)
        and the solo wipe-out win (decisions 18)."""
        state = out.state
        if state.pending is not None or state.phase != "main":
            return
        if state.overdrive:
            need = threshold(state)
            if any(tiles >= need for tiles in side_tiles(state)):
                out.emit(DominanceCounted(_tiles_per_seat(state)))
                out.emit(GameEnded("overdrive"))
        elif state.solo and count(state.board, PINK) == 0:
            out.emit(GameEnded("wiped"))

    def _finish_turn(self, out: _Emitter, now: float, rng: random.Random) -> None:
        """Phase 3 after discards (decisions 8, 11): draw 1, then the checkpoint if the round
        ended, the end of the game, or PROTO-ZERO's card in solo; then the next turn."""
        state = out.state
        seat = state.turn
        if state.solo and not state.draw and state.discard:
            out.emit(DeckReshuffled(_reshuffled(state, rng)))
        out.emit(CardDrawn(seat))
        if state.solo:
            if self._proto_zero(out):
                return
        else:
            counted = False
            state = out.state
            if state.round_over:
                order = list(state.discard)
                rng.shuffle(order)
                out.emit(Checkpoint(state.checkpoints + 1, _tiles_per_seat(state), tuple(order)))
                counted = True
                state = out.state
                if state.checkpoints >= state.rounds:
                    out.emit(GameEnded("rounds"))
                    return
                if any(sum(state.players[s].vp for s in side) >= FIFTY for side in sides(state)):
                    out.emit(GameEnded("fifty"))
                    return
            if state.clock_out:
                if not counted:
                    out.emit(DominanceCounted(_tiles_per_seat(state)))
                out.emit(GameEnded("clock"))
                return
        self._start_turn(out, (out.state.turn + 1) % out.state.seats, now)

    def _proto_zero(self, out: _Emitter) -> bool:
        """PROTO-ZERO's card after the human's turn (decisions 16-18); True if the game ended."""
        state = out.state
        card = AI_BY_ID[state.ai_deck[0]]
        locked = locked_cells(state)
        cells = [c for c in card.cells if c not in locked and state.board[c] != PINK]
        gain = 0 if state.ai_drained else 1
        out.emit(AiCardPlayed(card.id, tuple(slot_of(c) for c in sorted(cells)), gain))
        state = out.state
        if state.ai_energy >= AI_OVERCHARGE:
            top_left = overcharge_block(state.board, locked)
            cells = [c for c in block_cells(top_left) if c not in locked and state.board[c] != PINK]
            out.emit(AiOvercharged(slot_of(top_left), tuple(slot_of(c) for c in sorted(cells))))
        state = out.state
        if len(state.ai_played) % AI_CHECKPOINT_EVERY == 0:
            out.emit(Checkpoint(state.checkpoints + 1, _tiles_per_seat(state), ()))
            if out.state.players[0].vp >= FIFTY:
                out.emit(GameEnded("fifty"))
                return True
        if count(out.state.board, PINK) == 0:
            out.emit(GameEnded("wiped"))
            return True
        if not out.state.ai_deck:
            out.emit(GameEnded("ai_deck_spent"))
            return True
        return False

    # -- evolve ---------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        """Apply one event: pure and total over the events ``decide`` emits."""
        if isinstance(event, ObjectiveChosen):
            player = attrs.evolve(state.players[event.seat], objective=event.objective, offers=())
            return attrs.evolve(
                state,
                players=_replace(state.players, event.seat, player),
                objective_deck=(*state.objective_deck, event.returned),
            )
        if isinstance(event, TurnStarted):
            player = state.players[event.seat]
            player = attrs.evolve(
                player, energy=player.energy + event.income, locks=(), drain_next=0
            )
            start = state.clock_start
            if state.overdrive and start is None:
                start = event.at
            return attrs.evolve(
                state,
                players=_replace(state.players, event.seat, player),
                phase="main",
                turn=event.seat,
                turns=state.turns + 1,
                surcharge=event.surcharge,
                manual_flips=0,
                pending=None,
                clock_start=start,
            )
        if isinstance(event, CardPlayed):
            return self._evolve_play(state, event)
        if isinstance(event, ManualFlipped):
            cell = cell_of(event.slot)
            state = _pay(state, event.seat, event.cost)
            state = attrs.evolve(
                state, board=flipped(state.board, (cell,)), manual_flips=state.manual_flips + 1
            )
            colour = state.players[event.seat].colour
            return _after_flips(
                state, event.seat, (cell,) if state.board[cell] == colour else (), 3
            )
        if isinstance(event, CardBought):
            player = state.players[event.seat]
            player = attrs.evolve(
                player, energy=player.energy - BUY_COST, hand=(*player.hand, event.card)
            )
            state = attrs.evolve(state, players=_replace(state.players, event.seat, player))
            return _refill(state, state.market.index(event.card))
        if isinstance(event, NodeLocked):
            player = state.players[event.seat]
            player = attrs.evolve(
                player,
                energy=player.energy - LOCK_COST,
                locks=(*player.locks, cell_of(event.slot)),
            )
            return attrs.evolve(state, players=_replace(state.players, event.seat, player))
        if isinstance(event, CascadeFlipped):
            pending = state.pending
            assert pending is not None
            cell = cell_of(event.slot)
            state = attrs.evolve(state, board=flipped(state.board, (cell,)))
            made = pending.made + 1
            colour = state.players[event.seat].colour
            if made >= pending.limit or not cascade_choices(
                state.board, locked_cells(state), colour, (cell,)
            ):
                return _close_chain(state, event.seat, made)
            return attrs.evolve(state, pending=Pending(event.seat, (cell,), made, pending.limit))
        if isinstance(event, CascadeStopped):
            pending = state.pending
            return _close_chain(state, event.seat, pending.made if pending else 0)
        if isinstance(event, TurnEnded):
            hand = state.players[event.seat].hand
            return attrs.evolve(state, phase="discard" if len(hand) > HAND_LIMIT else "main")
        if isinstance(event, CardDiscarded):
            player = state.players[event.seat]
            hand = tuple(c for c in player.hand if c != event.card)
            return attrs.evolve(
                state,
                players=_replace(state.players, event.seat, attrs.evolve(player, hand=hand)),
                discard=(*state.discard, event.card),
            )
        if isinstance(event, CardDrawn):
            return attrs.evolve(_draw_to_hand(state, event.seat, 1), phase="main")
        if isinstance(event, DeckReshuffled):
            return attrs.evolve(state, draw=event.order, discard=())
        if isinstance(event, Checkpoint):
            return self._evolve_checkpoint(state, event)
        if isinstance(event, AiCardPlayed):
            board = list(state.board)
            for slot in event.slots:
                board[cell_of(slot)] = PINK
            return attrs.evolve(
                state,
                board=tuple(board),
                ai_deck=state.ai_deck[1:],
                ai_played=(*state.ai_played, event.card),
                ai_energy=state.ai_energy + event.energy,
                ai_drained=max(0, state.ai_drained - 1),
            )
        if isinstance(event, AiOvercharged):
            board = list(state.board)
            for slot in event.slots:
                board[cell_of(slot)] = PINK
            return attrs.evolve(state, board=tuple(board), ai_energy=0)
        if isinstance(event, DominanceCounted):
            players = tuple(
                attrs.evolve(p, vp=p.vp + gain)
                for p, gain in zip(state.players, event.gains, strict=True)
            )
            return attrs.evolve(state, players=players)
        if isinstance(event, ClockExpired):
            return attrs.evolve(state, clock_out=True)
        if isinstance(event, GameEnded):
            return attrs.evolve(state, phase="over", ended=event.reason, pending=None)
        return state

    def _evolve_play(self, state: State, event: CardPlayed) -> State:
        seat = event.seat
        kind = kind_of(event.card)
        resolution = kind.effect.resolve(context(state, seat), _play_of(event))
        player = state.players[seat]
        player = attrs.evolve(
            player,
            energy=player.energy - event.cost + resolution.energy,
            hand=tuple(c for c in player.hand if c != event.card),
        )
        state = attrs.evolve(
            state,
            board=resolution.board,
            players=_replace(state.players, seat, player),
            discard=(*state.discard, event.card),
        )
        if resolution.draws:
            state = _draw_to_hand(state, seat, resolution.draws)
        if resolution.drain is not None:
            if resolution.drain == PROTO_ZERO:
                state = attrs.evolve(state, ai_drained=state.ai_drained + 1)
            else:
                target = state.players[resolution.drain]
                target = attrs.evolve(target, drain_next=target.drain_next + 1)
                state = attrs.evolve(
                    state, players=_replace(state.players, resolution.drain, target)
                )
        return _after_flips(state, seat, resolution.sources, resolution.cascade_limit)

    def _evolve_checkpoint(self, state: State, event: Checkpoint) -> State:
        players = tuple(
            attrs.evolve(p, vp=p.vp + gain)
            for p, gain in zip(state.players, event.gains, strict=True)
        )
        state = attrs.evolve(state, players=players, checkpoints=event.number)
        if state.solo:
            return state
        owed = state.owed
        state = attrs.evolve(state, draw=event.order, discard=(), owed=(), round_over=False)
        for where, which in owed:
            if not state.draw:
                break
            if where == "hand":
                state = _draw_to_hand(state, which, 1)
            elif state.market[which] == "":
                state = _refill(state, which)
        return attrs.evolve(state, owed=(), round_over=False)

    # -- view -----------------------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """What ``viewer`` sees (decisions 9): the board, locks, market, discards, Energy, VP
        and drains of everyone; hands as counts; its own hand and objective. Objectives are
        revealed once the game is over."""
        locks = [
            {"slot": slot_of(cell), "seat": seat}
            for seat, p in enumerate(state.players)
            for cell in p.locks
        ]
        over = state.phase == "over"
        players = []
        for seat, p in enumerate(state.players):
            entry: dict[str, Any] = {
                "seat": seat,
                "colour": COLOURS[p.colour],
                "team": team_of(state, seat),
                "energy": p.energy,
                "vp": p.vp,
                "tiles": count(state.board, p.colour),
                "hand": len(p.hand),
                "locks": [slot_of(c) for c in p.locks],
                "longest_chain": p.longest,
                "drain_next": p.drain_next,
                "objective_chosen": p.objective != "",
            }
            if over:
                entry["objective"] = p.objective
            players.append(entry)
        data: dict[str, Any] = {
            "mode": state.mode,
            "teams": state.teams,
            "obstacles": state.obstacles,
            "rounds": state.rounds,
            "seats": state.seats,
            "board": [COLOURS[c] for c in state.board],
            "locks": locks,
            "players": players,
            "phase": state.phase,
            "turn": state.turn if state.phase != "objectives" else None,
            "turns": state.turns,
            "surcharge": state.surcharge,
            "manual_flips_left": MANUAL_FLIPS_PER_TURN - state.manual_flips,
            "market": [_card_view(c, state.overdrive) if c else None for c in state.market],
            "discard": [_card_view(c, state.overdrive) for c in state.discard],
            "draw_pile": len(state.draw),
            "round_over": state.round_over,
            "checkpoints": state.checkpoints,
            "threshold": threshold(state) if state.overdrive else None,
            "pending_cascade": None,
        }
        if state.pending is not None:
            pending = state.pending
            colour = state.players[pending.seat].colour
            choices = cascade_choices(state.board, locked_cells(state), colour, pending.sources)
            data["pending_cascade"] = {
                "seat": pending.seat,
                "from": [slot_of(c) for c in pending.sources],
                "made": pending.made,
                "limit": pending.limit,
                "choices": [slot_of(c) for c in choices],
            }
        if state.overdrive:
            deadline = self.deadline(state)
            data["clock"] = {
                "minutes": state.clock,
                "started": state.clock_start,
                "deadline": deadline,
                "expired": state.clock_out,
            }
        if state.solo:
            data["proto_zero"] = {
                "colour": COLOURS[PINK],
                "energy": state.ai_energy,
                "drained": state.ai_drained,
                "cards_left": len(state.ai_deck),
                "played": [_ai_card_view(c) for c in state.ai_played],
            }
        if viewer is not None and 0 <= viewer < state.seats:
            me = state.players[viewer]
            data["you"] = {
                "seat": viewer,
                "colour": COLOURS[me.colour],
                "hand": [_card_view(c, state.overdrive) for c in me.hand],
                "objective": _objective_view(me.objective) if me.objective else None,
                "offers": [_objective_view(o) for o in me.offers],
            }
        if over:
            result = self.outcome(state)
            assert result is not None
            data["outcome"] = outcome_to_wire(result)
        return data

    # -- legal ----------------------------------------------------------------------------------

    def legal(self, state: State, seat: int) -> list[dict[str, Any]]:
        """Every command ``seat`` may send now, compactly: a card with its valid targets
        (``choose``) and, per target, the slots it would change (``preview``)."""
        if state.phase == "over" or not 0 <= seat < state.seats:
            return []
        player = state.players[seat]
        if state.phase == "objectives":
            if not player.offers:
                return []
            return [{"type": "choose_objective", "choose": {"objective": list(player.offers)}}]
        if seat != state.turn:
            return []
        if state.phase == "discard":
            return [{"type": "discard", "choose": {"card": sorted(set(player.hand))}}]
        if state.pending is not None:
            pending = state.pending
            choices = cascade_choices(
                state.board, locked_cells(state), player.colour, pending.sources
            )
            return [
                {
                    "type": "cascade",
                    "choose": {"slot": [slot_of(c) for c in choices]},
                    "preview": [[slot_of(c)] for c in choices],
                },
                {"type": "stop_cascade"},
            ]
        out: list[dict[str, Any]] = []
        ctx = context(state, seat)
        for card in player.hand:
            cost = self._cost(state, card_cost(card, state.overdrive))
            if player.energy < cost:
                continue
            for entry in kind_of(card).effect.entries(ctx, card):
                entry["cost"] = cost
                out.append(entry)
        locked = ctx.locked
        flip_cost = self._cost(state, MANUAL_FLIP_COST)
        if state.manual_flips < MANUAL_FLIPS_PER_TURN and player.energy >= flip_cost:
            slots = [slot_of(c) for c in range(CELLS) if c not in locked]
            if slots:
                out.append(
                    {
                        "type": "manual_flip",
                        "choose": {"slot": slots},
                        "preview": [[s] for s in slots],
                        "cost": flip_cost,
                    }
                )
        if player.energy >= BUY_COST:
            cards = [c for c in state.market if c]
            if cards:
                out.append({"type": "buy_card", "choose": {"card": cards}, "cost": BUY_COST})
        if player.energy >= LOCK_COST and len(player.locks) < LOCK_LIMIT:
            slots = [
                slot_of(c)
                for c in range(CELLS)
                if state.board[c] == player.colour and c not in locked
            ]
            if slots:
                out.append({"type": "lock", "choose": {"slot": slots}, "cost": LOCK_COST})
        out.append({"type": "end_turn"})
        return out

    # -- clock and outcome ----------------------------------------------------------------------

    def deadline(self, state: State) -> float | None:
        """The Overdrive game clock's end, once the first turn has started (decisions 14)."""
        if (
            not state.overdrive
            or state.phase == "over"
            or state.clock_out
            or state.clock_start is None
        ):
            return None
        return state.clock_start + state.clock * 60.0

    def tick(self, state: State, now: float, rng: random.Random) -> list[Event]:
        """The clock ran out: the game ends after the current turn (decisions 14)."""
        due = self.deadline(state)
        if due is None or now < due:
            return []
        return [ClockExpired()]

    def outcome(self, state: State) -> Outcome | None:
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


def _reshuffled(state: State, rng: random.Random) -> tuple[str, ...]:
    """Solo: the draw pile with the shuffled discards under it (decisions 18)."""
    discards = list(state.discard)
    rng.shuffle(discards)
    return (*state.draw, *discards)


def _card_view(card: str, overdrive: bool) -> dict[str, Any]:
    kind = kind_of(card)
    return {"id": card, "kind": kind.key, "name": kind.name, "cost": card_cost(card, overdrive)}


def _objective_view(key: str) -> dict[str, str]:
    return {"id": key, "name": OBJECTIVE_NAMES[key]}


def _ai_card_view(card: str) -> dict[str, Any]:
    ai = AI_BY_ID[card]
    return {"id": ai.id, "pattern": ai.pattern, "target": ai.target}


class _Emitter:
    """Events of one decision, applied as they are emitted so later steps see their effect."""

    def __init__(self, game: NeonFlip, state: State) -> None:
        self.game = game
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = self.game.evolve(self.state, event)


GAME = NeonFlip()
