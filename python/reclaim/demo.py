"""The main job (`make run`): FIFO, greedy, d-choices (d = 10) and cost-benefit under uniform and
hot/cold (r = 0.8, f = 0.2) writes at spare factor 0.10, printed as one table."""

from __future__ import annotations

import sys
import time

from rich.table import Table

from reclaim.api import SimConfig
from reclaim.progress import plain_console, progress_bar, run_with_bar

POLICIES = ("fifo", "greedy", "d-choices:d=10", "cost-benefit")
WORKLOADS = (("uniform", "uniform"), ("hot/cold 80/20", "hotcold:r=0.8,f=0.2"))


def demo_config(policy: str, workload: str, quick: bool = False) -> SimConfig:
    """The demo's device: 4,096 segments of 64 pages (16 GiB of 4 KiB pages at full size)."""
    return SimConfig(
        segments=512 if quick else 4096,
        pages_per_segment=64,
        spare=0.10,
        policy=policy,
        workload=workload,
        warmup="fill+10x",
        writes="20x",
        seed=1,
    )


def run_demo(quick: bool = False) -> dict[tuple[str, str], float]:
    """Runs the eight simulations with progress bars and prints the table of write amplification."""
    console = plain_console(width=None if sys.stdout.isatty() else 200)
    results: dict[tuple[str, str], float] = {}
    rates: list[float] = []
    t0 = time.perf_counter()
    with progress_bar(enabled=sys.stderr.isatty()) as p:
        for policy in POLICIES:
            for label, workload in WORKLOADS:
                r = run_with_bar(p, f"{policy:<15} {label}", demo_config(policy, workload, quick))
                results[(policy, label)] = r.wa
                rates.append(r.page_writes_per_second)
    cfg = demo_config(POLICIES[0], "uniform", quick)
    t = Table(
        title=(
            f"Write amplification (U + G) / U — {cfg.segments} segments × {cfg.pages_per_segment} pages, "
            f"spare {cfg.spare}, warm-up {cfg.warmup}, {cfg.writes} measured"
        )
    )
    t.add_column("policy")
    for label, _ in WORKLOADS:
        t.add_column(label, justify="right")
    for policy in POLICIES:
        t.add_row(policy, *[f"{results[(policy, label)]:.3f}" for label, _ in WORKLOADS])
    console.print(t)
    rates.sort()
    console.print(
        f"{len(results)} runs in {time.perf_counter() - t0:.1f} s; median engine speed "
        f"{rates[len(rates) // 2] / 1e6:.1f} M page writes/s"
    )
    return results
