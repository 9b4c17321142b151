"""Sweep throughput on 1 and 2 workers, local processes and a Dask LocalCluster, interleaved.

Run: .venv/bin/python benchmarks/sweep_scaling.py [--tasks 40] [--repeats 3]

Each repeat runs the same tasks (about 0.3 s each: greedy, 4096 segments of 64 pages, hot/cold
writes) into a fresh database on each executor and worker count, in turn, so that the machine's
noise falls on all of them alike; it prints the median tasks per second of each and the ratio of
2 workers to 1. The setup of an executor (process pool, Dask cluster) is inside the timing, as a
user waits for it.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from reclaim.experiments import parse, run


def experiment(tasks: int, repeat: int):
    # A seed per task, offset per repeat: every repeat runs new tasks (none is found done).
    return parse({"name": f"scaling-{repeat}", "base": {"segments": 4096, "pages_per_segment": 64, "spare": 0.1, "policy": "greedy",
                                                        "workload": "hotcold:r=0.8,f=0.2", "warmup": "fill+2x", "writes": "8x"},
                  "seeds": list(range(1 + repeat * tasks, 1 + (repeat + 1) * tasks))})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    kinds = [("local", 1), ("local", 2), ("dask", 1), ("dask", 2)]
    rates: dict[tuple[str, int], list[float]] = {k: [] for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.repeats):
            for kind, n in kinds:
                db = Path(tmp) / f"{kind}-{n}-{rep}.duckdb"
                exp = experiment(args.tasks, rep)
                start = time.perf_counter()
                report = run([exp], db, workers=n) if kind == "local" else run([exp], db, dask_local=n, chunk=1)
                seconds = time.perf_counter() - start
                assert report.ran == args.tasks and not report.failed
                rates[(kind, n)].append(args.tasks / seconds)
                print(f"repeat {rep + 1}: {kind} × {n}: {args.tasks / seconds:.2f} tasks/s", flush=True)
    print()
    print(f"{'executor':<8} {'workers':>7} {'tasks/s (median)':>17} {'2 / 1':>6}")
    for kind in ("local", "dask"):
        one, two = statistics.median(rates[(kind, 1)]), statistics.median(rates[(kind, 2)])
        print(f"{kind:<8} {1:>7} {one:>17.2f}")
        print(f"{kind:<8} {2:>7} {two:>17.2f} {two / one:>6.2f}")


if __name__ == "__main__":
    main()
