"""Neon Flip, Classic, Overdrive and solo against PROTO-ZERO: the 6 x 6 grid, players, hand,
market, previews and cascades (docs/rules/neon-flip.md).

Each tile shows its colour's letter (``C`` cyan, ``P`` pink, ``G`` green, ``Y`` yellow) and
``#`` when locked; the highlighted command marks the tiles it would change ``*``. When several
tiles change at once (PROTO-ZERO's card, a sweep), the board turns them one at a time, a
fraction of a second apart, marked ``!`` while they land, so a player sees what changed; a
player's own cascade goes one flip per command (the pending cascade lists the choices).
Keys: ``e`` ends the turn, ``x`` stops a cascade; everything else from the command list.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text

from clients.sdk.legal import Option
from clients.terminal.boards.base import Board, Context, Reply, outcome_text

__all__ = ["NeonFlipBoard"]

LETTERS = {"cyan": "C", "pink": "P", "green": "G", "yellow": "Y"}
STYLES = {"cyan": "cyan", "pink": "magenta", "green": "green", "yellow": "yellow"}
#: Seconds between two tiles turning when several changed at once.
FLIP_STEP = 0.15


class NeonFlipBoard(Board):
    def __init__(self) -> None:
        super().__init__(
            game="neon_flip",
            tick=FLIP_STEP,
            keys_help="e ends turn, x stops",
        )
        self.shown: list[str] | None = None
        self.target: list[str] | None = None
        self.last_flip = 0.0

    def moving(self, view: Any) -> bool:
        return self.shown != self.target

    def _animate(self, board: Sequence[str], live: bool) -> tuple[list[str], set[int]]:
        """The board to draw now and the slots (0-based) still to turn."""
        target = list(board)
        if not live or self.shown is None or len(self.shown) != len(target):
            self.shown, self.target = list(target), target
            return target, set()
        self.target = target
        pending = [i for i, (a, b) in enumerate(zip(self.shown, target, strict=True)) if a != b]
        now = time.monotonic()
        if pending and now - self.last_flip >= FLIP_STEP:
            self.shown[pending[0]] = target[pending[0]]
            self.last_flip = now
            pending = pending[1:]
        return list(self.shown), set(pending)

    def render(self, ctx: Context) -> Text:
        view = ctx.view
        if not isinstance(view, Mapping) or "board" not in view:
            return Text("(no view yet)")
        board, turning = self._animate(view["board"], ctx.live)
        preview: set[int] = set()
        if ctx.highlight is not None:
            changed = ctx.highlight.info("preview")
            if isinstance(changed, list):
                preview = set(changed)
            slot = ctx.highlight.command.get("slot")
            if isinstance(slot, int) and not preview:
                preview = {slot}
        locks = {lock["slot"]: lock.get("seat") for lock in view.get("locks", [])}
        pending = view.get("pending_cascade") or {}
        choices = set(pending.get("choices") or ())
        text = Text("    1   2   3   4   5   6\n", style="dim")
        for row in range(6):
            text.append(f" {row + 1} ", style="dim")
            for column in range(6):
                slot = row * 6 + column + 1
                colour = board[slot - 1]
                if slot - 1 in turning:
                    mark = "!"
                elif slot in preview:
                    mark = "*"
                elif slot in choices:
                    mark = "?"
                else:
                    mark = " "
                style = f"bold {STYLES.get(colour, '')}"
                if slot in preview:
                    style += " reverse"
                text.append(mark)
                text.append(LETTERS.get(colour, "-"), style=style)
                text.append("#" if slot in locks else " ")
                text.append(" ")
            text.append("\n")
        # A finished game's outcome comes right under the grid, where an 80 x 24 screen
        # still shows it above the hand, the market and the move log.
        text.append(outcome_text(view, ctx.names))
        self._status(text, view, ctx, bool(turning))
        return text

    def _status(self, text: Text, view: Mapping[str, Any], ctx: Context, turning: bool) -> None:
        turn = view.get("turn")
        for player in view.get("players", []):
            seat = player["seat"]
            arrow = ">" if seat == turn else " "
            name = ctx.names[seat] if seat < len(ctx.names) else f"Seat {seat + 1}"
            text.append(f"{arrow}{name[:10]:<10} ", style="bold" if seat == turn else "")
            text.append(f"{player['colour']:<6}", style=STYLES.get(player["colour"], ""))
            text.append(
                f" {player['energy']}en {player['vp']}vp {player['tiles']}t"
                f" hand {player['hand']} chain {player['longest_chain']}\n"
            )
        phase = view.get("phase")
        mine = turn is not None and turn == ctx.seat
        text.append(
            f"{phase}, turn {view.get('turns')}, checkpoints {view.get('checkpoints')},"
            f" draw {view.get('draw_pile')}",
            style="bold" if mine else "",
        )
        if view.get("threshold"):
            text.append(f", hold {view['threshold']} to end it")
        clock = view.get("clock")
        if isinstance(clock, Mapping):
            deadline = clock.get("deadline")
            if clock.get("expired"):
                text.append(", clock out: last turn")
            elif deadline is not None and ctx.live:
                text.append(f", clock {max(0.0, deadline - ctx.now) / 60:.1f} min")
        text.append(" YOUR TURN\n" if mine else "\n", style="bold")
        pending = view.get("pending_cascade")
        if pending:
            text.append(
                f"CASCADE {pending.get('made')}/{pending.get('limit')}: flip one of"
                f" {', '.join(map(str, pending.get('choices') or []))} (?) or x stops\n",
                style="bold reverse",
            )
        you = view.get("you") or {}
        hand = you.get("hand")
        if hand is not None:
            text.append("Hand: " + ", ".join(f"{c['name']}({c['cost']})" for c in hand) + "\n")
        market = view.get("market")
        if market:
            text.append("Market: " + ", ".join(f"{c['name']}" for c in market if c) + "\n")
        proto = view.get("proto_zero")
        if proto:
            played = proto.get("played") or []
            last = played[-1] if played else None
            what = f", last {last['pattern']} {last['target']}" if last else ""
            flips = " (turning)" if turning else ""
            text.append(
                f"PROTO-ZERO ({proto.get('level')}): {proto.get('energy')}en,"
                f" {proto.get('cards_left')} cards left{what}{flips}\n"
            )

    def describe(self, choice: Option, ctx: Context) -> str:
        command = choice.command
        view = ctx.view if isinstance(ctx.view, Mapping) else {}
        you = view.get("you") or {}
        cards = {
            c["id"]: c["name"] for c in [*(you.get("hand") or []), *(view.get("market") or [])] if c
        }
        cost = choice.info("cost")
        price = f" for {cost} energy" if cost is not None else ""
        kind = choice.type
        if kind == "play_card":
            card = cards.get(command["card"], command["card"])
            return f"play {card}{_aim(command, ctx.names)}{price}"
        if kind == "buy_card":
            return f"buy {cards.get(command['card'], command['card'])}{price}"
        if kind == "discard":
            return f"discard {cards.get(command['card'], command['card'])}"
        if kind == "choose_objective":
            offers = {o["id"]: o["name"] for o in you.get("offers") or []}
            return f"keep objective {offers.get(command['objective'], command['objective'])}"
        if kind == "manual_flip":
            return f"flip slot {command.get('slot')}{price}"
        if kind == "lock":
            return f"lock slot {command.get('slot')}{price}"
        if kind == "cascade":
            return f"cascade: flip slot {command.get('slot')}{price}"
        return kind.replace("_", " ")

    def key(self, key: str, ctx: Context) -> Reply:
        wanted = {"e": "end_turn", "x": "stop_cascade"}.get(key)
        if wanted is None:
            return None
        if ctx.seat is None:
            return "You are watching."
        for choice in ctx.choices:
            if choice.type == wanted:
                return choice.command
        return f"Cannot {wanted.replace('_', ' ')} now."


def _aim(command: Mapping[str, Any], names: Sequence[str]) -> str:
    """Where a card is played, in words (docs/rules/neon-flip.md's targets): ``on slot 14``,
    ``on slot 3 and slot 9`` (a swap), ``on row 3, one step right``, ``on PROTO-ZERO``."""
    parts = []
    if command.get("slot"):
        other = f" and slot {command['other']}" if command.get("other") else ""
        parts.append(f"on slot {command['slot']}{other}")
    if command.get("line"):
        parts.append(f"on {command['line']} {command.get('index', '')}".rstrip())
        step = command.get("step")
        if step:
            forward = "right" if command["line"] == "row" else "down"
            backward = "left" if command["line"] == "row" else "up"
            parts.append(f"one step {forward if step > 0 else backward}")
    target = command.get("target")
    if isinstance(target, int) and "target" in command:
        if target < 0:
            parts.append("on PROTO-ZERO")
        else:
            who = names[target] if target < len(names) else f"Seat {target + 1}"
            parts.append(f"on {who}")
    if command.get("colour"):
        parts.append(f"turning {command['colour']}")
    return (" " + ", ".join(parts)) if parts else ""
