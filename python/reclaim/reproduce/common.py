"""Shared pieces of the reproductions: published tables, row runner, printed table."""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from reclaim.api import SimConfig

Row = dict[str, Any]


def published(name: str) -> list[dict[str, str]]:
    """Rows of a published table shipped in ``reclaim/reproduce/data`` (comment lines skipped).

    >>> published("vanhoudt_table1.csv")[0]["wa_sim"]
    '4.5925'
    """
    text = resources.files("reclaim.reproduce").joinpath("data", name).read_text()
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    return list(csv.DictReader(lines))


@dataclass(frozen=True)
class Choice:
    """A reading of the paper a reproduction lets the user choose (``--set KEY=VALUE``): the
    values it accepts, the default (the paper's literal reading), and one line of help."""

    values: tuple[str, ...]
    default: str
    help: str


@dataclass
class Context:
    """What a reproduction's rows are computed with: the length, a progress display, and where
    its simulations go (a results database, so that a second run only reads them back)."""

    name: str
    quick: bool = False
    progress: Progress | None = None
    db: Path | None = None
    workers: int | None = None
    #: The trace to run on, for reproductions that take one (``stockmeyer``).
    trace: Path | None = None
    #: The reproduction's choices (``--set``), every one present (defaults filled in).
    options: dict[str, str] = field(default_factory=dict)
    #: Every configuration simulated so far, in order (what :func:`setting` describes).
    configs: list[SimConfig] = field(default_factory=list)
    #: Schemes run beside the paper's, for reproductions that take them (``sepbit``'s
    #: ``--scheme``: placements, built-in or written in Python).
    extra: tuple[str, ...] = ()
    #: Read every simulation from ``db`` and run none (:func:`reclaim.experiments.batch.stored`):
    #: a report rebuilding the rows of a database it was given.
    read_only: bool = False

    @property
    def sweep(self) -> str:
        """The sweep its simulations are recorded under: ``reproduce:NAME[:quick]``."""
        return f"reproduce:{self.name}" + (":quick" if self.quick else "")

    def simulate(self, configs: Sequence[SimConfig], series: bool = False) -> list[Any]:
        """The metrics of each configuration (attributes named as in ``SimResult``), in order:
        run in parallel as tasks of the sweep ``reproduce:NAME[:quick]``, or read from the
        database when they are there. ``series``: each also carries its time series.

        Raises:
            reclaim.experiments.batch.MissingResults: ``read_only`` and one is not in ``db``.
        """
        from reclaim.experiments.batch import results, stored

        self.configs.extend(configs)
        if self.read_only:
            if self.db is None:
                raise ValueError("invalid value for `db`: None (reading a reproduction's runs back needs its results database)")
            return stored(configs, sweep=self.sweep, db=self.db, series=series)

        bar = self.progress.add_task(self.name, total=len(configs)) if self.progress is not None else None

        def advance(done: int, total: int) -> None:
            if self.progress is not None and bar is not None:
                self.progress.update(bar, completed=done, total=total)

        return results(configs, sweep=self.sweep, db=self.db, workers=self.workers, on_progress=advance, series=series)


#: What a reproduction's setting names, in this order: the geometry, the cleaner, the placement,
#: the method and lengths, then the device's clock (``trace_classes``, ``sizes``, ``trim``, ``volume``,
#: ``window`` and the device's ``device``, ``arrivals`` and ``reads`` are named only where a run sets them).
SETTING_KEYS = ("segments", "pages_per_segment", "spare", "fill", "logical_pages", "policy", "gc", "frontier", "placement",
                "streams", "free_empty", "cache", "trace_classes", "sizes", "workload", "method", "trim", "volume", "warmup",
                "writes", "window", "precision", "seed", "device", "arrivals", "reads")


def setting(configs: Sequence[SimConfig]) -> str:
    """The parameters a reproduction's simulations ran with, as ``reclaim simulate``'s options,
    so that a run of ``simulate`` can be set up alike: those every run shares with their value,
    and ``simulate``'s default beside each that differs from it; then those that vary by row. A
    parameter no run sets is at ``simulate``'s default. Empty when nothing was simulated.

    >>> print(setting([SimConfig(pages_per_segment=128, policy="greedy", spare=s) for s in (0.1, 0.2)]))
    as `reclaim simulate` options: --pages-per-segment 128 (simulate: 64), --policy greedy:tie=random; by row: --spare (0.1 | 0.2); the others at simulate's defaults
    """
    from reclaim.api import PARAMETERS

    if not configs:
        return ""
    # Each value as the engine spells it out (`greedy` is `greedy:tie=random`), where a run sets it.
    spelled = [(c, _spelled(c)) for c in configs]
    shared, varying = [], []
    for key in SETTING_KEYS:
        values = {_value(getattr(v, key)) if getattr(c, key) is not None else None for c, v in spelled}
        if values == {None}:
            continue
        option = "--" + key.replace("_", "-")
        if len(values) > 1:
            # A few values are shown (the triggers of a table, say); many only named.
            shown = sorted("(simulate's default)" if v is None else v for v in values)
            few = len(shown) <= 4 and sum(map(len, shown)) <= 160
            varying.append(f"{option} ({' | '.join(shown)})" if few else option)
            continue
        (value,) = values
        # The default as the parameter table gives it, e.g. `20x; with a trace, 1p`: the part before
        # the `;` is the default without a trace.
        default = str(PARAMETERS[key]["default"])
        same = value in (default, default.split(";")[0].strip())
        shared.append(f"{option} {value}" + ("" if same else f" (simulate: {default})"))
    text = "as `reclaim simulate` options: " + (", ".join(shared) or "its defaults")
    if varying:
        text += f"; by row: {', '.join(varying)}"
    text += "; the others at simulate's defaults"
    if any(c.precision is not None for c in configs):
        text += (". Stopping rule: a run with --precision METRIC:rel=X (abs=X) ends its measured phase at the first batch end "
                 "where METRIC's 95% interval by batch means (20 to 39 batches of whole windows, lag-1 autocorrelation "
                 "below 1.96/√batches) has a half-width of at most X of its value (X in its unit); --writes is the cap; "
                 "± columns are that half-width")
    return text


def _spelled(config: SimConfig) -> SimConfig:
    try:
        return config.validated()
    except ValueError:
        return config  # a run that failed said why; its values are shown as given


def _value(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


@dataclass(frozen=True)
class Reproduction:
    """A table of a seed: how to compute each row, and how to print them."""

    title: str
    source: str
    compute: Callable[[Context], list[Row]]
    columns: Sequence[tuple[str, str, str]]  # (key, heading, format)
    #: Several tables instead of one, for reproductions with more than one table.
    render: Callable[[list[Row]], list[Table]] | None = None
    #: Its name on the command line (and in the results database).
    name: str = "reproduction"
    #: The readings it lets the user choose (``--set KEY=VALUE``), by key.
    choices: Mapping[str, Choice] = field(default_factory=dict)
    #: Writes its figures (and their data) for the rows into a folder, returning the paths.
    figures: Callable[[list[Row], Path], list[Path]] | None = None

    def run(self, quick: bool = False, progress: Progress | None = None, db: str | Path | None = None, workers: int | None = None,
            trace: str | Path | None = None, options: Mapping[str, str] | None = None, extra: Sequence[str] = ()) -> list[Row]:
        """Computes every row; ``quick`` is the reduced length CI runs. With ``db``, the
        simulations are tasks in that results database: only the missing ones run. ``trace``:
        the trace of a reproduction that takes one; ``options``: values of its ``choices``;
        ``extra``: schemes to run beside the paper's, where it takes them.

        Raises:
            ValueError: an option it does not have, or a value outside its choice.
        """
        return self.run_with_setting(quick, progress, db, workers, trace, options, extra)[0]

    def run_with_setting(self, quick: bool = False, progress: Progress | None = None, db: str | Path | None = None,
                         workers: int | None = None, trace: str | Path | None = None,
                         options: Mapping[str, str] | None = None, extra: Sequence[str] = ()) -> tuple[list[Row], str]:
        """:meth:`run`'s rows and the :func:`setting` of their simulations (empty for a
        reproduction that simulates nothing).

        Raises:
            ValueError: an option it does not have, or a value outside its choice.
        """
        ctx = Context(self.name, quick, progress, Path(db) if db is not None else None, workers,
                      Path(trace) if trace is not None else None, self.options(options or {}), extra=tuple(extra))
        rows = self.compute(ctx)
        return rows, setting(ctx.configs)

    def read(self, db: str | Path, quick: bool = False) -> tuple[list[Row], str]:
        """The rows and :func:`setting` of the runs already in ``db`` (the sweep
        ``reproduce:NAME[:quick]``, run with the default choices and the paper's workloads),
        running nothing.

        Raises:
            reclaim.experiments.batch.MissingResults: a run of the reproduction is not in ``db``
                (it was run with other choices, on a trace, or not to the end).
        """
        ctx = Context(self.name, quick, db=Path(db), options=self.options({}), read_only=True)
        rows = self.compute(ctx)
        return rows, setting(ctx.configs)

    def options(self, given: Mapping[str, str]) -> dict[str, str]:
        """``given`` checked against the choices, with the defaults of the others.

        Raises:
            ValueError: an unknown key or a value outside its choice.

        >>> Reproduction("t", "s", lambda c: [], [], choices={"split": Choice(("mean", "median"), "mean", "")}).options({})
        {'split': 'mean'}
        """
        for key, value in given.items():
            if key not in self.choices:
                have = ", ".join(f"`{k}`" for k in self.choices) or "none"
                raise ValueError(f"invalid option `{key}` for `{self.name}` (its options: {have})")
            if value not in self.choices[key].values:
                raise ValueError(f"invalid value for `{key}`: `{value}` (expected one of {', '.join(self.choices[key].values)})")
        return {k: given.get(k, c.default) for k, c in self.choices.items()}

    def table(self, rows: list[Row], setting: str = "") -> Table | Group:
        """The rows as a printable table (or group of tables); ``setting`` (:func:`setting`), if
        any, as a line under them."""
        if setting:
            return Group(self.table(rows), Text(setting, style="dim"))
        if self.render is not None:
            return Group(*self.render(rows))
        t = Table(title=Text.assemble(self.title, "\n", (self.source, "dim")))
        for _, heading, _ in self.columns:
            t.add_column(heading, justify="right")
        for r in rows:
            t.add_row(*[("" if r.get(k) is None else format(r[k], fmt)) for k, _, fmt in self.columns])
        return t


def half_width(sim: Any) -> float:
    """A run's 95% half-width by batch means of its ``precision`` metric, else of WA, in the
    metric's unit (NaN where it has none: fewer than 20 whole windows)."""
    v = getattr(sim, "interval_half_width", None)
    return float("nan") if v is None else float(v)


def rel(ours: float, paper: float) -> float:
    """Relative difference (ours − paper) / paper."""
    return (ours - paper) / paper
