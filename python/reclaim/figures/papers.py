"""The reproductions' figures in their papers' layouts, with the published numbers (from each
reproduction's own tables) and the model drawn beside reclaim's.

Each ``draw_*`` function takes a reproduction's rows and a width in inches and returns a matplotlib
figure; each public function of the same name without ``draw_`` writes it with
:func:`reclaim.style.save` (3.5 and 7 in; PDF, SVG, PNG; the data as CSV) and returns the paths.
In every figure reclaim's points take the scheme's colour and marker (:func:`reclaim.style.series`),
the published ones are black crosses, and a model is a black line.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reclaim import style

Row = dict[str, Any]
#: The d of the "WA against d" panels (Van Houdt Fig. 4–5 draw d from 1 to 30 or so).
D_GRID = (1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 18, 20, 24, 28, 32)


@functools.lru_cache(maxsize=8192)
def mean_field(b: int, spare: float, d: float, r: float, f: float, frontier: str = "single") -> float | None:
    """Van Houdt's mean-field WA (eq. 6–8 single, eq. 9–15 double frontier, random copy), or
    ``None`` where no fixed point is found; one BLAS thread (see :mod:`reclaim.figures.prediction`)."""
    from threadpoolctl import threadpool_limits

    from reclaim.models import vanhoudt

    try:
        with threadpool_limits(1):
            return float(vanhoudt.solve(b, spare, d, r, f, frontier=frontier, tol=1e-8, max_iterations=4_000).wa)
    except (RuntimeError, ValueError):
        return None


def _published(ax: Any, xs: Sequence[float], ys: Sequence[float], label: str = "published") -> None:
    ax.plot(xs, ys, label=label, zorder=4, **style.PUBLISHED)


def _ours(ax: Any, xs: Sequence[float], ys: Sequence[float], scheme: str, label: str = "reclaim", **kw: Any) -> None:
    st = style.series([scheme])[0]
    # Open and larger than the published cross, so that both show where they coincide.
    ax.plot(xs, ys, label=label, color=st.color, marker=st.marker, linestyle="none", markersize=6.5, zorder=3,
            markerfacecolor="none", markeredgewidth=1.3, **kw)


def _panel_title(r: Row) -> str:
    return f"b = {r['b']}, $S_f$ = {r['spare']:.2f}, d = {r['d']}\nr = {r['r']:.2f}, f = {r['f']:.2f}"


def _grid(n: int, width: float) -> tuple[int, int]:
    cols = 4 if width >= 6 else 2
    return cols, -(-n // cols)


def _vanhoudt_curves(rows: Sequence[Row], against: str, frontier: str) -> list[list[tuple[float, float]]]:
    out = []
    for r in rows:
        if against == "d":
            xs: Sequence[float] = D_GRID
            pts = [(float(d), mean_field(r["b"], r["spare"], d, r["r"], r["f"], frontier)) for d in xs]
        else:
            xs = [round(r["spare"] + k * 0.01, 2) for k in range(-3, 5) if r["spare"] + k * 0.01 > 0.015]
            pts = [(s, mean_field(r["b"], s, r["d"], r["r"], r["f"], frontier)) for s in xs]
        out.append([(x, y) for x, y in pts if y is not None])
    return out


def draw_vanhoudt(rows: Sequence[Row], width: float, against: str = "d", table: int = 1) -> Any:
    """Van Houdt's WA against d (his Fig. 4–5's axes) or against the spare factor, one panel per
    row of Table 1 (single frontier) or Table 2 (double), each with the mean-field curve through
    the row's setting, the published simulation (Table 2: RND and OLDEST) and reclaim's, and the
    difference written in the panel."""
    frontier = "single" if table == 1 else "double"
    cols, nrows = _grid(len(rows), width)
    fig, axes = style.figure(width, aspect=0.8, ncols=cols, nrows=nrows, legend_rows=1)
    curves = _vanhoudt_curves(rows, against, frontier)
    for i, (r, curve) in enumerate(zip(rows, curves, strict=True)):
        ax = axes[i // cols][i % cols]
        x = r["d"] if against == "d" else r["spare"]
        ax.plot([c[0] for c in curve], [c[1] for c in curve], label="mean-field model", **style.MODEL)
        if table == 1:
            _published(ax, [x], [r["paper"]], "published simulation")
            _ours(ax, [x], [r["ours"]], "d-choices")
            note = f"reclaim {r['rel']:+.3%}"
        else:
            _published(ax, [x], [r["paper_rnd"]], "published simulation")
            ax.plot([x], [r["paper_oldest"]], label="published simulation, OLDEST", color="#000000", marker="+",
                    linestyle="none", markersize=6, zorder=4)
            _ours(ax, [x], [r["ours_rnd"]], "d-choices")
            st = style.series(["d-choices", "double"])[1]
            ax.plot([x], [r["ours_oldest"]], label="reclaim, OLDEST", color=st.color, marker=st.marker, linestyle="none",
                    markersize=4, markerfacecolor="none", zorder=3)
            note = f"reclaim RND {r['rel_rnd']:+.3%}\nOLDEST {r['rel_oldest']:+.3%}"
        ax.text(0.97, 0.95, note, transform=ax.transAxes, ha="right", va="top", fontsize=6)
        ax.set_title(_panel_title(r), fontsize=6)
        if i // cols == nrows - 1 or i + cols >= len(rows):
            ax.set_xlabel("d" if against == "d" else "spare factor $S_f$")
        if i % cols == 0:
            ax.set_ylabel("WA")
        ax.tick_params(labelsize=6)
    for j in range(len(rows), cols * nrows):
        axes[j // cols][j % cols].set_visible(False)
    style.legend_outside(fig, [a for row in axes for a in row], ncol=4 if width >= 6 else 2)
    return fig


def _vanhoudt_data(rows: Sequence[Row], against: str, table: int) -> list[Row]:
    frontier = "single" if table == 1 else "double"
    out: list[Row] = []
    for r, curve in zip(rows, _vanhoudt_curves(rows, against, frontier), strict=True):
        setting = {k: r[k] for k in ("b", "spare", "d", "r", "f")}
        out += [{**setting, "series": "mean-field model", "x": x, "wa": y} for x, y in curve]
        x = r["d"] if against == "d" else r["spare"]
        for key, name in ((("paper", "published simulation"), ("ours", "reclaim")) if table == 1 else
                          (("paper_rnd", "published simulation RND"), ("paper_oldest", "published simulation OLDEST"),
                           ("ours_rnd", "reclaim RND"), ("ours_oldest", "reclaim OLDEST"))):
            out.append({**setting, "series": name, "x": x, "wa": r[key]})
    return out


def vanhoudt(rows: Sequence[Row], folder: Path, table: int = 1) -> list[Path]:
    """Van Houdt Table 1 (``table=1``) or 2 as WA against d and against the spare factor."""
    out: list[Path] = []
    for against in ("d", "spare"):
        out += style.save(functools.partial(_draw_vanhoudt_at, rows, against, table), folder,
                          f"vanhoudt-table{table}-wa-against-{against}", _vanhoudt_data(rows, against, table))
    return out


def _draw_vanhoudt_at(rows: Sequence[Row], against: str, table: int, width: float) -> Any:
    return draw_vanhoudt(rows, width, against, table)


def vanhoudt_table1(rows: Sequence[Row], folder: Path) -> list[Path]:
    """:func:`vanhoudt` for Table 1."""
    return vanhoudt(rows, folder, 1)


def vanhoudt_table2(rows: Sequence[Row], folder: Path) -> list[Path]:
    """:func:`vanhoudt` for Table 2."""
    return vanhoudt(rows, folder, 2)


def _eq4_curve(lo: float = 0.4) -> list[tuple[float, float]]:
    """Eq. 4's E from fill factor ``lo`` (or 0.4, whichever is lower) to 0.98, in steps of 0.01."""
    from reclaim.models.lomet import emptiness

    start = min(round(lo, 2), 0.4)
    fills = [round(start + 0.01 * k, 2) for k in range(int(round((0.98 - start) / 0.01)) + 1)]
    return [(f, emptiness(f)) for f in fills]


def draw_lomet_table1(rows: Sequence[Row], width: float) -> Any:
    """Lomet & Luo Table 1 as a figure: emptiness at clean E against the fill factor F, eq. 4's
    curve, the paper's printed E and reclaim's FIFO."""
    fig, axes = style.figure(width)
    ax = axes[0][0]
    curve = _eq4_curve()
    ax.plot([c[0] for c in curve], [c[1] for c in curve], label="eq. 4: E = 1 − exp(−E/F)", **style.MODEL)
    _published(ax, [r["fill"] for r in rows], [r["paper_e"] for r in rows], "published (Table 1)")
    _ours(ax, [r["fill"] for r in rows], [r["ours"] for r in rows], "fifo", "reclaim, FIFO")
    worst = max(rows, key=lambda r: abs(r["diff"]))
    ax.text(0.97, 0.95, f"reclaim − eq. 4: at most {abs(worst['diff']):.4f} (F = {worst['fill']:.2f})", transform=ax.transAxes,
            ha="right", va="top", fontsize=6)
    ax.set(xlabel="fill factor F", ylabel="emptiness at clean E")
    style.legend_outside(fig, ax)
    return fig


def lomet_table1(rows: Sequence[Row], folder: Path) -> list[Path]:
    """:func:`draw_lomet_table1`, written."""
    data = [{"series": "eq. 4", "fill": f, "emptiness": e} for f, e in _eq4_curve()]
    data += [{"series": "published (Table 1)", "fill": r["fill"], "emptiness": r["paper_e"]} for r in rows]
    data += [{"series": "reclaim, FIFO", "fill": r["fill"], "emptiness": r["ours"]} for r in rows]
    return style.save(lambda w: draw_lomet_table1(rows, w), folder, "lomet-table1-emptiness", data)


#: Li et al. §5.1's setting: pages per block k, writes L, active share f_a, the classes' write shares r.
LI_K, LI_WRITES, LI_FA, LI_R = 64, 5_000_000, 0.1, (0.8, 0.2)
#: The spare factors of the model's curve (Li et al. Fig. 5 draws S from 0.05 to 0.3).
LI_SPARES = tuple(round(0.04 + 0.01 * i, 2) for i in range(27))


def li_curve(f: str) -> list[tuple[float, float]]:
    """GREEDY's cleaning cost over L writes against the spare factor S, Theorems 1–4 (eq. 2 with
    the C̄ of Theorem 2), at §5.1's setting with page shares ``f`` (``"0.2/0.8"``)."""
    from reclaim.models.li import Workload, cleaning_cost, cost_per_gc

    w = Workload(LI_FA, LI_R, tuple(float(x) for x in f.split("/")))
    return [(sp, cleaning_cost(LI_WRITES, cost_per_gc(LI_K, sp, w), LI_K)) for sp in LI_SPARES]


def draw_li_greedy(rows: Sequence[Row], width: float) -> Any:
    """Li et al. §5.1 / Fig. 6(b): GREEDY's cleaning cost per page-share vector f, the model's
    value they publish beside reclaim's simulation as grouped bars (the difference above them);
    and the model's cost against the spare factor (Theorems 1–4) with the published value and
    reclaim's at S = 0.1, on a log axis (it spans two decades). Their Fig. 5 (cost against the
    window d) is :func:`draw_li_fig5`."""
    fig, axes = style.figure(width, aspect=0.75, ncols=2, legend_rows=2)
    ax = axes[0][0]
    xs = range(len(rows))
    st = style.series(["greedy"])[0]
    ax.bar([x - 0.18 for x in xs], [r["paper"] / 1e6 for r in rows], 0.36, label="model (Theorems 1–4), published in Fig. 6(b)",
           color="white", edgecolor="#000000", hatch="///", linewidth=0.8)
    ax.bar([x + 0.18 for x in xs], [r["ours"] / 1e6 for r in rows], 0.36, label="reclaim, Greedy", color=st.color)
    for x, r in zip(xs, rows, strict=True):
        ax.text(x + 0.18, r["ours"] / 1e6, f"{r['rel']:+.1%}", ha="center", va="bottom", fontsize=6)
    ax.set_xticks(list(xs), [f"f = ({r['f'].replace('/', ', ')})" for r in rows])
    ax.set(ylabel="cleaning cost [10⁶ pages]", xlabel="page shares of the two classes", title="S = 0.1")
    ax.grid(axis="x", visible=False)
    ax = axes[0][1]
    for r, dash in zip(rows, ("-", "--"), strict=False):
        curve = li_curve(r["f"])
        ax.plot([c[0] for c in curve], [c[1] / 1e6 for c in curve], color="#000000", linestyle=dash, linewidth=1.0,
                label=f"model, f = ({r['f'].replace('/', ', ')})")
        _published(ax, [0.1], [r["paper"] / 1e6], "published (Fig. 6(b))")
        _ours(ax, [0.1], [r["ours"] / 1e6], "greedy", "reclaim, Greedy (S = 0.1)")
    ax.set(xlabel="spare factor S", ylabel="cleaning cost [10⁶ pages]", yscale="log", title="against S")
    style.legend_outside(fig, [axes[0][0], ax], ncol=2)
    return fig


def draw_li_fig5(rows: Sequence[Row], width: float) -> Any:
    """Li et al. Fig. 5 (§5.1): GRA(d)'s cleaning cost against the window d, GREEDY (d = 1) to
    RANDOM (d = N), a panel per workload: Theorem 1's finite-N model (eq. 2–5) as a line, reclaim's
    GRA(d) simulation as points (d = 1 is GREEDY, d = N = 8192 RANDOM), both axes logarithmic (d
    spans four decades, the cost two)."""
    from matplotlib.ticker import FuncFormatter

    names = list(dict.fromkeys(r["workload"] for r in rows))
    fig, axes = style.figure(width, aspect=0.75, ncols=len(names), legend_rows=1, sharey=True)
    for ax, name in zip(axes[0], names, strict=True):
        mine = sorted((r for r in rows if r["workload"] == name), key=lambda r: r["d"])
        ds = [r["d"] for r in mine]
        ax.plot(ds, [r["model"] / 1e6 for r in mine], color="#000000", linewidth=1.0, marker="*", markersize=4,
                label="model (Theorem 1, finite N)")
        _ours(ax, ds, [r["ours"] / 1e6 for r in mine], "gra", "reclaim, GRA(d)")
        ax.set(xscale="log", yscale="log", xlabel="window size d", title=f"{name} workload")
        # Plain numbers on the cost axis (1, 2, 5, 10, …), not powers of ten times a mantissa.
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))
    axes[0][0].set_ylabel("cleaning cost [10⁶ pages]")
    style.legend_outside(fig, list(axes[0]))
    return fig


def draw_li_fig7a(rows: Sequence[Row], width: float) -> Any:
    """Li et al. Fig. 7(a) (§5.3): the cleaning cost of data grouping against the hot region's
    share b₁ of the spare blocks, b_c* to b_w*: Theorem 5 as a line with its points (asterisks),
    reclaim's GREEDY and FIFO in each region, §5.3's published b_c*, b_w* and costs as crosses, and
    locality-oblivious GREEDY (Theorem 2, and reclaim's) as squares at b_w*."""
    fig, axes = style.figure(width, aspect=0.75, legend_rows=2)
    ax = axes[0][0]
    greedy = sorted((r for r in rows if r["policy"] == "greedy"), key=lambda r: r["b1"])
    fifo = sorted((r for r in rows if r["policy"] == "fifo"), key=lambda r: r["b1"])
    ax.plot([r["b1"] for r in greedy], [r["model"] / 1e6 for r in greedy], color="#000000", linewidth=1.0, marker="*",
            markersize=4, label="model (Theorem 5)")
    _ours(ax, [r["b1"] for r in greedy], [r["ours"] / 1e6 for r in greedy], "greedy", "reclaim, Greedy in each region")
    _ours(ax, [r["b1"] for r in fifo], [r["ours"] / 1e6 for r in fifo], "fifo", "reclaim, FIFO in each region")
    marks = [r for r in greedy if r["paper"] is not None]
    _published(ax, [r["b1"] for r in marks], [r["paper"] / 1e6 for r in marks], "published (§5.3: b_c*, b_w*)")
    last = greedy[-1]
    ax.plot([last["b1"]], [last["greedy_model"] / 1e6], color="#000000", marker="s", markersize=7, markerfacecolor="none",
            linestyle="none", label="locality-oblivious GREEDY, model (Theorem 2)")
    st = style.series(["greedy"])[0]
    ax.plot([last["b1"]], [last["greedy_ours"] / 1e6], color=st.color, marker="s", markersize=4, linestyle="none",
            label="locality-oblivious Greedy, reclaim")
    for r in marks:
        ax.annotate(r["mark"], (r["b1"], r["paper"] / 1e6), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=6)
    ax.set(xlabel="hot region's share b₁ of the spare blocks", ylabel="cleaning cost [10⁶ pages]",
           title="f_a = 0.1, r = (0.8, 0.2), f = (0.2, 0.8)")
    style.legend_outside(fig, ax, ncol=2)
    return fig


def li_greedy(rows: Sequence[Row], folder: Path) -> list[Path]:
    """:func:`draw_li_greedy`, :func:`draw_li_fig5` and :func:`draw_li_fig7a`, written (each
    for the rows of its ``table``; rows without one are Fig. 6(b)'s)."""
    fig5 = [r for r in rows if r.get("table") == "fig5"]
    fig7a = [r for r in rows if r.get("table") == "fig7a"]
    rows = [r for r in rows if r.get("table", "fig6b") == "fig6b"]
    out = _li_fig6b(rows, folder)
    if fig5:
        data5 = [{"workload": r["workload"], "d": r["d"], "series": s, "cleaning_cost": r[k]} for r in fig5
                 for k, s in (("model", "model (Theorem 1)"), ("ours", "reclaim"))]
        out += style.save(lambda w: draw_li_fig5(fig5, w), folder, "li-fig5-cleaning-cost-vs-d", data5)
    if fig7a:
        data7: list[Row] = [{"b1": r["b1"], "series": "model (Theorem 5)", "cleaning_cost": r["model"]} for r in fig7a
                            if r["policy"] == "greedy"]
        data7 += [{"b1": r["b1"], "series": f"reclaim, {r['policy']}", "cleaning_cost": r["ours"]} for r in fig7a]
        data7 += [{"b1": r["b1"], "series": f"published ({r['mark']})", "cleaning_cost": r["paper"]} for r in fig7a
                  if r["paper"] is not None and r["policy"] == "greedy"]
        last = max((r for r in fig7a if r["policy"] == "greedy"), key=lambda r: r["b1"])
        data7 += [{"b1": last["b1"], "series": "locality-oblivious GREEDY, model (Theorem 2)", "cleaning_cost": last["greedy_model"]},
                  {"b1": last["b1"], "series": "locality-oblivious GREEDY, reclaim", "cleaning_cost": last["greedy_ours"]}]
        out += style.save(lambda w: draw_li_fig7a(fig7a, w), folder, "li-fig7a-grouping-allocation", data7)
    return out


def _li_fig6b(rows: Sequence[Row], folder: Path) -> list[Path]:
    data: list[Row] = [{"f": r["f"], "series": s, "spare": 0.1, "cleaning_cost": r[k]} for r in rows
                       for k, s in (("paper", "model (published)"), ("ours", "reclaim"))]
    data += [{"f": r["f"], "series": "model (Theorems 1-4)", "spare": sp, "cleaning_cost": c} for r in rows for sp, c in li_curve(r["f"])]
    return style.save(lambda w: draw_li_greedy(rows, w), folder, "li-greedy-cleaning-cost", data)


def draw_sepbit_overall(rows: Sequence[Row], selections: Sequence[tuple[str, str]], width: float) -> Any:
    """SepBIT's overall-WA figure (Exp#1): one bar per scheme, a group per selection algorithm."""
    live = [r for r in rows if not r.get("missing")]
    fig, axes = style.figure(width, aspect=0.45)
    ax = axes[0][0]
    n = len(selections)
    w = 0.8 / n
    for k, (policy, name) in enumerate(selections):
        st = style.series([policy])[0]
        ax.bar([i + (k - (n - 1) / 2) * w for i in range(len(live))], [r[name] for r in live], w, label=style.display(policy),
               color=st.color, edgecolor="white", linewidth=0.3)
    ax.set_xticks(range(len(live)), [r["scheme"] for r in live], rotation=60, ha="right", fontsize=6)
    lo = min(r[name] for r in live for _, name in selections)
    ax.set_ylim(max(1.0, lo - 0.1 * (max(r[name] for r in live for _, name in selections) - lo) - 0.05), None)
    ax.set(ylabel="overall WA")
    ax.grid(axis="x", visible=False)
    style.legend_outside(fig, ax, title="segment selection")
    return fig


def draw_sepbit_cdf(rows: Sequence[Row], selections: Sequence[tuple[str, str]], width: float) -> Any:
    """SepBIT's per-volume figure: the CDF of each scheme's per-volume WA, a panel per selection."""
    import numpy as np

    live = [r for r in rows if not r.get("missing")]
    schemes = [r["placement"] if "placement" in r else r["scheme"] for r in live]
    styles = style.series(schemes)
    fig, axes = style.figure(width, ncols=len(selections), legend_rows=-(-len(live) // max(1, int(width // 1.2))), sharey=True)
    for ax, (policy, name) in zip(axes[0], selections, strict=True):
        for r, st in zip(live, styles, strict=True):
            was = np.sort(np.array(list(r[f"{name} volumes"].values()), dtype=float))
            # A marker at each volume too: with 14 schemes, colours repeat and dashes alone blur.
            ax.step(was, np.arange(1, len(was) + 1) / len(was), where="post", label=r["scheme"], color=st.color, linestyle=st.dash,
                    linewidth=1.0, marker=st.marker, markersize=2.5)
        ax.set(title=style.display(policy), xlabel="WA of a volume")
    axes[0][0].set_ylabel("share of volumes")
    style.legend_outside(fig, list(axes[0]))
    return fig


def sepbit(rows: Sequence[Row], selections: Sequence[tuple[str, str]], folder: Path) -> list[Path]:
    """SepBIT's overall-WA bars and per-volume CDF, written."""
    live = [r for r in rows if not r.get("missing")]
    data = [{"scheme": r["scheme"], "selection": name, "overall_wa": r[name]} for r in live for _, name in selections]
    out = style.save(lambda w: draw_sepbit_overall(rows, selections, w), folder, "sepbit-overall-wa", data)
    vols = [{"scheme": r["scheme"], "selection": name, "volume": v, "wa": wa} for r in live for _, name in selections
            for v, wa in r[f"{name} volumes"].items()]
    return out + style.save(lambda w: draw_sepbit_cdf(rows, selections, w), folder, "sepbit-volumes-cdf", vols)


def draw_lomet_mdc_table1(rows: Sequence[Row], width: float) -> Any:
    """Lomet & Luo Table 1's MDC-opt column: emptiness at clean against F, eq. 4 (age-based) as
    the reference curve, the published MDC-opt and reclaim's."""
    t1 = [r for r in rows if r["table"] == "table1"]
    fig, axes = style.figure(width)
    ax = axes[0][0]
    curve = _eq4_curve(min((r["fill"] for r in t1), default=0.4))
    ax.plot([c[0] for c in curve], [c[1] for c in curve], label="eq. 4 (age-based)", **style.MODEL)
    _published(ax, [r["fill"] for r in t1], [r["paper"] for r in t1], "published MDC-opt")
    _ours(ax, [r["fill"] for r in t1], [r["ours"] for r in t1], "mdc", "reclaim, MDC-opt")
    ax.set(xlabel="fill factor F", ylabel="emptiness at clean E")
    style.legend_outside(fig, ax)
    return fig


#: Lomet & Luo's algorithms (lomet_mdc.ALGORITHMS's names) as registry specs, for their colours.
LOMET_SCHEMES = {"age": "fifo", "greedy": "greedy", "cost-benefit": "cost-benefit", "MDC": "mdc", "MDC-opt": "mdc:freq=exact",
                 "multi-log": "multi-log", "multi-log-opt": "multi-log:freq=exact"}


def draw_lomet_figure5(rows: Sequence[Row], workloads: Sequence[str], algorithms: Sequence[str], width: float) -> Any:
    """Lomet & Luo Figure 5: Wamp against F, a panel per workload, on a log axis (it spans
    decades); under uniform writes the age-based model (eq. 4: Wamp = (1 − E)/E) beside."""
    from reclaim.models.lomet import age_based

    f5 = [r for r in rows if r["table"] == "figure5"]
    fig, axes = style.figure(width, ncols=len(workloads), legend_rows=2, sharey=True)
    specs = [LOMET_SCHEMES.get(a, a) for a in algorithms]
    styles = style.series(specs)
    for ax, w in zip(axes[0], workloads, strict=True):
        pts = sorted((r for r in f5 if r["workload"] == w), key=lambda r: r["fill"])
        for a, st in zip(algorithms, styles, strict=True):
            if pts and a in pts[0]:
                ax.plot([r["fill"] for r in pts], [r[a] for r in pts], label=a, **st.mpl())
        if style.parse(w)[0] == "uniform" and pts:
            fs = [0.5 + 0.01 * k for k in range(46)]
            ax.plot(fs, [age_based(f).wamp for f in fs], label="eq. 4, age-based (uniform)", **style.MODEL)
        ax.set(title=style.display(w), xlabel="fill factor F", yscale="log")
    axes[0][0].set_ylabel("Wamp")
    style.legend_outside(fig, list(axes[0]))
    return fig


def lomet_mdc(rows: Sequence[Row], workloads: Sequence[str], algorithms: Sequence[str], folder: Path) -> list[Path]:
    """Lomet & Luo's Table 1 (MDC-opt) and Figure 5, written."""
    t1 = [{"fill": r["fill"], "published_mdc_opt": r["paper"], "eq4": r["analysis"], "reclaim": r["ours"]} for r in rows
          if r["table"] == "table1"]
    out = style.save(lambda w: draw_lomet_mdc_table1(rows, w), folder, "lomet-table1-mdc-opt", t1) if t1 else []
    f5 = [{"workload": r["workload"], "fill": r["fill"], **{a: r[a] for a in algorithms if a in r}} for r in rows if r["table"] == "figure5"]
    if f5:
        out += style.save(lambda w: draw_lomet_figure5(rows, workloads, algorithms, w), folder, "lomet-figure5-wamp", f5)
    return out


def _cell_value(cells: dict[tuple[int, int], Row], d: int, f: int, key: str) -> float:
    v = cells.get((d, f), {}).get(key)
    return float("nan") if v is None else float(v)


def draw_stockmeyer_grid(rows: Sequence[Row], grid: int, variant: str, key: str, label: str, caches: Sequence[int],
                         exps: Sequence[int], width: float) -> Any:
    """One of Stockmeyer's grids (a metric over DtgSortExp × FscSortExp) as heat maps: the
    report's published values, reclaim's on the same colour scale (cividis, readable under
    colour-vision deficiencies and in grey), and reclaim's relative difference (a diverging scale
    centred on 0), a row per cache size; each cell's value written in it."""
    import numpy as np

    fig, axes = style.figure(width, aspect=0.85, ncols=3, nrows=len(caches), legend_rows=0)
    for i, cache in enumerate(caches):
        cells = {(r["dtg"], r["fsc"]): r for r in rows if r["table"] == f"figure{grid}" and r["cache"] == cache and r["variant"] == variant}
        ours = np.array([[_cell_value(cells, d, f, key) for f in exps] for d in exps])
        paper = np.array([[_cell_value(cells, d, f, "paper_" + key) for f in exps] for d in exps])
        both = np.concatenate([ours[np.isfinite(ours)], paper[np.isfinite(paper)]])
        lo, hi = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            diff = (ours - paper) / paper
        span = float(np.nanmax(np.abs(diff))) if np.isfinite(diff).any() else 1.0
        for j, (data, what, cmap, vmin, vmax, fmt) in enumerate(((paper, "published", "cividis", lo, hi, "{:.3g}"),
                                                                  (ours, "reclaim", "cividis", lo, hi, "{:.3g}"),
                                                                  (diff, "reclaim vs published", "RdBu_r", -span, span, "{:+.0%}"))):
            ax = axes[i][j]
            im = ax.imshow(data, origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
            for (d, f), v in np.ndenumerate(data):
                if np.isfinite(v):
                    dark = v < (vmin + vmax) / 2 if cmap == "cividis" else abs(v) > 0.6 * vmax
                    ax.text(f, d, fmt.format(v), ha="center", va="center", fontsize=4.5, color="white" if dark else "black")
            ax.set_xticks(range(len(exps)), [str(e) for e in exps])
            ax.set_yticks(range(len(exps)), [str(e) for e in exps])
            ax.grid(visible=False)
            ax.set_title(f"{what}, cache = {cache}", fontsize=6)
            if i == len(caches) - 1:
                ax.set_xlabel("FscSortExp")
            if j == 0:
                ax.set_ylabel("DtgSortExp")
            if j != 0:
                fig.colorbar(im, ax=ax, shrink=0.8).ax.tick_params(labelsize=5)
    fig.suptitle(label)
    return fig


def stockmeyer_grids(rows: Sequence[Row], plots: Sequence[tuple[int, int, str, str, str]], caches: Sequence[int],
                     exps: Sequence[int], folder: Path) -> list[Path]:
    """Each of Stockmeyer's grid figures ``(figure, grid table, variant, metric, label)`` as heat
    maps (:func:`draw_stockmeyer_grid`), written with its cells as CSV."""
    out: list[Path] = []
    for num, grid, variant, key, label in plots:
        cells = [{"cache": r["cache"], "dtg": r["dtg"], "fsc": r["fsc"], "published": r.get("paper_" + key), "reclaim": r.get(key)}
                 for r in rows if r["table"] == f"figure{grid}" and r["variant"] == variant]
        if not cells:
            continue
        out += style.save(functools.partial(_draw_grid_at, rows, grid, variant, key, f"Figure {num}: {label}", caches, exps), folder,
                          f"stockmeyer-figure{num}-heatmap", cells)
    return out


def _draw_grid_at(rows: Sequence[Row], grid: int, variant: str, key: str, label: str, caches: Sequence[int], exps: Sequence[int],
                  width: float) -> Any:
    return draw_stockmeyer_grid(rows, grid, variant, key, label, caches, exps, width)


def draw_latency(rows: Sequence[Row], baseline: str, width: float) -> Any:
    """Read tail latency against the offered write load (ttFlash's Fig. 1 axes), a column per
    spare factor and a row per percentile (p99, p99.9), on log axes; each scheme in its colour
    with its die-time bound a dotted vertical line, the device without cleaning in black."""
    from matplotlib.ticker import NullFormatter

    spares = sorted({r["spare"] for r in rows})
    schemes = sorted({r["scheme"] for r in rows if r["scheme"] != baseline})
    styles = dict(zip(schemes, style.series(schemes), strict=True))
    fig, axes = style.figure(width, aspect=0.8, ncols=len(spares), nrows=2, legend_rows=2, sharex=True, sharey="row")
    for col, spare in enumerate(spares):
        for row_i, (key, label) in enumerate((("read_p99", "read p99"), ("read_p999", "read p99.9"))):
            ax = axes[row_i][col]
            for r in (x for x in rows if x["spare"] == spare):
                pts = r["points"]
                if r["scheme"] == baseline:
                    kw: dict[str, Any] = {"color": "#000000", "linestyle": "--", "marker": None}
                    name = baseline
                else:
                    st = styles[r["scheme"]]
                    kw = {"color": st.color, "linestyle": st.dash, "marker": st.marker, "markersize": 2.5}
                    name = style.display(r["scheme"])
                ax.plot([p["offered"] for p in pts], [p[key] / 1e3 for p in pts], label=name, **kw)
                if r["scheme"] != baseline:
                    ax.axvline(r["bound"], color=kw["color"], linestyle=":", linewidth=0.8)
            ax.set(xscale="log", yscale="log")
            # Decades only: the minor ticks' labels (2×10², 3×10², …) run into each other at print size.
            ax.xaxis.set_minor_formatter(NullFormatter())
            if row_i == 0:
                ax.set_title(f"spare factor {spare:g}")
            if row_i == 1:
                ax.set_xlabel("offered writes / s")
            if col == 0:
                ax.set_ylabel(f"{label} [ms]")
    style.legend_outside(fig, [a for r_ in axes for a in r_], title="dotted: each scheme's die-time bound")
    return fig


def latency(rows: Sequence[Row], baseline: str, folder: Path) -> list[Path]:
    """:func:`draw_latency`, written, with every point as CSV."""
    data = [{"scheme": r["scheme"], "spare": r["spare"], "wa": r.get("wa"), "bound": r.get("bound"), "offered": p["offered"],
             "read_p99_us": p["read_p99"], "read_p999_us": p["read_p999"]} for r in rows for p in r["points"]]
    return style.save(lambda w: draw_latency(rows, baseline, w), folder, "latency-read-tail-against-load", data)
