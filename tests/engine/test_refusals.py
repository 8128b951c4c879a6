"""The sentence a refused command carries (``Rejected.message``) is for players, the terminal
and bots: it never cites the rules. The citation stays beside it in the code
(``Rejected.rule``, "decisions 6", "rulebook 2.3 D"), where the rules' readers find it."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

from engine.core import Rejected, SeatSpec
from engine.neon_hex.messages import EndTurn
from engine.registry import get_game

ENGINE = Path(__file__).resolve().parents[2] / "engine"
#: What a citation looks like inside a sentence: "(decisions 7)", "rulebook 2.3", "(2.5.3)".
CITATION = re.compile(r"decisions\s+\d|rulebook|\(\d+(?:\.\d+)+[a-z]?\)", re.IGNORECASE)


def refusals() -> list[tuple[str, ast.Call]]:
    """Every ``Rejected(...)`` the engine raises, with where it is."""
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rejected":
                found.append((f"{path.relative_to(ENGINE)}:{node.lineno}", node))
    return found


def test_the_engine_raises_refusals() -> None:
    assert len(refusals()) > 40


@pytest.mark.parametrize(("where", "call"), refusals(), ids=[w for w, _ in refusals()])
def test_no_refusal_sentence_cites_a_rule(where: str, call: ast.Call) -> None:
    if len(call.args) < 2:
        return  # a message built elsewhere (a variable) is checked where it is built
    pieces = [
        node.value
        for node in ast.walk(call.args[1])
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    sentence = "".join(pieces)
    assert not CITATION.search(sentence), f"{where}: {sentence!r} cites a rule"
    rules = [kw.value for kw in call.keywords if kw.arg == "rule"]
    for rule in rules:
        assert isinstance(rule, ast.Constant) and CITATION.search(str(rule.value)), where


def test_a_refusal_says_the_rule_beside_the_sentence() -> None:
    game = get_game("neon_hex")
    state = game.setup({}, [SeatSpec("Ada"), SeatSpec("Bo")], random.Random(1))
    with pytest.raises(Rejected) as refused:
        game.decide(state, 1, EndTurn(), 0.0, random.Random(1))
    assert refused.value.message == "Factions act only in their own turn."
    assert refused.value.rule == "decisions 3"
    assert str(refused.value) == "not_your_turn: Factions act only in their own turn. (decisions 3)"
