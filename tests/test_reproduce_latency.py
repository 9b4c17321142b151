"""`reclaim reproduce latency` at reduced scale: read tail latency under cleaning against offered
write load, checked against what the device model implies (reclaim.models.device and the
reproduction's own stall model, python/reclaim/reproduce/latency.py)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from reclaim.reproduce import REPRODUCTIONS, latency
from reclaim.reproduce.common import Context

#: A √2 grid from light load to past the no-cleaning device's bound (9,697 writes/s).
GRID = [float(round(125 * 2 ** (k / 2))) for k in range(15)]
SCHEMES = (("greedy", "greedy", "single"), ("sepbit", "greedy", "sepbit"))
SPARES = (0.14, 0.28)


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    # bus=off: the dies alone bound the rate, so the die-time bound is the whole bound. 256
    # segments is the fewest at which sepbit's open segments leave room at these spares.
    ctx = Context("latency-test", quick=True, workers=2)
    return latency.sweep(ctx, 256, "1x", GRID, spares=SPARES, schemes=SCHEMES, bus="off")


def curve(rows: list[dict], scheme: str, spare: float) -> dict:
    (r,) = [x for x in rows if x["scheme"] == scheme and x["spare"] == spare]
    return r


def test_registered_with_its_bus_choice() -> None:
    r = REPRODUCTIONS["latency"]
    assert r.options({}) == {"bus": "on"}
    with pytest.raises(ValueError, match="`bus`"):
        r.options({"bus": "maybe"})


def test_cleaning_decisions_do_not_depend_on_the_clock(rows: list[dict]) -> None:
    # The engine decides placement and cleaning exactly as without a device; time only orders
    # the flash operations (docs/device.md), so WA is the same at every offered rate.
    for r in rows:
        assert r["wa_spread"] == 0.0, r["scheme"]


def test_read_p99_never_falls_as_the_load_rises(rows: list[dict]) -> None:
    # Poisson gaps are -ln(1 - u)/λ from the same uniforms u at every rate, and the operations do
    # not depend on the clock: a higher rate is the same sample path compressed in time, and a
    # FCFS timeline's waits (Lindley's recursion) can only grow when arrivals come closer. 0.2%:
    # HdrHistogram's three significant digits and the nanosecond rounding of arrivals.
    for r in rows:
        p = [x["read_p99"] for x in r["points"]]
        assert all(b >= a * 0.998 for a, b in zip(p, p[1:])), (r["scheme"], r["spare"], p)
        # Past the bound an open queue has no steady state: the tail is orders of magnitude up.
        assert p[-1] > 100 * p[0], (r["scheme"], r["spare"])


def test_more_spare_means_lower_wa_and_lower_p99_at_the_same_load(rows: list[dict]) -> None:
    # Higher spare: emptier victims (WA = 1/(1 - u)), so a shorter stall C = u·(pages per
    # die)·(tR + tPROG) + tBERS behind each cleaning and a smaller share of time in stalls.
    lo, hi = curve(rows, "greedy", 0.14), curve(rows, "greedy", 0.28)
    assert hi["wa"] < lo["wa"]
    below = [(a, b) for a, b in zip(lo["points"], hi["points"]) if a["offered"] < lo["bound"]]
    assert len(below) >= 8
    for a, b in below:
        assert b["read_p99"] < a["read_p99"], a["offered"]


def test_the_no_cleaning_device_is_below_every_cleaning_policy(rows: list[dict]) -> None:
    # clean=free replays the same requests at the same times with the cleaning's operations left
    # off the timelines: on FCFS timelines removing work delays no request, so every read's
    # latency, and so every percentile, is at most the cleaning device's (ttFlash's ideal).
    for spare in SPARES:
        free = curve(rows, latency.BASELINE, spare)
        for name, _, _ in SCHEMES:
            r = curve(rows, name, spare)
            for a, b in zip(free["points"], r["points"]):
                assert a["read_p99"] <= b["read_p99"], (name, spare, a["offered"])
                assert a["read_p999"] <= b["read_p999"], (name, spare, a["offered"])
            # At light load the gap is the cleaning stall (tens of ms) against a read's own
            # ~0.1 ms: over 50 times.
            assert r["vs_free"] > 50


def test_saturation_is_the_die_time_bound(rows: list[dict]) -> None:
    # Utilisation law at saturation, every die busy: dies / (r·tR + (1 - r)·S_w) requests/s
    # (models.device.saturation_iops), a share 1 - r of them writes. The top of the grid is past
    # every cleaning curve's bound, so the highest rate completed is the bound; 1% for the
    # run's start and drain.
    for r in rows:
        if r["scheme"] == latency.BASELINE:
            # Past its bound only 1.65 times at the top of the grid: at least 90% of it, never above.
            assert 0.9 <= r["saturation_ratio"] <= 1.001
        else:
            assert r["saturation_ratio"] == pytest.approx(1.0, abs=0.01), (r["scheme"], r["spare"])


def test_the_p99_knee_is_at_the_bound_and_moves_with_wa(rows: list[dict]) -> None:
    # Below the bound each die is a stable queue and the tail stays within a few stalls; past it
    # the queue grows through the run. The 10x crossing therefore falls within one grid step
    # (a factor √2) of the bound, and it moves left as WA rises.
    for r in rows:
        assert r["knee"] is not None
        assert 1 / math.sqrt(2) <= r["knee_ratio"] <= math.sqrt(2), (r["scheme"], r["spare"], r["knee_ratio"])
    assert curve(rows, "greedy", 0.14)["knee"] < curve(rows, "greedy", 0.28)["knee"] < curve(rows, latency.BASELINE, 0.28)["knee"]


def test_the_light_load_tail_is_one_victims_stall_for_greedy(rows: list[dict]) -> None:
    # At 125 writes/s: P(latency > x) ≈ g·(1 - x/C), C one victim's cleaning per die and g the
    # share of die time spent cleaning (latency.light_tail_us). The percentiles sit in the
    # uniform stretch; 5% for the victims' spread of valid pages about the mean u.
    for spare in SPARES:
        r = curve(rows, "greedy", spare)
        assert r["light_p99"] == pytest.approx(r["model_p99"], rel=0.05)
        assert r["light_p999"] == pytest.approx(r["model_p999"], rel=0.05)


def test_outputs_table_csv_markdown_and_figure(rows: list[dict], tmp_path: Path) -> None:
    paths = latency.figures(rows, tmp_path)
    assert [p.name for p in paths][:3] == ["latency.png", "latency.csv", "latency.md"]
    # Then the figure for print: its CSV and two widths in three formats.
    assert [p.name for p in paths][3:] == ["latency-read-tail-against-load.csv"] + [
        f"latency-read-tail-against-load-{w}in.{e}" for w in ("3.5", "7") for e in ("pdf", "svg", "png")]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with paths[1].open() as f:
        table = list(csv.DictReader(f))
    # One row per point: (2 schemes + the baseline) × 2 spares × 15 rates.
    assert len(table) == 3 * 2 * len(GRID)
    assert {float(t["offered"]) for t in table} == set(GRID)
    md = paths[2].read_text().splitlines()
    assert sum(line.startswith("| ") for line in md) == 1 + len(rows)
    # With the bus off nothing falls short of the bound: no note about the channel.
    assert not any("bus on" in line for line in md)
    assert len(latency.render(rows)) == 1
