"""Run every benchmark program once at smoke size, so none of them rots (CI calls this).

Each ``benchmarks/<name>.py`` is run as ``python -m benchmarks.<name> --smoke``; a failing
benchmark fails the run.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    failed = []
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        if path.name.startswith("_"):
            continue
        module = f"benchmarks.{path.stem}"
        started = time.perf_counter()
        print(f"--- {module} --smoke", flush=True)
        result = subprocess.run([sys.executable, "-m", module, "--smoke"], cwd=ROOT, check=False)
        print(f"--- {module}: exit {result.returncode} in {time.perf_counter() - started:.1f} s")
        if result.returncode != 0:
            failed.append(module)
    if failed:
        print(f"benchmarks failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
