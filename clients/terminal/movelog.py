"""The move log in words: each entry of a view's ``log`` (the recent happenings the engine
noted, oldest first; docs/engine.md "The move log") as the sentence the browser says for it
(``clients/web/src/boards/movelog.ts``, word for word). The words come from the entries' data
only: nothing is guessed from diffs.

Places are numbered as the players count them (Flip Over Frog spaces and Flash 8 stacks from
1, Neon Flip slots as they are, 1-36; Neon Hex hexes by the ids the terminal's map shows).
Seat -1 is Neon Flip's PROTO-ZERO; a seat is named by :class:`Namer`, which says "You" for the
viewer's own seat, never in a replay.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Namer", "entries_of", "log_lines", "sentence", "since_last_turn"]

Entry = Mapping[str, Any]


@dataclass(frozen=True)
class Namer:
    """How the sentences name seats: ``you`` is the viewer's seat (``None`` in a replay or
    for a spectator: nobody is "You"), ``names`` the seats' names by index."""

    names: Sequence[str] = ()
    you: int | None = None

    def seat(self, seat: int) -> str:
        if self.you is not None and seat == self.you:
            return "You"
        if 0 <= seat < len(self.names) and self.names[seat].strip():
            return self.names[seat].strip()
        return f"Seat {seat + 1}"


def entries_of(view: Any) -> list[Entry]:
    """The log entries of a view (none from a server before the move log)."""
    log = view.get("log") if isinstance(view, Mapping) else None
    if not isinstance(log, list):
        return []
    return [entry for entry in log if isinstance(entry, Mapping) and "what" in entry]


def since_last_turn(entries: Sequence[Entry], seat: int | None) -> list[Entry]:
    """What happened since ``seat`` last acted: its newest entry and every one after it (all
    of them for a spectator, or a seat that has not acted yet)."""
    if seat is None:
        return list(entries)
    for index in range(len(entries) - 1, -1, -1):
        if entries[index].get("seat") == seat:
            return list(entries[index:])
    return list(entries)


def log_lines(game: str, entries: Sequence[Entry], namer: Namer) -> list[str]:
    """The entries in words, newest first, as the browser lists them."""
    return [sentence(game, entry, namer) for entry in reversed(entries)]


def _plural(n: float, word: str, many: str | None = None) -> str:
    return f"{_g(n)} {word if n == 1 else (many or word + 's')}"


def _num(value: Any) -> Any:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _ints(value: Any) -> list[int]:
    if not isinstance(value, list | tuple):
        return []
    return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]


def _seconds(value: Any) -> str:
    return f"{float(_num(value)):.2f} s"


def _g(value: Any) -> str:
    """A number as JavaScript's template strings print it (``3``, not ``3.0``)."""
    number = _num(value)
    return f"{number:g}" if isinstance(number, float) else str(number)


def _frog(entry: Entry, who: str) -> str:
    what = entry.get("what")
    if what == "frog":
        flipped = _ints(entry.get("flipped"))
        if flipped:
            places = ", ".join(str(s + 1) for s in flipped)
            turned = f", flipping {_plural(len(flipped), 'tile')} ({places})"
        else:
            turned = ", flipping nothing"
        frog = f"{entry.get('colour')} Frog {entry.get('tile')}"
        return f"{who} played {frog} on space {_num(entry.get('space')) + 1}{turned}."
    if what == "snake":
        return (
            f"{who} played Snake {entry.get('tile')} on space {_num(entry.get('space')) + 1}, "
            f"taking {entry.get('colour')} Frog {entry.get('frog')} off the board."
        )
    if what == "discard":
        return f"{who} discarded Snake {entry.get('tile')}: no Frog was face up."
    if what == "draw":
        tile = entry.get("tile")
        return f"{who} drew {tile}." if isinstance(tile, str) else f"{who} drew a tile."
    return ""


_HEX_ENDS = {
    "ended": "ended the turn",
    "no_expansion": "had no hex to expand into; the turn ended",
}


def _neon_hex(entry: Entry, who: str, hex_name: Callable[[int], str]) -> str:
    what = entry.get("what")

    def hx(value: Any) -> str:
        return hex_name(int(_num(value)))

    if what == "turn":
        return f"Turn {_g(entry.get('turn'))}: {who} to play, +{_g(entry.get('income'))} ⚡."
    if what == "safe":
        return f"{who} claimed {hx(entry.get('target'))} (Safe, {_g(entry.get('cost'))} ⚡)."
    if what == "risk":
        dice = _ints(entry.get("dice"))
        rolled = f"{who} rolled {' + '.join(map(str, dice))} = {sum(dice)}"
        target = hx(entry.get("target"))
        if entry.get("success"):
            claimed = _ints(entry.get("claimed"))
            hexes = ", ".join(hx(c) for c in claimed)
            return (
                f"{rolled}: breakthrough on {target}, "
                f"{_plural(len(claimed), 'hex', 'hexes')} claimed ({hexes}), "
                f"{_g(entry.get('refund'))} ⚡ back."
            )
        return f"{rolled}: the Risk on {target} failed, {_g(entry.get('cost'))} ⚡ spent."
    if what == "end_turn":
        return f"{who} {_HEX_ENDS.get(str(entry.get('reason')), 'ended the turn')}."
    return ""


def _flash8(entry: Entry, who: str, namer: Namer) -> str:
    what = entry.get("what")
    if what == "start":
        return "The race started."
    if what == "take":
        return (
            f"{who} took {entry.get('card')} from stack {_num(entry.get('stack')) + 1} for "
            f"{_plural(_num(entry.get('points')), 'point')} ({_seconds(entry.get('took'))}, "
            f"{_plural(_num(entry.get('slides')), 'slide')}; {_g(entry.get('optimal'))} would do)."
        )
    if what == "claim":
        return (
            f"{who} claimed the {entry.get('name')} line as {entry.get('shape')}, covering "
            f"{_plural(_num(entry.get('covered')), 'card')} "
            f"({_plural(_num(entry.get('slides')), 'slide')})."
        )
    if what == "miss":
        stack = entry.get("stack")
        if isinstance(stack, int) and not isinstance(stack, bool):
            return f"{who} called FLASH on stack {stack + 1}, which did not match: locked out."
        if isinstance(entry.get("line"), int):
            return f"{who}'s claim did not match: locked out."
        return f"{who} called FLASH with nothing matching: locked out."
    if what == "late":
        by = namer.seat(int(_num(entry.get("by"))))
        if _num(entry.get("behind")) >= 0:
            return (
                f"{who} called FLASH on {entry.get('card')} {_seconds(entry.get('behind'))} "
                f"after {by} took it."
            )
        return f"{who} called FLASH on {entry.get('card')}, but {by} took it."
    if what == "tie":
        seats = ", ".join(namer.seat(s) for s in _ints(entry.get("seats")))
        return f"A tie on {entry.get('card')} ({seats}): chance gave it to {who}."
    if what == "limit":
        return "Time is up: claims already made are judged."
    return ""


def _neon_flip(entry: Entry, who: str) -> str:
    what = entry.get("what")
    slots = _ints(entry.get("slots"))
    listed = ", ".join(map(str, slots))
    if what == "objective":
        objective = entry.get("objective")
        if isinstance(objective, str):
            return f"{who} kept the objective {objective}."
        return f"{who} kept an objective."
    if what == "turn":
        surcharge = _num(entry.get("surcharge"))
        drained = f" (drained: actions cost {_g(surcharge)} more)" if surcharge else ""
        income = _g(entry.get("income"))
        return f"Turn {_g(entry.get('turn'))}: {who} to play, +{income} ⚡{drained}."
    if what == "card":
        if entry.get("slot"):
            on = f" on slot {_g(entry.get('slot'))}"
        elif entry.get("line"):
            on = f" on {entry.get('line')} {_g(entry.get('index'))}"
        else:
            on = ""
        return f"{who} played {entry.get('name')}{on} ({_g(entry.get('cost'))} ⚡)."
    if what == "flip":
        return f"{who} flipped slot {_g(entry.get('slot'))} ({_g(entry.get('cost'))} ⚡)."
    if what == "buy":
        return f"{who} bought {entry.get('name')} from the market."
    if what == "lock":
        return f"{who} locked slot {_g(entry.get('slot'))}."
    if what == "cascade":
        return f"{who} cascaded through {_plural(len(slots), 'slot')} ({listed})."
    if what == "cascade_stop":
        return f"{who} stopped the cascade."
    if what == "end_turn":
        return f"{who} ended the turn."
    if what == "discard":
        return f"{who} discarded {entry.get('name')}."
    if what == "draw":
        if entry.get("owed"):
            return f"{who} could not draw: the pile is empty."
        name = entry.get("name")
        return f"{who} drew {name}." if isinstance(name, str) else f"{who} drew a card."
    if what == "reshuffle":
        cards = _plural(_num(entry.get("cards")), "card")
        return f"The discards were shuffled under the pile ({cards})."
    if what == "checkpoint":
        return f"Checkpoint {_g(entry.get('number'))}: Grid Dominance scored."
    if what == "ai_card":
        return f"PROTO-ZERO played a card: {_plural(len(slots), 'slot')} turned Pink ({listed})."
    if what == "ai_overcharge":
        return f"PROTO-ZERO overcharged: {_plural(len(slots), 'slot')} turned Pink."
    if what == "dominance":
        return "Grid Dominance was counted."
    if what == "clock":
        return "The Overdrive clock ran out: this is the last turn."
    return ""


def sentence(game: str, entry: Entry, namer: Namer, hex_name: Callable[[int], str] = str) -> str:
    """One entry of ``game``'s log in words ("Bot 2 played red Frog R7 on space 4, flipping 2
    tiles (5, 8)."); an entry of a kind this client does not know, in plain words."""
    seat = entry.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        who = ""
    else:
        who = "PROTO-ZERO" if seat < 0 else namer.seat(seat)
    what = str(entry.get("what", ""))
    if what == "end":
        return "The game is over."
    if game == "flip_over_frog":
        words = _frog(entry, who)
    elif game == "neon_hex":
        words = _neon_hex(entry, who, hex_name)
    elif game == "flash8":
        words = _flash8(entry, who, namer)
    elif game == "neon_flip":
        words = _neon_flip(entry, who)
    else:
        words = ""
    return words or f"{who or 'The table'}: {what.replace('_', ' ')}."
