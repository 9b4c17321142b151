"""Progress bars on stderr for long work, shared by the command line and the demo."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from reclaim.api import SimConfig, SimResult, simulate

#: Messages and progress go to stderr; results to stdout.
console = Console(stderr=True)


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Progress]:
    """A rich progress display on stderr (silent when disabled)."""
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
