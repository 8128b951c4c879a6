"""``deploy/lumin.service`` read the way systemd reads the parts the tests use: sections of
``Key=value`` lines (comments and blank lines skipped), and ``Environment=`` words unquoted."""

from __future__ import annotations

import shlex
from pathlib import Path

__all__ = ["UNIT", "directives", "environment", "exec_start"]

UNIT = Path(__file__).resolve().parents[2] / "deploy" / "lumin.service"


def directives(text: str, section: str = "Service") -> list[tuple[str, str]]:
    """Every ``Key=value`` of ``[section]``, in order (a key may repeat)."""
    found: list[tuple[str, str]] = []
    current = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = line.strip("[]")
            continue
        if current == section:
            key, _, value = line.partition("=")
            found.append((key.strip(), value.strip()))
    return found


def environment(text: str) -> dict[str, str]:
    """The variables the unit's ``Environment=`` lines set (later lines win)."""
    variables: dict[str, str] = {}
    for key, value in directives(text):
        if key == "Environment":
            for word in shlex.split(value):
                name, _, setting = word.partition("=")
                variables[name] = setting
    return variables


def exec_start(text: str) -> list[str]:
    """The unit's ``ExecStart=`` command line, split into words."""
    (command,) = [value for key, value in directives(text) if key == "ExecStart"]
    return shlex.split(command)
