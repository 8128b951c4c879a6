"""The example session of docs/protocol.md is what a real server sends: recorded again against
a live server, its frames come in the same order, of the same types, with the same fields (the
values differ: ids, tokens, times and deals are new each time)."""

from __future__ import annotations

from scripts.protocol_example import record_session
from tests.protocol.test_document import session_lines


def _shape(side: str, frame: dict) -> tuple[str, str, tuple[str, ...]]:
    return side, frame["type"], tuple(sorted(frame))


async def test_the_documented_session_is_what_the_server_sends(url) -> None:
    documented = [_shape(side, frame) for side, frame in session_lines()]
    recorded = [_shape(side, frame) for side, frame in await record_session(url) if side != "#"]
    assert recorded == documented
