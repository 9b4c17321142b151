"""SepBIT (Wang et al., FAST '22) and the schemes its artifact measures against, replayed as its
artifact replays traces (§5, the ``log`` method: each volume its own log, one segment collected
per write request while the garbage proportion exceeds 0.15, 512 KiB segments of 4 KiB blocks):
every placement under greedy and under the artifact's cost-benefit, the overall WA of a trace
set (the sum of all writes over the sum of user writes, as the paper's overall-WA figure), the
future-knowledge oracle FK beside them, and each volume's WA for a CDF.

The default trace set is synthetic, one volume per shape: the artifact's hot/cold trace (a
working set written once in order, then single-page writes, 90% of them to a random tenth),
hot/cold 80/20, uniform, and Zipf (θ = 0.99 over a random order of the pages). ``--trace``
replays a converted trace instead, each of its volumes as its own log. The published figures
this is checked against are the artifact's on the hot/cold trace (``docs/validation.md``).
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from reclaim.api import SimConfig
from reclaim.reproduce.common import Context, Reproduction, Row

#: (placement, the artifact's name), in the order of the paper's overall-WA figure; FK last.
PLACEMENTS = (
    ("single", "NoSep"), ("sepgc", "SepGC"), ("dac", "DAC"), ("sfs", "SFS"), ("multi-log:form=sepbit", "MultiLog"),
    ("eti", "ETI"), ("multi-queue", "MultiQueue"), ("sfr", "SFR"), ("fadac", "FADaC"), ("warcip", "WARCIP"),
    ("sepbit", "SepBIT"), ("uw", "UW"), ("gw", "GW"), ("fk", "FK"),
)
#: The two selections of the paper's Exp#1: (policy, the artifact's name).
SELECTIONS = (("greedy", "Greedy"), ("cost-benefit:form=sepbit", "Cost-Benefit"))
#: The synthetic trace set: (name, hot share of writes, hot share of pages; 0 for uniform,
#: ``zipf`` for Zipf θ = 0.99).
SHAPES: tuple[tuple[str, float | str, float], ...] = (
    ("hot/cold 90/10", 0.9, 0.1), ("hot/cold 80/20", 0.8, 0.2), ("uniform", 0.0, 0.0), ("zipf 0.99", "zipf", 0.99))
#: Working set [pages] and measured writes of each synthetic volume (the artifact's trace: 65,536
#: and 1,000,000); ``quick``: a quarter of each.
SIZES = {False: (65_536, 1_000_000), True: (16_384, 250_000)}
#: Pages per segment: 512 KiB of 4 KiB pages, the paper's default segment size.
PPS = 128


def registered() -> list[tuple[str, str]]:
    """The placements of :data:`PLACEMENTS` this build of reclaim has (the others are not yet
    built; their rows say so)."""
    from reclaim.schemes import schemes

    names = {s["name"] for s in schemes("placements")} | {a for s in schemes("placements") for a in s["aliases"]}
    return [(p, n) for p, n in PLACEMENTS if p.split(":")[0] in names]


def synthetic_pages(shape: str, hot: float | str, share: float, pages: int, writes: int, seed: int) -> Any:
    """A volume of the synthetic set: ``pages`` written once in order, then ``writes`` single-page
    writes of the shape."""
    import numpy as np

    rng = np.random.default_rng(seed)
    order = rng.permutation(pages)
    if hot == "zipf":
        ranks = np.arange(1, pages + 1, dtype=np.float64) ** -share
        drawn = order[rng.choice(pages, size=writes, p=ranks / ranks.sum())]
    elif hot == 0.0:
        drawn = rng.integers(0, pages, writes)
    else:
        assert isinstance(hot, float)
        k = max(1, int(pages * share))
        hot_pages, cold_pages = order[:k], order[k:]
        is_hot = rng.random(writes) < hot
        drawn = np.where(is_hot, hot_pages[rng.integers(0, k, writes)], cold_pages[rng.integers(0, len(cold_pages), writes)])
    return np.concatenate([np.arange(pages), drawn]).astype(np.uint32)


def trace_set(quick: bool) -> list[tuple[str, Path]]:
    """The synthetic volumes as converted traces, written once into the temporary folder (their
    names carry their parameters, so that a rerun finds them, and its results, again)."""
    from reclaim import traces

    pages, writes = SIZES[quick]
    folder = Path(tempfile.gettempdir()) / "reclaim-sepbit-traces"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, (name, hot, share) in enumerate(SHAPES):
        tag = hashlib.sha256(f"{name}|{hot}|{share}|{pages}|{writes}|{2022 + i}".encode()).hexdigest()[:12]
        path = folder / f"{tag}.rtr"
        if not path.exists():
            partial = path.with_suffix(".part")
            traces.write_pages(synthetic_pages(name, hot, share, pages, writes, 2022 + i), partial, source=f"synthetic {name}")
            partial.replace(path)
        out.append((name, path))
    return out


def volumes_of(trace: Path) -> list[tuple[str, str | None]]:
    """A converted trace's volumes as (name, ``volume`` parameter): one log each."""
    from reclaim import traces

    names = [str(v["name"]) for v in traces.load(trace).meta.get("volumes", [])]
    return [(n, n) for n in names] if len(names) > 1 else [(trace.name, None)]


def compute(ctx: Context) -> list[Row]:
    if ctx.trace is not None:
        logs = [(name, ctx.trace, volume) for name, volume in volumes_of(ctx.trace)]
    else:
        logs = [(name, path, None) for name, path in trace_set(ctx.quick)]
    schemes = registered()
    configs, keys = [], []
    for placement, name in schemes:
        for policy, selection in SELECTIONS:
            for log, path, volume in logs:
                configs.append(SimConfig(workload=f"trace:{path}", method="log", policy=policy, placement=placement,
                                         pages_per_segment=PPS, volume=volume))
                keys.append((name, selection, log))
    results = ctx.simulate(configs)
    by: dict[tuple[str, str], list[tuple[str, float, int, int]]] = {}
    for (name, selection, log), r in zip(keys, results):
        by.setdefault((name, selection), []).append((log, float(r.wa), int(r.user_writes), int(r.gc_writes)))
    rows: list[Row] = []
    for placement, name in schemes:
        row: Row = {"scheme": name, "placement": placement}
        for _, selection in SELECTIONS:
            vols = by[(name, selection)]
            user, gc = sum(v[2] for v in vols), sum(v[3] for v in vols)
            row[selection] = (user + gc) / user if user else float("nan")
            row[f"{selection} volumes"] = {v[0]: v[1] for v in vols}
        rows.append(row)
    have = {p for p, _ in schemes}
    rows += [{"scheme": name, "placement": p, "missing": True} for p, name in PLACEMENTS if p not in have]
    return rows


def render(rows: list[Row]) -> list[Table]:
    t = Table(title="SepBIT (FAST '22), Exp#1 layout: overall WA per scheme, under greedy and cost-benefit\n"
                    "[dim]the log method (each volume a log, GP threshold 0.15, 512 KiB segments); overall WA = "
                    "Σ all writes / Σ user writes; FK: the future-knowledge oracle[/]")
    t.add_column("scheme")
    for _, selection in SELECTIONS:
        t.add_column(f"WA, {selection}", justify="right")
    vols = next((list(r[f"{SELECTIONS[0][1]} volumes"]) for r in rows if not r.get("missing")), [])
    for v in vols:
        t.add_column(f"{v} (greedy)", justify="right")
    for r in rows:
        if r.get("missing"):
            t.add_row(r["scheme"], "not yet", "not yet", *["" for _ in vols])
            continue
        per = r[f"{SELECTIONS[0][1]} volumes"]
        t.add_row(r["scheme"], *[f"{r[s]:.4f}" for _, s in SELECTIONS], *[f"{per[v]:.4f}" for v in vols])
    return [t]


def figures(rows: Sequence[Row], out_dir: Path) -> list[Path]:
    """The per-volume WA of each scheme as a CDF (the paper's per-volume figures), one panel per
    selection."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, len(SELECTIONS), figsize=(11, 4))
    colours = [plt.get_cmap("tab20")(i / 19) for i in range(20)]
    for ax, (_, selection) in zip(axes, SELECTIONS):
        for i, r in enumerate(x for x in rows if not x.get("missing")):
            was = np.sort(np.array(list(r[f"{selection} volumes"].values())))
            ax.step(was, np.arange(1, len(was) + 1) / len(was), where="post", label=r["scheme"],
                    color=colours[i % len(colours)], linestyle="--" if r["scheme"] == "FK" else "-")
        ax.set(title=selection, xlabel="WA of a volume", ylabel="share of volumes")
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = out_dir / "sepbit_volumes_cdf.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [path]


SEPBIT = Reproduction(
    title="SepBIT (FAST '22): overall WA of every placement under greedy and cost-benefit",
    source="Wang et al., FAST '22, §5 Exp#1, replayed as its artifact (fallfish/sepbit) replays traces",
    compute=compute,
    columns=[],
    render=render,
)
