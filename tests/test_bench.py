"""`reclaim bench`: the placement rows and the revision comparison's errors."""

from __future__ import annotations

import pytest
from reclaim.bench import FITNESS_TREE, MDC, PLACEMENTS, compare_revisions, measure_placements, measure_share


def test_every_placement_row_runs_and_amplifies():
    rows = measure_placements(runs=1, writes="0.2x")
    assert list(rows) == [name for name, _ in PLACEMENTS]
    for name, v in rows.items():
        # Every row cleans (WA > 1 at spare 0.10) and reports a speed.
        assert v["wa"] > 1.0, name
        assert v["page_writes_per_second"] > 0, name


def test_compare_names_a_bad_revision():
    with pytest.raises(ValueError, match="`compare`"):
        compare_revisions("no-such-revision-anywhere", runs=1, show=False)
    with pytest.raises(ValueError, match="`runs`"):
        compare_revisions("HEAD", runs=0, show=False)


def test_the_share_of_greedy_names_its_row_and_bounds_its_median():
    share = measure_share(runs=3, writes="0.2x")
    assert share["row"] == FITNESS_TREE and FITNESS_TREE in dict(PLACEMENTS)
    assert share["pairs"] == 3
    assert 0 < share["low"] <= share["median"] <= share["high"]
    with pytest.raises(ValueError, match="`runs`"):
        measure_share(runs=0, writes="0.2x")
    mdc = measure_share(runs=1, writes="0.2x", row=MDC)
    assert mdc["row"] == MDC and MDC in dict(PLACEMENTS) and mdc["median"] > 0
