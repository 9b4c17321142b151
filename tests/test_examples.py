"""The examples run, and say what the papers say."""

from __future__ import annotations

import runpy
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_compare_policies_double_frontier_helps_d_choices_under_hot_data():
    main = runpy.run_path(str(EXAMPLES / "compare_policies.py"))["main"]
    table = main(segments=256)
    # Van Houdt §4.3: with hot data the double write frontier lowers d-choices' WA markedly.
    assert table[("double:copy=random", "d-choices:d=10")] < 0.9 * table[("single", "d-choices:d=10")]
    # Greedy is no worse than FIFO with one frontier.
    assert table[("single", "greedy")] < table[("single", "fifo")]


def test_regions_vs_theorem5_gap_is_the_hot_regions():
    main = runpy.run_path(str(EXAMPLES / "regions_vs_theorem5.py"))["main"]
    rows = main()
    for name in ("b_c*", "b_w*"):
        # Regions share nothing but the clock: the written regions run alone add up to the
        # whole device within noise.
        assert abs(rows[name]["alone"] / rows[name]["sim"] - 1) < 0.01
    # Li et al. Fig. 7(a): b_w* costs 2.31e6 (Theorem 5); exact greedy is within 8% below.
    assert -0.08 < rows["b_w*"]["sim"] / 2.31e6 - 1 < 0
    # The cold region (S_i ≈ 0.44) is within 8% of Corollary 1, as the locality-oblivious
    # GREEDY of §5.1 is; the roomy hot region (S_i ≈ 0.71) is over 15% below it, because
    # Corollary 1 overstates exact greedy's per-GC cost by about 0.6 pages at every S
    # (docs/validation.md), which is most of a 2.4-page cost.
    assert -0.08 < rows["b_c* region 2"]["sim"] / rows["b_c* region 2"]["model"] - 1 < 0
    assert rows["b_c* region 1"]["sim"] / rows["b_c* region 1"]["model"] - 1 < -0.15
    # Corollary 1 is age-order cleaning's formula (Lomet & Luo eq. 4 with F = 1 − S_i), so FIFO
    # in every region meets it: within 2% per region and for the whole device (measured +0.03%
    # to +1.21%), and the whole device within 2% of Fig. 7(a)'s 0.531e6 and 2.31e6.
    for name, paper in (("fifo b_c*", 0.531e6), ("fifo b_w*", 2.31e6)):
        assert abs(rows[name]["sim"] / rows[name]["model"] - 1) < 0.02
        assert abs(rows[name]["sim"] / paper - 1) < 0.02
        for region in (1, 2):
            row = rows[f"{name} region {region}"]
            assert abs(row["sim"] / row["model"] - 1) < 0.02
