"""`reclaim report`: a results database as one self-contained HTML page, and as figures for papers.

The page holds its scripts and data inline (plotly.js and the figures' JSON) and a content
security policy that forbids every fetch, so it opens offline, from a mail attachment or an
archive, years later. Per sweep it shows:

- WA against the sweep's main numeric axis (the spare factor when it varies), one line per value
  of its main categorical axis (the policy when it varies), one figure per combination of the
  other varying parameters; each point is the mean over seeds, its bar the seeds' range (min to
  max), its hover the count, mean and standard deviation;
- the valid-page distributions of victims and of all sealed segments (Van Houdt Fig. 3) at the
  middle value of the numeric axis, averaged over seeds;
- the WA time series at that value (first seed);
- a table of every task with its varying parameters and metrics (click a header to sort);
- for timed runs (``device``), latency against offered load, the knee: each of the read p99, the
  read p99.9 and the write p99 against the Poisson rate asked (``arrivals = "poisson:iops=N"``,
  or the IOPS completed under other arrivals), one line per combination of the other varying
  parameters, mean over seeds, on log axes (without a load axis, each line's read and write
  latency tails from the percentiles kept instead); the task table then also shows the latencies, the
  IOPS and how busy the dies were. The arrival process changes only the clock, never WA: it is
  not a facet of the WA figures;
- for the tasks that replay traces, what lifetime-based placement exploits in each trace (or
  volume) beside the WA measured on it: page writes, working set, the lifetimes (write-reuse
  distances) as quantiles and as a CDF, and the share of writes rewritten within 10% and 100% of
  the working set (``reclaim trace stats``; a trace file not found where the report is built is
  said so).

For a reproduction's sweep (``reproduce:NAME[:quick]``) it also rebuilds the reproduction's rows
from the database alone, running nothing, and embeds its figures in the paper's layout as
``reclaim reproduce NAME --figures`` draws them (images inside the page, their data as CSV to
download, the printed table beside them); where a run is missing it says so instead.

Zoom, hover and series toggles are plotly's. ``--figures DIR`` writes the WA figures with
matplotlib as PNG, SVG and PDF.
"""

from __future__ import annotations

import datetime
import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reclaim.experiments.store import CONFIG_COLUMNS, _connect

#: Columns shown in the task table beside the varying parameters.
TABLE_METRICS = ("wa", "wamp", "gcu", "emptiness_at_clean", "cleaning_cost", "user_writes", "seconds")
#: A timed run's columns (``TimeResult.scalars`` names; NULL without a device) the task table
#: adds when a sweep has timed runs.
TIME_METRICS = ("read_latency_p99", "read_latency_p999", "write_latency_p99", "iops", "write_iops", "die_busy", "gc_busy")
#: The latencies drawn against offered load: (column, what it is).
KNEE_METRICS = (("read_latency_p99", "read latency p99"), ("read_latency_p999", "read latency p99.9"),
                ("write_latency_p99", "write latency p99"))
#: The percentiles a timed run keeps, with their probabilities: a sweep without a load axis
#: (each line one point) draws them as the tail of each latency distribution instead of knees.
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999), ("p9999", 0.9999))
PERCENTILE_COLUMNS = tuple(f"{kind}_latency_{p}" for kind in ("read", "write") for p, _ in PERCENTILES)
#: Parameters that change only a timed run's clock: not facets of the WA figures.
CLOCK_ONLY = ("arrivals",)
#: Preferred axes: the x axis, then the lines.
X_PREFERENCE = ("spare", "fill", "logical_pages", "segments", "pages_per_segment", "cache", "window")
LINE_PREFERENCE = ("policy", "placement", "frontier", "gc", "workload")
#: What :func:`reclaim.figures.predict` reads of a task, beside the varying parameters.
MODEL_INPUTS = ("policy", "spare", "fill", "pages_per_segment", "segments", "frontier", "placement", "gc", "cache", "sizes", "device")
#: Parameters whose values are schemes: shown by their registry names (:func:`reclaim.style.display`).
SCHEME_COLUMNS = ("policy", "placement", "frontier", "gc", "workload", "sizes", "method", "device", "arrivals")
#: Rows of the task table before it is cut (the database holds them all).
TABLE_LIMIT = 5000
#: Traces (or volumes) whose statistics a report shows, per sweep, before it says how many more.
TRACE_LIMIT = 50
#: No fetch of any kind: scripts, styles and images are inline.
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:"

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { font-size: 1.1em; }
.meta { color: #555; } .fig { width: 100%; height: 460px; }
table { border-collapse: collapse; font-size: 12px; } th, td { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: right; }
th { cursor: pointer; background: #f4f4f4; position: sticky; top: 0; } td.t, th.t { text-align: left; }
.tablewrap { max-height: 480px; overflow: auto; border: 1px solid #ddd; } .fail { color: #a00; }
figure.paper { margin: 1em 0; } figure.paper img { width: 100%; max-width: 960px; height: auto; } figcaption { color: #555; font-size: 12px; }
pre { font-size: 11px; overflow: auto; }
"""
SORT_JS = """
document.querySelectorAll('table.sortable').forEach(function (t) {
  t.querySelectorAll('th').forEach(function (th, i) {
    th.addEventListener('click', function () {
      var body = t.tBodies[0], rows = Array.from(body.rows), asc = th.dataset.asc !== '1';
      rows.sort(function (a, b) {
        var x = a.cells[i].dataset.v, y = b.cells[i].dataset.v, nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
      th.dataset.asc = asc ? '1' : '0';
    });
  });
});
"""


@dataclass
class ReportSummary:
    """What a report holds."""

    path: Path
    sweeps: int = 0
    tasks: int = 0
    figures: int = 0
    figure_files: list[Path] = field(default_factory=list)
    #: The reproductions' paper figures embedded (:func:`_reproduction`).
    paper_figures: int = 0


@dataclass
class _Group:
    name: str
    frame: Any
    varying: list[str]
    x: str | None
    line: str | None
    facets: list[str]
    #: Whether some of its tasks ran on a device's clock (their time columns are not NULL).
    timed: bool = False


def _groups(con: Any, sweep: str | None) -> list[_Group]:
    names = [r[0] for r in con.execute("SELECT DISTINCT sweep FROM sweep_tasks ORDER BY sweep").fetchall()]
    if sweep is not None:
        if sweep not in names:
            raise ValueError(f"invalid value for `sweep`: {sweep!r} (expected one of {', '.join(names) or 'no sweep: the database is empty'})")
        names = [sweep]
    have = {r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'tasks'").fetchall()}
    given = [c for c in CONFIG_COLUMNS if c != "seed" and c in have]
    selections = [(n, "FROM tasks t JOIN sweep_tasks s USING (key) WHERE s.sweep = $sweep", {"sweep": n}) for n in names]
    if not names:
        selections = [("all tasks", "FROM tasks t", {})]
    out = []
    for name, where, params in selections:
        # Varying as given (the canonical configuration), not as simulated (`simulated_*`, which
        # follows from `spare` and the rest): distinct values of each parameter, counted by DuckDB.
        distinct = [f"count(DISTINCT coalesce(CAST(json_extract(t.config, '$.{c}') AS VARCHAR), 'null'))" for c in given]
        n, *counts = con.execute(f"SELECT {', '.join(['count(*)', *distinct])} {where}", params).fetchall()[0]
        if not n:
            continue
        varying = [c for c, k in zip(given, counts, strict=True) if k > 1]
        # The frame holds only what the figures and the table read (the histograms are read for
        # the few tasks they show): every column was 12 KB a task, 1.25 GB for 100,000 tasks.
        # The clock's columns only where a task ran with a device.
        clocked = "device_spec" in have and con.execute(f"SELECT count(t.device_spec) {where}", params).fetchall()[0][0] > 0
        timing = ("arrivals", *TIME_METRICS, *PERCENTILE_COLUMNS) if clocked else ()
        wanted = dict.fromkeys(c for c in ("key", "seed", "wa", *varying, "simulated_spare", *TABLE_METRICS, "workload", "volume",
                                           *MODEL_INPUTS, *timing) if c in have)
        # Through Arrow: DuckDB's own pandas conversion warns under pandas 3.
        df = con.sql(f"SELECT {', '.join(f't.{_quoted(c)}' for c in wanted)} {where} ORDER BY t.key", params=params).to_arrow_table().to_pandas()
        timed = "read_latency_p99" in df and bool(df[[c for c in TIME_METRICS if c in df]].notna().any().any())
        # The WA figures' axes: what the arrivals change is only the clock (the knee's x).
        axes = [c for c in varying if not (timed and c in CLOCK_ONLY)]
        numeric = [c for c in X_PREFERENCE if c in axes] + [c for c in axes if c not in X_PREFERENCE and CONFIG_COLUMNS[c] in ("BIGINT", "DOUBLE")]
        x = numeric[0] if numeric else (axes[0] if axes else None)
        rest = [c for c in axes if c != x]
        lines = [c for c in LINE_PREFERENCE if c in rest] + [c for c in rest if c not in LINE_PREFERENCE]
        line = lines[0] if lines else None
        facets = [c for c in rest if c != line]
        out.append(_Group(name, df, varying, x, line, facets, timed))
    return out


def _quoted(name: str) -> str:
    """A column name for SQL (``window`` and others are keywords)."""
    return '"' + name.replace('"', '""') + '"'


def _shown(col: str, value: Any) -> str:
    """A parameter's value as a figure shows it: a scheme by its registry name, a number as
    ``%g``, a path by its file name."""
    from reclaim import style

    if col in SCHEME_COLUMNS:
        return style.display(value)
    if isinstance(value, float):
        return f"{value:g}"
    # A path (a trace's, a temporary folder's) by its file name.
    return Path(str(value)).name if str(value).startswith("/") else str(value)


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _label(row: Any, cols: list[str]) -> str:
    """The facet's label: its parameters' names and values as readers know them (a missing value,
    such as the volume of a run on a whole trace, is left out)."""
    from reclaim.style import AXES

    return ", ".join(f"{AXES.get(c, c)} = {_shown(c, row[c])}" if c not in ("workload", "policy", "placement") else _shown(c, row[c])
                     for c in cols if not _missing(row[c]))


def _ci95(std: float, n: int) -> float:
    """Half-width of the 95% confidence interval of a mean over ``n`` seeds (Student's t)."""
    from scipy.stats import t

    return float(t.ppf(0.975, n - 1) * std / math.sqrt(n)) if n > 1 else 0.0


def _baseline(values: list[Any]) -> Any:
    """The line the relative view divides by: greedy where it is one of them."""
    from reclaim.style import parse

    return next((v for v in values if isinstance(v, str) and parse(v)[0] == "greedy"), None)


@dataclass
class _Line:
    """One line of a WA figure: its spec, label, style, points and the model's curve."""

    key: Any
    label: str
    style: Any
    points: list[dict[str, Any]]
    model: list[tuple[Any, float]]
    model_name: str | None


@dataclass
class _Facet:
    """One facet of a sweep's WA figures: its lines, and the same over the baseline's WA."""

    label: str
    x: str | None
    #: Whether the x axis is categorical (points grouped, not joined).
    categorical: bool
    lines: list[_Line]
    #: Each line's WA over the baseline's at the same x and seed (empty without a baseline).
    relative: list[_Line]
    baseline: str | None
    seeds: int
    #: The widest seeds' range relative to its mean.
    spread: float
    #: The categories' order on a categorical x axis, where not by value (a table's settings).
    order: list[Any] | None = None


def _stats(frame: Any, xcol: str, col: str, name: str, spec: Any) -> list[dict[str, Any]]:
    stats = frame.groupby(xcol, sort=True, observed=True)[col].agg(["mean", "min", "max", "std", "count"]).reset_index()
    return [{"line": name, "spec": str(spec), "x": r[xcol], "mean": float(r["mean"]), "min": float(r["min"]),
             "max": float(r["max"]), "std": 0.0 if _missing(r["std"]) else float(r["std"]), "n": int(r["count"]),
             "ci95": _ci95(0.0 if _missing(r["std"]) else float(r["std"]), int(r["count"]))} for _, r in stats.iterrows()]


def _model_curve(ld: Any, xcol: str) -> tuple[list[tuple[Any, float]], str | None]:
    """The model's WA at each x of a line (:func:`reclaim.figures.predict`), where one applies."""
    from reclaim.figures import predict

    if xcol not in ("spare", "fill"):
        return [], None
    out, name = [], None
    for x, xd in ld.groupby(xcol, sort=True, observed=True):
        row = xd.iloc[0]
        p = predict({c: (None if _missing(row[c]) else row[c]) for c in (*MODEL_INPUTS, "workload") if c in row})
        if p is not None:
            out.append((x, p.wa))
            name = p.model
    return out, name


def _facets(g: _Group) -> list[_Facet]:
    """The sweep's WA figures' content, one per facet (a combination of the other varying
    parameters): per line the mean, range, standard deviation and 95% CI over seeds at each x,
    the model's curve where one applies, and the relative view when greedy is one of the lines."""
    import pandas as pd

    from reclaim import style

    df = g.frame.copy()
    df["_facet"] = df.apply(lambda r: _label(r, g.facets), axis=1) if g.facets else ""
    xcol = g.x or "_one"
    if g.x is None:
        df["_one"] = ""
    categorical = g.x is None or CONFIG_COLUMNS.get(g.x) not in ("BIGINT", "DOUBLE")
    by = ["_facet", g.line] if g.line else ["_facet"]
    if g.facets and g.x and df.groupby(by)[g.x].nunique().max() <= 1:
        # Every facet would be a figure of one point per line (a reproduction's table, each row
        # its own setting): one figure instead, a point per setting on a categorical axis.
        cols = [c for c in g.varying if c in (g.x, *g.facets) and c not in CLOCK_ONLY]
        df["_setting"] = df.apply(lambda r: _label(r, cols), axis=1)
        # In the order of the settings' values (8 before 16), not of their labels.
        order = df.sort_values(cols)["_setting"].drop_duplicates().tolist()
        df["_setting"] = pd.Categorical(df["_setting"], categories=order, ordered=True)
        df["_facet"] = ""
        # A line per value of the line's parameter only where settings share them.
        line = g.line if g.line and df.groupby("_setting")[g.line].nunique().max() > 1 else None
        g = _Group(g.name, df, g.varying, "_setting", line, [], g.timed)
        xcol, categorical = "_setting", True
    out = []
    for facet, fd in df.groupby("_facet", sort=True):
        keys = sorted(fd[g.line].unique().tolist(), key=str) if g.line else ["wa"]
        if g.line in SCHEME_COLUMNS:
            names = style.labels(keys)
        elif g.line:
            names = [f"{style.AXES.get(g.line, g.line)} = {_shown(g.line, k)}" for k in keys]
        else:
            names = ["WA"]
        styles = style.series(keys)
        lines, relative = [], []
        base = _baseline(keys) if g.line and len(keys) > 1 else None
        bd = fd[fd[g.line] == base][[xcol, "seed", "wa"]].rename(columns={"wa": "_base"}) if base is not None else None
        base_model: dict[Any, float] = {}
        for key, name, st in zip(keys, names, styles, strict=True):
            ld = fd[fd[g.line] == key] if g.line else fd
            model, model_name = _model_curve(ld, xcol)
            lines.append(_Line(key, name, st, _stats(ld, xcol, "wa", name, key), model, model_name))
            if key == base:
                base_model = dict(model)
        if bd is not None:
            label_of = {ln.key: ln for ln in lines}
            for key in keys:
                ln = label_of[key]
                paired = fd[fd[g.line] == key][[xcol, "seed", "wa"]].merge(bd, on=[xcol, "seed"])
                paired["_rel"] = paired["wa"] / paired["_base"]
                model = [(x, wa / base_model[x]) for x, wa in ln.model if x in base_model]
                relative.append(_Line(key, ln.label, ln.style, _stats(paired, xcol, "_rel", ln.label, key), model, ln.model_name))
        spread = max(((p["max"] - p["min"]) / p["mean"] for ln in lines for p in ln.points if p["mean"]), default=0.0)
        order = list(fd[xcol].cat.categories) if xcol == "_setting" else None
        out.append(_Facet(str(facet), g.x, categorical, lines, relative, _shown(g.line or "", base) if base is not None else None,
                          int(fd["seed"].nunique()), spread, order))
    return out


def _wa_title(f: _Facet, relative: bool = False) -> str:
    from reclaim.style import AXES

    what = f"WA over {f.baseline}'s" if relative else "WA"
    against = f" against {AXES.get(f.x, f.x)}" if f.x else ""
    return what + against + (", paired by seed" if relative else "") + (f" — {f.label}" if f.label else "")


def _plotly_wa(f: _Facet, relative: bool = False) -> Any:
    """A facet's WA figure (or its relative view) for the HTML page."""
    import plotly.graph_objects as go

    from reclaim.style import AXES

    fig = go.Figure()
    lines = f.relative if relative else f.lines
    for ln in lines:
        xs = [_shown(f.x, p["x"]) if f.categorical and f.x else p["x"] for p in ln.points]
        ys = [p["mean"] for p in ln.points]
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="markers" if f.categorical else "lines+markers", name=ln.label, legendgroup=ln.label,
            line=ln.style.plotly_line(), marker=ln.style.plotly_marker(),
            error_y={"type": "data", "symmetric": False, "array": [p["max"] - p["mean"] for p in ln.points],
                     "arrayminus": [p["mean"] - p["min"] for p in ln.points], "thickness": 1.5, "width": 6, "color": ln.style.color},
            customdata=[[p["n"], p["std"], p["min"], p["max"], p["ci95"]] for p in ln.points],
            hovertemplate=f"{html.escape(ln.label)}<br>%{{x}}<br>{'WA ratio' if relative else 'WA'} = %{{y:.4f}} (mean of %{{customdata[0]}} seeds)"
                          "<br>range %{customdata[2]:.4f} – %{customdata[3]:.4f}, sd %{customdata[1]:.4f}"
                          "<br>95% CI of the mean ± %{customdata[4]:.4f}<extra></extra>"))
        if ln.model and not (relative and ln.key == _baseline([ln.key])):
            fig.add_trace(go.Scatter(
                x=[x for x, _ in ln.model], y=[y for _, y in ln.model], mode="lines", name=f"{ln.label}: {ln.model_name}",
                legendgroup=ln.label, line={"color": ln.style.color, "width": 6}, opacity=0.35,
                hovertemplate=f"{html.escape(ln.label)}, {html.escape(ln.model_name or '')}<br>%{{x}}: %{{y:.4f}}<extra></extra>"))
    ys = [p["mean"] for ln in lines for p in ln.points]
    log = bool(ys) and min(ys) > 0 and max(ys) / min(ys) > 10
    fig.update_layout(title=_wa_title(f, relative), xaxis_title=AXES.get(f.x or "", f.x or ""), xaxis_type="log" if _log_x(f) else None,
                      yaxis_title=f"WA / {f.baseline}'s WA" if relative else "write amplification (WA)",
                      yaxis_type="log" if log else "linear", scattermode="group" if f.categorical else "overlay",
                      legend={"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0},
                      margin={"t": 50, "r": 20, "b": 40}, template="plotly_white")
    if f.order:
        fig.update_xaxes(categoryorder="array", categoryarray=[_shown(f.x or "", c) for c in f.order])
    return fig


def _rank(f: _Facet, v: Any) -> tuple[Any, ...]:
    """A category's place on the x axis: the facet's order where it has one, else by value."""
    if f.order is not None and v in f.order:
        return (0, f.order.index(v))
    return (1, isinstance(v, str), v)


def _log_x(f: _Facet) -> bool:
    """Whether the x axis spans decades (a cache or a window from 10 to 10,000): then logarithmic."""
    xs = [float(p["x"]) for ln in f.lines for p in ln.points] if not f.categorical else []
    return bool(xs) and min(xs) > 0 and max(xs) / min(xs) >= 100


def _intervals_note(f: _Facet) -> str:
    """What the bars are, and why they may not show."""
    if f.seeds < 2:
        text = "Points: one seed each, so no interval: a sweep with replications > 1 draws the seeds' range and a 95% CI."
    else:
        text = (f"Points: mean over {f.seeds} seeds; bars: the seeds' range (min to max), the widest {f.spread:.2%} of its mean"
                + (", smaller than a marker here" if f.spread < 0.02 else "") + "; hover: standard deviation and the 95% confidence "
                "interval of the mean (Student's t over seeds).")
    models = sorted({ln.model_name for ln in f.lines if ln.model_name})
    if models:
        text += (f" Wide pale lines: the model's WA where one applies to the line's configuration ({', '.join(models)}; "
                 "docs/figures.md says which).")
    if f.relative:
        text += (f" The relative view divides each run's WA by {f.baseline}'s on the same seed and x, so that differences "
                 "far below WA's own scale, and their spread over seeds, show.")
    return f"<p class=meta>{html.escape(text)}</p>"


def _mpl_wa(f: _Facet, width: float, relative: bool = False) -> Any:
    """A facet's WA figure (or its relative view) for print, ``width`` inches wide."""
    from reclaim import style
    from reclaim.style import AXES

    lines = f.relative if relative else f.lines
    n = len(lines) + sum(1 for ln in lines if ln.model)
    per_row = max(1, int(width // 1.7))
    fig, axes = style.figure(width, legend_rows=-(-n // per_row))
    ax = axes[0][0]
    # A table's settings in the order of their values (8 before 16), other categories by value.
    cats = sorted({p["x"] for ln in lines for p in ln.points}, key=lambda v: _rank(f, v)) if f.categorical else []
    order: list[str] = []
    for i, ln in enumerate(lines):
        order.append(ln.label)
        if f.categorical:
            # Grouped points, side by side at each category, never joined.
            shift = (i - (len(lines) - 1) / 2) * 0.8 / max(len(lines), 1)
            xs = [cats.index(p["x"]) + shift for p in ln.points]
        else:
            xs = [p["x"] for p in ln.points]
        ax.errorbar(xs, [p["mean"] for p in ln.points],
                    yerr=[[p["mean"] - p["min"] for p in ln.points], [p["max"] - p["mean"] for p in ln.points]],
                    label=ln.label, color=ln.style.color, marker=ln.style.marker,
                    linestyle="none" if f.categorical else ln.style.dash, markersize=3.5, elinewidth=0.8, zorder=3)
        if ln.model and not (relative and ln.key == _baseline([ln.key])):
            # A wide pale line under the simulation's: where they agree both stay visible.
            ax.plot([x for x, _ in ln.model], [y for _, y in ln.model], color=ln.style.color, linewidth=3.2, alpha=0.35,
                    solid_capstyle="round", label=f"{ln.label}: model", zorder=2)
            order.append(f"{ln.label}: model")
    if f.categorical:
        ticks = [_shown(f.x or "", c) for c in cats]
        if max(map(len, ticks), default=0) > 16:
            # Settings too long for a tick: numbered in the CSV's order of x.
            ticks = [str(i + 1) for i in range(len(cats))]
            ax.set_xlabel(f"{AXES.get(f.x or '', f.x or '')} (numbered as the CSV's x, sorted)")
        ax.set_xticks(range(len(cats)), ticks)
    ys = [p["mean"] for ln in lines for p in ln.points]
    if ys and min(ys) > 0 and max(ys) / min(ys) > 10:
        ax.set_yscale("log")
    if _log_x(f):
        ax.set_xscale("log")
    if not ax.get_xlabel():
        ax.set_xlabel(AXES.get(f.x or "", f.x or ""))
    ax.set(ylabel=f"WA / {f.baseline}'s" if relative else "WA", title=f.label)
    style.legend_outside(fig, ax, ncol=per_row, order=order)
    return fig


def _figure_files(g: _Group, f: _Facet, folder: Path, index: int) -> list[Path]:
    """The facet's WA figure and its relative view, for print (:func:`reclaim.style.save`), each
    with its data as CSV."""
    from reclaim import style

    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in f"{g.name}-{index:02d}")

    def rows(lines: list[_Line]) -> list[dict[str, Any]]:
        out = [{"facet": f.label, **p, "model": dict(ln.model).get(p["x"]), "model_name": ln.model_name} for ln in lines for p in ln.points]
        return out

    out = style.save(lambda w: _mpl_wa(f, w), folder, f"wa-{safe}", rows(f.lines))
    if f.relative:
        out += style.save(lambda w: _mpl_wa(f, w, relative=True), folder, f"wa-relative-{safe}", rows(f.relative))
    return out


def _axis(col: str | None) -> str:
    from reclaim.style import AXES

    return AXES.get(col or "", col or "")


def _where(title: str, g: _Group, at: Any, facet: str) -> str:
    """A figure's title: what it shows, at which x (the middle one) and in which facet."""
    parts = [f"{_axis(g.x)} = {_shown(g.x, at)}" if g.x else "", facet]
    rest = ", ".join(p for p in parts if p)
    return f"{title} — {rest}" if rest else title


def _names(g: _Group, fd: Any) -> dict[Any, tuple[str, Any]]:
    """Each line's label and style, as the WA figures give them."""
    from reclaim import style

    if not g.line:
        return {}
    keys = sorted(fd[g.line].unique().tolist(), key=str)
    names = style.labels(keys) if g.line in SCHEME_COLUMNS else [f"{_axis(g.line)} = {_shown(g.line, k)}" for k in keys]
    return {k: (n, st) for k, n, st in zip(keys, names, style.series(keys), strict=True)}


def _middle(values: list[Any]) -> Any:
    vs = sorted(set(values), key=lambda v: (isinstance(v, str), v))
    return vs[len(vs) // 2]


def _histogram_figures(con: Any, g: _Group, facet: str, fd: Any) -> list[Any]:
    import numpy as np
    import plotly.graph_objects as go

    at = _middle(fd[g.x].tolist()) if g.x else None
    sel = fd[fd[g.x] == at] if g.x else fd
    hist = con.sql("SELECT key, victim_valid_histogram, segment_valid_histogram FROM tasks WHERE key IN (SELECT unnest($keys))",
                   params={"keys": sel["key"].tolist()}).to_arrow_table().to_pandas()
    sel = sel.merge(hist, on="key", how="left")
    named = _names(g, fd)
    figs = []
    for col, title, ytitle in (("victim_valid_histogram", "Valid pages in victims", "share of victims"),
                               ("segment_valid_histogram", "Valid pages over sealed segments (Van Houdt Fig. 3)", "share of segments")):
        fig = go.Figure()
        for line, ld in sel.groupby(g.line if g.line else (lambda _: "WA"), sort=True):
            hists = [np.asarray(h, dtype=float) for h in ld[col] if h is not None and len(h)]
            if not hists or len({len(h) for h in hists}) != 1:
                continue
            h = np.mean([x / x.sum() if x.sum() > 0 else x for x in hists], axis=0)
            name, st = named.get(line, (str(line), None))
            fig.add_trace(go.Scatter(x=list(range(len(h))), y=h.tolist(), mode="lines", name=name,
                                     line=st.plotly_line() if st is not None else None,
                                     hovertemplate=f"{html.escape(name)}<br>%{{x}} valid pages: %{{y:.4f}}<extra></extra>"))
        fig.update_layout(title=_where(title, g, at, facet), xaxis_title="valid pages", yaxis_title=ytitle,
                          legend_title=_axis(g.line), margin={"t": 50, "r": 20}, template="plotly_white")
        figs.append(fig)
    return figs


def _series_figure(con: Any, g: _Group, facet: str, fd: Any) -> Any:
    import plotly.graph_objects as go

    at = _middle(fd[g.x].tolist()) if g.x else None
    sel = fd[fd[g.x] == at] if g.x else fd
    sel = sel[sel["seed"] == sel["seed"].min()]
    if g.timed and any(c in g.varying for c in CLOCK_ONLY):
        # Tasks that differ only in their arrivals have the same WA in every window: one each.
        sel = sel.drop_duplicates(subset=[g.line]) if g.line else sel.head(1)
    fig = go.Figure()
    named = _names(g, fd)
    for _, row in sel.sort_values(g.line or "key").iterrows():
        s = con.execute("SELECT window_index, wa FROM series WHERE key = ? ORDER BY window_index", [row["key"]]).fetchall()
        if s:
            name, st = named.get(row[g.line], (str(row[g.line]), None)) if g.line else ("WA", None)
            # Markers too: a run of one window is one point, which a line alone does not draw.
            fig.add_trace(go.Scatter(x=[r[0] for r in s], y=[r[1] for r in s], mode="lines" if len(s) > 1 else "markers",
                                     name=name, line=st.plotly_line() if st is not None else None,
                                     marker=st.plotly_marker() if st is not None else None,
                                     hovertemplate=f"{html.escape(name)}<br>window %{{x}}: WA %{{y:.4f}}<extra></extra>"))
    seed = f"seed {int(sel['seed'].min())}" if len(sel) else ""
    fig.update_layout(title=_where("WA per window of the measured phase", g, at, ", ".join(x for x in (facet, seed) if x)),
                      xaxis_title="window (user writes / window size)", yaxis_title="WA in the window", legend_title=_axis(g.line),
                      margin={"t": 50, "r": 20}, template="plotly_white")
    return fig


def offered(arrivals: Any) -> float | None:
    """The rate a Poisson arrival process asks for [requests/s], from its spec; ``None`` for
    another process (or none).

    >>> offered("poisson:iops=2500"), offered("closed:iodepth=4"), offered(None)
    (2500.0, None, None)
    """
    if not isinstance(arrivals, str) or not arrivals.startswith("poisson:"):
        return None
    for item in arrivals.split(":", 1)[1].split(","):
        key, _, value = item.partition("=")
        if key.strip() == "iops":
            try:
                return float(value)
            except ValueError:
                return None
    return None


def _knee_figures(g: _Group) -> list[Any]:
    """Each latency of :data:`KNEE_METRICS` a timed sweep measured, against the offered rate
    (the Poisson rate asked) or, when some tasks have other arrivals, the IOPS completed: one
    line per combination of the varying parameters other than the arrivals, mean over seeds."""
    import plotly.graph_objects as go

    df = g.frame[g.frame["read_latency_p99"].notna() | g.frame["write_latency_p99"].notna()].copy()
    rates = df["arrivals"].map(offered) if "arrivals" in df else None
    if rates is not None and rates.notna().all():
        df["_x"], xtitle = rates.astype(float), "offered requests / s (Poisson)"
    else:
        df["_x"], xtitle = df["iops"].astype(float), "completed requests / s (IOPS)"
    others = [c for c in g.varying if c not in CLOCK_ONLY]
    df["_line"] = df.apply(lambda r: _label(r, others), axis=1) if others else "all"
    if df.groupby("_line")["_x"].nunique().max() <= 1:
        return [_tail_figure(df, others)]
    figs = []
    for col, name in KNEE_METRICS:
        if col not in df or not df[col].notna().any():
            continue
        fig = go.Figure()
        for line, ld in df[df[col].notna()].groupby("_line", sort=True):
            stats = ld.groupby("_x", sort=True)[col].agg(["mean", "count"]).reset_index()
            fig.add_trace(go.Scatter(
                x=stats["_x"].tolist(), y=(stats["mean"] / 1e3).tolist(), mode="lines+markers", name=str(line),
                customdata=stats[["count"]].values.tolist(),
                hovertemplate=f"{html.escape(str(line))}<br>%{{x:,.0f}} requests/s: {name} %{{y:,.3f}} ms"
                              "<br>(mean of %{customdata[0]})<extra></extra>"))
        fig.update_layout(title=f"{name} against load (the knee)", xaxis_title=xtitle, yaxis_title=f"{name} [ms]",
                          xaxis_type="log", yaxis_type="log", legend_title=", ".join(others), margin={"t": 50, "r": 20},
                          template="plotly_white")
        figs.append(fig)
    return figs


def _tail_figure(df: Any, others: list[str]) -> Any:
    """Without a load axis: each line's read (solid) and write (dashed) latency tails from the
    percentiles kept, P(latency > x) = 1 − q at x = the q-th percentile, mean over seeds, on log
    axes (the store keeps percentiles, not whole distributions)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for line, ld in df.groupby("_line", sort=True):
        for kind, dash in (("read", "solid"), ("write", "dash")):
            cols = [f"{kind}_latency_{p}" for p, _ in PERCENTILES]
            if not all(c in ld for c in cols) or not ld[cols[0]].notna().any():
                continue
            xs = [float(ld[c].mean()) / 1e3 for c in cols]
            fig.add_trace(go.Scatter(
                x=xs, y=[1.0 - q for _, q in PERCENTILES], mode="lines+markers", name=f"{line}: {kind}s",
                line={"dash": dash}, customdata=[p for p, _ in PERCENTILES],
                hovertemplate=f"{html.escape(str(line))}, {kind}s<br>%{{customdata}}: %{{x:,.3f}} ms<extra></extra>"))
    fig.update_layout(title="latency tails: share of requests slower than x", xaxis_title="latency [ms]",
                      yaxis_title="share slower (1 − percentile)", xaxis_type="log", yaxis_type="log",
                      legend_title=", ".join(others), margin={"t": 50, "r": 20}, template="plotly_white")
    return fig


def _cell(v: Any) -> tuple[str, str]:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "", ""
    if isinstance(v, float):
        return repr(v), f"{v:.6g}"
    return str(v), str(v)


def _off_spare(g: _Group) -> str:
    """A line naming how many tasks ran at another spare than their ``spare`` asked (a trace's
    small volume in whole segments, docs/traces.md "Small volumes"), by more than 2%."""
    f = g.frame
    if "spare" not in f or "simulated_spare" not in f:
        return ""
    asked, ran = f["spare"].astype(float), f["simulated_spare"].astype(float)
    off = int(((ran - asked).abs() > 0.02 * asked).sum())
    if not off:
        return ""
    return (f"<p class=meta>{off:,} of {len(f):,} tasks ran at another spare than the one asked (the column simulated_spare; "
            "the figures place them at the spare asked): a trace's small volume fills whole segments.</p>")


def _table(g: _Group) -> str:
    timed = [c for c in TIME_METRICS if c in g.frame] if g.timed else []
    cols = [*g.varying, *(["simulated_spare"] if "simulated_spare" in g.frame else []), "seed", *TABLE_METRICS, *timed, "key"]
    df = g.frame.sort_values([c for c in [*g.varying, "seed"] if c in g.frame])
    head = "".join(f'<th class="{"t" if CONFIG_COLUMNS.get(c) == "VARCHAR" or c == "key" else ""}">{html.escape(c)}</th>' for c in cols)
    rows = []
    for _, r in df.head(TABLE_LIMIT).iterrows():
        cells = []
        for c in cols:
            v = r[c] if c in r else None
            if c == "key" and v:
                v = str(v)[:12]
            raw, shown = _cell(v)
            cls = ' class="t"' if CONFIG_COLUMNS.get(c) == "VARCHAR" or c == "key" else ""
            cells.append(f'<td{cls} data-v="{html.escape(raw)}">{html.escape(shown)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    more = f"<p class=meta>{len(df) - TABLE_LIMIT:,} more rows in the database.</p>" if len(df) > TABLE_LIMIT else ""
    return f'{_off_spare(g)}<div class="tablewrap"><table class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>{more}'


def _trace_facts(workload: str, volume: Any, loaded: dict[Path, Any]) -> dict[str, Any] | None:
    """The lifetime statistics of the trace (or one volume of it) that ``workload`` replays;
    ``None`` when its file is not here. ``loaded`` caches the traces read."""
    from reclaim import traces

    path = Path(workload[len("trace:"):])
    if not path.is_file():
        return None
    if path not in loaded:
        loaded[path] = traces.load(path)
    t = loaded[path]
    names = [str(v["name"]) for v in t.meta.get("volumes") or []]
    pages = traces.pages_of_volume(t, names.index(volume)) if isinstance(volume, str) and volume in names else t.pages
    return traces.lifetimes(pages)


def _trace_section(g: _Group) -> tuple[str, Any | None]:
    """The statistics of each trace (or volume) the group replays, beside the WA measured on it:
    an HTML table and a figure of the lifetimes' CDF (``None`` when no trace file is here)."""
    import plotly.graph_objects as go

    df = g.frame
    if "workload" not in df:
        return "", None
    df = df[df["workload"].astype(str).str.startswith("trace:")]
    if df.empty:
        return "", None
    vol = df["volume"] if "volume" in df else None
    keys = sorted({(str(w), None if vol is None or v is None or (isinstance(v, float) and math.isnan(v)) else str(v))
                   for w, v in zip(df["workload"], vol if vol is not None else [None] * len(df), strict=True)},
                  key=lambda k: (k[0], k[1] or ""))
    loaded: dict[Path, Any] = {}
    fig = go.Figure()
    rows, missing = [], []
    for workload, volume in keys[:TRACE_LIMIT]:
        on = df[df["workload"].astype(str) == workload]
        if volume is not None:
            on = on[on["volume"].astype(str) == volume]
        wa = on["wa"]
        name = workload[len("trace:"):] + (f" [{volume}]" if volume else "")
        facts = _trace_facts(workload, volume, loaded)
        if facts is None:
            missing.append(name)
            continue
        q, within, n = facts["lifetime_quantiles"], facts["within"], facts["writes"]
        cells = [name, f"{n:,}", f"{facts['working_set']:,}", f"{facts['rewrites'] / n:.3f}" if n else "",
                 f"{q['0.1']:,.0f}", f"{q['0.5']:,.0f}", f"{q['0.9']:,.0f}",
                 f"{q['0.5'] / facts['working_set']:.3f}" if facts["working_set"] else "",
                 f"{within['0.1']:.3f}", f"{within['1']:.3f}",
                 f"{wa.min():.4f}", f"{wa.mean():.4f}", f"{wa.max():.4f}", f"{len(on)}"]
        rows.append("<tr>" + "".join(f'<td{" class=t" if i == 0 else ""} data-v="{html.escape(c)}">{html.escape(c)}</td>'
                                     for i, c in enumerate(cells)) + "</tr>")
        hist = facts["lifetime_histogram_log2"]
        if hist:
            total = sum(hist)
            cdf, acc = [], 0
            for h in hist:
                acc += h
                cdf.append(acc / total)
            fig.add_trace(go.Scatter(x=[2 ** (k + 1) for k in range(len(hist))], y=cdf, mode="lines+markers", name=name,
                                     hovertemplate=f"{html.escape(name)}<br>lifetime < %{{x:,}} writes: %{{y:.3f}}<extra></extra>"))
    heads = ["trace", "page writes", "working set", "rewritten", "lifetime p10", "p50", "p90", "p50 / working set",
             "within 10% WS", "within WS", "WA min", "WA mean", "WA max", "tasks"]
    out = ["<h3>Traces: what lifetime-based placement exploits, beside WA</h3>",
           "<p class=meta>Lifetimes are write-reuse distances in user writes (a write's data dies when its page is "
           "written again); <i>rewritten</i> is the share of writes whose page is written again; <i>within x</i> the "
           "share of all writes rewritten within x of the working set (<code>reclaim trace stats</code>).</p>"]
    if rows:
        head = "".join(f'<th class="{"t" if i == 0 else ""}">{html.escape(h)}</th>' for i, h in enumerate(heads))
        out.append(f'<div class="tablewrap"><table class="sortable"><thead><tr>{head}</tr></thead>'
                   f'<tbody>{"".join(rows)}</tbody></table></div>')
    if missing:
        out.append(f"<p class=meta>Not found here, so not shown: {html.escape(', '.join(missing))}.</p>")
    if len(keys) > TRACE_LIMIT:
        out.append(f"<p class=meta>{len(keys) - TRACE_LIMIT:,} more traces or volumes in this sweep "
                   f"(<code>reclaim trace stats</code> gives each).</p>")
    if not fig.data:
        return "".join(out), None
    fig.update_layout(title="Lifetimes (write-reuse distance): cumulative share of rewrites", xaxis_type="log",
                      xaxis_title="lifetime [user writes]", yaxis_title="share of rewrites below", legend_title="trace",
                      margin={"t": 50, "r": 20}, template="plotly_white")
    return "".join(out), fig


def _drawing(name: str) -> Any:
    """What draws reproduction ``name``'s paper figures into a folder (``reclaim reproduce NAME
    --figures``'s code), or ``None`` where it draws none."""
    from reclaim.reproduce import REPRODUCTIONS, stockmeyer

    if name == "stockmeyer":
        return stockmeyer.figures
    r = REPRODUCTIONS.get(name)
    return None if r is None else r.figures


def _data_uri(path: Path, kind: str) -> str:
    import base64

    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode()}"


def _embedded(written: list[Path]) -> list[tuple[str, str, Path | None]]:
    """The figures among ``written`` as the page shows them, in the order drawn: ``(name, image
    data URI, its CSV)``: a figure saved for print (:func:`reclaim.style.save`) by its 7 in SVG
    and its data, one written as a PNG alone by that PNG (and its CSV, where one of its name is written)."""
    out = []
    names = {p.name for p in written}
    for p in written:
        if p.name.endswith("-7in.svg"):
            stem = p.name[: -len("-7in.svg")]
            csv = p.with_name(f"{stem}.csv")
            out.append((stem, _data_uri(p, "image/svg+xml"), csv if csv.name in names else None))
        elif p.suffix == ".png" and not p.name.endswith(("-3.5in.png", "-7in.png")):
            csv = p.with_suffix(".csv")
            out.append((p.stem, _data_uri(p, "image/png"), csv if csv.name in names else None))
    return out


def _reproduction(db: str | Path, sweep: str, folder: Path | None, summary: ReportSummary) -> str:
    """The section of a reproduction's sweep (``reproduce:NAME[:quick]``): its rows rebuilt from
    the database alone (:meth:`reclaim.reproduce.Reproduction.read`, nothing run) and drawn in
    its paper's layout as ``reclaim reproduce NAME --figures`` draws them, embedded as images
    with their data as CSV to download; the printed table beside them. Where the rows cannot be
    rebuilt (runs with other choices, on a trace, or not all there), a line says why."""
    import io
    import tempfile

    from rich.console import Console

    from reclaim.reproduce import REPRODUCTIONS

    _, name, *rest = sweep.split(":")
    quick = rest == ["quick"]
    command = f"reclaim reproduce {name}{' --quick' if quick else ''} --figures DIR"
    draw = _drawing(name)
    if name not in REPRODUCTIONS or draw is None:
        return (f"<p class=meta>These are the runs of a reproduction: <code>{html.escape(command.replace(' --figures DIR', ''))}</code> "
                "prints its table beside the published values.</p>")
    repro = REPRODUCTIONS[name]
    try:
        rows, setting = repro.read(db, quick)
    except (LookupError, ValueError, RuntimeError, OSError) as e:
        return (f"<p class=meta>These are the runs of a reproduction, but its paper figures are not rebuilt here: {html.escape(str(e))}. "
                f"<code>{html.escape(command)}</code> draws them in the paper's layout, with the published values and the "
                "model.</p>")
    with tempfile.TemporaryDirectory(prefix="reclaim-report-") as tmp:
        written = draw(rows, folder if folder is not None else Path(tmp))
        shown = _embedded(written)
        parts = [f"<h3>{html.escape(repro.title)}: the paper's figures</h3>",
                 f"<p class=meta>Rebuilt from these runs, nothing simulated again, and drawn as <code>{html.escape(command)}</code> "
                 "draws them: the published numbers, where the reproduction's tables hold them, as their own marked series, "
                 "the model's curves where the paper has one, reclaim's in the scheme's colour.</p>"]
        for stem, uri, csv in shown:
            link = (f' <a download="{html.escape(csv.name)}" href="{_data_uri(csv, "text/csv")}">data: {html.escape(csv.name)}</a>'
                    if csv is not None else "")
            parts.append(f'<figure class="paper"><img src="{uri}" alt="{html.escape(stem)}">'
                         f"<figcaption>{html.escape(stem)}{link}</figcaption></figure>")
    summary.paper_figures += len(shown)
    if folder is not None:
        summary.figure_files += written
    text = io.StringIO()
    Console(file=text, width=150, color_system=None, soft_wrap=False).print(repro.table(rows, setting))
    parts.append(f"<details><summary>The table, as <code>{html.escape(command.replace(' --figures DIR', ''))}</code> prints it"
                 f"</summary><pre>{html.escape(text.getvalue())}</pre></details>")
    return "".join(parts)


def build(db: str | Path, out: str | Path, figures: str | Path | None = None, sweep: str | None = None) -> ReportSummary:
    """Writes the report of ``db`` to ``out`` (and the paper figures into ``figures``).

    Raises:
        FileNotFoundError: ``db`` does not exist.
        RuntimeError: ``db`` is an empty file or another program's database.
        ValueError: ``sweep`` is not in the database, or the database holds no task.
        OSError: ``out`` cannot be written (the message names it and the cause).
    """
    from plotly.offline import get_plotlyjs

    out = Path(out)
    con = _connect(db, read_only=True)
    summary = ReportSummary(path=out)
    try:
        groups = _groups(con, sweep)
        if not groups:
            raise ValueError(f"invalid value for `db`: {db} holds no finished task (run a sweep into it first)")
        engines = [r[0] for r in con.execute("SELECT DISTINCT engine FROM tasks ORDER BY 1").fetchall()]
        failures = con.execute("SELECT f.sweep, f.point, f.error FROM failures f ORDER BY f.sweep").fetchall()
        body: list[str] = []
        scripts: list[str] = []
        folder = Path(figures) if figures is not None else None
        if folder is not None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise OSError(f"{folder}: cannot make the figures folder: {e.strerror or e}") from None

        def place(fig: Any) -> None:
            div = f"fig{summary.figures}"
            summary.figures += 1
            body.append(f'<div class="fig" id="{div}"></div>')
            spec = fig.to_plotly_json()
            scripts.append(f"Plotly.newPlot({json.dumps(div)}, {json.dumps(spec['data'], default=str)}, "
                           f"{json.dumps(spec['layout'], default=str)}, {{responsive: true, displaylogo: false}});")

        for g in groups:
            summary.sweeps += 1
            summary.tasks += len(g.frame)
            body.append(f"<h2>{html.escape(g.name)}</h2>")
            seeds = g.frame["seed"].nunique()
            axes = ", ".join(f"{c} ({g.frame[c].astype(str).nunique()})" for c in g.varying) or "none"
            body.append(f"<p class=meta>{len(g.frame):,} tasks; varying: {html.escape(axes)}; {seeds} seed(s) each.</p>")
            if g.name.startswith("reproduce:"):
                body.append(_reproduction(db, g.name, folder, summary))
            if g.name.startswith("advise:"):
                # Miniature runs: a sampled trace per seed, drawn by scheme and volume rather than
                # one facet per sample (reclaim.advise.report_figures).
                from reclaim.advise import report_figures

                body.append("<p class=meta>Miniature runs of <code>reclaim advise</code> on hashed samples of the trace's "
                            "pages: WA against spare per scheme, each point the mean over hash seeds with its 95% interval.</p>")
                for fig in report_figures(g.frame):
                    place(fig)
                body.append("<h3>Every task</h3>")
                body.append(_table(g))
                continue
            for i, f in enumerate(_facets(g)):
                if f.label:
                    body.append(f"<h3>{html.escape(f.label)}</h3>")
                body.append(_intervals_note(f))
                place(_plotly_wa(f))
                if f.relative:
                    place(_plotly_wa(f, relative=True))
                fd = g.frame if not g.facets or not f.label else g.frame[g.frame.apply(_label, axis=1, args=(g.facets,)) == f.label]
                for h in _histogram_figures(con, g, f.label, fd):
                    place(h)
                place(_series_figure(con, g, f.label, fd))
                if folder is not None:
                    summary.figure_files += _figure_files(g, f, folder, i)
            if g.timed:
                body.append("<h3>Latency under load</h3><p class=meta>Latencies from arrival to completion on the device's "
                            "clock (HdrHistogram, three significant digits); past the knee an open queue has no steady state "
                            "and its latencies grow with the run's length.</p>")
                for fig in _knee_figures(g):
                    place(fig)
            section, lifetimes = _trace_section(g)
            if section:
                body.append(section)
            if lifetimes is not None:
                place(lifetimes)
            body.append("<h3>Every task</h3>")
            body.append(_table(g))
        if failures:
            body.append("<h2>Failed tasks</h2><ul>")
            body += [f'<li class="fail">{html.escape(s)}: {html.escape(str(p))}: {html.escape(e)}</li>' for s, p, e in failures]
            body.append("</ul>")
    finally:
        con.close()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>reclaim report — {html.escape(Path(db).name)}</title>
<style>{STYLE}</style>
<script>{get_plotlyjs()}</script>
</head><body>
<h1>reclaim report</h1>
<p class=meta>{html.escape(str(db))}: {summary.tasks:,} tasks in {summary.sweeps} sweep(s); engine {html.escape(", ".join(engines))};
written {now}. Points are means over seeds; bars span the seeds' range (each figure says how wide it is); wide pale lines are models.</p>
{"".join(body)}
<script>{"".join(scripts)}{SORT_JS}</script>
</body></html>
"""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page)
    except OSError as e:
        # A page cut short is not left to be opened as if whole.
        if out.is_file():
            out.unlink(missing_ok=True)
        raise OSError(f"{out}: cannot write the report: {e.strerror or e}") from None
    return summary
