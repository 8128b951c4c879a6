"""No client can stop the server from starting again: room options are checked completely at
``create_room``, and at start-up a room that fails to rebuild or to start again is logged,
marked ``failed`` and skipped while every other room recovers."""

from __future__ import annotations

import json
import math
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from clients.load import free_port, wait_healthy
from clients.sdk import ServerError, bot, human
from protocol.fairness import commit
from server.app import LuminServer
from server.config import Settings
from server.store import EventStore, RoomRow

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("game", "options", "seats", "turn_clock"),
    [
        ("flip_over_frog", {}, 2, math.nan),
        ("flip_over_frog", {}, 2, math.inf),
        ("flip_over_frog", {}, 2, -5.0),
        ("flip_over_frog", {}, 2, 0.0),
        ("flash8", {"lockout": math.nan}, 2, None),
        ("flash8", {"time_limit": math.nan}, 2, None),
        ("flash8", {"countdown": math.nan}, 2, None),
        ("flash8", {"countdown": -math.inf}, 2, None),
        ("flash8", {"lockout": 1e300}, 2, None),
        ("neon_flip", {"clock": math.nan}, 2, None),
    ],
)
async def test_create_room_refuses_options_no_game_could_run(
    connect, server, game, options, seats, turn_clock
) -> None:
    ada = await connect("Ada")
    with pytest.raises(ServerError) as refused:
        await ada.create_room(
            game, seats=[human()] + [bot()] * (seats - 1), options=options, turn_clock=turn_clock
        )
    assert refused.value.code == "bad_option"
    assert not server.hub.rooms, "nothing was created"
    assert not server.store.rooms()


async def test_a_flash8_solo_handicap_is_refused_at_create_room(connect, server) -> None:
    # flash8.decisions 1: the handicap is chosen before a race starts; not in solo
    ada = await connect("Ada")
    with pytest.raises(ServerError) as refused:
        await ada.create_room(
            "flash8", seats=[human(handicap=True)], options={"mode": "solo"}, sit=0
        )
    assert refused.value.code == "bad_option"
    assert "races only" in refused.value.message
    assert not server.store.rooms()


def _stored_room(room_id: str, game: str, seats: list[dict], meta: dict) -> RoomRow:
    seed, salt = secrets.token_bytes(16), secrets.token_bytes(16)
    return RoomRow(
        id=room_id,
        game=game,
        options={},
        seats=seats,
        seed=seed,
        salt=salt,
        commitment=commit(seed, salt),
        private=False,
        code=None,
        host=None,
        status="playing",
        created=time.time(),
        started=time.time(),
        finished=None,
        meta=meta,
    )


def _seat(kind: str, bot_kind: str | None = None, user: str | None = None) -> dict:
    return {
        "kind": kind,
        "name": "P",
        "user": user,
        "bot": bot_kind,
        "choices": {},
        "ready": True,
    }


async def _store_rooms(database: Path, rows: list[RoomRow]) -> None:
    store = EventStore(database)
    for row in rows:
        await store.create_room(row)
    store.close()


async def test_a_room_that_cannot_start_again_is_marked_failed_and_the_rest_recover(
    tmp_path: Path,
) -> None:
    settings = Settings(port=0, data=tmp_path / "data", bot_delay=0.0)
    await _store_rooms(
        settings.database,
        [
            # A bot kind an older version had: the room rebuilds but its bot cannot start.
            _stored_room(
                "rgone", "flip_over_frog", [_seat("bot", "vanished"), _seat("human", user="u1")], {}
            ),
            _stored_room(
                "rgood", "flip_over_frog", [_seat("human", user="u1"), _seat("bot", "bot")], {}
            ),
        ],
    )
    lumin = LuminServer(settings)
    await lumin.start()
    try:
        assert set(lumin.hub.rooms) == {"rgood"}
        assert lumin.recovered == 1
        assert lumin.hub.rooms["rgood"].status == "playing"
    finally:
        await lumin.stop()
    store = EventStore(settings.database)
    try:
        assert store.room("rgone").status == "failed"
        assert store.room("rgood").status == "playing"
    finally:
        store.close()


async def test_lumin_serve_starts_on_a_data_folder_holding_a_nan_turn_clock(
    tmp_path: Path,
) -> None:
    """The reported crash loop: a room stored as playing with a NaN turn clock (as an older
    version let in) made every ``lumin serve`` on the folder exit 1."""
    data = tmp_path / "data"
    await _store_rooms(
        data / "lumin.sqlite3",
        [
            _stored_room(
                "rnan",
                "flip_over_frog",
                [_seat("human", user="u1"), _seat("human", user="u2")],
                {"turn_clock": math.nan},
            ),
            _stored_room(
                "rgood", "flip_over_frog", [_seat("human", user="u1"), _seat("bot", "bot")], {}
            ),
        ],
    )
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "lumin.cli", "serve", "--port", str(port), "--data", str(data)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_healthy(port)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz") as answer:
            assert json.load(answer)["rooms"] == 1
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr.decode()
    failures = [
        json.loads(line)
        for line in stderr.decode().splitlines()
        if line.startswith("{") and "room_recovery_failed" in line
    ]
    assert [failure["room"] for failure in failures] == ["rnan"]
    store = EventStore(data / "lumin.sqlite3")
    try:
        assert store.room("rnan").status == "failed"
    finally:
        store.close()
