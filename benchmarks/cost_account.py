"""The cost account of one slide: the instructions each stage of Lumin's pipeline spends on a
Flash 8 race slide, from the socket to every viewer's frame and the durable ``accepted``.

``python -m benchmarks.cost_account [--slides 400] [--seconds 20] [--json] [--smoke]``

Instruction counts come from valgrind's callgrind, which counts the instructions a program
runs and nothing else, so a figure repeats from run to run on a machine whose speed drifts
(time is only compared as a ratio within one run elsewhere in ``docs/performance.md``). They
leave out what the kernel does for a socket and what a cache miss costs, which callgrind
cannot see.

Two parts:

* **Stages**, each measured alone in one process under callgrind, on the inputs of a real
  race (four seats, slides drawn from each seat's legal commands, played through the engine):
  websockets parsing the client's frame, decoding the ``act``, the room's mailbox, the batch
  decision (the rules' ``decide`` and ``evolve`` inside it), the views (legal commands, view
  patches for the four viewers, encoded deltas), ``accepted``, the store's append and commit
  (SQLite, ``process`` durability: its writer thread counts too), and framing and writing the
  five frames. ``room`` is the room's own work as a connection drives it (``Room.call``, one
  command at a time): the stages from the mailbox to ``accepted`` and the room's own steps
  around them. The process calls ``os.getppid`` between stages, and callgrind's
  ``--dump-before`` writes a profile at each call, so each stage is its own dump.
* **Wholes**: ``lumin serve`` and the bare relay of ``lumin bench race --target relay``, each
  under callgrind, driven by ``lumin bench race``'s load generator (outside valgrind) for
  ``--seconds``: one room of four clients, one of them sliding closed-loop and the others
  reading, so every batch holds one command, as the stages are measured.
  ``callgrind_control`` zeroes the counts when the window opens and dumps them when it ends,
  so each gives instructions per command over the window. What the server spends beyond its
  stages is the room's own steps around them, the handlers', the event loop and its tasks,
  and reading the sockets.

The stages are measured at one command a batch: with four racers sliding at once a room
decides them together, and what is per batch (the views, the store's commit, the framing)
is shared (``lumin bench race`` measures that load).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parents[1]

#: The marker between stages: callgrind dumps a profile each time it is entered.
MARKER = "os_getppid*"


@attrs.frozen
class Slide:
    """One slide of the recorded race: the state it was decided on and everything each stage
    takes or makes for it."""

    seat: int
    before: Any
    data: dict[str, Any]
    now: float
    seq: int
    position: int
    frame: bytes  #: the client's act message, msgpack
    masked: bytes  #: ... as the masked websocket frame a client sends
    step: Any  #: server.batch.Step
    record: Any  #: server.store.Record


def record_race(slides: int, seed: int = 7) -> tuple[Any, list[Slide]]:
    """A four-seat race played through the engine: ``slides`` slides, each of the next seat
    in turn, drawn from its legal commands as the load generator draws them."""
    from websockets.frames import Frame, Opcode

    from engine.core import from_wire, to_wire
    from engine.match import Match
    from engine.registry import get_game
    from protocol.codec import encode
    from protocol.messages import Act
    from server.batch import make_step
    from server.store import Record

    game = get_game("flash8")
    specs = [_spec(f"Racer {n}") for n in range(4)]
    match = Match.start(game, specs, bytes(range(32)), {"countdown": 0.0})
    rng = random.Random(seed)
    now = 0.0
    while not any(e["type"] == "slide" for e in game.legal(match.state, 0)):
        now += 0.05
        match.tick(now)
    made: list[Slide] = []
    seq = 0
    while len(made) < slides and match.outcome is None:
        seat = len(made) % 4
        moves = [e for e in game.legal(match.state, seat) if e["type"] == "slide"]
        if not moves:
            now += 0.05
            match.tick(now)
            continue
        entry = rng.choice(moves)
        data = {k: v for k, v in entry.items() if k not in ("choose", "preview")}
        if "choose" in entry:
            ((name, values),) = entry["choose"].items()
            data[name] = rng.choice(values)
        now += 0.01
        before, position = match.state, len(match.log)
        command = from_wire(game.commands, data)
        events = match.act(seat, command, now)
        frame = encode(Act(room="r0123456789", command=data, seq=seq, id=len(made) + 1))
        record = Record(
            seq=seq + 1,
            position=position,
            seat=seat,
            command=to_wire(command),
            at=now,
            events=tuple(to_wire(event) for event in events),
        )
        made.append(
            Slide(
                seat,
                before,
                data,
                now,
                seq,
                position,
                frame,
                Frame(Opcode.BINARY, frame).serialize(mask=True),
                make_step(game, game, before, events),
                record,
            )
        )
        seq += 1
    return game, made


def _spec(name: str) -> Any:
    from engine.core import SeatSpec

    return SeatSpec(name=name, bot=None, choices={})


# -- the stages ------------------------------------------------------------------------------


_marks = [0]


def _mark() -> int:
    """Mark a boundary: callgrind writes a profile of what ran since the last one
    (``--dump-before``), to the file numbered by the marks so far; returns that number."""
    os.getppid()
    _marks[0] += 1
    return _marks[0]


async def _stages(slides: Sequence[Slide], game: Any, folder: Path) -> list[tuple[str, int, int]]:
    """Run each stage over ``slides`` between markers; each stage's name, op count and the
    number of the callgrind dump that holds its run."""
    from websockets.protocol import Protocol, Side

    from protocol.codec import CLIENT_FRAME_LIMITS, decode, encode_accepted, encode_delta
    from server.batch import QueuedAct, decide_batch
    from server.fanout import Fanout
    from server.mailbox import Mailbox
    from server.store import EventStore
    from server.transport import framed

    done: list[tuple[str, int, int]] = []  # name, ops, the dump that holds them
    seed = bytes(range(32))
    viewers = [0, 1, 2, 3]

    async def stage(name: str, body: Callable[[], Awaitable[int]]) -> None:
        await body()  # warm: caches, lazy imports, first-call paths
        dump = _mark() + 1
        count = await body()
        _mark()
        done.append((name, count, dump))

    async def prepared(
        name: str, prepare: Callable[[], Awaitable[Callable[[], Awaitable[int]]]]
    ) -> None:
        """A stage whose set-up and tear-down (a store, a room) stay outside its count:
        ``prepare`` gives the measured run, which tidies after itself past the marker."""
        warm = await prepare()
        await warm()
        run = await prepare()
        dump = _mark() + 1
        count = await run()  # marks where its count ends
        done.append((name, count, dump))

    async def frame_parse() -> int:
        protocol = Protocol(Side.SERVER, max_size=None)
        for slide in slides:
            protocol.receive_data(slide.masked)
            protocol.events_received()
        return len(slides)

    async def decoding() -> int:
        for slide in slides:
            decode(slide.frame, sender="client", limits=CLIENT_FRAME_LIMITS)
        return len(slides)

    async def mailbox() -> int:
        box = Mailbox()
        for slide in slides:
            answer = box.put(QueuedAct(None, slide.seat, slide.data, 1, slide.seq))
            delivery = await box.next()
            answer.set_result(None)
            assert delivery.acts
        return len(slides)

    async def deciding() -> int:
        for slide in slides:
            act = QueuedAct(None, slide.seat, slide.data, 1, slide.seq)
            decide_batch(
                game, game, slide.before, slide.seq, slide.position, seed, True, {}, {},
                [act], slide.now,
            )  # fmt: skip
        return len(slides)

    async def rules_decide() -> int:
        from engine.core import chance, from_wire

        for slide in slides:
            command = from_wire(game.commands, slide.data)
            game.decide(slide.before, slide.seat, command, slide.now, chance(seed, slide.position))
        return len(slides)

    async def rules_evolve() -> int:
        for slide in slides:
            state = slide.before
            for event in slide.step.events:
                state = game.evolve(state, event)
        return len(slides)

    async def records() -> Callable[[], Awaitable[int]]:
        from engine.core import from_wire, to_wire
        from server.store import Record

        commands = [from_wire(game.commands, slide.data) for slide in slides]

        async def run() -> int:
            for slide, command in zip(slides, commands, strict=True):
                Record(
                    seq=slide.seq + 1,
                    position=slide.position,
                    seat=slide.seat,
                    command=to_wire(command),
                    at=slide.now,
                    events=tuple(to_wire(event) for event in slide.step.events),
                )
            _mark()
            return len(slides)

        return run

    async def legal_seats() -> int:
        for slide in slides:
            game.legal_seats(slide.before, slide.step.after, slide.step.events)
        return len(slides)

    async def views() -> int:
        fanout = Fanout("r0123456789", game, game, 64)
        for viewer in (None, *viewers):
            fanout.view_for(slides[0].before, viewer)
        for slide in slides:
            fanout.refresh(
                slide.step.after, slide.seq + 1, 4, viewers, [slide.step], slide.step.changed,
                slide.now,
            )  # fmt: skip
        return len(slides)

    async def legal() -> int:
        for slide in slides:
            for seat in viewers if slide.step.changed is None else slide.step.changed:
                game.legal(slide.step.after, seat)
        return len(slides)

    async def view_patches() -> int:
        for slide in slides:
            for viewer in viewers:
                game.view_patch(slide.before, slide.step.after, slide.step.events, viewer)
        return len(slides)

    async def deltas() -> Callable[[], Awaitable[int]]:
        # Each viewer's delta of a slide: its view patch, and the sender's new legal commands.
        made = [
            [
                (
                    game.view_patch(slide.before, slide.step.after, slide.step.events, viewer)
                    or [],
                    game.legal(slide.step.after, viewer) if viewer == slide.seat else None,
                )
                for viewer in viewers
            ]
            for slide in slides
        ]

        async def run() -> int:
            for slide, frames in zip(slides, made, strict=True):
                for ops, legal in frames:
                    encode_delta("r0123456789", slide.seq, slide.seq + 1, ops, legal)
            _mark()
            return len(slides)

        return run

    async def accepted() -> int:
        for slide in slides:
            encode_accepted(slide.seq, "r0123456789", slide.seq + 1)
        return len(slides)

    runs = [0]

    async def store() -> Callable[[], Awaitable[int]]:
        from server.store import RoomRow

        runs[0] += 1
        events = EventStore(folder / f"store{runs[0]}.sqlite3")
        room = f"r{runs[0]:010d}"
        row = RoomRow(room, "flash8", {}, [], seed, seed, "", False, None, None, "playing",
                      1.0, 1.0, None, {})  # fmt: skip
        await events.create_room(row)

        async def appending() -> int:
            for slide in slides:
                await events.append(room, slide.record)
            _mark()  # the store's close is not the append's cost
            events.close()
            return len(slides)

        return appending

    async def frame_write() -> Callable[[], Awaitable[int]]:
        # Each viewer's connection is a pipe read by a process of its own (valgrind does not
        # follow children), so only the writing side counts, as in the server. The frames are
        # the slides' real deltas and accepted, framed afresh as the server frames each new
        # delta (the framing cache starts empty).
        from server.transport import _framed_small

        loop = asyncio.get_running_loop()
        sinks, readers = [], []
        for _ in viewers:
            read, write = os.pipe()
            readers.append(subprocess.Popen(["cat"], stdin=read, stdout=subprocess.DEVNULL))
            os.close(read)
            transport, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(write, "wb"))
            sinks.append(transport)
        sent = [
            [
                [
                    encode_delta(
                        "r0123456789", slide.seq, slide.seq + 1,
                        game.view_patch(slide.before, slide.step.after, slide.step.events, viewer)
                        or [],
                        game.legal(slide.step.after, viewer) if viewer == slide.seat else None,
                    ),
                    *([encode_accepted(slide.seq, "r0123456789", slide.seq + 1)]
                      if viewer == slide.seat else []),
                ]
                for viewer in viewers
            ]
            for slide in slides
        ]  # fmt: skip
        _framed_small.cache_clear()

        async def run() -> int:
            for frames in sent:
                for sink, viewer_frames in zip(sinks, frames, strict=True):
                    sink.writelines([framed(frame) for frame in viewer_frames])
            _mark()
            for sink in sinks:
                sink.close()
            for reader in readers:
                await asyncio.to_thread(reader.wait, 10)
            return len(slides)

        return run

    await stage("frame_parse", frame_parse)
    await stage("decode", decoding)
    await stage("mailbox", mailbox)
    await stage("decide", deciding)
    await stage("decide.rules", rules_decide)
    await stage("decide.evolve", rules_evolve)
    await prepared("decide.records", records)
    await stage("decide.legal_seats", legal_seats)
    await stage("views", views)
    await stage("views.legal", legal)
    await stage("views.patches", view_patches)
    await prepared("views.deltas", deltas)
    await stage("accepted", accepted)
    await prepared("store", store)
    await prepared("frame_write", frame_write)
    await prepared("room", lambda: _room(len(slides), folder))
    return done


async def _room(commands: int, folder: Path) -> Callable[[], Awaitable[int]]:
    """The room's own work as a connection drives it: ``Room.call`` of one slide at a time in
    a four-seat race of peers that only count frames (``benchmarks.room_pipeline``'s); the
    room is made here, and its run counts only the commands."""
    from benchmarks.room_pipeline import _open_room
    from server.batch import QueuedAct
    from server.config import Settings
    from server.hub import Hub
    from server.metrics import Metrics
    from server.store import EventStore

    data = Path(tempfile.mkdtemp(dir=folder))
    store = EventStore(data / "lumin.db")
    hub = Hub(Settings(data=data, bot_delay=0.0), store, Metrics())
    room, peers = await _open_room(hub, 0)

    async def calls() -> int:
        rng = random.Random(3)
        made = turn = 0
        while made < commands and room.status == "playing":
            seat, turn = turn % 4, turn + 1
            moves = [e for e in room.legal.get(seat, []) if e["type"] == "slide"]
            if not moves:
                await asyncio.sleep(0)
                continue
            await room.call(QueuedAct(peers[seat], seat, rng.choice(moves), made, room.seq))
            made += 1
        _mark()  # stopping the room is not a command's cost
        await room.stop()
        store.close()
        return made

    return calls


def inner(slides: int, out: Path) -> None:
    """The process callgrind watches: record the race, then every stage between markers."""
    from server.eventloop import run
    from server.logs import configure_logging

    configure_logging("warning")  # as lumin bench race's server runs
    game, recorded = record_race(slides)
    with tempfile.TemporaryDirectory() as folder:
        names = run(_stages(recorded, game, Path(folder)))
    out.write_text(json.dumps(names))


# -- reading callgrind -----------------------------------------------------------------------


def _total(dump: Path) -> int:
    """The instructions a callgrind dump counts (its ``totals:`` line)."""
    for line in dump.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise ValueError(f"{dump} has no totals line")


def _valgrind() -> str:
    found = shutil.which("valgrind")
    if found is None:
        raise SystemExit(
            "The cost account counts instructions with valgrind's callgrind, which is not"
            " installed (Debian: apt-get install valgrind; make bench-smoke installs it)."
        )
    return found


def measure_stages(slides: int) -> dict[str, float]:
    """Instructions per slide of each stage (one callgrind run)."""
    with tempfile.TemporaryDirectory() as folder:
        out, names = Path(folder) / "cg", Path(folder) / "names.json"
        command = [
            _valgrind(), "--tool=callgrind", f"--dump-before={MARKER}",
            f"--callgrind-out-file={out}.%p", sys.executable, "-m", "benchmarks.cost_account",
            "--inner", "--slides", str(slides), "--names", str(names),
        ]  # fmt: skip
        subprocess.run(command, cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
        stages = json.loads(names.read_text())
        (pid,) = {p.name.split(".")[1] for p in Path(folder).glob("cg.*")}
        # Dump n is what ran between the marks n - 1 and n.
        return {name: _total(Path(f"{out}.{pid}.{dump}")) / count for name, count, dump in stages}


class _Counted:
    """The load generator's CPU probe for a process under callgrind: instructions instead of
    seconds. Opening the window zeroes the counts and, ``seconds`` later, dumps them; closing
    it reads the dump."""

    def __init__(self, pid: int, folder: Path, seconds: float) -> None:
        self.pid, self.folder, self.seconds = pid, folder, seconds
        self.timer: threading.Timer | None = None

    def _control(self, *flags: str) -> None:
        subprocess.run(["callgrind_control", *flags, str(self.pid)], check=True,
                       capture_output=True)  # fmt: skip

    def __call__(self) -> float:
        if self.timer is None:
            self._control("-i", "on")
            self._control("-z")
            self.timer = threading.Timer(self.seconds, self._control, ("-d",))
            self.timer.start()
            return 0.0
        self.timer.join()
        dumps = sorted(self.folder.glob(f"cg.{self.pid}.*"), key=lambda p: int(p.suffix[1:]))
        return float(_total(dumps[-1]))


def measure_whole(target: str, seconds: float) -> dict[str, Any]:
    """Instructions per command of ``target`` (``lumin`` or ``relay``) under callgrind, one
    room of four closed-loop clients, and the window's command count."""
    from clients.load import LOAD_LIMITS, drive, free_port, limit_flags, wait_healthy
    from server.eventloop import run

    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        if target == "relay":
            serving = [sys.executable, "-m", "clients.load", "relay", str(port)]
        else:
            serving = [
                sys.executable, "-m", "lumin.cli", "serve", "--port", str(port), "--data",
                str(Path(folder) / "data"), "--bot-delay", "0", *limit_flags(LOAD_LIMITS),
                "--log-level", "warning",
            ]  # fmt: skip
        process = subprocess.Popen(
            [_valgrind(), "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={folder}/cg.%p", *serving],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            if target == "relay":
                _wait_listening(port)
                url = f"ws://127.0.0.1:{port}"
            else:
                wait_healthy(port, timeout=120.0)
                url = f"ws://127.0.0.1:{port}/ws"
            probe = _Counted(process.pid, Path(folder), seconds)
            result = run(drive(target, [url], 1, seconds, {"server": probe}, senders=1))
        finally:
            process.terminate()
            process.wait(60)
    commands = result["commands"]
    return {"commands": commands, "instructions_per_command": result["cpu"] / commands}


def _wait_listening(port: int, timeout: float = 120.0) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"nothing listened on {port} within {timeout} s")


def account(slides: int, seconds: float) -> dict[str, Any]:
    """The whole account: stages, then the server and the relay."""
    stages = measure_stages(slides)
    lumin = measure_whole("lumin", seconds)
    relay = measure_whole("relay", seconds)
    own = [
        "frame_parse", "decode", "mailbox", "decide", "views", "accepted", "store",
        "frame_write",
    ]  # fmt: skip
    counted = sum(stages[name] for name in own)
    server = lumin["instructions_per_command"]
    return {
        "slides": slides,
        "seconds": seconds,
        "stages": stages,
        "stages_sum": counted,
        "server": lumin,
        "relay": relay,
        "server_over_relay": server / relay["instructions_per_command"],
        "beyond_stages": server - counted,
    }


def _print(report: dict[str, Any]) -> None:
    server = report["server"]["instructions_per_command"]
    print(f"cost account of one slide (instructions, callgrind; {report['slides']} slides a stage)")
    for name, count in report["stages"].items():
        inner_stage = "." in name
        share = "" if inner_stage or name == "room" else f"  {100 * count / server:5.1f}%"
        label = f"  {name}" if inner_stage else name
        print(f"  {label:<22}{count:>10,.0f}{share}")
    print(f"  {'stages, summed':<22}{report['stages_sum']:>10,.0f}")
    print(f"  {'beyond them':<22}{report['beyond_stages']:>10,.0f}")
    print(
        f"lumin serve: {server:,.0f} per command ({report['server']['commands']} commands);"
        f" bare relay: {report['relay']['instructions_per_command']:,.0f}"
        f" ({report['relay']['commands']} commands); ratio {report['server_over_relay']:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slides", type=int, default=400, help="slides each stage runs")
    parser.add_argument("--seconds", type=float, default=20.0, help="each whole run's window")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="a quick run (CI)")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--names", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner(args.slides, args.names)
        return
    slides, seconds = (40, 3.0) if args.smoke else (args.slides, args.seconds)
    report = account(slides, seconds)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print(report)


if __name__ == "__main__":
    main()
