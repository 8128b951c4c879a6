"""Record the example session of ``docs/protocol.md`` from a real Lumin server.

Ada's connection is spoken to frame by frame (every frame she sends and receives is recorded,
as the JSON form of its msgpack map); Bea, her opponent in a two-seat Flash 8 race, is another
connection whose frames are not shown. ``python scripts/protocol_example.py`` starts an
embedded server on a free port and prints the session in the document's format, to paste
between the example's fences; ``tests/server/test_protocol_example.py`` records it again and
checks that the document shows what the server really sends.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from clients.sdk import LuminClient  # noqa: E402

__all__ = ["Line", "record_session"]

#: One line of the session: ``("C", frame)``, ``("S", frame)`` or ``("#", note)``.
Line = tuple[str, Any]


class _Ada:
    """Ada's connection, recording every frame."""

    def __init__(self, socket: ClientConnection, lines: list[Line]) -> None:
        self.socket, self.lines = socket, lines

    def note(self, text: str) -> None:
        self.lines.append(("#", text))

    async def send(self, frame: dict[str, Any]) -> None:
        self.lines.append(("C", frame))
        await self.socket.send(msgpack.packb(frame))

    async def receive(self) -> dict[str, Any]:
        frame: dict[str, Any] = msgpack.unpackb(await asyncio.wait_for(self.socket.recv(), 10))
        self.lines.append(("S", frame))
        return frame

    async def until(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Receive until a frame of ``kind`` with these fields (recording all in between)."""
        while True:
            frame = await self.receive()
            if frame["type"] == kind and all(frame.get(k) == v for k, v in fields.items()):
                return frame

    async def quiet(self, seconds: float = 0.4) -> None:
        """Receive whatever comes within ``seconds`` (room updates are throttled to 0.25 s)."""
        try:
            while True:
                frame = msgpack.unpackb(await asyncio.wait_for(self.socket.recv(), seconds))
                self.lines.append(("S", frame))
        except TimeoutError:
            pass


def _slides(legal: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(entry["src"], entry["dst"]) for entry in legal if entry["type"] == "slide"]


async def record_session(url: str) -> list[Line]:
    """Run the example session against the server at ``url``; its lines in order."""
    lines: list[Line] = []
    async with connect(url, compression=None) as socket:
        ada = _Ada(socket, lines)
        ada.note("The handshake: versions offered, version chosen, the identity's token, limits.")
        hello = {"type": "hello", "versions": [1], "name": "Ada", "client": "example/1.0", "id": 1}
        await ada.send(hello)
        await ada.until("welcome")
        ada.note("Clock sync: half the round trip added to server_time estimates the server clock.")
        await ada.send({"type": "ping", "client_time": 52.5, "id": 2})
        await ada.until("pong")
        ada.note("Create a two-seat race and sit at seat 0. The snapshot before the start has no")
        ada.note("view (seq 0); the room_update after it shows Ada connected.")
        await ada.send({
            "type": "create_room", "game": "flash8", "options": {"countdown": 0.0},
            "seats": [{}, {}], "sit": 0, "id": 3,
        })  # fmt: skip
        created = await ada.until("room_created")
        room = created["room"]
        await ada.until("room_update")
        ada.note("Bea (another connection, not shown) takes seat 1 and says she is ready.")
        bea = await LuminClient.connect(url, "Bea")
        await bea.join(room, 1)
        await ada.until("room_update")
        await bea.ready(room)
        await ada.until("room_update")
        await ada.quiet()
        ada.note("Ada, the host, starts the game: the first view, every seat's tablet (still seq")
        ada.note("0), then the room_update, then the answer.")
        await ada.send({"type": "start", "room": room, "id": 4})
        await ada.until("ok", ref=4)
        ada.note("The room's clock steps are steps of the log too: the countdown begins (seq 1),")
        ada.note("then ends (0 s here), and the race's first legal slides arrive with that delta.")
        racing = await ada.until("delta")
        while "legal" not in racing:
            racing = await ada.until("delta")
        legal, seen = racing["legal"], racing["seq"]
        src, dst = _slides(legal)[0]
        ada.note(f"Ada slides the electron on cell {src} into the free cell {dst}, saying she has")
        ada.note(
            f"seen seq {seen}. Her delta comes first (her legal slides changed), then the answer."
        )
        slide = {"type": "slide", "src": src, "dst": dst}
        await ada.send({"type": "act", "room": room, "command": slide, "seq": seen, "id": 5})
        accepted = await ada.until("accepted", ref=5)
        ada.note("Bea slides: Ada's view of Bea's tablet changes; Ada's legal slides do not.")
        while not bea.legal(room):
            await bea.changed(room)
        bea_src, bea_dst = _slides(bea.legal(room))[0]
        await bea.act(room, {"type": "slide", "src": bea_src, "dst": bea_dst})
        seen = (await ada.until("delta", seq=accepted["seq"] + 1))["seq"]
        ada.note(
            "A slide into a cell that is not free is refused by the rules and changes nothing."
        )
        tablet = next(
            op[2]
            for side, frame in reversed(lines)
            if side == "S" and frame["type"] == "delta"
            for op in frame.get("ops", [])
            if op[1] == "/seats/0/tablet"
        )
        occupied = [cell for cell, electron in enumerate(tablet) if electron != "."]
        bad = {"type": "slide", "src": occupied[0], "dst": occupied[1]}
        await ada.send({"type": "act", "room": room, "command": bad, "seq": seen, "id": 6})
        await ada.until("rejected", ref=6)
        ada.note("A malformed request is answered with an error naming the field; the connection")
        ada.note("stays open.")
        await ada.send({"type": "kick", "room": room, "seat": "one", "id": 7})
        await ada.until("error", ref=7)
        ada.note("Chat: the line reaches everyone on the channel, Ada included, before the answer.")
        await ada.send({"type": "chat_send", "room": room, "text": "gl hf", "id": 8})
        await ada.until("ok", ref=8)
        ada.note("Her whole view again, with nothing else happening (no room_update, no change).")
        await ada.send({"type": "get_snapshot", "room": room, "id": 9})
        await ada.until("snapshot", ref=9)
        await ada.quiet(0.1)
        ada.note("Leaving during the game keeps the seat (a bot plays it after the grace period).")
        await ada.send({"type": "leave", "room": room, "id": 10})
        await ada.until("ok", ref=10)
        await ada.send({"type": "bye", "message": "See you."})
        await bea.close()
    return lines


def render(lines: list[Line]) -> str:
    """The session in the document's format."""
    out = []
    for side, content in lines:
        if side == "#":
            out.append(f"# {content}")
        else:
            out.append(f"{side}: {json.dumps(content, separators=(', ', ': '))}")
    return "\n".join(out)


async def _main() -> None:
    from server.app import LuminServer
    from server.config import Settings

    with tempfile.TemporaryDirectory() as data:
        server = LuminServer(Settings(port=0, data=Path(data), bot_delay=0.0))
        await server.start()
        try:
            print(render(await record_session(f"ws://127.0.0.1:{server.port}/ws")))
        finally:
            await server.stop()


if __name__ == "__main__":
    from server.logs import configure_logging

    configure_logging("warning")
    asyncio.run(_main())
