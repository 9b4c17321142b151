"""Runs that stop when they know enough (`precision`): the batch-means interval and the stopping
rule (docs/experiments.md, "Runs that stop when they know enough")."""

from __future__ import annotations

import numpy as np
import pytest
from reclaim import SimConfig, simulate
from reclaim.experiments.batch import results
from scipy import stats

#: A small hot/cold run whose windows are a tenth of the logical capacity.
BASE = dict(segments=256, pages_per_segment=32, spare=0.1, policy="greedy", workload="hotcold:r=0.9,f=0.1",
            warmup="fill+5x", window=736)


def ratio_interval(y: np.ndarray, x: np.ndarray, s: int) -> tuple[float, float, int, float]:
    """The ratio estimator's 95% batch-means interval over batches of ``s`` windows, computed
    afresh: R = ΣY/ΣX, dᵢ = Yᵢ − R·Xᵢ, half-width t₀.₉₇₅,ₙ₋₁ · √(Σd²/(n − 1)/n) / X̄; and the
    residuals' lag-1 autocorrelation."""
    n = len(y) // s
    yb = y[: n * s].reshape(n, s).sum(1)
    xb = x[: n * s].reshape(n, s).sum(1)
    r = yb.sum() / xb.sum()
    d = yb - r * xb
    return r, stats.t.ppf(0.975, n - 1) * np.sqrt((d @ d) / (n - 1) / n) / xb.mean(), n, (d[:-1] @ d[1:]) / (d @ d)


def test_a_run_stops_at_the_first_batch_end_that_meets_its_target():
    r = simulate(**BASE, writes="200x", precision="wa:rel=0.01")
    iv = r.interval
    assert iv is not None and iv["metric"] == "wa" and iv["reached"] is True
    # It stopped at a batch end well before the cap, every window whole.
    windows = len(r.series["wa"])
    assert r.user_writes == windows * 736 < 200 * r.simulated_logical_pages
    assert 20 <= iv["batches"] <= 39 and windows == iv["batches"] * iv["windows_per_batch"]
    assert iv["half_width"] <= 0.01 * iv["value"]
    # The reported WA is the batches' estimate, and the interval is the closed form's.
    u = np.asarray(r.series["user_writes"], float)
    g = np.asarray(r.series["gc_writes"], float)
    value, half, n, lag1 = ratio_interval(u + g, u, iv["windows_per_batch"])
    assert iv["value"] == pytest.approx(r.wa, rel=1e-12) == pytest.approx(value, rel=1e-12)
    assert iv["half_width"] == pytest.approx(half, rel=1e-4) and n == iv["batches"]
    assert iv["lag1"] == pytest.approx(lag1, abs=1e-9) and lag1 < 1.96 / np.sqrt(n)
    # At every batch end before, the target was not met (else it would have stopped there).
    for k in range(20, windows):
        s = batch_size(k)
        if k % s == 0:
            v0, h0, n0, l0 = ratio_interval((u + g)[:k], u[:k], s)
            assert h0 > 0.01 * v0 or l0 >= 1.96 / np.sqrt(n0), k


def batch_size(windows: int) -> int:
    """Windows per batch: the largest power of two leaving at least 20 batches."""
    s = 1
    while windows // (2 * s) >= 20:
        s *= 2
    return s


def test_the_stop_is_the_same_on_every_run():
    a = simulate(**BASE, writes="200x", precision="wa:rel=0.01", seed=3)
    b = simulate(**BASE, writes="200x", precision="wa:rel=0.01", seed=3)
    assert (a.user_writes, a.gc_writes) == (b.user_writes, b.gc_writes)


def test_a_target_out_of_reach_runs_to_the_cap_and_says_so():
    r = simulate(**BASE, writes="3x", precision="wa:rel=0.00001")
    assert r.user_writes == 3 * r.simulated_logical_pages
    assert r.interval is not None and r.interval["reached"] is False


def test_emptiness_is_held_to_an_absolute_half_width():
    r = simulate(**{**BASE, "workload": "uniform", "policy": "fifo"}, writes="200x", precision="emptiness_at_clean:abs=0.005")
    iv = r.interval
    assert iv["metric"] == "emptiness_at_clean" and iv["reached"] is True and iv["half_width"] <= 0.005
    # E = 1 − G/(b·collected) over the batches: the result's own emptiness.
    assert iv["value"] == pytest.approx(r.emptiness_at_clean, rel=1e-12)


def test_without_precision_a_long_run_reports_wa_interval_and_a_short_one_none():
    long = simulate(**BASE, writes="4x")  # 40 windows of a tenth
    assert long.interval["metric"] == "wa" and long.interval["reached"] is None
    assert long.interval["batches"] == 20 and long.interval["windows_per_batch"] == 2
    short = simulate(**BASE, writes="1x")  # 10 windows: too few
    assert short.interval is None


def test_the_interval_covers_the_long_run_value_about_95_percent_of_the_time():
    # 40 independent short runs (seeds 1 … 40) against one run 50 times as long: an honest 95%
    # interval misses in about 2 of 40; missing in 9 or more has binomial probability < 1e-4.
    truth = simulate(**BASE, writes="300x", seed=1000).wa
    missed = 0
    for seed in range(1, 41):
        iv = simulate(**BASE, writes="6x", seed=seed).interval
        missed += abs(iv["value"] - truth) > iv["half_width"]
    assert missed <= 8, missed


def test_precision_is_kept_in_the_results_database(tmp_path):
    db = tmp_path / "r.duckdb"
    (m,) = results([SimConfig(**BASE, writes="200x", precision="wa:rel=0.01")], sweep="t", db=db)
    assert m.interval_metric == "wa" and m.interval_reached is True and m.interval_half_width <= 0.01 * m.wa
    assert m.precision == "wa:rel=0.01"


@pytest.mark.parametrize(
    ("value", "needle"),
    [("wa:rel=0", "METRIC:rel=X"), ("waf:rel=0.1", "METRIC:rel=X"), ("wa:rel=2", "rel below 1"), ("wa", "METRIC:rel=X")],
)
def test_a_bad_precision_names_the_parameter_and_the_form(value, needle):
    with pytest.raises(ValueError, match="precision") as e:
        simulate(**BASE, writes="2x", precision=value)
    assert needle in str(e.value)


def test_precision_with_a_trace_is_refused(tmp_path):
    trace = tmp_path / "t.txt"
    trace.write_text("".join(f"{i % 50}\n" for i in range(2000)))
    with pytest.raises(ValueError, match="precision.*trace"):
        simulate(pages_per_segment=8, workload=f"trace:{trace}", precision="wa:rel=0.01")
