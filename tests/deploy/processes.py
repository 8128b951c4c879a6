"""The processes the deploy tests run (``lumin serve`` nodes, nginx) and how they talk to
them: free ports, bounded waits, stopping, an HTTP GET and a Lumin ``hello``. Every wait is
bounded by :data:`WAIT`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect

__all__ = [
    "WAIT",
    "free_port",
    "get",
    "hello",
    "missing",
    "stop",
    "wait_for_port",
    "wait_for_ready_line",
]

WAIT = 15.0  # seconds any one process may take to start


def missing(reason: str) -> None:
    """Skip for want of a tool, or fail under CI, where ``make test`` installs every one."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; make test installs it")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_ready_line(process: subprocess.Popen[bytes], log: Path) -> int:
    """The port a ``lumin serve --port 0`` says it listens on."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = re.search(r'"url": "ws://127\.0\.0\.1:(\d+)/ws"', log.read_text())
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            pytest.fail(f"lumin serve exited {process.returncode}:\n{log.read_text()}")
        time.sleep(0.05)
    pytest.fail(f"lumin serve did not listen within {WAIT} s:\n{log.read_text()}")


def wait_for_port(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    """Wait until ``process`` (nginx) accepts connections on ``port``."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"nginx exited {process.returncode}:\n{log.read_text()}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    pytest.fail(f"nginx did not listen within {WAIT} s:\n{log.read_text()}")


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each process still running, then wait for all (SIGKILL after 10 s)."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def get(
    url: str, context: ssl.SSLContext | None = None, **headers: str
) -> tuple[int, bytes, dict[str, str]]:
    """Status, body and headers of a GET of ``url``, with no proxy from the environment."""
    opener = urllib.request.build_opener(
        urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=context)
    )
    request = urllib.request.Request(url, headers=headers)
    try:
        with opener.open(request, timeout=5) as answer:
            return answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)


async def hello(
    url: str,
    origin: str | None = None,
    token: str | None = None,
    context: ssl.SSLContext | None = None,
) -> dict[str, Any]:
    """The first frame the server answers a ``hello`` with (over TLS with ``context``)."""
    frame: dict[str, Any] = {"type": "hello", "versions": [1], "name": "Ada", "id": 1}
    if token is not None:
        frame["token"] = token
    options: dict[str, Any] = {"ssl": context} if context is not None else {}
    async with connect(
        url, origin=origin, proxy=None, open_timeout=5, close_timeout=2, **options
    ) as websocket:
        await websocket.send(msgpack.packb(frame))
        answer = await asyncio.wait_for(websocket.recv(), 5)
    assert isinstance(answer, bytes), "Lumin answers in binary frames"
    return dict(msgpack.unpackb(answer))
