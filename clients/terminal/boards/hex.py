"""Neon Hex Strategy: the 37-hex map drawn from the view's axial coordinates, the factions,
the odds of a Risk expansion and the last dice (docs/rules/neon-hex.md).

Each hex shows its id and its owner's letter (``A`` for seat 0, ``B`` for seat 1..., ``.``
neutral), so ownership never rests on colour alone. The highlighted command marks its target
``*`` and a Risk's bonus hexes ``+``.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from clients.sdk.legal import Option
from clients.terminal.boards.base import Board, Context, Reply, outcome_text

__all__ = ["HexBoard", "seat_letter"]

STYLES = {
    "cyan": "cyan",
    "magenta": "magenta",
    "lime": "green",
    "amber": "yellow",
    "violet": "purple",
    "red": "red",
    "blue": "blue",
    "white": "white",
}


def seat_letter(seat: int) -> str:
    return "ABCDEFGH"[seat] if 0 <= seat < 8 else "?"


class HexBoard(Board):
    def __init__(self) -> None:
        super().__init__(game="neon_hex", keys_help="enter sends, e ends turn")

    def render(self, ctx: Context) -> Text:
        view = ctx.view
        if not isinstance(view, Mapping) or "board" not in view:
            return Text("(no view yet)")
        factions = {f["seat"]: f for f in view.get("factions", [])}
        target, bonus = None, set()
        if ctx.highlight is not None and ctx.highlight.type == "expand":
            target = ctx.highlight.command.get("target")
            chosen = ctx.highlight.command.get("bonus")
            bonus = set(chosen if chosen else ctx.highlight.info("bonus_hexes") or ())
        hexes = view["board"]["hexes"]
        radius = int(view["board"].get("radius", 3))
        owners = view.get("owners", [])
        rows: dict[int, list[tuple[int, int]]] = {}
        for hex_id, (q, r) in enumerate(hexes):
            rows.setdefault(r, []).append((q, hex_id))
        text = Text()
        for r in sorted(rows):
            line = Text()
            column = 0
            for q, hex_id in sorted(rows[r]):
                x = 2 * (2 * q + r) + 4 * radius
                line.append(" " * max(0, x - column))
                column = max(column, x)
                owner = owners[hex_id] if hex_id < len(owners) else None
                if hex_id == target:
                    mark, style = "*", "bold reverse"
                elif hex_id in bonus and owner is None:
                    mark, style = "+", "reverse"
                elif owner is None:
                    mark, style = ".", "dim"
                else:
                    colour = factions.get(owner, {}).get("colour", "")
                    mark, style = seat_letter(owner), f"bold {STYLES.get(colour, '')}"
                cell = f"{hex_id:>2}{mark}"
                line.append(cell, style=style)
                column += len(cell)
            text.append(line)
            text.append("\n")
        current = view.get("current")
        for seat, faction in sorted(factions.items()):
            arrow = ">" if seat == current else " "
            you = " (you)" if seat == view.get("you") else ""
            text.append(f"{arrow}{seat_letter(seat)} ", style="bold")
            text.append(f"{faction['name']}{you}", style=STYLES.get(faction.get("colour"), ""))
            text.append(
                f" {faction.get('colour')}: {faction['hexes']} hex,"
                f" {faction['energy']} energy, +{faction['income']}/turn\n"
            )
        win = view.get("win_hexes", 12)
        odds = view.get("risk_odds", [10, 36])
        turn = "YOUR TURN" if current is not None and current == view.get("you") else ""
        text.append(f"Turn {view.get('turn')}, {win} hexes win. {turn}\n", style="bold")
        text.append(
            f"Risk: 2d6, 9+ succeeds: {odds[0]}/{odds[1]} ({100 * odds[0] / odds[1]:.0f}%)\n"
        )
        roll = view.get("last_roll")
        if roll:
            dice = roll.get("dice", [])
            result = "success" if roll.get("success") else "failed"
            text.append(
                f"Last roll: {seat_letter(roll['seat'])} rolled {'+'.join(map(str, dice))}"
                f" = {roll.get('total')} on hex {roll.get('target')}: {result}\n"
            )
        if ctx.highlight is not None:
            text.append("> " + self.describe(ctx.highlight, ctx) + "\n", style="italic")
        text.append(outcome_text(view, ctx.names))
        return text

    def describe(self, choice: Option, ctx: Context) -> str:
        command = choice.command
        if choice.type == "end_turn":
            return "end turn"
        if choice.type != "expand":
            return super().describe(choice, ctx)
        cost = choice.info("cost")
        if command.get("kind") == "safe":
            return f"Safe claim of hex {command['target']} for {cost} energy"
        odds = choice.info("odds") or [10, 36]
        bonus = command.get("bonus") or choice.info("bonus_hexes") or []
        also = f" (and {' and '.join(map(str, bonus))})" if bonus else ""
        return (
            f"Risk on hex {command['target']}{also} for {cost} energy,"
            f" {100 * odds[0] / odds[1]:.0f}% to succeed"
        )

    def key(self, key: str, ctx: Context) -> Reply:
        if key == "e":
            if ctx.seat is None:
                return "You are watching."
            for choice in ctx.choices:
                if choice.type == "end_turn":
                    return choice.command
            return "You cannot end a turn now."
        return None
