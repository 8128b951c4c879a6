"""Show what an operator sees of one game: the log lines a real ``lumin serve`` writes while
one person (through the Python SDK) plays Flip Over Frog against a bot, from start-up to
shutdown, and the names of the series its ``/metrics`` serves after the game.

``python scripts/game_log.py`` runs it on a free port with a fresh data folder and prints both
(``--log-format console`` shows the lines as a person would read them; ``--log-level debug``
adds a line per request). ``tests/server/test_logs.py`` runs the same server the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from clients.sdk import LuminClient, bot, human  # noqa: E402
from engine.core import expand_legal, to_wire  # noqa: E402
from engine.registry import get_game  # noqa: E402

__all__ = ["LiveServer", "metric_names", "play_frog", "serving"]

#: Seconds a server gets to say it listens, and to stop after SIGTERM.
WAIT = 30.0


class LiveServer:
    """A ``lumin serve`` process on a free port, its standard error going to ``log``."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path) -> None:
        self.process = process
        self.log = log
        self.port = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def lines(self) -> list[str]:
        """Standard error so far, one entry per line."""
        return self.log.read_text().splitlines()

    def events(self) -> list[dict[str, Any]]:
        """Every line so far parsed as JSON (raises on a line that is not)."""
        return [json.loads(line) for line in self.lines()]

    def wait_listening(self) -> None:
        """Wait for the ``listening`` line (or, with console output, its text); sets ``port``."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for line in self.lines():
                if "listening" not in line:
                    continue
                if line.startswith("{"):
                    self.port = int(json.loads(line)["port"])
                    return
                found = re.search(r"\bport=(\d+)", line)
                if found:
                    self.port = int(found.group(1))
                    return
            if self.process.poll() is not None:
                raise RuntimeError(f"lumin serve exited {self.process.returncode}:\n{self.log}")
            time.sleep(0.05)
        raise RuntimeError(f"lumin serve did not listen within {WAIT} s")

    def wait_for(self, event: str, count: int = 1) -> None:
        """Wait until ``count`` lines of ``event`` were logged (JSON lines)."""
        deadline = time.monotonic() + WAIT
        while sum(f'"event": "{event}"' in line for line in self.lines()) < count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"no {count} {event!r} lines within {WAIT} s")
            time.sleep(0.02)

    def metrics(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as got:
            return str(got.read().decode())

    def stop(self) -> int:
        """SIGTERM, then wait for the process to end; its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(WAIT)


@contextlib.contextmanager
def serving(folder: Path, *flags: str) -> Iterator[LiveServer]:
    """Run ``lumin serve --port 0 --data FOLDER/data --bot-delay 0 FLAGS`` until the block
    ends (then SIGTERM, waited for)."""
    log = folder / "stderr.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "lumin.cli", "serve", "--port", "0"),
                *("--data", str(folder / "data"), "--bot-delay", "0", *flags),
            ],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    server = LiveServer(process, log)
    try:
        server.wait_listening()
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def play_frog(url: str, seed: int = 1) -> str:
    """Ada plays a Flip Over Frog game against a bot to its end with random legal moves,
    then leaves; returns the room id."""
    game = get_game("flip_over_frog")
    rng = random.Random(seed)
    async with await LuminClient.connect(url, "Ada") as ada:
        room = await ada.create_room("flip_over_frog", seats=[human(), bot("bot")], sit=0)
        await ada.start(room)
        while room not in ada.game_over:
            legal = ada.legal(room)
            if not legal:
                await ada.changed(room)
                continue
            await ada.act(room, to_wire(rng.choice(expand_legal(game, legal))))
    return room


def metric_names(text: str) -> list[str]:
    """The series names of a Prometheus text exposition, in order, each once."""
    names: dict[str, None] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            names[line.split("{", 1)[0].split(" ", 1)[0]] = None
    return list(names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log-format", choices=("json", "console"), default="json")
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as folder,
        serving(
            Path(folder), "--log-format", args.log_format, "--log-level", args.log_level
        ) as server,
    ):
        asyncio.run(play_frog(server.url))
        time.sleep(0.5)  # the loop-lag probe's first observations
        names = metric_names(server.metrics())
        server.stop()
        lines = server.lines()
    print("# Log lines (standard error) of one Flip Over Frog game, start-up to shutdown")
    print("\n".join(lines))
    print("\n# Series of /metrics after the game")
    print("\n".join(names))


if __name__ == "__main__":
    main()
