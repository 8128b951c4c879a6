"""The cluster failover benchmark, as CI's smoke run sees it.

``python -m benchmarks.failover [--nodes 3] [--rooms 30] [--kills 3] [--seed 0] [--smoke]``
runs ``lumin bench failover`` (nodes killed and paused under live games, on the local
PostgreSQL and Redis) and prints its JSON; it exits 1 when an invariant failed (an
acknowledged command lost, a fork, a spectator gap, a game not finished...), naming which. The
smoke run is 4 rooms on 2 nodes with one SIGKILL and a lease TTL of 1 s. The full figures in
``docs/performance.md`` come from ``lumin bench failover --nodes 3 --rooms 30 --kills 3``.
"""

from __future__ import annotations

import argparse
import json
import sys

from clients.failover import SMOKE, FailoverRun, bench_failover


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--rooms", type=int, default=30)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    settings = {"nodes": args.nodes, "rooms": args.rooms, "kills": args.kills, "seed": args.seed}
    report = bench_failover(FailoverRun(**(settings | SMOKE if args.smoke else settings)))
    print("failover", json.dumps(report))
    for failure in report["failed"]:
        print(f"FAILED: {failure}")
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
