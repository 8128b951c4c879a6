"""Neon Flip: the rules as Lumin plays them.

Sources: ``neon-flip.rulebook.txt`` (cited by section number) and ``neon-flip.decisions.md``
(cited by number; a decision wins over the rulebook). Grid and patterns live in
:mod:`engine.neon_flip.board`, the Protocol cards (and the cascade's choices) in
:mod:`engine.neon_flip.cards`, commands and events in :mod:`engine.neon_flip.messages`, the
table in :mod:`engine.neon_flip.state`, what viewers see in :mod:`engine.neon_flip.views`,
scoring, objectives and the outcome in :mod:`engine.neon_flip.scoring`, PROTO-ZERO in
:mod:`engine.neon_flip.proto_zero`. Here: setup, the decisions of each command, the events
applied by an event-type-to-function table (:data:`_APPLY`), legal commands and the clock.

A game runs in phases: every seat first keeps one of two dealt Target Objectives
(``objectives``); then turns follow in seat order from a first player drawn from the seed
(``main``, with an optional ``discard`` step at the end of a turn), until ``over``. A cascade
is a pending choice of the active player, one flip at a time.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
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
from engine.neon_flip import movelog, scoring, views
from engine.neon_flip.board import CELLS, PINK, block_cells, cell_of, flipped, slot_of
from engine.neon_flip.cards import (
    CASCADE_LIMIT,
    DECK,
    PROTO_ZERO,
    Play,
    card_cost,
    cascade_choices,
    kind_of,
)
from engine.neon_flip.messages import (
    COMMANDS,
    EVENTS,
    AiCardPlayed,
    AiCascaded,
    AiOvercharged,
    BuyCard,
    CardBought,
    CardDiscarded,
    CardDrawn,
    CardPlayed,
    Cascade,
    CascadeFlipped,
    CascadeStopped,
    Checkpoint,
    ChooseObjective,
    ClockExpired,
    DeckReshuffled,
    Discard,
    DominanceCounted,
    EndTurn,
    GameEnded,
    Lock,
    ManualFlip,
    ManualFlipped,
    NodeLocked,
    ObjectiveChosen,
    PlayCard,
    StopCascade,
    TurnEnded,
    TurnStarted,
)
from engine.neon_flip.proto_zero import (
    AI_BY_ID,
    AI_CARDS,
    AI_CHECKPOINT_EVERY,
    LEVELS,
    overcharge_block,
    overclocked_chain,
)
from engine.neon_flip.scoring import OBJECTIVES, count
from engine.neon_flip.state import (
    BONUS_TILES,
    BUY_COST,
    FIFTY,
    HAND_LIMIT,
    INCOME,
    LOCK_COST,
    LOCK_LIMIT,
    MANUAL_FLIP_COST,
    MANUAL_FLIPS_PER_TURN,
    MARKET_SIZE,
    START_HAND,
    Pending,
    Player,
    State,
    clock_deadline,
    context,
    locked_cells,
    sides,
    threshold,
)

__all__ = ["GAME", "NeonFlip", "side_tiles"]


# --- state helpers -----------------------------------------------------------------------------


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


# --- applying events: one function per event type ----------------------------------------------


def _objective_chosen(state: State, event: ObjectiveChosen) -> State:
    """``seat`` keeps its objective; the other goes back to the objective deck (decisions 10)."""
    player = attrs.evolve(state.players[event.seat], objective=event.objective, offers=())
    return attrs.evolve(
        state,
        players=_replace(state.players, event.seat, player),
        objective_deck=(*state.objective_deck, event.returned),
    )


def _turn_started(state: State, event: TurnStarted) -> State:
    """Phase 1 (decisions 6): income, lock removal, this turn's drain surcharge; the first
    Overdrive turn starts the game clock (decisions 14)."""
    player = state.players[event.seat]
    player = attrs.evolve(player, energy=player.energy + event.income, locks=(), drain_next=0)
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


def _card_played(state: State, event: CardPlayed) -> State:
    """Action A (rulebook 2.3): pay, resolve the card's effect (:mod:`engine.neon_flip.cards`),
    draw what it draws, place a System Drain, and open a cascade from the tiles it turned."""
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
            state = attrs.evolve(state, players=_replace(state.players, resolution.drain, target))
    return _after_flips(state, seat, resolution.sources, resolution.cascade_limit)


def _manual_flipped(state: State, event: ManualFlipped) -> State:
    """Action B (rulebook 2.3): pay and flip one tile; a tile turned to the player's colour
    may start a cascade of up to :data:`CASCADE_LIMIT` flips (decisions 4)."""
    cell = cell_of(event.slot)
    state = _pay(state, event.seat, event.cost)
    state = attrs.evolve(
        state, board=flipped(state.board, (cell,)), manual_flips=state.manual_flips + 1
    )
    colour = state.players[event.seat].colour
    return _after_flips(
        state, event.seat, (cell,) if state.board[cell] == colour else (), CASCADE_LIMIT
    )


def _card_bought(state: State, event: CardBought) -> State:
    """Action C (rulebook 2.3): pay 1, take the market card, refill its slot (decisions 7)."""
    player = state.players[event.seat]
    player = attrs.evolve(player, energy=player.energy - BUY_COST, hand=(*player.hand, event.card))
    state = attrs.evolve(state, players=_replace(state.players, event.seat, player))
    return _refill(state, state.market.index(event.card))


def _node_locked(state: State, event: NodeLocked) -> State:
    """Action D (rulebook 2.3): pay 3 and lock a tile of the player's colour (decisions 7)."""
    player = state.players[event.seat]
    player = attrs.evolve(
        player,
        energy=player.energy - LOCK_COST,
        locks=(*player.locks, cell_of(event.slot)),
    )
    return attrs.evolve(state, players=_replace(state.players, event.seat, player))


def _cascade_flipped(state: State, event: CascadeFlipped) -> State:
    """One cascade flip, neon-flip.decisions 4 ("Cascades", rulebook 2.2): the chosen tile turns
    to the player's colour and the chain continues from it, until the action's limit
    (:data:`CASCADE_LIMIT`, :data:`CHAIN_REACTOR_CASCADE_LIMIT` after a Chain Reactor) or no tile
    qualifies; a closed chain's length is kept for the third tie-breaker (decisions 5)."""
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


def _cascade_stopped(state: State, event: CascadeStopped) -> State:
    """The player stopped the cascade (decisions 4); its length so far counts (decisions 5)."""
    pending = state.pending
    return _close_chain(state, event.seat, pending.made if pending else 0)


def _turn_ended(state: State, event: TurnEnded) -> State:
    """Phase 2 ended: above :data:`HAND_LIMIT` cards the player discards first (decisions 8)."""
    hand = state.players[event.seat].hand
    return attrs.evolve(state, phase="discard" if len(hand) > HAND_LIMIT else "main")


def _card_discarded(state: State, event: CardDiscarded) -> State:
    """A Phase 3 discard (decisions 8)."""
    player = state.players[event.seat]
    hand = tuple(c for c in player.hand if c != event.card)
    return attrs.evolve(
        state,
        players=_replace(state.players, event.seat, attrs.evolve(player, hand=hand)),
        discard=(*state.discard, event.card),
    )


def _card_drawn(state: State, event: CardDrawn) -> State:
    """Phase 3's draw of 1 (decisions 8), owed if the pile is empty (decisions 11)."""
    return attrs.evolve(_draw_to_hand(state, event.seat, 1), phase="main")


def _deck_reshuffled(state: State, event: DeckReshuffled) -> State:
    """Solo: the discards shuffled under the draw pile (decisions 18)."""
    return attrs.evolve(state, draw=event.order, discard=())


def _checkpoint(state: State, event: Checkpoint) -> State:
    """A checkpoint (decisions 11, 12; solo 17): Grid Dominance VP, then outside solo the
    discards reshuffled into the new draw pile and the owed draws made."""
    players = tuple(
        attrs.evolve(p, vp=p.vp + gain) for p, gain in zip(state.players, event.gains, strict=True)
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


def _ai_card_played(state: State, event: AiCardPlayed) -> State:
    """PROTO-ZERO's card sets its tiles to Pink and adds the Energy it gained (none while
    drained); a drain wears off by one (decisions 16)."""
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


def _ai_overcharged(state: State, event: AiOvercharged) -> State:
    """PROTO-ZERO's overcharge sets a 3 x 3 block to Pink and spends its Energy (decisions 16)."""
    board = list(state.board)
    for slot in event.slots:
        board[cell_of(slot)] = PINK
    return attrs.evolve(state, board=tuple(board), ai_energy=0)


def _ai_cascaded(state: State, event: AiCascaded) -> State:
    """An overclocked PROTO-ZERO's cascade sets its chain's tiles to Pink (decisions 16a)."""
    board = list(state.board)
    for slot in event.slots:
        board[cell_of(slot)] = PINK
    return attrs.evolve(state, board=tuple(board))


def _dominance_counted(state: State, event: DominanceCounted) -> State:
    """Grid Dominance VP counted at an Overdrive or clock end (decisions 14)."""
    players = tuple(
        attrs.evolve(p, vp=p.vp + gain) for p, gain in zip(state.players, event.gains, strict=True)
    )
    return attrs.evolve(state, players=players)


def _clock_expired(state: State, event: ClockExpired) -> State:
    """The Overdrive clock ran out: the game ends after the current turn (decisions 14)."""
    return attrs.evolve(state, clock_out=True)


def _game_ended(state: State, event: GameEnded) -> State:
    """The game is over (decisions 13, 14, 18)."""
    return attrs.evolve(state, phase="over", ended=event.reason, pending=None)


#: How each event changes the table: event type -> ``(state, event) -> state``.
_APPLY: dict[type[Event], Callable[[State, Any], State]] = {
    ObjectiveChosen: _objective_chosen,
    TurnStarted: _turn_started,
    CardPlayed: _card_played,
    ManualFlipped: _manual_flipped,
    CardBought: _card_bought,
    NodeLocked: _node_locked,
    CascadeFlipped: _cascade_flipped,
    CascadeStopped: _cascade_stopped,
    TurnEnded: _turn_ended,
    CardDiscarded: _card_discarded,
    CardDrawn: _card_drawn,
    DeckReshuffled: _deck_reshuffled,
    Checkpoint: _checkpoint,
    AiCardPlayed: _ai_card_played,
    AiOvercharged: _ai_overcharged,
    AiCascaded: _ai_cascaded,
    DominanceCounted: _dominance_counted,
    ClockExpired: _clock_expired,
    GameEnded: _game_ended,
}


# --- the game ----------------------------------------------------------------------------------


class NeonFlip:
    """The rules object Lumin registers as ``neon_flip``."""

    id = "neon_flip"
    name = "Neon Flip"
    commands: tuple[type[Command], ...] = COMMANDS
    events: tuple[type[Event], ...] = EVENTS
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
            when=(("mode", ("classic", "overdrive")), ("seats", (4,))),
        ),
        OptionSpec(
            "obstacles",
            "bool",
            False,
            "2 seats only: 24 A tiles and 12 neutral B tiles instead of 36 A tiles (decisions 2).",
            when=(("mode", ("classic", "overdrive")), ("seats", (2,))),
        ),
        OptionSpec(
            "rounds",
            "int",
            4,
            "Checkpoints before the game ends (decisions 12); 2 reproduces rulebook 2.6.",
            minimum=1,
            maximum=4,
            when=(("mode", ("classic", "overdrive")),),
        ),
        OptionSpec(
            "clock",
            "int",
            15,
            "Neon Overdrive's game clock in minutes (decisions 14).",
            minimum=1,
            maximum=120,
            when=(("mode", ("overdrive",)),),
        ),
        OptionSpec(
            "proto_zero",
            "choice",
            "standard",
            "Solo only: PROTO-ZERO's level. standard: an introduction (decisions 16); "
            "overclocked: it cascades after each card and overcharge (decisions 16a).",
            choices=tuple(LEVELS),
            when=(("mode", ("solo",)),),
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

    def check_seats(self, options: Mapping[str, Any], choices: Sequence[Mapping[str, Any]]) -> None:
        """PROTO-ZERO's level is an option of solo rooms only (decisions 16a)."""
        level = options.get("proto_zero", "standard")
        if options.get("mode") != "solo" and level != "standard":
            raise Rejected(
                "bad_option", "proto_zero is an option of solo rooms only.", rule="decisions 16a"
            )

    def setup(
        self, options: Mapping[str, Any], seats: Sequence[SeatSpec], rng: random.Random
    ) -> State:
        """Deal the grid, the hands, the market and the objectives (rulebook 2.1, decisions
        2, 3, 10); Overdrive's deal is balanced (decisions 14); solo shuffles PROTO-ZERO's
        deck (decisions 16) at the level of ``proto_zero`` (16a)."""
        self.check_seats(options, [seat.choices for seat in seats])
        mode = str(options.get("mode", "classic"))
        n = len(seats)
        obstacles = bool(options.get("obstacles", False))
        if mode == "solo" or (n == 2 and not obstacles):
            spectra = [0] * 36
        elif n == 2:
            spectra = [0] * 24 + [1] * 12
        else:
            spectra = [0] * 18 + [1] * 18
        if mode == "overdrive":
            board = _balanced_deal(spectra, rng)
        else:
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
        first = rng.randrange(n)
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
            turn=first,
            ai_deck=ai_deck,
            first=first,
            proto_zero=str(options.get("proto_zero", "standard")) if mode == "solo" else "standard",
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
                "Every player keeps a Target Objective before the first turn.",
                rule="rulebook 2.1",
            )
        if seat != state.turn:
            raise Rejected("not_your_turn", "Only the active player acts.", rule="rulebook 2.3")
        if state.phase == "discard":
            if not isinstance(command, Discard):
                raise Rejected(
                    "discard_first",
                    "Discard down to 6 cards before anything else.",
                    rule="rulebook 2.3 Phase 3",
                )
            self._discard(out, seat, command, now, rng)
            return out.events
        if isinstance(command, Discard):
            raise Rejected(
                "not_discarding",
                "Cards are discarded only in Phase 3, above 6.",
                rule="decisions 8",
            )
        if state.pending is not None:
            if isinstance(command, Cascade):
                self._cascade(out, seat, command)
            elif isinstance(command, StopCascade):
                out.emit(CascadeStopped(seat))
            else:
                raise Rejected(
                    "cascade_pending",
                    "Choose the next cascade flip or stop the cascade first.",
                    rule="decisions 4",
                )
            self._after_action(out)
            return out.events
        if isinstance(command, Cascade | StopCascade):
            raise Rejected("no_cascade", "No cascade is waiting for a choice.", rule="decisions 4")
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
                "already_chosen", "Each player keeps one objective, once.", rule="decisions 10"
            )
        if command.objective not in player.offers:
            raise Rejected(
                "not_offered", "Keep one of the two objectives you were dealt.", rule="decisions 10"
            )
        returned = next(o for o in player.offers if o != command.objective)
        out.emit(ObjectiveChosen(seat, command.objective, returned))
        if all(p.offers == () for p in out.state.players):
            self._start_turn(out, out.state.turn, now)

    def _start_turn(self, out: _Emitter, seat: int, now: float) -> None:
        """Start ``seat``'s turn (decisions 6), unless it ends Overdrive first: before Phase 1
        the player about to move (with teams, that player's team) is checked against the
        threshold, so a side ends the game only by keeping it through every rival's turn;
        the end adds a Grid Dominance count (decisions 14)."""
        state = out.state
        if state.overdrive:
            side = next(side for side in sides(state) if seat in side)
            shown = sum(count(state.board, state.players[s].colour) for s in side)
            if shown >= threshold(state):
                out.emit(DominanceCounted(_tiles_per_seat(state)))
                out.emit(GameEnded("overdrive"))
                return
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
                "turned to your colour.",
                rule="decisions 4",
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
                f"This card costs {cost} Energy (surcharge included) and you have {player.energy}.",
                rule="rulebook 2.3 Action A",
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
            raise Rejected(
                "flip_limit", "At most two Manual Flips per turn.", rule="rulebook 2.3 B"
            )
        cost = self._cost(state, MANUAL_FLIP_COST)
        if state.players[seat].energy < cost:
            raise Rejected(
                "no_energy", f"A Manual Flip costs {cost} Energy now.", rule="rulebook 2.3 B"
            )
        if not 1 <= command.slot <= CELLS:
            raise Rejected("bad_slot", "Slots are numbered 1 to 36.", rule="decisions 3")
        if cell_of(command.slot) in locked_cells(state):
            raise Rejected("locked", "Locked tiles cannot be flipped.", rule="rulebook 2.7")
        out.emit(ManualFlipped(seat, command.slot, cost))

    def _buy(self, out: _Emitter, seat: int, command: BuyCard, rng: random.Random) -> None:
        state = out.state
        if not command.card or command.card not in state.market:
            raise Rejected("not_in_market", "Buy a face-up card of the Active Market.")
        if state.players[seat].energy < BUY_COST:
            raise Rejected(
                "no_energy", "Buying a market card costs 1 Energy.", rule="rulebook 2.3 C"
            )
        if state.solo and not state.draw:
            out.emit(DeckReshuffled(_reshuffled(state, rng)))
        out.emit(CardBought(seat, command.card))

    def _lock(self, out: _Emitter, seat: int, command: Lock) -> None:
        state = out.state
        player = state.players[seat]
        if not 1 <= command.slot <= CELLS:
            raise Rejected("bad_slot", "Slots are numbered 1 to 36.", rule="decisions 3")
        cell = cell_of(command.slot)
        if state.board[cell] != player.colour:
            raise Rejected(
                "not_your_colour", "Lock a tile showing your colour.", rule="rulebook 2.3 D"
            )
        if cell in locked_cells(state):
            raise Rejected("already_locked", "That tile is locked already.")
        if len(player.locks) >= LOCK_LIMIT:
            raise Rejected(
                "lock_limit", "At most 2 of your locks on the board.", rule="rulebook 2.3 D"
            )
        if player.energy < LOCK_COST:
            raise Rejected("no_energy", "A lock costs 3 Energy.", rule="rulebook 2.3 D")
        out.emit(NodeLocked(seat, command.slot))

    def _ai_cascade(self, out: _Emitter, changed: Sequence[int]) -> None:
        """An overclocked PROTO-ZERO's cascade from the cells just changed (decisions 16a)."""
        state = out.state
        chain = overclocked_chain(state.board, locked_cells(state), changed)
        if chain:
            out.emit(AiCascaded(tuple(slot_of(c) for c in chain)))

    def _after_action(self, out: _Emitter) -> None:
        """After a whole action, cascades included: the solo wipe-out win (decisions 18).
        (Overdrive's threshold is checked at the start of a turn, :meth:`_start_turn`.)"""
        state = out.state
        if state.pending is not None or state.phase != "main":
            return
        if state.solo and count(state.board, PINK) == 0:
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
        """PROTO-ZERO's card after the human's turn (decisions 16-18), at its level (16a):
        the card's pattern, an overclocked cascade, the Energy gain, the overcharge on
        reaching its cost, that overcharge's cascade, then the checkpoint when due. The gain
        is recorded with the card (``ai_card_played``); it cannot change the cascade, which
        follows as ``ai_cascaded``. True if the game ended."""
        state = out.state
        level = LEVELS[state.proto_zero]
        card = AI_BY_ID[state.ai_deck[0]]
        locked = locked_cells(state)
        cells = sorted(c for c in card.cells if c not in locked and state.board[c] != PINK)
        gain = 0 if state.ai_drained else level.energy
        out.emit(AiCardPlayed(card.id, tuple(slot_of(c) for c in cells), gain))
        if level.cascades:
            self._ai_cascade(out, cells)
        state = out.state
        if state.ai_energy >= level.overcharge:
            top_left = overcharge_block(state.board, locked)
            cells = sorted(
                c for c in block_cells(top_left) if c not in locked and state.board[c] != PINK
            )
            out.emit(AiOvercharged(slot_of(top_left), tuple(slot_of(c) for c in cells)))
            if level.cascades:
                self._ai_cascade(out, cells)
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
        """Apply one event through :data:`_APPLY` (its type's function): pure and total over
        the events ``decide`` emits; any other event changes nothing. Each is noted in the
        move log (:mod:`engine.neon_flip.movelog`)."""
        apply = _APPLY.get(type(event))
        after = state if apply is None else apply(state, event)
        log = movelog.noted(state, event)
        return after if log is state.log else attrs.evolve(after, log=log)

    # -- view -----------------------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """See :func:`engine.neon_flip.views.view`; once the game is over it also holds the
        outcome."""
        data = views.view(state, viewer)
        result = self.outcome(state)
        if result is not None:
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
        return clock_deadline(state)

    def tick(self, state: State, now: float, rng: random.Random) -> list[Event]:
        """The clock ran out: the game ends after the current turn (decisions 14)."""
        due = self.deadline(state)
        if due is None or now < due:
            return []
        return [ClockExpired()]

    def outcome(self, state: State) -> Outcome | None:
        """See :func:`engine.neon_flip.scoring.outcome`: the final tally (decisions 13) with the
        tie-breakers of rulebook 2.6 (decisions 15), or solo against PROTO-ZERO (decisions 18)."""
        return scoring.outcome(state)


def _balanced_deal(spectra: Sequence[int], rng: random.Random) -> tuple[int, ...]:
    """Overdrive's deal (decisions 14): each spectrum's tiles split evenly between its two
    faces, then places shuffled from the seed."""
    tiles = []
    for spectrum in sorted(set(spectra)):
        n = sum(1 for s in spectra if s == spectrum)
        tiles += [spectrum * 2] * (n // 2) + [spectrum * 2 + 1] * (n - n // 2)
    rng.shuffle(tiles)
    return tuple(tiles)


def _reshuffled(state: State, rng: random.Random) -> tuple[str, ...]:
    """Solo: the draw pile with the shuffled discards under it (decisions 18)."""
    discards = list(state.discard)
    rng.shuffle(discards)
    return (*state.draw, *discards)


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
