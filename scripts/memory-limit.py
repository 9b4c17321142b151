"""The memory's limit on the engine's speed at a real device's size (`docs/design.md`, "Speed",
"The memory's limit"): how many cache lines a page write (user or GC) brings from memory, the rate
at which the machine completes independent loads, and the page writes per second those two allow,
beside the policy's measured speed (greedy, or `--policy`).

Usage (under the build lock: it builds the engine and runs for several minutes on two cores)::

    flock /tmp/reclaim-build.lock .venv/bin/python scripts/memory-limit.py
    flock /tmp/reclaim-build.lock .venv/bin/python scripts/memory-limit.py --rate 121.7 --no-time --cache 8

Lines per page write are counted by valgrind's cachegrind (`--cache-sim=yes`: a 48 KiB 12-way L1
and the machine's 32 MiB 16-way last-level cache; `perf stat` has no hardware counters in this VM):
the simulated last-level misses, reads and writes (write-allocate), of a run of the policy under
uniform writes (64 pages of 4 KiB a segment, spare 0.10), the difference of two measured lengths
after the same warm-up, divided by the difference of their page writes, so that the fill and the
warm-up cancel. A prefetch is no access to cachegrind: the count is of the lines the run needs,
whether or not the engine announced them early. The 1 TiB geometry (4,194,304 segments, 2.3 GiB
of maps) is counted on a device 64 and 32 times smaller with a last-level cache 64 and 32 times
smaller (512 KiB and 1 MiB for 32 MiB): uniform random accesses hit a cache in the ratio of its
size to the arrays', which the scaling keeps, and the two scales agreeing is the check. 100,000
segments is counted at its own size. `--policy cost-hotness` counts 1,000,000 segments at 1/4
instead (its index is chosen by the segment count: the scaled device must keep the tournament).
The VM shares its L3: `--cache` sets the part of it a run has to itself (`cargo bench -p
reclaim-core --bench memory -- MiB_huge/chase` shows where the latency leaves the cache's: 8-16
MiB here), so run it with 8, 16 and 32.

The load rate is `cargo bench -p reclaim-core --bench memory`'s independent loads into 1 GiB on
huge pages (`--rate` gives it instead). The limit = load rate / lines per page write. The
policy's speed is the median of `--runs` runs of the `simulate` example at each size, with
`reclaim bench --sizes`'s warm-up and length.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIMULATE = ROOT / "target" / "release" / "examples" / "simulate"

#: What is counted: (name, segments counted, last-level cache simulated [bytes], segments the row
#: stands for). The 1 TiB rows are scaled copies (see the module's docstring); `--cache` sets the
#: last-level cache a run has to itself, of which the scaled rows simulate 1/64 and 1/32.
def cases(cache: int, policy: str) -> list[tuple[str, int, int, int]]:
    """The counted cases of `policy` for a last-level cache of `cache` bytes."""
    if policy.split(":")[0] == "cost-hotness":
        # Its index depends on the segments (the tournament from 150,000), so 1,000,000 is
        # counted at 1/4, where the tournament still holds the candidates.
        return [
            ("1,000,000 segments, counted at 1/4", 250_000, cache // 4, 1_000_000),
            ("100,000 segments (24 GiB)", 100_000, cache, 100_000),
            ("10,000 segments (2.4 GiB)", 10_000, cache, 10_000),
        ]
    return [
        ("1 TiB, counted at 1/64", 65_536, cache // 64, 1 << 22),
        ("1 TiB, counted at 1/32", 131_072, cache // 32, 1 << 22),
        ("100,000 segments (24 GiB)", 100_000, cache, 100_000),
        ("10,000 segments (2.4 GiB)", 10_000, cache, 10_000),
    ]


#: The two measured lengths [user writes per logical page] whose difference is counted.
SHORT, LONG = "0.1x", "0.3x"

#: `reclaim bench --sizes`'s warm-up and length per size (`reclaim.bench.SCALING`).
TIMED = {10_000: ("fill+2x", "10x"), 100_000: ("fill+2x", "2x"), 1_000_000: ("fill+1x", "0.5x"),
         1 << 22: ("fill+1x", "0.25x")}

_COUNTS = re.compile(r"user (\d+)\s+gc (\d+)\s+([0-9.]+) M page writes/s")
_LLD = re.compile(r"LLd misses:\s+([\d,]+)\s+\(\s*([\d,]+) rd\s+\+\s+([\d,]+) wr\)")
_D1 = re.compile(r"D1  misses:\s+([\d,]+)")
_INSTR = re.compile(r"I\s+refs:\s+([\d,]+)")
_THRPT = re.compile(r"thrpt:\s+\[\S+ \S+ ([0-9.]+) (\S+)/s")


def config(segments: int, warmup: str, writes: str, seed: int = 1, policy: str = "greedy") -> dict[str, Any]:
    """`policy` under uniform writes on `segments` segments of 64 pages at spare 0.10."""
    return {"segments": segments, "pages_per_segment": 64, "spare": 0.10, "policy": policy, "workload": "uniform",
            "warmup": warmup, "writes": writes, "seed": seed}


def build() -> None:
    """Builds the `simulate` example (release, as `reclaim bench --compare` does)."""
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "reclaim-core", "--example", "simulate"],
                   cwd=ROOT, check=True)


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def cachegrind(segments: int, ll: int, writes: str, policy: str) -> dict[str, int]:
    """One run of `policy` under cachegrind: its page writes, instructions, L1 data misses and
    last-level data misses (reads, writes)."""
    cfg = json.dumps(config(segments, "fill+1x", writes, policy=policy))
    proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null",
                           "--I1=32768,8,64", "--D1=49152,12,64", f"--LL={ll},16,64", str(SIMULATE), cfg],
                          capture_output=True, text=True, check=False)
    out = proc.stdout + proc.stderr
    counts, lld, d1, instr = _COUNTS.search(out), _LLD.search(out), _D1.search(out), _INSTR.search(out)
    if proc.returncode != 0 or not (counts and lld and d1 and instr):
        raise RuntimeError(f"cachegrind on {segments} segments: exit {proc.returncode}: {out[-400:]}")
    return {"page_writes": int(counts[1]) + int(counts[2]), "user_writes": int(counts[1]),
            "instructions": _number(instr[1]), "d1": _number(d1[1]), "ll_rd": _number(lld[2]),
            "ll_wr": _number(lld[3])}


def lines_per_write(segments: int, ll: int, policy: str) -> dict[str, float]:
    """Last-level misses per page write, and per user write, of the measured phase: the
    difference of a long and a short run."""
    short, long = cachegrind(segments, ll, SHORT, policy), cachegrind(segments, ll, LONG, policy)
    d = {k: long[k] - short[k] for k in short}
    pw = d["page_writes"]
    return {"lines": (d["ll_rd"] + d["ll_wr"]) / pw, "rd": d["ll_rd"] / pw, "wr": d["ll_wr"] / pw,
            "d1": d["d1"] / pw, "instructions": d["instructions"] / pw, "wa": pw / d["user_writes"]}


def load_rate() -> float:
    """Independent loads into 1 GiB on huge pages [M/s], criterion's median."""
    proc = subprocess.run(["cargo", "bench", "-p", "reclaim-core", "--bench", "memory", "--",
                           "1GiB_huge/independent"], cwd=ROOT, capture_output=True, text=True, check=True)
    m = _THRPT.search(proc.stdout)
    if not m:
        raise RuntimeError(f"no throughput in the memory bench's output: {proc.stdout[-400:]}")
    scale = {"Kelem": 1e-3, "Melem": 1.0, "Gelem": 1e3}[m[2]]
    return float(m[1]) * scale


def speed(segments: int, runs: int, policy: str) -> float:
    """`policy`'s median page writes per second [M/s] at `segments`, seeds 1 … `runs`."""
    warmup, writes = TIMED[segments]
    speeds = []
    for seed in range(1, runs + 1):
        out = subprocess.run([str(SIMULATE), json.dumps(config(segments, warmup, writes, seed, policy))],
                             capture_output=True, text=True, check=True).stdout
        m = _COUNTS.search(out)
        if not m:
            raise RuntimeError(f"no speed in the simulate example's output: {out}")
        speeds.append(float(m[3]))
    return statistics.median(speeds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, help="independent loads [M/s] instead of running the memory bench")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of the policy per size (default 3)")
    parser.add_argument("--no-time", action="store_true", help="count lines only; do not time the policy")
    parser.add_argument("--policy", default="greedy", help="the victim policy counted and timed (default greedy; "
                        "cost-hotness is counted at its own sizes)")
    parser.add_argument("--cache", type=int, default=32, help="last-level cache [MiB] the run has to itself "
                        "(default 32, lscpu's L3); a power of two from 4")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: expected at least 1")
    if args.cache < 4 or args.cache & (args.cache - 1):
        parser.error(f"--cache {args.cache}: expected a power of two from 4 [MiB]")
    build()
    rate = args.rate if args.rate is not None else load_rate()
    rows = []
    for name, segments, ll, stands_for in cases(args.cache << 20, args.policy):
        counted = lines_per_write(segments, ll, args.policy)
        row: dict[str, Any] = {"case": name, "segments": segments, "ll_bytes": ll, "stands_for": stands_for,
                               **counted, "rate": rate, "limit": rate / counted["lines"] if counted["lines"] else None}
        if not args.no_time and stands_for in TIMED and stands_for != 10_000:
            row["speed"] = speed(stands_for, args.runs, args.policy)
            row["share"] = row["speed"] / row["limit"]
        rows.append(row)
        if not args.json:
            limit = f"{row['limit']:.1f} M/s" if row["limit"] else "none (cache-resident)"
            timed = f", {args.policy} {row['speed']:.1f} M/s = {row['share']:.2f} of it" if "speed" in row else ""
            print(f"{name}, LL {ll >> 10} KiB: {row['lines']:.3f} lines per page write ({row['rd']:.3f} rd + {row['wr']:.3f} wr; "
                  f"{row['lines'] * row['wa']:.2f} per user write, WA {row['wa']:.3f}), "
                  f"{row['instructions']:.0f} instructions; {rate:.1f} M loads/s -> limit {limit}{timed}",
                  flush=True)
    if args.json:
        print(json.dumps({"policy": args.policy, "rate": rate, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
