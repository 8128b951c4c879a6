"""The relay of a room another node plays, without a socket (``server/relay.py``): frames are
taken strictly in arrival order, a gap filled from the log included, so neither the game's end
nor a new owner's snapshot overtakes a delta whose gap is being filled."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import msgpack

import server.relay as relay_mod
from protocol.codec import encode, encode_delta
from protocol.messages import GameOver, OutcomeInfo, Snapshot
from server.relay import Relays, RemoteRoom


class Spectator:
    """A spectator here: what it was sent, as (type, base, seq)."""

    def __init__(self) -> None:
        self.got: list[tuple[str, Any, Any]] = []

    def send(self, message: Any) -> None:
        self.send_frame(encode(message))

    def send_frame(self, frame: bytes) -> None:
        message = msgpack.unpackb(frame)
        self.got.append((message["type"], message.get("base"), message.get("seq")))


class SlowStore:
    """The log in PostgreSQL, a round trip away."""

    async def get_room(self, room: str) -> Any:
        await asyncio.sleep(0.1)
        return types.SimpleNamespace(id=room)

    async def get_records(self, room: str) -> list[Any]:
        return [types.SimpleNamespace(seq=n) for n in range(1, 10)]


def setup(monkeypatch: Any) -> tuple[Relays, Spectator]:
    """A room relayed from node A, with one spectator here, its copy at seq 1."""
    monkeypatch.setattr(relay_mod, "public_view_at", lambda row, records, seq: {"n": seq})
    hub = types.SimpleNamespace(
        spawn=asyncio.ensure_future, store=SlowStore(), cluster=None,
        metrics=types.SimpleNamespace(relay_gaps_filled=types.SimpleNamespace(inc=lambda: None)),
    )  # fmt: skip
    relays = Relays(hub)  # type: ignore[arg-type]
    row = types.SimpleNamespace(id="r1", private=False, code=None, status="playing")
    remote = relays.remote["r1"] = RemoteRoom(relays, row, "node-a", 10)  # type: ignore[arg-type]
    eve = Spectator()
    remote.peers[eve] = None
    relays.frame("r1", encode(Snapshot(room="r1", epoch="e", seq=1, view={"n": 1})))
    return relays, eve


async def test_game_over_does_not_overtake_the_last_delta(monkeypatch) -> None:
    relays, eve = setup(monkeypatch)
    await asyncio.sleep(0.01)
    relays.frame("r1", encode_delta("r1", 2, 3, [], None))  # 1->2 dropped by pub/sub
    outcome = OutcomeInfo(ranks=(1, 2), scores=(1, 0), winners=(0,), reason="x")
    over = GameOver(room="r1", outcome=outcome, seed="00", salt="00", commitment="00")
    relays.frame("r1", encode(over))
    await asyncio.sleep(0.3)
    kinds = [k for k, _, _ in eve.got]
    assert kinds == ["snapshot", "delta", "delta", "game_over"], eve.got


async def test_a_new_owners_snapshot_is_not_followed_by_an_older_delta(monkeypatch) -> None:
    relays, eve = setup(monkeypatch)
    await asyncio.sleep(0.01)
    relays.frame("r1", encode_delta("r1", 2, 3, [], None))  # gap: fill from the log
    relays.frame("r1", encode(Snapshot(room="r1", epoch="e2", seq=5, view={"n": 5})))
    await asyncio.sleep(0.3)
    seqs = [s for _, _, s in eve.got]
    assert seqs == sorted(seqs), eve.got
