"""The client-only install: the wheel built from a copy of the sources, installed WITHOUT the
``server`` extra into a fresh virtual environment outside the checkout, plays a game against a
live server (the test's own, run from the checkout's environment).

One distribution ships every package, so the install holds ``engine/`` and ``server/`` too;
they are deleted from it here, so that ``import engine`` and ``import server`` fail there and
the game shows that the client library, ``lumin bot`` and a bot of the user's need neither.
The wheel is built without build isolation, and the install uses pip's cache; the whole
module takes about 20-30 s, most of it pip installing the client's dependencies.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from clients.sdk import LuminClient, bot, human

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "frog_bot.py"
#: What the wheel is built from: the packages pyproject.toml finds, as deploy/install.sh copies.
SOURCES = (
    "pyproject.toml",
    "setup.py",
    "README.md",
    "engine",
    "protocol",
    "server",
    "clients",
    "lumin",
)


@attrs.frozen
class Install:
    """A fresh client-only install: its ``python`` and ``lumin``, and ``home``, a folder
    outside the checkout holding a copy of the example bot."""

    python: Path
    lumin: Path
    home: Path


def _run(
    *args: object, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=_env() | (env or {}),
        timeout=300,
    )


def _env() -> dict[str, str]:
    """The environment without anything that would point Python at the checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LUMIN_TOKEN")}


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    base = tmp_path_factory.mktemp("client-only")
    source = base / "src"
    source.mkdir()
    ignored = shutil.ignore_patterns("__pycache__", "node_modules", "web")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=ignored)
        else:
            shutil.copy2(path, source / name)
    assert not (source / "clients" / "web").exists()
    # The browser client plays no part here (tests/packaging builds and plays the real one): a
    # stand-in build spares Node.
    client = base / "client"
    client.mkdir()
    (client / "index.html").write_text("<!doctype html><title>Lumin</title>")
    built = _run(
        sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
        "-w", base / "dist", source, env={"LUMIN_WEB_DIST": str(client)},
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (base / "dist").glob("lumin-*.whl")
    venv = base / "venv"
    made = _run(sys.executable, "-m", "venv", "--without-pip", venv)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = _run(sys.executable, "-m", "pip", "--python", python, "install", "-q", wheel)
    assert installed.returncode == 0, installed.stderr
    where = _run(python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
    site = Path(where.stdout.strip())
    assert site.is_relative_to(venv), site  # never anything of the checkout
    for package in ("engine", "server"):
        shutil.rmtree(site / package)
    home = base / "home"
    home.mkdir()
    shutil.copy2(EXAMPLE, home / EXAMPLE.name)
    return Install(python, venv / "bin" / "lumin", home)


def test_the_install_has_no_server_and_no_engine(install: Install) -> None:
    for module in ("engine", "server", "structlog", "prometheus_client", "uvloop", "asyncpg"):
        ran = _run(install.python, "-I", "-c", f"import {module}", cwd=install.home)
        assert ran.returncode == 1 and "ModuleNotFoundError" in ran.stderr, (module, ran.stderr)
    ran = _run(
        install.python,
        "-I",
        "-c",
        "import clients.sdk, clients.terminal.app, protocol, textual;"
        " from clients.sdk import LuminClient, Turn;"
        " print(clients.sdk.__file__)",
        cwd=install.home,
    )
    assert ran.returncode == 0, ran.stderr
    assert not ran.stdout.startswith(str(ROOT)), "the client came from the checkout"


def test_the_lumin_command_runs_and_the_server_commands_say_what_they_need(
    install: Install,
) -> None:
    listed = _run(install.lumin, "--help", cwd=install.home)
    assert listed.returncode == 0, listed.stderr
    assert "bot" in listed.stdout and "serve" in listed.stdout
    for command in ("bot", "play", "admin", "arena"):  # the arena's engine is gone: it says so
        ran = _run(install.lumin, command, "--help", cwd=install.home)
        assert ran.returncode == (2 if command == "arena" else 0), (command, ran.stderr)
    for command in ("serve", "verify", "backup"):
        ran = _run(install.lumin, command, "--port", "0", cwd=install.home)
        assert ran.returncode == 2
        (line,) = ran.stderr.splitlines()
        assert line.startswith(f"lumin {command}: this install has no "), line
        assert "lumin[server]" in line


async def test_a_bot_of_the_users_plays_a_whole_game_from_the_client_only_install(
    install: Install, connect, url: str
) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[bot("random"), human()])
    await ada.watch(room)
    process = await asyncio.create_subprocess_exec(
        str(install.lumin),
        *("bot", url, room, "--seat", "1", "--kind", "frog_bot:make_bot", "--seed", "3"),
        cwd=install.home,
        env=_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(60):
            while not (ada.room_info.get(room) and ada.room_info[room].seats[1].ready):
                await ada.changed(room)
        await ada.start(room)
        out, err = await asyncio.wait_for(process.communicate(), 120)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()
    outcome = json.loads(out)
    async with asyncio.timeout(20):
        while room not in ada.game_over:
            await ada.changed(room)
    assert outcome["ranks"] == list(ada.game_over[room].outcome.ranks)
    assert ada.room_info[room].seats[1].name == "Lumin bot"


async def test_lumins_own_bots_need_the_engine_and_say_so_before_taking_a_seat(
    install: Install, connect, url: str
) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
    process = await asyncio.create_subprocess_exec(
        str(install.lumin),
        *("bot", url, room, "--seat", "1", "--kind", "bot"),
        cwd=install.home,
        env=_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    (line,) = err.decode().splitlines()
    assert line.startswith("lumin bot: Flip Over Frog's bot 'bot' needs Lumin's rules engine"), line
    assert ada.room_info[room].seats[1].kind == "open"
