"""PROTO-ZERO's AI Protocol deck (decisions 16)."""

from __future__ import annotations

from collections import Counter


def test_ai_deck_is_the_committed_data() -> None:
    # decisions 16: 6 Cross, 5 Diagonal, 4 row and 4 column sweeps, 5 Rings; rows/columns hit
    import importlib.util
    from pathlib import Path

    from engine.neon_flip.proto_zero import AI_CARDS

    counts = Counter(card.pattern for card in AI_CARDS)
    assert counts == {"cross": 6, "diagonal": 5, "row": 4, "column": 4, "ring": 5}
    path = Path(__file__).resolve().parents[3] / "scripts" / "neon_flip_ai_deck.py"
    spec = importlib.util.spec_from_file_location("neon_flip_ai_deck", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (Path(__file__).resolve().parents[3] / "engine/neon_flip/ai_deck.json").read_text()
    assert module.render(module.generate()) == committed
