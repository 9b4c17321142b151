"""``reclaim advise``: which scheme at how much spare for a trace, from miniature runs."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from reclaim.cli.common import app, fail, print_json
from reclaim.progress import console, progress_bar


def _floats(name: str, text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"invalid value for `--{name}`: `{text}` (expected numbers separated by commas, such as 0.1,0.2)")


def _table(df: Any, target: float | None) -> Table:
    t = Table(title="predicted WA from miniature runs, ranked per spare")
    cols = ["volume", "spare", "rank", "scheme", "WA", "interval"]
    if target is not None:
        cols.append(f"spare → {target:g}")
    if "full_wa" in df.columns:
        cols.append("full run (error)")
    modelled = "model" in df.columns and bool(df["model"].notna().any())
    if modelled:
        cols.append("model")
    for c in cols:
        t.add_column(c, justify="left" if c in ("volume", "scheme") else "right", overflow="fold",
                     no_wrap=c not in ("volume", "scheme"), min_width={"volume": 6, "scheme": 12}.get(c))
    least = float(df["spare"].min())
    for r in df.itertuples():
        interval = "" if math.isnan(r.wa_low) else f"{r.wa_low:.3f}–{r.wa_high:.3f}"
        cells = [str(r.volume), f"{r.spare:g}", f"{r.rank}{'*' if r.close else ''}", str(r.scheme), f"{r.wa:.3f}", interval]
        if target is not None:
            s = r.spare_for_target
            cells.append("beyond" if math.isnan(s) else f"≤ {s:g}" if s == least else f"{s:.3f}")
        if "full_wa" in df.columns:
            cells.append("" if math.isnan(r.full_wa) else f"{r.full_wa:.3f} ({100 * r.error:+.1f}%)")
        if modelled:
            cells.append("" if math.isnan(r.model) else f"{r.model:.3f}")
        t.add_row(*cells)
    t.caption = ("*: a close call with the best at that spare (within 1%, or intervals that meet); intervals: "
                 "Student's t over the hash seeds (the samples' spread, not the miniature's bias)" + ("; beyond: no spare of the grid reaches the target" if target else "")
                 + ("; model: the full device's WA by Li et al. Theorem 2 for FIFO (a class per write count), by Van "
                    "Houdt's mean-field for greedy and d-choices (a hot/cold fit, where it holds), both for independent "
                    "writes" if modelled else ""))
    return t


@app.command("advise")
def advise_cmd(
    trace: Annotated[Path, typer.Argument(help="A converted trace (`reclaim trace convert`), or a folder of one per volume.")],
    volume: Annotated[str | None, typer.Option(help="One volume's name (default: each volume, and all of them together).")] = None,
    spares: Annotated[str, typer.Option(help="Spare factors, comma-separated, each in (0, 1).")] = "0.05,0.1,0.15,0.2,0.25,0.3",
    schemes: Annotated[str | None, typer.Option(help="PLACEMENT[+POLICY] specs separated by spaces or `;` (greedy when no policy; "
                                                "default: the placements of SepBIT's comparison without an oracle, and the "
                                                "single frontier under FIFO and cost-benefit).")] = None,
    rate: Annotated[float | None, typer.Option(help="Sampling rate R in (0, 1] (default: a fixed sample of --sample pages).")] = None,
    sample: Annotated[int | None, typer.Option(help="Distinct pages per volume's sample (default 131,072).")] = None,
    seeds: Annotated[int, typer.Option(help="Hash seeds: independent samples, ≥ 2 for an interval.")] = 4,
    pages_per_segment: Annotated[int, typer.Option(help="Pages per segment, as on the full device.")] = 64,
    correct: Annotated[str, typer.Option(help="`none`, or `extrapolate`: 2·WA(N) − WA(N/2) from a half sample.")] = "none",
    target_wa: Annotated[float | None, typer.Option(help="Also give the spare each scheme needs for this WA.")] = None,
    verify: Annotated[bool, typer.Option("--verify", help="Run the full trace for the close calls and show the error.")] = False,
    db: Annotated[Path | None, typer.Option(dir_okay=False, help="Keep every run in this results database.")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Worker processes (default one per core).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object: the rows, seconds and runs.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Rank schemes and spares for a trace from miniature runs on a hashed sample of its pages."""
    from reclaim.advise import FK_NOT_PLACED, SCHEMES, advise, table_json

    if not trace.exists():
        fail(f"invalid value for `TRACE`: {trace} (expected a converted trace or a folder of one per volume; no such path)")
    listed = [s for part in (schemes or "").replace(";", " ").split() for s in [part.strip()] if s] or list(SCHEMES)
    with progress_bar(not quiet and not as_json) as p:
        task = p.add_task(f"advise {trace.name}", total=None)
        df = advise(trace, volume=volume, spares=_floats("spares", spares), schemes=listed, rate=rate, sample=sample, seeds=seeds,
                    pages_per_segment=pages_per_segment, correct=correct, target_wa=target_wa, verify=verify, db=db,
                    workers=workers, on_progress=lambda d, n: p.update(task, completed=d, total=n))
    if as_json:
        import json

        print_json(json.loads(table_json(df)))
        return
    console.print(_table(df, target_wa))
    full = f", {df.attrs['full_runs']} full runs" if verify else ""
    console.print(f"{df.attrs['runs']:,} miniature runs{full} in {df.attrs['seconds']:.1f} s", markup=False)
    console.print(f"{FK_NOT_PLACED} (`reclaim simulate --method log --placement fk` gives its WA on the trace).", markup=False)
