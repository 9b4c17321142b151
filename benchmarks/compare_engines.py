"""Engine speed against another revision, interleaved in one run.

Builds the ``simulate`` example of ``reclaim-core`` at a base revision (in a git worktree under
``target/``) and in the working tree, then alternates runs of the two on ``reclaim bench``'s
geometry (10,000 segments × 64 pages, spare 0.10, uniform writes, warm-up ``fill+2x``, 10x
measured), so that a shared machine's drifting load falls on both alike. Prints each policy's
median page writes per second for both builds and their ratio.

    python benchmarks/compare_engines.py 4535770 --runs 7 --policies greedy fifo
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEED = re.compile(r"([0-9.]+) M page writes/s")


def build(tree: Path, target: Path) -> Path:
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "reclaim-core", "--example", "simulate",
                    "--target-dir", str(target)], cwd=tree, check=True)
    return target / "release" / "examples" / "simulate"


def base_tree(rev: str) -> Path:
    tree = ROOT / "target" / "compare-base" / rev
    if not tree.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), rev], cwd=ROOT, check=True)
    return tree


def run(binary: Path, policy: str, writes: str, seed: int) -> float:
    config = {"segments": 10000, "pages_per_segment": 64, "spare": 0.1, "policy": policy, "workload": "uniform",
              "warmup": "fill+2x", "writes": writes, "seed": seed}
    out = subprocess.run([str(binary), json.dumps(config)], check=True, capture_output=True, text=True).stdout
    m = SPEED.search(out)
    if m is None:
        raise RuntimeError(f"{binary}: no speed in its output: {out!r}")
    return float(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", help="the base revision (a commit, tag or branch)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--writes", default="10x")
    ap.add_argument("--policies", nargs="+", default=["greedy", "fifo"])
    args = ap.parse_args()
    base = build(base_tree(args.base), ROOT / "target" / "compare-base-build")
    new = build(ROOT, ROOT / "target")
    print(f"base {args.base}: {base}\nnew (working tree): {new}")
    for policy in args.policies:
        a, b = [], []
        for seed in range(1, args.runs + 1):
            a.append(run(base, policy, args.writes, seed))
            b.append(run(new, policy, args.writes, seed))
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{policy}: base {ma:.1f} M page writes/s, new {mb:.1f} M, new/base {mb / ma:.3f} "
              f"(medians of {args.runs}; base {', '.join(f'{x:.1f}' for x in a)}; new {', '.join(f'{x:.1f}' for x in b)})")


if __name__ == "__main__":
    main()
