"""``lumin play`` knows the games only from the server: clients/terminal imports nothing of
``engine/`` or ``server/`` (run in a fresh interpreter where both cannot be imported)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_terminal_client_imports_neither_engine_nor_server() -> None:
    modules = sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in (ROOT / "clients" / "terminal").rglob("*.py")
    )
    assert "clients.terminal.boards.frog" in modules
    program = (
        "import importlib, sys\n"
        "sys.modules['engine'] = None\n"  # importing engine (or server) now raises ImportError
        "sys.modules['server'] = None\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('engine', 'server')"
        " and sys.modules[m] is not None))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
