"""Commands and boards a newcomer can read: every command in the list says what it does in
words first (its short form may follow), and places and seats count from 1, as on the boards
and in the browser."""

from __future__ import annotations

from typing import Any

from clients.sdk.legal import Option
from clients.terminal.boards.base import Context
from clients.terminal.boards.flash8 import Flash8Board
from clients.terminal.boards.frog import FrogBoard
from clients.terminal.boards.hex import HexBoard
from clients.terminal.boards.neon_flip import NeonFlipBoard


def _option(command: dict[str, Any], **info: Any) -> Option:
    return Option(command=command, entry={**command, **info})


def test_frog_plays_read_as_words_with_spaces_from_1() -> None:
    hand = [
        {"id": "R2", "kind": "frog", "colour": "red", "arrows": "orthogonal"},
        {"id": "S1", "kind": "snake"},
    ]
    ctx = Context(view={"hand": hand}, seat=0)
    board = FrogBoard()
    play = _option({"type": "play", "tile": "R2", "space": 1}, preview=[0, 5])
    assert board.describe(play, ctx) == "red Frog on space 2, flipping 1, 6 (R2+)"
    snake = _option({"type": "play", "tile": "S1", "space": 15})
    assert board.describe(snake, ctx) == "Snake on space 16, taking its Frog (S1)"
    assert board.describe(_option({"type": "discard", "tile": "S1"}), ctx) == (
        "discard a Snake (S1)"
    )


def test_neon_hex_expansions_read_as_words() -> None:
    board, ctx = HexBoard(), Context(view={}, seat=0)
    risk = _option(
        {"type": "expand", "kind": "risk", "target": 9, "bonus": [10, 4]}, cost=2, odds=[10, 36]
    )
    assert board.describe(risk, ctx) == (
        "Risk on hex 9 (and 10 and 4) for 2 energy, 28% to succeed"
    )
    safe = _option({"type": "expand", "kind": "safe", "target": 3}, cost=1)
    assert board.describe(safe, ctx) == "Safe claim of hex 3 for 1 energy"


def test_neon_flip_cards_read_as_words() -> None:
    view = {"you": {"hand": [{"id": "c1", "name": "Node Swap"}]}, "market": []}
    board, ctx = NeonFlipBoard(), Context(view=view, seat=0, names=["Ada", "Bot 2"])
    swap = _option({"type": "play_card", "card": "c1", "slot": 3, "other": 9}, cost=2)
    assert board.describe(swap, ctx) == "play Node Swap on slot 3 and slot 9 for 2 energy"
    drain = _option({"type": "play_card", "card": "c1", "target": 1}, cost=2)
    assert board.describe(drain, ctx) == "play Node Swap on Bot 2 for 2 energy"
    assert board.describe(_option({"type": "manual_flip", "slot": 7}, cost=1), ctx) == (
        "flip slot 7 for 1 energy"
    )


def test_flash8_names_stacks_and_lines_as_its_board_labels_them() -> None:
    lines = [{"line": n, "name": name, "colours": "VYB", "cells": [0, 1, 2]}
             for n, name in enumerate(["top row", "middle row"])]  # fmt: skip
    solo = {
        "mode": "solo",
        "phase": "running",
        "grid": [{"colour": "V", "shape": "square", "depth": 1}] * 9,
        "lines": lines,
        "seats": [
            {
                "seat": 0,
                "tablet": "GBRBV.YBY",
                "hint": {"target": 1, "slides": 2, "src": 2, "dst": 5},
            }
        ],
        "seat": 0,
    }
    board = Flash8Board()
    ctx = Context(view=solo, seat=0)
    claim = _option({"type": "claim_line", "line": 1, "shape": "cross"})
    assert board.describe(claim, ctx) == "claim L2 middle row as cross"
    assert board.describe(_option({"type": "slide", "src": 2, "dst": 5}), ctx) == (
        "slide cell 3 to 6"
    )
    assert board.describe(_option({"type": "flash", "stack": 0}), ctx) == ("call FLASH on stack S1")
    drawn = board.render(ctx).plain
    assert "Hint: line L2, 2 slides away: slide cell 3 to 6" in drawn, drawn
    assert "violet square 1" in drawn  # the grid in words, not V#squa1
