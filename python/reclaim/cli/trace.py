"""``reclaim trace``: block traces converted, described, sized and evaluated."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from reclaim.cli.common import app, emit, fail, out, print_json
from reclaim.progress import console, progress_bar

_FORMATS = "msr | spc | fiu | biotracer | mqsim | disksim | blkparse | alibaba | pages | vscsi | oracle-general | midas | tectonic | csv:op=I,offset=I,size=I[,…] (docs/traces.md)"

#: What `trace stats` shows for a figure of the pages written when a trace or volume has no writes.
ONLY_READS = "only reads"

trace_app = typer.Typer(help="Block traces: convert, statistics.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(trace_app, name="trace")


def _load_trace(path: Path, format: str | None, page_size: int, rename: bool, skip_bad_lines: bool, device: str | None):
    """A converted trace, converting a text trace to a temporary file first (with a progress bar)."""
    from reclaim import traces

    if not traces.is_converted(path) and format is None:
        fail(f"{path} is a text trace: give its `--format` ({', '.join(traces.FORMATS)})")
    with progress_bar(enabled=sys.stderr.isatty()) as p:
        task = p.add_task(f"reading {path.name}", total=None)
        return traces.load_or_convert(path, format, page_size=page_size, rename=rename, skip_bad_lines=skip_bad_lines,
                                      device=device, progress=lambda n: p.update(task, completed=n))


@trace_app.command("convert")
def trace_convert(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="The trace (text or binary; plain, gzip or zstd).")],
    format: Annotated[str, typer.Option("--format", "-f", help=f"The format: {_FORMATS}.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The binary trace to write (with --volumes, a folder).")],
    page_size: Annotated[int, typer.Option(min=1, help="Page size [bytes] (Stockmeyer's tracks: 32768).")] = 4096,
    rename: Annotated[bool, typer.Option(help="Rename page ids densely in first-write order (Stockmeyer §2.1).")] = False,
    skip_bad_lines: Annotated[bool, typer.Option(help="Skip malformed lines and report them per reason.")] = False,
    device: Annotated[str | None, typer.Option(help="Keep only this device or volume.")] = None,
    blkparse_action: Annotated[str, typer.Option(help="blkparse: the one stage counted (Q, D, C, …).")] = "Q",
    volumes: Annotated[bool, typer.Option("--volumes", help="Write one converted trace per volume (device) into the folder --output, listed in its volumes.json.")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Convert a text trace once into a compact binary trace that replays at memory speed. Each
    request keeps its volume (device); volumes never share pages."""
    from reclaim import traces

    with progress_bar(enabled=sys.stderr.isatty()) as p:
        task = p.add_task(f"converting {path.name}", total=None)
        meta = traces.convert(path, format, output, page_size=page_size, rename=rename, skip_bad_lines=skip_bad_lines,
                              device=device, blkparse_action=blkparse_action, volumes=volumes,
                              progress=lambda n: p.update(task, completed=n))
    rep = meta["report"]
    if rep.get("header_lines"):
        console.print(f"note: {rep['header_lines']} header line(s) before the first record (column names) skipped", soft_wrap=True)
    if rep["leading_garbage_lines"] or rep["trailing_padding_bytes"]:
        console.print(f"note: {rep['leading_garbage_bytes']:,} bytes on {rep['leading_garbage_lines']} lines before the first record "
                      f"and {rep['trailing_padding_bytes']:,} NUL bytes after the last were not records", soft_wrap=True)
    for reason, n in rep["skipped"].items():
        console.print(f"skipped {n:,} bad line(s) where {reason} was expected", soft_wrap=True)
    n_volumes = max(1, len(meta.get("volumes") or []))
    if n_volumes > 1 and not volumes and not as_json:
        console.print(f"note: {n_volumes} volumes, each in pages of its own (`trace stats` lists them; "
                      f"`simulate --volume NAME|all|each` replays one, all on one device, or each on its own)", soft_wrap=True)
    shown = {k: v for k, v in meta.items() if k not in ("report", "volumes", "volume_files")}
    shown["volumes"] = n_volumes
    if volumes:
        shown["files"] = f"{len(meta.get('volume_files', []))} in {output} ({traces.VOLUME_INDEX} lists them)"
    emit(as_json, meta if as_json else shown, f"{path.name} → {output}")


@trace_app.command("stand-in")
def trace_stand_in(
    output: Annotated[Path, typer.Option("--output", "-o", help="The binary trace to write.")],
    seed: Annotated[int, typer.Option(min=0, help="Seed of the generator.")] = 1,
    tracks: Annotated[int, typer.Option(min=1, help="Distinct tracks written (the snake: 36,607).")] = 36_607,
    writes: Annotated[int, typer.Option(min=1, help="Track writes (the snake: 6.76M).")] = 6_760_000,
    model: Annotated[str, typer.Option(help="`files`: the file-structured model calibrated on the report's unsorted results; "
                                       "`stack`: the LRU stack-distance model through its two hit ratios.")] = "files",
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Write a stand-in for Stockmeyer's "snake" trace (not public), as docs/validation.md
    describes: by default the file-structured model calibrated on the report's results without
    age sorting; `--model stack`, the stack-distance model through its hit ratios 0.223 and
    0.950."""
    from reclaim import traces

    try:
        meta = traces.stand_in(output, seed=seed, model=model, tracks=tracks, writes=writes)
    except ValueError as e:
        fail(str(e))
    emit(as_json, {k: v for k, v in meta.items() if k != "report"}, f"stand-in → {output}")


@trace_app.command("sizes")
def trace_sizes(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="A text trace.")],
    format: Annotated[str, typer.Option("--format", "-f", help=f"Its format: {_FORMATS}.")],
    slot_bytes: Annotated[int, typer.Option(min=1, help="Bytes per slot, the unit of `--sizes`.")] = 512,
    skip_bad_lines: Annotated[bool, typer.Option(help="Skip malformed lines.")] = False,
    device: Annotated[str | None, typer.Option(help="Keep only this device or volume.")] = None,
) -> None:
    """A page-size distribution from a trace's write lengths, in slots, to give `simulate --sizes`
    (Lomet & Luo §4.4)."""
    from reclaim import traces

    print(traces.request_sizes(path, format, slot_bytes=slot_bytes, skip_bad_lines=skip_bad_lines, device=device))


@trace_app.command("stats")
def trace_stats(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="A converted trace, or a text trace with --format.")],
    format: Annotated[str | None, typer.Option("--format", "-f", help=f"Format of a trace not yet converted: {_FORMATS}.")] = None,
    page_size: Annotated[int, typer.Option(min=1, help="Page size [bytes], for a text trace.")] = 4096,
    thresholds: Annotated[str, typer.Option(help="Access-count thresholds of the (f_a, n, r, f) fit, decreasing.")] = "20,5",
    plot_path: Annotated[Path | None, typer.Option("--plot", help="Write the access-frequency curve (Li et al. Fig. 1), the lifetime histogram and CDF here.")] = None,
    skip_bad_lines: Annotated[bool, typer.Option(help="Skip malformed lines of a text trace.")] = False,
    device: Annotated[str | None, typer.Option(help="Keep only this device or volume.")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Requests, writes, unique pages, f_a, access-frequency distribution and a fit of Li et al.'s
    (f_a, n, r, f)."""
    from reclaim import traces

    try:
        ts = [int(x) for x in thresholds.split(",") if x.strip()]
    except ValueError:
        fail(f"invalid value for `--thresholds`: `{thresholds}` (expected whole numbers such as 20,5)")
    if not ts or any(t < 1 for t in ts) or any(a <= b for a, b in zip(ts, ts[1:])):
        fail(f"invalid value for `--thresholds`: `{thresholds}` (expected access counts ≥ 1, strictly decreasing, such as 20,5)")
    trace = _load_trace(path, format, page_size, False, skip_bad_lines, device)
    st = traces.stats(trace, ts)
    if plot_path is not None:
        traces.plot_stats(st, plot_path, path.name)
    if as_json:
        print_json(st)
        return
    shown = {k: v for k, v in st.items() if k not in ("access_frequency", "report", "fit", "volume_list", "lifetimes")}
    lt = st["lifetimes"]
    q = lt["lifetime_quantiles"]
    shown["rewrites"] = lt["rewrites"]
    shown["lifetime quantiles"] = ", ".join(f"p{float(k) * 100:g} {v:,.0f}" for k, v in q.items())
    shown["rewritten within"] = ", ".join(f"{float(k) * 100:g}% WS {v:.3f}" for k, v in lt["within"].items())
    if not st["writes"]:
        # Shares of the pages written and lifetimes have nothing to count: said, not `nan`.
        for k in ("f_a", "f_a_address", "lifetime quantiles", "rewritten within"):
            shown[k] = ONLY_READS
    elif not lt["rewrites"]:
        shown["lifetime quantiles"] = "no page rewritten"
    if "fit" in st:
        fit = st["fit"]
        shown["fit"] = f"f_a={fit['fa']:.4g}, n={fit['n']}, r=({', '.join(f'{x:.4g}' for x in fit['r'])}), f=({', '.join(f'{x:.4g}' for x in fit['f'])})"
    emit(False, shown, f"trace statistics: {path.name}")
    if st["volumes"] > 1:
        listed = st["volume_list"]
        t = Table(title=f"{len(listed)} volumes" + (" (the first 30; --json lists all)" if len(listed) > 30 else ""))
        for c in ("volume", "requests", "writes", "pages_written", "unique_pages", "median lifetime", "rewritten within WS"):
            t.add_column(c, justify="left" if c == "volume" else "right")
        for v in listed[:30]:
            median, within = v.get("median_lifetime", math.nan), v.get("rewritten_within_working_set", math.nan)
            if not v["writes"]:
                shown_lifetime, shown_within = ONLY_READS, ONLY_READS
            else:
                shown_lifetime = "no page rewritten" if math.isnan(median) else f"{median:,.0f}"
                shown_within = f"{within:.3f}"
            t.add_row(v["name"], *(f"{v[k]:,}" for k in ("requests", "writes", "pages_written", "unique_pages")),
                      shown_lifetime, shown_within)
        out.print(t)


@trace_app.command("evaluate")
def trace_evaluate(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="A converted trace (ids kept), or a text trace with --format.")],
    format: Annotated[str | None, typer.Option("--format", "-f", help=f"Format of a trace not yet converted: {_FORMATS}.")] = None,
    spare: Annotated[float, typer.Option(help="Spare factor S (Li et al. §6.1: 0.2), in (0, 1).")] = 0.2,
    pages_per_segment: Annotated[int, typer.Option(min=1, max=65536, help="Pages per block k.")] = 64,
    warmup_writes: Annotated[float, typer.Option(min=0, help="Uniform warm-up writes over the whole logical space (§6.1: 10M) [user writes].")] = 1e7,
    passes: Annotated[float, typer.Option(help="Passes over the trace in the measured phase, > 0.")] = 1.0,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Li et al. §6: GRA(d) for d = 1, N/2, 3N/4, N and oracle data grouping (n = 2, 3) on a trace:
    normalized cleaning cost and wear-leveling index (their Figs. 8–9)."""
    from reclaim.evaluate import describe, evaluate

    if not (math.isfinite(passes) and passes > 0):
        fail(f"invalid value for `--passes`: {passes} (expected a number of passes > 0)")
    if not math.isfinite(warmup_writes):
        fail(f"invalid value for `--warmup-writes`: {warmup_writes} (expected a finite number of writes ≥ 0)")
    trace = _load_trace(path, format, 4096, False, False, None)
    if trace.meta["renamed"]:
        fail("Li et al.'s evaluation keeps page ids as addresses (the volume is the largest address); convert without --rename")
    info = describe(trace)
    with progress_bar(enabled=sys.stderr.isatty()) as p:
        task = p.add_task("evaluate", total=6)
        rows = evaluate(trace, spare=spare, pages_per_segment=pages_per_segment, warmup_writes=int(warmup_writes),
                        passes=passes, progress=lambda label: p.update(task, advance=1, description=label))
    if as_json:
        print_json({"trace": info, "rows": rows})
        return
    t = Table(title=f"Li et al. §6 on {path.name}: {info['page_writes']:,} page writes, volume {info['volume_pages']:,} pages, "
                    f"f_a = {info['f_a']:.4g}, S = {spare:g}, k = {pages_per_segment}")
    for col in ("algorithm", "normalized cleaning cost", "wear-leveling index", "allocation b"):
        t.add_column(col, justify="left" if col == "algorithm" else "right")
    for r in rows:
        raised = set(r.get("raised", []))
        alloc = ", ".join(f"{x:.3f}" + ("*" if i in raised else "") for i, x in enumerate(r.get("allocation", [])))
        t.add_row(r["algorithm"], f"{r['normalized_cleaning_cost']:.4f}", f"{r['wear_leveling_index']:.4f}", alloc)
    out.print(t)
    if any(r.get("raised") for r in rows):
        out.print("* raised from Theorem 5's b_c* to the least the region runs with (its data, an open block, "
                  "one kept free, one to clean into)")
