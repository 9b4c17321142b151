"""Shared pieces of the reproductions: published tables, row runner, printed table."""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rich.console import Group
from rich.progress import Progress
from rich.table import Table

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
class Reproduction:
    """A table of a seed: how to compute each row, and how to print them."""

    title: str
    source: str
    compute: Callable[[bool, Progress | None], list[Row]]
    columns: Sequence[tuple[str, str, str]]  # (key, heading, format)
    #: Several tables instead of one, for reproductions with more than one table.
    render: Callable[[list[Row]], list[Table]] | None = None

    def run(self, quick: bool = False, progress: Progress | None = None) -> list[Row]:
        """Computes every row; ``quick`` is the reduced length CI runs."""
        return self.compute(quick, progress)

    def table(self, rows: list[Row]) -> Table | Group:
        """The rows as a printable table (or group of tables)."""
        if self.render is not None:
            return Group(*self.render(rows))
        t = Table(title=f"{self.title}\n[dim]{self.source}[/]")
        for _, heading, _ in self.columns:
            t.add_column(heading, justify="right")
        for r in rows:
            t.add_row(*[("" if r.get(k) is None else format(r[k], fmt)) for k, _, fmt in self.columns])
        return t


def rel(ours: float, paper: float) -> float:
    """Relative difference (ours − paper) / paper."""
    return (ours - paper) / paper
