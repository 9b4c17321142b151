"""Stockmeyer's log-structured array through the Python API and the CLI: the age-threshold and
fitness policies, age-sorted streams, and the stand-in for the snake trace."""

from __future__ import annotations

import json

import numpy as np
import pytest
from reclaim import simulate, traces
from reclaim.cli import app
from typer.testing import CliRunner

BASE = dict(segments=600, pages_per_segment=20, spare=0.2, workload="hotcold:r=0.9,f=0.1", warmup="fill+2x",
            writes="5x", gc="max-empty:k=1", free_empty=True, seed=2)


def test_names_round_trip_through_the_config():
    r = simulate(BASE, policy="fitness:buckets=10,sort=fifo", placement="age-sorted:dtg_sort=2", streams="cache")
    assert r.config.policy == "fitness:at=0,buckets=10,sort=fifo,age=all"
    assert r.config.placement == ("age-sorted:dtg_exp=4,fsc_exp=4,dtg_sort=2,fsc_sort=4,dtg_decay=10,fsc_decay=10,"
                                     "decay_rule=exp2,split=median")
    # `nat=heuristic` is 0.5·(1 − ASU) (Menon & Stockmeyer §18): shown as given, resolved on the geometry.
    assert simulate(BASE, policy="age-threshold").config.policy == "age-threshold:nat=heuristic,buckets=exact,sort=fifo,age=all"


def test_age_threshold_zero_is_greedy_fifo():
    # Exact buckets in Fifo order with AT = 0 are greedy with Fifo ties, bit for bit (tests/lsa.rs).
    a = simulate(BASE, policy="greedy:tie=fifo")
    b = simulate(BASE, policy="age-threshold:at=0")
    assert (a.gc_writes, a.erases, a.collected) == (b.gc_writes, b.erases, b.collected)


def test_age_sorted_streams_beat_one_stream_under_hot_cold_writes():
    # Stockmeyer §3 item 5: sorting by age lowers GCU and work; hot/cold writes have the age
    # structure that sorting exploits.
    one = simulate(BASE, policy="fitness:buckets=10,sort=fifo", placement="age-sorted:dtg_exp=0,fsc_exp=0")
    sorted_ = simulate(BASE, policy="fitness:buckets=10,sort=fifo", placement="age-sorted")
    assert sorted_.work_rd_live < one.work_rd_live
    assert sorted_.gcu < one.gcu


@pytest.mark.parametrize("spec, param", [
    ("fitness:buckets=0", "policy.buckets"),
    ("age-threshold:nat=1.5", "policy.nat"),
    ("age-threshold:at=3,nat=0.1", "policy"),
    ("fitness:sort=heap", "policy.sort"),
    ("age-threshold:requeue=never", "policy.requeue"),
])
def test_bad_policy_arguments_are_named(spec, param):
    with pytest.raises(ValueError, match=param.replace(".", r"\.")):
        simulate(BASE, policy=spec)


def test_bad_placement_arguments_are_named():
    with pytest.raises(ValueError, match=r"placement\.dtg_sort.*\[0, 2\]"):
        simulate(BASE, placement="age-sorted:dtg_exp=2,dtg_sort=3")
    with pytest.raises(ValueError, match=r"placement\.split"):
        simulate(BASE, placement="age-sorted:split=mode")


def test_stand_in_is_calibrated(tmp_path):
    # Stockmeyer §2.3: LRU hit ratios 0.223 (1 track) and 0.950 (320 tracks) over the working
    # trace, 36,607 tracks. A reduced run (1M writes, 5,000 tracks) keeps the two ratios.
    meta = traces.stand_in(tmp_path / "s.rtr", seed=3, model="stack", tracks=5_000, writes=1_000_000)
    assert meta["unique_pages"] == 5_000 and meta["pages_written"] == 1_000_000
    r = simulate(workload=f"trace:{tmp_path / 's.rtr'}", segments=400, pages_per_segment=20, cache=1,
                 method="stockmeyer", warmup="fill+1x+15%", policy="greedy")
    assert r.cache_hit_ratio == pytest.approx(0.223, abs=0.005)
    r = simulate(workload=f"trace:{tmp_path / 's.rtr'}", segments=400, pages_per_segment=20, cache=320,
                 method="stockmeyer", warmup="fill+1x+15%", policy="greedy")
    assert r.cache_hit_ratio == pytest.approx(0.950, abs=0.005)
    with pytest.raises(ValueError, match="p_near"):
        traces.stand_in(tmp_path / "t.rtr", model="stack", p_near=0.9999)
    with pytest.raises(ValueError, match="skew"):
        traces.stand_in(tmp_path / "t.rtr", skew=-1.0)
    with pytest.raises(ValueError, match="invalid value for `model`"):
        traces.stand_in(tmp_path / "t.rtr", model="zipf")


def test_cli_stand_in(tmp_path):
    out = tmp_path / "snake.rtr"
    res = CliRunner().invoke(app, ["trace", "stand-in", "-o", str(out), "--tracks", "100", "--writes", "5000", "--json"])
    assert res.exit_code == 0, res.output
    meta = json.loads(res.output)
    assert meta["unique_pages"] == 100 and meta["pages_written"] == 5000
    pages = np.fromfile(out, dtype=np.uint8)
    assert pages.size > 5000 * 4
