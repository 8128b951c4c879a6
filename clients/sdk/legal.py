"""A seat's legal commands as the server sends them, expanded into concrete commands.

A ``legal`` entry (docs/protocol.md, "Legal commands") is a map with the command's ``type`` and
its fixed fields, optionally ``choose: {field: [value, ...]}`` (one command per value), and any
number of information keys (``preview``, ``odds``, ``cost``...) that are not command fields.
Which keys are fields is what the server says: ``GameInfo.commands`` (``list_games``) maps each
command type to its field names. Without that map, the keys the game rules documents name as
information (:data:`INFO_KEYS`, the browser client's list) are left out instead.

Nothing here needs the rules engine: a client expands ``legal`` exactly as the browser does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

__all__ = ["ALIGNED_KEYS", "INFO_KEYS", "Option", "command_of", "expand"]

#: Keys of legal entries that inform the client and are not command fields (docs/rules/*.md).
INFO_KEYS: frozenset[str] = frozenset(
    {
        "choose",
        "preview",  # Flip Over Frog, Neon Flip: what a choice would flip or change
        "odds",  # Neon Hex: a Risk expansion's odds
        "cost",  # Neon Hex, Neon Flip: the energy a command costs
        "refund",  # Neon Hex: a failed Risk's refund
        "bonus_hexes",  # Neon Hex: the hexes a Risk bonus may claim
        "cascade",  # Neon Flip: whether a play may cascade
    }
)


#: The information keys that hold one item per value of an entry's ``choose`` list (a Flip Over
#: Frog or Neon Flip ``preview``, a Neon Flip ``cascade``). Every other key describes the entry
#: as a whole, even a list that happens to be as long as the choices (a Neon Hex Risk's
#: ``bonus_hexes``: three candidates make three pairs to choose from).
ALIGNED_KEYS: frozenset[str] = frozenset({"preview", "cascade"})


@attrs.frozen
class Option:
    """One concrete command a seat may send, with the ``entry`` of ``legal`` it came from.

    ``command`` is the map :meth:`~clients.sdk.LuminClient.act` sends. With ``choose``,
    ``field`` is the chosen field and ``choice`` the index of its value in the entry's list;
    information keys aligned with that list (:data:`ALIGNED_KEYS`, a Flip Over Frog
    ``preview``) and the others alike are read with :meth:`info`.
    """

    command: Mapping[str, Any]
    entry: Mapping[str, Any]
    field: str | None = None
    choice: int | None = None

    @property
    def type(self) -> str:
        """The command's type."""
        return str(self.command["type"])

    def info(self, key: str, default: Any = None) -> Any:
        """The entry's information ``key`` for this option: for a key of :data:`ALIGNED_KEYS`
        in an entry that chooses, the item at :attr:`choice` (when the value is a list as long
        as the choices), else the value as is."""
        value = self.entry.get(key, default)
        if (
            key in ALIGNED_KEYS
            and self.choice is not None
            and self.field is not None
            and isinstance(value, list | tuple)
        ):
            choices = self.entry["choose"][self.field]
            if len(value) == len(choices):
                return value[self.choice]
        return value


def command_of(
    entry: Mapping[str, Any], commands: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """The fixed part of ``entry`` as a command: ``type`` and the command's fields, which
    ``commands`` names per type (``GameInfo.commands``); without it, every key but
    :data:`INFO_KEYS`."""
    kind = entry["type"]
    if commands is not None and kind in commands:
        names = set(commands[kind])
        return {"type": kind} | {k: v for k, v in entry.items() if k in names}
    return {k: v for k, v in entry.items() if k not in INFO_KEYS}


def expand(
    entries: Iterable[Mapping[str, Any]], commands: Mapping[str, Sequence[str]] | None = None
) -> list[Option]:
    """Every concrete command ``entries`` allow, in order (see the module docstring)."""
    out: list[Option] = []
    for entry in entries:
        fixed = command_of(entry, commands)
        choose = entry.get("choose") or {}
        if not choose:
            out.append(Option(fixed, entry))
            continue
        for field, values in choose.items():
            for index, value in enumerate(values):
                out.append(Option(fixed | {field: value}, entry, field, index))
    return out
