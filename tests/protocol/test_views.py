"""A client's copy of a room view refuses what does not belong to it."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Delta, Snapshot
from protocol.views import RoomView


def test_room_view_refuses_a_delta_of_another_room() -> None:
    copy = RoomView.from_snapshot(Snapshot(room="a", epoch="e", seq=1, view={}))
    with pytest.raises(ProtocolError) as caught:
        copy.apply(Delta(room="b", base=1, seq=2))
    assert caught.value.code is ErrorCode.OUT_OF_SYNC
