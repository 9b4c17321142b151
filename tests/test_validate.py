"""`reclaim validate --quick`: every model beside the simulator, within the seeds' claims."""

from __future__ import annotations

from pathlib import Path

import pytest
from reclaim.cli import app
from typer.testing import CliRunner


@pytest.mark.slow
def test_validate_quick_all_within_tolerance_and_plot_written(tmp_path: Path, results_db: Path):
    # Tolerances: Van Houdt 0.2% (model vs simulation); Li et al. 7% (their §5.1 claim);
    # Theorem 5 vs FIFO in each region 2% (Corollary 1 is eq. 4's age-order formula);
    # Lomet & Luo FIFO 0.005 absolute in E (eq. 4). Greedy under Lomet's setting and in Li et
    # al.'s regions is shown, not held.
    plot = tmp_path / "validation.png"
    res = CliRunner().invoke(app, ["validate", "--quick", "--plot", str(plot), "--json", "--db", str(results_db)])
    assert res.exit_code == 0, res.output
    import json

    rows = json.loads(res.stdout[: res.stdout.rindex("]") + 1])
    # … then the device's: M/D/1 (2 devices × 3 ρ × mean, p99), saturation (2 × 2), MVA (3).
    assert len(rows) == 12 + 12 + 16 + 4 + 20 + 12 + 4 + 3 + 6  # … and SSD-iq's 2a form: 2 (2a) + 4 (opt)
    regions = {(r["group"], r["setting"]): r["rel"] for r in rows if r["group"].startswith("Li et al. Fig. 7(a)")}
    # Exact greedy lands below Theorem 5 at both allocations (docs/validation.md: −10% and −5.6%).
    assert regions[("Li et al. Fig. 7(a) (greedy)", "b_c*")] < -0.05
    assert regions[("Li et al. Fig. 7(a) (greedy)", "b_w*")] < -0.03
    for r in rows:
        # JSON has no infinity: a tolerance of ∞ (no claim made) is written as null.
        assert r["tolerance"] is None or abs(r["rel"]) <= float(r["tolerance"]), r
    assert plot.stat().st_size > 10_000 and plot.read_bytes()[:4] == b"\x89PNG"
