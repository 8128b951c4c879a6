"""The move log's sentences in ``lumin play``: the browser's words, places and seats counted
from 1, "You" for the viewer alone, PROTO-ZERO for seat -1."""

from __future__ import annotations

from clients.terminal.movelog import Namer, log_lines, sentence, since_last_turn
from clients.terminal.seats import seat_label

NAMES = ["Ada", "Bot 2", "Cy"]


def test_a_frog_play_is_said_as_the_browser_says_it() -> None:
    entry = {"n": 4, "seat": 1, "what": "frog", "colour": "red", "tile": "R7", "space": 3,
             "flipped": [4, 7]}  # fmt: skip
    said = sentence("flip_over_frog", entry, Namer(NAMES, you=0))
    assert said == "Bot 2 played red Frog R7 on space 4, flipping 2 tiles (5, 8)."
    snake = {"n": 5, "seat": 0, "what": "snake", "tile": "S1", "space": 0, "colour": "blue",
             "frog": "B3"}  # fmt: skip
    assert sentence("flip_over_frog", snake, Namer(NAMES, you=0)) == (
        "You played Snake S1 on space 1, taking blue Frog B3 off the board."
    )


def test_nobody_is_you_in_a_replay_and_seat_minus_one_is_proto_zero() -> None:
    entry = {"n": 1, "seat": 0, "what": "draw", "tile": "G2"}
    assert sentence("flip_over_frog", entry, Namer(NAMES)) == "Ada drew G2."
    ai = {"n": 2, "seat": -1, "what": "ai_card", "slots": [3, 9]}
    assert sentence("neon_flip", ai, Namer(NAMES, you=0)) == (
        "PROTO-ZERO played a card: 2 slots turned Pink (3, 9)."
    )
    assert sentence("neon_flip", {"n": 3, "seat": 5, "what": "end_turn"}, Namer(NAMES)) == (
        "Seat 6 ended the turn."
    )


def test_flash8_stacks_count_from_1_and_other_games_say_their_kinds() -> None:
    take = {"n": 2, "seat": 0, "what": "take", "card": "C4", "stack": 0, "points": 1,
            "took": 2.5, "slides": 3, "optimal": 2}  # fmt: skip
    assert sentence("flash8", take, Namer(NAMES, you=0)) == (
        "You took C4 from stack 1 for 1 point (2.50 s, 3 slides; 2 would do)."
    )
    risk = {"n": 7, "seat": 2, "what": "risk", "dice": [5, 4], "target": 12, "success": True,
            "claimed": [12, 13], "refund": 1}  # fmt: skip
    assert sentence("neon_hex", risk, Namer(NAMES, you=0)) == (
        "Cy rolled 5 + 4 = 9: breakthrough on 12, 2 hexes claimed (12, 13), 1 ⚡ back."
    )
    assert sentence("neon_hex", {"n": 8, "seat": None, "what": "end"}, Namer()) == (
        "The game is over."
    )
    assert sentence("neon_hex", {"n": 9, "seat": None, "what": "new_kind"}, Namer()) == (
        "The table: new kind."
    )


def test_since_last_turn_starts_at_the_seats_newest_entry() -> None:
    log = [{"n": n, "seat": seat, "what": "end_turn"} for n, seat in enumerate([0, 1, 0, 1, 2], 1)]
    assert [e["n"] for e in since_last_turn(log, 0)] == [3, 4, 5]
    assert [e["n"] for e in since_last_turn(log, None)] == [1, 2, 3, 4, 5]
    assert log_lines("neon_flip", log[-2:], Namer(NAMES, you=1))[0] == "Cy ended the turn."


def test_seats_are_named_as_the_browser_names_them() -> None:
    assert seat_label(1, "easy bot", "bot", "easy") == "Easy bot 2"
    assert seat_label(1, "bot bot", "bot", "bot") == "Bot 2"
    assert seat_label(2, "Robo", "bot", "easy") == "Robo"
    assert seat_label(0, None, "open", None) == "Seat 1 (open)"
    assert seat_label(3, None, "human", None) == "Seat 4"
