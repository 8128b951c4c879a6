"""The view fan-out (server.fanout), on real games, without a room or a socket.

Every delta must turn the viewer's previous view into exactly ``game.view(state, viewer)``;
spectators get the public view only; legal commands are tracked per seat with the seq they
changed at; viewers given the same operations and no legal commands share one frame.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import msgpack

from engine.core import (
    Game,
    SeatSpec,
    ViewPatcher,
    chance,
    expand_legal,
    first_state,
    from_wire,
    replay,
    validate_options,
)
from engine.registry import get_game
from protocol.delta import apply, op_from_wire
from server.batch import Step, make_step
from server.fanout import Fanout

SEED = b"fanout-seed"
ROOM = "r1"


def plain(value: Any) -> Any:
    """``value`` as it travels (msgpack: tuples become lists)."""
    return msgpack.unpackb(msgpack.packb(value, use_bin_type=True))


def unpack(frame: bytes) -> dict[str, Any]:
    data = msgpack.unpackb(frame)
    assert isinstance(data, dict)
    return data


def strings(value: Any) -> Iterator[str]:
    """Every string inside ``value``."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


class Table:
    """A dealt game with its fan-out, every viewer watching, and a way to play steps."""

    def __init__(self, game_id: str, players: int, history: int = 8, race: bool = False) -> None:
        self.game: Game = get_game(game_id)
        self.players = players
        specs = [SeatSpec(name=f"P{n}") for n in range(players)]
        self.state = first_state(self.game, validate_options(self.game, {}), specs, SEED)
        if race:  # Flash 8 past its countdown
            for at in (0.0, 3.0):
                events = self.game.tick(self.state, at, chance(SEED, "tick"))
                self.state = replay(self.game, self.state, events)
        self.patcher = self.game if isinstance(self.game, ViewPatcher) else None
        self.fanout = Fanout(ROOM, self.game, self.patcher, history)
        self.everyone: set[int | None] = {None, *range(players)}
        self.seq = 0

    def deal(self, seq: int = 0, watched: set[int | None] | None = None) -> dict[Any, bytes]:
        self.seq = seq
        return self.fanout.refresh(
            self.state, seq, self.players, self.everyone if watched is None else watched
        )

    def step(self, seat: int, pick: int = 0, data: dict[str, Any] | None = None) -> Step:
        """The step of ``seat``'s ``pick``-th legal command (or ``data``), applied."""
        if data is None:
            command = expand_legal(self.game, self.game.legal(self.state, seat))[pick]
        else:
            command = from_wire(self.game.commands, data)
        events = self.game.decide(self.state, seat, command, 10.0, chance(SEED, self.seq))
        step = make_step(self.game, self.patcher, self.state, events)
        self.state = step.after
        return step

    def commit(
        self,
        steps: Sequence[Step],
        watched: set[int | None] | None = None,
        changed: Any = "steps",
    ) -> dict[Any, bytes]:
        """Refresh after ``steps`` (already applied), as the room does after a commit."""
        self.seq += len(steps)
        if changed == "steps":
            changed = set()
            for step in steps:
                if step.changed is None or changed is None:
                    changed = None
                else:
                    changed |= set(step.changed)
        return self.fanout.refresh(
            self.state,
            self.seq,
            self.players,
            self.everyone if watched is None else watched,
            steps,
            changed,
        )


def patched(game: Game, before: Any, viewer: int | None, frame: bytes) -> Any:
    """The viewer's view before, with the frame's operations applied."""
    ops = [op_from_wire(op) for op in unpack(frame).get("ops", [])]
    return apply(plain(game.view(before, viewer)), ops)


def arrives(table: Table, before: Any, viewer: int | None, frame: bytes) -> bool:
    """Whether the frame turns the viewer's view of ``before`` into its view now."""
    return patched(table.game, before, viewer, frame) == plain(table.game.view(table.state, viewer))


# -- views and legal commands at the deal ---------------------------------------------------------


def test_the_deal_builds_every_view_and_every_seats_legal_commands() -> None:
    """Without steps there is no frame; every watched viewer's view is built and every seat's
    legal commands recorded as changed at the given seq (a room restored at seq 5)."""
    table = Table("flip_over_frog", 3)
    assert table.deal(seq=5) == {}
    fanout, game, state = table.fanout, table.game, table.state
    assert fanout.legal == {seat: game.legal(state, seat) for seat in range(3)}
    assert fanout.legal_since == {0: 5, 1: 5, 2: 5}
    assert fanout.views == {viewer: game.view(state, viewer) for viewer in table.everyone}
    assert fanout.viewers == {None, 0, 1, 2}
    assert len(fanout.history) == 0


def test_view_for_builds_a_view_once_then_serves_it_from_the_cache() -> None:
    """``view_for`` builds the viewer's view from the state, caches it and marks the viewer as
    sent (it gets deltas from now on)."""
    table = Table("flip_over_frog", 2)
    view = table.fanout.view_for(table.state, 1)
    assert view == table.game.view(table.state, 1)
    assert table.fanout.viewers == {1}
    table.step(table.state.turn)
    assert table.fanout.view_for(table.state, 1) is view


# -- deltas ---------------------------------------------------------------------------------------


def test_each_viewer_gets_the_delta_from_its_old_view_to_its_new_one() -> None:
    """After a play every viewer's frame is a ``delta`` from the seq before to the seq after
    whose operations turn its old view into exactly ``game.view(after, viewer)``."""
    table = Table("flip_over_frog", 3)
    table.deal()
    before = table.state
    frames = table.commit([table.step(before.turn)])
    assert set(frames) == {None, 0, 1, 2}
    for viewer, frame in frames.items():
        data = unpack(frame)
        assert (data["type"], data["room"], data["base"], data["seq"]) == ("delta", ROOM, 0, 1)
        assert data["ops"]
        assert arrives(table, before, viewer, frame)
        assert table.fanout.views[viewer] == table.game.view(table.state, viewer)


def test_spectators_see_only_the_public_view() -> None:
    """The spectator's delta leads to ``game.view(state, None)``, which holds no hand nor secret
    colour; the tile the mover drew travels in the mover's frame only."""
    table = Table("flip_over_frog", 3)
    table.deal()
    before, mover = table.state, table.state.turn
    step = table.step(mover)
    frames = table.commit([step])
    drawn = next(e.tile for e in step.events if e.TYPE == "tile_drawn")
    public = patched(table.game, before, None, frames[None])
    assert public == plain(table.game.view(table.state, None))
    assert "hand" not in public and "colour" not in public
    assert all("colour" not in player for player in public["players"])
    assert drawn in strings(unpack(frames[mover]))
    for viewer in (None, *(s for s in range(3) if s != mover)):
        assert drawn not in strings(unpack(frames[viewer]))
    assert "legal" not in unpack(frames[None])


def test_changed_legal_commands_travel_with_the_delta() -> None:
    """The mover's legal commands (now none) and the next player's (now some) are sent in
    their frames and recorded as changed at the new seq; a bystander's are not sent."""
    table = Table("flip_over_frog", 3)
    table.deal()
    mover = table.state.turn
    frames = table.commit([table.step(mover)])
    following = table.state.turn
    bystander = ({0, 1, 2} - {mover, following}).pop()
    assert unpack(frames[mover])["legal"] == []
    assert unpack(frames[following])["legal"] == plain(table.game.legal(table.state, following))
    assert unpack(frames[following])["legal"]
    assert "legal" not in unpack(frames[bystander])
    assert table.fanout.legal[following] == table.game.legal(table.state, following)
    assert table.fanout.legal_since == {mover: 1, following: 1, bystander: 0}


def test_viewers_given_the_same_operations_and_no_legal_share_one_frame() -> None:
    """A bystander whose hand did not change gets the spectator's operations: the very same
    encoded frame; the seats whose legal commands changed get frames of their own."""
    table = Table("flip_over_frog", 3)
    table.deal()
    mover = table.state.turn
    frames = table.commit([table.step(mover)])
    bystander = ({0, 1, 2} - {mover, table.state.turn}).pop()
    assert frames[bystander] is frames[None]
    assert len({id(frame) for frame in frames.values()}) == 3


def test_only_the_changed_seats_are_asked_for_their_legal_commands() -> None:
    """With ``changed`` given, other seats keep their cached legal commands (the game said
    they did not change), even when they did: here none is asked, then only the next player."""
    table = Table("flip_over_frog", 2)
    table.deal()
    mover, cached = table.state.turn, dict(table.fanout.legal)
    frames = table.commit([table.step(mover)], changed=set())
    assert table.fanout.legal == cached
    assert table.fanout.legal_since == {0: 0, 1: 0}
    assert all("legal" not in unpack(frame) for frame in frames.values())
    following = table.state.turn
    table.commit([], changed={following})
    assert table.fanout.legal[following] == table.game.legal(table.state, following)
    assert table.fanout.legal[mover] == cached[mover] != []
    assert table.fanout.legal_since == {mover: 0, following: 1}


# -- who is watched -------------------------------------------------------------------------------


def test_a_viewer_nobody_watches_gets_no_delta_and_is_forgotten() -> None:
    """A viewer left out of ``watched`` loses its cached view and its place among the sent
    viewers; its seat's legal commands are still kept up to date."""
    table = Table("flip_over_frog", 2)
    table.deal()
    mover = table.state.turn
    other = 1 - mover
    frames = table.commit([table.step(mover)], watched={None, mover})
    assert set(frames) == {None, mover}
    assert other not in table.fanout.views
    assert table.fanout.viewers == {None, mover}
    assert table.fanout.legal[other] == table.game.legal(table.state, other) != []


def test_a_watched_viewer_never_sent_its_view_gets_none_of_the_deltas() -> None:
    """A viewer watched for the first time after a batch needs a snapshot (no frame); its view
    is built then, and the next batch brings it a delta."""
    table = Table("flip_over_frog", 2)
    table.deal(watched={None})
    mover = table.state.turn
    frames = table.commit([table.step(mover)], watched={None, 1})
    assert set(frames) == {None}
    assert table.fanout.views[1] == table.game.view(table.state, 1)
    before = table.state
    frames = table.commit([table.step(table.state.turn)], watched={None, 1})
    assert set(frames) == {None, 1}
    assert arrives(table, before, 1, frames[1])


# -- patches from the game ------------------------------------------------------------------------


def test_a_slide_is_sent_as_the_games_patch_and_the_cached_views_dropped() -> None:
    """Flash 8 knows a slide's patch: every viewer gets exactly it; the views are dropped from
    the cache (no view was built) and rebuilt from the state when asked."""
    table = Table("flash8", 2, race=True)
    table.deal()
    frames = table.commit([table.step(0)])
    tablet, slides = table.state.tablets[0], table.state.slides[0]
    expected = [["replace", "/seats/0/tablet", tablet], ["replace", "/seats/0/slides", slides]]
    sent = {viewer: unpack(frame)["ops"] for viewer, frame in frames.items()}
    assert sent == dict.fromkeys(table.everyone, expected)
    assert table.fanout.views == {}
    assert table.fanout.view_for(table.state, None) == table.game.view(table.state, None)


def test_a_slide_shares_one_frame_between_the_other_racer_and_the_spectators() -> None:
    """The slider's legal commands change (its own frame); the other racer and the spectators
    get the same operations and no legal commands: one frame."""
    table = Table("flash8", 2, race=True)
    table.deal()
    frames = table.commit([table.step(0)])
    assert frames[1] is frames[None]
    assert frames[0] is not frames[1]
    assert unpack(frames[0])["legal"] == plain(table.game.legal(table.state, 0))
    assert table.fanout.legal_since == {0: 1, 1: 0}


def test_a_batch_of_patched_steps_sends_their_patches_in_order() -> None:
    """Two slides in one batch: one frame per viewer from the batch's base, with both patches,
    turning the view before the batch into the view after."""
    table = Table("flash8", 2, race=True)
    table.deal()
    before = table.state
    frames = table.commit([table.step(0), table.step(1)])
    data = unpack(frames[None])
    assert (data["base"], data["seq"]) == (0, 2)
    assert [op[1] for op in data["ops"]] == [
        "/seats/0/tablet",
        "/seats/0/slides",
        "/seats/1/tablet",
        "/seats/1/slides",
    ]
    for viewer in table.everyone:
        assert arrives(table, before, viewer, frames[viewer])


def test_a_step_without_a_patch_makes_the_batch_a_diff_from_the_view_before_it() -> None:
    """A slide then a wrong claim (no patch for the claim): the batch is diffed, from the view
    before its first step (the cache was dropped by an earlier patched batch)."""
    table = Table("flash8", 2, race=True)
    table.deal()
    table.commit([table.step(1)])  # patched: the views are dropped
    assert table.fanout.views == {}
    before = table.state
    frames = table.commit([table.step(0), table.step(0, data={"type": "flash", "stack": 0})])
    assert table.state.locked_until[0] is not None  # the claim missed: a lockout
    for viewer in table.everyone:
        assert arrives(table, before, viewer, frames[viewer])
    assert table.fanout.views == {v: table.game.view(table.state, v) for v in table.everyone}
    assert unpack(frames[0])["legal"] == []


# -- history and departures -----------------------------------------------------------------------


def test_history_keeps_the_last_batches_frames_up_to_its_length() -> None:
    """Each committed batch adds ``(base, seq, frames)``; a refresh without steps adds none;
    only the last ``history`` batches are kept."""
    table = Table("flip_over_frog", 2, history=2)
    table.deal()
    kept = []
    for _ in range(3):
        kept.append(table.commit([table.step(table.state.turn)]))
        table.commit([])
    assert list(table.fanout.history) == [(1, 2, kept[1]), (2, 3, kept[2])]
    table.commit([table.step(table.state.turn), table.step(table.state.turn)])
    assert [(base, seq) for base, seq, _ in table.fanout.history] == [(2, 3), (3, 5)]


def test_recently_left_keeps_the_viewers_that_left_after_the_cut() -> None:
    """Viewers whose last connection left after ``since`` are still served; earlier ones are
    forgotten for good."""
    fanout = Fanout(ROOM, get_game("flip_over_frog"), None, 4)
    assert fanout.recently_left(0.0) == set()
    fanout.gone(0, 10.0)
    fanout.gone(None, 20.0)
    fanout.gone(1, 30.0)
    assert fanout.recently_left(15.0) == {None, 1}
    assert fanout.left == {None: 20.0, 1: 30.0}
    assert fanout.recently_left(0.0) == {None, 1}
    assert fanout.recently_left(25.0) == {1}
