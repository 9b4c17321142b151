#!/usr/bin/env python3
"""SSD-iq's simulator and reclaim on the same settings, side by side.

SSD-iq (Haas, Lee, Bonnet & Leis, PVLDB 18(11), 2025) ships a page-level simulator,
`gabriel-haas/ssdiq` `sim/`; `LeeBohyun/ssdiq_plus` `sim/` extends it with the optimum (`opt-N`),
2A (`2a-N`) and the generational scheme (`gen`). docs/peers.md says how each is built here and
what it prints. This script runs a built peer on SSD-iq's patterns (uniform, the zones 60/40 …
95/5 of `scripts/runsimzones.sh` and `sim/algos.sh`, Zipf θ = 0 … 1) for each scheme, runs
reclaim on the matched settings, and prints one table: setting, scheme, peer, peer WA, reclaim
WA, difference % (reclaim against the peer). `--csv FILE` writes the same rows.

Matching (docs/peers.md, "Conventions"):
- geometry: segments = capacity / erase, pages per segment = erase / page, logical pages =
  ⌊capacity / page × fill⌋ with the fill a C `float` as the peer keeps it (`SSD.hpp`);
- the peer's init phase (a sequential fill, then as many pattern writes as there are physical
  pages, `sim.cpp` `runBench`) is reclaim's warm-up `fill+Kx`, K = physical / logical pages;
- measured: the peer's `WRITES` × logical pages in rows of ⌊logical / 10⌋ (what it measures:
  ⌊WRITES·L / ⌊L/10⌋⌋ rows), the same count in reclaim; WA = the last row's `cumulativeWAF`
  (for `opt-N`, the last `optWA:` line: `newOptWA` on an N-bucket histogram of every page's
  writes since the start, the sequential fill and the init phase included, `sim/Optimal.hpp`);
- cleaning when no block is free, one victim at a time, compacted into the frontier: reclaim's
  `--gc frontier` with a single frontier; ssdiq_plus's LRU write buffer of ⌊0.0004 × logical⌋
  pages is reclaim's `--cache` on its rows (not on `opt-N`, which writes no block), and its WA
  there is flash writes over host writes, rewrites absorbed by the buffer included;
- workloads: `uniform`; zones as reclaim's `zones:s=…,f=…` (SSD-iq's pattern, shuffled), or,
  before that workload exists, `hotcold:r=…,f=…` (the same law, not shuffled); Zipf as
  `zipf-shuffle:theta=T` when it exists, else reclaim's `zipf:theta=T` (ranks over a seeded
  permutation, the same law); θ = 0 is uniform.
Two kinds of rows for the optimum. `opt-formula` and `opt-1000-formula` compare like with like:
reclaim evaluates the same formula (`reclaim.models.ssdiq.opt_wa_of_counts`) on page write counts
drawn as the peer's run draws them (each page once by the fill, then physical-pages + measured
writes from reclaim's workload law, `page_probabilities`), over `--formula-seeds` seeds (the
peer's draws cannot be repeated; the seeds' spread is shown). `opt` and `opt-1000` are the
simulation against the formula: reclaim's `opt:groups=4` runs the groups, cleaned by greedy,
where the formula assumes greedy's WA 1 / (2(1 − f)) in each group and ranks the pages by the
counts the run ended with.
A scheme reclaim does not have yet is skipped with a message. Peer outputs are kept in
`--runs DIR` (default /tmp/ssdiq-runs) and a complete one is read back instead of rerun; peers
seed from `std::random_device`, so a rerun of the peer differs a little.

Usage:
    .venv/bin/python scripts/ssdiq-side-by-side.py --ssdiq /tmp/ssdiq/build/sim/sim \\
        --ssdiq-plus /tmp/ssdiqp/build/sim/sim --csv /tmp/ssdiq.csv
    .venv/bin/python scripts/ssdiq-side-by-side.py --ssdiq BIN --capacity 1G --schemes greedy
    .venv/bin/python scripts/ssdiq-side-by-side.py --settings zones-0.9 --opt-groups 1,2,4,8,16,64

Each peer run takes the machine's shared build lock (flock /tmp/reclaim-build.lock), as any
long job on it must.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

BUILD_LOCK = "/tmp/reclaim-build.lock"

#: SSD-iq's zone patterns, `scripts/runsimzones.sh` and `sim/algos.sh`: share of the space of
#: the cold zone (the hot zone takes that share of the writes).
ZONES = (0.6, 0.7, 0.8, 0.9, 0.95)
#: Zipf factors of `paper/plotsim.R`'s second figure, as the settings spell them.
THETAS = ("0", "0.2", "0.4", "0.6", "0.8", "1.0")
SETTINGS = ("uniform", *(f"zones-{z}" for z in ZONES), *(f"zipf-{t}" for t in THETAS))

#: ssdiq_plus's write buffer: a share of the logical pages (`sim/SSD.hpp`, `writeBufferSizePct`).
PLUS_BUFFER_SHARE = 0.0004


@dataclass(frozen=True)
class Scheme:
    """One of the peer's garbage collectors and the reclaim scheme that ports it."""

    peer: str  # "ssdiq" or "ssdiq_plus"
    gc: str  # the peer's GC value
    reclaim: str  # the reclaim scheme's name (a placement or a policy), looked up at run time
    params: str = ""  # its parameters, matching the peer's (the N of `opt-N`, `2a-N`, `greedy-kN`)
    formula: bool = False  # reclaim evaluates the peer's `opt-N` formula rather than simulating


#: Row name → the peer that runs it. `opt`, `gen` and `2a` exist only in ssdiq_plus;
#: `plus-greedy` is greedy in ssdiq_plus (its write buffer on). ssdiq_plus's `opt-H` evaluates
#: its formula on an H-bucket histogram of the pages' write counts, reclaim's `opt:groups=H`
#: simulates H groups: `opt` matches them at H = 4 (reclaim's default), `opt-1000` is the
#: formula at ssdiq's default OPT_HIST_SIZE, beside reclaim's 4 groups (both the simulation
#: against the formula). `opt-formula` and `opt-1000-formula` are the formula against the
#: formula: reclaim's evaluation on counts drawn as the peer draws them.
SCHEMES: dict[str, Scheme] = {
    "greedy": Scheme("ssdiq", "greedy", "greedy"),
    "2r-greedy": Scheme("ssdiq", "2r-greedy", "2r-greedy"),
    "2r-fifo": Scheme("ssdiq", "2r-fifo", "2r-fifo"),
    "greedy-s2r": Scheme("ssdiq", "greedy-s2r", "greedy-s2r"),
    "greedy-k4": Scheme("ssdiq", "greedy-k4", "greedy-k", "k=4"),
    "opt": Scheme("ssdiq_plus", "opt-4", "opt", "groups=4"),
    "opt-1000": Scheme("ssdiq_plus", "opt-1000", "opt", "groups=4"),
    "opt-formula": Scheme("ssdiq_plus", "opt-4", "opt", "groups=4", formula=True),
    "opt-1000-formula": Scheme("ssdiq_plus", "opt-1000", "opt", "groups=1000", formula=True),
    "gen": Scheme("ssdiq_plus", "gen", "gen"),
    "2a": Scheme("ssdiq_plus", "2a-4", "2a", "heads=4"),
    "plus-greedy": Scheme("ssdiq_plus", "greedy", "greedy"),
}
DEFAULT_SCHEMES = ("greedy", "2r-greedy", "2r-fifo", "opt", "opt-formula")


def parse_bytes(text: str) -> int:
    """Bytes of a size as the peer reads it (`shared/Env.hpp` `getBytesFromString`: K, M, G, T
    are powers of 1024, case ignored).

    >>> parse_bytes("16G"), parse_bytes("8m"), parse_bytes("4K"), parse_bytes("512")
    (17179869184, 8388608, 4096, 512)
    """
    s = text.strip().upper()
    for i, unit in enumerate("KMGT", start=1):
        if unit in s:
            return int(float(s[: s.index(unit)]) * 1024**i)
    return int(float(s))


@dataclass(frozen=True)
class Geometry:
    """The peer's device (`sim/SSD.hpp`, constructor) and reclaim's settings for it."""

    segments: int
    pages_per_segment: int
    logical_pages: int
    measured_writes: int

    @property
    def physical_pages(self) -> int:
        """Physical pages: segments × pages per segment."""
        return self.segments * self.pages_per_segment

    @property
    def spare(self) -> float:
        """reclaim's spare factor: 1 − logical / physical pages."""
        return 1 - self.logical_pages / self.physical_pages

    @property
    def warmup(self) -> str:
        """reclaim's warm-up for the peer's init phase: the fill, then physical-pages writes."""
        return f"fill+{self.physical_pages / self.logical_pages:.9f}x"


def geometry(capacity: str, erase: str, page: str, fill: float, writes: int) -> Geometry:
    """The peer's geometry for its `CAPACITY`, `ERASE`, `PAGE`, `SSDFILL` and `WRITES`.

    The fill is a C `float` in the peer (`SimOptions::ssdFill`), so ⌊pages × fill⌋ is taken in
    single precision as it does.

    >>> g = geometry("16G", "8M", "4K", 0.875, 10)
    >>> g.segments, g.pages_per_segment, g.logical_pages, g.measured_writes, g.warmup
    (2048, 2048, 3670016, 36700100, 'fill+1.142857143x')
    """
    cap, block, pg = parse_bytes(capacity), parse_bytes(erase), parse_bytes(page)
    logical = int(np.float64(cap // pg) * np.float64(np.float32(fill)))
    per_row = logical // 10  # `writesPerRep`, at the default `--print-every 10`
    rows = (writes * logical) // per_row
    return Geometry(cap // block, block // pg, logical, rows * per_row)


def peer_env(setting: str) -> dict[str, str]:
    """The peer's pattern variables for a setting name.

    >>> peer_env("zones-0.95")
    {'PATTERN': 'zones', 'ZONES': 's0.95 f0.05 s0.05 f0.95'}
    >>> peer_env("zipf-0.4"), peer_env("uniform")
    ({'PATTERN': 'zipf', 'ZIPF': '0.4'}, {'PATTERN': 'uniform'})
    """
    if setting == "uniform":
        return {"PATTERN": "uniform"}
    kind, _, value = setting.partition("-")
    if kind == "zones":
        s = float(value)
        f = round(1 - s, 2)
        return {"PATTERN": "zones", "ZONES": f"s{s:g} f{f:g} s{f:g} f{s:g}"}
    if kind == "zipf":
        return {"PATTERN": "zipf", "ZIPF": f"{float(value):g}"}
    raise ValueError(f"setting {setting!r}: expected uniform, zones-S or zipf-T")


def reclaim_workload(setting: str, have: Callable[[str, str], bool]) -> str:
    """reclaim's workload for a setting, given which workloads reclaim has.

    >>> reclaim_workload("zones-0.8", lambda family, name: name == "zones")
    'zones:s=0.8/0.2,f=0.2/0.8'
    >>> reclaim_workload("zones-0.8", lambda family, name: False)
    'hotcold:r=0.8,f=0.2'
    >>> reclaim_workload("zipf-0", lambda family, name: True), reclaim_workload("zipf-1.0", lambda f, n: False)
    ('uniform', 'zipf:theta=1')
    """
    if setting == "uniform":
        return "uniform"
    kind, _, value = setting.partition("-")
    x = float(value)
    if kind == "zones":
        hot = round(1 - x, 2)
        if have("workload", "zones"):
            return f"zones:s={x:g}/{hot:g},f={hot:g}/{x:g}"
        return f"hotcold:r={x:g},f={hot:g}"
    if kind == "zipf":
        if x == 0:
            return "uniform"  # P(k) ∝ k⁰: every page alike
        if have("workload", "zipf-shuffle"):
            return f"zipf-shuffle:theta={x:g}"
        return f"zipf:theta={x:g}"
    raise ValueError(f"setting {setting!r}: expected uniform, zones-S or zipf-T")


def peer_wa(text: str, gc: str) -> float | None:
    """The WA of a peer's output: the last row's `cumulativeWAF`, or for `opt-N` its last
    `optWA:` line; None when the run did not finish a row.

    >>> out = "Init WA: 2.1\\nsim,hash\\nbench,h,1,0.1,x,x,x,zones,0,'z',1,1,0.875,0.4,greedy,2.4,2.5\\nGreedy stats\\n"
    >>> peer_wa(out, "greedy"), peer_wa("optWA: 1.93\\noptWA: 1.9\\n", "opt-1000")
    (2.5, 1.9)
    """
    if gc.startswith("opt"):
        found = re.findall(r"^optWA: ([0-9.eE+-]+)$", text, re.M)
        return float(found[-1]) if found else None
    rows = [line for line in text.splitlines() if line.startswith("bench,")]
    return float(rows[-1].rsplit(",", 1)[1]) if rows else None


def peer_rows(text: str) -> int:
    """The `bench` rows a peer's output holds: WRITES × 10 when the run finished; fewer when it
    stopped (ssdiq_plus's `2a-N` raises SIGINT in `singleGreedyGroup` or fails an `ensure` in
    `compactUntilFreeBlock` on strong skew with its write buffer), and then its last row is a
    WA of fewer writes.

    >>> peer_rows("bench,a\\nx\\nbench,b\\n")
    2
    """
    return sum(1 for line in text.splitlines() if line.startswith("bench,"))


def stopped_note(out: Path, writes: int) -> str:
    """` (stopped: row R of N)` for a kept peer output with fewer rows than a finished run's, else ''."""
    if not out.exists():
        return ""
    n, full = peer_rows(out.read_text()), writes * 10
    return f" (stopped: row {n} of {full})" if 0 < n < full else ""


def run_peer(binary: Path, scheme: Scheme, setting: str, args: argparse.Namespace, runs: Path) -> tuple[float | None, float]:
    """Run (or read back) one peer run; return its WA and wall seconds (0 when read back)."""
    out = runs / scheme.peer / scheme.gc / f"{setting}.out"
    if out.exists():
        wa = peer_wa(out.read_text(), scheme.gc)
        if wa is not None:
            return wa, 0.0
    if args.cached_only:
        print(f"{setting} {scheme.gc}: no finished run in {out.parent}; --cached-only: not run", file=sys.stderr)
        return None, 0.0
    workdir = out.with_suffix(".wd")  # the peer writes its own CSV files where it runs
    workdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        CAPACITY=args.capacity,
        ERASE=args.erase,
        PAGE=args.page,
        SSDFILL=f"{args.fill:g}",
        WRITES=str(args.writes),
        LOAD="true",
        GC=scheme.gc,
        **peer_env(setting),
    )
    start = time.perf_counter()
    with out.open("w") as f:
        subprocess.run(["flock", BUILD_LOCK, str(binary)], cwd=workdir, env=env, stdout=f, stderr=subprocess.STDOUT, check=False)
    return peer_wa(out.read_text(), scheme.gc), time.perf_counter() - start


def reclaim_arguments(scheme: Scheme, setting: str, g: Geometry, seed: int, families: dict[str, set[str]]) -> dict[str, Any] | str:
    """reclaim.simulate's arguments for a row, or why the row is skipped.

    >>> fam = {"policy": {"greedy"}, "placement": {"single"}, "workload": {"uniform"}}
    >>> g = geometry("1G", "8M", "4K", 0.875, 10)
    >>> a = reclaim_arguments(SCHEMES["greedy"], "uniform", g, 1, fam)
    >>> a["policy"], a["placement"], a["gc"], a["logical_pages"], a["segments"]
    ('greedy', 'single', 'frontier', 229376, 128)
    >>> fam["placement"].add("opt")
    >>> reclaim_arguments(SCHEMES["opt"], "uniform", g, 1, fam)["placement"]
    'opt:groups=4'
    >>> reclaim_arguments(SCHEMES["2r-fifo"], "uniform", g, 1, fam)
    'reclaim has no scheme 2r-fifo yet'
    """

    def have(family: str, name: str) -> bool:
        return name in families.get(family, set())

    kw: dict[str, Any] = {
        "segments": g.segments,
        "pages_per_segment": g.pages_per_segment,
        "logical_pages": g.logical_pages,
        "warmup": g.warmup,
        "writes": str(g.measured_writes),
        "gc": "frontier",
        "seed": seed,
        "workload": reclaim_workload(setting, have),
        "policy": "greedy",
        "placement": "single",
    }
    name = scheme.reclaim
    spec = f"{name}:{scheme.params}" if scheme.params else name
    if have("placement", name):
        kw["placement"] = spec
    elif have("policy", name):
        kw["policy"] = spec
    else:
        return f"reclaim has no scheme {name} yet"
    if scheme.peer == "ssdiq_plus" and not scheme.gc.startswith("opt"):
        # opt-N's writePage only counts writes (sim/Optimal.hpp): no block, so no buffer.
        kw["cache"] = math.floor(PLUS_BUFFER_SHARE * g.logical_pages)
    return kw


def page_probabilities(workload: str, g: Geometry) -> np.ndarray:
    """Each logical page's probability of being written, under reclaim's workload law.

    A Zipf workload (`zipf:theta=T`, `zipf-shuffle:theta=T`) gives rank k the probability
    k^−θ / Σⱼ j^−θ (`workload/zipf.rs`, SSD-iq's `shared/RejectionInversionZipf.hpp`), listed by
    rank (the permutation does not change the counts' histogram); any other workload its
    classes as the engine reports them (`_core.class_shares`: pages and write share), a page of
    a class taking the class's share over its pages.

    >>> g = geometry("1G", "8M", "4K", 0.875, 10)
    >>> p = page_probabilities("zones:s=0.8/0.2,f=0.2/0.8", g)
    >>> p.size, round(float(p.sum()), 12), sorted({round(float(x) * g.logical_pages, 6) for x in p})
    (229376, 1.0, [0.25, 4.000017])
    >>> p = page_probabilities("zipf:theta=1", g)
    >>> round(float(p[0] / p[9]), 12)  # rank 1 against rank 10
    10.0
    """
    from reclaim.ssdiq import page_probabilities as law

    return law(workload, g.logical_pages, g.segments, g.pages_per_segment)


def peer_counts(p: np.ndarray, g: Geometry, seed: int) -> np.ndarray:
    """The pages' write counts ssdiq_plus's `opt-N` holds at its last `stats()`: each page once
    (the init phase's sequential fill), then physical-pages init writes and the measured writes
    drawn independently by the law p (`sim.cpp` `runBench`; `writesPerPage` is never reset).

    >>> g = geometry("1G", "8M", "4K", 0.875, 10)
    >>> c = peer_counts(np.full(g.logical_pages, 1 / g.logical_pages), g, 1)
    >>> int(c.sum()) == g.logical_pages + g.physical_pages + g.measured_writes, int(c.min()) >= 1
    (True, True)
    """
    from reclaim.ssdiq import page_counts

    return page_counts(p, g.physical_pages, g.measured_writes, seed)


def formula_wa(scheme: Scheme, p: np.ndarray, g: Geometry, fill: float, seeds: Sequence[int]) -> list[float]:
    """reclaim's evaluation of the peer's `opt-N` formula, once per seed: `opt_wa_of_counts` at
    the peer's fill (a C `float`) on `peer_counts`.

    >>> g = geometry("1G", "8M", "4K", 0.875, 10)
    >>> p = np.full(g.logical_pages, 1 / g.logical_pages)
    >>> [round(x, 3) for x in formula_wa(SCHEMES["opt-1000-formula"], p, g, 0.875, [1, 2])]
    [3.932, 3.932]
    """
    from reclaim.models import ssdiq as model

    groups = int(scheme.gc.rpartition("-")[2])
    fill32 = float(np.float32(fill))
    return [model.opt_wa_of_counts(fill32, peer_counts(p, g, seed), groups) for seed in seeds]


def greedy_uniform_wa(fill: float) -> float:
    """Greedy's WA under uniform writes at fill f as the number of segments grows: Li et al.,
    Corollary 1 (`reclaim.models.li.uniform_cost`), 1 / (1 − u) for the victims' valid share u;
    the formula's 1 / (2(1 − f)) approximates it (4.0 against 4.182 at f = 0.875).

    >>> round(greedy_uniform_wa(0.875), 4)
    4.182
    """
    from reclaim.models import li

    u = li.uniform_cost(1, 1.0 - fill)
    return 1.0 / (1.0 - u)


def opt_decomposition(setting: str, g: Geometry, fill: float, groups: Sequence[int], seed: int, families: dict[str, set[str]]) -> list[dict[str, Any]]:
    """The formula beside the simulation, step by step, for each H of `groups` on one setting:
    the formula on the drawn counts (what `opt-H` prints), on the counts' expectation (the same
    span of writes without the draw's noise, which the formula reads as heat), then with greedy's
    own WA (`greedy_uniform_wa`) in each group at the fill the formula gives it, and reclaim's
    simulation `opt:groups=H` (at H = 1 `single`, greedy over all pages).
    """
    import reclaim
    from reclaim.models import ssdiq as model

    workload = reclaim_workload(setting, lambda family, name: name in families.get(family, set()))
    p = page_probabilities(workload, g)
    fill32 = float(np.float32(fill))
    counts = peer_counts(p, g, seed)
    expected = 1.0 + (g.physical_pages + g.measured_writes) * np.sort(p)[::-1]
    rows = []
    for h in groups:
        hist = np.bincount(model.opt_buckets(g.logical_pages, h), weights=expected, minlength=h)
        two = model.two_a(fill32, [float(x) for x in hist])
        w = hist / hist.sum()
        scheme = Scheme("ssdiq_plus", f"opt-{h}", "opt", f"groups={h}") if h > 1 else SCHEMES["greedy"]
        kw = reclaim_arguments(scheme, setting, g, seed, families)
        sim = None
        if not isinstance(kw, str):
            try:
                sim = reclaim.simulate(**kw).wa
            except (ValueError, RuntimeError) as e:
                print(f"{setting} H={h}: reclaim: {type(e).__name__}: {e}", file=sys.stderr)
        rows.append({
            "setting": setting,
            "groups": h,
            "formula_drawn": model.opt_wa_of_counts(fill32, counts, h),
            "formula_expected": two.wa,
            "formula_expected_greedy": float(sum(wi * greedy_uniform_wa(f) for wi, f in zip(w, two.fills))),
            "reclaim_sim": sim,
        })
        print(f"{setting} H={h}: {rows[-1]}", file=sys.stderr)
    return rows


def decomposition_table(rows: Sequence[dict[str, Any]]) -> str:
    """The decomposition's rows as aligned plain text.

    >>> print(decomposition_table([{"setting": "uniform", "groups": 4, "formula_drawn": 3.94, "formula_expected": 4.0,
    ...                             "formula_expected_greedy": 4.18, "reclaim_sim": 4.24}]))
    setting  H  formula (drawn)  formula (expected)  with greedy's WA  reclaim opt:groups=H  sim / drawn %
    uniform  4           3.9400              4.0000            4.1800                4.2400          +7.61
    """
    head = ("setting", "H", "formula (drawn)", "formula (expected)", "with greedy's WA", "reclaim opt:groups=H", "sim / drawn %")
    cells = [head] + [
        (r["setting"], str(r["groups"]), _fmt(r["formula_drawn"]), _fmt(r["formula_expected"]), _fmt(r["formula_expected_greedy"]),
         _fmt(r["reclaim_sim"]), "" if r["reclaim_sim"] is None else f"{(r['reclaim_sim'] / r['formula_drawn'] - 1) * 100:+.2f}")
        for r in rows
    ]
    width = [max(len(c[i]) for c in cells) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i < 1 else c.rjust(w) for i, (c, w) in enumerate(zip(row, width))).rstrip() for row in cells)


def reclaim_wa(user_writes: int, gc_writes: int, host_writes: int, cached: bool) -> float:
    """reclaim's WA as the peer measures it: flash writes over the host's writes.

    Without a cache that is reclaim's `wa`, (U + G) / U. With ssdiq_plus's write buffer the peer
    divides the flash writes by every write the host issued (`runBench`: physical writes over
    `writesPerRep`), rewrites the buffer absorbed included, while reclaim's U counts only the
    writes that reach the store.

    >>> reclaim_wa(100, 300, 100, False), reclaim_wa(80, 300, 100, True)
    (4.0, 3.8)
    """
    return (user_writes + gc_writes) / (host_writes if cached else user_writes)


def reclaim_families() -> dict[str, set[str]]:
    """The names (and aliases) reclaim's registry has, by family."""
    from reclaim import _core

    out: dict[str, set[str]] = {}
    for entry in _core.schemes():
        out.setdefault(entry["family"], set()).update([entry["name"], *entry.get("aliases", [])])
    return out


def difference(peer: float | None, ours: float | None) -> float | None:
    """reclaim against the peer, in percent.

    >>> difference(2.0, 2.1)
    5.000000000000004
    """
    if peer is None or ours is None:
        return None
    return (ours / peer - 1) * 100


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as aligned plain text (no Markdown: docs/validation.md keeps it in a fenced block)."""
    spread = any(r.get("reclaim_spread_pct") is not None for r in rows)
    head = ("setting", "scheme", "peer", "peer WA", "reclaim WA", "difference %") + (("seeds spread %",) if spread else ())
    cells = [head] + [
        (
            r["setting"],
            r["scheme"],
            r["peer"],
            _fmt(r["peer_wa"]),
            _fmt(r["reclaim_wa"]),
            "" if r["difference_pct"] is None else f"{r['difference_pct']:+.2f}",
        )
        + ((("" if r.get("reclaim_spread_pct") is None else f"{r['reclaim_spread_pct']:.3f}"),) if spread else ())
        for r in rows
    ]
    width = [max(len(c[i]) for c in cells) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(row, width))).rstrip() for row in cells)


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def main(argv: list[str] | None = None) -> int:
    """Run the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ssdiq", type=Path, help="built ssdiq simulator (build/sim/sim)")
    p.add_argument("--ssdiq-plus", type=Path, help="built ssdiq_plus simulator (build/sim/sim)")
    p.add_argument("--capacity", default="16G", help="physical capacity, the peer's CAPACITY (default 16G)")
    p.add_argument("--erase", default="8M", help="erase block, the peer's ERASE (default 8M)")
    p.add_argument("--page", default="4K", help="page, the peer's PAGE (default 4K)")
    p.add_argument("--fill", type=float, default=0.875, help="logical / physical, the peer's SSDFILL (default 0.875)")
    p.add_argument("--writes", type=int, default=10, help="measured writes in logical capacities, the peer's WRITES (default 10)")
    p.add_argument("--settings", default=",".join(SETTINGS), help="comma-separated: uniform, zones-S, zipf-T")
    p.add_argument("--schemes", default=",".join(DEFAULT_SCHEMES), help=f"comma-separated, of {', '.join(SCHEMES)}")
    p.add_argument("--runs", type=Path, default=Path("/tmp/ssdiq-runs"), help="peer outputs, kept and reused")
    p.add_argument("--seed", type=int, default=1, help="reclaim's seed (default 1)")
    p.add_argument("--formula-seeds", type=int, default=4, help="on the *-formula rows, draws of the counts, seeds --seed … (default 4)")
    p.add_argument("--skip-reclaim", action="store_true", help="run the peers only")
    p.add_argument("--cached-only", action="store_true", help="read the peers' kept outputs, run none (then the whole script may run under the build lock)")
    p.add_argument("--csv", type=Path, help="write the rows to this CSV file")
    p.add_argument("--opt-groups", help="instead of the table: for each setting, the formula beside reclaim's opt:groups=H at these H (e.g. 1,2,4,8,16,64)")
    a = p.parse_args(argv)
    if not 0 < a.fill < 1:
        p.error(f"--fill {a.fill}: must be in (0, 1)")
    if a.writes < 1:
        p.error(f"--writes {a.writes}: must be ≥ 1")
    if a.formula_seeds < 1:
        p.error(f"--formula-seeds {a.formula_seeds}: must be ≥ 1")
    settings = [s for s in a.settings.split(",") if s]
    for s in settings:
        peer_env(s)
    names = [s for s in a.schemes.split(",") if s]
    for n in names:
        if n not in SCHEMES:
            p.error(f"--schemes {n}: not one of {', '.join(SCHEMES)}")
    binaries = {"ssdiq": a.ssdiq, "ssdiq_plus": a.ssdiq_plus}
    g = geometry(a.capacity, a.erase, a.page, a.fill, a.writes)
    families = {} if a.skip_reclaim else reclaim_families()
    if a.opt_groups:
        hs = [int(x) for x in a.opt_groups.split(",") if x]
        if any(not 1 <= h <= 64 for h in hs):
            p.error(f"--opt-groups {a.opt_groups}: each H must be in [1, 64] (reclaim's opt:groups range, 1 as single)")
        families = families or reclaim_families()
        drows = [r for s in settings for r in opt_decomposition(s, g, a.fill, hs, a.seed, families)]
        print(decomposition_table(drows))
        return 0
    print(
        f"{a.capacity} physical, {a.erase} blocks, {a.page} pages, fill {a.fill:g}: {g.segments} segments × "
        f"{g.pages_per_segment} pages, {g.logical_pages:,} logical pages (spare {g.spare:.6f}); warm-up {g.warmup}, "
        f"{g.measured_writes:,} measured writes",
        file=sys.stderr,
    )
    rows: list[dict[str, Any]] = []
    laws: dict[str, np.ndarray] = {}
    for name in names:
        scheme = SCHEMES[name]
        binary = binaries[scheme.peer]
        for setting in settings:
            row: dict[str, Any] = {"setting": setting, "scheme": name, "peer": f"{scheme.peer} {scheme.gc}"}
            if binary is None:
                print(f"{setting} {name}: no --{scheme.peer.replace('_', '-')} given, peer skipped", file=sys.stderr)
                row["peer_wa"], row["peer_s"] = None, None
            else:
                row["peer_wa"], row["peer_s"] = run_peer(binary, scheme, setting, a, a.runs)
                if not scheme.gc.startswith("opt"):
                    # A run that stopped early is compared over fewer writes: say so on its row.
                    row["peer"] += stopped_note(a.runs / scheme.peer / scheme.gc / f"{setting}.out", a.writes)
            row["reclaim_wa"], row["reclaim_s"], row["reclaim_workload"] = None, None, ""
            row["reclaim_spread_pct"] = None
            if scheme.formula and not a.skip_reclaim:
                workload = reclaim_workload(setting, lambda family, n: n in families.get(family, set()))
                start = time.perf_counter()
                if workload not in laws:
                    laws[workload] = page_probabilities(workload, g)
                values = formula_wa(scheme, laws[workload], g, a.fill, range(a.seed, a.seed + a.formula_seeds))
                mean = sum(values) / len(values)
                row["reclaim_wa"], row["reclaim_s"], row["reclaim_workload"] = mean, time.perf_counter() - start, workload
                row["reclaim_spread_pct"] = (max(values) - min(values)) / mean * 100
            elif not a.skip_reclaim:
                kw = reclaim_arguments(scheme, setting, g, a.seed, families)
                if isinstance(kw, str):
                    print(f"{setting} {name}: {kw}; reclaim skipped", file=sys.stderr)
                else:
                    import reclaim

                    start = time.perf_counter()
                    try:
                        r = reclaim.simulate(**kw)
                    except (ValueError, RuntimeError) as e:  # a refused spec, or a run that stopped
                        print(f"{setting} {name}: reclaim: {type(e).__name__}: {e}", file=sys.stderr)
                    else:
                        row["reclaim_wa"] = reclaim_wa(r.user_writes, r.gc_writes, g.measured_writes, "cache" in kw)
                        row["reclaim_s"] = time.perf_counter() - start
                    row["reclaim_workload"] = kw["workload"]
            row["difference_pct"] = difference(row["peer_wa"], row["reclaim_wa"])
            rows.append(row)
            print(f"{setting} {name}: peer {_fmt(row['peer_wa'])} reclaim {_fmt(row['reclaim_wa'])}", file=sys.stderr)
    print(table(rows))
    if a.csv:
        with a.csv.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["setting"])
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
