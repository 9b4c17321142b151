"""Figures for a paper: registry names, one style per scheme, print sizes and embedded fonts, the
data beside each figure, and the model drawn where it applies (reclaim.style, reclaim.figures,
the report's paper figures)."""

from __future__ import annotations

import csv
import html
import re
from pathlib import Path

import pytest
from reclaim import style
from reclaim.figures import predict
from reclaim.schemes import schemes


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


def test_every_registered_scheme_has_a_display_name():
    # A scheme registered without one would be shown by its engine name in every legend.
    for family in ("policies", "placements", "workloads", "triggers"):
        for s in schemes(family):
            assert s["name"] in style.NAMES, f"{family}: {s['name']}"


def test_labels_name_parameters_only_where_they_differ_or_vary():
    # greedy's tie=random is the registry's default: not shown; d = 10 has no default: shown.
    assert style.labels(["fifo", "greedy:tie=random", "d-choices:d=10", "cost-benefit"]) == [
        "FIFO", "Greedy", "d-choices (d = 10)", "Cost-benefit"]
    # Two hot/cold workloads that differ in r: only r is named.
    assert style.labels(["hotcold:r=0.8,f=0.2", "hotcold:r=0.9,f=0.2"]) == ["Hot/cold (r = 0.8)", "Hot/cold (r = 0.9)"]
    assert style.labels(["d-choices:d=2", "d-choices:d=10"]) == ["d-choices (d = 2)", "d-choices (d = 10)"]
    # A trace is named by its file, never its folder.
    assert style.display("trace:/tmp/pytest-0/x/volumes.rtr") == "Trace volumes.rtr"


def test_a_scheme_keeps_its_style_in_every_figure_and_series_never_share_one():
    a = style.series(["fifo", "greedy", "d-choices:d=10", "cost-benefit"])
    b = style.series(["cost-benefit", "greedy"])
    assert a[3] == b[0] and a[1] == b[1]
    # The four policies of examples/policies_sweep.toml: four colours.
    assert len({s.color for s in a}) == 4
    # SepBIT's fourteen schemes (its Exp#1): no two alike in colour, marker and dash together,
    # and DAC and SFR (both blue before) in different colours.
    names = ["single", "dac", "sfs", "multi-queue", "sfr", "fadac", "warcip", "eti", "sepbit", "fk", "midas", "2r-greedy",
             "deathtime", "gen"]
    st = style.series(names)
    assert len(set(st)) == len(names)
    assert st[names.index("dac")].color != st[names.index("sfr")].color
    # Every colour is from Tol's muted scheme (colour-blind safe), none black (kept for models).
    assert {s.color for s in st} <= set(style.COLOURS) and "#000000" not in style.COLOURS


def test_save_writes_each_width_in_three_formats_with_fonts_embedded_and_the_data(tmp_path):
    def draw(width: float):
        fig, axes = style.figure(width)
        axes[0][0].plot([1, 2, 3], [3.0, 2.0, 1.5], label="Greedy", **style.series(["greedy"])[0].mpl())
        style.legend_outside(fig, axes[0][0])
        return fig

    paths = style.save(draw, tmp_path, "demo", [{"x": 1, "wa": 3.0}, {"x": 2, "wa": float("nan")}])
    names = sorted(p.name for p in paths)
    assert names == sorted(["demo.csv"] + [f"demo-{w}in.{e}" for w in ("3.5", "7") for e in ("pdf", "svg", "png")])
    # Type 42 (TrueType) fonts embedded whole in the PDF, not Type 3; SVG keeps text as text.
    pdf = (tmp_path / "demo-3.5in.pdf").read_bytes()
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf
    assert "<text" in (tmp_path / "demo-7in.svg").read_text()
    # The PNG is as wide as asked at 300 dpi, give or take the tight bounding box.
    import matplotlib.image

    h, w = matplotlib.image.imread(tmp_path / "demo-3.5in.png").shape[:2]
    assert 0.8 * 3.5 * 300 < w <= 3.5 * 300 + 10
    rows = _csv(tmp_path / "demo.csv")
    assert rows == [{"x": "1", "wa": "3.0"}, {"x": "2", "wa": ""}]


def test_the_model_applies_only_where_its_assumptions_hold():
    # Van Houdt Table 1 row 1 (ODE column): 4.5925.
    p = predict({"policy": "d-choices:d=16", "workload": "hotcold:r=0.92,f=0.23", "spare": 0.10, "pages_per_segment": 16,
                 "segments": 10_000, "frontier": "single", "gc": "frontier"})
    assert p is not None and p.wa == pytest.approx(4.5925, abs=1e-4)
    # FIFO under uniform writes: Lomet & Luo eq. 4 at F = 0.8 gives E = 0.3714, WA = 1/E.
    p = predict({"policy": "fifo", "spare": 0.2, "workload": "uniform"})
    assert p is not None and p.wa == pytest.approx(1 / 0.3714, rel=1e-3) and p.model == "Lomet & Luo eq. 4"
    # No model: FIFO under hot/cold, cost-benefit, a double frontier, a cache, a device, Zipf.
    for config in ({"policy": "fifo", "spare": 0.2, "workload": "hotcold:r=0.8,f=0.2"}, {"policy": "cost-benefit", "spare": 0.2},
                   {"policy": "greedy", "spare": 0.2, "frontier": "double:copy=random"}, {"policy": "greedy", "spare": 0.2, "cache": 64},
                   {"policy": "greedy", "spare": 0.2, "device": "mqsim"}, {"policy": "greedy", "spare": 0.2, "workload": "zipf:theta=0.99"}):
        assert predict(config) is None, config


@pytest.fixture(scope="module")
def sweep_db(tmp_path_factory) -> Path:
    from reclaim.experiments import load, run

    # 3 policies × 3 spares × 2 workloads × 2 seeds = 36 small tasks.
    d = tmp_path_factory.mktemp("figures")
    f = d / "s.toml"
    f.write_text('name = "s"\nreplications = 2\n[base]\nsegments = 64\npages_per_segment = 16\nwarmup = "fill+2x"\nwrites = "4x"\n'
                 '[axes]\npolicy = ["fifo", "greedy", "d-choices:d=4"]\nspare = [0.1, 0.2, 0.3]\n'
                 'workload = ["uniform", "hotcold:r=0.8,f=0.2"]\n')
    path = d / "s.duckdb"
    assert run([load(f)], path, workers=2).ran == 36
    return path


def test_a_sweeps_paper_figures_hold_the_model_and_registry_names(sweep_db, tmp_path):
    from reclaim.report import build

    out = build(sweep_db, tmp_path / "r.html", figures=tmp_path / "figs")
    csvs = sorted((tmp_path / "figs").glob("*.csv"))
    # Two facets (the workloads), each WA and WA over greedy's.
    assert [p.name for p in csvs] == ["wa-relative-s-00.csv", "wa-relative-s-01.csv", "wa-s-00.csv", "wa-s-01.csv"]
    assert len(out.figure_files) == 4 * 7
    uniform = _csv(tmp_path / "figs" / "wa-s-01.csv")
    assert {r["facet"] for r in uniform} == {"Uniform"}
    assert {r["line"] for r in uniform} == {"FIFO", "Greedy", "d-choices (d = 4)"}
    # Under uniform writes every line has a model: FIFO Lomet & Luo's eq. 4, the others the mean field.
    models = {r["line"]: r["model_name"] for r in uniform}
    assert models == {"FIFO": "Lomet & Luo eq. 4", "Greedy": "mean-field (Van Houdt eq. 6–8), d = N",
                      "d-choices (d = 4)": "mean-field (Van Houdt eq. 6–8)"}
    assert all(float(r["model"]) > 1 for r in uniform)
    hot = _csv(tmp_path / "figs" / "wa-s-00.csv")
    assert {r["line"] for r in hot if r["model"]} == {"Greedy", "d-choices (d = 4)"}  # no FIFO model under hot/cold
    # The relative view: greedy's own points at 1 exactly (paired by seed).
    rel = _csv(tmp_path / "figs" / "wa-relative-s-01.csv")
    assert {float(r["mean"]) for r in rel if r["line"] == "Greedy"} == {1.0}
    page = (tmp_path / "r.html").read_text()
    # Titles name the facet as readers know it: no engine spec, no path, no nan, no "all".
    titles = re.findall(r'"title":\s*\{"text":\s*"([^"]*)"', page)
    assert titles and not any(re.search(r"/tmp|nan|hotcold:|greedy:tie|= all|— all", t) for t in titles), titles
    assert "WA against spare factor \\u2014 Uniform" in titles  # JSON escapes the dash
    text = html.unescape(page)
    assert "bars: the seeds' range (min to max)" in text and "95% confidence interval of the mean" in text


def test_a_table_of_settings_is_one_figure_not_one_per_setting(tmp_path):
    from reclaim.experiments import load, run
    from reclaim.report import build

    # Three rows of a table, each its own (pages per segment, spare, d), as a reproduction's
    # database holds them: without merging, three figures of one point each.
    f = tmp_path / "t.toml"
    f.write_text('name = "table"\n[base]\nsegments = 64\nwarmup = "fill+2x"\nwrites = "2x"\n'
                 '[[zip]]\npages_per_segment = [8, 16, 32]\nspare = [0.1, 0.15, 0.2]\npolicy = ["d-choices:d=2", "d-choices:d=3", "d-choices:d=4"]\n')
    db = tmp_path / "t.duckdb"
    assert run([load(f)], db, workers=2).ran == 3
    out = build(db, tmp_path / "r.html", figures=tmp_path / "figs")
    rows = _csv(tmp_path / "figs" / "wa-table-00.csv")
    # One figure (no other facet), one series, a point per setting on a categorical axis.
    assert not (tmp_path / "figs" / "wa-table-01.csv").exists() and {r["line"] for r in rows} == {"WA"}
    assert [r["x"] for r in rows] == ["pages per segment = 8, spare factor = 0.1", "pages per segment = 16, spare factor = 0.15",
                                      "pages per segment = 32, spare factor = 0.2"]
    assert out.figures == 1 + 2 + 1  # WA, the two valid-page distributions, the series
