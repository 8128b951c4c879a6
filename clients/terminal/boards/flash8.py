"""Flash 8, race and solo: tablets, the stack tops turned to your side, the solo grid, the
clock and lockouts, live (docs/rules/flash8.md).

Keys (the board takes them): arrows slide an electron that way into a free space; a digit 1-9
names the electron on that cell (reading order) and slides it; ``f`` or space calls FLASH;
``h`` asks for a hint where the room allows it; in solo ``l`` claims a line (then its shape).
Cells show their colour's letter (``B`` blue, ``Y`` yellow, ``R`` red, ``V`` violet, ``G``
green, ``.`` free), so colour is never the only signal. Card patterns come in the seat's own
frame from the server, so they are drawn as they must appear on your tablet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text

from clients.sdk.legal import Option
from clients.terminal.boards.base import Board, Context, Prompt, Reply, outcome_text

__all__ = ["Flash8Board", "matches"]

STYLES = {"B": "blue", "Y": "yellow", "R": "red", "V": "magenta", "G": "green"}
SHAPES = {"circle": "o", "cross": "+", "star": "*", "square": "#"}
#: The electrons' colours by letter, in words.
COLOURS = {"B": "blue", "Y": "yellow", "R": "red", "V": "violet", "G": "green"}
ARROWS = {"left": -1, "right": 1, "up": -3, "down": 3}


def matches(tablet: str, pattern: str) -> bool:
    """Whether a tablet shows a card's pattern (``-`` holds anything): the FLASH cue."""
    return len(tablet) == len(pattern) and all(
        p == "-" or p == t for t, p in zip(tablet, pattern, strict=True)
    )


def _cells(text: Text, cells: str, row: int, numbered: bool = False) -> None:
    for column in range(3):
        index = row * 3 + column
        cell = cells[index] if index < len(cells) else " "
        if numbered:
            text.append(f"{index + 1}:", style="dim")
        style = "bold " + STYLES[cell] if cell in STYLES else "dim"
        text.append(cell, style=style)
        text.append(" ")


class Flash8Board(Board):
    def __init__(self) -> None:
        super().__init__(
            game="flash8",
            takes_keys=True,
            tick=0.2,
            keys_help="arrows 1-9 f h l",
        )

    # -- drawing --------------------------------------------------------------------------------

    def moving(self, view: Any) -> bool:
        return isinstance(view, Mapping) and view.get("phase") in ("countdown", "running")

    def render(self, ctx: Context) -> Text:
        view = ctx.view
        if not isinstance(view, Mapping) or "seats" not in view:
            return Text("(no view yet)")
        text = Text()
        text.append(self._clock(view, ctx) + "\n", style="bold")
        seats = view.get("seats", [])
        mine = next((s for s in seats if s.get("seat") == ctx.seat), None)
        if view.get("mode") == "solo":
            self._solo(text, view, mine, ctx)
        else:
            self._race(text, view, mine, ctx)
        text.append(outcome_text(view, ctx.names))
        return text

    def _clock(self, view: Mapping[str, Any], ctx: Context) -> str:
        phase = view.get("phase")
        now = ctx.now
        if phase == "waiting":
            return "Waiting for the countdown"
        if phase == "countdown":
            return f"Starts in {max(0.0, (view.get('starts_at') or now) - now):.1f} s"
        if phase == "over":
            return "Over"
        started = view.get("started_at") or now
        ends = view.get("ends_at")
        left = f", {max(0.0, ends - now):.0f} s left" if ends else ""
        return f"RUNNING {max(0.0, now - started):.0f} s{left}"

    def _lock(self, seat: Mapping[str, Any], now: float) -> str:
        until = seat.get("locked_until")
        if until is not None and until > now:
            return f"LOCKED OUT {until - now:.1f} s"
        return ""

    def _race(
        self, text: Text, view: Mapping[str, Any], mine: Mapping[str, Any] | None, ctx: Context
    ) -> None:
        stacks = view.get("stacks", [])
        side = (view.get("frame") or {}).get("side", "south")
        tablet = mine.get("tablet", "") if mine else ""
        title = "Your tablet" if mine else "Cards as printed"
        text.append(f"{title:<18}", style="bold")
        for stack in stacks:
            top = stack.get("top")
            points = f"{top['points']}pt" if top else "empty"
            text.append(f"S{stack['stack'] + 1} {stack['size']:>2} {points:<5} ")
        text.append("\n")
        for row in range(3):
            if mine:
                _cells(text, tablet, row, numbered=True)
                text.append("  ")
            else:
                text.append(" " * 18)
            for stack in stacks:
                top = stack.get("top")
                pattern = top["pattern"] if top else "         "
                _cells(text, pattern, row)
                text.append("      ")
            text.append("\n")
        if mine:
            cue = [
                f"S{s['stack'] + 1}"
                for s in stacks
                if s.get("top") and matches(tablet, s["top"]["pattern"])
            ]
            text.append(f"cards seen from your side ({side}). ", style="dim")
            if cue:
                text.append(f"MATCH {', '.join(cue)}: press f!", style="bold reverse")
            text.append("\n")
            lock = self._lock(mine, ctx.now)
            if lock:
                text.append(lock + "\n", style="bold reverse")
            hint = mine.get("hint")
            if hint:
                text.append(f"Hint: {_hint(hint, solo=False)}\n", style="italic")
        for seat in view.get("seats", []):
            me = "*" if mine is not None and seat["seat"] == mine["seat"] else " "
            name = ctx.names[seat["seat"]] if seat["seat"] < len(ctx.names) else "?"
            text.append(
                f"{me}{name[:9]:<9} {seat['side'][:1].upper()} {seat['tablet']}"
                f" {seat.get('points', 0)}pt {len(seat.get('cards', []))}c"
                f" {seat.get('slides', 0)}sl {seat.get('misses', 0)}miss"
            )
            until = seat.get("locked_until")
            locked = until is not None and until > ctx.now
            text.append(f" LOCK {until - ctx.now:.1f}s\n" if locked else "\n", style="bold")

    def _solo(
        self, text: Text, view: Mapping[str, Any], mine: Mapping[str, Any] | None, ctx: Context
    ) -> None:
        grid = view.get("grid", [])
        tablet = (
            mine.get("tablet", "") if mine else (view.get("seats") or [{}])[0].get("tablet", "")
        )
        text.append("Grid: each card's colour, shape and depth\n", style="bold")
        for row in range(3):
            for column in range(3):
                cell = grid[row * 3 + column] if row * 3 + column < len(grid) else {}
                colour = str(cell.get("colour", " "))
                word = COLOURS.get(colour, colour)
                text.append(f"{word:<6}", style="bold " + STYLES.get(colour, ""))
                shape = str(cell.get("shape", ""))
                text.append(f" {shape:<6} {cell.get('depth', 0)} ")
            text.append("\n")
        token = view.get("token")
        lines = list(view.get("lines", []))
        for n, line in enumerate(lines):
            ok = matches(tablet, _line_pattern(line))
            mark = "TOKEN" if line["line"] == token else ("READY" if ok else "")
            possible = "" if line.get("possible", True) else " (impossible)"
            said = f" L{line['line'] + 1} {line['name']:<13} {line['colours']} {mark}{possible}"
            text.append(f"{said:<37}")
            if n < 3:  # your tablet beside the first three lines
                _cells(text, tablet, n, numbered=True)
            elif n == 3:
                text.append("your tablet", style="dim")
            text.append("\n")
        reserve = view.get("reserve") or {}
        top = reserve.get("top") or {}
        text.append(
            f"Reserve {reserve.get('size', 0)},"
            f" top {top.get('colour', '-')} {top.get('shape', '-')};"
            f" score {view.get('score')} {view.get('rank')}\n"
        )
        if mine:
            lock = self._lock(mine, ctx.now)
            if lock:
                text.append(lock + "\n", style="bold reverse")
            hint = mine.get("hint")
            if hint:
                text.append(f"Hint: {_hint(hint, solo=True)}\n", style="italic")

    def describe(self, choice: Option, ctx: Context) -> str:
        command = choice.command
        if choice.type == "slide":
            return f"slide cell {command['src'] + 1} to {command['dst'] + 1}"
        if choice.type == "flash":
            stack = command.get("stack")
            return "call FLASH" if stack is None else f"call FLASH on stack S{stack + 1}"
        if choice.type == "claim_line":
            view = ctx.view if isinstance(ctx.view, Mapping) else {}
            names = {line["line"]: line["name"] for line in view.get("lines", [])}
            line = command["line"]
            named = f" {names[line]}" if line in names else ""
            return f"claim L{line + 1}{named} as {command.get('shape')}"
        if choice.type == "hint":
            return "ask for a hint"
        return super().describe(choice, ctx)

    # -- keys -----------------------------------------------------------------------------------

    def key(self, key: str, ctx: Context) -> Reply:
        slides = [c.command for c in ctx.choices if c.type == "slide"]
        if key in ARROWS:
            step = ARROWS[key]
            for slide in slides:
                src, dst = slide["src"], slide["dst"]
                if dst - src == step and (abs(step) == 3 or src // 3 == dst // 3):
                    return slide
            return self._why(ctx, f"No electron can slide {key}.")
        if len(key) == 1 and key in "123456789":
            cell = int(key) - 1
            mine = [s for s in slides if s["src"] == cell]
            if len(mine) == 1:
                return mine[0]
            if mine:
                return Prompt(
                    f"Slide cell {key} to which free space?",
                    [(f"cell {s['dst'] + 1}", s) for s in mine],
                    lambda chosen: chosen,
                )
            return self._why(ctx, f"The electron on cell {key} cannot slide.")
        if key in ("f", "space"):
            for choice in ctx.choices:
                if choice.type == "flash" and "stack" not in choice.command:
                    return choice.command
            return self._why(ctx, "FLASH is not possible now.")
        if key == "h":
            if any(c.type == "hint" for c in ctx.choices):
                return {"type": "hint"}
            return self._why(ctx, "Hints are off in this room.")
        if key == "l":
            return self._claim(ctx)
        return None

    def _claim(self, ctx: Context) -> Reply:
        claims = [c.command for c in ctx.choices if c.type == "claim_line"]
        if not claims:
            return self._why(ctx, "No line can be claimed now.")
        view = ctx.view if isinstance(ctx.view, Mapping) else {}
        names = {line["line"]: line["name"] for line in view.get("lines", [])}
        lines = sorted({c["line"] for c in claims})

        def shapes(line: int) -> Reply:
            options = [(f"{c['shape']}", c) for c in claims if c["line"] == line]
            return Prompt(f"Claim {names.get(line, line)}: which shape?", options, lambda c: c)

        return Prompt(
            "Claim which line?",
            [(f"L{line + 1} {names.get(line, '')}".rstrip(), line) for line in lines],
            shapes,
        )

    def _why(self, ctx: Context, text: str) -> str:
        view = ctx.view if isinstance(ctx.view, Mapping) else {}
        if ctx.seat is None:
            return "You are watching."
        if view.get("phase") in ("waiting", "countdown"):
            return "Not started yet."
        if view.get("phase") == "over":
            return "The game is over."
        seats: list[Mapping[str, Any]] = list(view.get("seats", []))
        seat: Mapping[str, Any] = next((s for s in seats if s.get("seat") == ctx.seat), {})
        if self._lock(seat, ctx.now):
            return "Locked out: wait for the lockout to end."
        return text


def _line_pattern(line: Mapping[str, Any]) -> str:
    cells: Sequence[int] = line.get("cells", [])
    colours = str(line.get("colours", ""))
    pattern = ["-"] * 9
    for cell, colour in zip(cells, colours, strict=False):
        pattern[cell] = colour
    return "".join(pattern)


def _hint(hint: Mapping[str, Any], solo: bool) -> str:
    """A hint in words, naming its target as the board labels it: a solo game's line
    (``L2``), a race's stack (``S1``)."""
    target = hint.get("target")
    if isinstance(target, int):
        named = f"line L{target + 1}" if solo else f"stack S{target + 1}"
    else:
        named = "the target"
    slides = hint.get("slides")
    if slides == 0:
        return f"{named} matches now: " + ("claim it (l)" if solo else "press f")
    src, dst = hint.get("src"), hint.get("dst")
    step = f": slide cell {src + 1} to {dst + 1}" if src is not None and dst is not None else ""
    return f"{named}, {slides} slides away{step}"
