"""Write the test vectors the web client's unit tests check its protocol code against.

The vectors come from the Python reference implementation (``protocol/``, ``engine/``), so the
TypeScript codec, delta apply and legal expansion are held to exactly the same behaviour:

- ``delta.json``: hand-written RFC 6902 / RFC 6901 edge cases with the result (or error code)
  ``protocol.delta.apply`` gives, and, for each game, seeded bot games recorded as a first view
  followed by every step's ``protocol.delta.diff`` operations, with the true view at checkpoints;
- ``codec.json``: frames encoded by ``protocol.codec.encode`` with the message they decode to
  (every message the server may send, the newest version's fields filled in), bad frames with
  the error code ``protocol.codec.decode`` raises, and the schema: every server message's and
  structure's fields, each required or with its default, so a field the TypeScript schema
  lacks fails a test even when no frame above carries it;
- ``legal.json``: legal lists from seeded games with the concrete commands ``expand_legal``
  makes of them, and each command type's field defaults;
- ``catalog.json``: the server's game catalogue (``list_games``), as a client decodes it;
- ``pools.json``: each game's rating pools (``server.ratings.POOLS``), the leaderboard's tabs.

Run from the repository root: ``.venv/bin/python clients/web/scripts/make_vectors.py``
(``make web-vectors``). The output is deterministic; commit it.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

import attrs  # noqa: E402
import msgpack  # noqa: E402

from engine.core import SeatSpec, expand_legal, to_wire  # noqa: E402
from engine.match import Match, Stalled, make_bots, play_out  # noqa: E402
from engine.registry import get_game  # noqa: E402
from protocol import delta as pdelta  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.codec import SERVER_FRAME_LIMITS, decode, encode, to_map  # noqa: E402
from protocol.errors import ProtocolError  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "vectors"

#: (game, bot kinds, options, steps to record) for the recorded games.
GAMES: list[tuple[str, list[str], dict[str, Any], int]] = [
    ("flip_over_frog", ["bot", "random", "bot"], {}, 400),
    ("flash8", ["random", "random"], {"countdown": 0.0}, 60),
    ("flash8", ["random"], {"mode": "solo", "solo_seconds": 30.0}, 60),
    ("neon_hex", ["random", "random", "random"], {}, 120),
    ("neon_flip", ["random", "random"], {"rounds": 1}, 120),
    ("neon_flip", ["random"], {"mode": "solo", "rounds": 1}, 80),
]


def plain(value: Any) -> Any:
    """A value as JSON would carry it (tuples as lists)."""
    return json.loads(json.dumps(value))


def record_game(game_id: str, kinds: list[str], options: dict[str, Any], limit: int, seed: bytes):
    """Play a seeded bot game; collect delta chains per viewer and legal lists per seat."""
    game = get_game(game_id)
    seats = [SeatSpec(name=f"{kind}-{n}", bot=kind) for n, kind in enumerate(kinds)]
    match = Match.start(game, seats, seed, options)
    viewers: list[int | None] = [None, 0]
    last = {v: game.view(match.state, v) for v in viewers}
    chains = {
        ("spectator" if v is None else str(v)): {"first": plain(last[v]), "steps": []}
        for v in viewers
    }
    legal: list[dict[str, Any]] = []
    steps = 0

    def on_step(mt: Match, seat: int | None, command: Any, events: list[Any]) -> None:
        nonlocal steps
        steps += 1
        for v in viewers:
            new = game.view(mt.state, v)
            ops = [pdelta.op_to_wire(op) for op in pdelta.diff(last[v], new)]
            step: dict[str, Any] = {"ops": plain(ops)}
            if steps % 10 == 0 or mt.outcome is not None:
                step["view"] = plain(new)
            chains["spectator" if v is None else str(v)]["steps"].append(step)
            last[v] = new
        for s in range(len(kinds)):
            entries = game.legal(mt.state, s)
            if entries and len(legal) < 60 and steps % 3 == 0:
                commands = [to_wire(c) for c in expand_legal(game, entries)]
                legal.append({"entries": plain(entries), "commands": plain(commands)})
        if steps >= limit:
            raise Stalled("recorded enough")

    with contextlib.suppress(Stalled):  # raised by on_step once enough is recorded
        play_out(match, make_bots(match, kinds, seed), on_step=on_step)
    return chains, legal


def edge_cases() -> list[dict[str, Any]]:
    """RFC 6902 / 6901 cases, each with Python's result or error code."""
    doc = {"a": {"b": [1, 2, {"c": "x"}]}, "m~n": 1, "a/b": 2, "": 3, "e": [], "z": None}
    cases = [
        ("replace member", doc, [["replace", "/m~0n", 9]]),
        ("escaped slash", doc, [["replace", "/a~1b", "s"]]),
        ("empty key", doc, [["replace", "/", 4]]),
        ("add member", doc, [["add", "/new", {"k": [1]}]]),
        ("add replaces existing", doc, [["add", "/z", 5]]),
        ("add into array middle", doc, [["add", "/a/b/1", "mid"]]),
        ("add at array end index", doc, [["add", "/a/b/3", "end"]]),
        ("append with dash", doc, [["add", "/a/b/-", "dash"]]),
        ("remove array element", doc, [["remove", "/a/b/0"]]),
        ("remove member", doc, [["remove", "/a"]]),
        ("replace deep", doc, [["replace", "/a/b/2/c", [1, 2]]]),
        ("replace whole", doc, [["replace", "", [1, 2, 3]]]),
        ("add whole", doc, [["add", "", {"x": 1}]]),
        ("sequence", doc, [["add", "/e/0", 1], ["add", "/e/1", 2], ["remove", "/e/0"]]),
        ("whole then member", doc, [["replace", "", {"q": 1}], ["add", "/r", 2]]),
        ("missing member", doc, [["replace", "/nope", 1]]),
        ("remove missing", doc, [["remove", "/nope"]]),
        ("index out of range", doc, [["replace", "/a/b/3", 1]]),
        ("add past end", doc, [["add", "/a/b/4", 1]]),
        ("leading zero", doc, [["replace", "/a/b/01", 1]]),
        ("dash on replace", doc, [["replace", "/a/b/-", 1]]),
        ("through scalar", doc, [["add", "/m~0n/x", 1]]),
        ("remove whole", doc, [["remove", ""]]),
        ("bad escape", doc, [["add", "/a~2", 1]]),
        ("no slash", doc, [["add", "a", 1]]),
        ("unknown op", doc, [["move", "/a", "/b"]]),
        ("wrong length", doc, [["remove", "/a", 1]]),
        ("scalar document", 5, [["add", "/x", 1]]),
        ("minus index", doc, [["replace", "/a/b/-1", 1]]),
        ("nil document member", {"v": None}, [["add", "/v/x", 1]]),
    ]
    out = []
    for name, before, ops in cases:
        case: dict[str, Any] = {"name": name, "doc": before, "ops": ops}
        try:
            case["result"] = plain(pdelta.apply(before, [pdelta.op_from_wire(op) for op in ops]))
        except ProtocolError as error:
            case["error"] = error.code.value
        out.append(case)
    return out


def codec_vectors() -> dict[str, Any]:
    """Frames from the Python encoder, and bad frames with their error codes."""
    summary = m.RoomSummary(
        room="r1",
        game="flip_over_frog",
        seats=(
            m.SeatInfo(seat=0, kind="human", name="Ada", user="u1", ready=True, connected=True),
            m.SeatInfo(seat=1, kind="bot", name="bot bot", bot="bot", ready=True),
        ),
        host="u1",
        commitment="ab",
    )
    messages: list[m.Message] = [
        m.Welcome(
            ref=1, version=1, token="t", user="u1", name="Ada", server_time=1.5, max_frame=65536
        ),
        m.Error(code="bad_field", message="kick.seat: expected an integer, got str.", ref=8),
        m.Pong(ref=2, client_time=52.5, server_time=1764428400.2),
        m.Ok(ref=3),
        m.RoomList(ref=4, rooms=(summary,)),
        m.LobbyUpdate(rooms=(summary,), removed=("r0",)),
        m.LobbyUpdate(
            rooms=(
                attrs.evolve(
                    summary,
                    state="finished",
                    result=m.ResultInfo(
                        finished=1764428460.5, winners=(0,), scores=(4.0, 2.0), reason="no_moves"
                    ),
                ),
            )
        ),
        m.RoomUpdate(info=summary),
        m.Snapshot(
            room="r1",
            epoch="e",
            seq=0,
            seat=0,
            view={"a": [1, 2.5, None, True]},
            legal=({"type": "play", "tile": "R1", "choose": {"space": [0, 1]}},),
            clock_origin=10.25,
        ),
        m.Snapshot(room="r1", epoch="e", seq=0, view=None),
        m.Delta(room="r1", base=0, seq=1, ops=(pdelta.ReplaceOp("/a/0", 7),)),
        m.Delta(room="r1", base=1, seq=2, ops=(), legal=()),
        m.CommandAccepted(ref=6, room="r1", seq=1),
        m.CommandRejected(ref=7, room="r1", code="space_occupied", message="No."),
        m.GameOver(
            room="r1",
            outcome=m.OutcomeInfo(
                ranks=(1, 2), scores=(3.0, 1.0), winners=(0,), reason="board_full"
            ),
            seed="00",
            salt="11",
            commitment="22",
        ),
        m.ChatMessage(
            room="r1", channel="players", user="u1", name="Ada", seat=0, text="gl", server_time=2.0
        ),
        m.ReplayState(
            ref=9, replay="p1", room="r1", position=0, length=5, view={"x": 1}, at=1764428400.5
        ),
        m.RoomClosed(room="r1", reason="expired"),
        m.Kicked(room="r1", seat=1),
        m.RematchCreated(room="r1", new_room="r2"),
        m.RoomCreated(ref=5, room="r1", code="ABCDEF", commitment="cc"),
        m.Bye(code="going_away", message="Server stopping."),
        # Version 2: the cluster's moved.
        m.Moved(ref=10, room="r1", url="ws://node-b:8700/ws"),
        m.Moved(url="ws://node-b:8700/ws"),
        # Version 3: the operator's words, a ban and a mute.
        m.Welcome(
            ref=1,
            version=3,
            token="t",
            user="u1",
            name="Ada",
            server_time=1.5,
            rooms=("r1",),
            max_frame=65536,
            limits=m.LimitsInfo(
                rate=50.0,
                burst=100,
                address_rate=200.0,
                address_burst=400,
                chat_length=500,
                chat_rate=5,
                rooms=10,
                replays=8,
                lobby_page=100,
            ),
        ),
        m.RoomClosed(
            room="r1",
            reason="closed_by_operator",
            message="The server's operator closed this room: server maintenance.",
        ),
        m.Kicked(
            room="r1",
            seat=1,
            message="The server's operator removed you from seat 1: spamming. A bot plays on.",
        ),
        m.Error(
            code="banned",
            message="The server's operator banned this identity: cheating.",
            ref=1,
            fatal=True,
        ),
        m.Error(
            code="muted", message="The server's operator muted you in this room's chat.", ref=4
        ),
        m.Bye(code="banned", message="The server's operator banned this address."),
        m.Games(games=(catalog_game(),)),
        # Version 5: accounts, ratings and quick play.
        m.Account(ref=11, user="u1", name="Ada", token="st", session="s1", rooms=("r1",)),
        m.Account(user="u1", name="Ada", token="st", session="s1"),
        m.Sessions(
            ref=12,
            sessions=(
                m.SessionInfo(
                    session="s0", created=1764428000.5, last_seen=1764428300.0, client="lumin-web"
                ),
                m.SessionInfo(
                    session="s1", created=1764428400.0, last_seen=1764428400.0, current=True
                ),
            ),
        ),
        m.RoomUpdate(
            info=attrs.evolve(
                summary,
                seats=(
                    m.SeatInfo(
                        seat=0, kind="human", name="Ada", user="u1", connected=True, rating=21.75
                    ),
                    m.SeatInfo(seat=1, kind="human", name="Bo", user="u2", rating=-3.5),
                    m.SeatInfo(seat=2, kind="open"),
                ),
            ),
            seat=0,
        ),
        m.RatingsChanged(
            room="r1",
            changes=(
                m.RatingChange(
                    seat=0,
                    user="u1",
                    name="Ada",
                    pool="flip_over_frog",
                    before=0.0,
                    after=2.5,
                    games=1,
                ),
                m.RatingChange(
                    seat=1,
                    user="u2",
                    name="Bo",
                    pool="flip_over_frog",
                    before=1.25,
                    after=-0.75,
                    games=6,
                ),
            ),
        ),
        m.Matched(room="r2", seat=1, rated=True),
        m.Matched(room="r3", seat=0),
    ]
    good = []
    for message in messages:
        frame = encode(message)
        decoded = decode(frame, sender="server", limits=SERVER_FRAME_LIMITS)
        # Every field, defaults included: what a decoder hands its application.
        full = {"type": decoded.TYPE, **attrs.asdict(decoded, recurse=True)}
        if isinstance(decoded, m.Delta):
            full["ops"] = [pdelta.op_to_wire(op) for op in decoded.ops]
        assert to_map(decoded)["type"] == decoded.TYPE
        good.append({"hex": frame.hex(), "message": plain(full)})

    def pack(value: Any) -> bytes:
        return msgpack.packb(value, use_bin_type=True)

    bad_frames = {
        "not msgpack": b"\xc1",
        "truncated": pack({"type": "ok"})[:-1],
        "trailing bytes": pack({"type": "ok"}) + b"\x00",
        "not a map": pack([1, 2]),
        "no type": pack({"ref": 1}),
        "unknown type": pack({"type": "warp"}),
        "client type": pack({"type": "hello", "versions": [1], "name": "x"}),
        "missing field": pack({"type": "accepted", "room": "r"}),
        "bad int": pack({"type": "accepted", "room": "r", "seq": "1"}),
        "float for int": pack({"type": "accepted", "room": "r", "seq": 1.5}),
        "bool for int": pack({"type": "accepted", "room": "r", "seq": True}),
        "bad nested": pack({"type": "room_update", "info": {"room": 1, "game": "g"}}),
        "int key": b"\x82\xa4type\xa2ok\x01\x02",
        "extension": b"\x81\xa4type\xd4\x01\x00",
        "too deep": pack(
            {"type": "snapshot", "room": "r", "epoch": "e", "seq": 0, "view": deep(70)}
        ),
    }
    bad = []
    for name, frame in bad_frames.items():
        try:
            decode(frame, sender="server", limits=SERVER_FRAME_LIMITS)
        except ProtocolError as error:
            bad.append({"name": name, "hex": frame.hex(), "code": error.code.value})
        else:
            raise AssertionError(f"{name} decoded")
    sent = {message.TYPE for message in messages}
    server = {kind for kind, cls in m.MESSAGES.items() if "server" in cls.SENDERS}
    assert sent == server, f"no frame for {sorted(server - sent)}"
    return {"good": good, "bad": bad, "schema": schema()}


def catalog_game() -> m.GameInfo:
    from server.catalog import catalog

    return catalog()[0]


def fields_of(cls: type) -> dict[str, Any]:
    """A class's fields: ``{"required": true}`` or ``{"default": value}`` each."""
    out: dict[str, Any] = {}
    for field in attrs.fields(cls):
        if field.default is attrs.NOTHING:
            out[field.name] = {"required": True}
            continue
        default = field.default
        if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            default = default.factory()
        out[field.name] = {"default": plain(default)}
    return out


def schema() -> dict[str, Any]:
    """Every message the server may send and every structure in them, with their fields."""
    structures = (
        m.LimitsInfo,
        m.SeatInfo,
        m.RoomSummary,
        m.ResultInfo,
        m.OutcomeInfo,
        m.OptionInfo,
        m.GameInfo,
        m.SessionInfo,
        m.RatingChange,
    )
    return {
        "messages": {
            kind: fields_of(cls)
            for kind, cls in sorted(m.MESSAGES.items())
            if "server" in cls.SENDERS
        },
        "structures": {cls.__name__: fields_of(cls) for cls in structures},
    }


def deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"d": value}
    return value


def command_defaults() -> dict[str, dict[str, Any]]:
    """Each command type's fields that have defaults, per game."""
    out: dict[str, dict[str, Any]] = {}
    for game_id in ("flip_over_frog", "flash8", "neon_hex", "neon_flip"):
        for cls in get_game(game_id).commands:
            fields = {}
            for field in attrs.fields(cls):
                if field.default is not attrs.NOTHING:
                    default = field.default
                    if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                        default = default.factory()
                    fields[field.name] = plain(default)
            out[f"{game_id}:{cls.TYPE}"] = fields
    return out


def games_catalogue() -> list[dict[str, Any]]:
    """``list_games``'s answer after a trip through the codec."""
    from server.catalog import catalog

    frame = encode(m.Games(games=catalog()))
    decoded = decode(frame, sender="server", limits=SERVER_FRAME_LIMITS)
    assert isinstance(decoded, m.Games)
    return [plain(attrs.asdict(game, recurse=True)) for game in decoded.games]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    recorded: dict[str, Any] = {}
    legal: list[dict[str, Any]] = []
    for n, (game_id, kinds, options, limit) in enumerate(GAMES):
        seed = bytes([n + 1]) * 16
        chains, entries = record_game(game_id, kinds, options, limit, seed)
        recorded[f"{game_id}#{n}"] = chains
        legal.extend({"game": game_id, **entry} for entry in entries)
    write("delta.json", {"cases": edge_cases(), "games": recorded})
    write("codec.json", codec_vectors())
    write("legal.json", {"defaults": command_defaults(), "lists": legal})
    write("catalog.json", games_catalogue())
    from server.ratings import POOLS

    write("pools.json", {game: list(pools) for game, pools in POOLS.items()})


def write(name: str, data: Any) -> None:
    path = OUT / name
    path.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
