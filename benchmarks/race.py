"""The Flash 8 race load benchmark, as CI's smoke run sees it.

``python -m benchmarks.race [--rooms 25] [--seconds 10] [--pairs 1] [--smoke]`` runs
``lumin bench race`` with the relay comparison (alternating ``--pairs`` runs of each) and prints
its JSON, then the same load on a cluster of two nodes (``--nodes 2``, on the local PostgreSQL
and Redis); the smoke run alternates two short pairs. The full figures in ``docs/performance.md``
come from ``lumin bench race --rooms 1 --seconds 10`` and ``--rooms 25 --target relay``.
"""

from __future__ import annotations

import argparse
import json

from clients.load import bench_cluster, bench_race


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=25)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    rooms, seconds, pairs = (2, 1.0, 2) if args.smoke else (args.rooms, args.seconds, args.pairs)
    report = bench_race(rooms, seconds, target="relay", pairs=pairs)
    assert len(report["ratios"]) == pairs and report["ratio"] > 0, report
    print("race", json.dumps(report))
    # The cluster on the local PostgreSQL and Redis (make services), two nodes.
    cluster = bench_cluster(rooms, seconds, nodes=2, store=None, redis_url=None)
    assert cluster["commands"] > 0 and cluster["node_cpu_us_per_command"], cluster
    print("race --nodes 2", json.dumps(cluster))


if __name__ == "__main__":
    main()
