"""Flip Over Frog: the rules as Lumin plays them.

Sources: ``flip-over-frog.rulebook.txt`` (cited by section heading) and
``flip-over-frog.decisions.md`` (cited by number). Each player holds a secret colour and a hand
of three tiles; on their turn they play a tile, resolve it, and draw back to three.
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
from engine.flip_over_frog import views
from engine.flip_over_frog.board import (
    COLOURS,
    SPACES,
    TILES,
    arrows_of,
    colour_of,
    is_snake,
    targets,
)
from engine.flip_over_frog.messages import (
    COMMANDS,
    EVENTS,
    DiscardSnake,
    FrogPlaced,
    GameEnded,
    PlayTile,
    SnakeDiscarded,
    SnakePlayed,
    TileDrawn,
    TurnPassed,
)
from engine.flip_over_frog.state import Stack, State, face_up_frog, frog_counts
from engine.movelog import record

__all__ = ["GAME", "HAND_SIZE", "FlipOverFrog", "flip", "flips_for", "frog_spaces", "snake_spaces"]

HAND_SIZE = 3


# --- rule predicates ---------------------------------------------------------------------------


def flip(stack: Stack) -> Stack:
    """Turn a stack over as one piece: its order reverses and every face toggles (decisions 5)."""
    return tuple((tile, not up) for tile, up in reversed(stack))


def frog_spaces(board: Sequence[Stack]) -> list[int]:
    """Spaces a Frog may be played on: empty, or topped by a face-down tile (decisions 4)."""
    return [space for space, stack in enumerate(board) if not stack or not stack[-1][1]]


def snake_spaces(board: Sequence[Stack]) -> list[int]:
    """Spaces a Snake may be played on: topped by a face-up Frog (decisions 6)."""
    return [space for space, stack in enumerate(board) if face_up_frog(stack) is not None]


def flips_for(board: Sequence[Stack], tile: str, space: int) -> tuple[int, ...]:
    """The occupied spaces a Frog's arrows turn over when it lands on ``space`` (decisions 5)."""
    return tuple(s for s in targets(space, arrows_of(tile)) if board[s])


# --- the game ----------------------------------------------------------------------------------


class FlipOverFrog:
    """The rules object the registry hands out as ``flip_over_frog``."""

    id = "flip_over_frog"
    name = "Flip Over Frog"
    commands: tuple[type[Command], ...] = COMMANDS
    events: tuple[type[Event], ...] = EVENTS
    options: tuple[OptionSpec, ...] = ()
    seat_options: tuple[OptionSpec, ...] = ()
    #: The rules alone have no bots: the registry attaches ``engine.flip_over_frog.bots.BOTS``.
    bots: Mapping[str, BotFactory] = MappingProxyType({})
    default_bot = "bot"

    def seat_counts(self, options: Mapping[str, Any]) -> range:
        """Two to four players (decisions 1)."""
        return range(2, 5)

    def setup(
        self, options: Mapping[str, Any], seats: Sequence[SeatSpec], rng: random.Random
    ) -> State:
        """Deal colours and hands, shuffle the stack, pick the first player (rulebook "Set Up";
        decisions 1, 11)."""
        players = len(seats)
        colours = list(COLOURS)
        rng.shuffle(colours)
        tiles = list(TILES)
        rng.shuffle(tiles)
        hands = tuple(tuple(tiles[n * HAND_SIZE : (n + 1) * HAND_SIZE]) for n in range(players))
        return State(
            colours=tuple(colours[:players]),
            hands=hands,
            stack=tuple(tiles[players * HAND_SIZE :]),
            board=((),) * SPACES,
            turn=rng.randrange(players),
        )

    # -- decide ---------------------------------------------------------------------------------

    def decide(
        self, state: State, seat: int, command: Command, now: float, rng: random.Random
    ) -> list[Event]:
        """Check a play against the rules and say what happens (rulebook "How to Play")."""
        if state.ended is not None:
            raise Rejected("game_over", "The game is over; no more tiles can be played.")
        if seat != state.turn:
            raise Rejected("not_your_turn", f"It is seat {state.turn}'s turn, not yours.")
        hand = state.hands[seat]
        if isinstance(command, PlayTile):
            events = self._play(state, seat, command, hand)
        elif isinstance(command, DiscardSnake):
            events = self._discard(state, seat, command, hand)
        else:
            raise Rejected("bad_command", f"Flip Over Frog has no {command.TYPE!r} command.")
        return events + self._after_play(state, events)

    def _play(
        self, state: State, seat: int, command: PlayTile, hand: tuple[str, ...]
    ) -> list[Event]:
        tile, space = command.tile, command.space
        if tile not in hand:
            raise Rejected("not_in_hand", f"Tile {tile} is not in your hand.")
        if not 0 <= space < SPACES:
            raise Rejected("bad_space", f"Space {space} is not on the 4 x 4 board (0-15).")
        stack = state.board[space]
        if is_snake(tile):
            frog = face_up_frog(stack)
            if frog is None:
                raise Rejected(
                    "snake_needs_frog",
                    "A Snake may only be played on a face-up Frog.",
                    rule='rulebook "Tile Effects"',
                )
            return [SnakePlayed(seat, tile, space, frog)]
        if stack and stack[-1][1]:
            raise Rejected(
                "space_face_up",
                "A Frog cannot be played on a face-up tile.",
                rule='rulebook "Tile Effects"',
            )
        return [FrogPlaced(seat, tile, space, flips_for(state.board, tile, space))]

    def _discard(
        self, state: State, seat: int, command: DiscardSnake, hand: tuple[str, ...]
    ) -> list[Event]:
        if command.tile not in hand:
            raise Rejected("not_in_hand", f"Tile {command.tile} is not in your hand.")
        if not self._must_discard(state, hand):
            raise Rejected(
                "discard_not_allowed",
                "A Snake is discarded only when the hand holds only Snakes and no Frog is face up.",
                rule="decisions 7",
            )
        return [SnakeDiscarded(seat, command.tile)]

    @staticmethod
    def _must_discard(state: State, hand: Sequence[str]) -> bool:
        return all(is_snake(t) for t in hand) and not snake_spaces(state.board)

    def _after_play(self, state: State, events: list[Event]) -> list[Event]:
        """Draw back up, then end the game or pass the turn (decisions 8, 9)."""
        after = state
        for event in events:
            after = self.evolve(after, event)
        out: list[Event] = []
        seat = state.turn
        if after.stack and len(after.hands[seat]) < HAND_SIZE:
            drawn = TileDrawn(seat, after.stack[0])
            out.append(drawn)
            after = self.evolve(after, drawn)
        if sum(frog_counts(after.board).values()) == SPACES:
            return [*out, GameEnded("board_full")]
        if not after.stack and not any(after.hands):
            return [*out, GameEnded("tiles_exhausted")]
        following = next(
            (seat + step) % state.players
            for step in range(1, state.players + 1)
            if after.hands[(seat + step) % state.players]
        )
        return [*out, TurnPassed(following)]

    # -- evolve ---------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        """Apply one event (pure), noting it in the move log (the turn passing is not noted:
        the view shows whose turn it is)."""
        after = self._apply(state, event)
        if isinstance(event, FrogPlaced):
            return attrs.evolve(
                after,
                log=record(
                    state.log,
                    event.seat,
                    "frog",
                    {
                        "tile": event.tile,
                        "colour": colour_of(event.tile),
                        "space": event.space,
                        "flipped": event.flipped,
                    },
                ),
            )
        if isinstance(event, SnakePlayed):
            return attrs.evolve(
                after,
                log=record(
                    state.log,
                    event.seat,
                    "snake",
                    {
                        "tile": event.tile,
                        "space": event.space,
                        "frog": event.frog,
                        "colour": colour_of(event.frog),
                    },
                ),
            )
        if isinstance(event, SnakeDiscarded):
            return attrs.evolve(
                after, log=record(state.log, event.seat, "discard", {"tile": event.tile})
            )
        if isinstance(event, TileDrawn):
            # Everyone sees a tile taken from the stack; only the drawer sees which.
            return attrs.evolve(
                after, log=record(state.log, event.seat, "draw", private={"tile": event.tile})
            )
        if isinstance(event, GameEnded):
            return attrs.evolve(after, log=record(state.log, None, "end", {"reason": event.reason}))
        return after

    def _apply(self, state: State, event: Event) -> State:
        if isinstance(event, FrogPlaced):
            board = list(state.board)
            for space in event.flipped:
                board[space] = flip(board[space])
            board[event.space] = (*board[event.space], (event.tile, True))
            return attrs.evolve(
                state,
                board=tuple(board),
                hands=_without(state.hands, event.seat, event.tile),
                plays=state.plays + 1,
            )
        if isinstance(event, SnakePlayed):
            board = list(state.board)
            board[event.space] = board[event.space][:-1]
            return attrs.evolve(
                state,
                board=tuple(board),
                hands=_without(state.hands, event.seat, event.tile),
                discards=(*state.discards, event.frog, event.tile),
                plays=state.plays + 1,
            )
        if isinstance(event, SnakeDiscarded):
            return attrs.evolve(
                state,
                hands=_without(state.hands, event.seat, event.tile),
                discards=(*state.discards, event.tile),
                plays=state.plays + 1,
            )
        if isinstance(event, TileDrawn):
            hands = list(state.hands)
            hands[event.seat] = (*hands[event.seat], event.tile)
            return attrs.evolve(state, hands=tuple(hands), stack=state.stack[1:])
        if isinstance(event, TurnPassed):
            return attrs.evolve(state, turn=event.seat)
        if isinstance(event, GameEnded):
            return attrs.evolve(state, ended=event.reason)
        raise TypeError(f"not a Flip Over Frog event: {event!r}")

    # -- what seats see and may do --------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """See :func:`engine.flip_over_frog.views.view`; once the game is over it also holds
        the outcome."""
        out = views.view(state, viewer)
        outcome = self.outcome(state)
        if outcome is not None:
            out["outcome"] = outcome_to_wire(outcome)
        return out

    def legal(self, state: State, seat: int) -> list[dict[str, Any]]:
        """Each tile in hand with the spaces it may go to; a Frog's entry previews the spaces
        each choice would flip. Only the player to move has entries."""
        if state.ended is not None or seat != state.turn:
            return []
        hand = state.hands[seat]
        if self._must_discard(state, hand):
            return [{"type": DiscardSnake.TYPE, "tile": tile} for tile in sorted(set(hand))]
        entries: list[dict[str, Any]] = []
        frog_ok, snake_ok = frog_spaces(state.board), snake_spaces(state.board)
        for tile in hand:
            if is_snake(tile):
                if snake_ok:
                    entries.append(
                        {"type": PlayTile.TYPE, "tile": tile, "choose": {"space": snake_ok}}
                    )
            else:
                entries.append(
                    {
                        "type": PlayTile.TYPE,
                        "tile": tile,
                        "choose": {"space": frog_ok},
                        "preview": [list(flips_for(state.board, tile, s)) for s in frog_ok],
                    }
                )
        return entries

    def deadline(self, state: State) -> float | None:
        """Flip Over Frog has no clock."""
        return None

    def tick(self, state: State, now: float, rng: random.Random) -> list[Event]:
        """Nothing happens on the clock."""
        return []

    def outcome(self, state: State) -> Outcome | None:
        """Most face-up Frogs of one's colour wins; equal leaders share (decisions 10)."""
        if state.ended is None:
            return None
        counts = frog_counts(state.board)
        scores = tuple(float(counts[colour]) for colour in state.colours)
        ranks = tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)
        return Outcome(
            ranks=ranks,
            scores=scores,
            reason=state.ended,
            details={"colours": list(state.colours), "turns": state.plays},
        )


def _without(
    hands: tuple[tuple[str, ...], ...], seat: int, tile: str
) -> tuple[tuple[str, ...], ...]:
    hand = list(hands[seat])
    hand.remove(tile)
    return (*hands[:seat], tuple(hand), *hands[seat + 1 :])


GAME = FlipOverFrog()
