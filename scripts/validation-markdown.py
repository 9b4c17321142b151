#!/usr/bin/env python3
"""The Markdown tables of ``docs/validation.md`` that no single reproduction prints, each
computed here from the engine and printed as the document shows it.

    scripts/validation-markdown.py NAME [--db PATH] [--quick]

NAME is one of the tables below (``--list`` names them). Each is marked in the document with
``<!-- table: python scripts/validation-markdown.py NAME #1 -->``, so that
``scripts/validation-tables.py`` rebuilds it with the others. The Stockmeyer tables run the
reproduction once per stand-in, trace and reading (1,142 simulations each, kept in ``--db`` so that
the tables sharing a run read it back); the sample traces for them come from ``../shared``
(``data/traces/``), which only this document's regeneration needs. ``--quick`` runs everything at
the reduced length of CI (to try the script; the document quotes full length).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import runpy
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import reclaim
from reclaim.models import li
from reclaim.reproduce import REPRODUCTIONS
from reclaim.reproduce.stockmeyer import CONVENTIONS
from reclaim.validate import LI_BLOCKS, LI_K, LI_SPARE, LI_WORKLOADS, _grouping_cost

ROOT = Path(__file__).resolve().parent.parent
SHARED_TRACES = ROOT.parent / "shared" / "data" / "traces"

Row = dict[str, Any]


def markdown(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table, as the document writes them (``|---|`` under the header).

    >>> print(markdown(["a", "b"], [["1", "2"]]))
    | a | b |
    |---|---|
    | 1 | 2 |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def pct(x: float, digits: int = 2) -> str:
    """A relative difference in percent with its sign (−, the minus sign, as the document writes)."""
    s = f"{100 * x:+.{digits}f}%"
    return s.replace("-", "−")


def quietly(f: Callable[[], Any]) -> Any:
    """``f()`` with what it prints kept off this script's output (the tables)."""
    with contextlib.redirect_stdout(io.StringIO()):
        return f()


# ----------------------------------------------------------------------------------------------
# Li et al. §5.1: mechanisms of their simulator that would raise greedy's cost


def li_mechanisms(args: argparse.Namespace) -> str:
    """GRA(1) (greedy) on §5.1's device and workloads, simulated as reclaim does (one pool,
    ``one-free``) and as their simulator might have (a free-block threshold; cleaning per plane),
    relative to Theorem 1; ``validate --quick``'s length (1M writes), seed 1."""
    writes = 1_000_000
    planes = 8

    def run(w: li.Workload, *, low: int | None = None, per_plane: bool = False) -> float:
        r = "/".join(str(x) for x in w.r)
        f = "/".join(str(x) for x in w.f)
        blocks = LI_BLOCKS // planes if per_plane else LI_BLOCKS
        n = writes // planes if per_plane else writes
        gc = "one-free" if low is None else f"batch:low={low},victims=1"
        res = reclaim.simulate(segments=blocks, pages_per_segment=LI_K, spare=LI_SPARE, policy="gra:d=1", gc=gc,
                               workload=f"locality:fa={w.fa},r={r},f={f}", warmup="fill+1x", writes=n, seed=1)
        return float(res.cleaning_cost) * (planes if per_plane else 1)

    settings: list[tuple[str, dict[str, Any]]] = [
        (f"one pool of {LI_BLOCKS:,} blocks, clean when none is free (reclaim's `one-free`)", {}),
        ("clean below 2 free blocks (`batch:low=2,victims=1`)", {"low": 2}),
        ("below 8 free blocks", {"low": 8}),
        (f"below 32 free blocks ({32 / LI_BLOCKS:.1%} of the device)", {"low": 32}),
        (f"per plane: {LI_BLOCKS // planes:,} blocks with an eighth of the writes, cost × {planes}", {"per_plane": True}),
        ("per plane and below 8 free blocks", {"per_plane": True, "low": 8}),
    ]
    model = {name: float(li.cleaning_cost(writes, li.cost_per_gc(LI_K, LI_SPARE, w, d=1, blocks=LI_BLOCKS), LI_K))
             for name, w in LI_WORKLOADS.items()}
    rows = [[label, *(pct(run(w, **kw) / model[name] - 1) for name, w in LI_WORKLOADS.items())] for label, kw in settings]
    return markdown(["simulated as", *LI_WORKLOADS], rows)


# ----------------------------------------------------------------------------------------------
# Li et al. §5.3: regions against Theorem 5 (examples/regions_vs_theorem5.py)

#: Theorem 5's values as §5.3 prints them, by allocation.
THEOREM5_PAPER = {"b_c*": 0.531e6, "b_w*": 2.31e6}
ALLOCATIONS = {"b_c*": "b_c* = (0.4318, 0.5682) (`regions:spare=optimal`)", "b_w*": "b_w* = (0.862, 0.138)"}


def _regions(seed: int, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    main = runpy.run_path(str(ROOT / "examples" / "regions_vs_theorem5.py"))["main"]
    kw = {"segments": 2048, "writes": 1_000_000} if args.quick else {}
    return dict(quietly(lambda: main(seed=seed, **kw)))


def _theorem5(allocation: str) -> float:
    """Theorem 5 at the exact allocation over 5M writes, as ``reclaim validate`` computes it."""
    return _grouping_cost(5_000_000, None if allocation == "b_c*" else (0.862, 0.138))


def regions_theorem5(args: argparse.Namespace) -> str:
    """The whole device with exact greedy in each region against Theorem 5 as the paper prints it."""
    rows = _regions(1, args)
    return markdown(["allocation", "Theorem 5 (paper)", "reclaim", "rel"],
                    [[ALLOCATIONS[a], f"{THEOREM5_PAPER[a] / 1e6:.3g} × 10⁶", f"{rows[a]['sim']:,.0f}",
                      pct(rows[a]["sim"] / THEOREM5_PAPER[a] - 1)] for a in ALLOCATIONS])


def _region_names(rows: dict[str, dict[str, float]], allocation: str, prefix: str = "") -> list[str]:
    return sorted(k for k in rows if k.startswith(f"{prefix}{allocation} region "))


def regions_alone(args: argparse.Namespace) -> str:
    """Each written region alone (exact greedy) beside Corollary 1 at its actual spare factor."""
    rows = _regions(1, args)
    out = []
    for a in ALLOCATIONS:
        for name in _region_names(rows, a):
            r = rows[name]
            i = int(name.rsplit(" ", 1)[1])
            label = f"{i} ({'hot' if i == 1 else 'cold'}{', r = 0.8' if (i, a) == (1, 'b_c*') else ''}" \
                    f"{', r = 0.2' if (i, a) == (2, 'b_c*') else ''})"
            out.append([a, label, f"{r['segments']:,.0f}", f"{r['spare']:.4f}", f"{r['model']:,.0f}", f"{r['sim']:,.0f}",
                        pct(r["sim"] / r["model"] - 1)])
    return markdown(["allocation", "region", "segments", "Sᵢ", "Corollary 1", "alone", "rel"], out)


def regions_fifo(args: argparse.Namespace) -> str:
    """The same regions with FIFO cleaning in every one (seed 1; seed 2 in parentheses)."""
    runs = {seed: _regions(seed, args) for seed in (1, 2)}
    out = []
    for a in ALLOCATIONS:
        for j, name in enumerate(_region_names(runs[1], a, "fifo ")):
            r1, r2 = runs[1][name], runs[2][name]
            i = int(name.rsplit(" ", 1)[1])
            whole = ["", "", ""]
            if j == 0:
                w1, w2 = runs[1][f"fifo {a}"]["sim"], runs[2][f"fifo {a}"]["sim"]
                t5 = _theorem5(a)
                whole = [f"{w1:,.0f}", f"{pct(w1 / t5 - 1)} ({pct(w2 / t5 - 1)})", pct(w1 / THEOREM5_PAPER[a] - 1)]
            out.append([a, f"{i} ({'hot' if i == 1 else 'cold'})", f"{r1['model']:,.0f}", f"{r1['sim']:,.0f}",
                        f"{pct(r1['sim'] / r1['model'] - 1)} ({pct(r2['sim'] / r2['model'] - 1)})", *whole])
    return markdown(["allocation", "region", "Corollary 1", "FIFO alone", "rel", "whole device, FIFO", "vs Theorem 5",
                     "vs paper"], out)


def roomy(args: argparse.Namespace) -> str:
    """Pages moved per GC by exact greedy under uniform writes against Corollary 1, by spare factor
    and size: 64 pages per segment, ``one-free``, 20 logical capacities measured after ``fill+5x``."""
    k = 64
    sizes = (100, 400) if args.quick else (500, 4000)
    out = []
    for s in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        c = float(li.uniform_cost(k, s))
        moved = []
        wamp = math.nan
        for n in sizes:
            r = reclaim.simulate(segments=n, pages_per_segment=k, spare=s, policy="greedy", gc="one-free",
                                 workload="uniform", warmup="fill+5x", writes="20x", seed=1)
            moved.append(r.gc_writes / r.collected)
            wamp = r.gc_writes / r.user_writes
        out.append([f"{s:.1f}", f"{c:.3f}", *(f"{m:.3f}" for m in moved), pct(wamp / (c / (k - c)) - 1)])
    return markdown(["S", "C, Corollary 1", *(f"C, exact greedy (N = {n})" for n in sizes), f"Wamp rel (N = {sizes[-1]})"],
                    out)


# ----------------------------------------------------------------------------------------------
# Stockmeyer: the reproduction on the stand-ins, the sample traces, and each open convention


def _progress() -> Any:
    from reclaim.progress import plain_console
    from rich.progress import Progress, TextColumn

    # Descriptions are the reproductions' names: text, not markup.
    return Progress(TextColumn("{task.description}", markup=False), *Progress.get_default_columns()[1:],
                    console=plain_console(stderr=True), transient=True)


def _sample(name: str, args: argparse.Namespace) -> Path:
    """A sample trace of ``../shared/data/traces`` converted as the document says (32 KiB tracks,
    renamed in first-write order), kept beside the results database."""
    src = SHARED_TRACES / name
    if not src.is_file():
        raise SystemExit(f"{src}: no such file (the sample traces come from ../shared/data/traces)")
    out = args.db.parent / "traces" / f"{src.stem}-32k.rtr"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        reclaim.traces.convert(src, "biotracer", out, page_size=32768, rename=True)
    return out


def stockmeyer(args: argparse.Namespace, trace: str | None = None, **options: str) -> list[Row]:
    """The reproduction's rows for one trace (None: the stand-in) and reading."""
    path = None if trace is None else _sample(trace, args)
    label = ", ".join([trace or options.get("stand-in", "files")] + [f"{k}={v}" for k, v in options.items() if k != "stand-in"])
    print(f"stockmeyer: {label}", file=sys.stderr, flush=True)
    with _progress() as progress:
        return REPRODUCTIONS["stockmeyer"].run(quick=args.quick, progress=progress, db=args.db, trace=path, options=options)


def _by(rows: list[Row], table: str, **match: Any) -> list[Row]:
    return [r for r in rows if r["table"] == table and all(r.get(k) == v for k, v in match.items())]


def _one(rows: list[Row], table: str, **match: Any) -> Row:
    found = _by(rows, table, **match)
    if len(found) != 1:
        raise ValueError(f"expected one `{table}` row with {match}, found {len(found)}")
    return found[0]


def stockmeyer_calibration(args: argparse.Namespace) -> str:
    """The calibration's targets (results without age sorting) on the report and both stand-ins."""
    runs = {m: stockmeyer(args, **{"stand-in": m}) for m in ("files", "stack")}

    def hit(rows: list[Row], p: str) -> dict[int, float]:
        t = _one(rows, "trace")
        return {1: t[f"{p}hit_ratio_1"], 320: t[f"{p}hit_ratio_320"]}

    def fig2(alg: str, sort: str, key: str) -> Callable[[list[Row], str], dict[int, float]]:
        return lambda rows, p: {c: _one(rows, "figure2", algorithm=alg, sorting=sort, cache=c, unwritten="N")[p + key]
                                for c in (1, 320)}

    def cltd(rows: list[Row], p: str) -> dict[int, float]:
        return {c: _one(rows, "figure5", unwritten="N", cache=c, variant="fifo", dtg=0, fsc=0)[p + "cltd_k"] for c in (1, 320)}

    def greedy(rows: list[Row], p: str) -> dict[int, float]:
        return {c: _one(rows, "figure1", unwritten="N", algorithm="greedy", cache=c)[p + "gcu"] for c in (1, 320)}

    targets: list[tuple[str, Callable[[list[Row], str], dict[int, float]], str]] = [
        ("LRU hit ratio, 1 / 320 tracks", hit, ".3f"),
        ("Figure 2, fitness-fifo GCU, Cache 1 / 320", fig2("fitness", "fifo", "gcu"), ".3f"),
        ("Figure 2, fitness-fifo EmptyCount (K)", fig2("fitness", "fifo", "empty_k"), ".1f"),
        ("Figure 2, age-threshold GCU", fig2("age-threshold", "fifo", "gcu"), ".3f"),
        ("Figure 2, age-threshold EmptyCount (K)", fig2("age-threshold", "fifo", "empty_k"), ".1f"),
        ("Figure 5, CltdCount (K) at (0, 0)", cltd, ".1f"),
        ("greedy at (0, 0), GCU", greedy, ".3f"),
    ]
    out = []
    for label, get, fmt in targets:
        report = get(runs["files"], "paper_")
        cells = [" / ".join(format(v[c], fmt) for c in (1, 320))
                 for v in (report, get(runs["files"], ""), get(runs["stack"], ""))]
        out.append([label, *cells])
    return markdown(["target (no age sorting)", "report", "`files`", "`stack`"], out)


def _k(x: float) -> str:
    return f"{x:,.0f}"


#: Figure 1's rows the document shows: (Unwritten, algorithm, Cache), fitness in Fifo order.
FIGURE1_ROWS = [("N", "fitness", 1), ("N", "age-threshold", 1), ("N", "greedy", 1), ("Y", "fitness", 1),
                ("N", "fitness", 320), ("N", "age-threshold", 320), ("N", "greedy", 320)]


def stockmeyer_figure1(args: argparse.Namespace) -> str:
    """Figure 1 on the ``files`` stand-in, ours and the report's (in parentheses)."""
    rows = stockmeyer(args)

    def empty(x: float) -> str:
        return "0" if x == 0 else f"{x:.1f}"

    out = []
    for un, alg, cache in FIGURE1_ROWS:
        r = _one(rows, "figure1", unwritten=un, algorithm=alg, cache=cache, sorting="fifo")
        name = {"fitness": "fitness-fifo", "greedy": "greedy, (0, 0)"}.get(alg, alg)
        out.append([un, name, str(cache), f"{r['gcu']:.3f} ({r['paper_gcu']:.3f})",
                    f"{_k(r['wrl_k'])} ({_k(r['paper_wrl_k'])})", f"{_k(r['wra_k'])} ({_k(r['paper_wra_k'])})",
                    f"{empty(r['empty_k'])} ({empty(r['paper_empty_k'])})"])
    return markdown(["", "algorithm", "cache", "GCU", "WorkRdLive", "WorkRdAll", "EmptyCount"], out)


def _cell(r: Row) -> str:
    return f"{'yes' if r['holds'] else 'no'} ({r['detail']})" if r["detail"] else ("yes" if r["holds"] else "no")


def _observations(columns: list[list[Row]], report: list[Row] | None = None) -> list[list[str]]:
    first = _by(columns[0], "observation")
    out = []
    for i, ob in enumerate(first):
        cells = [_cell(_by(c, "observation")[i]) for c in columns]
        out.append([ob["item"], ob["statement"], *([_cell(_by(report, "observation")[i])] if report else []), *cells])
    return out


def stockmeyer_observations(args: argparse.Namespace) -> str:
    """The report's observations on the report's own numbers, both stand-ins under both splits, and
    the two sample traces."""
    from reclaim.reproduce.stockmeyer_observations import observations

    columns = [stockmeyer(args), stockmeyer(args, split="median"), stockmeyer(args, **{"stand-in": "stack"}),
               stockmeyer(args, **{"stand-in": "stack", "split": "median"}),
               stockmeyer(args, "Booting_log176.txt"), stockmeyer(args, "Installing_log181.txt")]
    report = observations(columns[0], paper=True)
    return markdown(["§", "observation", "report", "`files`", "`files`, median", "`stack`", "`stack`, median", "Booting",
                     "Installing"], _observations(columns, report))


def stockmeyer_conventions(args: argparse.Namespace) -> str:
    """Each open convention's other reading, one at a time, on the ``files`` stand-in."""
    readings = [(k, v[1][1]) for k, v in CONVENTIONS.items()]
    columns = [stockmeyer(args)] + [stockmeyer(args, **{k: value}) for k, value in readings]
    rows = [[r[0], *r[2:]] for r in _observations(columns)]
    return markdown(["§", "default", *(f"`{k}={v}`" for k, v in readings)], rows)


# ----------------------------------------------------------------------------------------------
# SepBIT's artifact: the placements it shares with reclaim, on its hot/cold trace

#: The artifact's printed WA (``../shared/reference/sepbit-artifact.md``, "Measured: one trace for
#: the issue"), 128-block segments, threshold 0.15, six open segments: (reclaim's placement, its
#: policy, the artifact's names, the artifact's figure); ``None``: a placement reclaim does not
#: have yet.
SEPBIT_ARTIFACT = (
    ("single", "greedy", "NoSep", "Greedy", 4.1030),
    ("sepgc", "greedy", "SepGC", "Greedy", 3.6391),
    ("dac", "greedy", "DAC", "Greedy", 3.6167),
    ("sepbit", "greedy", "SepBIT", "Greedy", 3.3003),
    ("warcip", "greedy", "WARCIP", "Greedy", 3.5412),
    ("multi-log:form=sepbit", "greedy", "MultiLog", "Greedy", 3.7688),
    ("fk", "greedy", "FK", "Greedy", 3.7093),
    ("fadac", "greedy", "FADaC", "Greedy", 3.7000),
    ("eti", "greedy", "ETI", "Greedy", 3.6434),
    ("multi-queue", "greedy", "MultiQueue", "Greedy", 3.6639),
    ("sfr", "greedy", "SFR", "Greedy", 3.6391),
    ("sfs", "greedy", "SFS", "Greedy", 3.6813),
    ("uw", "greedy", "UW", "Greedy", None),
    ("gw", "greedy", "GW", "Greedy", None),
    ("single", "cost-benefit:form=sepbit", "NoSep", "CostBenefit", 4.0433),
    ("sepbit", "cost-benefit:form=sepbit", "SepBIT", "CostBenefit", 2.0870),
    ("single", "random-greedy", "NoSep", "RandomGreedy", None),
    ("sepbit", "random-greedy", "SepBIT", "RandomGreedy", None),
    ("single", "lru", "NoSep", "Lru", None),
    ("sepbit", "lru", "SepBIT", "Lru", None),
    ("sfs", "cost-hotness", "SFS", "CostHotness", None),
    ("single", "cost-hotness", "NoSep", "CostHotness", None),
    ("sepbit", "cost-hotness", "SepBIT", "CostHotness", None),
)

#: The artifact run here on the very trace this table draws (``docs/data/sepbit-artifact-runs.csv``:
#: its scheme, selection and printed WA; how it was built and run is in the file's header).
SEPBIT_RUNS = ROOT / "docs" / "data" / "sepbit-artifact-runs.csv"


def hot_cold_pages(seed: int = 2022) -> Any:
    """The artifact's hot/cold trace shape as page ids: 65,536 pages written once in order, then
    1,000,000 single-page writes, 90% of them to a random tenth of the pages, drawn with numpy."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = 65_536
    ids = rng.permutation(n)
    hot, cold = ids[: n // 10], ids[n // 10:]
    is_hot = rng.random(1_000_000) < 0.9
    writes = np.where(is_hot, hot[rng.integers(0, len(hot), 1_000_000)], cold[rng.integers(0, len(cold), 1_000_000)])
    return np.concatenate([np.arange(n), writes]).astype(np.uint32)


def sepbit_artifact(args: argparse.Namespace) -> str:
    """The artifact's placements on a trace of its hot/cold shape (65,536 pages written once in
    order, then 1,000,000 single-page writes, 90% of them to a random tenth of the pages), drawn
    here (seed 2022), replayed by the ``log`` method, beside the artifact's published figures and
    its own run on the same trace."""
    import csv
    import tempfile

    from reclaim import traces

    here: dict[tuple[str, str], float] = {}
    if SEPBIT_RUNS.exists():
        with SEPBIT_RUNS.open() as f:
            for row in csv.DictReader(line for line in f if not line.startswith("#")):
                here[(row["scheme"], row["selection"])] = float(row["wa"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/hot-cold.rtr"
        traces.write_pages(hot_cold_pages(), path)
        for placement, policy, name, selection, published in SEPBIT_ARTIFACT:
            run_here = here.get((name, selection))
            wa = None
            if placement is not None:
                wa = reclaim.simulate(workload=f"trace:{path}", method="log", policy=policy, pages_per_segment=128,
                                      placement=placement).wa
            rows.append([
                f"{name} (`{placement}`)" if placement else name,
                selection,
                f"{published:.4f}" if published else "—",
                f"{run_here:.4f}" if run_here else "—",
                f"{wa:.4f}" if wa is not None else "not yet",
                pct(wa / run_here - 1) if wa is not None and run_here else "—",
            ])
    return markdown(["placement", "selection", "artifact, published", "artifact, this trace", "reclaim",
                     "reclaim vs artifact, this trace"], rows)


#: The shares of ``sfs:requantize=S`` the table below runs (0: the artifact's, every collection).
SFS_REQUANTIZE = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1)


def sfs_requantize(args: argparse.Namespace) -> str:
    """SFS re-quantizing after a share S of the sealed segments is collected, on the artifact's
    hot/cold trace (as :func:`sepbit_artifact`, greedy): WA beside S = 0, the artifact's."""
    import tempfile

    from reclaim import traces

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/hot-cold.rtr"
        traces.write_pages(hot_cold_pages(), path)
        base = None
        for share in SFS_REQUANTIZE:
            placement = "sfs" if share == 0 else f"sfs:requantize={share}"
            wa = reclaim.simulate(workload=f"trace:{path}", method="log", policy="greedy", pages_per_segment=128,
                                  placement=placement).wa
            base = wa if base is None else base
            rows.append([f"`{placement}`", f"{wa:.4f}", pct(wa / base - 1)])
    return markdown(["placement", "WA", "vs the artifact's every collection"], rows)


def advise_accuracy(args: argparse.Namespace) -> str:
    """reclaim advise's miniature runs against full runs on three generated traces: the error by
    sampling rate and segment count, and the bias by scheme (scripts/advise-accuracy.py)."""
    script = runpy.run_path(str(ROOT / "scripts" / "advise-accuracy.py"))
    return str(script["accuracy"](pages=1 << (16 if args.quick else 19)))


def advise_development(args: argparse.Namespace) -> str:
    """reclaim advise's miniature runs on the development trace (hot/cold 80/20, its own seed),
    with and without extrapolation: where its defaults were chosen (scripts/advise-accuracy.py --dev)."""
    script = runpy.run_path(str(ROOT / "scripts" / "advise-accuracy.py"))
    return str(script["accuracy"](pages=1 << (16 if args.quick else 19), dev=True))


TABLES: dict[str, Callable[[argparse.Namespace], str]] = {
    "sfs-requantize": sfs_requantize,
    "li-mechanisms": li_mechanisms,
    "regions-theorem5": regions_theorem5,
    "regions-alone": regions_alone,
    "roomy": roomy,
    "regions-fifo": regions_fifo,
    "stockmeyer-calibration": stockmeyer_calibration,
    "stockmeyer-figure1": stockmeyer_figure1,
    "stockmeyer-observations": stockmeyer_observations,
    "stockmeyer-conventions": stockmeyer_conventions,
    "sepbit-artifact": sepbit_artifact,
    "advise-accuracy": advise_accuracy,
    "advise-development": advise_development,
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("name", nargs="?", choices=sorted(TABLES), metavar="NAME")
    ap.add_argument("--db", type=Path, default=ROOT / "results" / "validation.duckdb",
                    help="results database the reproductions keep their simulations in")
    ap.add_argument("--quick", action="store_true", help="the reduced length of CI (to try it; the document is full length)")
    ap.add_argument("--list", action="store_true", help="name the tables and what each holds")
    ap.add_argument("--hot-cold-csv", type=Path, metavar="PATH",
                    help="write sepbit-artifact's trace as the artifact reads it (Alibaba CSV: volume 0, 4 KiB "
                         "writes 1 ms apart) and stop")
    args = ap.parse_args(argv)
    if args.hot_cold_csv:
        with args.hot_cold_csv.open("w") as f:
            for i, page in enumerate(hot_cold_pages().tolist()):
                f.write(f"0,W,{page * 4096},4096,{1_000_000 + 1000 * i}\n")
        return 0
    if args.list or args.name is None:
        for name, f in TABLES.items():
            print(f"{name}: {' '.join((f.__doc__ or '').split(chr(10) * 2)[0].split())}")
        return 0
    args.db.parent.mkdir(parents=True, exist_ok=True)
    print(TABLES[args.name](args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
