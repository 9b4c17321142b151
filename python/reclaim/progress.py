"""Progress bars on stderr for long work, shared by the command line and the demo."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from reclaim.api import SimConfig, SimResult, simulate


def plain_console(*, stderr: bool = False, width: int | None = None) -> Console:
    """A console that prints every string as it is: no markup and no emoji codes, so a path such
    as ``tpcc[v2].trace``, a ``[/]`` or a ``:x:`` in a trace name, a database value or an error
    message is shown as given. What is styled says so with :class:`rich.text.Text`.

    >>> c = plain_console(width=40)
    >>> with c.capture() as cap:
    ...     c.print("tpcc[v2].trace [/] :x: [bold]")
    >>> cap.get()
    'tpcc[v2].trace [/] :x: [bold]\\n'
    """
    return Console(stderr=stderr, width=width, markup=False, emoji=False)


#: Messages and progress go to stderr; results to stdout.
console = plain_console(stderr=True)


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Progress]:
    """A rich progress display on stderr (silent when disabled)."""
    p = Progress(
        # A description names a trace or a scheme: text, not markup.
        TextColumn("{task.description}", style="bold", markup=False),
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


def run_with_bar(p: Progress, label: str, config: SimConfig | dict[str, Any],
                 on_warning: Callable[[str], None] | None = None) -> SimResult:
    """Runs one simulation with its own bar in ``p``; ``on_warning`` as :func:`reclaim.simulate`'s."""
    task = p.add_task(label, total=None)

    def cb(done: int, total: int) -> None:
        p.update(task, completed=done, total=total)

    return simulate(config, progress=cb, on_warning=on_warning)
