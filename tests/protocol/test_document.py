"""docs/protocol.md is the specification: every message and structure has a table listing
exactly its fields (required ones marked "required"), every error code is in the error table,
and the example session runs through both connection state machines line by line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs
import msgpack
import pytest

from protocol.codec import decode, from_map
from protocol.connection import ClientConnection, ServerConnection, State
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    MESSAGES,
    GameInfo,
    LimitsInfo,
    OptionInfo,
    OutcomeInfo,
    RatingChange,
    ResultInfo,
    RoomSummary,
    SeatChoice,
    SeatInfo,
    SessionInfo,
)

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()

STRUCTURES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        SeatChoice,
        SeatInfo,
        RoomSummary,
        ResultInfo,
        OutcomeInfo,
        OptionInfo,
        GameInfo,
        LimitsInfo,
        SessionInfo,
        RatingChange,
    )
}


def sections() -> dict[str, list[tuple[str, str]]]:
    """Each documented message or structure, with its table rows as (field, default)."""
    found: dict[str, list[tuple[str, str]]] = {}
    current: str | None = None
    for line in DOC.splitlines():
        heading = re.match(r"^#### (?:Structure: )?`(\w+)`$", line)
        if heading:
            current = heading.group(1)
            assert current not in found, f"{current} is documented twice"
            found[current] = []
        elif line.startswith("#"):
            current = None
        elif current is not None:
            row = re.match(r"^\| `(\w+)` \| .*? \| (.*?) \| .* \|$", line)
            if row:
                found[current].append((row.group(1), row.group(2)))
    return found


@pytest.mark.parametrize("name", [*sorted(MESSAGES), *sorted(STRUCTURES)])
def test_every_message_and_structure_is_documented_field_by_field(name: str) -> None:
    cls = MESSAGES.get(name) or STRUCTURES[name]
    rows = sections().get(name)
    assert rows is not None, f"docs/protocol.md has no section for {name}"
    documented = [field for field, _ in rows]
    assert documented == [field.name for field in attrs.fields(cls)]
    for field, default in rows:
        required = attrs.fields_dict(cls)[field].default is attrs.NOTHING
        assert (default == "required") == required, f"{name}.{field}: default {default}"


def test_nothing_undocumented_is_documented() -> None:
    assert set(sections()) == set(MESSAGES) | set(STRUCTURES)


def test_every_error_code_is_in_the_error_table() -> None:
    table = DOC[DOC.index("## Error codes") : DOC.index("## Example session")]
    codes = re.findall(r"^\| `(\w+)` \|", table, flags=re.MULTILINE)
    assert codes == [code.value for code in ErrorCode]


def session_lines() -> list[tuple[str, dict[str, Any]]]:
    block = DOC[DOC.index("## Example session") :]
    block = block[block.index("```text") : block.index("```", block.index("```text") + 3)]
    lines = []
    for line in block.splitlines()[1:]:
        if line.startswith(("C: ", "S: ")):
            lines.append((line[0], json.loads(line[3:])))
        else:
            assert line.startswith("#") or not line.strip(), line
    return lines


def test_the_example_session_runs_through_both_state_machines() -> None:
    client, server = ClientConnection(), ServerConnection()
    automatic: list[bytes] = []  # frames the server connection queued on its own
    room: str | None = None
    deltas = 0
    for side, data in session_lines():
        if side == "C":
            frame = msgpack.packb(data, use_bin_type=True)
            try:
                message = decode(frame, sender="client")
            except ProtocolError:
                message = None
            else:
                assert client.send(message) == message  # ids are explicit in the example
                (sent,) = client.data_to_send()
                assert msgpack.unpackb(sent) == data  # field order aside, the same frame
            server.receive_data(frame)
            events = server.events_received()
            assert len(events) == 1
            if message is not None:
                assert events == [message]
            automatic.extend(server.data_to_send())
        else:
            expected = from_map(data, sender="server")
            if automatic:
                frame = automatic.pop(0)  # the server connection answered by itself
            else:
                server.send(expected)
                (frame,) = server.data_to_send()
            client.receive_data(frame)
            assert client.events_received() == [expected]
            if data["type"] == "room_created":
                room = data["room"]
            if data["type"] == "delta":
                assert client.views[data["room"]].seq == data["seq"]  # every delta applied
                deltas += 1
    assert room is not None and deltas >= 4
    assert automatic == []
    assert client.pending == {}  # every request got its answer
    assert client.views == {}  # leave dropped the copy
    assert client.state is State.CLOSED and server.state is State.CLOSED


def test_the_bot_kinds_the_page_names_are_the_games_own() -> None:
    """docs/protocol.md names Neon Hex's difficulty levels: exactly the kinds the game has."""
    from engine.registry import get_game

    sentence = re.search(r"Neon Hex offers ([^;]+);", " ".join(DOC.split())).group(1)
    named = re.findall(r"`(\w+)`", sentence)
    assert sorted(named) == sorted(get_game("neon_hex").bots)
