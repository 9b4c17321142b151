"""`reclaim bench`: the placement rows and the revision comparison's errors."""

from __future__ import annotations

import pytest
from reclaim.bench import PLACEMENTS, compare_revisions, measure_placements


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
