"""The reproductions' figures in their papers' layouts (reclaim.figures.papers): each holds the
published series, the model's and reclaim's, on the axes its paper uses, with no path or nan in a
title. Rows are the published tables themselves with reclaim's column set from them, so that the
figures are checked without the simulations (those are the reproductions' own tests)."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import matplotlib
import pytest
from reclaim.figures import papers
from reclaim.reproduce.common import published

matplotlib.use("Agg")


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


def _texts(fig) -> list[str]:
    out = [fig.get_suptitle()]
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    return [t for t in out if t]


def _clean(fig) -> None:
    for t in _texts(fig):
        assert not re.search(r"/tmp|/home|\bnan\b|:tie=|hotcold:", t), t


def _legend(fig) -> list[str]:
    return [t.get_text() for lg in fig.legends for t in lg.get_texts()]


def _vanhoudt_rows(n: int) -> list[dict]:
    rows = []
    for row in published("vanhoudt_table1.csv")[:n]:
        paper = float(row["wa_sim"])
        ours = paper * 1.0003
        rows.append({"b": int(row["b"]), "spare": float(row["spare"]), "d": int(row["d"]), "r": float(row["r"]), "f": float(row["f"]),
                     "ode": float(row["wa_ode"]), "paper": paper, "ours": ours, "rel": (ours - paper) / paper})
    return rows


def test_vanhoudt_table1_against_d_and_spare_with_the_mean_field(tmp_path):
    rows = _vanhoudt_rows(2)
    paths = papers.vanhoudt_table1(rows, tmp_path)
    assert len(paths) == 2 * 7
    data = _csv(tmp_path / "vanhoudt-table1-wa-against-d.csv")
    assert {r["series"] for r in data} == {"mean-field model", "published simulation", "reclaim"}
    # The model's curve passes through the published ODE value at the row's d (Table 1, row 1:
    # d = 16, 4.5925).
    at = [r for r in data if r["series"] == "mean-field model" and r["b"] == "16" and r["spare"] == "0.1" and r["x"] == "16.0"]
    assert len(at) == 1 and float(at[0]["wa"]) == pytest.approx(4.5925, abs=1e-4)
    fig = papers.draw_vanhoudt(rows, 7.0, "d", 1)
    assert _legend(fig) == ["mean-field model", "published simulation", "reclaim"]
    # One panel per row, d on a linear axis; the difference is written in each panel.
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 2 and all(ax.get_xscale() == "linear" for ax in visible)
    assert any("reclaim +0.030%" == t.get_text() for t in visible[0].texts)
    _clean(fig)
    spare = _csv(tmp_path / "vanhoudt-table1-wa-against-spare.csv")
    # Against the spare factor, WA falls along the model's curve (more spare, less cleaning).
    curve = [float(r["wa"]) for r in spare if r["series"] == "mean-field model" and r["b"] == "16" and r["spare"] == "0.1"]
    assert len(curve) >= 5 and curve == sorted(curve, reverse=True)


def test_lomet_table1_draws_eq4_the_printed_column_and_reclaim(tmp_path):
    from reclaim.models.lomet import emptiness

    rows = [{"fill": float(r["F"]), "paper_e": float(r["E"]), "ours": emptiness(float(r["F"])), "diff": 0.0}
            for r in published("lomet_table1.csv")]
    papers.lomet_table1(rows, tmp_path)
    data = _csv(tmp_path / "lomet-table1-emptiness.csv")
    assert {r["series"] for r in data} == {"eq. 4", "published (Table 1)", "reclaim, FIFO"}
    # F = 0.80: Table 1 prints .375 (eq. 4 gives .3714).
    assert [float(r["emptiness"]) for r in data if r["series"] == "published (Table 1)" and r["fill"] == "0.8"] == [0.375]
    fig = papers.draw_lomet_table1(rows, 3.5)
    assert _legend(fig) == ["eq. 4: E = 1 − exp(−E/F)", "published (Table 1)", "reclaim, FIFO"]
    assert fig.get_figwidth() == 3.5
    _clean(fig)


def test_li_greedy_bars_the_published_model_beside_reclaim(tmp_path):
    # Fig. 6(b)'s model values (li_numbers.csv); reclaim's set 5% below.
    rows = [{"f": "0.2/0.8", "paper": 2.314e6, "ours": 2.314e6 * 0.95, "rel": -0.05},
            {"f": "0.8/0.2", "paper": 1.063e6, "ours": 1.063e6 * 0.95, "rel": -0.05}]
    papers.li_greedy(rows, tmp_path)
    data = _csv(tmp_path / "li-greedy-cleaning-cost.csv")
    assert [(r["f"], r["series"]) for r in data[:4]] == [("0.2/0.8", "model (published)"), ("0.2/0.8", "reclaim"),
                                                         ("0.8/0.2", "model (published)"), ("0.8/0.2", "reclaim")]
    # The model's curve against S passes through Fig. 6(b)'s published value at S = 0.1 (2.314e6).
    at = [float(r["cleaning_cost"]) for r in data if r["series"] == "model (Theorems 1-4)" and r["f"] == "0.2/0.8" and r["spare"] == "0.1"]
    assert at == [pytest.approx(2.314e6, rel=1e-3)]
    fig = papers.draw_li_greedy(rows, 7.0)
    ax = fig.axes[0]
    # A categorical axis: bars at the two f vectors, not a line joining them.
    assert [t.get_text() for t in ax.get_xticklabels()] == ["f = (0.2, 0.8)", "f = (0.8, 0.2)"] and not ax.lines
    assert {t.get_text() for t in ax.texts} == {"-5.0%"}
    # Against S: the model for each f on a log axis (two decades), the published and reclaim's points.
    curve = fig.axes[1]
    assert curve.get_yscale() == "log"
    assert [ln.get_label() for ln in curve.lines if ln.get_label().startswith("model")] == ["model, f = (0.2, 0.8)", "model, f = (0.8, 0.2)"]
    _clean(fig)


def test_li_fig5_and_fig7a_draw_the_model_reclaim_and_the_published_points(tmp_path):
    from reclaim.models import li as model
    from reclaim.reproduce import li

    # Fig. 5's model at each window (Theorem 1, finite N) with reclaim's set 2% below; Fig. 7(a)'s
    # model at each allocation (Theorem 5) with reclaim's GREEDY 5% below and FIFO 1% above.
    fig5 = []
    for name, w in li.WORKLOADS.items():
        for d in li.WINDOWS:
            m = model.cleaning_cost(li.LENGTH, model.cost_per_gc(li.K, li.SPARE, w, d=d, blocks=li.BLOCKS), li.K)
            fig5.append({"table": "fig5", "workload": name, "d": d, "model": m, "ours": 0.98 * m, "rel": -0.02})
    marks = {b: (name, cost) for name, (b, cost) in li.published_allocations().items()}
    greedy = model.cleaning_cost(li.LENGTH, model.cost_per_gc(li.K, li.SPARE, li.WORKLOADS["skewed"]), li.K)
    fig7a = []
    for policy, scale in (("greedy", 0.95), ("fifo", 1.01)):
        for b1 in li.ALLOCATIONS:
            m = model.grouping_cost(li.LENGTH, li.K, li.SPARE, li.WORKLOADS["skewed"], (b1, 1.0 - b1))
            mark, paper = marks.get(b1, ("", None))
            fig7a.append({"table": "fig7a", "b1": b1, "policy": policy, "model": m, "ours": scale * m, "rel": scale - 1, "mark": mark,
                          "paper": paper, "greedy_model": greedy, "greedy_ours": 0.96 * greedy})
    fig6b = [{"table": "fig6b", "f": "0.2/0.8", "paper": 2.314e6, "ours": 2.2e6, "rel": 2.2 / 2.314 - 1}]
    written = papers.li_greedy(fig6b + fig5 + fig7a, tmp_path)
    stems = ("li-greedy-cleaning-cost", "li-fig5-cleaning-cost-vs-d", "li-fig7a-grouping-allocation")
    assert {p.name for p in written} == {f"{s}.csv" for s in stems} | {f"{s}-{w}in.{e}" for s in stems for w in ("3.5", "7")
                                                                          for e in ("pdf", "svg", "png")}
    # Fig. 5: the model and reclaim at every window of both workloads; RANDOM (d = N) costs
    # ⌈L / (k − (1 − S)·k)⌉ · (1 − S)·k = ⌈5e6 / 6.4⌉ · 57.6 = 45.0e6 by Theorem 3 with eq. 2, which
    # Theorem 1's finite form (the d > N_a mix of C̄(N_a) and k) meets within 0.2% (45.06e6).
    data = _csv(tmp_path / "li-fig5-cleaning-cost-vs-d.csv")
    assert {(r["workload"], r["series"]) for r in data} == {(n, s) for n in li.WORKLOADS for s in ("model (Theorem 1)", "reclaim")}
    assert len(data) == 2 * 2 * len(li.WINDOWS)
    at = [float(r["cleaning_cost"]) for r in data if r["series"] == "model (Theorem 1)" and r["d"] == "8192"]
    assert at == [pytest.approx(781_250 * 57.6, rel=2e-3)] * 2
    fig = papers.draw_li_fig5(fig5, 7.0)
    assert [ax.get_title() for ax in fig.axes] == ["skewed workload", "fine-grained workload"]
    assert all(ax.get_xscale() == "log" and ax.get_yscale() == "log" for ax in fig.axes)
    assert _legend(fig) == ["model (Theorem 1, finite N)", "reclaim, GRA(d)"]
    _clean(fig)
    # Fig. 7(a): Theorem 5 over b₁ = 0.432 … 0.862, reclaim's two policies, the published b_c* and
    # b_w* (§5.3: 0.53e6 and 2.31e6) and locality-oblivious GREEDY at b_w* (Theorem 2: 2.316e6,
    # the model's Fig. 6(b) value before its rounding to 2.314e6 in li_numbers.csv).
    data = _csv(tmp_path / "li-fig7a-grouping-allocation.csv")
    by: dict[str, list[tuple[float, float]]] = {}
    for r in data:
        by.setdefault(r["series"], []).append((float(r["b1"]), float(r["cleaning_cost"])))
    assert set(by) == {"model (Theorem 5)", "reclaim, greedy", "reclaim, fifo", "published (b_c*)", "published (b_w*)",
                       "locality-oblivious GREEDY, model (Theorem 2)", "locality-oblivious GREEDY, reclaim"}
    assert [b for b, _ in by["model (Theorem 5)"]] == list(li.ALLOCATIONS) and len(li.ALLOCATIONS) == 23
    assert by["published (b_c*)"] == [(0.432, 0.53e6)] and by["published (b_w*)"] == [(0.862, 2.31e6)]
    # The model meets the published costs to their two digits at both ends.
    assert by["model (Theorem 5)"][0][1] == pytest.approx(0.53e6, rel=0.01)
    assert by["model (Theorem 5)"][-1][1] == pytest.approx(2.31e6, rel=0.01)
    assert by["locality-oblivious GREEDY, model (Theorem 2)"] == [(0.862, pytest.approx(2.316e6, rel=1e-3))]
    fig = papers.draw_li_fig7a(fig7a, 7.0)
    assert _legend(fig) == ["model (Theorem 5)", "reclaim, Greedy in each region", "reclaim, FIFO in each region",
                            "published (§5.3: b_c*, b_w*)", "locality-oblivious GREEDY, model (Theorem 2)",
                            "locality-oblivious Greedy, reclaim"]
    assert {t.get_text() for t in fig.axes[0].texts} == {"b_c*", "b_w*"}
    _clean(fig)


def _sepbit_rows() -> list[dict]:
    rows = []
    for i, (scheme, placement) in enumerate((("NoSep", "single"), ("DAC", "dac"), ("SFR", "sfr"), ("ETI", "eti"), ("SepBIT", "sepbit"))):
        per = {f"vol{v}": 2.0 + 0.1 * i + 0.01 * v for v in range(5)}
        rows.append({"scheme": scheme, "placement": placement, "Greedy": 2.0 + 0.1 * i, "Cost-Benefit": 1.9 + 0.1 * i,
                     "Greedy volumes": per, "Cost-Benefit volumes": {k: v - 0.1 for k, v in per.items()}})
    rows.append({"scheme": "UW", "missing": True})
    return rows


def test_sepbit_overall_bars_and_per_volume_cdf(tmp_path):
    from reclaim.reproduce.sepbit import SELECTIONS

    rows = _sepbit_rows()
    papers.sepbit(rows, SELECTIONS, tmp_path)
    overall = _csv(tmp_path / "sepbit-overall-wa.csv")
    assert len(overall) == 5 * 2 and {r["selection"] for r in overall} == {"Greedy", "Cost-Benefit"}
    assert len(_csv(tmp_path / "sepbit-volumes-cdf.csv")) == 5 * 2 * 5
    fig = papers.draw_sepbit_overall(rows, SELECTIONS, 7.0)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["NoSep", "DAC", "SFR", "ETI", "SepBIT"]
    assert _legend(fig) == ["Greedy", "Cost-benefit (form = sepbit)"]
    cdf = papers.draw_sepbit_cdf(rows, SELECTIONS, 7.0)
    # The legend is the figure's, outside both panels; DAC and SFR in different colours.
    assert all(ax.get_legend() is None for ax in cdf.axes) and _legend(cdf) == ["NoSep", "DAC", "SFR", "ETI", "SepBIT"]
    colour = {ln.get_label(): ln.get_color() for ln in cdf.axes[0].lines}
    assert colour["DAC"] != colour["SFR"] and colour["ETI"] != colour["NoSep"]
    _clean(cdf)


def test_lomet_figure5_on_a_log_axis_with_the_age_based_model_under_uniform(tmp_path):
    from reclaim.models.lomet import age_based

    algorithms = ["age", "greedy", "MDC"]
    rows = [{"table": "figure5", "workload": w, "fill": f, **{a: age_based(f).wamp * (1 - 0.1 * k) for k, a in enumerate(algorithms)}}
            for w in ("uniform", "zipf:theta=0.99") for f in (0.7, 0.9)]
    rows += [{"table": "table1", "fill": 0.8, "paper": 0.4, "analysis": 0.3714, "ours": 0.41, "diff": 0.01}]
    paths = papers.lomet_mdc(rows, ("uniform", "zipf:theta=0.99"), algorithms, tmp_path)
    assert {p.name for p in paths if p.suffix == ".csv"} == {"lomet-table1-mdc-opt.csv", "lomet-figure5-wamp.csv"}
    fig = papers.draw_lomet_figure5(rows, ("uniform", "zipf:theta=0.99"), algorithms, 7.0)
    assert [ax.get_title() for ax in fig.axes] == ["Uniform", "Zipf (theta = 0.99)"]
    assert all(ax.get_yscale() == "log" for ax in fig.axes)
    # The model only where it applies: the uniform panel.
    assert [ln.get_label() for ln in fig.axes[0].lines][-1] == "eq. 4, age-based (uniform)"
    assert all(not ln.get_label().startswith("eq. 4") for ln in fig.axes[1].lines)
    ys = fig.axes[0].lines[-1].get_ydata()
    assert all(math.isfinite(y) for y in ys)
    _clean(fig)


def test_stockmeyer_grids_as_heat_maps_published_reclaim_and_difference(tmp_path):
    # A 5 × 5 grid per cache; reclaim's cells set 10% above the published ones.
    rows = [{"table": "figure5", "cache": c, "variant": "fifo", "dtg": d, "fsc": f, "gcu": 0.5 * 1.1 + 0.01 * (d + f),
             "paper_gcu": 0.5 + 0.01 * (d + f) / 1.1} for c in (1, 320) for d in range(5) for f in range(5)]
    for r in rows:
        r["gcu"] = r["paper_gcu"] * 1.1
    paths = papers.stockmeyer_grids(rows, [(7, 5, "fifo", "gcu", "GCU, fitness-fifo")], (1, 320), list(range(5)), tmp_path)
    assert {p.name for p in paths if p.suffix == ".csv"} == {"stockmeyer-figure7-heatmap.csv"}
    assert len(_csv(tmp_path / "stockmeyer-figure7-heatmap.csv")) == 2 * 25
    fig = papers.draw_stockmeyer_grid(rows, 5, "fifo", "gcu", "Figure 7: GCU, fitness-fifo", (1, 320), list(range(5)), 7.0)
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == [f"{w}, cache = {c}" for c in (1, 320) for w in ("published", "reclaim", "reclaim vs published")]
    # Every cell of the difference reads +10%.
    assert {t.get_text() for t in panels[2].texts} == {"+10%"}
    _clean(fig)


def test_dyal_draughn_throughput_against_load_holds_mva_and_the_measurements(tmp_path):
    from reclaim.reproduce import dyal_draughn

    paths = dyal_draughn.figures(tmp_path)
    assert (tmp_path / "dyal-draughn-throughput-against-load-7in.pdf") in paths
    data = _csv(tmp_path / "dyal-draughn-throughput-against-load.csv")
    assert {r["series"] for r in data} == {"MVA", "published"}
    assert len({r["configuration"] for r in data}) == 4
    # Table 2, one disk, old allocation, 1 workstation: 5 transactions/min measured (the shipped table).
    one = [r for r in data if r["series"] == "published" and r["configuration"] == "one disk, old allocation" and r["workstations"] == "1"]
    assert [float(r["trans_per_min"]) for r in one] == [5.0]
    # The model reaches the largest load measured (Table 3: 70 workstations).
    assert max(int(r["workstations"]) for r in data if r["series"] == "MVA") == 70


def test_latency_against_load_on_log_axes_with_each_schemes_bound(tmp_path):
    # Two schemes and the device without cleaning at two spares, seven rates each (made up: the
    # figure's content, not the device's, is checked here; tests/test_reproduce_latency.py runs it).
    rows = []
    for spare in (0.14, 0.28):
        for scheme, bound in (("greedy", 4000.0), ("fifo", 3500.0), ("no cleaning", 16000.0)):
            pts = [{"offered": o, "read_p99": 200 + o / 10, "read_p999": 400 + o / 5} for o in (125, 250, 500, 1000, 2000, 4000, 8000)]
            rows.append({"scheme": scheme, "spare": spare, "wa": 2.0, "bound": bound, "points": pts})
    papers.latency(rows, "no cleaning", tmp_path)
    assert len(_csv(tmp_path / "latency-read-tail-against-load.csv")) == 6 * 7
    fig = papers.draw_latency(rows, "no cleaning", 7.0)
    assert len(fig.axes) == 4 and all(ax.get_xscale() == ax.get_yscale() == "log" for ax in fig.axes)
    assert _legend(fig) == ["Greedy", "FIFO", "no cleaning"]  # as the rows come
    # Each scheme's die-time bound a vertical line at its rate (x data constant).
    verticals = [ln for ln in fig.axes[0].lines if len(set(ln.get_xdata())) == 1]
    assert sorted(float(ln.get_xdata()[0]) for ln in verticals) == [3500.0, 4000.0]
    _clean(fig)
