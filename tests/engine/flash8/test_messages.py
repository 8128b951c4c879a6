"""Every Flash 8 command and event survives the wire (msgpack) unchanged."""

from __future__ import annotations

import msgpack
import pytest

from engine.core import Command, Event, from_wire, to_wire
from engine.flash8.messages import (
    COMMANDS,
    EVENTS,
    CardTaken,
    ClaimLate,
    ClaimLine,
    ClaimMissed,
    CountdownStarted,
    Ended,
    Flash,
    Hint,
    HintGiven,
    LineClaimed,
    LockoutEnded,
    Slid,
    Slide,
    Started,
)

SAMPLES: list[Command | Event] = [
    Slide(7, 8),
    Flash(),
    Flash(2),
    ClaimLine(4, "star"),
    Hint(),
    CountdownStarted(0.0, 3.0),
    Started(3.0, None),
    Started(3.0, 243.0),
    Slid(1, 3.5, 7, 8),
    CardTaken(0, 9.25, 1, "F8-07", 2, 6.25, 11, 9),
    LineClaimed(0, 12.0, 3, "circle", (0, 6), 9.0, 7, 7),
    ClaimMissed(2, 4.0, 6.0, stack=1),
    ClaimMissed(0, 4.0, 6.0, line=5),
    ClaimLate(1, 9.5, "F8-07", 0, 0.25),
    LockoutEnded(2, 6.0),
    HintGiven(0, 5.0, 2, 4, 5, 8),
    HintGiven(0, 5.0, 2, 0, None, None),
    Ended(80.0, "stacks_empty"),
]


@pytest.mark.parametrize("item", SAMPLES, ids=lambda item: item.TYPE)
def test_round_trip(item: Command | Event) -> None:
    classes = COMMANDS if isinstance(item, Command) else EVENTS
    packed = msgpack.unpackb(msgpack.packb(to_wire(item), use_bin_type=True), raw=False)
    assert from_wire(classes, packed) == item  # type: ignore[type-var]


def test_every_type_has_a_sample() -> None:
    assert {type(item) for item in SAMPLES} == set(COMMANDS) | set(EVENTS)
