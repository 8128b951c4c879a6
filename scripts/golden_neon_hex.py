"""Regenerate Neon Hex's golden playthroughs: ``python scripts/golden_neon_hex.py``.

The cases are in ``tests/engine/neon_hex/golden_cases.py``; each file records every command,
its events and a digest of every viewer's view (``tests/golden.py``). Review the diff before
committing.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.engine.neon_hex.golden_cases import CASES
from tests.golden import dumps, golden_dir, record


def main() -> None:
    folder = golden_dir("neon_hex")
    folder.mkdir(parents=True, exist_ok=True)
    for name, seed_hex, kinds, options in CASES:
        path = folder / f"{name}.json"
        path.write_text(dumps(record("neon_hex", seed_hex, kinds, options)))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
