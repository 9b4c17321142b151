"""ssdiq_plus's other schemes (`opt`, `gen`, `2a`/`tt`, `deathtime`) and the 2a closed form
(`reclaim.models.ssdiq`, after `sim/TwoAFormula.hpp` of `LeeBohyun/ssdiq_plus`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import reclaim
from reclaim import traces
from reclaim.models import ssdiq


def test_two_groups_by_hand():
    # newOptWA at F = 0.9 for writes 80 : 20, by hand from TwoAFormula.hpp's expressions:
    # calc2aSolution(0.8) = (0.8 − √0.16) / 0.6 = 2/3, so the spare splits 2/3 : 1/3; the fills
    # are 0.45 / (0.45 + 0.1·2/3) = 27/31 and 0.45 / (0.45 + 0.1/3) = 27/29, and
    # WA = 0.8 / (2·4/31) + 0.2 / (2·2/29) = 3.1 + 1.45 = 4.55.
    assert ssdiq.two_a_split(0.8) == pytest.approx(2 / 3, rel=1e-12)
    t = ssdiq.two_a(0.9, [80, 20])
    assert t.shares == pytest.approx((2 / 3, 1 / 3), rel=1e-12)
    assert t.fills == pytest.approx((27 / 31, 27 / 29), rel=1e-12)
    assert t.wa == pytest.approx(4.55, rel=1e-12)


def test_shares_are_square_roots_of_the_write_shares():
    # compute_a and the chain of factors √(wᵢ/wᵢ₊₁) give share i = √wᵢ / Σ√w (algebra on
    # TwoAFormula.hpp's expressions); the WA is then Σ wᵢ (F/n + (1 − F)sᵢ) / (2(1 − F)sᵢ).
    w = [0.70, 0.15, 0.10, 0.05]
    t = ssdiq.two_a(0.9, w)
    root = sum(math.sqrt(x) for x in w)
    assert t.shares == pytest.approx([math.sqrt(x) / root for x in w], rel=1e-12)
    by_hand = sum(x * (0.9 / 4 + 0.1 * s) / (2 * 0.1 * s) for x, s in zip(w, t.shares))
    assert t.wa == pytest.approx(by_hand, rel=1e-12)
    # The simulator's own newOptWA, compiled from ssdiq_plus's TwoAFormula.hpp and run here on
    # the same shares, printed 3.999836167254.
    assert t.wa == pytest.approx(3.999836167254, abs=1e-11)


def test_equal_writes_give_greedy_s_approximation():
    # Equal groups take equal spare: every fill is F, and the WA 1/(2(1 − F)) = 4 at F = 0.875.
    t = ssdiq.two_a(0.875, [3, 3, 3, 3])
    assert t.shares == pytest.approx((0.25,) * 4)
    assert t.wa == pytest.approx(4.0, rel=1e-12)
    assert ssdiq.greedy_approx_wa(0.875) == 4.0


def test_opt_histogram_and_hot_cold_shares():
    # OptimalGC::stats: counts sorted (9 5 3 1 0 0), buckets of 2 pages: 14, 4, 0 → 1.
    assert ssdiq.opt_histogram([5, 0, 1, 9, 0, 3], 3) == [14, 4, 1]
    # Hot/cold 90/10 in 4 groups: the hot tenth and 0.15 of the pages' cold ones in group 0.
    w = ssdiq.hot_cold_writes(0.9, 0.1, 4)
    assert w[0] == pytest.approx(0.9 + 0.15 * 0.1 / 0.9, rel=1e-12)
    assert w[1:] == pytest.approx([0.25 * 0.1 / 0.9] * 3, rel=1e-12)
    # The simulator's newOptWA on these shares at F = 0.9, compiled and run here: 2.889605496226.
    assert ssdiq.two_a(0.9, w).wa == pytest.approx(2.889605496226, abs=1e-11)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ssdiq.two_a(1.0, [1, 1]), "`fill`: 1.0"),
        (lambda: ssdiq.two_a(0.9, [1, 0]), "`writes`"),
        (lambda: ssdiq.opt_histogram([1], 0), "`groups`: 0"),
    ],
)
def test_bad_values_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _run(placement: str, workload: str, spare: float = 0.125, **kw):
    cfg = {"segments": 1000, "pages_per_segment": 64, "spare": spare, "placement": placement,
           "workload": workload, "warmup": "fill+4x", "writes": "4x", "seed": 1}
    cfg.update(kw)
    return reclaim.simulate(cfg)


def test_opt_writes_less_than_greedy_on_hot_cold():
    # SSD-iq's claim for opt: separating pages by rate with the 2a shares of the spare beats one
    # stream under greedy. Measured here (seed 1, 1,000 × 64 pages, spare 0.125): single 4.957, opt 2.762.
    single = _run("single", "hotcold:r=0.9,f=0.1").wa
    opt = _run("opt:groups=4", "hotcold:r=0.9,f=0.1").wa
    assert opt < single


def test_opt_is_below_greedy_on_zipf():
    # SSD-iq's claim that the oracle is the lower bound, on a Zipf workload (one class): opt
    # ranks pages by their exact Zipf rates. Measured here (seed 1, 1,000 × 64 pages, spare
    # 0.125, θ = 1.0): single 5.690, opt:groups=4 3.060, 46.2% below (seeds 2 and 3: 3.063
    # against 5.684, 3.059 against 5.692); held at 35% below or more. (Ranked by first write,
    # as opt ranked a Zipf workload's one class before, it ran 4.582 here, 19.5% below.)
    single = _run("single", "zipf:theta=1.0", policy="greedy").wa
    opt = _run("opt:groups=4", "zipf:theta=1.0").wa
    assert opt < 0.65 * single, (opt, single)


def test_opt_ranks_a_trace_by_its_counts(tmp_path):
    # A trace without classes: 56,000 pages written once in order, then 560,000 single-page
    # writes, 90% of them to a scattered tenth of the pages, the rest uniform over all. First
    # writes are in page order, which says nothing of a page's heat; opt ranks each page by its
    # count in the trace (Optimal.hpp's histogram), so the hot tenth shares a group. Measured
    # here (seed 1, 64-page segments, spare 0.125, the device sized from the trace's pages):
    # single 4.841, opt:groups=4 2.557, 47.2% below; held at 35% below or more. (Ranked by
    # first write, as opt ranked a trace without classes before, it ran 4.436 here, 8.4% below.)
    rng = np.random.default_rng(7)
    n, w = 56_000, 560_000
    hot = rng.permutation(n)[: n // 10]
    pick = rng.random(w) < 0.9
    pages = np.where(pick, hot[rng.integers(0, len(hot), w)], rng.integers(0, n, w))
    path = tmp_path / "hot-cold.rtr"
    traces.write_pages(np.concatenate([np.arange(n), pages]).astype(np.uint32), path)
    cfg = {"pages_per_segment": 64, "spare": 0.125, "workload": f"trace:{path}", "seed": 1}
    single = reclaim.simulate({**cfg, "placement": "single", "policy": "greedy"}).wa
    opt = reclaim.simulate({**cfg, "placement": "opt:groups=4"}).wa
    assert opt < 0.65 * single, (opt, single)


def test_two_a_on_uniform_writes_is_near_its_closed_form():
    # Uniform writes give every head the same writes, so the closed form is greedy's
    # approximation 1/(2(1 − F)) = 4.0 at F = 0.875. Measured here (seed 1, 4,000 × 64 pages):
    # 4.017, +0.4% (+5.8% on 1,000 segments, where the 8 open streams and the reserve of 7 take
    # 12% of the spare); held within 1%.
    r = _run("2a:heads=4", "uniform", segments=4000)
    model = ssdiq.two_a(0.875, [1, 1, 1, 1]).wa
    assert abs(r.wa - model) / model < 0.01


def test_tt_is_two_a_cleaning_greedily():
    r = _run("tt:heads=3", "hotcold:r=0.9,f=0.1", writes="1x")
    assert str(r.config.placement) == "2a:heads=3,clean=greedy"
    assert r.wa > 1.0


def test_gen_and_deathtime_run():
    for placement in ("gen", "deathtime", "deathtime:victim=edt"):
        r = _run(placement, "hotcold:r=0.9,f=0.1", writes="1x")
        assert r.wa > 1.0, placement
