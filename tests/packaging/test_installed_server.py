"""Lumin as a newcomer installs it: from a clean clone of this checkout, the sdist (which
builds the browser client with Node), then the wheel from that sdist with no Node on PATH; the
wheel's files and size checked; installed with the ``server`` extra into a fresh virtual
environment outside the checkout; ``lumin serve`` started with nothing but a data folder and a
port; and a whole game played in Chromium on the page it serves, at the address it printed.

The browser runs the clone's Playwright (``clients/web/scripts/served.spec.ts``), installed by
the clone's own ``npm ci`` during the sdist's build. pip's cache serves the dependencies (the
server's PyICU is compiled once per machine); the module takes about a minute and a half.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import attrs
import pytest

from clients.load import free_port

ROOT = Path(__file__).resolve().parents[2]
#: The top-level packages of the distribution (pyproject.toml), and the browser client's folder.
PACKAGES = ("engine", "protocol", "server", "clients", "lumin")
CLIENT = PurePosixPath("lumin/web")
#: The wheel was 574 KB when this test was written (the client: about 110 KB of it); one built
#: after `make run` once weighed 1.9 MB, with 5.8 MB of node_modules JSON inside.
MAX_WHEEL_BYTES = 1_500_000


def _env(**extra: str) -> dict[str, str]:
    """The environment without anything pointing at the checkout or setting the server."""
    kept = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("LUMIN_")}
    return kept | extra


def _run(*args: object, cwd: Path, env: dict[str, str] | None = None) -> str:
    ran = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env or _env(),
        timeout=400,
    )
    assert ran.returncode == 0, f"{args}:\n{ran.stdout[-3000:]}\n{ran.stderr[-3000:]}"
    return ran.stdout


@attrs.frozen
class Built:
    """The clean clone, its sdist and the wheel built from that sdist."""

    clone: Path
    sdist: Path
    wheel: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    base = tmp_path_factory.mktemp("installed")
    clone = base / "clone"
    _run("git", "clone", "--quiet", ROOT, clone, cwd=base)
    assert not (clone / "clients" / "web" / "node_modules").exists()
    # The sdist: the clone's client built with npm into it (PEP 517's hook, as `build` calls it).
    script = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    name = _run(sys.executable, "-c", script, base / "sdist", cwd=clone).strip().splitlines()[-1]
    sdist = base / "sdist" / name
    with tarfile.open(sdist) as archive:
        archive.extractall(base / "unpacked", filter="data")
    (unpacked,) = (base / "unpacked").iterdir()
    # The wheel from the sdist, with only Python on PATH: installing from the sdist needs no Node.
    bare = base / "bare-bin"
    bare.mkdir()
    (bare / "python").symlink_to(sys.executable)
    env = _env(PATH=str(bare))
    _run(
        sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
        "-w", base / "dist", unpacked, cwd=base, env=env,
    )  # fmt: skip
    (wheel,) = (base / "dist").glob("lumin-*.whl")
    return Built(clone, sdist, wheel)


def test_the_wheel_holds_the_packages_and_the_built_client_and_nothing_else(built: Built) -> None:
    assert built.wheel.stat().st_size < MAX_WHEEL_BYTES, built.wheel.stat().st_size
    with zipfile.ZipFile(built.wheel) as wheel:
        names = [PurePosixPath(n) for n in wheel.namelist()]
    top = {n.parts[0] for n in names}
    assert top == {*PACKAGES, "lumin-0.1.0.dist-info"}, top
    for name in names:
        assert not {"node_modules", "tests", "src", "web"} & set(name.parts[:-1]) or (
            name.is_relative_to(CLIENT)
        ), name
        if name.is_relative_to(CLIENT):
            assert name.suffix in (".html", ".js", ".css", ".svg", ".png", ".ico", ".woff2"), name
        elif name.parts[0] in PACKAGES:
            assert name.suffix in (".py", ".json", ".msgpack") or name.name == "py.typed", name
    client = [n.relative_to(CLIENT) for n in names if n.is_relative_to(CLIENT)]
    assert PurePosixPath("index.html") in client
    assert any(n.parts[0] == "assets" and n.suffix == ".js" for n in client), client
    assert not any(part.startswith("test") for n in names for part in n.parts), "no tests"


def _files(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return sorted(n for n in archive.namelist() if ".dist-info/" not in n)


def test_a_wheel_built_from_a_cluttered_tree_holds_the_same_files(built: Built) -> None:
    # The clone after its npm ci, a make run and earlier builds: node_modules, a stale dist,
    # a stale module in build/lib, files where the packaged client goes and beside the tests.
    clone = built.clone
    assert (clone / "clients" / "web" / "node_modules").is_dir()
    for junk in (
        "clients/web/dist/old.js",
        "lumin/web/old.html",
        "build/lib/lumin/old.py",
        "tests/old_test.py",
        "clients/web/tests/vectors/big.json",
        "data/lumin.sqlite3",
    ):
        (clone / junk).parent.mkdir(parents=True, exist_ok=True)
        (clone / junk).write_text("stale")  # fmt: skip
    dist = clone.parent / "cluttered"
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", dist, clone, cwd=clone.parent)  # fmt: skip
    (wheel,) = dist.glob("lumin-*.whl")
    assert _files(wheel) == _files(built.wheel)


def test_the_sdist_ships_the_built_client_and_no_client_sources(built: Built) -> None:
    with tarfile.open(built.sdist) as archive:
        names = [
            PurePosixPath(n).relative_to(PurePosixPath(n).parts[0]) for n in archive.getnames()
        ]
    assert PurePosixPath("lumin/web/index.html") in names
    assert not any(n.parts[:2] == ("clients", "web") for n in names)
    assert not any(n.parts and n.parts[0] == "tests" for n in names)
    assert not any("node_modules" in n.parts for n in names)


@attrs.frozen
class Serving:
    """An installed ``lumin serve`` and the line it printed."""

    line: str
    url: str


@pytest.fixture(scope="module")
def serving(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    base = tmp_path_factory.mktemp("venv")
    venv = base / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=base)
    python = venv / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "-q",
         f"{built.wheel}[server]", cwd=base)  # fmt: skip
    site = Path(_run(python, "-I", "-c", "import lumin; print(lumin.__file__)", cwd=base).strip())
    assert site.is_relative_to(venv), site  # never the checkout's
    home = base / "home"
    home.mkdir()
    port = free_port()
    log = home / "serve.log"
    with log.open("wb") as errors:
        process = subprocess.Popen(
            [venv / "bin" / "lumin", "serve", "--data", home / "data", "--port", str(port)],
            cwd=home,
            env=_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
    try:
        assert process.stdout is not None
        # The first line on standard output, printed once it listens (EOF if it exits).
        with selectors.DefaultSelector() as waiting:
            waiting.register(process.stdout, selectors.EVENT_READ)
            ready = waiting.select(timeout=60)
        assert ready, f"lumin serve printed nothing in 60 s:\n{log.read_text()}"
        line = process.stdout.readline().decode().rstrip("\n")
        yield Serving(line, f"http://127.0.0.1:{port}/")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_serve_says_where_to_point_a_browser(serving: Serving) -> None:
    assert serving.line == f"Lumin is serving: point a browser at {serving.url}"


def test_a_whole_game_in_chromium_on_the_page_it_serves(
    built: Built, serving: Serving, tmp_path: Path
) -> None:
    web = built.clone / "clients" / "web"
    env = _env(LUMIN_URL=serving.url.rstrip("/"), LUMIN_SERVED_OUTPUT=str(tmp_path))
    _run("npx", "--no-install", "playwright", "test", "--config", "scripts/served.config.ts",
         cwd=web, env=env)  # fmt: skip
