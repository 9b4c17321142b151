"""The placement layer through the Python API: regions against Li et al.'s Theorem 5, oracle
separation against one stream, the write cache, and the configuration's names."""

from __future__ import annotations

import json
import math

import pytest
from reclaim import simulate
from reclaim.api import resolve_optimal_regions
from reclaim.cli import app
from typer.testing import CliRunner

#: Li et al. §5.1's setting (8 × 1024 blocks of 64 pages, S = 0.1, the skewed workload), L = 5M.
LI = dict(segments=8 * 1024, pages_per_segment=64, spare=0.1, policy="greedy", gc="one-free",
          workload="locality:fa=0.1,r=0.8/0.2,f=0.2/0.8", warmup="fill+1x", writes=5_000_000, seed=1)


def test_optimal_shares_are_theorem_5s():
    # Li et al. §5.3: b_c* = (0.432, 0.568) for this workload.
    placement = resolve_optimal_regions({**LI, "placement": "regions:spare=optimal"})["placement"]
    b = [float(x) for x in placement.split("=")[1].split("/")]
    assert b == pytest.approx([0.432, 0.568], abs=1e-3)


def test_regions_follow_fig_7a():
    best = simulate(LI, placement="regions:spare=optimal").cleaning_cost
    worst = simulate(LI, placement="regions:spare=0.862/0.138").cleaning_cost
    oblivious = simulate(LI, policy="gra:d=1").cleaning_cost
    # Fig. 7(a): b_w* = (0.862, 0.138) costs 2.31 × 10⁶ (Theorem 5), within 8% here.
    assert worst == pytest.approx(2.31e6, rel=0.08)
    # ... and the same as locality-oblivious GREEDY ("no performance gain ... under b_w*").
    assert worst == pytest.approx(oblivious, rel=0.08)
    # b_c* costs 0.531 × 10⁶ by Theorem 5; exact greedy lands 9.7% below it (docs/validation.md),
    # past the 8% the issue hoped for, so the bound here is 12%.
    assert best == pytest.approx(0.531e6, rel=0.12)
    # §5.3: grouping with b_c* cuts the cost by a factor of about 4.36 (2.31 / 0.53).
    assert worst / best == pytest.approx(4.36, rel=0.1)


def test_oracle_beats_one_stream_under_hot_cold():
    # Lomet & Luo §3 / §6.1.3: separating hot from cold lowers WA; hot/cold 0.9/0.1, spare 0.1.
    hc = dict(segments=2000, pages_per_segment=64, spare=0.1, policy="greedy", workload="hotcold:r=0.9,f=0.1",
              writes="10x", warmup="fill+5x")
    one, sep = simulate(hc), simulate(hc, placement="oracle")
    assert sep.wa < 0.85 * one.wa, (one.wa, sep.wa)


def test_cache_hit_ratio_and_store_writes():
    r = simulate(segments=256, pages_per_segment=16, spare=0.2, workload="hotcold:r=0.9,f=0.05", cache=64, writes="5x")
    assert 0.0 < r.cache_hit_ratio < 1.0
    # Misses that evicted a page are the store's user writes: at most the workload's misses.
    workload_writes = 5 * r.simulated_logical_pages
    assert r.user_writes <= round((1 - r.cache_hit_ratio) * workload_writes)
    assert len(r.series["cache_hit_ratio"]) == len(r.series["wa"])
    assert math.isnan(simulate(segments=128, pages_per_segment=16, writes="2x").cache_hit_ratio)


def test_cli_json_names_placement_cache_and_hit_ratio():
    res = CliRunner().invoke(app, ["simulate", "--segments", "128", "--pages-per-segment", "16", "--placement", "oracle",
                                   "--workload", "hotcold:r=0.8,f=0.2", "--cache", "8", "--writes", "2x", "--json", "-q"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["config"]["placement"] == "oracle" and d["config"]["cache"] == 8
    assert 0.0 < d["cache_hit_ratio"] < 1.0


@pytest.mark.parametrize("overrides, message", [
    ({"placement": "oracle"}, "a workload whose pages have classes"),
    ({"placement": "regions:spare=0.5/0.6", "workload": "hotcold:r=0.8,f=0.2"}, "shares summing to 1"),
    ({"placement": "regions:spare=1", "workload": "hotcold:r=0.8,f=0.2"}, "one share per written class (2"),
    ({"placement": "regions:spare=0.5/0.5", "workload": "hotcold:r=0.8,f=0.2", "policy": "random"}, "keeps its own index"),
    ({"placement": "oracle", "frontier": "double:copy=random", "workload": "hotcold:r=0.8,f=0.2"}, "alias of `placement`"),
    ({"cache": 0}, "invalid value for `cache`: 0"),
    ({"gc": "batch:low=2,victims=3,sort=stamp"}, "a sort key only with `gather=all`"),
    ({"gc": "max-empty:k=0"}, "invalid value for `gc.k`: 0"),
])
def test_bad_placement_values_name_the_parameter(overrides, message):
    with pytest.raises(ValueError) as e:
        simulate(**{"segments": 128, "pages_per_segment": 16, "writes": "2x", **overrides})
    assert message in str(e.value)


def test_cache_streams_absorb_rewrites_of_waiting_pages():
    # Stockmeyer §2.3: with the streams acting as a cache, a rewrite of a page still in an open
    # stream takes it out, so fewer pages reach sealed segments to be invalidated and moved:
    # under skewed writes the cleaner moves fewer pages than with holes.
    base = dict(segments=256, pages_per_segment=64, spare=0.1, policy="greedy", workload="hotcold:r=0.95,f=0.01",
                warmup="fill+2x", writes="5x")
    hole = simulate(base, streams="hole")
    cache = simulate(base, streams="cache")
    assert hole.user_writes == cache.user_writes
    assert cache.gc_writes < hole.gc_writes
    assert cache.config.streams == "cache"
    with pytest.raises(ValueError, match="`streams`"):
        simulate(base, placement="double:copy=random", streams="cache")


def test_free_empty_frees_emptied_segments_at_once():
    # Stockmeyer §2.2: a segment that empties by itself is collected at utilization 0 at once.
    # Under FIFO with much spare, segments empty before FIFO reaches them; freed at once they
    # postpone cleaning, which then finds emptier victims: 14,595 against 15,154 pages moved
    # here (seeds 2 and 3: 14,531 / 15,128 and 14,513 / 15,141).
    base = dict(segments=256, pages_per_segment=8, spare=0.5, policy="fifo", workload="hotcold:r=0.9,f=0.1",
                warmup="fill+2x", writes="20x")
    wait = simulate(base)
    free = simulate(base, free_empty=True)
    assert free.config.free_empty is True
    assert free.emptied > 0
    assert free.gc_writes < 0.98 * wait.gc_writes
