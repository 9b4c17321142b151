"""2R (2R-greedy, 2R-FIFO) and SSD-iq's greedy variants (greedy-k, greedy-s2r).

The peer figures below come from SSD-iq's simulator (`gabriel-haas/ssdiq`, `sim/`, built here
with clang-16 and libc++ as docs/peers.md says) run at a small setting: `--capacity 256000K
--erase 256K --page 4K --ssdfill 0.9 --pattern zones --zones "s0.9 f0.1 uniform s0.1 f0.9
uniform" --writes 10` (1,000 blocks of 64 pages, hot/cold 90/10, its init phase then 10
logical capacities measured), three runs each (it seeds from `std::random_device`); the mean
of the last row's `cumulativeWAF`.
"""

from __future__ import annotations

from typing import Any

import pytest
import reclaim

#: SSD-iq's simulator at the setting above, three runs each (mean; the runs spread by < 0.1%).
PEER_WA: dict[str, float] = {
    "greedy": 5.9044,  # 5.90456, 5.90515, 5.90357
    "2r-greedy": 4.8663,  # 4.86673, 4.86449, 4.86763
    "2r-fifo": 2.8455,  # 2.84322, 2.84382, 2.84931
    "greedy-s2r": 5.4217,  # 5.42464, 5.41821, 5.42210
    "greedy-k8": 5.9935,  # 5.99041, 5.99348, 5.99660
}

#: The matched reclaim run: its init phase (a sequential fill, then as many pattern writes as
#: physical pages) is the warm-up fill + 64,000 / 57,600 x.
MATCHED: dict[str, Any] = {
    "segments": 1000,
    "pages_per_segment": 64,
    "spare": 0.1,
    "workload": "hotcold:r=0.9,f=0.1",
    "warmup": "fill+1.111111x",
    "writes": "10x",
    "gc": "frontier",
}

#: reclaim's port of each peer scheme.
PORTS: dict[str, dict[str, Any]] = {
    "greedy": {"policy": "greedy"},
    "2r-greedy": {"placement": "2r-greedy"},
    "2r-fifo": {"placement": "2r-fifo"},
    "greedy-s2r": {"placement": "greedy-s2r", "policy": "greedy"},
    "greedy-k8": {"policy": "greedy-k:k=8"},
}

#: How far reclaim's WA may be from the peer's [relative], from the difference measured here
#: (seed 1; docs/schemes-after-sepbit.md, "2R and greedy variants"): greedy -0.1%, greedy-k8
#: -0.9%, greedy-s2r -2.0%, 2R-greedy +0.3%, 2R-FIFO +0.7%, each bound a little wider. Over
#: seeds 1-8 reclaim gives 4.879-4.925 (2R-greedy) and 2.861-2.870 (2R-FIFO), the peer over
#: eight runs 4.860-4.912 and 2.833-2.847: 2R-greedy's difference is the draw, 2R-FIFO's
#: 0.5-1.3% (on one write sequence fed to both, tests/test_ssdiq_trace_side_by_side.py,
#: within 0.6% on five patterns at this setting).
TOLERANCE: dict[str, float] = {"greedy": 0.01, "greedy-k8": 0.015, "greedy-s2r": 0.03, "2r-fifo": 0.015, "2r-greedy": 0.015}


@pytest.mark.parametrize("scheme", sorted(PEER_WA))
def test_agrees_with_ssdiqs_simulator_at_a_small_setting(scheme: str) -> None:
    wa = reclaim.simulate({**MATCHED, **PORTS[scheme], "seed": 1}).wa
    peer = PEER_WA[scheme]
    assert wa == pytest.approx(peer, rel=TOLERANCE[scheme]), f"{scheme}: reclaim {wa:.4f} peer {peer:.4f}"


def test_two_r_below_greedy_and_fifo_below_two_r_greedy() -> None:
    # The paper's ordering (abstract: 2R isolates cold pages that 1R-greedy keeps relocating;
    # 2R-FIFO improves on 2R-greedy), as the peer's figures above also order them.
    wa = {s: reclaim.simulate({**MATCHED, **PORTS[s], "seed": 2}).wa for s in ("greedy", "2r-greedy", "2r-fifo")}
    assert wa["2r-fifo"] < wa["2r-greedy"] < wa["greedy"], wa


def test_greedy_k_is_d_choices_and_greedy_s2r_is_double_oldest() -> None:
    # Aliases: the same spec, so the same run bit for bit (same seed).
    small: dict[str, Any] = {"segments": 300, "pages_per_segment": 16, "spare": 0.15, "warmup": "fill+1x", "writes": "2x", "seed": 5}
    a = reclaim.simulate({**small, "policy": "greedy-k:k=4"})
    b = reclaim.simulate({**small, "policy": "d-choices:d=4"})
    assert (a.wa, a.gc_writes) == (b.wa, b.gc_writes)
    assert a.config.policy == "d-choices:d=4"
    c = reclaim.simulate({**small, "placement": "greedy-s2r"})
    d = reclaim.simulate({**small, "placement": "double:copy=oldest"})
    assert (c.wa, c.gc_writes) == (d.wa, d.gc_writes)
    assert c.config.placement == "double:copy=oldest"


def test_reset_paper_changes_the_run_and_rest_is_named() -> None:
    small: dict[str, Any] = {"segments": 400, "pages_per_segment": 32, "spare": 0.1, "workload": "hotcold:r=0.9,f=0.1",
             "warmup": "fill+1x", "writes": "3x", "seed": 3}
    code = reclaim.simulate({**small, "placement": "2r-fifo"})
    paper = reclaim.simulate({**small, "placement": "2r-fifo:reset=paper"})
    assert code.config.placement == "2r-fifo:util=0.5,depth=0.7,reset=code,rest=normal"
    assert code.gc_writes != paper.gc_writes
    greedy = reclaim.simulate({**small, "placement": "2r-greedy"})
    assert greedy.config.placement == "2r-greedy:tie=oldest,rest=normal"


@pytest.mark.parametrize(
    ("spec", "named"),
    [("2r-fifo:depth=0", "placement.depth"), ("2r-fifo:util=1.5", "placement.util"),
     ("2r-fifo:reset=doc", "placement.reset"), ("2r-greedy:rest=warm", "placement.rest"),
     ("2r-greedy:tie=random", "placement.tie"),
     ("greedy-k:d=3,k=3", "policy")],
)
def test_a_bad_parameter_is_named(spec: str, named: str) -> None:
    family = "policy" if spec.startswith("greedy-k") else "placement"
    with pytest.raises(ValueError, match=named.replace(".", r"\.")):
        reclaim.simulate({"segments": 100, "pages_per_segment": 8, "writes": "1x", family: spec})
