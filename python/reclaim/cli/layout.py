"""``reclaim layout``: disk placement and the queueing model (Dyal & Draughn)."""

from __future__ import annotations

import math
from typing import Annotated

import typer
from rich.table import Table

from reclaim.cli.common import app, fail, out, print_json

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
