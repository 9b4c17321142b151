"""`reclaim bench`: engine speed and the memory of a 1 TB geometry.

Speed: uniform writes on 10,000 segments × 64 pages at spare 0.10, for greedy, FIFO and
d-choices (d = 10), then greedy with each placement scheme or option changed; each run reports
page writes (user + GC) and user writes per second over its measured phase; the median of
``runs`` runs is reported. Timed rows: greedy on the same geometry with a ``femu`` and an
``mqsim`` device whose superblock is the 64-page segment, each run beside the same run without a
device, interleaved, and their ratio. ``--compare REV`` instead sets the engine beside another revision's,
interleaved. Memory: a child process builds a 1 TiB
device (268,435,456 physical pages of 4 KiB, 64 per segment, spare 0.10), fills it and writes
until the cleaner has run, and reports its peak resident set size.

``--sizes`` measures how the speed scales with the device: greedy, FIFO, d-choices (d = 10) and
cost-benefit on 10,000 to 4,194,304 segments of 64 pages (2.4 GiB to 1 TiB of 4 KiB pages), each
run in a child process whose peak resident set size is reported beside its speed. With
``--compare REV`` the two engines alternate at every size.
"""

from __future__ import annotations

import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.table import Table

from reclaim.api import SimConfig, SimResult, simulate
from reclaim.progress import plain_console, progress_bar

POLICIES = ("greedy", "fifo", "d-choices:d=10")

#: The placement layer's rows: greedy on the speed geometry with one scheme or option changed
#: each (name, overrides). Oracle and regions need classes: hot/cold 90/10 there.
PLACEMENTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("double:copy=random", {"placement": "double:copy=random"}),
    ("oracle (hot/cold 90/10)", {"placement": "oracle", "workload": "hotcold:r=0.9,f=0.1"}),
    ("regions:spare=0.5/0.5 (hot/cold 90/10)", {"placement": "regions:spare=0.5/0.5", "workload": "hotcold:r=0.9,f=0.1"}),
    ("streams=cache", {"streams": "cache"}),
    ("write cache 4096 pages", {"cache": 4096}),
    ("batch:low=32,victims=64,gather=all,sort=stamp", {"gc": "batch:low=32,victims=64,gather=all,sort=stamp"}),
    ("max-empty:k=8", {"gc": "max-empty:k=8"}),
    ("greedy:tie=fifo", {"policy": "greedy:tie=fifo"}),
    ("free_empty", {"free_empty": True}),
    ("age-threshold:nat=0.1,buckets=10", {"policy": "age-threshold:nat=0.1,buckets=10"}),
    ("fitness (exact)", {"policy": "fitness"}),
    ("age-sorted 16+16 streams", {"placement": "age-sorted"}),
    ("cost-benefit:form=lomet", {"policy": "cost-benefit:form=lomet"}),
    # SepBIT's artifact's cost-benefit (trace time since sealing; a synthetic workload's writes are
    # 1 µs apart) and SepBIT's two ablations.
    ("cost-benefit:form=sepbit", {"policy": "cost-benefit:form=sepbit"}),
    # SepBIT's artifact's other selections.
    ("random-greedy", {"policy": "random-greedy"}),
    ("lru", {"policy": "lru"}),
    # SFS's cost-hotness (Min et al. §4.4): per-page write counts and times, segments bucketed by
    # their score at a reference time ahead.
    ("cost-hotness", {"policy": "cost-hotness"}),
    # SFS as the artifact runs it (a quantization over every sealed segment per collected one),
    # and re-quantizing after 2% of the sealed segments are collected.
    ("sfs (hot/cold 90/10)", {"placement": "sfs", "workload": "hotcold:r=0.9,f=0.1"}),
    ("sfs:requantize=0.02 (hot/cold 90/10)", {"placement": "sfs:requantize=0.02", "workload": "hotcold:r=0.9,f=0.1"}),
    # MiDAS (Oh et al., FAST '24) on Zipf(0.99): its chain, hot filter and UID on every write,
    # GCS at each epoch's end (4x the logical space after the fill and 1x more).
    ("midas (Zipf 0.99)", {"placement": "midas", "workload": "zipf:theta=0.99"}),
    ("sepbit (hot/cold 90/10)", {"placement": "sepbit", "workload": "hotcold:r=0.9,f=0.1"}),
    ("sepbit:separate=user (uw, hot/cold 90/10)", {"placement": "sepbit:separate=user", "workload": "hotcold:r=0.9,f=0.1"}),
    ("sepbit:separate=gc (gw, hot/cold 90/10)", {"placement": "sepbit:separate=gc", "workload": "hotcold:r=0.9,f=0.1"}),
    ("multi-log:form=sepbit (hot/cold 90/10)", {"placement": "multi-log:form=sepbit", "workload": "hotcold:r=0.9,f=0.1"}),
    ("shifting hot set 90/10", {"workload": "shifting:r=0.9,f=0.1"}),
    # Lomet & Luo's MDC (§6.1.1): a 16-segment sort buffer, batches of 64 sorted by u_p2.
    ("mdc, sort-buffer 16, batch 32/64 sort=up2", {
        "policy": "mdc", "placement": "sort-buffer:segments=16", "gc": "batch:low=32,victims=64,gather=all,sort=up2"}),
    # MQSim's per-plane allocation: 64 regions of 156 segments, each its own frontier and cleaning.
    ("planes:n=64", {"placement": "planes:n=64"}),
    ("multi-log, 8 logs, batch 32/1", {
        "policy": "multi-log", "placement": "multi-log", "gc": "batch:low=32,victims=1"}),
    # SSD-iq's names for two of the schemes above (2r-greedy and 2r-fifo get their rows from
    # their registration).
    ("greedy-s2r (double:copy=oldest)", {"placement": "double:copy=oldest"}),
    ("greedy-k:k=8 (d-choices:d=8)", {"policy": "greedy-k:k=8"}),
    # SSD-iq's schemes in ssdiq_plus's simulator: 2a and tt (write heads by update interval, a
    # scan of the segments per cleaning cycle for 2a's group fills), gen, opt (4 groups by rate
    # rank, from the classes) and deathtime (4 groups by estimated death time).
    ("2a:heads=4 (hot/cold 90/10)", {"placement": "2a:heads=4", "workload": "hotcold:r=0.9,f=0.1"}),
    ("2a:heads=4,clean=greedy (tt, hot/cold 90/10)", {"placement": "2a:heads=4,clean=greedy", "workload": "hotcold:r=0.9,f=0.1"}),
    ("gen (hot/cold 90/10)", {"placement": "gen", "workload": "hotcold:r=0.9,f=0.1"}),
    ("opt:groups=4 (hot/cold 90/10)", {"placement": "opt:groups=4", "workload": "hotcold:r=0.9,f=0.1"}),
    ("deathtime (hot/cold 90/10)", {"placement": "deathtime", "workload": "hotcold:r=0.9,f=0.1"}),
    # Pages of 1 … 8 slots (Lomet & Luo §4.4) in segments of 512 slots, the same physical slots;
    # rates count slot writes.
    ("greedy, sizes 1-8 slots, 1,250 x 512-slot segments", {
        "segments": 1250, "pages_per_segment": 512, "sizes": "uniform:min=1,max=8"}),
    ("mdc, sort-buffer 16, sizes 1-8 slots, 1,250 x 512-slot segments", {
        "segments": 1250, "pages_per_segment": 512, "sizes": "uniform:min=1,max=8", "policy": "mdc",
        "placement": "sort-buffer:segments=16", "gc": "batch:low=32,victims=64,gather=all,sort=up2"}),
    # MDC-opt (§6.1.1, Table 2): exact frequencies keyed by each page's rate, in the sort
    # buffer and in the sorted batch.
    ("mdc-opt: mdc:freq=exact, sort-buffer 16, batch 32/64 sort=up2 (hot/cold 80/20)", {
        "policy": "mdc:freq=exact", "placement": "sort-buffer:segments=16",
        "gc": "batch:low=32,victims=64,gather=all,sort=up2", "workload": "hotcold:r=0.8,f=0.2"}),
    ("mdc:freq=exact, oracle (hot/cold 90/10)", {
        "policy": "mdc:freq=exact", "placement": "oracle", "workload": "hotcold:r=0.9,f=0.1"}),
    # Stockmeyer's fitness-tree configuration (§2.3): 16 + 16 age-sorted streams acting as a
    # cache, 10 buckets in Tree order, a 320-track LRU cache, MaxEmpty 1, emptied segments freed.
    ("fitness-tree, 16+16 cache streams, cache 320", {
        "policy": "fitness:buckets=10,sort=tree", "placement": "age-sorted", "streams": "cache",
        "cache": 320, "gc": "max-empty:k=1", "free_empty": True}),
)
#: The rows whose speed is also reported as a share of greedy's, measured in interleaved pairs.
FITNESS_TREE = "fitness-tree, 16+16 cache streams, cache 320"
MDC = "mdc, sort-buffer 16, batch 32/64 sort=up2"
TB_PAGES = 1 << 28  # 1 TiB / 4 KiB
TB_PAGES_PER_SEGMENT = 64

#: `--sizes`: device sizes [segments of 64 pages] with each one's warm-up and measured writes,
#: enough for the cleaner's steady state and at least 100M measured page writes, and the
#: policies timed at each.
SCALING: tuple[tuple[int, str, str], ...] = (
    (10_000, "fill+2x", "10x"),
    (100_000, "fill+2x", "2x"),
    (1_000_000, "fill+1x", "0.5x"),
    (1 << 22, "fill+1x", "0.25x"),
)
SCALING_POLICIES = ("greedy", "fifo", "d-choices:d=10", "cost-benefit")

_CHILD = """
import json, resource, sys
from reclaim import _core
cfg = json.loads(sys.argv[1])
sim = _core.Simulator(json.dumps(cfg))
while sim.step(1 << 24):
    pass
r = sim.result()
print(json.dumps({"gc_writes": r["gc_writes"], "user_writes": r["user_writes"],
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


_SIZE_CHILD = """
import json, sys
from reclaim import _core
sim = _core.Simulator(sys.argv[1])
while sim.step(1 << 24):
    pass
r = sim.result()
print(json.dumps({"page_writes_per_second": r["page_writes_per_second"], "wa": r["wa"]}))
"""


def scaling_config(segments: int, policy: str, seed: int) -> dict[str, Any]:
    """The configuration `--sizes` times at ``segments`` segments: the warm-up and measured
    writes of the first row of :data:`SCALING` at least as large (of the last beyond them)."""
    warmup, writes = next(((w, x) for s, w, x in SCALING if s >= segments), SCALING[-1][1:])
    return {"segments": segments, "pages_per_segment": 64, "spare": 0.10, "policy": policy, "workload": "uniform",
            "warmup": warmup, "writes": writes, "seed": seed}


def _peak_rss(pid: int, last: int) -> int:
    """Process ``pid``'s peak resident set so far [bytes] (``VmHWM``), or ``last`` once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return max(last, int(line.split()[1]) * 1024)
    except (OSError, ValueError):
        pass
    return last


def _run_measured(argv: Sequence[str]) -> tuple[str, int]:
    """Runs ``argv`` to its end; its standard output and its peak resident set [bytes].

    The peak is the child's ``VmHWM``, read every hundredth of a second for its first second
    and every tenth after: its own,
    since it was started (a ``wait4`` count would include the copy of this process it was forked
    from). The engine reaches its peak when its arrays are written, long before it ends.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(list(argv), stdout=out, stderr=err)
        peak, polls = 0, 0
        try:
            while True:
                peak = _peak_rss(proc.pid, peak)
                polls += 1
                try:
                    # Often at first, for runs of a fraction of a second.
                    proc.wait(timeout=0.01 if polls < 100 else 0.1)
                    break
                except subprocess.TimeoutExpired:
                    continue
        finally:
            if proc.returncode is None:
                proc.kill()
                proc.wait()
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{argv[0]} failed (exit {proc.returncode}): {err.read().decode(errors='replace')[-2000:]}")
        out.seek(0)
        return out.read().decode(), peak


def _parse_sizes(segments: str | None) -> list[int]:
    if segments is None:
        return [s for s, _, _ in SCALING]
    out = []
    for part in segments.split(","):
        try:
            n = int(part.replace("_", ""))
        except ValueError:
            n = 0
        if n < 16 or n > 1 << 26:
            raise ValueError(f"invalid value for `segments`: {part!r} (expected comma-separated segment counts, "
                             f"each a whole number from 16 to {1 << 26:,})")
        out.append(n)
    return out


def measure_scaling(runs: int = 5, segments: str | None = None, policies: Sequence[str] = SCALING_POLICIES,
                    compare: str | None = None, show: bool = True) -> dict[str, Any]:
    """Speed and peak memory against device size (`reclaim bench --sizes`).

    Each run is a child process: the installed engine in a Python interpreter (whose own 30 MiB
    or so are in its resident set), or with ``compare`` the ``simulate`` example built at that
    revision and in the working tree, alternating run by run so that a shared machine's drifting
    load falls on both alike; at each size the policies take turns seed by seed, for the same
    reason. Reports, per policy and size, the median page writes per second and the largest peak
    resident set of the runs, and with greedy among the policies each one's share of greedy's
    speed: the median of the seeds' ratios (of the working tree's engine, with ``compare``).
    """
    _check_runs(runs)
    sizes = _parse_sizes(segments)
    binaries: dict[str, Path] = {}
    if compare is not None:
        base, old, new = _build_pair(compare)
        binaries = {"base": old, "new": new}
    engines = list(binaries) or ["engine"]
    report: dict[str, Any] = {"runs": runs, "pages_per_segment": 64, "spare": 0.10, "rows": []}
    if compare is not None:
        report["base"] = base
    total = len(policies) * len(sizes) * runs * len(engines)
    # Each size's runs interleaved across the policies as well as the engines (seed by seed),
    # so that a policy's speed as a share of another's sees the same load.
    got: dict[tuple[str, int], dict[str, list[tuple[float, int]]]] = {
        (policy, n): {e: [] for e in engines} for policy in policies for n in sizes}
    with progress_bar(enabled=show and sys.stderr.isatty()) as p:
        task = p.add_task("bench --sizes", total=total)
        for n in sizes:
            for seed in range(1, runs + 1):
                for policy in policies:
                    cfg = json.dumps(scaling_config(n, policy, seed))
                    for e in (engines if seed % 2 else engines[::-1]):
                        p.update(task, description=f"{policy}, {n:,} segments")
                        if e == "engine":
                            out, rss = _run_measured([sys.executable, "-c", _SIZE_CHILD, cfg])
                            speed = float(json.loads(out)["page_writes_per_second"])
                        else:
                            out, rss = _run_measured([str(binaries[e]), cfg])
                            m = _SPEED.search(out)
                            if m is None:
                                raise RuntimeError(f"{binaries[e]}: no speed in its output: {out!r}")
                            speed = float(m.group(1)) * 1e6
                        got[policy, n][e].append((speed, rss))
                        p.advance(task)
    for policy in policies:
        for n in sizes:
            row: dict[str, Any] = {"policy": policy, "segments": n, "physical_pages": n * 64}
            for e, v in got[policy, n].items():
                row[f"{e}_page_writes_per_second"] = statistics.median(x for x, _ in v)
                row[f"{e}_runs"] = [x for x, _ in v]
                row[f"{e}_peak_rss_bytes"] = max(r for _, r in v)
            if compare is not None:
                row["ratio"] = row["new_page_writes_per_second"] / row["base_page_writes_per_second"]
            if "greedy" in policies:
                # The median of the same seeds' ratios, each run beside greedy's under one load.
                e = engines[-1]
                row["share_of_greedy"] = statistics.median(
                    x / g for (x, _), (g, _) in zip(got[policy, n][e], got["greedy", n][e], strict=True))
            report["rows"].append(row)
    if show:
        plain_console().print(_scaling_table(report, engines))
    return report


def _scaling_table(report: dict[str, Any], engines: Sequence[str]) -> Table:
    t = Table(title=f"reclaim bench --sizes — uniform, 64 pages of 4 KiB per segment, spare 0.10, "
                    f"median of {report['runs']} runs")
    t.add_column("policy")
    t.add_column("segments", justify="right")
    t.add_column("device", justify="right")
    for e in engines:
        t.add_column("M page writes/s" if e == "engine" else f"{e} M/s", justify="right")
        t.add_column("peak RSS" if e == "engine" else f"{e} RSS", justify="right")
    if "base" in report:
        t.add_column("new/base", justify="right")
    shares = any("share_of_greedy" in row for row in report["rows"])
    if shares:
        t.add_column("/greedy" if "base" not in report else "new/greedy", justify="right")
    for row in report["rows"]:
        cells = [row["policy"], f"{row['segments']:,}", _gib(row["physical_pages"] * 4096)]
        for e in engines:
            cells += [f"{row[f'{e}_page_writes_per_second'] / 1e6:.1f}", _gib(row[f"{e}_peak_rss_bytes"])]
        if "ratio" in row:
            cells.append(f"{row['ratio']:.3f}")
        if shares:
            cells.append(f"{row['share_of_greedy']:.3f}")
        t.add_row(*cells)
    return t


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def speed_config(policy: str, writes: str, seed: int) -> SimConfig:
    """The speed benchmark's configuration."""
    return SimConfig(
        segments=10_000,
        pages_per_segment=64,
        spare=0.10,
        policy=policy,
        workload="uniform",
        warmup="fill+2x",
        writes=writes,
        seed=seed,
    )


def _check_runs(runs: int) -> None:
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"invalid value for `runs`: {runs!r} (expected a whole number of runs ≥ 1)")


def _medians(results: Sequence[SimResult]) -> dict[str, float]:
    """Median page writes/s, user writes/s and WA of a row's runs."""
    return {
        "page_writes_per_second": statistics.median(r.page_writes_per_second for r in results),
        "user_writes_per_second": statistics.median(r.user_writes_per_second for r in results),
        "wa": statistics.median(r.wa for r in results),
    }


def _speed_table(title: str, first: str, rows: dict[str, dict[str, float]]) -> Table:
    t = Table(title=title)
    t.add_column(first)
    t.add_column("M page writes/s", justify="right")
    t.add_column("M user writes/s", justify="right")
    t.add_column("wa", justify="right")
    for name, v in rows.items():
        t.add_row(name, f"{v['page_writes_per_second'] / 1e6:.1f}", f"{v['user_writes_per_second'] / 1e6:.1f}", f"{v['wa']:.3f}")
    return t


#: Placements that run only on a trace replayed by the `log` method (the future-knowledge
#: oracle reads the trace ahead): their rows replay :func:`log_trace` instead.
LOG_ONLY = frozenset({"fk"})

#: The key of a row's overrides that asks for the `log` replay of :func:`log_trace`.
LOG_TRACE = "log_trace"


def placement_rows() -> tuple[tuple[str, dict[str, Any]], ...]:
    """:data:`PLACEMENTS`, then a row for every registered placement none of them names (by its
    name, on hot/cold 90/10 writes; a placement of :data:`LOG_ONLY` under the `log` method on a
    hot/cold trace of the same size): a new placement gets its row from its registration."""
    from reclaim.schemes import schemes

    named = {str(o.get("placement", "")).split(":")[0] for _, o in PLACEMENTS}
    extra = tuple(
        (f"{s['name']} (log, hot/cold 90/10 trace)", {"placement": s["name"], LOG_TRACE: True})
        if s["name"] in LOG_ONLY else
        (f"{s['name']} (hot/cold 90/10)", {"placement": s["name"], "workload": "hotcold:r=0.9,f=0.1"})
        for s in schemes("placements")
        if s["name"] not in named and s["name"] != "single" and all(p["default"] is not None for p in s["params"]))
    return PLACEMENTS + extra


_LOG_TRACES: dict[tuple[str, int], str] = {}


def log_trace(writes: str, seed: int) -> str:
    """A converted trace of the speed geometry's size for the `log` replay: the 576,000 pages
    that 10,000 × 64 at spare 0.10 holds written once in order, then ``writes`` (a multiple of
    the 640,000 physical pages) single-page writes, 90% of them to a random tenth of the pages
    (the hot/cold trace of SepBIT's artifact, at this size); made once per (writes, seed)."""
    import numpy as np

    from reclaim import traces

    key = (writes, seed)
    if key not in _LOG_TRACES:
        n, physical = 576_000, 640_000
        count = int(float(writes.rstrip("x")) * physical)
        rng = np.random.default_rng(seed)
        ids = rng.permutation(n)
        hot, cold = ids[: n // 10], ids[n // 10:]
        is_hot = rng.random(count) < 0.9
        drawn = np.where(is_hot, hot[rng.integers(0, len(hot), count)], cold[rng.integers(0, len(cold), count)])
        path = Path(tempfile.mkdtemp(prefix="reclaim-bench-")) / f"hot-cold-{writes}-{seed}.rtr"
        traces.write_pages(np.concatenate([np.arange(n), drawn]).astype(np.uint32), path)
        _LOG_TRACES[key] = str(path)
    return _LOG_TRACES[key]


def row_config(overrides: dict[str, Any], writes: str, seed: int) -> SimConfig:
    """The configuration of a placement row: greedy on the speed geometry with the row's
    overrides, or for a :data:`LOG_TRACE` row greedy's `log` replay of :func:`log_trace`."""
    if overrides.get(LOG_TRACE):
        rest = {k: v for k, v in overrides.items() if k != LOG_TRACE}
        return SimConfig(pages_per_segment=64, policy="greedy", workload=f"trace:{log_trace(writes, seed)}",
                         method="log", seed=seed, **rest)
    return SimConfig(**{**speed_config("greedy", writes, seed).to_dict(), **overrides})


#: Timed rows: a device whose superblock is the speed geometry's 64-page segment (name, device,
#: its geometry in words). FEMU's 8 channels × 8 dies with one plane and one page per block;
#: MQSim's 2 planes on 4 channels × 8 dies, one page per block.
DEVICES = (("femu", "femu:pages_per_block=1", "8 ch × 8 dies × 1 plane × 1 page"),
           ("mqsim", "mqsim:channels=4,pages_per_block=1", "4 ch × 8 dies × 2 planes × 1 page"))
#: How a timed row's requests arrive: fio's usual queue depth, writes only.
TIMED_ARRIVALS = "closed:iodepth=32"


def measure_timed(runs: int, writes: str) -> dict[str, Any]:
    """Greedy on the speed geometry with each device of :data:`DEVICES` (every flash operation on
    the dies' timelines, latencies into histograms) against the same run without a device: the
    two alternate run by run, same seed, so that a shared machine's drifting load falls on both.
    Per device: the median page writes/s of each, the ratio of the medians, and the median,
    lowest and highest ratio of the pairs run back to back."""
    _check_runs(runs)
    out: dict[str, Any] = {}
    for name, device, geometry in DEVICES:
        timed: list[SimResult] = []
        plain: list[SimResult] = []
        for seed in range(1, runs + 1):
            config = speed_config("greedy", writes, seed)
            with_device = replace(config, device=device, arrivals=TIMED_ARRIVALS)
            for c, into in ((config, plain), (with_device, timed)) if seed % 2 else ((with_device, timed), (config, plain)):
                into.append(simulate(c))
        ratios = [t.page_writes_per_second / p.page_writes_per_second for t, p in zip(timed, plain, strict=True)]
        a, b = _medians(timed), _medians(plain)
        out[name] = {"device": device, "geometry": geometry, "arrivals": TIMED_ARRIVALS, "timed": a, "untimed": b,
                     "ratio": a["page_writes_per_second"] / b["page_writes_per_second"],
                     "pair_ratio": statistics.median(ratios), "low": min(ratios), "high": max(ratios),
                     "iops": statistics.median(t.time.iops for t in timed if t.time is not None)}
    return out


def _timed_table(rows: dict[str, Any], runs: int) -> Table:
    specs = "; ".join(f"{name} = {v['device']} ({v['geometry']})" for name, v in rows.items())
    t = Table(title=f"greedy with a device ({specs}; {TIMED_ARRIVALS}) against without, median of {runs} interleaved pairs")
    for c in ("device", "M page writes/s timed", "untimed", "ratio", "pairs (low–high)", "IOPS"):
        t.add_column(c, justify="left" if c == "device" else "right")
    for name, v in rows.items():
        t.add_row(name, f"{v['timed']['page_writes_per_second'] / 1e6:.1f}", f"{v['untimed']['page_writes_per_second'] / 1e6:.1f}",
                  f"{v['ratio']:.3f}", f"{v['pair_ratio']:.3f} ({v['low']:.3f}–{v['high']:.3f})", f"{v['iops']:,.0f}")
    return t


def measure_placements(runs: int, writes: str) -> dict[str, Any]:
    """Greedy's speed with each placement scheme or option of :func:`placement_rows`."""
    out: dict[str, Any] = {}
    for name, overrides in placement_rows():
        out[name] = _medians([simulate(row_config(overrides, writes, seed)) for seed in range(1, runs + 1)])
    return out


def measure_share(runs: int, writes: str, row: str = FITNESS_TREE) -> dict[str, Any]:
    """A placement row's page writes/s as a share of plain greedy's, from ``runs`` pairs of runs
    (greedy, then the row, same seed) one right after the other: the machines are shared and
    their speed drifts over minutes, which a ratio of separate medians would absorb. The median
    of the pairs' ratios, with the lowest and highest."""
    _check_runs(runs)
    overrides = dict(placement_rows())[row]
    ratios = []
    for seed in range(1, runs + 1):
        greedy = simulate(speed_config("greedy", writes, seed)).page_writes_per_second
        other = simulate(row_config(overrides, writes, seed)).page_writes_per_second
        ratios.append(other / greedy)
    return {"row": row, "pairs": runs, "median": statistics.median(ratios), "low": min(ratios), "high": max(ratios)}


#: The schemes written in Python that `reclaim bench --python` times, each beside the engine's
#: scheme it reimplements (name, Python spec, engine spec, which of policy or placement, workload).
PYTHON_ROWS: tuple[tuple[str, str, str, str, str], ...] = (
    ("greedy (uniform)", "greedy.py:Greedy", "greedy", "policy", "uniform"),
    ("greedy (hot/cold 90/10)", "greedy.py:Greedy", "greedy", "policy", "hotcold:r=0.9,f=0.1"),
    ("sepbit-uw, batches of 4,096 (hot/cold 90/10)", "sepbit.py:SepBITUser", "sepbit:separate=user", "placement",
     "hotcold:r=0.9,f=0.1"),
    ("sepbit, batches of 4,096 (hot/cold 90/10)", "sepbit.py:SepBIT", "sepbit", "placement", "hotcold:r=0.9,f=0.1"),
)


def measure_python(runs: int = 5, writes: str = "10x", show: bool = True) -> dict[str, Any]:
    """The schemes of ``examples/python_schemes`` on the speed geometry, each run right after the
    engine's own scheme it reimplements with the same seed: medians of page writes/s (policies)
    and user writes/s (placements), the median of the pairs' ratios, and each Python call's cost
    in microseconds (the extra time per victim choice or per batch over the engine's run)."""
    _check_runs(runs)
    folder = Path(__file__).resolve().parents[2] / "examples" / "python_schemes"
    if not folder.is_dir():
        raise RuntimeError(f"`--python` times the examples of a checkout's examples/python_schemes; {folder} is not there")
    rows: dict[str, Any] = {}
    for name, py, rust, kind, workload in PYTHON_ROWS:
        pairs = []
        for seed in range(1, runs + 1):
            base = replace(speed_config("greedy", writes, seed), workload=workload)
            spec = f"{folder}/{py}"
            a = simulate(replace(base, policy=rust) if kind == "policy" else replace(base, placement=rust))
            b = simulate(replace(base, policy=spec) if kind == "policy" else replace(base, placement=spec))
            pairs.append((a, b))
        key = "page_writes_per_second" if kind == "policy" else "user_writes_per_second"
        r = statistics.median(getattr(a, key) for a, _ in pairs)
        p = statistics.median(getattr(b, key) for _, b in pairs)
        # Calls: one per victim (erases) for a policy; a batch per 4,096 user writes and one per
        # victim for a placement.
        extra = statistics.median(b.seconds - a.seconds for a, b in pairs)
        a0, b0 = pairs[0]
        calls = b0.erases if kind == "policy" else b0.user_writes / 4096 + b0.erases
        rows[name] = {"python": py, "engine": rust, "metric": key, "engine_median": r, "python_median": p,
                      "ratio": statistics.median(getattr(b, key) / getattr(a, key) for a, b in pairs),
                      "wa_engine": statistics.median(a.wa for a, _ in pairs), "wa_python": statistics.median(b.wa for _, b in pairs),
                      "us_per_call": extra / calls * 1e6}
    report = {"runs": runs, "writes": writes, "rows": rows}
    if show:
        t = Table(title=f"schemes written in Python beside the engine's, 10,000 x 64, spare 0.10, median of {runs} interleaved pairs")
        for col in ("row", "engine", "Python", "ratio", "per call", "WA engine", "WA Python"):
            t.add_column(col, justify="left" if col == "row" else "right")
        for name, r in rows.items():
            unit = "M page w/s" if r["metric"] == "page_writes_per_second" else "M user w/s"
            t.add_row(name, f"{r['engine_median'] / 1e6:.1f} {unit}", f"{r['python_median'] / 1e6:.2f}", f"{r['ratio']:.3f}",
                      f"{r['us_per_call']:.2f} µs", f"{r['wa_engine']:.4f}", f"{r['wa_python']:.4f}")
        plain_console().print(t)
    return report


def _repository() -> Path:
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=Path(__file__).resolve().parent,
                             check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError("`--compare` builds revisions of the engine: it needs reclaim installed from a git checkout "
                           f"(`make build`) and git on the PATH ({e})") from e
    return Path(top)


def _build_simulate(tree: Path, target: Path) -> Path:
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "reclaim-core", "--example", "simulate",
                    "--target-dir", str(target)], cwd=tree, check=True)
    return target / "release" / "examples" / "simulate"


_SPEED = re.compile(r"([0-9.]+) M page writes/s")


def _run_simulate(binary: Path, config: dict[str, Any]) -> float:
    out = subprocess.run([str(binary), json.dumps(config)], check=True, capture_output=True, text=True).stdout
    m = _SPEED.search(out)
    if m is None:
        raise RuntimeError(f"{binary}: no speed in its output: {out!r}")
    return float(m.group(1))


def _build_pair(base: str) -> tuple[str, Path, Path]:
    """Builds the ``simulate`` example at revision ``base`` (in a git worktree under
    ``target/compare-base/``) and in the working tree: the base's commit and both binaries."""
    root = _repository()
    rev = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], cwd=root,
                         capture_output=True, text=True)
    if rev.returncode != 0:
        raise ValueError(f"invalid value for `compare`: {base!r} (expected a commit, tag or branch of {root})")
    commit = rev.stdout.strip()
    tree = root / "target" / "compare-base" / commit[:12]
    if not tree.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=root, check=True,
                       capture_output=True)
    old = _build_simulate(tree, root / "target" / "compare-base-build")
    new = _build_simulate(root, root / "target")
    return commit, old, new


def _compare_config(name: str, writes: str, seed: int) -> dict[str, Any]:
    """The configuration a ``--compare`` entry names: a policy on the speed geometry, or with
    ``row:PREFIX`` the placement row whose name starts with PREFIX (``row:fitness-tree``,
    ``row:mdc``)."""
    if not name.startswith("row:"):
        return speed_config(name, writes, seed).to_dict()
    prefix = {"fitness-tree": FITNESS_TREE, "mdc": MDC}.get(name[4:], name[4:])
    rows = [(n, o) for n, o in placement_rows() if n.startswith(prefix)]
    if len(rows) != 1:
        raise ValueError(f"invalid value for `policies`: {name!r} (expected `row:` and the start of one placement row's "
                         f"name, such as row:fitness-tree or row:mdc; {len(rows)} rows match)")
    return row_config(rows[0][1], writes, seed).to_dict()


_INSTRUCTIONS = re.compile(r"I\s+refs:\s+([0-9,]+)")


def _count_instructions(binary: Path, config: dict[str, Any]) -> int:
    """Instructions one run of ``binary`` executes, counted by valgrind's cachegrind (without
    its cache simulation): the same on every run, whatever else the machine is doing."""
    proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           str(binary), json.dumps(config)], capture_output=True, text=True, check=False)
    m = _INSTRUCTIONS.search(proc.stderr)
    if proc.returncode != 0 or m is None:
        raise RuntimeError(f"{binary} under cachegrind: exit {proc.returncode}, no instruction count in "
                           f"{proc.stderr[-500:]!r}")
    return int(m.group(1).replace(",", ""))


def compare_instructions(base: str, writes: str = "2x", policies: Sequence[str] = ("greedy", "fifo"),
                         show: bool = True) -> dict[str, Any]:
    """Instructions executed by the working tree's engine against revision ``base``'s, per policy.

    One run of each under valgrind's cachegrind (about 50 times slower than a plain run, hence
    the shorter default length). The count does not move with a shared machine's load, where
    wall-clock medians can move by 5-10% between runs of the same binary; it does not see cache
    misses or branch prediction, so it complements the timed comparison, it does not replace it.
    """
    if shutil.which("valgrind") is None:
        raise ValueError("`--instructions` needs valgrind on the PATH (Debian: apt install valgrind)")
    commit, old, new = _build_pair(base)
    report: dict[str, Any] = {"base": commit, "writes": writes, "policies": {}}
    for policy in policies:
        config = _compare_config(policy, writes, 1)
        a, b = _count_instructions(old, config), _count_instructions(new, config)
        report["policies"][policy] = {"base_instructions": a, "new_instructions": b, "ratio": b / a}
        if show:
            plain_console().print(f"{policy}: base {a:,} instructions, new {b:,}, new/base {b / a:.4f} ({(b / a - 1) * 100:+.2f}%)")
    return report


def compare_revisions(base: str, runs: int = 5, writes: str = "10x", policies: Sequence[str] = ("greedy", "fifo"),
                      show: bool = True) -> dict[str, Any]:
    """Engine speed of the working tree against revision ``base``, interleaved in one run.

    Builds the ``simulate`` example of ``reclaim-core`` at ``base`` (in a git worktree under
    ``target/compare-base/``) and in the working tree, then alternates runs of the two on the
    speed geometry, so that a shared machine's drifting load falls on both alike (which runs
    first alternates too). Reports each policy's median page writes per second for both builds
    and their ratio, and the median of the ratios of the runs paired back to back (``pair_ratio``):
    on a machine whose load switches between levels, the medians of the two builds can fall in
    different levels, while a pair's two runs nearly always share one.
    """
    _check_runs(runs)
    commit, old, new = _build_pair(base)
    report: dict[str, Any] = {"base": commit, "runs": runs, "writes": writes, "policies": {}}
    for policy in policies:
        a: list[float] = []
        b: list[float] = []
        for seed in range(1, runs + 1):
            # The two alternate which runs first, so that neither always follows the other.
            config = _compare_config(policy, writes, seed)
            for binary, out in ((old, a), (new, b)) if seed % 2 else ((new, b), (old, a)):
                out.append(_run_simulate(binary, config))
        ma, mb = statistics.median(a), statistics.median(b)
        pairs = statistics.median(y / x for x, y in zip(a, b, strict=True))
        report["policies"][policy] = {"base": a, "new": b, "base_median": ma, "new_median": mb, "ratio": mb / ma,
                                      "pair_ratio": pairs}
        if show:
            plain_console().print(f"{policy}: base {ma:.1f} M page writes/s, new {mb:.1f} M, new/base {mb / ma:.3f}, "
                            f"median of paired runs' new/base {pairs:.3f} "
                            f"(medians of {runs}; base {', '.join(f'{x:.1f}' for x in a)}; "
                            f"new {', '.join(f'{x:.1f}' for x in b)})")
    return report


def tb_config() -> dict[str, Any]:
    """The 1 TB geometry: fill, then 0.2 × capacity of uniform writes (the cleaner runs)."""
    return {
        "segments": TB_PAGES // TB_PAGES_PER_SEGMENT,
        "pages_per_segment": TB_PAGES_PER_SEGMENT,
        "spare": 0.10,
        "policy": "greedy",
        "warmup": "fill",
        "writes": "0.2x",
    }


def measure_memory() -> dict[str, Any]:
    """Peak RSS of a child process that simulates the 1 TB geometry."""
    cfg = tb_config()
    baseline = subprocess.run(
        [sys.executable, "-c", "import resource, reclaim._core; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
        check=True,
        capture_output=True,
        text=True,
    )
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(cfg)], check=True, capture_output=True, text=True)
    child = json.loads(proc.stdout)
    return {
        "tb_physical_pages": TB_PAGES,
        "tb_segments": cfg["segments"],
        "tb_peak_rss_bytes": child["maxrss_kib"] * 1024,
        "tb_interpreter_rss_bytes": int(baseline.stdout) * 1024,
        "tb_gc_writes": child["gc_writes"],
    }


#: Van Houdt Table 2 rows (double write frontier) timed by the model benchmark: (b, S_f, d, r, f).
MODEL_CASES = ((32, 0.05, 6, 0.74, 0.15), (32, 0.14, 14, 0.93, 0.10), (64, 0.05, 6, 0.87, 0.12), (64, 0.09, 3, 0.94, 0.06))


def measure_models(runs: int = 3) -> dict[str, Any]:
    """Median seconds to solve the double-frontier mean-field model to its fixed point."""
    from reclaim.models import vanhoudt

    out = {}
    for case in MODEL_CASES:
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            vanhoudt.solve(*case, frontier="double")
            times.append(time.perf_counter() - t)
        out["b={} S={} d={} r={} f={}".format(*case)] = statistics.median(times)
    return out


def measure_traces(lines: int = 2_000_000, runs: int = 3) -> dict[str, Any]:
    """Trace conversion speed (text lines per second, MSR CSV), the replay speed of a converted
    trace against the uniform generator on the speed benchmark's geometry (greedy), and the time
    of a whole run of the default method, ``precondition``, over its one measured pass."""
    import tempfile

    import numpy as np

    from reclaim import traces

    rng = np.random.default_rng(1)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        text = f"{tmp}/msr.csv"
        ts = 128166372003061629 + np.arange(lines) * 1000
        kind = np.where(rng.random(lines) < 0.7, "Write", "Read")
        offset = rng.integers(0, 1 << 24, size=lines) * 4096
        with open(text, "w") as f:
            f.writelines(f"{t},hm,0,{k},{o},4096,26\n" for t, k, o in zip(ts.tolist(), kind.tolist(), offset.tolist()))
        rates = []
        for _ in range(runs):
            t0 = time.perf_counter()
            traces.convert(text, "msr", f"{tmp}/msr.rtr")
            rates.append(lines / (time.perf_counter() - t0))
        out["convert_lines_per_second"] = statistics.median(rates)
        # Replay: a converted trace of uniform page ids vs the uniform generator, same geometry.
        cfg = speed_config("greedy", "10x", 1)
        logical = round(0.9 * 10_000 * 64)
        traces.write_pages(rng.integers(0, logical, size=10 * logical).astype(np.uint32), f"{tmp}/uniform.rtr")
        # Interleaved, so that a shared machine's drifting load falls on both alike.
        replay, gen = [], []
        for s in range(1, runs + 1):
            replay.append(simulate(cfg, workload=f"trace:{tmp}/uniform.rtr", method="li", segments=10_000, writes="1p",
                                   seed=s).page_writes_per_second)
            gen.append(simulate(cfg, seed=s).page_writes_per_second)
        out["replay_page_writes_per_second"] = statistics.median(replay)
        out["generator_page_writes_per_second"] = statistics.median(gen)
        out["replay_vs_generator"] = out["replay_page_writes_per_second"] / out["generator_page_writes_per_second"]
        # The default method: a whole `precondition` run (setup, passes until the WA settles)
        # against its one measured pass, on a skewed trace of 10 writes per page of its working set.
        ids = np.where(rng.random(10 * logical) < 0.8, rng.integers(0, logical // 5, size=10 * logical),
                       rng.integers(0, logical, size=10 * logical))
        traces.write_pages(np.concatenate([np.arange(logical), ids]).astype(np.uint32), f"{tmp}/skewed.rtr")
        ratios, passes = [], []
        for s in range(1, runs + 1):
            t0 = time.perf_counter()
            r = simulate(workload=f"trace:{tmp}/skewed.rtr", pages_per_segment=64, seed=s)
            ratios.append((time.perf_counter() - t0) / r.seconds)
            passes.append(len(r.method["pass_wa"]) if r.method else 0)
        out["precondition_vs_measured_pass"] = statistics.median(ratios)
        out["precondition_passes"] = statistics.median(passes)
    return out


def run_bench(runs: int = 5, writes: str = "10x", memory: bool = True, show: bool = True, models: bool = True,
              trace: bool = True, placements: bool = True, timed: bool = True) -> dict[str, Any]:
    """Runs the benchmark; returns (and optionally prints) the report. ``timed``: the rows with a
    device (:func:`measure_timed`)."""
    _check_runs(runs)
    report: dict[str, Any] = {"geometry": "10000 segments x 64 pages, spare 0.10, uniform", "runs": runs, "policies": {}}
    for policy in POLICIES:
        report["policies"][policy] = _medians([simulate(speed_config(policy, writes, seed)) for seed in range(1, runs + 1)])
    if placements:
        report["placements"] = measure_placements(runs, writes)
        report["share_of_greedy"] = measure_share(runs, writes)
        report["mdc_share_of_greedy"] = measure_share(runs, writes, MDC)
    if timed:
        report["timed"] = measure_timed(runs, writes)
    if memory:
        report |= measure_memory()
    if models:
        report["mean_field_double_seconds"] = measure_models()
    if trace:
        report["traces"] = measure_traces()
    if show:
        c = plain_console()
        c.print(_speed_table(f"reclaim bench — {report['geometry']}, median of {runs} runs", "policy", report["policies"]))
        if placements:
            c.print(_speed_table("greedy with one placement scheme or option changed", "placement / option",
                                 report["placements"]))
            for sh in (report["share_of_greedy"], report["mdc_share_of_greedy"]):
                c.print(f"{sh['row']}: {sh['median']:.3f} × greedy's page writes/s "
                        f"(median of {sh['pairs']} interleaved pairs, {sh['low']:.3f}–{sh['high']:.3f})")
        if timed:
            c.print(_timed_table(report["timed"], runs))
        if memory:
            c.print(
                f"1 TB geometry ({report['tb_physical_pages']:,} pages of 4 KiB, {report['tb_segments']:,} segments): "
                f"peak RSS {report['tb_peak_rss_bytes'] / 2**30:.2f} GiB "
                f"(interpreter alone {report['tb_interpreter_rss_bytes'] / 2**20:.0f} MiB)"
            )
        if trace:
            tr = report["traces"]
            c.print(f"trace conversion (MSR CSV, 2M lines): {tr['convert_lines_per_second'] / 1e6:.2f} M lines/s (median of 3); "
                    f"replay {tr['replay_page_writes_per_second'] / 1e6:.1f} M page writes/s = "
                    f"{tr['replay_vs_generator']:.2f} × the uniform generator; a `precondition` run takes "
                    f"{tr['precondition_vs_measured_pass']:.2f} × its measured pass ({tr['precondition_passes']:.0f} passes)")
        if models:
            for k, v in report["mean_field_double_seconds"].items():
                c.print(f"mean-field model, double frontier, {k}: {v:.2f} s (median of 3)")
    _ = resource  # the child measures itself; kept for the module's documented method
    return report
