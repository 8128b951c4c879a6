"""SIGKILL at random moments during live games loses no acknowledged command, and every game
can be finished after the restart."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from clients.load import LOAD_LIMITS, free_port, limit_flags, wait_healthy
from clients.sdk import LuminClient, ServerError, human
from engine.core import expand_legal, to_wire
from engine.registry import get_game
from protocol.messages import CommandAccepted
from server.store import EventStore
from server.verify import verify_document

ROOT = Path(__file__).resolve().parents[2]


def start_server(data: Path, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lumin.cli",
            "serve",
            "--port",
            str(port),
            "--data",
            str(data),
            "--bot-delay",
            "0",
            "--grace",
            "60",
            "--log-level",
            "warning",
            *limit_flags(LOAD_LIMITS),  # clients reconnect after every kill from loopback
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_healthy(port)
    except RuntimeError:
        process.kill()
        raise
    return process


async def play_until(
    client: LuminClient,
    room: str,
    rng: random.Random,
    acked: list[tuple[str, int, dict]],
    stop: asyncio.Event,
) -> None:
    """Play random legal moves, recording each acknowledged one, until stopped or over."""
    game = get_game("flip_over_frog")
    while not stop.is_set() and room not in client.game_over:
        legal = client.legal(room)
        if not legal:
            with contextlib.suppress(TimeoutError):
                await client.changed(room, timeout=0.5)
            continue
        command = to_wire(rng.choice(expand_legal(game, legal)))
        try:
            answer = await client.act(room, command)
        except ServerError:
            return
        if isinstance(answer, CommandAccepted):
            acked.append((room, answer.seq, command))


async def test_sigkill_loses_no_acknowledged_command(tmp_path: Path) -> None:
    data, port = tmp_path / "data", free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    rng = random.Random(7)
    process = start_server(data, port)
    acked: list[tuple[str, int, dict]] = []
    tokens: dict[str, str] = {}
    rooms: list[str] = []
    try:
        for n in range(3):
            client = await LuminClient.connect(url, f"P{n}")
            seats = [human(), human()]
            room = await client.create_room("flip_over_frog", seats=seats, sit=0)
            other = await LuminClient.connect(url, f"Q{n}")
            await other.join(room, 1)
            await other.ready(room)
            await client.start(room)
            tokens[f"P{n}"], tokens[f"Q{n}"] = client.token, other.token
            rooms.append(room)
            await client.close()
            await other.close()
        for _round in range(3):
            clients = []
            for name, token in tokens.items():
                client = await LuminClient.connect(url, name, token=token)
                clients.append(client)
            for client in clients:
                for room in client.welcome.rooms:
                    await client.join(room, 0 if client.name.startswith("P") else 1)
            stop = asyncio.Event()
            players = [
                asyncio.create_task(play_until(c, r, random.Random(rng.random()), acked, stop))
                for c in clients
                for r in c.welcome.rooms
            ]
            await asyncio.sleep(rng.uniform(0.3, 1.2))
            process.send_signal(signal.SIGKILL)  # mid-game, mid-append perhaps
            process.wait()
            stop.set()
            await asyncio.gather(*players, return_exceptions=True)
            for client in clients:
                await client.close()
            store = EventStore(data / "lumin.sqlite3")
            try:
                for room, seq, command in acked:
                    stored = {r.seq: r.command for r in store.records(room)}
                    assert stored.get(seq) == command, f"acknowledged {room} seq {seq} lost"
            finally:
                store.close()
            process = start_server(data, port)
        assert acked, "the games made progress between kills"
        # Every game can be finished after the last restart.
        clients = [
            await LuminClient.connect(url, name, token=token) for name, token in tokens.items()
        ]
        for client in clients:
            for room in client.welcome.rooms:
                await client.join(room, 0 if client.name.startswith("P") else 1)
        stop = asyncio.Event()
        await asyncio.wait_for(
            asyncio.gather(
                *(
                    play_until(c, r, random.Random(1), acked, stop)
                    for c in clients
                    for r in c.welcome.rooms
                )
            ),
            60,
        )
        for room in rooms:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/rooms/{room}/log") as answer:
                report = verify_document(json.load(answer))
            assert report.ok, report.problems
        for client in clients:
            await client.close()
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
