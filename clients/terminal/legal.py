"""The commands a seat may send now, expanded from the server's ``legal`` entries.

An entry is ``type`` plus the command's fixed fields, optionally ``choose`` (one field and the
values it may take, one command per value) and information keys (``preview``, ``odds``...).
Which keys are command fields comes from ``GameInfo.commands`` (docs/protocol.md, "Legal
commands"); an information list aligned with the ``choose`` values (a ``preview``) is kept per
expanded command.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ALIGNED", "Choice", "expand"]

#: Information keys that hold one item per chosen value (other lists, like a Neon Hex Risk
#: entry's ``bonus_hexes``, describe the entry as a whole).
ALIGNED = frozenset({"preview", "cascade"})


@dataclass(frozen=True)
class Choice:
    """One concrete command, with the entry it came from and its own slice of the entry's
    aligned information (``preview[i]`` for the i-th chosen value)."""

    command: dict[str, Any]
    entry: Mapping[str, Any]
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def type(self) -> str:
        return str(self.command["type"])


def _fields(entry: Mapping[str, Any], commands: Mapping[str, Sequence[str]]) -> set[str]:
    """The keys of ``entry`` that belong to the command (the rest is information)."""
    known = commands.get(str(entry.get("type")))
    if known is None:
        return {key for key in entry if key != "choose"}
    return {"type", *known}


def expand(
    entries: Sequence[Mapping[str, Any]], commands: Mapping[str, Sequence[str]]
) -> list[Choice]:
    """Every concrete command the entries allow, in the server's order."""
    choices: list[Choice] = []
    for entry in entries:
        fields = _fields(entry, commands)
        base = {key: value for key, value in entry.items() if key in fields}
        info = {key: value for key, value in entry.items() if key not in fields and key != "choose"}
        choose = entry.get("choose") or {}
        if not choose:
            choices.append(Choice(base, entry, info))
            continue
        (name, values), *_ = choose.items()
        for index, value in enumerate(values):
            per_value = {
                key: (item[index] if key in ALIGNED and _aligned(item, values) else item)
                for key, item in info.items()
            }
            choices.append(Choice({**base, name: value}, entry, per_value))
    return choices


def _aligned(item: Any, values: Sequence[Any]) -> bool:
    """Whether an information value is a list with one element per chosen value."""
    return isinstance(item, list | tuple) and len(item) == len(values) and len(values) > 0
