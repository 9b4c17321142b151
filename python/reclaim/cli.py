"""The ``reclaim`` command line: a thin layer over the Python API."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from reclaim.api import SimConfig, SimResult, simulate

app = typer.Typer(
    help="reclaim: space reclamation (garbage collection) in log-structured storage.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)
# Tables are not squeezed to 80 columns when the output goes to a file or a pipe.
out = Console(width=None if sys.stdout.isatty() else 200)


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Progress]:
    """A rich progress display on stderr (silent when disabled or not a terminal in CI)."""
    p = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not enabled,
        transient=False,
    )
    with p:
        yield p


def run_with_bar(p: Progress, label: str, config: SimConfig | dict[str, Any]) -> SimResult:
    """Runs one simulation with its own bar in ``p``."""
    task = p.add_task(label, total=None)

    def cb(done: int, total: int) -> None:
        p.update(task, completed=done, total=total)

    return simulate(config, progress=cb)


def fail(message: str) -> None:
    """Prints an error and exits with status 2."""
    console.print(f"[bold red]error:[/] {message}", soft_wrap=True)
    raise typer.Exit(2)


@app.command("simulate")
def simulate_cmd(
    segments: Annotated[Optional[int], typer.Option(help="Physical segments N.")] = None,
    pages_per_segment: Annotated[Optional[int], typer.Option(help="Pages per segment b.")] = None,
    spare: Annotated[Optional[float], typer.Option(help="Spare factor, 0 < S < 1 (default 0.1).")] = None,
    fill: Annotated[Optional[float], typer.Option(help="Fill factor ρ, instead of --spare.")] = None,
    logical_pages: Annotated[Optional[int], typer.Option(help="Logical pages, instead of --spare.")] = None,
    policy: Annotated[Optional[str], typer.Option(help="fifo | greedy[:tie=random|oldest] | random | d-choices:d=10 | gra:d=1 | windowed:w=500 | cost-benefit")] = None,
    frontier: Annotated[Optional[str], typer.Option(help="single | double:copy=random | double:copy=oldest")] = None,
    gc: Annotated[Optional[str], typer.Option(help="frontier | one-free | batch:low=32,victims=64")] = None,
    workload: Annotated[Optional[str], typer.Option(help="uniform | hotcold:r=0.8,f=0.2 | locality:fa=0.1,r=0.8/0.2,f=0.2/0.8 | zipf:theta=0.99")] = None,
    warmup: Annotated[Optional[str], typer.Option(help="fill+10x | fill | 10x | none")] = None,
    writes: Annotated[Optional[str], typer.Option(help="Measured user writes: 20x (of logical capacity) or a count.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Random seed.")] = None,
    window: Annotated[Optional[int], typer.Option(help="Time-series window [user writes].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    arrays: Annotated[bool, typer.Option(help="With --json, include histograms, erase counts and time series.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Simulate one configuration and print its metrics."""
    config = SimConfig(
        segments=segments,
        pages_per_segment=pages_per_segment,
        spare=spare,
        fill=fill,
        logical_pages=logical_pages,
        policy=policy,
        frontier=frontier,
        gc=gc,
        workload=workload,
        warmup=warmup,
        writes=writes,
        seed=seed,
        window=window,
    )
    try:
        config = config.validated()
        with progress_bar(enabled=not quiet and sys.stderr.isatty()) as p:
            r = run_with_bar(p, config.policy or "simulate", config)
    except (ValueError, RuntimeError) as e:
        fail(str(e))
        return
    if as_json:
        out.print_json(json.dumps(r.to_dict(arrays=arrays)))
        return
    t = Table(title=f"{config.policy}, {config.workload}, spare {1 - r.logical_pages / (config.segments * config.pages_per_segment):.4f}")
    t.add_column("metric")
    t.add_column("value", justify="right")
    for k in ["user_writes", "gc_writes", "erases", "wa", "wamp", "emptiness_at_clean", "gcu", "collected", "emptied", "wear_leveling_index", "seconds", "page_writes_per_second"]:
        v = getattr(r, k)
        t.add_row(k, f"{v:.4f}" if isinstance(v, float) else f"{v:,}")
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
    runs: Annotated[int, typer.Option(help="Runs per policy; the median is reported.")] = 5,
    writes: Annotated[str, typer.Option(help="Measured user writes per run.")] = "10x",
    memory: Annotated[bool, typer.Option(help="Also measure peak memory of a 1 TB geometry.")] = True,
) -> None:
    """Engine speed (median page writes per second) and peak memory of a 1 TB geometry."""
    from reclaim.bench import run_bench

    report = run_bench(runs=runs, writes=writes, memory=memory, show=not as_json)
    if as_json:
        out.print_json(json.dumps(report))


@app.command()
def reproduce(
    name: Annotated[str, typer.Argument(help="vanhoudt-table1 | vanhoudt-table2 | lomet-table1 | li-greedy")],
    quick: Annotated[bool, typer.Option(help="Reduced length, as in CI.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
) -> None:
    """Rebuild a seed's table beside the published numbers."""
    from reclaim.reproduce import REPRODUCTIONS

    if name not in REPRODUCTIONS:
        fail(f"unknown reproduction `{name}` (expected one of {', '.join(REPRODUCTIONS)})")
    repro = REPRODUCTIONS[name]
    with progress_bar(enabled=sys.stderr.isatty()) as p:
        rows = repro.run(quick=quick, progress=p)
    if as_json:
        out.print_json(json.dumps(rows))
        return
    out.print(repro.table(rows))


def main() -> None:
    """Entry point of the ``reclaim`` script."""
    app()


if __name__ == "__main__":
    main()
