"""Checks that the engine of the working tree gives the same results, bit for bit, as the engine
at another revision, on a fixed list of configurations: every policy under the single and double
frontier, every placement and option, page sizes, batch cleaning, cache streams, a write cache,
and a grid of age-sorted stream settings.

    .venv/bin/python scripts/same-results.py REV [--only NAME]

Builds the `simulate` example at REV (as `reclaim bench --compare` does, in a git worktree under
`target/compare-base/`) and in the working tree, runs both on each configuration and compares
their printed metrics (write amplification and counters to five decimals; the speed is dropped).
Exits 1 on the first difference and names the configuration.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from reclaim.bench import _build_pair

_SPEED = re.compile(r"\s+[0-9.]+ M page writes/s")

BASE: dict[str, Any] = {"segments": 512, "pages_per_segment": 32, "spare": 0.1, "warmup": "fill+2x", "writes": "4x"}
HOTCOLD = "hotcold:r=0.9,f=0.1"

POLICIES = [
    "fifo", "greedy", "greedy:tie=oldest", "greedy:tie=fifo", "random", "d-choices:d=10", "gra:d=8",
    "windowed:w=64", "cost-benefit", "cost-benefit:form=lomet", "age-threshold", "age-threshold:nat=0.1,buckets=10",
    "fitness", "fitness:buckets=10,sort=fifo", "fitness:nat=0.1,age=tw",
]


def configurations() -> dict[str, dict[str, Any]]:
    """The named configurations (45 general ones, 54 age-sorted ones)."""
    out: dict[str, dict[str, Any]] = {}
    for policy, placement in itertools.product(POLICIES, ["single", "double:copy=random"]):
        out[f"{policy} {placement}"] = {**BASE, "policy": policy, "placement": placement, "workload": HOTCOLD}
    out["double oldest"] = {**BASE, "placement": "double:copy=oldest", "workload": HOTCOLD}
    out["oracle"] = {**BASE, "placement": "oracle", "workload": HOTCOLD}
    out["regions"] = {**BASE, "placement": "regions:spare=0.3/0.7", "workload": HOTCOLD, "gc": "one-free"}
    out["multi-log"] = {**BASE, "policy": "multi-log", "placement": "multi-log", "workload": HOTCOLD,
                        "gc": "batch:low=4,victims=8"}
    out["multi-log exact"] = {**BASE, "policy": "greedy", "placement": "multi-log:logs=4,freq=exact",
                              "workload": "zipf:theta=0.99"}
    out["mdc sort-buffer"] = {**BASE, "policy": "mdc", "placement": "sort-buffer", "workload": HOTCOLD,
                              "gc": "batch:low=4,victims=8,gather=all,sort=up2"}
    out["mdc exact oracle"] = {**BASE, "policy": "mdc:freq=exact", "placement": "oracle", "workload": HOTCOLD,
                               "gc": "batch:low=4,victims=8"}
    out["mdc-opt zipf"] = {**BASE, "policy": "mdc:freq=exact", "placement": "sort-buffer", "workload": "zipf:theta=0.99",
                           "gc": "batch:low=4,victims=8,gather=all,sort=up2"}
    out["mdc absorb unsorted"] = {**BASE, "policy": "mdc", "placement": "sort-buffer:segments=4,sort=none,rewrite=absorb",
                                  "workload": "shifting:r=0.9,f=0.1"}
    out["mdc sizes"] = {**BASE, "spare": 0.25, "policy": "mdc:decline=pages", "placement": "sort-buffer", "workload": HOTCOLD,
                        "sizes": "uniform:min=1,max=4", "gc": "batch:low=4,victims=8"}
    out["greedy sizes"] = {**BASE, "spare": 0.25, "workload": "zipf:theta=0.99", "sizes": "choice:sizes=1/2/8,weights=5/3/1"}
    out["cache streams"] = {**BASE, "workload": HOTCOLD, "streams": "cache", "placement": "oracle"}
    out["write cache free-empty"] = {**BASE, "workload": HOTCOLD, "cache": 500, "free_empty": True,
                                     "gc": "max-empty:k=2"}
    out["regions optimal-like shares, windowed"] = {**BASE, "placement": "regions:spare=0.5/0.5", "workload": HOTCOLD,
                                                     "policy": "windowed:w=32,tie=oldest", "gc": "batch:low=2,victims=2"}
    out["locality"] = {**BASE, "workload": "locality:fa=0.5,r=0.8/0.2,f=0.2/0.8", "policy": "gra:d=4"}
    for dtg, fsc, sort, streams, split in itertools.product([1, 2, 4], [0, 2, 4], ["full", "none"], ["hole", "cache"],
                                                            ["median", "mean"]):
        if sort == "none" and split == "mean":
            continue
        dsort, fsort = (dtg, fsc) if sort == "full" else (0, 0)
        spec = f"age-sorted:dtg_exp={dtg},fsc_exp={fsc},dtg_sort={dsort},fsc_sort={fsort},split={split}"
        out[f"{spec} {streams}"] = {**BASE, "segments": 1024, "policy": "fitness:buckets=10,sort=fifo",
                                    "placement": spec, "streams": streams, "gc": "max-empty:k=1",
                                    "free_empty": True, "cache": 64, "workload": "zipf:theta=0.9"}
    return out


def run(binary: Path, config: dict[str, Any]) -> str:
    p = subprocess.run([str(binary), json.dumps(config)], capture_output=True, text=True)
    return _SPEED.sub("", (p.stdout + p.stderr).strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", help="the revision to compare with (a commit, tag or branch)")
    ap.add_argument("--only", help="run only the configurations whose name contains this")
    args = ap.parse_args()
    commit, old, new = _build_pair(args.base)
    configs = {k: v for k, v in configurations().items() if args.only is None or args.only in k}
    general = sum(1 for k in configs if not k.startswith("age-sorted"))
    print(f"{len(configs)} configurations ({general} general, {len(configs) - general} age-sorted) against {commit[:12]}")
    for name, config in configs.items():
        a, b = run(old, config), run(new, config)
        if a != b:
            print(f"DIFFERENT: {name}\n  base: {a}\n  new:  {b}\n  config: {json.dumps(config)}")
            return 1
        if a.startswith("error"):
            print(f"both refuse {name}: {a}")
    print(f"same results on all {len(configs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
