"""Reduced-length reproductions of the seeds' tables (the full-length ones: `make reproduce`)."""

from __future__ import annotations

import pytest
from reclaim.reproduce import REPRODUCTIONS
from reclaim.reproduce.common import published
from reclaim.reproduce.lomet import emptiness_eq4


@pytest.fixture(scope="module")
def table1(results_db):
    return REPRODUCTIONS["vanhoudt-table1"].run(quick=True, db=results_db)


@pytest.fixture(scope="module")
def table2(results_db):
    return REPRODUCTIONS["vanhoudt-table2"].run(quick=True, db=results_db)


def test_vanhoudt_table1_all_rows_within_half_a_percent(table1):
    # Van Houdt Table 1, simulation column (single write frontier, d-choices, N = 10,000).
    assert len(table1) == 12
    for row in table1:
        assert row["ours"] == pytest.approx(row["paper"], rel=5e-3), row


@pytest.mark.slow
def test_vanhoudt_table2_rnd_and_oldest_within_half_a_percent(table2):
    # Van Houdt Table 2, simulation columns RND and OLDEST (double write frontier, N = 50,000).
    assert len(table2) == 12
    for row in table2:
        assert row["ours_rnd"] == pytest.approx(row["paper_rnd"], rel=5e-3), row
        assert row["ours_oldest"] == pytest.approx(row["paper_oldest"], rel=5e-3), row


def test_vanhoudt_table2_oldest_copy_beats_random_copy(table2):
    # Van Houdt §4.2: copying the oldest pages "causes a slight reduction" (0.5% to 3.5%).
    for row in table2:
        assert row["ours_oldest"] < row["ours_rnd"], row


def test_lomet_eq4_agrees_with_the_papers_simulation_column():
    # Lomet & Luo Table 1: the MDC-opt simulation column (= age-based under uniform updates)
    # agrees with the fixed point of eq. 4 within 0.002 at every fill factor.
    for row in published("lomet_table1.csv"):
        assert emptiness_eq4(float(row["F"])) == pytest.approx(float(row["mdc_opt"]), abs=2e-3), row


def test_lomet_printed_e_differs_from_eq4_in_three_cells():
    # The printed E column differs from eq. 4 by more than 0.005 at F = .85 (.29 vs .2842),
    # .65 (.60 vs .6069) and .60 (.67 vs .6758); docs/validation.md records it.
    off = [float(r["F"]) for r in published("lomet_table1.csv") if abs(float(r["E"]) - emptiness_eq4(float(r["F"]))) > 5e-3]
    assert off == [0.85, 0.65, 0.60]
    assert emptiness_eq4(0.80) == pytest.approx(0.3714, abs=1e-4)  # printed .375


def test_lomet_table1_fifo_emptiness_matches_eq4(results_db):
    # Lomet & Luo Table 1: FIFO under uniform writes, 512 pages per segment, F = .50 … .95.
    rows = REPRODUCTIONS["lomet-table1"].run(quick=True, db=results_db)
    assert [r["fill"] for r in rows] == [0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.95]
    for r in rows:
        assert r["ours"] == pytest.approx(r["eq4"], abs=0.005), r


def test_li_greedy_cleaning_cost_within_seven_percent():
    # Li et al. Fig. 6(b): GREEDY cleaning cost 2.314e6 (f = 0.2/0.8) and 1.063e6 (f = 0.8/0.2)
    # over 5M writes (read from li_numbers.csv); §5.1: model and simulation within 7%, for
    # Fig. 5's GRA(d) points too. The full length, since each run takes well under a second.
    rows = REPRODUCTIONS["li-greedy"].run(quick=True)
    fig6b = [r for r in rows if r["table"] == "fig6b"]
    assert len(fig6b) == 2
    for r in fig6b:
        assert r["ours"] == pytest.approx(r["paper"], rel=0.07), r
    fig5 = [r for r in rows if r["table"] == "fig5"]
    assert len(fig5) == 16
    for r in fig5:
        assert r["ours"] == pytest.approx(r["model"], rel=0.07), r
