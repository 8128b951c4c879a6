"""Issue 16's measures: Neon Overdrive (neon-flip.decisions 14), PROTO-ZERO `overclocked`
(16a) and the bot ladders of Neon Flip and Flip Over Frog, as the `lumin` commands that take
them, each with the figure it must show (a point estimate in the command's `--json` output).

    .venv/bin/python -m benchmarks.neon_flip_measures [--jobs 2] [--smoke] [--only N ...]

Full size takes about 20 minutes on 2 cores; `--smoke` runs every command with 4 games (CI's
`scripts/bench_smoke.py`), prints the figures and checks nothing. The measured figures are in
`docs/performance.md`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

LUMIN = str(Path(sys.executable).parent / "lumin")

#: (command after `lumin`, what to read from its JSON, the bar it must meet)
MEASURES: list[tuple[str, Callable[[dict[str, Any]], float], str, Callable[[float], bool]]] = [
    (
        "selfplay neon_flip --games 200 --seed 8 --players 2 --option mode=overdrive --json",
        lambda d: d["avg_turns"],
        "avg_turns >= 6",
        lambda v: v >= 6,
    ),
    (
        "selfplay neon_flip --games 200 --seed 8 --players 2 --option mode=overdrive --json",
        lambda d: d["reached_clock"],
        "reached_clock < 20 (and all finish)",
        lambda v: v < 20,
    ),
    (
        "arena neon_flip --a hard --b hard --games 400 --seed 9 --option mode=overdrive --json",
        lambda d: d["bots"]["hard"]["first_mover"]["win_rate"],
        "bots.hard.first_mover.win_rate in 0.35-0.65",
        lambda v: 0.35 <= v <= 0.65,
    ),
    (
        "arena neon_flip --seats hard --option mode=solo --option proto_zero=overclocked"
        " --games 400 --seed 10 --json",
        lambda d: d["bots"]["hard"]["win_rate"],
        "bots.hard.win_rate in 0.35-0.75",
        lambda v: 0.35 <= v <= 0.75,
    ),
    (
        "arena neon_flip --seats random --option mode=solo --option proto_zero=overclocked"
        " --games 400 --seed 10 --json",
        lambda d: d["bots"]["random"]["win_rate"],
        "bots.random.win_rate < 0.05",
        lambda v: v < 0.05,
    ),
    (
        "arena neon_flip --a hard --b medium --games 400 --seed 11 --json",
        lambda d: d["a"]["win_rate"],
        "a.win_rate >= 0.60",
        lambda v: v >= 0.60,
    ),
    (
        "arena neon_flip --a medium --b easy --games 400 --seed 12 --json",
        lambda d: d["a"]["win_rate"],
        "a.win_rate >= 0.60",
        lambda v: v >= 0.60,
    ),
    (
        "arena neon_flip --a easy --b random --games 400 --seed 13 --json",
        lambda d: d["a"]["win_rate"],
        "a.win_rate >= 0.60",
        lambda v: v >= 0.60,
    ),
    (
        "arena flip_over_frog --a bot --b easy --games 400 --seed 14 --json",
        lambda d: d["a"]["win_rate"],
        "a.win_rate >= 0.60",
        lambda v: v >= 0.60,
    ),
    (
        "arena flip_over_frog --a easy --b random --games 400 --seed 15 --json",
        lambda d: d["a"]["win_rate"],
        "a.win_rate >= 0.55",
        lambda v: v >= 0.55,
    ),
]


def _sized(command: str, smoke: bool) -> list[str]:
    words = command.split()
    if smoke:
        words[words.index("--games") + 1] = "4"
    return words


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="4 games per command, no checks")
    parser.add_argument("--only", type=int, nargs="*", help="measure numbers (1-based)")
    args = parser.parse_args()
    cache: dict[str, dict[str, Any]] = {}
    failed = 0
    for number, (command, read, bar, meets) in enumerate(MEASURES, start=1):
        if args.only and number not in args.only:
            continue
        if command not in cache:
            words = [*_sized(command, args.smoke), "--jobs", str(args.jobs)]
            out = subprocess.run([LUMIN, *words], check=True, capture_output=True, text=True)
            cache[command] = json.loads(out.stdout)
        data = cache[command]
        value = read(data)
        if "selfplay" in command and data["finished"] != data["games"]:
            value, ok = float("nan"), False
        else:
            ok = meets(value)
        verdict = "" if args.smoke else ("  ok" if ok else "  MISSED")
        failed += 0 if args.smoke or ok else 1
        ran = " ".join([*_sized(command, args.smoke), "--jobs", str(args.jobs)])
        print(f"{number:2d}. lumin {ran}\n    {bar}: {value:.3f}{verdict}", flush=True)
    if failed:
        print(f"{failed} measure(s) missed (see docs/performance.md for what that means)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
