"""Replays (``server/replay.py``) of a real finished game read back from a real store: every
position is the fold of the log up to it, any seat's view can be taken, and who may read a
private game."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import attrs
import pytest

from engine.core import first_state, from_wire, replay
from engine.registry import get_game
from server.codes import CodeGuesses
from server.errors import Refused
from server.replay import Replay, may_read
from server.seats import seat_specs
from server.store import EventStore, Record, RoomRow
from tests.server.finished import finished_game


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[EventStore]:
    store = EventStore(tmp_path / "lumin.sqlite3")
    yield store
    store.close()


async def keep(store: EventStore, row: RoomRow, records: list[Record]) -> None:
    await store.create_room(row)
    await store.append(row.id, *records)


def state_at(row: RoomRow, records: list[Record], position: int) -> object:
    game = get_game(row.game)
    first = first_state(game, row.options, seat_specs(row.seats), row.seed)
    events = [from_wire(game.events, e) for r in records[:position] for e in r.events]
    return replay(game, first, events)


@pytest.mark.parametrize("game_id", ["flip_over_frog", "neon_hex"])
async def test_every_position_is_the_fold_of_the_log_up_to_it(
    store: EventStore, game_id: str
) -> None:
    row, records = finished_game(game_id)
    await keep(store, row, records)
    game = get_game(game_id)
    seen = await Replay.open(store, row.id, viewer=None)
    assert (seen.position, seen.length, seen.at) == (0, len(records), row.started)
    # Forward one step at a time past the kept states, then back, then past the end.
    for position in [*range(len(records) + 1), 70, 3, 0, len(records) + 5]:
        seen.seek(position)
        expected = min(position, len(records))
        assert seen.position == expected
        assert seen.view() == game.view(state_at(row, records, expected), None)
    assert seen.at == records[-1].at
    assert game.outcome(seen.state) is not None


async def test_any_seat_may_be_looked_at_once_the_game_is_over(store: EventStore) -> None:
    row, records = finished_game("flip_over_frog")
    await keep(store, row, records)
    seen = await Replay.open(store, row.id, viewer=1)
    seen.seek(5)
    assert seen.view() == get_game(row.game).view(state_at(row, records, 5), 1)
    seen.look_as(0)
    assert seen.viewer == 0
    with pytest.raises(Refused) as refused:
        seen.look_as(2)
    assert refused.value.code == "no_such_seat"
    assert seen.viewer == 0


async def test_only_a_stored_finished_game_opens(store: EventStore) -> None:
    row, records = finished_game("flip_over_frog")
    await keep(store, attrs.evolve(row, id="live", status="playing"), records)
    for room, code in (("nope", "no_such_room"), ("live", "not_finished")):
        with pytest.raises(Refused) as refused:
            await Replay.open(store, room, viewer=None)
        assert refused.value.code == code
    with pytest.raises(Refused) as refused:
        await Replay.open(store, "live", viewer=7)
    assert refused.value.code == "not_finished"


async def test_a_private_game_opens_with_its_code_or_for_a_player(store: EventStore) -> None:
    row, records = finished_game("flip_over_frog", private=True, user="u-ada")
    await keep(store, row, records)
    codes = CodeGuesses()

    def code(given: str | None) -> Callable[[RoomRow], None]:
        return lambda row: codes.check(row.id, given, row.code, "127.0.0.9")

    with pytest.raises(Refused) as refused:
        await Replay.open(store, row.id, None, "u-eve", code("WRONG"))
    assert refused.value.code == "bad_code"
    with pytest.raises(Refused) as refused:
        await Replay.open(store, row.id, None, "u-eve")  # no code at all
    assert refused.value.code == "bad_code"
    assert (await Replay.open(store, row.id, None, None, code("CODE42"))).length == len(records)
    assert (await Replay.open(store, row.id, viewer=0, user="u-ada")).viewer == 0
    assert may_read(attrs.evolve(row, private=False), None)
    assert not may_read(row, None) and not may_read(row, "u-eve")
