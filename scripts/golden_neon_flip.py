"""Regenerate Neon Flip's golden playthroughs: ``python scripts/golden_neon_flip.py``.

The cases live in ``tests/engine/neon_flip/golden_cases.py``; each file records every step's
command, events and per-viewer view digests (see ``tests/golden.py``). Review the diff before
committing.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.engine.neon_flip.golden_cases import CASES
from tests.golden import dumps, golden_dir, record


def main() -> None:
    folder = golden_dir("neon_flip")
    folder.mkdir(parents=True, exist_ok=True)
    for name, seed_hex, kinds, options in CASES:
        path = folder / f"{name}.json"
        data = record("neon_flip", seed_hex, kinds, options)
        path.write_text(dumps(data))
        print(f"wrote {path}: {len(data['steps'])} steps, {data['outcome']['reason']}")


if __name__ == "__main__":
    main()
