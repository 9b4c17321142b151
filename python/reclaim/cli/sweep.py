"""``reclaim sweep``, ``results`` and ``report``: sweeps into a results database and what reads it."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from reclaim.cli.common import DEFAULT_DB, app, fail, out, print_json
from reclaim.progress import console, progress_bar

sweep_app = typer.Typer(help="Parameter sweeps from experiment files (TOML) into a results database.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(sweep_app, name="sweep")
results_app = typer.Typer(help="Query and export a results database.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(results_app, name="results")

_EXPERIMENTS = typer.Argument(exists=True, dir_okay=False, readable=True, help="Experiment files (TOML); see docs/experiments.md.")
_DB = typer.Option("--db", dir_okay=False, help="The results database (DuckDB; created if missing).")


def _load_experiments(files: list[Path]) -> list[Any]:
    from reclaim.experiments import load
    from reclaim.experiments.spec import MAX_TASKS

    exps = [load(f) for f in files]
    names = [e.name for e in exps]
    if len(set(names)) != len(names):
        fail(f"two experiment files share the name `{sorted(n for n in names if names.count(n) > 1)[0]}` (set `name` in each)")
    total = sum(e.size for e in exps)
    if total > MAX_TASKS:
        fail(f"{total:,} tasks in {len(exps)} experiment files (expected at most {MAX_TASKS:,} in one command; run them apart)")
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

    exps = _load_experiments(files)
    at_most = sum(e.size for e in exps)
    # The product of the axes is known at once; the exact count (duplicates collapse) and what
    # the database holds need each task made: a bar when that takes more than a moment.
    _making(at_most)
    with progress_bar(enabled=sys.stderr.isatty() and at_most >= 20_000) as p:
        bar = p.add_task(f"planning {at_most:,} tasks", total=at_most)
        pl = plan(exps, db, workers=workers, calibrate=calibrate, on_expand=lambda n, total: p.update(bar, completed=n, total=total))
    data = {"tasks": pl.tasks, "done": pl.done, "pending": pl.tasks - pl.done, "experiments": dict(pl.experiments),
            "estimated_seconds": pl.seconds_estimate, "calibration": pl.calibration, "db": str(db)}
    if as_json:
        print_json(data)
        return
    lines = [f"{name}: {n:,} tasks" for name, n in pl.experiments]
    lines.append(f"{pl.tasks:,} tasks in all, {pl.done:,} already in {db}, {pl.tasks - pl.done:,} to run")
    if pl.seconds_estimate is not None and pl.tasks > pl.done:
        lines.append(f"estimated time: {_duration(pl.seconds_estimate)} ({pl.calibration})")
    elif pl.calibration:
        lines.append(f"estimated time: {pl.calibration}")
    for line in lines:
        out.print(line, soft_wrap=True, markup=False, highlight=False)


def _making(at_most: int) -> None:
    """Without a terminal (no bar), a line before tasks that take long to make (40-100 µs each)."""
    if not sys.stderr.isatty() and at_most >= 100_000:
        console.print(f"making up to {at_most:,} tasks (about {_duration(at_most * 70e-6)})", soft_wrap=True, markup=False, highlight=False)


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
    into_foreign: Annotated[bool, typer.Option("--into-foreign", help="Add reclaim's tables to a DuckDB file that holds another program's tables (refused without it).")] = False,
) -> None:
    """Run every task not yet in the database; a rerun does only what is missing."""
    from reclaim.experiments import run
    from reclaim.experiments.sweep import check_scheduler

    if scheduler is not None:
        check_scheduler(scheduler)
    if scheduler is not None and dask_local is not None:
        fail("give `--scheduler` or `--dask-local`, not both")
    if workers is not None and (scheduler is not None or dask_local is not None):
        fail("`--workers` is for local processes; on Dask the cluster has its workers (`--dask-local N`)")
    exps = _load_experiments(files)
    _making(sum(e.size for e in exps))
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

        def expanded(n: int, at_most: int) -> None:
            p.update(bar, completed=n, total=at_most, description="making tasks")

        report = run(exps, db, workers=workers, scheduler=scheduler, dask_local=dask_local, chunk=chunk,
                     on_progress=progress, on_failure=failure, on_write=written, into_foreign=into_foreign, on_expand=expanded)
    console.print(f"{report.tasks:,} tasks: {report.already_done:,} already in {db}, {report.ran:,} ran, "
                  f"{len(report.failed):,} failed ({_duration(report.seconds)})", soft_wrap=True, markup=False, highlight=False)
    if report.failed:
        raise typer.Exit(1)


#: Rows a table on the terminal shows at most (`--csv` and `--json` stream any number).
TABLE_MOST = 10_000
#: Seconds spent counting the rows past `--limit` before saying "more than".
COUNT_SECONDS = 2.0


@results_app.command("query")
def results_query(
    db: Annotated[Path, typer.Argument(dir_okay=False, help="The results database.")],
    sql: Annotated[str, typer.Argument(help="SQL (DuckDB); tables: tasks, series, sweep_tasks, failures, schema_version.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON objects.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print the rows as CSV.")] = False,
    limit: Annotated[int, typer.Option(min=0, help=f"Rows printed (the rest counted on stderr); 0: every row (with --csv or --json; a table shows at most {TABLE_MOST:,}).")] = 50,
    allow_files: Annotated[bool, typer.Option("--allow-files", help="Let the query read and write files (read_csv, COPY … TO), attach databases and load extensions.")] = False,
) -> None:
    """Run a query on a results database (read-only: the database and nothing else, unless --allow-files)."""
    from reclaim.experiments import Query

    if as_json and as_csv:
        fail("give `--json` or `--csv`, not both")
    table = not (as_json or as_csv)
    if table and (limit == 0 or limit > TABLE_MOST):
        fail(f"invalid value for `limit`: {limit} (a table shows 1 to {TABLE_MOST:,} rows; --csv or --json print any number, 0 for all)")
    with Query(db, sql, allow_files=allow_files) as q:
        batches = q.batches()
        shown, past = _rows(batches, limit)
        if table:
            t = Table(*q.columns)
            for r in shown:
                t.add_row(*("" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v) for v in r))
            out.print(t)
        elif as_csv:
            import csv

            w = csv.writer(sys.stdout)
            w.writerow(q.columns)
            w.writerows(shown)
            if limit == 0:
                for batch in batches:
                    w.writerows(batch)
            sys.stdout.flush()
        else:
            _json_rows(q.columns, shown, batches if limit == 0 else iter(()))
        if past:
            rest, complete = q.count_rest(COUNT_SECONDS)
            rest += past
            said = f"{rest:,} more rows not shown" if complete else f"more than {rest:,} more rows not shown (counted for {COUNT_SECONDS:.0f} s)"
            console.print(f"{said}: `--limit N` shows more, `--limit 0` with --csv or --json all of them",
                          soft_wrap=True, markup=False, highlight=False)


def _rows(batches: Any, limit: int) -> tuple[list[tuple[Any, ...]], int]:
    """The first ``limit`` rows (the first batch for 0: the rest follow), and how many more were
    read past them."""
    shown: list[tuple[Any, ...]] = []
    for batch in batches:
        if limit == 0:
            return batch, 0
        shown.extend(batch)
        if len(shown) > limit:
            return shown[:limit], len(shown) - limit
    return shown, 0


def _json_rows(columns: list[str], first: list[tuple[Any, ...]], rest: Any) -> None:
    """A JSON array of objects, written a row at a time."""
    import json

    from reclaim.cli.common import _finite

    w = sys.stdout.write
    w("[")
    sep = "\n  "
    n = 0
    for batch in _chain(first, rest):
        for r in batch:
            w(("," if n else "") + sep + json.dumps(_finite(dict(zip(columns, r))), allow_nan=False, default=str))
            n += 1
    w("\n]\n" if n else "]\n")
    sys.stdout.flush()


def _chain(first: list[tuple[Any, ...]], rest: Any) -> Any:
    yield first
    yield from rest


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
    figures: Annotated[Path | None, typer.Option(file_okay=False, help="Also write the WA figures (PNG, SVG, PDF) into this folder, "
                                                 "and the paper figures of its reproductions.")] = None,
    sweep: Annotated[str | None, typer.Option(help="Only this sweep (default: every sweep in the database).")] = None,
) -> None:
    """A results database as one self-contained HTML page (no network fetch), and paper figures."""
    from reclaim.report import build

    s = build(db, output, figures=figures, sweep=sweep)
    papers = f", {s.paper_figures} paper figure(s) of reproductions" if s.paper_figures else ""
    console.print(f"{output}: {s.tasks:,} tasks in {s.sweeps} sweep(s), {s.figures} figures{papers}", soft_wrap=True, markup=False,
                  highlight=False)
    for f in s.figure_files:
        console.print(f"figure: {f}", soft_wrap=True, markup=False, highlight=False)
