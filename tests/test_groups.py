"""Placements built on groups (MiDAS, 2R, SSD-iq's schemes): what the engine promises them.

Groups share the free pool and each cleans by its own policy or the run's
(``docs/design.md``, "Groups").
"""

from __future__ import annotations

from typing import Any

import reclaim
from reclaim.cli import app
from typer.testing import CliRunner

SMALL: dict[str, Any] = {"segments": 400, "pages_per_segment": 32, "spare": 0.15, "writes": "2x", "seed": 3}


def test_a_policy_no_group_uses_is_said_not_dropped() -> None:
    # 2r-greedy cleans both its groups by its own greedy (SSD-iq's TwoR.hpp greedyNormal /
    # greedyCold), so `--policy fifo` chooses no victim: the run says so, and its result is the
    # default policy's, bit for bit.
    given = reclaim.simulate(placement="2r-greedy", policy="fifo", workload="hotcold:r=0.9,f=0.1", **SMALL)
    default = reclaim.simulate(placement="2r-greedy", workload="hotcold:r=0.9,f=0.1", **SMALL)
    assert any("--policy fifo" in w and "chooses no victim" in w for w in given.warnings), given.warnings
    assert not any("chooses no victim" in w for w in default.warnings)
    assert given.wa == default.wa


def test_midas_last_group_uses_the_run_policy_without_a_warning() -> None:
    # MiDAS's last group is cleaned by the run's policy (MiDAS-Simulation's vs_policy), so the
    # policy is used and nothing is said; and it changes the result.
    runs = {p: reclaim.simulate(placement="midas", policy=p, workload="zipf:theta=0.99", **{**SMALL, "segments": 1200}) for p in ("greedy", "fifo")}
    assert not any("chooses no victim" in w for r in runs.values() for w in r.warnings)
    assert runs["greedy"].wa != runs["fifo"].wa


def test_groups_write_every_page_they_relocate_and_count_it() -> None:
    # An invariant of every run: WA = (user + GC page writes) / user page writes, with the groups'
    # relocations counted once whatever stream takes them.
    for placement in ("2r-fifo", "2r-greedy", "gen", "2a:heads=4", "midas"):
        r = reclaim.simulate(placement=placement, workload="hotcold:r=0.8,f=0.2", **{**SMALL, "segments": 1200})
        assert r.wa >= 1.0, placement
        assert abs(r.wa - (r.user_writes + r.gc_writes) / r.user_writes) < 1e-9, placement


def test_simulate_prints_midas_predicted_and_measured_waf_per_epoch() -> None:
    # MiDAS-Simulation prints a progress line per window (WAF, TMP_WAF) and the model's
    # `calculated WAF` per epoch (ssdsimul.cpp simul_info, model.cpp): `reclaim simulate` prints
    # the placement's record alike. 2,000 segments × 64 pages at spare 0.1 hold 115,200 logical
    # pages; 8x writes pass MiDAS's epoch of 4 × the device's 128,000 pages at least once.
    res = CliRunner().invoke(
        app,
        [
            "simulate",
            "--placement",
            "midas",
            "--policy",
            "cost-benefit",
            "--workload",
            "zipf:theta=0.99",
            "--segments",
            "2000",
            "--pages-per-segment",
            "64",
            "--spare",
            "0.1",
            "--writes",
            "8x",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "model: predicted" in res.output and "window" in res.output
    plain = CliRunner().invoke(app, ["simulate", "--segments", "400", "--pages-per-segment", "32", "--writes", "2x"])
    assert "the placement's record" not in plain.output
