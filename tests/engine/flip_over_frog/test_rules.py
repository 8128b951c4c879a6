"""Flip Over Frog rule tests, each citing the rulebook section or decision it checks."""

from __future__ import annotations

import random

import attrs
import pytest

from engine.core import Rejected, SeatSpec, chance, expand_legal
from engine.flip_over_frog.board import COLOURS, TILES
from engine.flip_over_frog.messages import (
    DiscardSnake,
    FrogPlaced,
    GameEnded,
    PlayTile,
    SnakeDiscarded,
    SnakePlayed,
    TileDrawn,
    TurnPassed,
)
from engine.flip_over_frog.rules import flip
from engine.flip_over_frog.state import State
from engine.registry import get_game

GAME = get_game("flip_over_frog")


RNG = random.Random(0)


def table(
    hands: list[tuple[str, ...]],
    board: dict[int, tuple[tuple[str, bool], ...]] | None = None,
    stack: tuple[str, ...] = ("R8", "B8", "G8", "Y8", "R7", "B7"),
    turn: int = 0,
) -> State:
    """A hand-laid table; colours in seat order red, blue, green, yellow."""
    cells: list[tuple[tuple[str, bool], ...]] = [()] * 16
    for space, stack_here in (board or {}).items():
        cells[space] = stack_here
    return State(
        colours=COLOURS[: len(hands)],
        hands=tuple(hands),
        stack=stack,
        board=tuple(cells),
        turn=turn,
    )


def play(state: State, seat: int, tile: str, space: int) -> tuple[State, list]:
    events = GAME.decide(state, seat, PlayTile(tile, space), 0.0, RNG)
    for event in events:
        state = GAME.evolve(state, event)
    return state, events


def test_setup_deals_colours_hands_and_stack() -> None:
    # rulebook "Set Up"; decisions 1, 2, 11
    seats = [SeatSpec(name=str(n)) for n in range(4)]
    state = GAME.setup({}, seats, chance(b"x" * 16, "setup"))
    assert sorted(state.colours) == sorted(COLOURS)
    assert all(len(hand) == 3 for hand in state.hands)
    assert len(state.stack) == 36 - 12
    dealt = [t for hand in state.hands for t in hand] + list(state.stack)
    assert sorted(dealt) == sorted(TILES)
    assert 0 <= state.turn < 4
    two = GAME.setup({}, seats[:2], chance(b"x" * 16, "setup"))
    assert len(two.colours) == 2 and len(set(two.colours)) == 2


def test_rulebook_gameplay_example() -> None:
    # rulebook "Gameplay Example", played out move by move on a 4-player table.
    state = table([("R1", "S1", "R2"), ("B5", "B2", "B3"), ("G1", "G2", "G3"), ("Y1", "Y2", "Y3")])
    # Player 1 plays a red Frog on an empty space. There are no tiles to flip.
    state, events = play(state, 0, "R1", 5)
    assert events[0] == FrogPlaced(0, "R1", 5, ())
    # Player 2 plays a blue Frog; its (diagonal) arrows cause the red Frog to flip.
    state, events = play(state, 1, "B5", 10)
    assert events[0] == FrogPlaced(1, "B5", 10, (5,))
    assert state.board[5] == (("R1", False),)
    # Player 3 plays a green Frog on top of the face-down tile; its arrows point at empty spaces.
    state, events = play(state, 2, "G1", 5)
    assert events[0] == FrogPlaced(2, "G1", 5, ())
    assert state.board[5] == (("R1", False), ("G1", True))
    # Player 4 plays a yellow Frog: the blue Frog flips, and the stack of 2 flips, revealing red.
    state, events = play(state, 3, "Y1", 6)
    assert set(events[0].flipped) == {5, 10}
    assert state.board[10] == (("B5", False),)
    assert state.board[5] == (("G1", False), ("R1", True))
    # Player 1 plays the Snake on the red Frog: red Frog and Snake are discarded.
    state, events = play(state, 0, "S1", 5)
    assert events[0] == SnakePlayed(0, "S1", 5, "R1")
    assert state.discards == ("R1", "S1")
    assert state.board[5] == (("G1", False),)


def test_flipping_a_stack_reverses_it_and_toggles_every_face() -> None:
    # decisions 5
    assert flip((("R1", False), ("G1", True))) == (("G1", False), ("R1", True))
    assert flip((("R1", True),)) == (("R1", False),)


def test_only_the_placed_frog_flips_and_arrows_at_empty_or_off_board_do_nothing() -> None:
    # rulebook "Tile Effects": only the newly placed tile causes flips; decisions 5: no chains.
    state = table(
        [("R1", "R2", "R3"), ("B1", "B2", "B3")],
        board={1: (("G1", True),), 2: (("G2", True),)},
    )
    state, events = play(state, 0, "R1", 0)  # orthogonal at the corner: right is 1, down is 4
    assert events[0].flipped == (1,)
    assert state.board[1] == (("G1", False),)
    assert state.board[2] == (("G2", True),), "the flipped tile's own arrows do nothing"


def test_frog_goes_on_empty_or_face_down_never_face_up() -> None:
    # rulebook "Tile Effects"; decisions 4
    state = table(
        [("R1", "R2", "R3"), ("B1", "B2", "B3")], board={0: (("G1", True),), 1: (("G2", False),)}
    )
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 0, PlayTile("R1", 0), 0.0, RNG)
    assert refused.value.code == "space_face_up"
    after, _ = play(state, 0, "R1", 1)
    assert after.board[1][-1] == ("R1", True)


def test_two_tile_stack_can_never_take_a_third() -> None:
    # decisions 5: a two-tile stack always shows a face-up Frog, so no Frog may go on it.
    state = table(
        [("R1", "R2", "R3"), ("B1", "B2", "B3")], board={5: (("G1", False), ("Y1", True))}
    )
    spaces = [c.space for c in expand_legal(GAME, GAME.legal(state, 0)) if isinstance(c, PlayTile)]
    assert 5 not in spaces
    flipped = attrs.evolve(
        state, board=tuple(flip(s) if i == 5 else s for i, s in enumerate(state.board))
    )
    assert flipped.board[5][-1][1] is True


def test_snake_only_on_face_up_frog_and_leaves_what_lies_beneath() -> None:
    # rulebook "Tile Effects"; decisions 6
    state = table(
        [("S1", "R2", "R3"), ("B1", "B2", "B3")],
        board={0: (("G1", False),), 3: (("B4", False), ("Y2", True))},
    )
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 0, PlayTile("S1", 0), 0.0, RNG)
    assert refused.value.code == "snake_needs_frog"
    with pytest.raises(Rejected):
        GAME.decide(state, 0, PlayTile("S1", 7), 0.0, RNG)
    after, events = play(state, 0, "S1", 3)
    assert events[0] == SnakePlayed(0, "S1", 3, "Y2")
    assert after.board[3] == (("B4", False),)
    assert after.discards == ("Y2", "S1")


def test_hand_of_only_snakes_with_no_face_up_frog_discards_one_and_draws() -> None:
    # decisions 7
    state = table([("S1", "S2"), ("B1", "B2", "B3")], board={0: (("G1", False),)}, stack=("R5",))
    legal = GAME.legal(state, 0)
    assert {entry["type"] for entry in legal} == {"discard"}
    events = GAME.decide(state, 0, DiscardSnake("S1"), 0.0, RNG)
    assert events[:2] == [SnakeDiscarded(0, "S1"), TileDrawn(0, "R5")]
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 0, PlayTile("S1", 0), 0.0, RNG)
    assert refused.value.code == "snake_needs_frog"
    holding_frog = table([("S1", "R2"), ("B1",)])
    with pytest.raises(Rejected) as refused:
        GAME.decide(holding_frog, 0, DiscardSnake("S1"), 0.0, RNG)
    assert refused.value.code == "discard_not_allowed"


def test_draw_refills_to_three_while_the_stack_lasts() -> None:
    # rulebook "How to Play" step 3; decisions 8
    state = table([("R1", "R2", "R3"), ("B1", "B2", "B3")], stack=("G5",))
    state, events = play(state, 0, "R1", 0)
    assert TileDrawn(0, "G5") in events and len(state.hands[0]) == 3
    state, events = play(state, 1, "B1", 15)
    assert not any(isinstance(e, TileDrawn) for e in events) and len(state.hands[1]) == 2


def test_game_ends_when_board_shows_sixteen_face_up_frogs() -> None:
    # rulebook "End of Game"; decisions 9: counted after the play's flips resolve.
    frogs = [t for t in TILES if not t.startswith("S")]
    board = {space: ((frogs[space], True),) for space in range(1, 16)}
    board[5] = (("Y8", False), ("G8", True))  # flipping it shows the other face-up Frog
    state = table([("R1", "R2", "R3"), ("B6", "B7", "B8")], board=board, stack=("S1",))
    state = attrs.evolve(state, hands=(("R5", "S2", "S3"), ("B6", "B7", "B8")))
    after, events = play(state, 0, "R5", 0)  # diagonal arrows from the corner hit only space 5
    assert events[0].flipped == (5,)
    assert events[-1] == GameEnded("board_full")
    assert GAME.outcome(after) is not None
    with pytest.raises(Rejected) as refused:
        GAME.decide(after, 1, PlayTile("B6", 0), 0.0, RNG)
    assert refused.value.code == "game_over"


def test_game_ends_when_every_tile_has_been_played() -> None:
    # rulebook "End of Game": all tiles played; decisions 9
    state = table([("R1",), ()], stack=())
    after, events = play(state, 0, "R1", 0)
    assert events[-1] == GameEnded("tiles_exhausted")
    assert after.ended == "tiles_exhausted"


def test_players_with_empty_hands_are_skipped() -> None:
    # decisions 8 and 9: once the stack is gone, play goes on among those holding tiles.
    state = table([("R1", "R2"), (), ("G1",)], stack=())
    _, events = play(state, 0, "R1", 0)
    assert events[-1] == TurnPassed(2)


def test_out_of_turn_play_is_refused() -> None:
    # rulebook "How to Play": on your turn.
    state = table([("R1", "R2", "R3"), ("B1", "B2", "B3")])
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, 1, PlayTile("B1", 0), 0.0, RNG)
    assert refused.value.code == "not_your_turn"


def test_most_frogs_of_own_colour_wins_and_equal_leaders_share() -> None:
    # rulebook "End of Game"; decisions 10
    board = {0: (("R1", True),), 1: (("B1", True),), 2: (("G1", True),), 3: (("G2", False),)}
    state = attrs.evolve(table([(), (), ()], board=board, stack=()), ended="tiles_exhausted")
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == (1.0, 1.0, 1.0)
    assert outcome.winners == (0, 1, 2)
    board[4] = (("B2", True),)
    alone = attrs.evolve(table([(), (), ()], board=board, stack=()), ended="tiles_exhausted")
    result = GAME.outcome(alone)
    assert result is not None and result.winners == (1,) and result.ranks == (2, 1, 2)


def test_easy_bot_is_registered_and_replays_from_its_seed() -> None:
    # issue 16: an easy Frog bot under `bot`, its plays a function of the seed
    from engine.core import SeatSpec
    from engine.match import Match, make_bots, play_out
    from engine.registry import get_game

    game = get_game("flip_over_frog")
    assert {"random", "easy", "bot"} <= set(game.bots) and game.default_bot == "bot"
    logs = []
    for _ in range(2):
        seed = b"frog-easy-replay"
        match = Match.start(game, [SeatSpec("a", "easy"), SeatSpec("b", "bot")], seed, {})
        play_out(match, make_bots(match, ["easy", "bot"], seed))
        logs.append(match.log)
    assert logs[0] == logs[1]
