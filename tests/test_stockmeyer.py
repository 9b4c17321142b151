"""`reclaim reproduce stockmeyer --quick`: every experiment of Stockmeyer's report (seed 000) on the
stand-in for the snake trace, beside the transcribed figures, with the report's observations
checked on its own numbers and on ours."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from reclaim.cli import app
from reclaim.reproduce.stockmeyer_observations import OBSERVATIONS, observations
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The quick reproduction through the command line, with its figures."""
    tmp = tmp_path_factory.mktemp("stockmeyer")
    res = CliRunner().invoke(app, ["reproduce", "stockmeyer", "--quick", "--json", "--db", str(tmp / "r.duckdb"),
                                   "--figures", str(tmp / "fig")])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), tmp


def _table(rows, name):
    return [r for r in rows if r["table"] == name]


def test_grids_are_transcribed_from_the_seed_unchanged(shared_dir, tmp_path):
    # The transcription script regenerates the shipped grids from the seed's text byte for byte.
    shipped = resources.files("reclaim.reproduce").joinpath("data", "stockmeyer_grids.csv").read_text()
    seed = next((shared_dir / "seeds").glob("000_*.txt"))
    out = tmp_path / "grids.csv"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "transcribe_stockmeyer.py"), str(seed), str(out)], check=True,
                   capture_output=True)
    assert out.read_text() == shipped
    # Spot checks against the report: Figure 5 (a) Fifo (4, 4) is Figure 1's fitness-fifo row.
    rows = [ln.split(",") for ln in shipped.splitlines() if ln and not ln.startswith("#")]
    cell = next(r for r in rows if r[:6] == ["5", "N", "1", "fifo", "4", "4"])
    assert cell[6:] == ["0.183", "65.0", "480.0"]
    assert len(rows) == 1 + 30 * 25 + 4 * 25  # header, 30 tables (Figures 13 and 20 hold two each)


def test_every_figure_has_its_cells_and_the_published_numbers(run):
    rows, _ = run
    assert len(_table(rows, "figure1")) == 28 and len(_table(rows, "figure2")) == 8
    for fig, tables in ((5, 4), (6, 2), (10, 4), (13, 4), (14, 4), (17, 4), (20, 4), (21, 4), (22, 4)):
        assert len(_table(rows, f"figure{fig}")) == 25 * tables, fig
    # Figure 1's published fitness-fifo row (N, 1) beside ours.
    r = next(r for r in _table(rows, "figure1") if (r["unwritten"], r["algorithm"], r["cache"], r["sorting"]) == ("N", "fitness", 1, "fifo"))
    assert (r["paper_gcu"], r["paper_wrl_k"], r["paper_wra_k"], r["paper_empty_k"]) == (0.183, 480, 1094, 22.7)
    assert 0 < r["gcu"] < 1 and r["wrl_k"] > 0


def test_stand_in_has_the_snakes_hit_ratios(run):
    # §2.3: LRU hit ratios 0.223 (one track) and 0.950 (320 tracks) over the working trace.
    t = _table(run[0], "trace")[0]
    assert abs(t["hit_ratio_1"] - 0.223) <= 0.005 and abs(t["hit_ratio_320"] - 0.950) <= 0.005


def test_comparisons_are_the_grids_percentages(run):
    # Figure 6 is (Tree − Fifo) / Fifo of Figure 5's cells; Figure 13's optimal-AT GCU is Figure 10's.
    rows = run[0]
    f5 = {(r["cache"], r["variant"], r["dtg"], r["fsc"]): r for r in _table(rows, "figure5")}
    for r in _table(rows, "figure6"):
        tree, fifo = f5[(r["cache"], "tree", r["dtg"], r["fsc"])], f5[(r["cache"], "fifo", r["dtg"], r["fsc"])]
        assert math.isclose(r["gcu_pct"], 100 * (tree["gcu"] - fifo["gcu"]) / fifo["gcu"], rel_tol=1e-9)
        assert math.isclose(r["wrl_pct"], 100 * (tree["wrl_k"] - fifo["wrl_k"]) / fifo["wrl_k"], rel_tol=1e-9)
    f10 = {(r["cache"], r["variant"], r["dtg"], r["fsc"]): r for r in _table(rows, "figure10")}
    for r in _table(rows, "figure13"):
        at, fifo = f10[(r["cache"], r["variant"], r["dtg"], r["fsc"])], f5[(r["cache"], "fifo", r["dtg"], r["fsc"])]
        assert math.isclose(r["gcu_pct"], 100 * (at["gcu"] - fifo["gcu"]) / fifo["gcu"], rel_tol=1e-9)
    # The best NAT can only improve on NAT 0.10, measure by measure.
    for (cache, v, d, f), r in f10.items():
        if v == "optimal":
            assert r["gcu"] <= f10[(cache, "nat.10", d, f)]["gcu"] and r["wrl_k"] <= f10[(cache, "nat.10", d, f)]["wrl_k"]


def test_ten_passes_add_up(run):
    rows = run[0]
    f3 = _table(rows, "figure3")
    assert len(f3) == 12
    for r in f3:
        by_pass = r["wrl_k_by_pass"]
        assert len(by_pass) == 10 and all(x > 0 for x in by_pass)
        assert math.isclose(r["improvement_wrl"], 100 * (by_pass[0] - by_pass[-1]) / by_pass[0], rel_tol=1e-9)
        # Goals exist for the rows with unwritten tracks only, as in the report.
        assert (r["goal_wrl_k"] is not None) == (r["unwritten"] == "Y")
    q = _table(rows, "quarters")[0]
    ten = next(r for r in f3 if (r["algorithm"], r["unwritten"], r["cache"], r["sort_exp"]) == ("fitness", "Y", 1, 4))
    # The first two passes are the first eight quarters.
    assert math.isclose(sum(q["wrl_k"][:4]), ten["wrl_k_by_pass"][0], rel_tol=1e-9)
    assert math.isclose(sum(q["wrl_k"][4:]), ten["wrl_k_by_pass"][1], rel_tol=1e-9)


def test_every_observation_holds_on_the_reports_own_numbers(run):
    # Each check is a reading of the report's statement; it must accept the report's numbers.
    checked = observations(run[0], paper=True)
    assert [o["item"] for o in checked] == [item for item, _, _ in OBSERVATIONS]
    assert [o["item"] for o in checked if not o["holds"]] == [], checked


def test_observations_are_stated_on_ours_and_figures_written(run):
    rows, tmp = run
    obs = _table(rows, "observation")
    assert [o["item"] for o in obs] == ["3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "4.1", "4.2", "4.3"]
    assert all(isinstance(o["holds"], bool) and o["detail"] for o in obs)
    names = sorted(p.name for p in (tmp / "fig").iterdir())
    assert names == sorted(f"stockmeyer_figure{n}.png" for n in (4, 7, 8, 9, 11, 12, 15, 16, 18, 19))
    assert all((tmp / "fig" / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for n in names)


def test_trace_must_be_converted_with_renamed_tracks(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("1 2 3\n")
    res = CliRunner().invoke(app, ["reproduce", "stockmeyer", "--trace", str(text), "--db", str(tmp_path / "r.duckdb")])
    assert res.exit_code == 2 and "expected a converted trace" in res.output
    res = CliRunner().invoke(app, ["reproduce", "lomet-table1", "--trace", str(text)])
    assert res.exit_code == 2 and "`--trace` is for `stockmeyer` only" in res.output
