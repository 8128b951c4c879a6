"""Lumin's one build step beyond pyproject.toml: the browser client goes into the distribution.

The wheel carries the built client (clients/web, Vite's output) as ``lumin/web/``, which
``lumin serve`` serves when ``--static`` is not given (:mod:`lumin.webclient`). Its files come,
in this order, from:

1. ``LUMIN_WEB_DIST``, a folder holding a build (its ``index.html`` and assets): the image's
   Node stage builds it (deploy/Dockerfile), or a test hands one over;
2. the source tree's own ``lumin/web/``, when the tree is Lumin's sdist (it has ``PKG-INFO``):
   the sdist ships the client built, so installing from it needs no Node;
3. a build made now from ``clients/web`` with npm (``npm ci`` first when its ``node_modules``
   is missing or older than its lock file; ``npm run build`` into a temporary folder).

Only the build's files are copied (never a dot-named file, nor anything of ``node_modules``
or ``src``), and ``build/lib`` starts empty, whatever else the tree holds. An editable install
(``pip install -e``, ``make setup``) builds nothing, and serves a checkout's
``clients/web/dist`` instead. Without any of the three, the build stops with a sentence
saying what it needs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "clients" / "web"
#: Where the client goes inside the distribution (the package ``lumin``).
PACKAGED = Path("lumin") / "web"


class ClientUnavailable(Exception):
    """The browser client can be neither found built nor built now."""


def _checked(folder: Path, where: str) -> Path:
    if not (folder / "index.html").is_file():
        raise ClientUnavailable(f"{where} ({folder}) holds no built browser client (index.html)")
    return folder


def _npm(*args: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ClientUnavailable(
            "Lumin's wheel carries the browser client, built from clients/web with Node 20 and"
            " npm, and npm is not on PATH: install Node 20, or build from Lumin's sdist (it"
            " ships the client built), or set LUMIN_WEB_DIST to a built client"
        )
    # The end-to-end tests' Playwright is a dev dependency: it never downloads a browser here.
    env = os.environ | {"PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}
    subprocess.run([npm, *args], cwd=WEB, check=True, env=env)


def _build_client(out: Path) -> Path:
    """A fresh build of clients/web into ``out``."""
    installed = WEB / "node_modules" / ".package-lock.json"
    lock = WEB / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        _npm("ci", "--no-audit", "--no-fund")
    _npm("run", "build", "--", "--outDir", str(out), "--emptyOutDir")
    return _checked(out, "npm run build's output")


def _client(scratch: Path) -> Path:
    """The built client to package (see the module's docstring for the order)."""
    given = os.environ.get("LUMIN_WEB_DIST")
    if given:
        return _checked(Path(given), "LUMIN_WEB_DIST")
    if (ROOT / "PKG-INFO").exists():  # an sdist, which ships the client built
        return _checked(ROOT / PACKAGED, "the sdist's lumin/web")
    if not (WEB / "package.json").is_file():
        raise ClientUnavailable(
            "this source tree has neither clients/web nor a built client: set LUMIN_WEB_DIST"
        )
    return _build_client(scratch / "web")


def _copy_client(client: Path, target: Path) -> list[str]:
    """Copy the build's files (not its dot-named ones) to ``target``; their new paths."""
    if target.exists():
        shutil.rmtree(target)
    copied = []
    for path in sorted(client.rglob("*")):
        relative = path.relative_to(client)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
        copied.append(str(destination))
    return copied


class BuildPy(build_py):
    """build_py, then the browser client into the build as ``lumin/web``."""

    def run(self) -> None:
        if not self.editable_mode:
            # An in-tree build reuses build/lib: a module or client file an earlier build left
            # there would ship too. Lumin builds no extensions, so build/lib is all build_py's.
            shutil.rmtree(self.build_lib, ignore_errors=True)
        super().run()
        if self.editable_mode:  # a checkout serves its own clients/web/dist
            return
        with tempfile.TemporaryDirectory(prefix="lumin-web-") as scratch:
            try:
                client = _client(Path(scratch))
            except ClientUnavailable as error:
                raise SystemExit(f"error: {error}") from None
            self._client_files = _copy_client(client, Path(self.build_lib) / PACKAGED)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), *getattr(self, "_client_files", [])]


class Sdist(sdist):
    """sdist, with the browser client built into the release tree as ``lumin/web``, and
    without the test modules setuptools adds by default (``tests/test*.py``): the sdist holds
    what installing needs."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        files = [name for name in files if Path(name).parts[0] != "tests"]
        super().make_release_tree(base_dir, files)
        with tempfile.TemporaryDirectory(prefix="lumin-web-") as scratch:
            try:
                client = _client(Path(scratch))
            except ClientUnavailable as error:
                raise SystemExit(f"error: {error}") from None
            _copy_client(client, Path(base_dir) / PACKAGED)


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
