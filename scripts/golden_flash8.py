"""Regenerate Flash 8's golden playthroughs: ``python scripts/golden_flash8.py``.

The cases are in ``tests/engine/flash8/golden_cases.py``; the files land in
``tests/engine/flash8/golden/``. Review the diff before committing.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.golden import main

if __name__ == "__main__":
    main(["flash8"])
