"""``reclaim simulate``, ``schemes``, ``demo``, ``bench``, ``reproduce`` and ``validate``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from reclaim.api import SimConfig
from reclaim.cli.common import DEFAULT_DB, app, fail, number, out, ph, print_json
from reclaim.device import TimeResult
from reclaim.progress import console, progress_bar, run_with_bar
from reclaim.schemes import FAMILIES


@app.command("simulate")
def simulate_cmd(
    segments: Annotated[int | None, typer.Option(help=ph("segments"))] = None,
    pages_per_segment: Annotated[int | None, typer.Option(help=ph("pages_per_segment"))] = None,
    spare: Annotated[float | None, typer.Option(help=ph("spare"))] = None,
    fill: Annotated[float | None, typer.Option(help=ph("fill"))] = None,
    logical_pages: Annotated[int | None, typer.Option(help=ph("logical_pages"))] = None,
    policy: Annotated[str | None, typer.Option(help=ph("policy"))] = None,
    frontier: Annotated[str | None, typer.Option(help=ph("frontier"))] = None,
    placement: Annotated[str | None, typer.Option(help=ph("placement"))] = None,
    streams: Annotated[str | None, typer.Option(help=ph("streams"))] = None,
    free_empty: Annotated[bool, typer.Option("--free-empty", help=ph("free_empty"))] = False,
    cache: Annotated[int | None, typer.Option(help=ph("cache"))] = None,
    trace_classes: Annotated[str | None, typer.Option(help=ph("trace_classes"))] = None,
    gc: Annotated[str | None, typer.Option(help=ph("gc"))] = None,
    workload: Annotated[str | None, typer.Option(help=ph("workload", "A trace is a converted trace (`reclaim trace convert`) or a page-id list."))] = None,
    sizes: Annotated[str | None, typer.Option(help=ph("sizes"))] = None,
    method: Annotated[str | None, typer.Option(help=ph("method"))] = None,
    trim: Annotated[str | None, typer.Option(help="`on` (default): a trace's discards (TRIM) invalidate their pages; `off`: its writes alone.")] = None,
    volume: Annotated[
        str | None,
        typer.Option(help=ph("volume", "`each`: every volume on a device of its own, with the overall WA (the default for a trace of several volumes or a folder of one per volume).")),
    ] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="With several volumes: worker processes (default one per core).")] = None,
    warmup: Annotated[str | None, typer.Option(help=ph("warmup"))] = None,
    writes: Annotated[str | None, typer.Option(help=ph("writes"))] = None,
    seed: Annotated[int | None, typer.Option(help=ph("seed"))] = None,
    window: Annotated[int | None, typer.Option(help=ph("window"))] = None,
    precision: Annotated[str | None, typer.Option(help=ph("precision"))] = None,
    device: Annotated[str | None, typer.Option(help=ph("device", "`reclaim schemes devices` lists the presets and their keys."))] = None,
    arrivals: Annotated[str | None, typer.Option(help=ph("arrivals"))] = None,
    reads: Annotated[float | None, typer.Option(help=ph("reads"))] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object (NaN as null).")] = False,
    arrays: Annotated[bool, typer.Option(help="With --json, include histograms, erase counts and time series.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Simulate one configuration and print its metrics."""
    if arrays and not as_json:
        fail("`--arrays` adds arrays to the JSON output: give `--json` too")
    thresholds = None
    if trace_classes is not None:
        try:
            thresholds = [int(x) for x in trace_classes.split(",") if x.strip()]
        except ValueError:
            fail(f"invalid value for `--trace-classes`: `{trace_classes}` (expected whole numbers such as 50,10)")
    params = dict(
        segments=segments,
        pages_per_segment=pages_per_segment,
        spare=spare,
        fill=fill,
        logical_pages=logical_pages,
        policy=policy,
        frontier=frontier,
        placement=placement,
        streams=streams,
        free_empty=free_empty or None,
        cache=cache,
        trace_classes=thresholds,
        gc=gc,
        workload=workload,
        sizes=sizes,
        method=method,
        trim=_on_off("--trim", trim),
        volume=volume,
        warmup=warmup,
        writes=writes,
        seed=seed,
        window=window,
        precision=precision,
        device=device,
        arrivals=arrivals,
        reads=reads,
    )
    trace = workload[len("trace:") :] if workload and workload.startswith("trace:") else None
    if trace and (volume == "each" or Path(trace).is_dir() or (volume is None and _several_volumes(trace))):
        _simulate_volumes(params, workers, as_json, arrays, quiet)
        return
    config = SimConfig(**params).validated()  # type: ignore[arg-type]
    # What the method's plan warns of is shown before the run, which it may make long (a
    # warm-up over a large address space the trace barely touches): Ctrl-C is then a choice.
    said: list[str] = []

    def warn(w: str) -> None:
        said.append(w)
        typer.echo(f"warning: {w}", err=True)

    with progress_bar(enabled=not quiet and sys.stderr.isatty()) as p:
        r = run_with_bar(p, config.policy or "simulate", config, on_warning=warn)
    for w in r.warnings:
        if w not in said:
            typer.echo(f"warning: {w}", err=True)
    if as_json:
        print_json(r.to_dict(arrays=arrays))
        return
    room = f"spare {r.simulated_spare:.4f}" if config.sizes is None else f"sizes {config.sizes}, spare {r.simulated_spare:.4f} of slots (U, G in slots)"
    what = r.ran()
    ran = f"{what['policy']}, {what['placement']}, gc {what['gc']}" + (f", {what['method']}" if what["method"] else "")
    log = (r.method or {}).get("log")
    if log is not None:
        # A log has no capacity: the segments are only its bound (`method::log`).
        room = f"a log of at most {log['peak_segments']:,} segments (bound {r.simulated_segments:,})"
        t = Table(title=f"{ran}, {config.workload}, segments of {r.simulated_pages_per_segment} pages, working set {r.simulated_logical_pages:,} pages, {room}")
    else:
        t = Table(title=f"{ran}, {config.workload}, {r.simulated_segments:,} segments of {r.simulated_pages_per_segment} pages, {r.simulated_logical_pages:,} logical pages, {room}")
    t.add_column("metric")
    t.add_column("value", justify="right")
    keys = ["user_writes", "gc_writes", "erases", "wa", "wamp", "emptiness_at_clean", "gcu", "collected", "emptied", "wear_leveling_index"]
    if config.cache is not None:
        keys.append("cache_hit_ratio")
    if r.trimmed:
        keys.append("trimmed")
    for k in [*keys, "seconds", "page_writes_per_second"]:
        t.add_row(k, number(k, getattr(r, k)))
    out.print(t)
    if r.interval is not None:
        out.print(interval_line(r.interval))
    if r.time is not None:
        out.print(time_table(r.time))
    if r.scheme_log:
        out.print(scheme_log_table(r.scheme_log))
    if r.method is not None:
        out.print(method_line(r.method))


def interval_line(iv: dict[str, Any]) -> str:
    """The run's interval in words: ``wa 4.5929 ± 0.0006 (95%, 37 batches of 8 windows)``,
    with whether ``precision``'s target was reached."""
    reached = {True: ", target reached", False: ", target not reached by the cap of `writes`", None: ""}[iv.get("reached")]
    return (f"{iv['metric']} {iv['value']:.6g} ± {iv['half_width']:.2g} (95%, batch means: {iv['batches']} batches of "
            f"{iv['windows_per_batch']} window{'s' if iv['windows_per_batch'] > 1 else ''}, lag-1 autocorrelation {iv['lag1']:+.2f}{reached})")


def scheme_log_table(log: list[dict[str, Any]]) -> Table:
    """The placement's own record, as MiDAS-Simulation prints it (``ssdsimul.cpp``
    ``simul_info``, ``model.cpp``'s ``MODEL PREDICTION RESULTS``, ``algorithm.cpp``'s merges): per
    progress window the WAF so far and the window's (its ``WAF`` and ``TMP_WAF``), per model run the
    WAF it predicts for the configuration it chose, then the configuration applied and each merge,
    with the groups' sizes [segments], hot group first."""
    t = Table(title="the placement's record (MiDAS: WAF per window, the model's prediction per epoch)")
    for c in ("user writes", "event", "WAF so far", "WAF (window | predicted)", "groups", "sizes [segments]"):
        t.add_column(c, justify="left" if c in ("event", "sizes [segments]") else "right")
    label = {"window": "window", "model": "model: predicted", "apply": "applied", "merge": "merge"}
    for row in log:
        waf = row.get("waf")
        t.add_row(
            f"{row['user_writes']:,}",
            label.get(row["kind"], row["kind"]),
            f"{row['total_waf']:.3f}",
            "" if waf is None else f"{waf:.3f}",
            str(row["groups"]),
            " ".join(str(x) for x in row["sizes"]),
        )
    return t


def time_table(tm: TimeResult) -> Table:
    """A timed run's measured phase on the device's clock: requests, throughput, the latency
    percentiles of reads and writes [µs], how busy the dies were and cleaning's share of it."""
    t = Table(title=f"time on {tm.device}, {tm.arrivals}")
    t.add_column("metric")
    for c in ("read", "write", "all"):
        t.add_column(c, justify="right")
    t.add_row("requests", f"{tm.read_requests:,}", f"{tm.write_requests:,}", f"{tm.read_requests + tm.write_requests:,}")
    t.add_row("IOPS", f"{tm.read_iops:,.0f}", f"{tm.write_iops:,.0f}", f"{tm.iops:,.0f}")
    t.add_row("MB/s", "", "", f"{tm.mb_per_s:,.1f}")
    for name, label in (("mean", "latency mean [µs]"), ("p50", "p50 [µs]"), ("p90", "p90 [µs]"), ("p99", "p99 [µs]"), ("p999", "p99.9 [µs]"), ("p9999", "p99.99 [µs]"), ("max", "max [µs]")):
        r, w = getattr(tm.read_latency, name), getattr(tm.write_latency, name)
        # A kind of request that was not measured has no latency, not a latency of 0.
        t.add_row(label, f"{r:,.1f}" if tm.read_requests else "—", f"{w:,.1f}" if tm.write_requests else "—", "")
    t.add_section()
    t.add_row(f"die busy ({tm.dies} dies: mean, max)", "", "", f"{tm.die_busy:.3f}, {tm.die_busy_max:.3f}")
    t.add_row("cleaning's share of die time", "", "", f"{tm.gc_busy:.3f}")
    t.add_row("span [s]", "", "", f"{tm.span_us / 1e6:,.3f}")
    return t


def _several_volumes(path: str) -> bool:
    """Whether `path` is a converted trace of several volumes (the command line then runs each on
    a device of its own; the Python API asks for `volume`)."""
    from reclaim.volumes import header

    try:
        return len(header(path).get("volumes") or []) > 1
    except (OSError, ValueError):
        return False  # not a converted trace: the engine says what it is


def _on_off(option: str, value: str | None) -> bool | None:
    if value is None:
        return None
    if value not in ("on", "off"):
        fail(f"invalid value for `{option}`: `{value}` (expected `on` or `off`)")
    return value == "on"


def _simulate_volumes(params: dict[str, Any], workers: int | None, as_json: bool, arrays: bool, quiet: bool) -> None:
    """Every volume of a trace on a device of its own: one row each and the overall WA."""
    from reclaim.volumes import simulate_volumes

    with progress_bar(enabled=not quiet and sys.stderr.isatty()) as p:
        task = p.add_task("volumes", total=None)
        r = simulate_volumes({k: v for k, v in params.items() if v is not None}, workers=workers, progress=lambda done, total: p.update(task, completed=done, total=total))
    # One line per kind of warning, naming its volumes (each volume's own are in --json).
    for w in r.warnings:
        typer.echo(f"warning: {w}", err=True)
    if as_json:
        print_json(r.to_dict(arrays=arrays))
        return
    first = next(iter(r.volumes.values()), None)
    what = first.ran() if first is not None else {"policy": r.config.policy or "greedy", "placement": r.config.placement or "single", "gc": r.config.gc}
    t = Table(title=f"{what['policy']}, {what['placement']}, gc {what['gc']}, {params['workload']}: {len(r.volumes) + len(r.idle)} volumes, each on a device of its own")
    timed = params.get("device") is not None
    for c in ("volume", "segments", "spare", "user_writes", "gc_writes", "wa", "passes", "settled", *(("IOPS", "read p99 [µs]", "write p99 [µs]") if timed else ())):
        t.add_column(c, justify="left" if c == "volume" else "right")
    for name, v in r.volumes.items():
        m = v.method or {}
        settled = m.get("settled")
        # A log's segments are its largest size, not the bound allocated for it.
        segments = m["log"]["peak_segments"] if m.get("log") else v.simulated_segments
        spare = "" if m.get("log") else f"{v.simulated_spare:.4f}" + ("" if m.get("spare_as_asked") is not False else " *")
        # Each volume on a device of its own: its own clock (`--json` holds the whole of each).
        tm = v.time
        clock = () if tm is None else (f"{tm.iops:,.0f}", f"{tm.read_latency.p99:,.1f}" if tm.read_requests else "—", f"{tm.write_latency.p99:,.1f}" if tm.write_requests else "—")
        t.add_row(
            name,
            f"{segments:,}",
            spare,
            f"{v.user_writes:,}",
            f"{v.gc_writes:,}",
            f"{v.wa:.4f}",
            f"{m.get('passes', float('nan')):.2f}",
            "" if settled is None else ("yes" if settled else "NO"),
            *clock,
        )
    for name in r.idle:
        t.add_row(name, "", "", "0", "0", "—", "", "only reads")
    t.add_section()
    t.add_row("overall", "", "", f"{r.user_writes:,}", f"{r.gc_writes:,}", f"{r.wa:.4f}", "", "")
    out.print(t)
    out.print("overall WA = (ΣU + ΣG) / ΣU over the volumes, as SepBIT (FAST '22) reports a trace set")
    if r.off_spare:
        asked = next(iter(r.volumes.values())).method or {}
        out.print(
            f"* {len(r.off_spare)} of {len(r.volumes)} volumes ran at another spare than the {asked.get('asked_spare')} asked "
            "(too small to fill whole segments at it); the overall WA includes them"
        )
    methods = {v.method["method"] for v in r.volumes.values() if v.method}
    if methods:
        out.print(f"method {', '.join(sorted(methods))} on each volume (passes: replayed; settled: whether its WA settled)")


def method_line(m: dict[str, Any]) -> str:
    """How a trace was replayed, in one line: the method, the trace's size and, with
    ``precondition``, the passes and whether they settled."""
    line = f"method {m['method']}: trace of {m['trace_writes']:,} page writes over a working set of {m['working_set']:,} pages, {m['passes']:.2f} passes replayed"
    if m.get("log") is not None:
        log = m["log"]
        line += f"; the garbage proportion exceeded its threshold after {log['triggers']:,} write requests ({log['passed']:,} with no segment to collect); WA cumulative from the first write"
    if m["settled"] is not None:
        was = ", ".join(f"{w:.4f}" for w in m["pass_wa"])
        line += f"; WA per pass {was} ({'settled' if m['settled'] else 'NOT settled'})"
    return line


@app.command("schemes")
def schemes_cmd(
    family: Annotated[str | None, typer.Argument(help=f"{', '.join(FAMILIES)}; all when omitted.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the declarations as JSON.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the README's table of schemes.")] = False,
    stub: Annotated[bool, typer.Option("--stub", help="Print the docstring of `schemes` in the engine's type stubs.")] = False,
    imports: Annotated[
        list[str] | None,
        typer.Option("--import", help="Also list the schemes written in Python that this module (or .py file) defines; repeatable."),
    ] = None,
) -> None:
    """Every policy, placement, trigger, workload, size distribution, trace-driven method, device preset and arrival
    process: its spec, paper and section (or the simulator and file it comes from), parameters and defaults, as its own
    file in the engine declares it."""
    from reclaim.schemes import markdown_table, schemes, stub_doc

    if family is not None and family not in FAMILIES:
        fail(f"invalid value for `FAMILY`: `{family}` (expected one of {', '.join(FAMILIES)})")
    if markdown:
        typer.echo(markdown_table())
        return
    if stub:
        typer.echo(stub_doc())
        return
    from reclaim.outside import imported

    written: list[dict[str, Any]] = []
    for module in imports or []:
        try:
            written += imported(module)
        except (ValueError, ImportError, SyntaxError) as e:
            fail(f"invalid value for `--import`: {module} (expected {e})")
    engine = {"policies": "policy", "placements": "placement"}
    chosen = schemes(family) + [w for w in written if family is None or engine.get(family) == w["family"]]
    if as_json:
        print_json(chosen)
        return
    for name in FAMILIES if family is None else [family]:
        option = "--" + FAMILIES[name][1]
        t = Table(title=f"{name} ({option})", title_justify="left", show_lines=True)
        t.add_column("spec", overflow="fold", max_width=40)
        t.add_column("what it does")
        t.add_column("source", max_width=28)
        for s in schemes(name) + [w for w in written if engine.get(name) == w["family"]]:
            what = Text(s["summary"])
            for p in s["params"]:
                what.append("\n  ")
                what.append(p["key"] or p["values"], style="bold")
                what.append(": " + p["help"] + (f" [{p['unit']}]" if p["unit"] else "") + (f" Default {p['default']}." if p["default"] is not None else " Required."))
            aliases = f" (also {', '.join(s['aliases'])})" if s["aliases"] else ""
            t.add_row(s["usage"] + aliases, what, s["source"])
        out.print(t)


@app.command()
def demo(
    quick: Annotated[bool, typer.Option(help="A smaller device, for a fast look.")] = False,
) -> None:
    """Compare FIFO, greedy, d-choices (d=10) and cost-benefit on uniform and hot/cold writes."""
    from reclaim.demo import run_demo

    run_demo(quick=quick)


@app.command()
def bench(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    runs: Annotated[int, typer.Option(min=1, max=1000, help="Runs per policy; the median is reported.")] = 5,
    writes: Annotated[str | None, typer.Option(help="Measured user writes per run (default 10x; 2x with --instructions).")] = None,
    memory: Annotated[bool, typer.Option(help="Also measure peak memory of a 1 TB geometry.")] = True,
    models: Annotated[bool, typer.Option(help="Also time the mean-field model (double frontier, b = 32 and 64).")] = True,
    trace: Annotated[bool, typer.Option(help="Also time trace conversion and replay.")] = True,
    placements: Annotated[bool, typer.Option(help="Also time greedy under each placement scheme and option.")] = True,
    compare: Annotated[str | None, typer.Option(help="Only compare the engine's speed with this revision's (a commit, tag or branch), interleaved; needs a git checkout.")] = None,
    policies: Annotated[
        str | None,
        typer.Option(
            help="With --compare or --sizes: the policies to time, comma-separated "
            "(default greedy,fifo; with --sizes greedy,fifo,d-choices:d=10,cost-benefit); with --compare, "
            "row:PREFIX also times the placement row whose name starts with PREFIX "
            "(row:fitness-tree, row:mdc)."
        ),
    ] = None,
    sizes: Annotated[
        bool,
        typer.Option(
            "--sizes",
            help="Only time the engine against device size, 10,000 to 4,194,304 segments "
            "of 64 pages (2.4 GiB to 1 TiB), with peak memory; with --compare, beside that revision. "
            "About 30 minutes at 5 runs.",
        ),
    ] = False,
    segments: Annotated[str | None, typer.Option(help="With --sizes: the segment counts, comma-separated.")] = None,
    python: Annotated[
        bool,
        typer.Option("--python", help="Only time the schemes written in Python of examples/python_schemes beside the engine's own, interleaved."),
    ] = False,
    instructions: Annotated[
        bool,
        typer.Option("--instructions", help="With --compare: count the instructions of one run of each under valgrind's cachegrind instead of timing them (unmoved by the machine's load)."),
    ] = False,
) -> None:
    """Engine speed (median page writes per second), peak memory of a 1 TB geometry, model solve times."""
    from reclaim.bench import SCALING_POLICIES, compare_instructions, compare_revisions, measure_python, measure_scaling, run_bench

    chosen = None if policies is None else [p.strip() for p in policies.split(",") if p.strip()]
    if segments is not None and not sizes:
        fail("`--segments` is for `--sizes` only")
    if chosen is not None and not (sizes or compare is not None):
        fail("`--policies` is for `--compare` or `--sizes` only (the full bench times its own rows)")
    for p in chosen or []:
        if not p.startswith("row:"):
            try:
                SimConfig(policy=p).validated()
            except ValueError as e:
                fail(str(e))
    if python:
        try:
            report = measure_python(runs=runs, writes=writes or "10x", show=not as_json)
        except RuntimeError as e:
            fail(str(e))
    elif sizes:
        try:
            report = measure_scaling(runs=runs, segments=segments, policies=chosen or list(SCALING_POLICIES), compare=compare, show=not as_json)
        except ValueError as e:
            fail(str(e))
    elif instructions:
        if compare is None:
            fail("`--instructions` is for `--compare` only")
        try:
            report = compare_instructions(compare, writes=writes or "2x", show=not as_json, policies=chosen or ["greedy", "fifo"])
        except ValueError as e:
            fail(str(e))
    elif compare is not None:
        report = compare_revisions(compare, runs=runs, writes=writes or "10x", show=not as_json, policies=chosen or ["greedy", "fifo"])
    else:
        report = run_bench(runs=runs, writes=writes or "10x", memory=memory, show=not as_json, models=models, trace=trace, placements=placements)
    if as_json:
        print_json(report)


@app.command()
def reproduce(
    name: Annotated[str, typer.Argument(help="vanhoudt-table1 | vanhoudt-table2 | lomet-table1 | lomet | li-greedy | dyal-draughn | stockmeyer | sepbit | latency | ssdiq | midas | all")],
    quick: Annotated[bool, typer.Option(help="Reduced length, as in CI.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
    figures: Annotated[
        Path | None,
        typer.Option(file_okay=False, help="Write its figures in its paper's layout, with the published values and the model, into "
                     "this folder (PDF, SVG and PNG at 3.5 and 7 in, the data as CSV; dyal-draughn, stockmeyer: PNG). Not ssdiq, midas."),
    ] = None,
    trace: Annotated[
        Path | None,
        typer.Option(
            help="stockmeyer: run on this converted trace (renamed tracks, e.g. "
            "`reclaim trace convert … --page-size 32768 --rename`) instead of the snake stand-in; "
            "sepbit: replay this converted trace, or every `*.rtr` file of this folder in name "
            "order, each volume its own log (volumes that only read are listed and skipped), "
            "instead of the synthetic set."
        ),
    ] = None,
    db: Annotated[Path, typer.Option("--db", dir_okay=False, help="The results database its simulations are kept in; a rerun reads them back.")] = DEFAULT_DB,
    workers: Annotated[int | None, typer.Option(min=1, max=1024, help="Parallel simulations (default: one per core).")] = None,
    scheme: Annotated[
        list[str] | None,
        typer.Option("--scheme", metavar="SPEC", help="sepbit: also run this placement (built-in, or written in Python as MODULE:CLASS) on every log, a row of its own; repeatable."),
    ] = None,
    choose: Annotated[
        list[str] | None,
        typer.Option("--set", metavar="KEY=VALUE", help="A reading the paper leaves open, e.g. stockmeyer's `split=median` (`reclaim reproduce NAME --set help=` lists them)."),
    ] = None,
) -> None:
    """Rebuild a seed's table beside the published numbers (`all`: every one)."""
    from reclaim.reproduce import REPRODUCTIONS

    if name != "all" and name not in REPRODUCTIONS:
        fail(f"unknown reproduction `{name}` (expected one of {', '.join(REPRODUCTIONS)}, or all)")
    drawing = [n for n, r in REPRODUCTIONS.items() if r.figures is not None or n in ("dyal-draughn", "stockmeyer")]
    if figures is not None and name not in (*drawing, "all"):
        fail(f"`--figures` is for {', '.join(f'`{n}`' for n in drawing)} only; `{name}` draws none")
    if trace is not None and name not in ("stockmeyer", "sepbit"):
        fail(f"`--trace` is for `stockmeyer` and `sepbit` only; `{name}` runs on its paper's workloads")
    if trace is not None and name == "stockmeyer" and trace.is_dir():
        fail(f"invalid value for `--trace`: {trace} (a folder; `stockmeyer` replays one converted trace, a folder of volumes is for `sepbit`)")
    if scheme and name != "sepbit":
        fail(f"`--scheme` is for `sepbit` only; `{name}` runs its paper's schemes")
    names = list(REPRODUCTIONS) if name == "all" else [name]
    options: dict[str, str] = {}
    for item in choose or []:
        key, eq, value = item.partition("=")
        if key == "help":
            for n in names:
                for k, c in REPRODUCTIONS[n].choices.items():
                    out.print(f"{n}: {k} = {' | '.join(c.values)} (default {c.default}): {c.help}")
            return
        if not eq or not key:
            fail(f"invalid value for `--set`: `{item}` (expected KEY=VALUE)")
        options[key] = value
    for key in options:
        if not any(key in REPRODUCTIONS[n].choices for n in names):
            have = sorted({k for n in names for k in REPRODUCTIONS[n].choices})
            fail(f"invalid option `--set {key}=…` for `{name}` (its options: {', '.join(have) or 'none'})")
    results: dict[str, Any] = {}
    began = time.perf_counter()
    for n in names:
        repro = REPRODUCTIONS[n]
        mine = {k: v for k, v in options.items() if k in repro.choices}
        started = time.perf_counter()
        with progress_bar(enabled=sys.stderr.isatty()) as p:
            try:
                rows, setting = repro.run_with_setting(quick=quick, progress=p, db=db, workers=workers, trace=trace, options=mine,
                                                       extra=scheme or ())
            except ValueError as e:
                fail(str(e))
        results[n] = rows
        if not as_json:
            # The setting names what the runs share with `reclaim simulate` and where they differ.
            out.print(repro.table(rows, setting))
        # On stderr, beside the progress bars: the time each took (runs read back take none).
        typer.echo(f"{n}: {time.perf_counter() - started:.1f} s", err=True)
    if len(names) > 1:
        typer.echo(f"all: {time.perf_counter() - began:.1f} s", err=True)
    if figures is not None:
        from reclaim.reproduce import dyal_draughn, stockmeyer

        drawn = dyal_draughn.figures(figures) if "dyal-draughn" in results else []
        if "stockmeyer" in results:
            drawn += stockmeyer.figures(results["stockmeyer"], figures)
        for n, rows in results.items():
            draw = REPRODUCTIONS[n].figures
            if draw is not None:
                try:
                    drawn += draw(rows, figures)
                except OSError as e:
                    fail(str(e))
        for path in drawn:
            console.print(f"figure: {path}")
    if as_json:
        print_json(results if name == "all" else results[name])


@app.command()
def validate(
    quick: Annotated[bool, typer.Option(help="Reduced lengths (a few minutes).")] = False,
    plot_path: Annotated[Path, typer.Option("--plot", help="Where to write the figure (PNG).")] = Path("validation.png"),
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
    workers: Annotated[int | None, typer.Option(min=1, max=1024, help="Parallel simulations (default: one per core).")] = None,
    db: Annotated[Path, typer.Option("--db", dir_okay=False, help="The results database its simulations are kept in; a rerun reads them back.")] = DEFAULT_DB,
) -> None:
    """Each analytical model against the simulator, on the seeds' validation settings."""
    from reclaim.validate import li_one_percent, plot, run_validation, table

    with progress_bar(enabled=sys.stderr.isatty()) as p:
        rows = run_validation(quick=quick, progress=p, workers=workers, db=db)
    written = plot(rows, plot_path)
    if as_json:
        print_json(rows)
    else:
        out.print(table(rows))
    failed = [r for r in rows if abs(r["rel"]) > r["tolerance"]]
    held = [r for r in rows if r["tolerance"] != float("inf")]
    within, total = li_one_percent(rows)
    console.print(
        f"figure: {written}; {len(held) - len(failed)} of {len(held)} held comparisons within their tolerance "
        f"({len(rows) - len(held)} shown, not held); Li et al. Fig. 5: {within} of {total} within 1%",
        soft_wrap=True,
    )
    if failed:
        # A comparison out of its tolerance is a failed validation, for scripts and CI alike.
        raise typer.Exit(1)
