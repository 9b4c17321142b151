"""MiDAS (Oh et al., "MiDAS: Minimizing Write Amplification in Log-Structured Systems through
Adaptive Group Number and Size Configuration", FAST '24): its simulator's reference run,
``./ssdsimul test-fio-small cost-benefit 8 4`` (``sungkyun123/MiDAS-Simulation`` README), beside
reclaim's ``midas`` placement on the same trace and device.

The README's trace (zenodo 10409599: a Zipfian FIO trace on a 4 GiB block device) is not
reachable from here. The trace is generated as ``scripts/midas-trace.py`` writes it
(:mod:`reclaim.midas_trace`): 52,284,773 page writes, Zipf θ = 1.0 over the 1,048,576 pages of
4 GiB, the ranks scattered by FIO's hash, seed 1; it is converted once (``reclaim trace convert
--format midas``) into a cache folder (beside ``--db``, else ``$XDG_CACHE_HOME/reclaim``) and
its text removed. **The reference is MiDAS-Simulation's own run of that trace here** (commit
a226265, docs/validation.md ``## MiDAS-Simulation``; three runs, identical counts), shipped in
``data/midas_peer.csv``; the README's published figures (TOTAL WAF 2.300 on its own trace) are
printed beside them, not compared.

The device is MiDAS's ``8 4``: 8 GB logical (1,953,125 pages of 4 KiB) on 8 GiB physical (2,048
segments of 1,024 pages), cleaning while fewer than 4 segments are free, one victim at a time
until 4 are (``FREENUM``: ``--gc batch:low=4,victims=1,until=low``), the victim chosen by cost-benefit inside the
groups. MiDAS writes every logical page once in order before the trace (``SW_GENERATE``) and
counts those writes as user writes: reclaim's ``--warmup fill``, and the table gives the WAF
both ways: with the fill counted (MiDAS's TOTAL WAF, (fill + U + G) / (fill + U); its USERWRITE
also counts the 1 its counter starts at) and over the trace only ((U + G) / U). Beside them,
reclaim's cost-benefit on a single log on the same trace: the baseline MiDAS improves on.

MiDAS's model (UID, MCAM, GCS) runs at each epoch; reclaim's ``midas`` keeps a record of each
progress window (measured WAF) and each model run (predicted WAF), printed as a second table:
each prediction beside the WAF measured over the next progress window; at full scale, the
simulator's own model runs beside them (its ``calculated WAF`` and the next ``TMP_WAF``,
``data/midas_peer_epochs.csv``).

``--quick`` replays the shorter trace of the peer's quick run here: 2,000,000 writes, Zipf θ =
1.0 over all 1,953,125 logical pages scattered by a seeded permutation (``midas_trace``
``scatter="permutation"``), seed 1, on the same device; MiDAS's first epoch ends after 4 × the
logical space of writes, so a quick run stays in MiDA's naive chain and has no model rows.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from reclaim.api import SimConfig
from reclaim.midas_trace import FIO_DEVICE_PAGES, MIDAS_8GB_PAGES, README_TRACE_WRITES, write_trace
from reclaim.reproduce.common import Context, Reproduction, Row, published, rel

#: Segments and pages per segment of MiDAS's ``DEV_GB = 8``, ``SEG_MB = 4`` (``ssd_config.cpp``):
#: 8 GiB of 4 MB segments of 1,024 pages of 4 KiB.
SEGMENTS, PAGES_PER_SEGMENT = 2048, 1024
#: Pages of a GiB (``GB_P``, ``ssdsimul.cpp``): the unit of MiDAS's progress lines.
GIB_PAGES = 262_144
#: MiDAS's trigger: clean while fewer than ``FREENUM`` = 4 segments are free, one victim at a time.
GC = "batch:low=4,victims=1,until=low"


@dataclass(frozen=True)
class TraceShape:
    """The generated trace: writes, pages written (from 0), Zipf θ, scatter, seed."""

    writes: int
    pages: int
    theta: float
    scatter: str
    seed: int

    @property
    def name(self) -> str:
        """Its file name in the cache folder (every parameter in it, so no stale file is read)."""
        return f"midas-zipf{self.theta:g}-{self.scatter}-{self.pages}p-{self.writes}w-seed{self.seed}.rtr"


#: The full trace (the README's shape) and the quick one (the peer's quick run here).
TRACES = {
    False: TraceShape(README_TRACE_WRITES, FIO_DEVICE_PAGES, 1.0, "fio-hash", 1),
    True: TraceShape(2_000_000, MIDAS_8GB_PAGES, 1.0, "permutation", 1),
}
#: (row, placement, policy): MiDAS under cost-benefit (the README's run), under greedy, and
#: cost-benefit on a single log.
RUNS = (
    ("midas cost-benefit", "midas", "cost-benefit"),
    ("midas greedy", "midas", "greedy"),
    ("single cost-benefit", "single", "cost-benefit"),
)


def cache_folder(db: Path | None) -> Path:
    """Where converted traces are kept: beside the results database, else the user's cache."""
    if db is not None:
        return db.parent
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reclaim"


def converted_trace(shape: TraceShape, folder: Path) -> Path:
    """The trace of ``shape``, converted, in ``folder``: generated and converted once."""
    from reclaim import traces

    path = folder / shape.name
    if path.is_file():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        text = Path(tmp) / "trace.txt"
        write_trace(text, shape.pages, shape.theta, shape.writes, shape.seed, shape.scatter)
        part = Path(tmp) / shape.name
        traces.convert(text, "midas", part)
        part.replace(path)  # only a whole file gets the name
    return path


def config(trace: Path, placement: str, policy: str, seed: int = 1) -> SimConfig:
    """reclaim's run on MiDAS's device: the fill, then one pass of the trace.

    >>> c = config(Path("t.rtr"), "midas", "cost-benefit")
    >>> c.segments, c.pages_per_segment, c.logical_pages, c.warmup, c.gc
    (2048, 1024, 1953125, 'fill', 'batch:low=4,victims=1,until=low')
    """
    return SimConfig(
        segments=SEGMENTS,
        pages_per_segment=PAGES_PER_SEGMENT,
        logical_pages=MIDAS_8GB_PAGES,
        workload=f"trace:{trace}",
        method="li",
        warmup="fill",
        writes="1p",
        gc=GC,
        placement=placement,
        policy=policy,
        seed=seed,
    )


def with_fill(wa: float, user_writes: int, fill: int = MIDAS_8GB_PAGES) -> float:
    """A WA measured after the fill, restated with the fill counted as user writes (no page is
    copied during it: the device has more free pages than logical ones).

    >>> with_fill(2.0, 100, 100)
    1.5
    """
    return (fill + wa * user_writes) / (fill + user_writes)


def peer_rows(quick: bool) -> dict[str, dict[str, str]]:
    """The peer's runs at the run's scale by row name, from ``data/midas_peer.csv``."""
    scale = "quick" if quick else "full"
    return {r["run"]: r for r in published("midas_peer.csv") if r["scale"] == scale}


def _groups(log: list[dict[str, Any]]) -> str:
    windows = [r for r in log if r["kind"] == "window"]
    return " ".join(str(s) for s in windows[-1]["sizes"]) if windows else ""


def compute(ctx: Context) -> list[Row]:
    import reclaim

    trace = converted_trace(TRACES[ctx.quick], cache_folder(ctx.db))
    configs = [config(trace, placement, policy) for _, placement, policy in RUNS]
    ctx.configs.extend(configs)
    bar = ctx.progress.add_task(ctx.name, total=len(configs)) if ctx.progress is not None else None
    peers = peer_rows(ctx.quick)
    rows: list[Row] = []
    for (name, placement, _), c in zip(RUNS, configs):
        # Run here, not as tasks of the results database: the placement's own record of the run
        # (its epochs) is not a column of it.
        row: Row = {"run": name, "who": "reclaim"}
        try:
            r = reclaim.simulate(config=c)
        except RuntimeError as e:  # a run that stops (the cleaner without progress) is said on its row
            row["stopped"] = str(e)
        else:
            row |= {"user_writes": MIDAS_8GB_PAGES + r.user_writes, "copies": r.gc_writes, "waf_fill": with_fill(r.wa, r.user_writes),
                    "waf": r.wa, "groups": _groups(r.scheme_log) if placement == "midas" else "",
                    "epochs": [x for x in r.scheme_log if x["kind"] in ("window", "model")]}
        if ctx.progress is not None and bar is not None:
            ctx.progress.advance(bar)
        rows.append(row)
        p = peers.get(name)
        if p is not None and p["userwrite"]:
            # MiDAS's USERWRITE starts at 1 (``stats_init``): the user writes are USERWRITE − 1.
            u, g = int(p["userwrite"]) - 1, int(p["copywrite"])
            trace_u = u - MIDAS_8GB_PAGES
            rows.append({"run": name, "user_writes": u, "copies": g, "waf_fill": float(p["total_waf"]), "waf": (trace_u + g) / trace_u,
                         "groups": p["groups"], "who": p["source"]})
            if "waf" in row:
                row["rel"] = rel(row["waf"], rows[-1]["waf"])
    if rows and not ctx.quick:
        # The simulator's model runs (cost-benefit), beside reclaim's in the epochs table.
        rows[0]["peer_epochs"] = [{"user_writes": int(e["progress_gib"]) * GIB_PAGES, "groups": int(e["groups"]), "sizes": e["sizes"],
                                   "predicted": float(e["predicted_waf"]),
                                   "measured": float(e["next_window_waf"]) if e["next_window_waf"] else None}
                                  for e in published("midas_peer_epochs.csv") if e["scale"] == "full"]
    for p in peers.values():
        if p["run"] == "readme":
            u, g = int(p["userwrite"]) - 1, int(p["copywrite"])
            rows.append({"run": "midas cost-benefit", "user_writes": u, "copies": g, "waf_fill": float(p["total_waf"]),
                         "waf": (u - MIDAS_8GB_PAGES + g) / (u - MIDAS_8GB_PAGES), "groups": p["groups"], "who": p["source"]})
    return rows


COLUMNS = [
    ("run", "run", ""), ("who", "by", ""), ("user_writes", "user writes", ","), ("copies", "copies", ","),
    ("waf_fill", "WAF (fill counted)", ".3f"), ("waf", "WAF (trace)", ".3f"), ("rel", "rel", "+.2%"), ("groups", "groups at the end", ""),
]


def epochs(rows: list[Row]) -> tuple[str, list[Row]]:
    """Each model run of reclaim's first MiDAS run that finished (cost-benefit, else greedy): its
    predicted WAF beside the WAF measured over the next progress window; and that run's name."""
    run = next((r for r in rows if r["who"] == "reclaim" and r["run"].startswith("midas") and r.get("epochs")), None)
    if run is None:
        return "", []
    log = run["epochs"]
    out = []
    for i, x in enumerate(log):
        if x["kind"] != "model":
            continue
        after = next((y for y in log[i + 1:] if y["kind"] == "window"), None)
        out.append({"user_writes": x["user_writes"], "groups": x["groups"], "sizes": " ".join(map(str, x["sizes"])),
                    "predicted": x["waf"], "measured": None if after is None else after["waf"]})
    return run["run"], out


def render(rows: list[Row]) -> list[Table]:
    """The runs, then reclaim's MiDAS epochs (when its run reached one)."""
    t = Table(title=Text.assemble(
        "MiDAS: Zipf 1.0 trace on 8 GB logical / 8 GiB physical, 4 MB segments", "\n",
        ("peer: sungkyun123/MiDAS-Simulation run here (data/midas_peer.csv); rel: reclaim's trace WAF against the peer's", "dim")))
    for _, heading, _ in COLUMNS:
        t.add_column(heading, justify="right")
    for r in rows:
        if "stopped" in r:
            t.add_row(r["run"], r["who"], *[""] * (len(COLUMNS) - 3), f"stopped: {r['stopped'][:60]}…")
        else:
            t.add_row(*[("" if r.get(k) is None else format(r[k], fmt)) for k, _, fmt in COLUMNS])
    tables = [t]
    name, e = epochs(rows)
    if e:
        t2 = Table(title=Text.assemble(f"reclaim's {name}: each model run's predicted WAF, and the next window's measured", "\n",
                                       ("the simulator's `calculated WAF` and `TMP_WAF` lines", "dim")))
        for heading in ("user writes", "groups", "sizes", "predicted WAF", "measured WAF"):
            t2.add_column(heading, justify="right")
        for x in e:
            t2.add_row(f"{x['user_writes']:,}", str(x["groups"]), x["sizes"], f"{x['predicted']:.3f}",
                       "" if x["measured"] is None else f"{x['measured']:.3f}")
        tables.append(t2)
    peer: list[Row] = next((r["peer_epochs"] for r in rows if r.get("peer_epochs")), [])
    if peer:
        t3 = Table(title=Text.assemble("MiDAS-Simulation's cost-benefit run: each model run's calculated WAF, and the next window's TMP_WAF",
                                       "\n", ("data/midas_peer_epochs.csv; user writes at the progress line before it, the fill counted", "dim")))
        for heading in ("user writes", "groups", "sizes", "predicted WAF", "measured WAF"):
            t3.add_column(heading, justify="right")
        for x in peer:
            t3.add_row(f"{x['user_writes']:,}", str(x["groups"]), x["sizes"], f"{x['predicted']:.3f}",
                       "" if x["measured"] is None else f"{x['measured']:.3f}")
        tables.append(t3)
    return tables


MIDAS = Reproduction(
    title="MiDAS: the simulator's reference run (FIO Zipf 1.0, 8 GB, 4 MB segments, cost-benefit)",
    source="reclaim's midas placement beside MiDAS-Simulation's run here (data/midas_peer.csv)",
    compute=compute,
    columns=COLUMNS,
    render=render,
)
