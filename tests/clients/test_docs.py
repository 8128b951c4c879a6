"""docs/bots.md as a new bot author follows it: the bot of section 1 written to a file and
run in the arena, the example bot's excerpt and numbers (section 3) checked against
docs/examples/frog_bot.py and its arena run, and section 4's three commands run as written on
a free port (``lumin serve``, ``host.py``, ``lumin bot``). The smallest bot runs as written (its
last line names a placeholder room, so it is left out and ``main`` is called with the test
server's) against a real server, playing a whole game against a person who takes their time.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from clients.load import free_port
from clients.sdk import LuminClient, human
from tests.server.test_play import play_seat

ROOT = Path(__file__).resolve().parents[2]
BOTS_DOC = ROOT / "docs" / "bots.md"
EXAMPLES = ROOT / "docs" / "examples"
BIN = Path(sys.executable).parent


def section(title: str) -> str:
    """The text of the section of docs/bots.md whose heading is ``## title``."""
    return BOTS_DOC.read_text().split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in ``text``."""
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def commands(text: str) -> list[list[str]]:
    """Every command of the ``sh`` blocks in ``text``, split, with ``lumin`` and ``python``
    the checkout's."""
    found = []
    for block in blocks(text, "sh"):
        for line in block.strip().splitlines():
            words = shlex.split(line)
            if words[0] == "lumin":
                words[0] = str(BIN / "lumin")
            elif words[0] == "python":
                words[0] = sys.executable
            found.append(words)
    return found


async def run(words: list[str], cwd: Path, seconds: float = 120) -> str:
    """Run a command to its end; its standard output (fails on a non-zero exit)."""
    process = await asyncio.create_subprocess_exec(
        *words, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), seconds)
    assert process.returncode == 0, (words, err.decode())
    return out.decode()


async def test_the_first_bot_runs_in_the_arena_and_in_selfplay(tmp_path: Path) -> None:
    (code,) = blocks(section("1. A bot in a file"), "python")
    (tmp_path / "frog_bot.py").write_text(code)
    arena_section = section("2. Into the arena")
    (arena,) = commands(arena_section)
    out = await run(arena, tmp_path)
    rate = float(re.search(r"frog_bot:make_bot: wins [\d.]+ +rate ([\d.]+)", out)[1])
    assert 0.35 < rate < 0.65, out  # "about half": it plays at random
    (selfplay,) = re.findall(r"`(lumin selfplay [^`]+)`", arena_section)
    out = await run([str(BIN / "lumin"), *shlex.split(selfplay)[1:], "--games", "20"], tmp_path)
    assert out.startswith("flip_over_frog: 20/20 games finished"), out


async def test_the_example_bot_is_the_one_shown_and_beats_random_as_the_doc_says() -> None:
    text = section("3. Beat `random`")
    (excerpt,) = blocks(text, "python")
    assert excerpt in (EXAMPLES / "frog_bot.py").read_text()
    (arena,) = commands(text)
    out = await run(arena, EXAMPLES)
    rate, low, high = re.search(
        r"frog_bot:make_bot: wins [\d.]+ +rate ([\d.]+) +95% \[([\d.]+), ([\d.]+)\]", out
    ).groups()
    assert f"It wins {rate} of 400 games (95% [{low}, {high}])" in text, out
    assert float(low) > 0.5


async def test_the_live_server_walkthrough_runs_as_written(tmp_path: Path) -> None:
    serve, host, play = commands(section("4. On a live server"))
    port = str(free_port())
    for words in (serve, host, play):
        for n, word in enumerate(words):
            words[n] = word.replace("8700", port)
    serve[serve.index("--data") + 1] = str(tmp_path / "lumin-data")
    server = await asyncio.create_subprocess_exec(
        *serve, cwd=tmp_path, stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL
    )
    hosting = None
    try:
        assert server.stderr is not None
        async with asyncio.timeout(60):
            while b'"listening"' not in (line := await server.stderr.readline()):
                assert line, "lumin serve ended before listening"
        hosting = await asyncio.create_subprocess_exec(
            *host, cwd=EXAMPLES, stdout=asyncio.subprocess.PIPE
        )
        assert hosting.stdout is not None
        room = (await asyncio.wait_for(hosting.stdout.readline(), 60)).decode().strip()
        outcome = json.loads(await run([room if w == "ROOM" else w for w in play], EXAMPLES))
        said = (await asyncio.wait_for(hosting.stdout.read(), 60)).decode().strip()
        assert said == f"ranks {outcome['ranks']}, scores {outcome['scores']}"
    finally:
        for process in (hosting, server):
            if process is not None and process.returncode is None:
                process.terminate()
                await process.wait()


def smallest_bot() -> str:
    """The Python code block under "The smallest bot", without its ``asyncio.run`` line."""
    section = BOTS_DOC.read_text().split("## The smallest bot", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    lines = code.splitlines()
    assert any(line.startswith("asyncio.run(main(") for line in lines)
    return "\n".join(line for line in lines if not line.startswith("asyncio.run("))


async def seat_ready(client: LuminClient, room: str, seat: int) -> None:
    """Wait (at most 20 s) until ``seat`` of ``room`` is taken and ready."""
    async with asyncio.timeout(20):
        while True:
            info = client.room_info.get(room)
            if info is not None and info.seats[seat].ready:
                return
            await client.changed(room)


async def test_the_smallest_bot_of_the_docs_plays_a_whole_game(connect, url: str) -> None:
    namespace: dict[str, Any] = {"__name__": "smallest_bot"}
    exec(compile(smallest_bot(), str(BOTS_DOC), "exec"), namespace)
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    playing = asyncio.create_task(namespace["main"](url, room, 1))
    await seat_ready(ada, room, 1)
    await ada.ready(room)
    await ada.start(room)
    await asyncio.sleep(1.5)  # the bot waits for Ada's first move without timing out
    assert not playing.done()
    await asyncio.wait_for(play_seat(ada, room, random.Random(3), "flip_over_frog"), 60)
    await asyncio.wait_for(playing, 30)
    assert room in ada.game_over
