"""``reclaim model``: the seeds' analytical models."""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from reclaim.cli.common import app, emit, fail

model_app = typer.Typer(help="Analytical models of the seeds (Lomet & Luo, Van Houdt, Li et al.).", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(model_app, name="model")


def _shares(text: str, name: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.replace("/", ",").split(","))
    except ValueError:
        fail(f"invalid value for `--{name}`: `{text}` (expected shares separated by `,`, such as 0.8,0.2)")


def _fill_of(fill: float | None, spare: float | None) -> float:
    if fill is not None and spare is not None:
        fail("give only one of `--fill` and `--spare`")
    if fill is None and spare is None:
        fail("give `--fill` or `--spare`")
    name, v = ("--fill", fill) if fill is not None else ("--spare", spare)
    assert v is not None
    if not 0.0 < v < 1.0:
        fail(f"invalid value for `{name}`: {v} (expected a number in (0, 1))")
    if fill is None and not 1.0 - v < 1.0:
        # The fill is what the models take: a spare this small leaves a fill of exactly 1.
        fail(f"invalid value for `{name}`: {v} (expected a number in (0, 1) whose fill 1 − {v} is below 1 in double precision, ≥ 1.2e-16)")
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
    emit(as_json, {"fill": a.fill, "emptiness": a.emptiness, "cost": a.cost, "r": a.r, "wamp": a.wamp},
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
    emit(as_json, {"min_cost": h.min_cost, "hot_share": h.hot_share, "cost_hot60": h.cost_hot60,
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
    emit(as_json, {"wa": m.wa, "d": m.d, "frontier": m.frontier, "valid_distribution": m.valid_distribution.tolist(),
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
    emit(as_json, {"cleaning_cost": li.cleaning_cost(writes, c, pages_per_segment), "mean_valid_per_gc": c,
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
    emit(as_json, data, f"Li et al. Theorem 5: data grouping, f_a = {fa}, r = {r}, f = {f}")


@model_app.command("device")
def model_device(
    device: Annotated[str, typer.Option(help="A flash device as the simulator takes it: PRESET[:key=value,...], presets femu and mqsim.")] = "femu",
    wa: Annotated[float, typer.Option("--wa", help="Write amplification of the writes, ≥ 1 (a run's `wa`).")] = 1.0,
    reads: Annotated[float, typer.Option(help="Share of requests that are single-page reads, in [0, 1].")] = 0.0,
    rate: Annotated[float | None, typer.Option(help="Offered requests per second (Poisson arrivals), > 0.")] = None,
    utilisation: Annotated[float | None, typer.Option(help="Die utilisation to offer instead of --rate, in (0, 1).")] = None,
    iodepth: Annotated[int, typer.Option(help="Queue depth of the closed loop (requests outstanding), ≥ 1.")] = 1,
    think_us: Annotated[float, typer.Option("--think-us", help="Think time between a completion and the next request in the closed loop [µs], ≥ 0.")] = 0.0,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Time under cleaning in closed form: die utilisation and saturation IOPS from WA, M/D/1 read
    latency (Poisson reads alone, bus off) and the closed loop at a queue depth by exact MVA."""
    from reclaim.models import device as dm

    dev = dm.parse(device)
    if not (math.isfinite(wa) and wa >= 1.0):
        fail(f"invalid value for `--wa`: {wa} (expected a write amplification, finite and ≥ 1)")
    if not 0.0 <= reads <= 1.0:
        fail(f"invalid value for `--reads`: {reads} (expected a share in [0, 1])")
    if rate is not None and utilisation is not None:
        fail("give only one of `--rate` and `--utilisation`")
    if rate is not None and not (math.isfinite(rate) and rate > 0):
        fail(f"invalid value for `--rate`: {rate} (expected requests per second, finite and > 0)")
    if utilisation is not None and not 0.0 < utilisation < 1.0:
        fail(f"invalid value for `--utilisation`: {utilisation} (expected a die utilisation in (0, 1))")
    if iodepth < 1:
        fail(f"invalid value for `--iodepth`: {iodepth} (expected a whole number ≥ 1)")
    if not (math.isfinite(think_us) and think_us >= 0):
        fail(f"invalid value for `--think-us`: {think_us} (expected a time in µs, finite and ≥ 0)")
    cost = dm.write_cost(dev, wa)
    sat = dm.saturation_iops(dev, wa, reads)
    data: dict[str, Any] = {
        "dies": dev.total_dies, "pages_per_segment": dev.pages_per_segment, "transfer_us": dev.transfer,
        "die_us_per_write": cost.die, "gc_us_per_write": cost.gc, "saturation_iops": sat,
        "saturation_mb_per_s": sat * dev.page_size / 1e6,
    }
    if utilisation is not None:
        # The utilisation law at the die bound: ρ = X·S / dies, so X = ρ × the dies' saturation.
        rate = utilisation * dev.total_dies / ((reads * dev.tr + (1.0 - reads) * cost.die) * 1e-6)
    if rate is not None:
        load = dm.utilisation(dev, wa, rate * (1.0 - reads), rate * reads)
        data.update({"rate_iops": rate, "die_busy": load.die_busy, "gc_busy": load.gc_busy, "channel_busy": load.channel_busy})
        if max(load.die_busy, load.channel_busy) >= 1.0:
            data["note"] = f"the rate is beyond saturation ({sat:,.0f} IOPS): no steady state, queues grow without bound"
        if reads == 1.0 and dev.transfer == 0.0 and load.die_busy < 1.0:
            lat = dm.read_latency(dev, rate)
            data.update({f"md1_read_latency_{k}_us": v for k, v in lat.items()})
    loop = dm.closed_loop(dev, wa, iodepth, reads=reads, think=think_us)
    data.update({"iodepth": iodepth, "mva_iops": loop.iops, "mva_response_us": loop.response, "mva_die_busy": loop.die_busy})
    emit(as_json, data, f"{device}: WA {wa:g}, {reads:g} reads")
