#!/usr/bin/env python3
"""Chooses the parameters of the file-structured stand-in for Stockmeyer's snake trace
(`crates/reclaim-core/src/trace/stand_in_files.rs`) and writes them to
`python/reclaim/reproduce/data/stand_in_files.json`.

The search reads only results the report gives without age sorting, listed in TARGETS: the LRU
hit ratios (§2.3), Figure 2 (one destage and one FSC stream), Figure 5's CltdCount at
(DtgSortExp, FscSortExp) = (0, 0), and greedy at (0, 0) (Figure 1, as §3 runs it). Nothing with
age-sorted streams enters it: the sorted grids, Figure 1 at (4, 4) and the observations of §3–§4
are the test of the stand-in, reported by `reclaim reproduce stockmeyer`.

Each evaluation generates the full-length trace (seed 1) and runs the reproduction's own cases
for those targets; the objective is the mean squared log-ratio of ours to the report's. The search
is a fixed number of Nelder–Mead steps (scipy) from a fixed start over the parameters in SEARCHED,
each mapped from an unbounded coordinate into its range: deterministic, so that a rerun writes the
same parameters (`--check` reruns and compares with the committed file).

    .venv/bin/python scripts/calibrate_stand_in.py [--evaluations 120] [--check]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from reclaim import traces
from reclaim.experiments.batch import results
from reclaim.reproduce import stockmeyer as sm
from scipy.optimize import minimize

OUT = Path(__file__).resolve().parents[1] / "python" / "reclaim" / "reproduce" / "data" / "stand_in_files.json"

#: The report's numbers the search may read (none involves age-sorted streams): (what, value).
TARGETS: dict[str, tuple[str, float]] = {
    "hit_1": ("LRU hit ratio, 1 track (§2.3)", 0.223),
    "hit_320": ("LRU hit ratio, 320 tracks (§2.3)", 0.950),
    "fig2_fit_gcu_1": ("Figure 2, fitness-fifo GCU, Cache 1", 0.129),
    "fig2_fit_gcu_320": ("Figure 2, fitness-fifo GCU, Cache 320", 0.351),
    "fig2_fit_empty_1": ("Figure 2, fitness-fifo EmptyCount (K), Cache 1", 57.7),
    "fig2_fit_empty_320": ("Figure 2, fitness-fifo EmptyCount (K), Cache 320", 1.9),
    "fig2_at_gcu_1": ("Figure 2, age-threshold GCU, Cache 1", 0.136),
    "fig2_at_gcu_320": ("Figure 2, age-threshold GCU, Cache 320", 0.369),
    "fig2_at_empty_1": ("Figure 2, age-threshold EmptyCount (K), Cache 1", 72.4),
    "fig2_at_empty_320": ("Figure 2, age-threshold EmptyCount (K), Cache 320", 4.0),
    "fig5_cltd_1": ("Figure 5, CltdCount (K) at (0, 0), Cache 1", 49.0),
    "fig5_cltd_320": ("Figure 5, CltdCount (K) at (0, 0), Cache 320", 28.0),
    "greedy_gcu_1": ("greedy at (0, 0), GCU, Cache 1", 0.581),
    "greedy_gcu_320": ("greedy at (0, 0), GCU, Cache 320", 0.583),
}

#: Searched parameters: (low, high, start, log scale). The others keep the committed file's values.
SEARCHED: dict[str, tuple[float, float, float, bool]] = {
    "frozen": (0.0, 0.9, 0.3, False),
    "skew": (0.3, 4.0, 1.0, True),
    "p_stack": (0.0, 0.98, 0.7, False),
    "depth": (2.0, 4000.0, 64.0, True),
    "p_whole": (0.0, 1.0, 0.5, False),
    "p_repeat": (0.0, 0.5, 0.15, False),
    "size_tail": (0.5, 3.0, 1.2, True),
}
FIXED = {"size_min": 1.0, "size_max": 2000, "run": 4.0, "drift": 0.0}


def to_params(x: np.ndarray) -> dict[str, float]:
    """Unbounded coordinates → parameters in their ranges (a logistic map, log-scaled where said)."""
    out: dict[str, float] = {}
    for xi, (name, (lo, hi, _, log)) in zip(x, SEARCHED.items()):
        s = 1.0 / (1.0 + math.exp(-float(xi)))
        v = math.exp(math.log(lo) + s * (math.log(hi) - math.log(lo))) if log else lo + s * (hi - lo)
        out[name] = round(v) if name == "depth" else round(v, 6)
    return out


def start() -> np.ndarray:
    x = []
    for lo, hi, v, log in SEARCHED.values():
        s = (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo)) if log else (v - lo) / (hi - lo)
        s = min(max(s, 1e-3), 1 - 1e-3)
        x.append(math.log(s / (1 - s)))
    return np.array(x)


def measure(params: dict[str, float], folder: Path) -> dict[str, float]:
    """The target measures of the stand-in with ``params`` (full length, seed 1)."""
    trace = folder / "stand-in.rtr"
    traces.stand_in(trace, seed=1, model="files", **(FIXED | params))
    s = sm.Setting(trace, sm.SNAKE_TRACKS, sm.SNAKE_WRITES, "calibration", 10)
    named = sm.cases(s)
    want = [f"one/fit/{c}/fifo" for c in sm.CACHES] + [f"one/at/{c}/{nat}" for c in sm.CACHES for nat in sm.NATS]
    want += [f"fit/N/{c}/fifo/0,0" for c in sm.CACHES] + [f"greedy/N/{c}" for c in sm.CACHES]
    runs = results([named[n].config(s) for n in want], sweep="calibrate-stand-in", db=None, series=True)
    res = sm.Results(s, dict(zip(want, runs)))
    out: dict[str, float] = {}
    for c in sm.CACHES:
        fit = res.m[f"one/fit/{c}/fifo"]
        at, _ = res.at_opt(f"one/at/{c}/{{nat}}")
        out[f"hit_{c}"] = float(res.runs[f"fit/N/{c}/fifo/0,0"].cache_hit_ratio)
        out[f"fig2_fit_gcu_{c}"], out[f"fig2_fit_empty_{c}"] = fit.gcu, fit.empty_k
        out[f"fig2_at_gcu_{c}"], out[f"fig2_at_empty_{c}"] = at.gcu, at.empty_k
        out[f"fig5_cltd_{c}"] = res.m[f"fit/N/{c}/fifo/0,0"].cltd_k
        out[f"greedy_gcu_{c}"] = res.m[f"greedy/N/{c}"].gcu
    return out


def objective(m: dict[str, float]) -> float:
    """Mean squared log-ratio to the targets (an EmptyCount of 0 counts as 0.1K)."""
    return float(np.mean([math.log(max(m[k], 0.1 if "empty" in k else 1e-6) / v) ** 2 for k, (_, v) in TARGETS.items()]))


def search(evaluations: int) -> tuple[dict[str, float], float, dict[str, float]]:
    seen: dict[tuple[float, ...], tuple[float, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        def f(x: np.ndarray) -> float:
            p = to_params(x)
            key = tuple(p.values())
            if key not in seen:
                t0 = time.time()
                m = measure(p, folder)
                seen[key] = (objective(m), m)
                print(f"[{len(seen):3d}] {seen[key][0]:.4f} {p} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
            return seen[key][0]

        minimize(f, start(), method="Nelder-Mead", options={"maxfev": evaluations, "xatol": 1e-3, "fatol": 1e-5,
                                                           "initial_simplex": start() + np.vstack([np.zeros(len(SEARCHED)),
                                                                                                  np.eye(len(SEARCHED))])})
    key, (best, m) = min(seen.items(), key=lambda kv: kv[1][0])
    return dict(zip(SEARCHED, key)), best, m


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--evaluations", type=int, default=120, help="Nelder–Mead's budget of evaluations.")
    ap.add_argument("--check", action="store_true", help="Rerun and compare with the committed parameters.")
    args = ap.parse_args()
    params, best, m = search(args.evaluations)
    doc = {
        "about": "Parameters of the file-structured stand-in for Stockmeyer's snake trace "
                 "(crates/reclaim-core/src/trace/stand_in_files.rs), written by scripts/calibrate_stand_in.py from the "
                 "report's results without age sorting.",
        "search": {"evaluations": args.evaluations, "objective": "mean squared log-ratio to the targets", "value": round(best, 6)},
        "targets": {k: {"what": w, "report": v, "stand_in": round(m[k], 4)} for k, (w, v) in TARGETS.items()},
        "parameters": FIXED | params,
    }
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if args.check:
        committed = json.loads(OUT.read_text())["parameters"]
        same = committed == doc["parameters"]
        print("same parameters as committed" if same else f"differ: committed {committed}, now {doc['parameters']}")
        return 0 if same else 1
    OUT.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
