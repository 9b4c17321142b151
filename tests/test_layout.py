"""Dyal & Draughn: seek model, placements, MVA (issue in progress; see docs/layout.md)."""

from __future__ import annotations

import numpy as np
import pytest

from reclaim.layout import disk, placement, queueing
from reclaim.reproduce.common import published


def test_curves_are_calibrated_to_the_nominal_35_ms():
    # §2.1: "nominal hardware value (35 msec) for a rectangular distribution".
    for curve in disk.shapes().values():
        assert disk.uniform_average(curve) == pytest.approx(35.0, rel=1e-9)


def test_expected_seek_of_two_points():
    # Two cylinders with half the references each: half the pairs cross, t(d) each time.
    r = np.zeros(10)
    r[2] = r[7] = 0.5
    curve = disk.SeekCurve("linear", a=1.0, b=2.0)
    assert disk.expected_seek(r, curve) == pytest.approx(0.5 * (1.0 + 2.0 * 5))


def test_reorganisation_cuts_seek_time_from_the_as_copied_layout():
    # §2.1–2.2: 29 ms as copied, 14 ms after global reorganisation (we report ours per curve).
    es = placement.table1()
    for curve in disk.shapes().values():
        copied = placement.seek_time(placement.as_copied(es), curve)
        organ = placement.seek_time(placement.organ_pipe(es), curve)
        assert organ < 0.7 * copied


def test_organ_pipe_beats_a_thousand_random_placements():
    es = placement.table1()
    curve = disk.shapes()["linear"]
    best = placement.seek_time(placement.organ_pipe(es), curve)
    rng = np.random.default_rng(1)
    for _ in range(1000):
        order = [es[i] for i in rng.permutation(len(es))]
        assert placement.seek_time(order, curve) > best


def test_local_search_never_makes_it_worse():
    es = placement.table1()
    curve = disk.shapes()["sqrt-linear"]
    start = placement.organ_pipe(es)
    _, t = placement.local_search(start, curve, max_rounds=2)
    assert t <= placement.seek_time(start, curve)


def _table2_old():
    return [r for r in published("dyal_draughn_tables.csv") if r["table"] == "2" and r["case"] == "A"]


def test_exact_mva_reproduces_table2_old_allocation():
    # Table 2, old allocation: throughput within 6% for 10 ≤ N ≤ 30, response within 20% for N ≤ 10,
    # with Fig. 3's demands (think 10.167 s, CPU 0.157 s, disk 0.394 s).
    s = queueing.mva([queueing.CPU, queueing.DISK], queueing.THINK, 60)
    for row in _table2_old():
        n = int(row["workstations"])
        if 10 <= n <= 30:
            assert s.throughput_per_minute[n - 1] == pytest.approx(float(row["trans_per_min"]), rel=0.06), row
        if n <= 10:
            assert 1000 * s.response_seconds[n - 1] == pytest.approx(float(row["response_ms"]), rel=0.20), row


def test_published_saturation_exceeds_the_single_disk_bound():
    # Table 2 prints 157–162/min at N ≥ 40, above the 60/0.394 = 152.3/min that one disk with
    # 0.394 s of demand per transaction can serve: the inputs cannot produce those cells.
    bound = 60.0 / queueing.DISK
    assert max(float(r["trans_per_min"]) for r in _table2_old()) > bound
    s = queueing.mva([queueing.CPU, queueing.DISK], queueing.THINK, 60)
    assert s.throughput_per_minute[-1] <= bound + 1e-9


def test_load_dependent_station_with_constant_rate_is_the_fixed_rate_station():
    a = queueing.mva([0.157, 0.394], 10.167, 30)
    b = queueing.mva([0.157, 0.394], 10.167, 30, rate=[None, lambda j: 1.0])
    assert b.throughput_per_minute == pytest.approx(a.throughput_per_minute, rel=1e-12)
    # A disk that serves two at once at full speed (α(j) = min(j, 2)) lifts the bound to 2/D.
    c = queueing.mva([0.157, 0.394], 10.167, 80, rate=[None, lambda j: min(j, 2)])
    assert c.throughput_per_minute[-1] > 60 / 0.394
