"""The accuracy of ``reclaim advise``'s miniature runs against full runs, recomputed.

For each trace (generated here with numpy from a fixed seed, so that the table is the same on
every machine), every scheme × spare of the grid runs once on the whole trace and on miniature
samples at each rate R (and at the default fixed sample size), with several hash seeds; the
table gives, per trace and sampling, the median and 90th percentile of |predicted / full − 1|
over the grid's configurations, the share within 2% and 5%, the share whose 95% interval over
the seeds holds the full run's WA (its coverage) and the interval's median half-width, whether
the top-ranked scheme at each spare is the full runs' best or within 1% of it, the sample's
distinct pages and the mean segments of the miniature device, and the wall time of the
miniature runs against the full ones.

The ``dev`` trace (hot/cold 80/20, its own seed) is the one on which the choices of
``reclaim.advise`` were made (default sample size, whether to extrapolate); it is reported apart
(``--dev``) and never among the traces of the table.

Usage (under the build lock: it takes minutes on two cores)::

    flock /tmp/reclaim-build.lock .venv/bin/python scripts/advise-accuracy.py --markdown
    flock /tmp/reclaim-build.lock .venv/bin/python scripts/advise-accuracy.py --dev --markdown
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from reclaim.advise import SCHEMES, SPARES, advise, parse_scheme
from reclaim.experiments.batch import results
from reclaim.traces import write_pages


def uniform(w: int, n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, w, n).astype(np.uint32)


def hotcold(w: int, n: int, rng: np.random.Generator, r: float, f: float) -> np.ndarray:
    """A share r of the writes to a share f of the pages (Rosenblum & Ousterhout's hot/cold),
    the pages permuted so that hot ones are spread over the address space."""
    k = max(1, int(w * f))
    hot = rng.random(n) < r
    idx = np.where(hot, rng.integers(0, k, n), rng.integers(k, w, n))
    return rng.permutation(w).astype(np.uint32)[idx]


def zipf(w: int, n: int, rng: np.random.Generator, theta: float) -> np.ndarray:
    """Zipf(θ) over a seeded permutation of the pages (Lomet & Luo: θ = 0.99 ≈ 80-20)."""
    p = 1.0 / np.arange(1, w + 1) ** theta
    idx = rng.choice(w, size=n, p=p / p.sum())
    return rng.permutation(w).astype(np.uint32)[idx]


def traces(pages: int, per_page: int, dev: bool) -> dict[str, np.ndarray]:
    n = pages * per_page
    if dev:
        return {"dev: hot/cold 80/20": hotcold(pages, n, np.random.default_rng(7), 0.8, 0.2)}
    return {
        "uniform": uniform(pages, n, np.random.default_rng(11)),
        "hot/cold 90/10": hotcold(pages, n, np.random.default_rng(12), 0.9, 0.1),
        "zipf 0.99": zipf(pages, n, np.random.default_rng(13), 0.99),
    }


def full_runs(pages: np.ndarray, spares: list[float], schemes: list[str], folder: str, workers: int | None) -> tuple[dict[tuple[float, str], float], float]:
    path = f"{folder}/whole.rtr"
    write_pages(pages, path, source="advise accuracy: whole trace")
    configs = [{**parse_scheme(s), "workload": f"trace:{path}", "spare": sp, "pages_per_segment": 64,
                "method": "precondition", "seed": 1} for sp in spares for s in schemes]
    t = time.perf_counter()
    got = results(configs, sweep="advise-accuracy:full", workers=workers)
    seconds = time.perf_counter() - t
    keys = [(sp, s) for sp in spares for s in schemes]
    return {k: float(r.wa) for k, r in zip(keys, got)}, seconds


def summary(df: Any, full: dict[tuple[float, str], float]) -> dict[str, float]:
    """The error of the seeds' mean against the full run over the grid's configurations, the
    interval's coverage (the share of configurations whose 95% interval over seeds holds the full
    run's WA) and its median half-width relative to the mean, beside the median |bias|."""
    truth = np.array([full[(r.spare, r.scheme)] for r in df.itertuples()])
    wa = df["wa"].to_numpy()
    err = np.abs(wa / truth - 1)
    covered = (df["wa_low"].to_numpy() <= truth) & (truth <= df["wa_high"].to_numpy())
    top_ok = []
    for spare, g in df.groupby("spare"):
        predicted = g.sort_values("wa").iloc[0]["scheme"]
        best = min(full[(spare, s)] for s in g["scheme"])
        top_ok.append(full[(spare, predicted)] <= best * 1.01)
    return {"median": float(np.median(err)), "p90": float(np.quantile(err, 0.9)), "within2": float(np.mean(err <= 0.02)),
            "within5": float(np.mean(err <= 0.05)), "top": float(np.mean(top_ok)), "spares": len(top_ok),
            "segments": float(df["segments"].mean()), "coverage": float(np.mean(covered)),
            "half_width": float(np.median((df["wa_high"].to_numpy() - wa) / wa))}


def speed(writes: int, volumes: int, seeds: int, full_schemes: int, workers: int | None) -> None:
    """Times ``advise`` on a volume set of ``writes`` page writes over ``volumes`` volumes (each a
    hot/cold volume of its own skew, 8 writes per page) with the default grid, and the full runs of
    the first ``full_schemes`` schemes at every spare, the rest of the full grid extrapolated
    from them in proportion to their count."""
    import json
    import tempfile
    from pathlib import Path

    per = writes // volumes
    with tempfile.TemporaryDirectory() as folder:
        listed = []
        for v in range(volumes):
            r = 0.6 + 0.3 * v / max(1, volumes - 1)
            pages = hotcold(per // 8, per, np.random.default_rng(100 + v), r, 1 - r)
            write_pages(pages, f"{folder}/v{v}.rtr", source=f"advise speed: volume {v}, hot/cold {r:.2f}")
            listed.append({"name": f"v{v}", "file": f"v{v}.rtr"})
        Path(folder, "volumes.json").write_text(json.dumps({"volumes": listed}))
        t = time.perf_counter()
        df = advise(folder, seeds=seeds, workers=workers)
        mini = time.perf_counter() - t
        print(f"advise: {volumes} volumes, {writes:,} writes, {df.attrs['runs']:,} miniature runs "
              f"({len(SCHEMES)} schemes × {len(SPARES)} spares × {seeds} seeds × volumes), "
              f"mean sampling rate {df[df.volume != 'all']['rate'].mean():.4f}: {mini:.1f} s", flush=True)
        if not full_schemes:
            return
        configs = [{**parse_scheme(s), "workload": f"trace:{folder}/v{v}.rtr", "spare": sp, "pages_per_segment": 64,
                    "method": "precondition", "seed": 1} for v in range(volumes) for sp in SPARES for s in SCHEMES[:full_schemes]]
        t = time.perf_counter()
        results(configs, sweep="advise-speed:full", workers=workers)
        full = time.perf_counter() - t
        head = f"full runs: {len(configs)} ({full_schemes} schemes × {len(SPARES)} spares × {volumes} volumes) in {full:.1f} s"
        if full_schemes >= len(SCHEMES):
            print(f"{head}, measured: {full / mini:.2f} × advise's time", flush=True)
            return
        whole = full * len(SCHEMES) / full_schemes
        print(f"{head}; the grid of {len(SCHEMES)} schemes extrapolated: {whole:.0f} s, {whole / mini:.1f} × advise's time")


def accuracy(pages: int = 1 << 19, per_page: int = 8, rates: list[float] | None = None, seeds: int = 4,
             workers: int | None = None, dev: bool = False, echo: bool = False) -> str:
    """The accuracy table, the bias table by scheme, and the wall times (Markdown); ``echo``
    prints each row of the first as it is measured."""
    import tempfile

    spares, schemes = list(SPARES), list(SCHEMES)
    samplings: list[tuple[str, dict[str, Any]]] = [(f"R = {r:g}", {"rate": r}) for r in (rates or [0.01, 0.03, 0.1])]
    samplings.append(("default sample", {}))
    if dev:
        samplings += [(f"{name}, extrapolated", {**kw, "correct": "extrapolate"}) for name, kw in list(samplings)]
    lines = ["| trace | sampling | sample pages | miniature segments | median error | 90th pct | within 2% | within 5% | "
             "interval holds full run | interval half-width (median) | top-ranked best or within 1% |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    bias: dict[tuple[str, str], list[float]] = {}
    cover: dict[tuple[str, str], list[float]] = {}
    modelled: list[str] = []
    segments: dict[str, list[float]] = {}
    times = []
    for name, trace in traces(pages, per_page, dev).items():
        distinct = len(np.unique(trace))
        with tempfile.TemporaryDirectory() as folder:
            full, full_s = full_runs(trace, spares, schemes, folder, workers)
        mini = []
        for label, kw in samplings:
            t = time.perf_counter()
            df = advise(trace, spares=spares, schemes=schemes, seeds=seeds, workers=workers, **kw)
            mini.append(f"{label} {time.perf_counter() - t:.1f} s")
            s = summary(df, full)
            segments.setdefault(label, []).append(s["segments"])
            for scheme, g in df.groupby("scheme"):
                truth = np.array([full[(r.spare, r.scheme)] for r in g.itertuples()])
                bias.setdefault((label, str(scheme)), []).append(float(np.mean(g["wa"].to_numpy() / truth - 1)))
                cover.setdefault((label, str(scheme)), []).extend(
                    ((g["wa_low"].to_numpy() <= truth) & (truth <= g["wa_high"].to_numpy())).tolist())
            if not kw:
                # The models' WA is the same at every sampling: shown once, beside the default sample's.
                for scheme, g in df[df["model"].notna()].groupby("scheme", sort=False):
                    truth = np.array([full[(r.spare, r.scheme)] for r in g.itertuples()])
                    em = np.abs(g["model"].to_numpy() / truth - 1)
                    ew = np.abs(g["wa"].to_numpy() / truth - 1)
                    modelled.append(f"| {name} | {scheme} | {100 * np.median(em):.2f}% | {100 * em.max():.2f}% | "
                                    f"{100 * np.median(ew):.2f}% | {100 * ew.max():.2f}% |")
            line = (f"| {name} | {label} | {df['rate'].mean() * distinct:,.0f} | {s['segments']:,.0f} | {100 * s['median']:.2f}% | "
                    f"{100 * s['p90']:.2f}% | {100 * s['within2']:.0f}% | {100 * s['within5']:.0f}% | "
                    f"{100 * s['coverage']:.0f}% | {100 * s['half_width']:.2f}% | {round(s['top'] * s['spares'])} of {s['spares']} |")
            lines.append(line)
            if echo:
                print(line, flush=True)
        times.append(f"- {name}: full runs {full_s:.1f} s; miniature runs: {', '.join(mini)}")
    heads = [label for label, _ in samplings]
    lines += ["", "Signed error of the seeds' mean against the full run, averaged over the spares and the traces above, by "
              "scheme, with the miniature's mean segments:", "",
              "| scheme | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(heads),
              "| (segments) | " + " | ".join(f"{np.mean(segments[h]):,.0f}" for h in heads) + " |"]
    for scheme in schemes:
        lines.append(f"| {scheme} | " + " | ".join(f"{100 * np.mean(bias[(h, scheme)]):+.2f}%" for h in heads) + " |")
    lines += ["", "Coverage of the 95% interval over seeds (the share of the spares and traces above whose interval holds "
              "the full run's WA), by scheme:", "",
              "| scheme | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(heads)]
    for scheme in schemes:
        lines.append(f"| {scheme} | " + " | ".join(f"{100 * np.mean(cover[(h, scheme)]):.0f}%" for h in heads) + " |")
    lines += ["", "The models' WA (``reclaim.advise.model_wa``) against the full run, beside the default sample's "
              "miniatures, |predicted / full − 1| over the spares (a scheme missing where its model does not apply):", "",
              "| trace | scheme | model, median | model, max | miniature, median | miniature, max |",
              "|---|---|---:|---:|---:|---:|", *modelled]
    lines += ["", f"{len(schemes)} schemes × {len(spares)} spares; {pages:,} pages × {per_page} writes each; {seeds} hash seeds; "
              "wall times on this machine (not part of the tables):", *times]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1 << 19, help="distinct pages of each trace")
    ap.add_argument("--per-page", type=int, default=8, help="writes per page")
    ap.add_argument("--rates", default="0.01,0.03,0.1")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--dev", action="store_true", help="the development trace only, with and without extrapolation")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--speed", type=int, metavar="WRITES", help="time advise and full runs on a volume set of WRITES writes instead")
    ap.add_argument("--volumes", type=int, default=8, help="with --speed: volumes")
    ap.add_argument("--full-schemes", type=int, default=2,
                    help="with --speed: schemes run in full (the rest extrapolated; 0: none; 12: the whole grid, measured)")
    a = ap.parse_args()
    if a.speed:
        speed(a.speed, a.volumes, a.seeds, a.full_schemes, a.workers)
        return
    print(accuracy(a.pages, a.per_page, [float(r) for r in a.rates.split(",")], a.seeds, a.workers, a.dev,
                   echo=not a.markdown))


if __name__ == "__main__":
    main()
