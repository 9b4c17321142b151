"""The ``reclaim`` command line: a thin layer over the Python API.

Every error reaches the user through one path (:class:`_OneErrorPath`): a bad value exits with status 2
and a message naming the parameter, the value and what was expected; Ctrl-C exits with 130 and
SIGTERM with 143, with every worker process stopped; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Annotated, Any, NoReturn

import numpy as np
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from reclaim import parallel
from reclaim.api import PARAMETERS, SimConfig
from reclaim.progress import console, progress_bar, run_with_bar


class CliError(Exception):
    """A user error the command line reports in one line (exit status 2)."""


def _report(message: str) -> None:
    console.print(f"[bold red]error:[/] {message}", soft_wrap=True, markup=True, highlight=False)


#: The parser's exceptions: click's, or the copy of click that newer Typer releases carry.
_parser_errors: Any = sys.modules[typer.BadParameter.__module__]
#: End of input at a prompt (click's Abort, or Typer's own in the releases that carry click).
_ABORT: Any = (typer.Abort, getattr(_parser_errors, "Abort", typer.Abort))


def _shows_help(e: Exception) -> bool:
    # click >= 8.2 raises NoArgsIsHelpError for a group called without arguments.
    kind = getattr(_parser_errors, "NoArgsIsHelpError", None)
    return kind is not None and isinstance(e, kind)


class _OneErrorPath(TyperGroup):
    """Every command runs inside :meth:`invoke`: the one place where errors become messages and
    exit statuses; :meth:`main` gives the parser's usage errors (also status 2) the same
    ``error:`` prefix."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # The parser's own signature varies between click and Typer releases: pass it through.
        standalone = kwargs.get("standalone_mode", True)
        kwargs["standalone_mode"] = False
        if not standalone:
            return super().main(*args, **kwargs)
        try:
            code = super().main(*args, **kwargs)
        except _parser_errors.UsageError as e:
            if _shows_help(e):
                # `reclaim` alone (no_args_is_help): the help is the message, not an error.
                e.show()
                sys.exit(e.exit_code)
            if e.ctx is not None:
                typer.echo(e.ctx.get_usage(), err=True)
                typer.echo(f"Try '{e.ctx.command_path} {e.ctx.help_option_names[0]}' for help.\n", err=True)
            _report(e.format_message())
            sys.exit(e.exit_code)
        except _parser_errors.ClickException as e:
            _report(e.format_message())
            sys.exit(e.exit_code)
        except _ABORT:
            console.print("aborted")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except KeyboardInterrupt:
            console.print("interrupted")
            raise typer.Exit(130) from None
        except parallel.Terminated:
            console.print("terminated")
            raise typer.Exit(143) from None
        except CliError as e:
            _report(str(e))
            raise typer.Exit(2) from None
        except (ValueError, TypeError, OSError, RuntimeError, LookupError) as e:
            # Bad values, unreadable files, runs that cannot proceed: the message says which.
            if DEBUG:
                raise
            text = str(e) or type(e).__name__
            if isinstance(e, OSError) and e.filename is not None:
                text = f"{e.filename}: {e.strerror or e}"
            _report(text)
            raise typer.Exit(2) from None
        except Exception as e:  # a bug: say so, without a traceback unless asked
            if DEBUG:
                raise
            _report(f"internal error ({type(e).__name__}: {e}); run again with --debug for the traceback")
            raise typer.Exit(1) from None


app = typer.Typer(
    cls=_OneErrorPath,
    help="reclaim: space reclamation (garbage collection) in log-structured storage.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help text: units in square brackets are text, not markup.
    rich_markup_mode=None,
)
# Tables are not squeezed to 80 columns when the output goes to a file or a pipe.
out = Console(width=None if sys.stdout.isatty() else 200)

#: Set by ``--debug``: errors show their traceback.
DEBUG = False
#: Where sweeps, reproductions and validations keep their results unless `--db` says otherwise.
DEFAULT_DB = Path("results") / "reclaim.duckdb"


def fail(message: str) -> NoReturn:
    """Stops the command with an error message and exit status 2."""
    raise CliError(message)


def _finite(v: Any) -> Any:
    """NaN and infinities as ``null``: JSON has no such numbers."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    if isinstance(v, np.ndarray):
        return _finite(v.tolist())
    if isinstance(v, np.generic):
        return _finite(v.item())
    return v


def number(name: str, v: Any, other: str = ".4f") -> str:
    """A metric as printed in tables: counts with thousands separators, rates to the whole unit,
    seconds to the millisecond, other numbers (ratios) in the format ``other``, four places.

    >>> number("page_writes_per_second", 39274373.2445), number("seconds", 1.23456), number("wa", 2.0), number("erases", 12345)
    ('39,274,373', '1.235', '2.0000', '12,345')
    """
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return f"{int(v):,}"
    if not isinstance(v, (float, np.floating)):
        return str(v)
    if not math.isfinite(v):
        return "n/a" if v != v else str(v)
    if name.endswith("_per_second"):
        return f"{v:,.0f}"
    if name == "seconds":
        return f"{v:.3f}"
    return format(v, other)


def print_json(data: Any) -> None:
    """Prints strict JSON (no NaN) on stdout."""
    out.print_json(json.dumps(_finite(data), allow_nan=False, default=str))


def ph(name: str, note: str = "") -> str:
    """Option help of a simulation parameter, from its one definition (``reclaim._core``)."""
    p = PARAMETERS[name]
    unit = f" [{p['unit']}]" if p["unit"] else ""
    extra = f" {note}" if note else ""
    return f"{p['help']}{unit}{extra} Values: {p['range']}. Default: {p['default']}."


def _version(value: bool) -> None:
    if value:
        from reclaim import _core

        typer.echo(f"reclaim {_core.__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="On an error, show the Python traceback.")] = False,
) -> None:
    """reclaim: space reclamation (garbage collection) in log-structured storage."""
    global DEBUG
    DEBUG = debug


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
    warmup: Annotated[str | None, typer.Option(help=ph("warmup"))] = None,
    writes: Annotated[str | None, typer.Option(help=ph("writes"))] = None,
    seed: Annotated[int | None, typer.Option(help=ph("seed"))] = None,
    window: Annotated[int | None, typer.Option(help=ph("window"))] = None,
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
    config = SimConfig(
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
        warmup=warmup,
        writes=writes,
        seed=seed,
        window=window,
    ).validated()
    with progress_bar(enabled=not quiet and sys.stderr.isatty()) as p:
        r = run_with_bar(p, config.policy or "simulate", config)
    if as_json:
        print_json(r.to_dict(arrays=arrays))
        return
    room = f"spare {r.simulated_spare:.4f}" if config.sizes is None else f"sizes {config.sizes}, spare {r.simulated_spare:.4f} of slots (U, G in slots)"
    t = Table(title=f"{config.policy}, {config.workload}, {r.simulated_segments:,} segments of {r.simulated_pages_per_segment} pages, "
                    f"{r.simulated_logical_pages:,} logical pages, {room}")
    t.add_column("metric")
    t.add_column("value", justify="right")
    keys = ["user_writes", "gc_writes", "erases", "wa", "wamp", "emptiness_at_clean", "gcu", "collected", "emptied", "wear_leveling_index"]
    if config.cache is not None:
        keys.append("cache_hit_ratio")
    for k in [*keys, "seconds", "page_writes_per_second"]:
        t.add_row(k, number(k, getattr(r, k)))
    out.print(t)


@app.command("schemes")
def schemes_cmd(
    family: Annotated[str | None, typer.Argument(help="policies, placements, triggers, workloads or sizes; all when omitted.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the declarations as JSON.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the README's table of schemes.")] = False,
) -> None:
    """Every policy, placement, trigger, workload and size distribution: its spec, paper and section,
    parameters and defaults, as its own file in the engine declares it."""
    from reclaim.schemes import FAMILIES, markdown_table, schemes

    if family is not None and family not in FAMILIES:
        fail(f"invalid value for `FAMILY`: `{family}` (expected one of {', '.join(FAMILIES)})")
    if markdown:
        typer.echo(markdown_table())
        return
    chosen = schemes(family)
    if as_json:
        print_json(chosen)
        return
    for name in FAMILIES if family is None else [family]:
        option = "--" + FAMILIES[name][1]
        t = Table(title=f"{name} ({option})", title_justify="left", show_lines=True)
        t.add_column("spec", overflow="fold", max_width=40)
        t.add_column("what it does")
        t.add_column("source", max_width=28)
        for s in schemes(name):
            params = "".join(
                f"\n  [bold]{escape(p['key'] or p['values'])}[/bold]: "
                + escape(p["help"] + (f" [{p['unit']}]" if p["unit"] else ""))
                + (f" Default {escape(p['default'])}." if p["default"] is not None else " Required.")
                for p in s["params"]
            )
            aliases = f" (also {', '.join(s['aliases'])})" if s["aliases"] else ""
            t.add_row(escape(s["usage"] + aliases), escape(s["summary"]) + params, escape(s["source"]))
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
    writes: Annotated[str, typer.Option(help="Measured user writes per run.")] = "10x",
    memory: Annotated[bool, typer.Option(help="Also measure peak memory of a 1 TB geometry.")] = True,
    models: Annotated[bool, typer.Option(help="Also time the mean-field model (double frontier, b = 32 and 64).")] = True,
    trace: Annotated[bool, typer.Option(help="Also time trace conversion and replay.")] = True,
    placements: Annotated[bool, typer.Option(help="Also time greedy under each placement scheme and option.")] = True,
    compare: Annotated[str | None, typer.Option(help="Only compare the engine's speed with this revision's (a commit, tag or branch), interleaved; needs a git checkout.")] = None,
    policies: Annotated[str | None, typer.Option(help="With --compare or --sizes: the policies to time, comma-separated "
                                                 "(default greedy,fifo; with --sizes greedy,fifo,d-choices:d=10,cost-benefit); with --compare, "
                                                 "row:PREFIX also times the placement row whose name starts with PREFIX "
                                                 "(row:fitness-tree, row:mdc).")] = None,
    sizes: Annotated[bool, typer.Option("--sizes", help="Only time the engine against device size, 10,000 to 4,194,304 segments "
                                        "of 64 pages (2.4 GiB to 1 TiB), with peak memory; with --compare, beside that revision. "
                                        "About 30 minutes at 5 runs.")] = False,
    segments: Annotated[str | None, typer.Option(help="With --sizes: the segment counts, comma-separated.")] = None,
) -> None:
    """Engine speed (median page writes per second), peak memory of a 1 TB geometry, model solve times."""
    from reclaim.bench import SCALING_POLICIES, compare_revisions, measure_scaling, run_bench

    chosen = None if policies is None else [p.strip() for p in policies.split(",") if p.strip()]
    if segments is not None and not sizes:
        fail("`--segments` is for `--sizes` only")
    if sizes:
        try:
            report = measure_scaling(runs=runs, segments=segments, policies=chosen or list(SCALING_POLICIES),
                                     compare=compare, show=not as_json)
        except ValueError as e:
            fail(str(e))
    elif compare is not None:
        report = compare_revisions(compare, runs=runs, writes=writes, show=not as_json,
                                   policies=chosen or ["greedy", "fifo"])
    else:
        report = run_bench(runs=runs, writes=writes, memory=memory, show=not as_json, models=models, trace=trace,
                           placements=placements)
    if as_json:
        print_json(report)


@app.command()
def reproduce(
    name: Annotated[str, typer.Argument(help="vanhoudt-table1 | vanhoudt-table2 | lomet-table1 | lomet | li-greedy | dyal-draughn | stockmeyer | all")],
    quick: Annotated[bool, typer.Option(help="Reduced length, as in CI.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
    figures: Annotated[Path | None, typer.Option(file_okay=False, help="dyal-draughn, lomet, stockmeyer: write their figures (PNG) into this folder.")] = None,
    trace: Annotated[Path | None, typer.Option(dir_okay=False, help="stockmeyer: run on this converted trace (renamed tracks, e.g. "
                                               "`reclaim trace convert … --page-size 32768 --rename`) instead of the snake stand-in.")] = None,
    db: Annotated[Path, typer.Option("--db", dir_okay=False, help="The results database its simulations are kept in; a rerun reads them back.")] = DEFAULT_DB,
    workers: Annotated[int | None, typer.Option(min=1, max=1024, help="Parallel simulations (default: one per core).")] = None,
) -> None:
    """Rebuild a seed's table beside the published numbers (`all`: every one)."""
    from reclaim.reproduce import REPRODUCTIONS

    if name != "all" and name not in REPRODUCTIONS:
        fail(f"unknown reproduction `{name}` (expected one of {', '.join(REPRODUCTIONS)}, or all)")
    if figures is not None and name not in ("dyal-draughn", "lomet", "stockmeyer", "all"):
        fail(f"`--figures` is for `dyal-draughn`, `lomet` and `stockmeyer` only; `{name}` draws none")
    if trace is not None and name != "stockmeyer":
        fail(f"`--trace` is for `stockmeyer` only; `{name}` runs on its paper's workloads")
    names = list(REPRODUCTIONS) if name == "all" else [name]
    results: dict[str, Any] = {}
    for n in names:
        repro = REPRODUCTIONS[n]
        with progress_bar(enabled=sys.stderr.isatty()) as p:
            try:
                rows = repro.run(quick=quick, progress=p, db=db, workers=workers, trace=trace)
            except ValueError as e:
                fail(str(e))
        results[n] = rows
        if not as_json:
            out.print(repro.table(rows))
    if figures is not None:
        from reclaim.reproduce import dyal_draughn, lomet_mdc, stockmeyer

        drawn = dyal_draughn.figures(figures) if "dyal-draughn" in results else []
        if "lomet" in results:
            drawn += lomet_mdc.figures(results["lomet"], figures)
        if "stockmeyer" in results:
            drawn += stockmeyer.figures(results["stockmeyer"], figures)
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
    from reclaim.validate import plot, run_validation, table

    with progress_bar(enabled=sys.stderr.isatty()) as p:
        rows = run_validation(quick=quick, progress=p, workers=workers, db=db)
    written = plot(rows, plot_path)
    if as_json:
        print_json(rows)
    else:
        out.print(table(rows))
    failed = [r for r in rows if abs(r["rel"]) > r["tolerance"]]
    console.print(f"figure: {written}; {len(rows) - len(failed)} of {len(rows)} comparisons within their tolerance", soft_wrap=True)
    if failed:
        # A comparison out of its tolerance is a failed validation, for scripts and CI alike.
        raise typer.Exit(1)


sweep_app = typer.Typer(help="Parameter sweeps from experiment files (TOML) into a results database.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(sweep_app, name="sweep")
results_app = typer.Typer(help="Query and export a results database.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(results_app, name="results")

_EXPERIMENTS = typer.Argument(exists=True, dir_okay=False, readable=True, help="Experiment files (TOML); see docs/experiments.md.")
_DB = typer.Option("--db", dir_okay=False, help="The results database (DuckDB; created if missing).")


def _load_experiments(files: list[Path]) -> list[Any]:
    from reclaim.experiments import load

    exps = [load(f) for f in files]
    names = [e.name for e in exps]
    if len(set(names)) != len(names):
        fail(f"two experiment files share the name `{sorted(n for n in names if names.count(n) > 1)[0]}` (set `name` in each)")
    return exps


@sweep_app.command("plan")
def sweep_plan(
    files: Annotated[list[Path], _EXPERIMENTS],
    db: Annotated[Path, _DB] = DEFAULT_DB,
    workers: Annotated[int | None, typer.Option(min=1, max=1024, help="Workers the estimate assumes (default: one per core).")] = None,
    calibrate: Annotated[bool, typer.Option(help="Run a short calibration for the time estimate.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
) -> None:
    """Task count, what the database already holds, and an estimated time."""
    from reclaim.experiments import plan

    pl = plan(_load_experiments(files), db, workers=workers, calibrate=calibrate)
    data = {"tasks": pl.tasks, "done": pl.done, "pending": pl.tasks - pl.done, "experiments": dict(pl.experiments),
            "estimated_seconds": pl.seconds_estimate, "calibration": pl.calibration, "db": str(db)}
    if as_json:
        print_json(data)
        return
    for name, n in pl.experiments:
        out.print(f"{name}: {n:,} tasks")
    out.print(f"{pl.tasks:,} tasks in all, {pl.done:,} already in {db}, {pl.tasks - pl.done:,} to run")
    if pl.seconds_estimate is not None and pl.tasks > pl.done:
        out.print(f"estimated time: {_duration(pl.seconds_estimate)} ({pl.calibration})")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


@sweep_app.command("run")
def sweep_run(
    files: Annotated[list[Path], _EXPERIMENTS],
    db: Annotated[Path, _DB] = DEFAULT_DB,
    workers: Annotated[int | None, typer.Option(min=1, max=1024, help="Local worker processes (default: one per core).")] = None,
    scheduler: Annotated[str | None, typer.Option(help="Run on a Dask cluster: its scheduler, e.g. tcp://host:8786.")] = None,
    dask_local: Annotated[int | None, typer.Option(min=1, max=1024, help="Run on a Dask LocalCluster of this many workers.")] = None,
    chunk: Annotated[int | None, typer.Option(min=1, max=1_000_000, help="Tasks per unit of work (default: 1 locally, about 0.2 s of work on Dask).")] = None,
    log_interval: Annotated[float, typer.Option(min=0, max=86400, help="Without a terminal: a log line on what is written at most this often [s]; 0: every write.")] = 30.0,
) -> None:
    """Run every task not yet in the database; a rerun does only what is missing."""
    from reclaim.experiments import run

    if scheduler is not None and dask_local is not None:
        fail("give `--scheduler` or `--dask-local`, not both")
    if workers is not None and (scheduler is not None or dask_local is not None):
        fail("`--workers` is for local processes; on Dask the cluster has its workers (`--dask-local N`)")
    exps = _load_experiments(files)
    with progress_bar(enabled=sys.stderr.isatty()) as p:
        bar = p.add_task("sweep", total=None)

        def progress(done: int, failed: int, total: int) -> None:
            p.update(bar, completed=done, total=total, description=f"sweep ({failed} failed)" if failed else "sweep")

        def failure(task: Any, error: str) -> None:
            console.print(f"task failed ({task.describe()}): {error}", soft_wrap=True, markup=False, highlight=False)

        logged = [-math.inf]

        def written(n: int, failed: int, total: int) -> None:
            # The bar is off without a terminal; a log gets a line now and then instead.
            if not sys.stderr.isatty() and (time.monotonic() - logged[0] >= log_interval or n + failed == total):
                logged[0] = time.monotonic()
                console.print(f"sweep: {n:,} of {total:,} tasks written, {failed:,} failed", soft_wrap=True, markup=False, highlight=False)

        report = run(exps, db, workers=workers, scheduler=scheduler, dask_local=dask_local, chunk=chunk,
                     on_progress=progress, on_failure=failure, on_write=written)
    console.print(f"{report.tasks:,} tasks: {report.already_done:,} already in {db}, {report.ran:,} ran, "
                  f"{len(report.failed):,} failed ({_duration(report.seconds)})", soft_wrap=True, markup=False, highlight=False)
    if report.failed:
        raise typer.Exit(1)


@results_app.command("query")
def results_query(
    db: Annotated[Path, typer.Argument(dir_okay=False, help="The results database.")],
    sql: Annotated[str, typer.Argument(help="SQL (DuckDB); tables: tasks, series, sweep_tasks, failures, schema_version.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON objects.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print the rows as CSV.")] = False,
) -> None:
    """Run a query on a results database (read-only)."""
    from reclaim.experiments import query

    if as_json and as_csv:
        fail("give `--json` or `--csv`, not both")
    cols, rows = query(db, sql)
    if as_json:
        print_json([dict(zip(cols, r)) for r in rows])
    elif as_csv:
        import csv

        w = csv.writer(sys.stdout)
        w.writerow(cols)
        w.writerows(rows)
    else:
        t = Table(*cols)
        for r in rows:
            t.add_row(*("" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v) for v in r))
        out.print(t)


@results_app.command("export")
def results_export(
    db: Annotated[Path, typer.Argument(dir_okay=False, help="The results database.")],
    parquet: Annotated[Path | None, typer.Option("--parquet", dir_okay=False, help="Write the table as Parquet here.")] = None,
    csv_path: Annotated[Path | None, typer.Option("--csv", dir_okay=False, help="Write the table as CSV here.")] = None,
    table: Annotated[str, typer.Option(help="tasks | series | sweep_tasks | failures")] = "tasks",
) -> None:
    """Export a table of a results database to Parquet or CSV."""
    from reclaim.experiments import export

    if (parquet is None) == (csv_path is None):
        fail("give one of `--parquet PATH` or `--csv PATH`")
    target, fmt = (parquet, "parquet") if parquet is not None else (csv_path, "csv")
    assert target is not None
    n = export(db, target, fmt, table)
    console.print(f"{n:,} rows of `{table}` written to {target}", soft_wrap=True, markup=False, highlight=False)


@results_app.command("migrate")
def results_migrate(
    db: Annotated[Path, typer.Argument(dir_okay=False, help="The results database.")],
) -> None:
    """Bring a results database written by an older reclaim to this one's layout (every row is kept)."""
    from reclaim.experiments import migrate

    console.print(migrate(db), soft_wrap=True, markup=False, highlight=False)


@app.command("report")
def report_cmd(
    db: Annotated[Path, typer.Argument(dir_okay=False, help="The results database.")],
    output: Annotated[Path, typer.Option("-o", "--output", dir_okay=False, help="The HTML file to write.")] = Path("report.html"),
    figures: Annotated[Path | None, typer.Option(file_okay=False, help="Also write the WA figures (PNG, SVG, PDF) into this folder.")] = None,
    sweep: Annotated[str | None, typer.Option(help="Only this sweep (default: every sweep in the database).")] = None,
) -> None:
    """A results database as one self-contained HTML page (no network fetch), and paper figures."""
    from reclaim.report import build

    s = build(db, output, figures=figures, sweep=sweep)
    console.print(f"{output}: {s.tasks:,} tasks in {s.sweeps} sweep(s), {s.figures} figures", soft_wrap=True, markup=False, highlight=False)
    for f in s.figure_files:
        console.print(f"figure: {f}", soft_wrap=True, markup=False, highlight=False)


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
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="The text trace (plain or gzip).")],
    format: Annotated[str, typer.Option("--format", "-f", help="The text format: msr | spc | fiu | biotracer | mqsim | blkparse | alibaba | pages (docs/traces.md).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The binary trace to write.")],
    page_size: Annotated[int, typer.Option(min=1, help="Page size [bytes] (Stockmeyer's tracks: 32768).")] = 4096,
    rename: Annotated[bool, typer.Option(help="Rename page ids densely in first-write order (Stockmeyer §2.1).")] = False,
    skip_bad_lines: Annotated[bool, typer.Option(help="Skip malformed lines and report them per reason.")] = False,
    device: Annotated[str | None, typer.Option(help="Keep only this device or volume.")] = None,
    blkparse_action: Annotated[str, typer.Option(help="blkparse: the one stage counted (Q, D, C, …).")] = "Q",
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Convert a text trace once into a compact binary trace that replays at memory speed."""
    from reclaim import traces

    with progress_bar(enabled=sys.stderr.isatty()) as p:
        task = p.add_task(f"converting {path.name}", total=None)
        meta = traces.convert(path, format, output, page_size=page_size, rename=rename, skip_bad_lines=skip_bad_lines,
                              device=device, blkparse_action=blkparse_action, progress=lambda n: p.update(task, completed=n))
    rep = meta["report"]
    if rep["leading_garbage_lines"] or rep["trailing_padding_bytes"]:
        console.print(f"note: {rep['leading_garbage_bytes']:,} bytes on {rep['leading_garbage_lines']} lines before the first record "
                      f"and {rep['trailing_padding_bytes']:,} NUL bytes after the last were not records", soft_wrap=True)
    for reason, n in rep["skipped"].items():
        console.print(f"skipped {n:,} lines: {reason}", soft_wrap=True)
    _emit(as_json, {k: v for k, v in meta.items() if k != "report"} | {"report": rep} if as_json else
          {k: v for k, v in meta.items() if k != "report"}, f"{path.name} → {output}")


@trace_app.command("stand-in")
def trace_stand_in(
    output: Annotated[Path, typer.Option("--output", "-o", help="The binary trace to write.")],
    seed: Annotated[int, typer.Option(min=0, help="Seed of the generator.")] = 1,
    tracks: Annotated[int, typer.Option(min=1, help="Distinct tracks written (the snake: 36,607).")] = 36_607,
    writes: Annotated[int, typer.Option(min=1, help="Track writes (the snake: 6.76M).")] = 6_760_000,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Write the stand-in for Stockmeyer's "snake" trace: LRU hit ratios 0.223 (1 track) and 0.950
    (320 tracks), as his §2.3 reports (docs/validation.md)."""
    from reclaim import traces

    meta = traces.stand_in(output, seed=seed, tracks=tracks, writes=writes)
    _emit(as_json, {k: v for k, v in meta.items() if k != "report"}, f"stand-in → {output}")


@trace_app.command("sizes")
def trace_sizes(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="A text trace.")],
    format: Annotated[str, typer.Option("--format", "-f", help="Its format: msr | spc | fiu | biotracer | mqsim | blkparse | alibaba.")],
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
    format: Annotated[str | None, typer.Option("--format", "-f", help="Format of a text trace: msr | spc | fiu | biotracer | mqsim | blkparse | alibaba | pages.")] = None,
    page_size: Annotated[int, typer.Option(min=1, help="Page size [bytes], for a text trace.")] = 4096,
    thresholds: Annotated[str, typer.Option(help="Access-count thresholds of the (f_a, n, r, f) fit, decreasing.")] = "20,5",
    plot_path: Annotated[Path | None, typer.Option("--plot", help="Write the access-frequency curve (Li et al. Fig. 1) here.")] = None,
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
        traces.plot_access_frequency(np.asarray(st["access_frequency"]), plot_path, path.name)
    if as_json:
        print_json(st)
        return
    shown = {k: v for k, v in st.items() if k not in ("access_frequency", "report", "fit")}
    if "fit" in st:
        fit = st["fit"]
        shown["fit"] = f"f_a={fit['fa']:.4f}, n={fit['n']}, r=({', '.join(f'{x:.3f}' for x in fit['r'])}), f=({', '.join(f'{x:.3f}' for x in fit['f'])})"
    _emit(False, shown, f"trace statistics: {path.name}")


@trace_app.command("evaluate")
def trace_evaluate(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="A converted trace (ids kept), or a text trace with --format.")],
    format: Annotated[str | None, typer.Option("--format", "-f", help="Format of a text trace: msr | spc | fiu | biotracer | mqsim | blkparse | alibaba | pages.")] = None,
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
                    f"f_a = {info['f_a']:.4f}, S = {spare:g}, k = {pages_per_segment}")
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


layout_app = typer.Typer(help="Disk placement for seek time and the queueing model (Dyal & Draughn).", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(layout_app, name="layout")


@layout_app.command("seek")
def layout_seek(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Expected seek time of Table 1's files as copied and after organ-pipe reorganisation, per seek curve."""
    from reclaim.layout import disk, placement

    es = placement.table1()
    rows = {}
    for name, curve in disk.shapes().items():
        rows[name] = {"as_copied_ms": placement.seek_time(placement.as_copied(es), curve),
                      "organ_pipe_ms": placement.seek_time(placement.organ_pipe(es), curve)}
    if as_json:
        print_json(rows)
        return
    t = Table(title="Dyal & Draughn §2: expected seek time (paper: 29 ms as copied, 14 ms reorganised)")
    for col in ("seek curve (35 ms uniform)", "as copied [ms]", "organ pipe [ms]"):
        t.add_column(col, justify="right")
    for name, r in rows.items():
        t.add_row(name, f"{r['as_copied_ms']:.2f}", f"{r['organ_pipe_ms']:.2f}")
    out.print(t)


@layout_app.command("mva")
def layout_mva(
    workstations: Annotated[int, typer.Option(min=1, max=100_000, help="Largest number of workstations.")] = 60,
    cpu: Annotated[float, typer.Option(help="CPU demand per transaction [s].")] = 0.157,
    disk_demand: Annotated[str, typer.Option("--disk", help="Disk demands per transaction [s], comma-separated.")] = "0.394",
    think: Annotated[float, typer.Option(help="Think + type + transmit + display [s].")] = 10.167,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Exact MVA of the closed network of Fig. 3: throughput and response time against workstations."""
    from reclaim.layout import queueing

    try:
        disks = [float(x) for x in disk_demand.split(",")]
    except ValueError:
        fail(f"invalid value for `--disk`: `{disk_demand}` (expected disk demands in seconds, comma-separated, such as 0.394,0.2)")
    for name, v in (("--cpu", cpu), ("--think", think), *(("--disk", d) for d in disks)):
        if not (math.isfinite(v) and v >= 0):
            fail(f"invalid value for `{name}`: {v} (expected a time in seconds, finite and ≥ 0)")
    s = queueing.mva([cpu, *disks], think, workstations)
    rows = [{"workstations": int(n), "trans_per_min": float(x), "response_ms": 1000 * float(r)}
            for n, x, r in zip(s.workstations, s.throughput_per_minute, s.response_seconds)]
    if as_json:
        print_json(rows)
        return
    t = Table(title="Closed queueing network, exact MVA")
    for col in ("workstations", "trans/min", "response [ms]"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(str(r["workstations"]), f"{r['trans_per_min']:.1f}", f"{r['response_ms']:.0f}")
    out.print(t)


model_app = typer.Typer(help="Analytical models of the seeds (Lomet & Luo, Van Houdt, Li et al.).", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(model_app, name="model")


def _shares(text: str, name: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.replace("/", ",").split(","))
    except ValueError:
        fail(f"invalid value for `--{name}`: `{text}` (expected shares separated by `,`, such as 0.8,0.2)")


def _emit(as_json: bool, data: dict[str, Any], title: str) -> None:
    if as_json:
        print_json(data)
        return
    t = Table(title=title)
    t.add_column("quantity")
    t.add_column("value", justify="right")
    for k, v in data.items():
        if isinstance(v, float):
            # Model outputs to six significant digits (a residual of 1e-11 stays readable).
            t.add_row(k, number(k, v, other=".6g"))
        elif isinstance(v, list) and len(v) > 8:
            t.add_row(k, f"[{len(v)} values]")
        else:
            t.add_row(k, str(v))
    out.print(t)


def _fill_of(fill: float | None, spare: float | None) -> float:
    if fill is not None and spare is not None:
        fail("give only one of `--fill` and `--spare`")
    if fill is None and spare is None:
        fail("give `--fill` or `--spare`")
    name, v = ("--fill", fill) if fill is not None else ("--spare", spare)
    assert v is not None
    if not 0.0 < v < 1.0:
        fail(f"invalid value for `{name}`: {v} (expected a number in (0, 1))")
    return v if fill is not None else 1.0 - v


@model_app.command("age-based")
def model_age_based(
    fill: Annotated[float | None, typer.Option(help="Fill factor F.")] = None,
    spare: Annotated[float | None, typer.Option(help="Spare factor 1 − F, instead of --fill.")] = None,
    pages: Annotated[int | None, typer.Option(help="User-visible pages P for eq. 3 (default: the limit, eq. 4).")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Lomet & Luo eq. 3–4: emptiness, cost and Wamp of age-based cleaning under uniform updates."""
    from reclaim.models import lomet

    a = lomet.age_based(_fill_of(fill, spare), pages)
    _emit(as_json, {"fill": a.fill, "emptiness": a.emptiness, "cost": a.cost, "r": a.r, "wamp": a.wamp},
          "Lomet & Luo eq. 4: age-based cleaning")


@model_app.command("hot-cold-slack")
def model_hot_cold_slack(
    fill: Annotated[float | None, typer.Option(help="Overall fill factor F.")] = None,
    spare: Annotated[float | None, typer.Option(help="Spare factor, instead of --fill.")] = None,
    skew: Annotated[str, typer.Option(help="m:n — m% of updates to n% of the data.")] = "80:20",
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Lomet & Luo §3: hot and cold data managed apart, slack divided to minimise cost (Table 2)."""
    from reclaim.models import lomet

    h = lomet.hot_cold_slack(_fill_of(fill, spare), skew)
    _emit(as_json, {"min_cost": h.min_cost, "hot_share": h.hot_share, "cost_hot60": h.cost_hot60,
                    "cost_hot40": h.cost_hot40, "ratio_rule_hot_share": h.ratio_rule},
          f"Lomet & Luo Table 2: slack division, skew {skew}")


@model_app.command("mean-field")
def model_mean_field(
    pages_per_segment: Annotated[int, typer.Option(help="Pages per block b.")] = 32,
    spare: Annotated[float | None, typer.Option(help="Spare factor S_f.")] = None,
    fill: Annotated[float | None, typer.Option(help="Fill factor ρ, instead of --spare.")] = None,
    d: Annotated[float, typer.Option("--d", help="Choices per selection.")] = 10,
    r: Annotated[float, typer.Option("--r", help="Share of writes to hot pages.")] = 0.8,
    f: Annotated[float, typer.Option("--f", help="Share of pages that are hot.")] = 0.2,
    frontier: Annotated[str, typer.Option(help="single | double")] = "single",
    optimal_d: Annotated[bool, typer.Option("--optimal-d", help="Search d = 1 … --d-max for the lowest WA.")] = False,
    d_max: Annotated[int, typer.Option(min=1, help="Largest d searched with --optimal-d.")] = 64,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Van Houdt's mean-field model of d-choices (eq. 1–8 single, 9–15 double write frontier)."""
    from reclaim.models import vanhoudt

    s = 1.0 - _fill_of(fill, spare) if (fill is not None or spare is not None) else 0.1
    if optimal_d:
        m = vanhoudt.optimal_d(pages_per_segment, s, r, f, frontier=frontier, d_max=d_max)
    else:
        m = vanhoudt.solve(pages_per_segment, s, d, r, f, frontier=frontier)
    _emit(as_json, {"wa": m.wa, "d": m.d, "frontier": m.frontier, "valid_distribution": m.valid_distribution.tolist(),
                    "residual": m.residual, "iterations": m.iterations, "seconds": m.seconds},
          f"Van Houdt mean field, {frontier} frontier, b = {pages_per_segment}, S_f = {s:.6g}")


def _li_workload(fa: float, r: str, f: str):
    from reclaim.models import li

    return li.Workload(fa, _shares(r, "r"), _shares(f, "f"))


@model_app.command("gra")
def model_gra(
    pages_per_segment: Annotated[int, typer.Option(help="Pages per block k.")] = 64,
    spare: Annotated[float, typer.Option(help="Spare factor S.")] = 0.1,
    fa: Annotated[float, typer.Option("--fa", help="Active share of the logical space f_a.")] = 1.0,
    r: Annotated[str, typer.Option("--r", help="Write shares r_i, e.g. 0.8,0.2.")] = "1",
    f: Annotated[str, typer.Option("--f", help="Page shares f_i, e.g. 0.2,0.8.")] = "1",
    d: Annotated[float, typer.Option("--d", help="Window size d (a count); 0 < d < 1 is α of Theorem 4.")] = 1,
    segments: Annotated[int | None, typer.Option(min=1, help="Blocks N: use Theorem 1's finite form (and Theorem 3 for d ≥ N_a).")] = None,
    writes: Annotated[float, typer.Option(help="Writes L, finite and ≥ 0.")] = 5e6,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Li et al. Theorems 1–4: cleaning cost of GRA(d) (d = 1 GREEDY, d = N RANDOM)."""
    from reclaim.models import li

    w = _li_workload(fa, r, f)
    c = li.cost_per_gc(pages_per_segment, spare, w, d=d, blocks=segments)
    _emit(as_json, {"cleaning_cost": li.cleaning_cost(writes, c, pages_per_segment), "mean_valid_per_gc": c,
                    "wamp": c / (pages_per_segment - c)},
          f"Li et al. GRA(d = {d:g}), k = {pages_per_segment}, S = {spare:g}, f_a = {fa:g}")


@model_app.command("grouping")
def model_grouping(
    pages_per_segment: Annotated[int, typer.Option(help="Pages per block k.")] = 64,
    spare: Annotated[float, typer.Option(help="Spare factor S.")] = 0.1,
    fa: Annotated[float, typer.Option("--fa", help="Active share f_a (§5.1: 0.1).")] = 0.1,
    r: Annotated[str, typer.Option("--r", help="Write shares r_i.")] = "0.8,0.2",
    f: Annotated[str, typer.Option("--f", help="Page shares f_i.")] = "0.2,0.8",
    writes: Annotated[float, typer.Option(help="Writes L.")] = 5e6,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Li et al. Theorem 5: data grouping with the cost-minimising spare allocation b_c*."""
    from reclaim.models import li

    w = _li_workload(fa, r, f)
    if not (math.isfinite(writes) and writes >= 0):
        fail(f"invalid value for `--writes`: {writes} (expected a finite number of writes ≥ 0)")
    bc, cost = li.optimal_allocation(writes, pages_per_segment, spare, w)
    data: dict[str, Any] = {"allocation": bc.tolist(), "cleaning_cost": cost}
    greedy = li.cleaning_cost(writes, li.cost_per_gc(pages_per_segment, spare, w), pages_per_segment)
    data["oblivious_greedy_cost"] = greedy
    if w.n == 2:
        bw, _ = li.oblivious_equal_allocation(writes, pages_per_segment, spare, w)
        data["oblivious_equal_allocation"] = bw.tolist()
    _emit(as_json, data, f"Li et al. Theorem 5: data grouping, f_a = {fa}, r = {r}, f = {f}")


def main() -> None:
    """Entry point of the ``reclaim`` script."""
    parallel.stop_on_sigterm()
    app()


if __name__ == "__main__":
    main()
