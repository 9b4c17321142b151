"""`reclaim bench`: the placement rows and the revision comparison's errors."""

from __future__ import annotations

import shutil

import pytest
from reclaim.bench import (
    _INSTRUCTIONS,
    DEVICES,
    FITNESS_TREE,
    MDC,
    PLACEMENTS,
    SCALING,
    compare_instructions,
    compare_revisions,
    measure_placements,
    measure_scaling,
    measure_share,
    measure_timed,
    placement_rows,
    scaling_config,
)
from reclaim.schemes import schemes


def test_every_placement_row_runs_and_amplifies():
    rows = measure_placements(runs=1, writes="0.2x")
    assert list(rows) == [name for name, _ in placement_rows()]
    # Every registered placement has a row, by its name or with its options.
    timed = {str(o.get("placement", "single")).split(":")[0] for _, o in placement_rows()}
    assert timed == {s["name"] for s in schemes("placements")}
    for name, v in rows.items():
        # Every row cleans (WA > 1 at spare 0.10) and reports a speed.
        assert v["wa"] > 1.0, name
        assert v["page_writes_per_second"] > 0, name


def test_compare_names_a_bad_revision():
    with pytest.raises(ValueError, match="`compare`"):
        compare_revisions("no-such-revision-anywhere", runs=1, show=False)
    with pytest.raises(ValueError, match="`runs`"):
        compare_revisions("HEAD", runs=0, show=False)


def test_the_instruction_comparison_names_a_bad_revision_and_its_count_parser_reads_cachegrind():
    if shutil.which("valgrind") is not None:
        with pytest.raises(ValueError, match="`compare`"):
            compare_instructions("no-such-revision-anywhere", show=False)
    # The summary line cachegrind prints on stderr (valgrind 3.x), read as one integer.
    line = "==12832== I   refs:      1,804,228,092"
    m = _INSTRUCTIONS.search(line)
    assert m is not None and int(m.group(1).replace(",", "")) == 1_804_228_092


def test_the_share_of_greedy_names_its_row_and_bounds_its_median():
    share = measure_share(runs=3, writes="0.2x")
    assert share["row"] == FITNESS_TREE and FITNESS_TREE in dict(PLACEMENTS)
    assert share["pairs"] == 3
    assert 0 < share["low"] <= share["median"] <= share["high"]
    with pytest.raises(ValueError, match="`runs`"):
        measure_share(runs=0, writes="0.2x")
    mdc = measure_share(runs=1, writes="0.2x", row=MDC)
    assert mdc["row"] == MDC and MDC in dict(PLACEMENTS) and mdc["median"] > 0


def test_sizes_reports_speed_and_the_memory_of_each_device():
    report = measure_scaling(runs=1, segments="64,16384", policies=["greedy", "fifo"], show=False)
    rows = report["rows"]
    assert [(r["policy"], r["segments"]) for r in rows] == [("greedy", 64), ("greedy", 16384), ("fifo", 64), ("fifo", 16384)]
    for r in rows:
        assert r["engine_page_writes_per_second"] > 0
        assert r["physical_pages"] == 64 * r["segments"]
    # The larger device holds at least its page map (4 B per logical page, 0.9 of the
    # physical ones) and reverse map (4 B per physical page) more: 7.6 B per added page.
    for small, large in ((rows[0], rows[1]), (rows[2], rows[3])):
        added = large["physical_pages"] - small["physical_pages"]
        assert large["engine_peak_rss_bytes"] - small["engine_peak_rss_bytes"] >= 7.6 * added


def test_sizes_names_a_bad_segment_count_and_scales_its_writes():
    for bad in ("12", "abc", "64,,128", str((1 << 26) + 1)):
        with pytest.raises(ValueError, match="`segments`"):
            measure_scaling(runs=1, segments=bad, show=False)
    # Each size takes the warm-up and writes of the first row of SCALING at least as large.
    assert [scaling_config(n, "greedy", 1)["writes"] for n in (64, 10_000, 10_001, 1 << 22, 1 << 23)] == [
        "10x", "10x", "2x", "0.25x", "0.25x"]
    assert scaling_config(1 << 22, "fifo", 3)["warmup"] == "fill+1x"
    assert [s for s, _, _ in SCALING] == [10_000, 100_000, 1_000_000, 1 << 22]


def test_timed_rows_run_each_device_beside_the_same_run_without_one():
    rows = measure_timed(runs=2, writes="0.2x")
    assert list(rows) == [name for name, _, _ in DEVICES] == ["femu", "mqsim"]
    for name, v in rows.items():
        # The device only puts the engine's operations on a clock: the cleaner decides as
        # without it, so the WA is the same number.
        assert v["timed"]["wa"] == v["untimed"]["wa"], name
        assert v["timed"]["page_writes_per_second"] > 0 and v["untimed"]["page_writes_per_second"] > 0
        assert v["low"] <= v["pair_ratio"] <= v["high"]
        assert v["iops"] > 0
    with pytest.raises(ValueError, match="`runs`"):
        measure_timed(runs=0, writes="0.2x")


def test_each_timed_device_has_the_speed_geometrys_64_page_segment():
    from reclaim.models import device

    # channels × dies × planes × pages_per_block: femu 8 × 8 × 1 × 1, mqsim 4 × 8 × 2 × 1.
    assert [device.parse(spec).pages_per_segment for _, spec, _ in DEVICES] == [64, 64]
