"""Lomet & Luo §6 at reduced scale (10,000 segments of 512 pages, 8 free / 16 victims: the paper's
32 / 64 as shares of the store); the full scale is `reclaim reproduce lomet` (`make reproduce`)."""

from __future__ import annotations

import pytest
from reclaim.reproduce import REPRODUCTIONS


@pytest.fixture(scope="module")
def rows(results_db):
    return REPRODUCTIONS["lomet"].run(quick=True, db=results_db)


def _table(rows, name):
    return [r for r in rows if r["table"] == name]


@pytest.mark.slow
def test_table1_mdc_opt_within_0_005(rows):
    # Table 1, MDC-opt column (their simulation): E when cleaned under uniform updates.
    t = _table(rows, "table1")
    assert [r["fill"] for r in t] == [0.95, 0.80, 0.50, 0.20]
    for r in t:
        assert abs(r["diff"]) <= 0.005, r


@pytest.mark.slow
def test_table2_mdc_opt_within_two_percent(rows):
    # Table 2, MDC-opt column: 2.96, 3.99, 4.76, 5.23, 5.38 at 90:10 … 50:50, F = 0.8. The
    # class-stream variant separates hot and cold pages perfectly, as the analysis's minimum cost
    # assumes: within 2% everywhere. MDC-opt (MDC's sort buffer and sorted batch with exact rates)
    # mixes the classes in the buffer's boundary segment: within 2% from 70:30 to 50:50, and never
    # below the analysis's minimum (up to 1%: the minimum is printed to two decimals).
    t = _table(rows, "table2")
    assert [r["cold_hot"] for r in t] == ["90:10", "80:20", "70:30", "60:40", "50:50"]
    for r in t:
        assert abs(r["classes_rel"]) <= 0.02, r
        assert r["ours"] >= 0.99 * r["min_cost"], r
        if r["cold_hot"] in ("70:30", "60:40", "50:50"):
            assert abs(r["rel"]) <= 0.02, r


@pytest.mark.slow
def test_figure3_order_from_70_30_to_90_10(rows):
    # Figure 3: greedy ≥ MDC-no-sep-user-GC ≥ MDC-no-sep-user ≥ MDC ≥ MDC-opt, within the
    # seed-to-seed spread. At 60-40 and 50-50 greedy is ahead of the estimating variants
    # (docs/validation.md, "Lomet & Luo Figure 3").
    f = {r["skew"]: r for r in _table(rows, "figure3")}
    for skew in ("90-10", "80-20", "70-30"):
        assert f[skew]["order"], f[skew]
    # With the exact frequency MDC-opt is best at every skew but the uniform one, where it is
    # greedy (§4.5) up to ties.
    for skew in ("90-10", "80-20", "70-30", "60-40"):
        others = [f[skew][n] for n in ("greedy", "MDC-no-sep-user-GC", "MDC-no-sep-user", "MDC")]
        assert f[skew]["MDC-opt"] < min(others), f[skew]


@pytest.mark.slow
def test_figure4_wamp_falls_with_the_buffer_and_16_is_near_the_best(rows):
    # Figure 4 (Zipf 0.99, F = 0.8): Wamp falls as the sort buffer grows, and 16 segments "already
    # achieves near-optimal write amplification" (within 5% of the best size).
    t = _table(rows, "figure4")
    assert [r["buffer"] for r in t] == [1, 2, 4, 8, 16, 32, 64]
    w = [r["wamp"] for r in t]
    assert all(a >= b * (1 - 0.01) for a, b in zip(w, w[1:])), w
    assert w[0] > 1.5 * min(w), w
    assert next(r for r in t if r["buffer"] == 16)["vs_best"] <= 0.05


@pytest.mark.slow
def test_figure5_mdc_lowest_of_the_estimating_algorithms_under_zipf(rows):
    # Figure 5b, 5c: under both Zipf workloads MDC has the lowest Wamp of the algorithms that do
    # not know the frequencies, at every fill factor; under uniform updates greedy is lowest
    # (§6.2.2: age and greedy optimal, MDC pays for its estimates).
    # At this reduced scale MDC's cleaning batch is 16 victims, not 64, and multi-log comes within
    # reach of it under Zipf 0.99 at F = 0.9: there it may be lowest by at most 3% (at full scale
    # MDC is 13% below it; docs/validation.md, Figure 5).
    t = _table(rows, "figure5")
    assert len(t) == 6
    for r in t:
        if r["workload"] == "uniform":
            assert r["lowest"] == "greedy", r
        elif r["lowest"] != "MDC":
            assert (r["workload"], r["lowest"]) == ("zipf:theta=0.99", "multi-log"), r
            assert r["MDC"] <= 1.03 * r["multi-log"], r
