"""Flip Over Frog: the 4 x 4 board, the hand, the face-up counts (docs/rules/flip-over-frog.md).

Each space shows its number, its top tile in words (``R3+`` a red Frog with orthogonal arrows,
``R5x`` diagonal, ``S1`` a Snake, ``##`` face down, ``..`` empty) and its height, so colour is
never the only signal. The highlighted play marks its space ``>`` and the spaces it would flip
``*`` (the entry's ``preview``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from clients.sdk.legal import Option
from clients.terminal.boards.base import Board, Context, outcome_text

__all__ = ["FrogBoard", "tile_label"]

STYLES = {"red": "red", "blue": "blue", "green": "green", "yellow": "yellow"}


def tile_label(face: Mapping[str, Any] | None) -> str:
    """A tile face in at most four characters."""
    if face is None:
        return ".."
    if face.get("kind") == "back":
        return "##"
    label = str(face.get("id", "?"))
    if face.get("kind") == "frog":
        label += "+" if face.get("arrows") == "orthogonal" else "x"
    return label


def _style(face: Mapping[str, Any] | None) -> str:
    if face is None or face.get("kind") != "frog":
        return "bold" if face is not None and face.get("kind") == "snake" else ""
    return STYLES.get(str(face.get("colour")), "")


class FrogBoard(Board):
    def __init__(self) -> None:
        super().__init__(game="flip_over_frog")

    def render(self, ctx: Context) -> Text:
        view = ctx.view
        text = Text()
        if not isinstance(view, Mapping) or "board" not in view:
            return Text("(no view yet)")
        target, flips = None, set()
        if ctx.highlight is not None and ctx.highlight.type == "play":
            target = ctx.highlight.command.get("space")
            flips = set(ctx.highlight.info("preview") or ())
        board = view["board"]
        for row in range(4):
            for column in range(4):
                space = row * 4 + column
                cell = board[space]
                mark = ">" if space == target else "*" if space in flips else " "
                text.append(f"{mark}{space + 1:>2} ")
                top = cell.get("top")
                text.append(f"{tile_label(top):<4}", style=_style(top))
                text.append(f"h{cell.get('height', 0)} ", style="dim")
            text.append("\n")
        text.append("\n")
        if view.get("colour"):
            text.append("You are ")
            text.append(str(view["colour"]).upper(), style=f"bold {STYLES.get(view['colour'], '')}")
            text.append(".  ")
        turn = view.get("turn")
        if turn is not None:
            who = "YOUR TURN" if turn == ctx.seat else f"{_name(ctx, turn)} to play"
            text.append(who + "\n", style="bold")
        else:
            text.append("\n")
        counts = view.get("frogs_face_up", {})
        text.append("Face up: " + ", ".join(f"{c} {n}" for c, n in counts.items()) + "\n")
        text.append(f"Stack {view.get('stack_size', 0)}, discards {len(view.get('discards', []))}")
        text.append(f", plays {view.get('plays', 0)}\n")
        players = []
        for player in view.get("players", []):
            colour = f" ({player['colour']})" if player.get("colour") else ""
            players.append(f"{_name(ctx, player['seat'])}{colour}: {player['hand_size']} tiles")
        text.append("; ".join(players) + "\n")
        hand = view.get("hand")
        if hand is not None:
            text.append("Hand: ")
            for face in hand:
                text.append(tile_label(face), style=_style(face))
                text.append(f" {_words(face)}; ")
            text.append("\n")
        text.append(outcome_text(view, ctx.names))
        return text

    def describe(self, choice: Option, ctx: Context) -> str:
        hand = ctx.view.get("hand") or [] if isinstance(ctx.view, Mapping) else []
        face = next((t for t in hand if t.get("id") == choice.command.get("tile")), None)
        short = tile_label(face) if face else str(choice.command.get("tile"))
        if choice.type == "discard":
            return f"discard a Snake ({short})"
        space = choice.command.get("space")
        where = f"space {space + 1}" if isinstance(space, int) else f"space {space}"
        if face is not None and face.get("kind") == "snake":
            return f"Snake on {where}, taking its Frog ({short})"
        flips = choice.info("preview") or []
        flipped = f", flipping {', '.join(str(s + 1) for s in flips)}" if flips else ""
        colour = f"{face.get('colour')} " if face is not None and face.get("colour") else ""
        return f"{colour}Frog on {where}{flipped} ({short})"


def _words(face: Mapping[str, Any] | None) -> str:
    if face is None:
        return ""
    if face.get("kind") == "frog":
        arrows = "orth" if face.get("arrows") == "orthogonal" else "diag"
        return f"{face.get('colour')} {arrows}"
    return str(face.get("kind"))


def _name(ctx: Context, seat: int) -> str:
    return ctx.names[seat] if 0 <= seat < len(ctx.names) else f"Seat {seat + 1}"
