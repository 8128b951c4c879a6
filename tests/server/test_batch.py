"""The batch decision (server.batch), on real games, without a room or a socket.

``decide_batch`` must decide queued commands exactly as if they had been committed one by one:
the room's refusals (not started, stale) first, then the rules, each command against the state
the accepted ones before it made, with chance drawn from the seed at its own log position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import (
    Game,
    Rejected,
    SeatSpec,
    ViewPatcher,
    chance,
    expand_legal,
    first_state,
    from_wire,
    replay,
    to_wire,
    validate_options,
)
from engine.registry import get_game
from server.batch import Batch, QueuedAct, decide_batch, make_step
from server.errors import Refused

SEED = b"batch-seed"
NOW = 1000.0


def deal(game_id: str, players: int = 2, options: Mapping[str, Any] | None = None) -> Any:
    """The game and its first state for ``players`` seats."""
    game = get_game(game_id)
    specs = [SeatSpec(name=f"P{n}") for n in range(players)]
    return game, first_state(game, validate_options(game, options or {}), specs, SEED)


def racing(players: int = 2) -> Any:
    """Flash 8 (a ViewPatcher) past its countdown: every racer may slide."""
    game, state = deal("flash8", players)
    for at in (0.0, 3.0):  # the countdown starts, then the race
        state = replay(game, state, game.tick(state, at, chance(SEED, "tick")))
    assert state.phase == "running"
    return game, state


def offers(game: Game, state: Any, seat: int) -> list[dict[str, Any]]:
    """Every concrete command the rules offer ``seat`` now, in wire form."""
    return [to_wire(command) for command in expand_legal(game, game.legal(state, seat))]


def decide(
    game: Game,
    state: Any,
    acts: Sequence[QueuedAct],
    *,
    seq: int = 0,
    position: int = 0,
    started: bool = True,
    legal_since: Mapping[int, int] | None = None,
    seed: bytes = SEED,
) -> Batch:
    """``decide_batch`` with the legal cache a room would hold for ``state``."""
    patcher = game if isinstance(game, ViewPatcher) else None
    legal = {seat: game.legal(state, seat) for seat in range(state.players)}
    since = dict.fromkeys(range(state.players), 0) if legal_since is None else legal_since
    return decide_batch(game, patcher, state, seq, position, seed, started, legal, since, acts, NOW)


def expected_events(game: Game, state: Any, act: QueuedAct, position: int) -> list[Any]:
    """What the rules decide for ``act`` alone, at ``position``: the oracle."""
    command = from_wire(game.commands, act.data)
    return game.decide(state, act.seat, command, NOW, chance(SEED, position))


def refusal_codes(batch: Batch) -> list[str | int]:
    """Each outcome as its code (a refusal) or its seq (accepted)."""
    return [o if isinstance(o, int) else o.code for o in batch.outcomes]


# -- refusals by the room -------------------------------------------------------------------------


def test_nothing_is_decided_before_the_start() -> None:
    """Before the start every command is refused ``not_started``, even a legal one, and the
    batch appends nothing and leaves the log position where it was."""
    game, state = deal("flip_over_frog")
    play = offers(game, state, state.turn)[0]
    acts = [QueuedAct(None, state.turn, play), QueuedAct(None, state.turn, play, seen=0)]
    batch = decide(game, state, acts, seq=3, position=9, started=False)
    assert all(isinstance(o, Refused) for o in batch.outcomes)
    assert refusal_codes(batch) == ["not_started", "not_started"]
    assert (batch.records, batch.steps, batch.changed, batch.position) == ([], [], set(), 9)


def test_seen_older_than_the_seats_last_legal_change_is_stale() -> None:
    """A command acted on a seq before its seat's legal commands last changed is refused
    ``stale``; one acted on that very seq is decided."""
    game, state = deal("flip_over_frog")
    seat = state.turn
    play = offers(game, state, seat)[0]
    since = {seat: 4, 1 - seat: 0}
    old = decide(game, state, [QueuedAct(None, seat, play, seen=3)], seq=6, legal_since=since)
    assert refusal_codes(old) == ["stale"]
    assert "changed at seq 4" in old.outcomes[0].message  # type: ignore[union-attr]
    assert old.records == []
    current = decide(game, state, [QueuedAct(None, seat, play, seen=4)], seq=6, legal_since=since)
    assert current.outcomes == [7]


def test_seen_past_the_rooms_seq_is_stale() -> None:
    """A command acted on a seq the room has not reached is refused ``stale``; the room's own
    seq is fine."""
    game, state = deal("flip_over_frog")
    seat = state.turn
    play = offers(game, state, seat)[0]
    ahead = decide(game, state, [QueuedAct(None, seat, play, seen=7)], seq=6)
    assert refusal_codes(ahead) == ["stale"]
    assert "not reached" in ahead.outcomes[0].message  # type: ignore[union-attr]
    assert decide(game, state, [QueuedAct(None, seat, play, seen=6)], seq=6).outcomes == [7]


def test_a_command_without_seen_is_never_stale() -> None:
    """A command that names no seq (a bot's) skips the stale rule and goes to the rules."""
    game, state = deal("flip_over_frog")
    seat = state.turn
    play = offers(game, state, seat)[0]
    batch = decide(game, state, [QueuedAct(None, seat, play)], seq=6, legal_since={seat: 6})
    assert batch.outcomes == [7]


# -- the rules' decisions -------------------------------------------------------------------------


def test_an_accepted_command_becomes_the_next_record() -> None:
    """The record gets the room's seq + 1, the log position the command started at, the seat,
    the command and events in wire form and the room time; the step holds the state before and
    after; the batch's position moves past the events."""
    game, state = deal("flip_over_frog")
    seat = state.turn
    act = QueuedAct("peer", seat, offers(game, state, seat)[0], ref=11, seen=5)
    events = expected_events(game, state, act, 12)
    assert len(events) == 3  # the frog lands, its player draws, the turn passes

    batch = decide(game, state, [act], seq=5, position=12)

    assert batch.outcomes == [6]
    (record,) = batch.records
    assert (record.seq, record.position, record.seat, record.at) == (6, 12, seat, NOW)
    assert record.command == act.data
    assert record.events == tuple(to_wire(event) for event in events)
    (step,) = batch.steps
    assert step.before is state
    assert step.events == events
    assert step.after == replay(game, state, events)
    assert batch.position == 15


def test_a_rules_refusal_leaves_the_others_in_the_batch_deciding() -> None:
    """A command the rules refuse (a malformed one, one out of turn, a tile not in hand) gets
    its :class:`Rejected` and no record; the commands after it are still decided, from the
    room's seq and position as if the refused ones had not been sent."""
    game, state = deal("flip_over_frog")
    mover, other = state.turn, 1 - state.turn
    acts = [
        QueuedAct(None, mover, {"type": "teleport"}),
        QueuedAct(None, other, offers(game, state, mover)[0]),
        QueuedAct(None, mover, {"type": "play", "tile": "nope", "space": 0}),
        QueuedAct(None, mover, offers(game, state, mover)[0]),
    ]
    batch = decide(game, state, acts, seq=2, position=4)
    assert all(isinstance(o, Rejected) for o in batch.outcomes[:3])
    assert refusal_codes(batch) == ["bad_command", "not_your_turn", "not_in_hand", 3]
    assert [(r.seq, r.position, r.seat) for r in batch.records] == [(3, 4, mover)]


def test_accepted_commands_get_consecutive_seqs_and_advancing_positions() -> None:
    """Each accepted command is decided against the state the ones before it made: its record
    gets the next seq and starts where the previous record's events ended."""
    game, state = deal("flip_over_frog")
    first, second = state.turn, 1 - state.turn
    act1 = QueuedAct(None, first, offers(game, state, first)[0])
    events1 = expected_events(game, state, act1, 10)
    middle = replay(game, state, events1)
    act2 = QueuedAct(None, second, offers(game, middle, second)[0])
    events2 = expected_events(game, middle, act2, 10 + len(events1))
    act3 = QueuedAct(None, first, offers(game, replay(game, middle, events2), first)[0])

    batch = decide(game, state, [act1, act2, act3], seq=4, position=10)

    assert batch.outcomes == [5, 6, 7]
    assert [r.seq for r in batch.records] == [5, 6, 7]
    assert [r.position for r in batch.records] == [10, 13, 16]
    assert [r.seat for r in batch.records] == [first, second, first]
    assert batch.records[1].events == tuple(to_wire(e) for e in events2)
    assert batch.steps[1].before == middle
    assert batch.steps[2].before == batch.steps[1].after
    assert batch.position == 16 + len(batch.steps[2].events)


# -- stale within the batch -----------------------------------------------------------------------


def test_a_command_made_stale_by_an_earlier_command_of_the_batch() -> None:
    """Once an earlier command of the batch changed a seat's legal commands, that seat's
    command acted on the room's seq is stale (changed at the earlier record's seq), as it
    would be had the earlier one been committed first; the mover's own second play too."""
    game, state = deal("flip_over_frog")
    mover, other = state.turn, 1 - state.turn
    first = QueuedAct(None, mover, offers(game, state, mover)[0], seen=0)
    middle = replay(game, state, expected_events(game, state, first, 0))
    acts = [
        first,
        QueuedAct(None, other, offers(game, middle, other)[0], seen=0),
        QueuedAct(None, mover, offers(game, state, mover)[1], seen=0),
    ]
    batch = decide(game, state, acts)
    assert refusal_codes(batch) == [1, "stale", "stale"]
    assert "changed at seq 1" in batch.outcomes[1].message  # type: ignore[union-attr]
    assert len(batch.records) == 1


def test_the_same_commands_without_seen_are_decided_by_the_rules() -> None:
    """Without a seq to be stale against, the second seat's command is decided against the
    state the first one made (and accepted), the mover's second play refused by the rules."""
    game, state = deal("flip_over_frog")
    mover, other = state.turn, 1 - state.turn
    first = QueuedAct(None, mover, offers(game, state, mover)[0])
    middle = replay(game, state, expected_events(game, state, first, 0))
    acts = [
        first,
        QueuedAct(None, other, offers(game, middle, other)[0]),
        QueuedAct(None, other, offers(game, middle, other)[0]),
    ]
    assert refusal_codes(decide(game, state, acts)) == [1, 2, "not_your_turn"]


def test_a_seat_whose_legal_commands_did_not_change_is_not_made_stale() -> None:
    """A third player's legal commands (none: not their turn) are the same after the first
    play, so their command acted on the room's seq reaches the rules (``not_your_turn``)."""
    game, state = deal("flip_over_frog", players=3)
    mover = state.turn
    bystander = next(
        s for s in range(3) if s != mover and s != (mover + 1) % 3 and not game.legal(state, s)
    )
    acts = [
        QueuedAct(None, mover, offers(game, state, mover)[0], seen=0),
        QueuedAct(None, bystander, offers(game, state, mover)[0], seen=0),
    ]
    batch = decide(game, state, acts)
    assert refusal_codes(batch) == [1, "not_your_turn"]
    assert isinstance(batch.outcomes[1], Rejected)


def test_racers_sliding_together_are_all_accepted_but_a_second_slide_is_stale() -> None:
    """Flash 8 says a slide changes only its own seat's legal commands: the other racer's
    slide acted on the same seq is accepted; the same racer's second slide on that seq is
    stale (its tablet, so its slides, changed)."""
    game, state = racing()
    slide0, slide1 = offers(game, state, 0)[0], offers(game, state, 1)[0]
    after0 = replay(game, state, expected_events(game, state, QueuedAct(None, 0, slide0), 0))
    again = offers(game, after0, 0)[0]
    acts = [
        QueuedAct(None, 0, slide0, seen=8),
        QueuedAct(None, 1, slide1, seen=8),
        QueuedAct(None, 0, again, seen=8),
    ]
    batch = decide(game, state, acts, seq=8, position=2)
    assert refusal_codes(batch) == [9, 10, "stale"]
    assert [r.position for r in batch.records] == [2, 3]


# -- chance and determinism -----------------------------------------------------------------------


def risk(game: Game, state: Any, seat: int) -> dict[str, Any]:
    """A Neon Hex Risk expansion ``seat`` may make now (it rolls two dice)."""
    return next(c for c in offers(game, state, seat) if c.get("kind") == "risk")


def test_chance_is_drawn_from_the_seed_at_each_commands_position() -> None:
    """Each Risk roll is the one ``chance(seed, position)`` gives for the log position its
    command starts at: the second roll of a batch is drawn at the position after the first
    command's events, not at the batch's start."""
    game, state = deal("neon_hex")
    first = QueuedAct(None, 0, risk(game, state, 0))
    events1 = expected_events(game, state, first, 7)
    second = QueuedAct(None, 0, risk(game, replay(game, state, events1), 0))

    batch = decide(game, state, [first, second], position=7)

    assert batch.outcomes == [1, 2]
    rolls = [record.events[0]["dice"] for record in batch.records]
    for dice, position in zip(rolls, (7, 7 + len(events1)), strict=True):
        rng = chance(SEED, position)
        assert tuple(dice) == (rng.randint(1, 6), rng.randint(1, 6))


def test_the_same_inputs_give_the_same_records() -> None:
    """Deciding the same batch twice from the same state, seq, position and seed gives equal
    records and outcomes: a log can be replayed and verified."""
    game, state = deal("neon_hex")
    acts = [QueuedAct(None, 0, risk(game, state, 0)), QueuedAct(None, 0, {"type": "end_turn"})]
    one = decide(game, state, acts, seq=3, position=5)
    two = decide(game, state, acts, seq=3, position=5)
    assert one.outcomes == two.outcomes == [4, 5]
    assert one.records == two.records
    assert one.position == two.position


# -- changed seats --------------------------------------------------------------------------------


def test_changed_is_the_union_of_the_seats_each_step_changed() -> None:
    """With a ViewPatcher the batch's ``changed`` is the seats the steps name: two racers'
    slides change racers 0 and 1, not racer 2."""
    game, state = racing(players=3)
    acts = [QueuedAct(None, seat, offers(game, state, seat)[0]) for seat in (0, 1)]
    batch = decide(game, state, acts)
    assert [tuple(step.changed) for step in batch.steps] == [(0,), (1,)]  # type: ignore[arg-type]
    assert batch.changed == {0, 1}


def test_changed_is_none_once_a_step_may_change_any_seat() -> None:
    """A step the game cannot narrow (a Flash 8 claim) makes ``changed`` ``None``: every seat
    must be asked again."""
    game, state = racing()
    acts = [QueuedAct(None, 0, offers(game, state, 0)[0]), QueuedAct(None, 1, {"type": "flash"})]
    batch = decide(game, state, acts)
    assert batch.outcomes == [1, 2]
    assert batch.steps[1].changed is None
    assert batch.changed is None


def test_changed_is_none_for_a_game_that_is_no_view_patcher() -> None:
    """Flip Over Frog does not say which seats a play changes: ``changed`` is ``None``."""
    game, state = deal("flip_over_frog")
    batch = decide(game, state, [QueuedAct(None, state.turn, offers(game, state, state.turn)[0])])
    assert batch.outcomes == [1]
    assert batch.changed is None


def test_changed_is_empty_when_nothing_was_accepted() -> None:
    """A batch of refusals changes nobody's legal commands."""
    game, state = racing()
    batch = decide(game, state, [QueuedAct(None, 0, {"type": "slide", "src": 9, "dst": 8})])
    assert refusal_codes(batch) == ["bad_cell"]
    assert batch.changed == set()


# -- make_step ------------------------------------------------------------------------------------


def test_make_step_applies_the_events_in_order() -> None:
    """``make_step`` folds the events over the state before; without a patcher any seat may
    have changed."""
    game, state = deal("flip_over_frog")
    act = QueuedAct(None, state.turn, offers(game, state, state.turn)[0])
    events = expected_events(game, state, act, 0)
    step = make_step(game, None, state, events)
    assert step.before is state
    assert step.events == events
    assert step.after == replay(game, state, events)
    assert step.after.turn == 1 - state.turn
    assert step.changed is None


def test_make_step_asks_the_patcher_which_seats_changed() -> None:
    """With a patcher, the step's ``changed`` is what ``legal_seats`` says: a slide, its seat."""
    game, state = racing()
    events = expected_events(game, state, QueuedAct(None, 1, offers(game, state, 1)[0]), 0)
    step = make_step(game, game, state, events)
    assert tuple(step.changed) == (1,)  # type: ignore[arg-type]
    assert step.after.slides == (0, 1)


def test_a_queued_act_needs_no_ref_nor_seen() -> None:
    """``QueuedAct`` needs only its sender, seat and command; ``ref`` and ``seen`` default to
    ``None`` (a bot's command: never stale)."""
    act = QueuedAct(None, 1, {"type": "flash"})
    assert (act.peer, act.seat, act.data) == (None, 1, {"type": "flash"})
    assert (act.ref, act.seen) == (None, None)
