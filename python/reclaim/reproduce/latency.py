"""Read tail latency under cleaning against offered write load: the comparison ttFlash (Yan et al.,
"Tiny-Tail Flash", FAST '17, §2 and Fig. 1) makes between an SSD that cleans in the foreground
and the ideal device whose cleaning costs nothing, here for greedy, FIFO, cost-benefit and SepBIT
(placement ``sepbit`` under greedy) at three spare factors.

Requests arrive as a Poisson process (``poisson:iops=N``), half of them single-page reads drawn
from the workload's own law (``reads=0.5``), on the ``mqsim`` preset scaled down so that a sweep
runs in minutes: 2 channels × 4 dies × 2 planes × 32 pages per block (a superblock of 512 pages;
MQSim's own is 8 × 8 × 2 × 256), with MQSim's times (tR 75 µs, tPROG 750 µs, tBERS 3.8 ms) and
its 8-bit channel at 333 MT/s. The writes are hot/cold 80/20. The offered write rate sweeps a
geometric grid from light load to past every knee; the baseline is the same device with
``clean=free``: cleaning runs as the trigger asks and takes no device time.

What the model says, and each row checks:

- **Saturation** (:func:`reclaim.models.device.saturation_iops`): the dies complete at most
  dies / (r·tR + (1 − r)·S_w) requests a second, S_w = WA·tPROG + (WA − 1)·tR + WA·tBERS /
  (planes·pages_per_block) the die time of a user write; a share 1 − r of them are writes. The
  bound falls as WA rises, so the knee moves left with less spare. Past it an open queue has no
  steady state: latencies grow with the run's length.
- **The light-load tail is one victim's cleaning.** The engine issues a victim's relocation reads,
  its erase and the relocated programs at the arrival of the write that needs the segment; each
  die is then busy for C = u·(pages per die)·(tR + tPROG + 2·tX) + tBERS without a break (tX the
  transfer a die is held for with the bus on), u = (WA − 1) /
  WA the mean share of a victim still valid. A read that arrives in such a stretch waits out the
  rest of it, uniform on [0, C]; the stretches take a share g = λ_w·(S_w − tPROG) / dies of each
  die's time (:func:`reclaim.models.device.utilisation`). So P(latency > x) ≈ g·(1 − x/C), and
  the q-quantile is C·(1 − (1 − q)/g) when g > 1 − q: far above the no-cleaning device's, and
  lower at higher spare (smaller u) at the same load.

The knee is read off the measured curve as the offered write rate at which the read p99 first
exceeds :data:`KNEE_FACTOR` times its value at the lightest load (log-log interpolation between
grid points); the measured saturation is the highest write rate completed.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from reclaim.api import SimConfig
from reclaim.models import device as model
from reclaim.reproduce.common import Choice, Context, Reproduction, Row

#: The device: ``mqsim`` scaled to 2 channels × 4 dies (× 2 planes) and 32-page blocks, a 512-page
#: superblock; ``reclaim simulate --device mqsim`` is 8 × 8 × 2 × 256 (32,768 pages a segment).
DEVICE = "mqsim:channels=2,dies=4,pages_per_block=32"
#: Share of requests that are single-page reads.
READS = 0.5
#: The writes (and the reads' law): a share 0.8 of writes to 0.2 of the pages.
WORKLOAD = "hotcold:r=0.8,f=0.2"
SPARES = (0.07, 0.14, 0.28)
#: (name, policy, placement).
SCHEMES = (("greedy", "greedy", "single"), ("fifo", "fifo", "single"), ("cost-benefit", "cost-benefit", "single"),
           ("sepbit", "greedy", "sepbit"))
#: The baseline's name in the rows.
BASELINE = "no cleaning"
#: Segments and measured writes (of the logical capacity): full and ``quick``.
LENGTHS = {False: (1024, "2x"), True: (256, "1x")}
#: Offered write rates [writes/s]: 125·2^(k/steps) up to 16,000 (past the no-cleaning device's
#: saturation, 9,151 writes/s with the bus on, 9,697 with it off), 4 steps an octave; ``quick`` 2.
RATE_LOW, RATE_HIGH = 125.0, 16_000.0
STEPS = {False: 4, True: 2}
#: The knee: read p99 this many times its value at the lightest load.
KNEE_FACTOR = 10.0


def rates(quick: bool) -> list[float]:
    """The offered write rates of the sweep [writes/s], geometric.

    >>> rates(True)[:3], rates(True)[-1], len(rates(False))
    ([125.0, 177.0, 250.0], 16000.0, 29)
    """
    steps = STEPS[quick]
    n = round(math.log2(RATE_HIGH / RATE_LOW) * steps)
    return [float(round(RATE_LOW * 2 ** (k / steps))) for k in range(n + 1)]


def bound(wa: float | None, dev: model.Device | None = None) -> float:
    """The die-time bound on the write rate [writes/s] at write amplification ``wa``
    (:func:`reclaim.models.device.saturation_iops` × the write share); ``None``: the
    no-cleaning device, whose writes cost one program and no erase. ``dev``: the device's closed
    forms (:data:`DEVICE`'s by default).

    >>> round(bound(None))  # 8 dies / (0.5·(75 + 24.6) + 0.5·(750 + 24.6) µs) × 0.5, transfers held
    9151
    """
    dev = dev or model.parse(DEVICE)
    if wa is None:
        return (1.0 - READS) * model.saturation_iops(replace(dev, tbers=0.0), 1.0, READS)
    return (1.0 - READS) * model.saturation_iops(dev, wa, READS)


def stall_us(wa: float, dev: model.Device | None = None) -> float:
    """C, one victim's cleaning on each die [µs]: u·(pages per die)·(tR + tPROG + 2·tX) + tBERS
    with u = 1 − 1/WA (module docstring; tX where the die is held while a page crosses, ``bus=on``);
    ``math.inf``: a victim whose every page is valid.

    >>> round(stall_us(4.0))  # 0.75 × 64 × (825 + 2 × 24.6) + 3800
    45762
    """
    dev = dev or model.parse(DEVICE)
    u = 1.0 - 1.0 / wa
    per_die = dev.pages_per_segment / dev.total_dies
    # With bus=on a die is held while each moved page crosses, out and back in.
    held = 2.0 * dev.transfer if dev.holds_die else 0.0
    return u * per_die * (dev.tr + dev.tprog + held) + dev.tbers


def light_tail_us(wa: float, writes_per_s: float, q: float, dev: model.Device | None = None) -> float | None:
    """The q-quantile of read latency at a light load, from the cleaning stalls alone: C·(1 − (1 −
    q)/g), g the share of a die's time spent cleaning; ``None`` when g ≤ 1 − q (the quantile is
    then not in a stall).

    >>> round(light_tail_us(4.0, 250.0, 0.99))  # g = 250/s × 2860.1 µs / 8 dies = 0.0894
    40642
    """
    dev = dev or model.parse(DEVICE)
    g = writes_per_s * model.write_cost(dev, wa).gc * 1e-6 / dev.total_dies
    if g <= 1.0 - q:
        return None
    return stall_us(wa, dev) * (1.0 - (1.0 - q) / g)


def knee(points: Sequence[Row], key: str = "read_p99") -> float | None:
    """The offered write rate at which ``key`` first exceeds :data:`KNEE_FACTOR` × its value at
    the lightest load, interpolated in log-log between the grid points around it; ``None`` if it
    never does.

    >>> knee([{"offered": 100, "read_p99": 1.0}, {"offered": 200, "read_p99": 2.0}, {"offered": 400, "read_p99": 40.0}])
    290.2
    """
    base = points[0][key] * KNEE_FACTOR
    for a, b in zip(points, points[1:]):
        if b[key] > base:
            if a[key] <= 0 or b[key] <= a[key]:
                return float(b["offered"])
            f = math.log(base / a[key]) / math.log(b[key] / a[key])
            return round(math.exp(math.log(a["offered"]) + f * math.log(b["offered"] / a["offered"])), 1)
    return None


#: The time metrics a point keeps, as the results database names them (``TimeResult.scalars``).
TIME_KEYS = {"write_iops": "write_iops", "read_p50": "read_latency_p50", "read_p99": "read_latency_p99",
             "read_p999": "read_latency_p999", "write_p99": "write_latency_p99", "die_busy": "die_busy", "gc_busy": "gc_busy"}


def _measure(ctx: Context, configs: list[SimConfig]) -> list[dict[str, Any]]:
    """Each configuration's WA and time metrics, as tasks of the results database (a rerun reads
    them back)."""
    return [{"wa": m.wa, **{v: getattr(m, v) for v in TIME_KEYS.values()}} for m in ctx.simulate(configs)]


def device(bus: str = "on", free: bool = False) -> str:
    """The device spec of the sweep: :data:`DEVICE`, its channel ``bus`` on (MQSim's) or off, and
    with ``free`` the baseline whose cleaning takes no device time.

    >>> device("off", free=True)
    'mqsim:channels=2,dies=4,pages_per_block=32,bus=off,clean=free'
    """
    return DEVICE + (",bus=off" if bus == "off" else "") + (",clean=free" if free else "")


def sweep(ctx: Context, segments: int, writes: str, grid: Sequence[float], spares: Sequence[float] = SPARES,
          schemes: Sequence[tuple[str, str, str]] = SCHEMES, bus: str = "on") -> list[Row]:
    """One row per (scheme, spare) and per spare for the baseline: the measured points at each
    offered write rate of ``grid`` and what the model says beside them (module docstring)."""
    curves = [(name, policy, placement, spare, device(bus)) for spare in spares for name, policy, placement in schemes]
    curves += [(BASELINE, "greedy", "single", spare, device(bus, free=True)) for spare in spares]
    configs = [SimConfig(segments=segments, spare=spare, policy=policy, placement=placement, workload=WORKLOAD, device=dev,
                         arrivals=f"poisson:iops={w / (1.0 - READS):g}", reads=READS, writes=writes)
               for _, policy, placement, spare, dev in curves for w in grid]
    measured = _measure(ctx, configs)
    dev = model.parse(device(bus))
    rows: list[Row] = []
    for i, (name, policy, placement, spare, spec) in enumerate(curves):
        ms = measured[i * len(grid):(i + 1) * len(grid)]
        points = [{"offered": w, **{k: float(m[v]) for k, v in TIME_KEYS.items()}} for w, m in zip(grid, ms)]
        was = [float(m["wa"]) for m in ms]
        wa = sum(was) / len(was)
        free = name == BASELINE
        top = bound(None if free else wa, dev)
        at = knee(points)
        light = points[0]
        row: Row = {"scheme": name, "policy": policy, "placement": placement, "spare": spare, "device": spec,
                    "wa": wa, "wa_spread": max(was) - min(was), "bound": top,
                    "saturation": max(p["write_iops"] for p in points), "knee": at,
                    "knee_ratio": at / top if at is not None else None, "light": light["offered"],
                    "light_p99": light["read_p99"], "light_p999": light["read_p999"],
                    "model_p99": None if free else light_tail_us(wa, light["offered"], 0.99, dev),
                    "model_p999": None if free else light_tail_us(wa, light["offered"], 0.999, dev),
                    "segments": segments, "writes": writes, "workload": WORKLOAD, "reads": READS, "bus": bus,
                    "points": points}
        row["saturation_ratio"] = row["saturation"] / top
        rows.append(row)
    free_p99 = {r["spare"]: r["light_p99"] for r in rows if r["scheme"] == BASELINE}
    for r in rows:
        r["vs_free"] = r["light_p99"] / free_p99[r["spare"]]
    return rows


def compute(ctx: Context) -> list[Row]:
    segments, writes = LENGTHS[ctx.quick]
    return sweep(ctx, segments, writes, rates(ctx.quick), bus=ctx.options.get("bus", "on"))


def _ms(us: float | None) -> str:
    return "" if us is None else f"{us / 1e3:,.2f}"


#: The summary's columns: (key, heading, how a value is shown).
SUMMARY: tuple[tuple[str, str, Any], ...] = (
    ("scheme", "scheme", str), ("spare", "spare", lambda v: f"{v:.2f}"), ("wa", "WA", lambda v: f"{v:.3f}"),
    ("bound", "bound [w/s]", lambda v: f"{v:,.0f}"), ("saturation", "saturation [w/s]", lambda v: f"{v:,.0f}"),
    ("saturation_ratio", "sat./bound", lambda v: f"{v:.3f}"), ("knee", "p99 knee [w/s]", lambda v: "" if v is None else f"{v:,.0f}"),
    ("knee_ratio", "knee/bound", lambda v: "" if v is None else f"{v:.2f}"), ("light_p99", "p99 [ms]", _ms),
    ("model_p99", "p99 model [ms]", _ms), ("light_p999", "p99.9 [ms]", _ms), ("model_p999", "p99.9 model [ms]", _ms),
    ("vs_free", "p99 ÷ no cleaning", lambda v: f"{v:,.0f}"),
)


def _setting(rows: Sequence[Row]) -> str:
    first = rows[0] if rows else {}
    light = first.get("light", RATE_LOW)
    bus = first.get("bus", "on")
    channel = "its channel" if bus == "on" else "no transfer time (bus=off)"
    return (f"device {device(bus)} (MQSim's times, {channel}; 2 × 4 dies × 2 planes × 32 pages: a 512-page superblock, "
            f"scaled down from MQSim's 32,768); {first.get('segments', '')} segments; Poisson arrivals, {READS:.0%} single-page reads; "
            f"writes {WORKLOAD}, {first.get('writes', '')} measured after the default warm-up; the baseline `{BASELINE}` is "
            f"clean=free. bound: the die-time bound on the write rate (models.device.saturation_iops); saturation: the most "
            f"writes/s completed; p99 knee: where the read p99 passes {KNEE_FACTOR:g}× its value at {light:,.0f} writes/s; "
            f"p99, p99.9: read latency at {light:,.0f} writes/s, beside one victim's cleaning stall (model)")


def _notes(rows: Sequence[Row]) -> list[str]:
    """What a reader of the table needs beside it: where the rate falls short of the bound with the
    bus on, and where the light-load tail is not one victim's stall."""
    notes = []
    short = [r for r in rows if r["saturation_ratio"] < 0.95]
    if short:
        worst = min(short, key=lambda r: r["saturation_ratio"])
        notes.append(f"{worst['scheme']} at spare {worst['spare']:g} falls short of the die-time bound ({worst['saturation_ratio']:.2f}): "
                     "with a victim's pages relocated into the first offsets of the segment its writes then fill, the user writes "
                     "take the last offsets, and the dies those stripe to carry more of them than the bound's even spread; the "
                     "more a victim holds (the higher WA), the larger the gap; with cleaning that takes time, its own operations "
                     "fill the other dies")
    full = stall_us(math.inf) if rows else 0.0
    long = sorted({r["scheme"] for r in rows if r.get("model_p99") is not None and r["light_p99"] > full})
    if long:
        notes.append(f"{', '.join(long)}: the light-load p99 is longer than the cleaning of one full victim ({full / 1e3:.1f} ms), "
                     "so a read there waits behind several victims cleaned back to back; the model counts one")
    return notes


def render(rows: list[Row]) -> list[Table]:
    notes = _notes(rows)
    t = Table(title=Text.assemble("Read tail latency under cleaning against offered write load (ttFlash, FAST '17, §2)\n",
                                  (_setting(rows), "dim")),
              caption=Text("\n".join(f"note: {n}" for n in notes)) if notes else None)
    for _, heading, _ in SUMMARY:
        t.add_column(heading, justify="right")
    for r in rows:
        t.add_row(*[fmt(r.get(k)) if r.get(k) is not None or k in ("knee", "knee_ratio") else "" for k, _, fmt in SUMMARY])
    return [t]


def markdown(rows: Sequence[Row]) -> str:
    """The summary as a markdown table, the setting above it."""
    lines = [_setting(rows), "", "| " + " | ".join(h for _, h, _ in SUMMARY) + " |",
             "|" + "---|" * len(SUMMARY)]
    for r in rows:
        cells = [fmt(r.get(k)) if r.get(k) is not None or k in ("knee", "knee_ratio") else "" for k, _, fmt in SUMMARY]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + [f"Note: {n}" for n in _notes(rows)]
    return "\n".join(lines) + "\n"


#: The CSV's columns: the curve, then the point.
CSV_COLUMNS = ("scheme", "policy", "placement", "spare", "wa", "bound", "offered", *TIME_KEYS)


def figures(rows: Sequence[Row], out_dir: Path) -> list[Path]:
    """Read p99 and p99.9 against the offered write rate, one panel per spare, each scheme's
    die-time bound a dotted line in its colour (``latency.png``); every point as CSV
    (``latency.csv``) and the summary as markdown (``latency.md``); then the figure for print
    (:func:`reclaim.figures.papers.latency`: 3.5 and 7 in, PDF, SVG, PNG, its CSV)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    names = [n for n, _, _ in SCHEMES] + [BASELINE]
    colours = {n: plt.get_cmap("tab10")(i) for i, n in enumerate(names)}
    colours[BASELINE] = (0.0, 0.0, 0.0, 1.0)
    spares = sorted({r["spare"] for r in rows})
    fig, axes = plt.subplots(2, len(spares), figsize=(5 * len(spares), 8), sharex=True, sharey="row", squeeze=False)
    for col, spare in enumerate(spares):
        for row_i, (key, label) in enumerate((("read_p99", "read p99"), ("read_p999", "read p99.9"))):
            ax = axes[row_i][col]
            for r in (x for x in rows if x["spare"] == spare):
                pts = r["points"]
                c = colours[r["scheme"]]
                ax.plot([p["offered"] for p in pts], [p[key] / 1e3 for p in pts], "o", ms=3, color=c,
                        ls="--" if r["scheme"] == BASELINE else "-", label=BASELINE if r["scheme"] == BASELINE else f"{r['scheme']} (WA {r['wa']:.2f})")
                ax.axvline(r["bound"], color=c, ls=":", lw=1)
            ax.set(xscale="log", yscale="log", title=f"spare {spare:g}: {label}", ylabel=f"{label} [ms]")
            if row_i == 1:
                ax.set_xlabel("offered writes / s (dotted: die-time bound)")
            ax.legend(fontsize=7)
    fig.suptitle(f"Read latency under cleaning, {device(rows[0]['bus'] if rows else 'on')}, {READS:.0%} reads, Poisson", fontsize=10)
    fig.tight_layout()
    png = out_dir / "latency.png"
    fig.savefig(png, dpi=90)
    plt.close(fig)
    table = out_dir / "latency.csv"
    with table.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for r in rows:
            for p in r["points"]:
                w.writerow([r["scheme"], r["policy"], r["placement"], r["spare"], f"{r['wa']:.6g}", f"{r['bound']:.6g}",
                            p["offered"], *(f"{p[k]:.6g}" for k in TIME_KEYS)])
    md = out_dir / "latency.md"
    md.write_text(markdown(rows))
    # The same figure for print, in the style of every reclaim figure.
    from reclaim.figures import papers

    return [png, table, md, *papers.latency(rows, BASELINE, out_dir)]


LATENCY = Reproduction(
    title="Read tail latency under cleaning against offered write load",
    source="ttFlash (Yan et al., FAST '17, §2, Fig. 1): cleaning policies beside the device whose cleaning is free",
    compute=compute,
    columns=[],
    render=render,
    figures=figures,
    choices={"bus": Choice(("on", "off"), "on", "The channel: on, MQSim's 8-bit bus at 333 MT/s, each page transfer "
                           "taking its channel; off, transfers take no time and the dies alone bound the rate.")},
)
