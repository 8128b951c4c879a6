"""Every Flash 8 command and event survives the wire (msgpack) unchanged."""

from __future__ import annotations

import msgpack
import pytest

from engine.core import Command, Event, Rejected, from_wire, to_wire
from engine.flash8.messages import (
    COMMANDS,
    EVENTS,
    CardTaken,
    ClaimHeld,
    ClaimLate,
    ClaimLine,
    ClaimMissed,
    CountdownStarted,
    Ended,
    Flash,
    Hint,
    HintGiven,
    LimitReached,
    LineClaimed,
    LockoutEnded,
    Slid,
    Slide,
    Started,
    TieSettled,
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
    Flash(1, credit=0.125, rival_credit=0.25),
    ClaimHeld(0, 9.25, 1, "F8-07", 0.0, 9.25, 9.4, 6.25, 11, 9),
    TieSettled(9.4, 1, "F8-07", (0, 1), 1),
    LimitReached(63.0),
]


@pytest.mark.parametrize("item", SAMPLES, ids=lambda item: item.TYPE)
def test_round_trip(item: Command | Event) -> None:
    classes = COMMANDS if isinstance(item, Command) else EVENTS
    packed = msgpack.unpackb(msgpack.packb(to_wire(item), use_bin_type=True), raw=False)
    # trusted: the room's log, which keeps what the server set on a command
    assert from_wire(classes, packed, trusted=True) == item  # type: ignore[type-var]


def test_a_client_flash_never_carries_the_server_set_credit() -> None:
    # decisions 17: the credited lag is the server's measure, never a figure the client sends
    assert to_wire(Flash(1)) == {"type": "flash", "stack": 1}
    assert from_wire(COMMANDS, {"type": "flash", "stack": 1}) == Flash(1)
    for field in ("credit", "rival_credit"):
        with pytest.raises(Rejected) as refused:
            from_wire(COMMANDS, {"type": "flash", "stack": 1, field: 0.25})
        assert refused.value.code == "bad_command" and field in refused.value.message
    logged = to_wire(Flash(1, credit=0.25))
    assert logged == {"type": "flash", "stack": 1, "credit": 0.25}
    assert from_wire(COMMANDS, logged, trusted=True) == Flash(1, credit=0.25)


def test_every_type_has_a_sample() -> None:
    assert {type(item) for item in SAMPLES} == set(COMMANDS) | set(EVENTS)
