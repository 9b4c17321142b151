"""The Python API: names, overrides, errors, determinism, arrays."""

from __future__ import annotations

import json

import numpy as np
import pytest
import reclaim
from hypothesis import given, settings
from hypothesis import strategies as st
from reclaim import SimConfig, _core, simulate

METRICS = [
    "user_writes", "gc_writes", "erases", "wa", "wamp", "cleaning_cost", "emptiness_at_clean", "gcu",
    "collected", "emptied", "work_rd_live", "work_rd_all", "wear_leveling_index", "erase_counts",
    "victim_valid_histogram", "segment_valid_histogram", "series", "seconds",
    "user_writes_per_second", "page_writes_per_second", "config",
]

SMALL = dict(segments=128, pages_per_segment=16, spare=0.2, warmup="fill+2x", writes="5x")


def test_result_has_every_metric_name():
    r = simulate(**SMALL)
    for name in METRICS:
        assert hasattr(r, name), name
    # Definitions (DESIGN "Metrics"): wa = (U + G) / U, wamp = G / U, cleaning_cost = G.
    assert r.wa == pytest.approx((r.user_writes + r.gc_writes) / r.user_writes)
    assert r.wamp == pytest.approx(r.gc_writes / r.user_writes)
    assert r.cleaning_cost == r.gc_writes
    assert r.user_writes == 5 * r.simulated_logical_pages
    # Stockmeyer §2.2: WorkRdLive = 2 × SegTrkCount × GCU × CltdCount = 2G.
    assert r.work_rd_live == pytest.approx(2 * r.gc_writes)
    assert r.work_rd_all == pytest.approx(r.gc_writes + 16 * (r.collected - r.emptied))
    # Histograms have b + 1 bins of counts; victims counted once each; fractions sum to 1.
    assert r.victim_valid_histogram.shape == (17,)
    assert r.victim_valid_histogram.sum() == r.collected
    assert (r.victim_valid_histogram * np.arange(17)).sum() == r.gc_writes
    assert r.victim_valid_fractions().sum() == pytest.approx(1.0)
    assert r.segment_valid_fractions().sum() == pytest.approx(1.0)
    # Counts: each cleaning epoch (one per victim) counts the sealed segments, at least the victim
    # itself and at most all N = 128 of them.
    assert r.segment_valid_histogram.dtype.kind in "iu"
    assert r.collected <= r.segment_valid_histogram.sum() <= 128 * r.collected
    assert r.erase_counts.sum() == r.erases
    assert r.series["user_writes"].sum() == r.user_writes
    assert r.series["gc_writes"].sum() == r.gc_writes


def test_config_object_and_overrides():
    base = SimConfig(segments=128, pages_per_segment=16, policy="fifo", writes="3x", warmup="fill+1x")
    r = simulate(base, policy="greedy")
    assert r.config.policy == "greedy:tie=random"
    assert r.config.segments == 128


def test_same_seed_same_result_other_seed_differs():
    a = simulate(**SMALL, policy="d-choices:d=4", seed=7)
    b = simulate(**SMALL, policy="d-choices:d=4", seed=7)
    c = simulate(**SMALL, policy="d-choices:d=4", seed=8)
    assert a.gc_writes == b.gc_writes and np.array_equal(a.erase_counts, b.erase_counts)
    assert a.gc_writes != c.gc_writes


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"spare": 1.5}, "invalid value for `spare`: 1.5 (expected a number in (0, 1))"),
        ({"policy": "greedy:d=3"}, "unknown argument `d`"),
        ({"policy": "lfu"}, "invalid value for `policy`: `lfu`"),
        ({"workload": "hotcold:r=0.8"}, "`f=` (a number in (0, 1)) to be given"),
        ({"segments": 2}, "invalid value for `segments`: 2 (expected a whole number ≥ 4)"),
        ({"writes": "ten"}, "invalid value for `writes`: `ten`"),
        ({"frontier": "triple"}, "invalid value for `frontier`"),
        ({"gc": "batch:low=0"}, "invalid value for `gc.low`: 0"),
        ({"spare": 0.1, "fill": 0.8}, "only one of `spare`, `fill` and `logical_pages`"),
    ],
)
def test_bad_values_name_parameter_value_and_range(overrides, message):
    with pytest.raises(ValueError) as e:
        simulate(**{**SMALL, **overrides})
    assert message in str(e.value)


def test_an_unknown_parameter_is_a_type_error():
    # As Python itself treats an unexpected keyword argument.
    with pytest.raises(TypeError, match="unknown parameter `segmnts`"):
        simulate(**{**SMALL, "segmnts": 8})


def test_progress_callback_reaches_total():
    seen = []
    simulate(**SMALL, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1][0] == seen[-1][1] == round(128 * 16 * 0.8) * (1 + 2 + 5)  # fill, 2x warm-up, 5x measured


def test_to_dict_is_json():
    r = simulate(**SMALL)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["config"]["segments"] == 128
    assert len(d["erase_counts"]) == 128


def test_version():
    assert reclaim.__version__ == "0.1.0"


POLICIES = ["fifo", "greedy", "greedy:tie=random", "random", "d-choices:d=3", "gra:d=2", "windowed:w=4", "cost-benefit"]
FRONTIERS = ["single", "double:copy=random", "double:copy=oldest"]
GCS = ["frontier", "one-free", "batch:low=2,victims=2"]
WORKLOADS = ["uniform", "hotcold:r=0.8,f=0.2", "locality:fa=0.5,r=0.8/0.2,f=0.2/0.8", "zipf:theta=1.2"]


@settings(max_examples=60, deadline=None)
@given(
    segments=st.integers(12, 60),
    pps=st.integers(2, 16),
    spare=st.floats(0.15, 0.5),
    policy=st.sampled_from(POLICIES),
    frontier=st.sampled_from(FRONTIERS),
    gc=st.sampled_from(GCS),
    workload=st.sampled_from(WORKLOADS),
    seed=st.integers(0, 2**63),
    chunk=st.integers(1, 300),
)
def test_engine_invariants_hold_through_the_bindings(segments, pps, spare, policy, frontier, gc, workload, seed, chunk):
    """Every logical page in exactly one slot, valid counts = reverse map, free + open + sealed =
    segments (checked by the engine after every step), and wa ≥ 1."""
    cfg = dict(segments=segments, pages_per_segment=pps, spare=spare, policy=policy, frontier=frontier,
               gc=gc, workload=workload, seed=seed, warmup="fill+1x", writes="2x")
    try:
        sim = _core.Simulator(json.dumps(cfg))
    except ValueError as e:
        assert "at most" in str(e)  # geometry too tight for the open and free segments
        return
    while sim.step(chunk):
        sim.check()
    r = sim.result()
    assert r["wa"] >= 1.0
