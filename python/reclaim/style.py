"""How reclaim draws: scheme names for readers, one colour and marker per scheme, a matplotlib
style, and figures written for a paper.

- :func:`display` and :func:`labels` turn the engine's specs (``greedy:tie=random``,
  ``d-choices:d=10``) into the names a paper prints (``Greedy``, ``d-choices (d = 10)``): the
  registry's name of the scheme (``reclaim schemes``) shown as its paper spells it, with its
  parameters only where they differ from the registry's default and, among several series, only
  where they vary.
- :func:`series` gives each scheme its own colour, marker and dash, the same in every figure (it
  follows the scheme's place in the registry, not its place in a legend). The colours are Paul
  Tol's "muted" scheme (Tol, "Colour Schemes", SRON/EPS/TN/09-002, 2021), nine colours told apart
  under the common colour-vision deficiencies; a marker and a dash per series tell apart what the
  colours alone cannot (more than nine series, or a print in grey).
- :data:`RC` is the matplotlib style (``reclaim.style.use()``, or
  ``matplotlib.pyplot.style.context(reclaim.style.RC)``): 8 pt text that reads at print size in a
  3.5 in column, TrueType fonts embedded in PDF, text kept as text in SVG.
- :func:`save` writes a figure at a single-column (3.5 in) and a double-column (7 in) width as
  PDF, SVG and PNG, and the data behind it as CSV beside them.

>>> display("d-choices:d=10"), display("greedy:tie=random"), display("sepbit")
('d-choices (d = 10)', 'Greedy', 'SepBIT')
>>> labels(["hotcold:r=0.8,f=0.2", "hotcold:r=0.9,f=0.2"])
['Hot/cold (r = 0.8)', 'Hot/cold (r = 0.9)']
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cycler import cycler

#: The colours a scheme may take: Tol's muted scheme (its pale grey, for missing data, left out),
#: ordered so that neighbours in the registry differ most. Black is kept for models and published
#: points, drawn alike in every figure.
COLOURS = ("#332288", "#CC6677", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499", "#DDCC77")
#: One marker per series, in the order they are handed out.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
#: Dashes, for series beyond the colours (matplotlib's names; plotly's beside them in :data:`PLOTLY_DASH`).
DASHES = ("-", "--", ":", "-.")
PLOTLY_DASH = {"-": "solid", "--": "dash", ":": "dot", "-.": "dashdot"}
PLOTLY_MARKER = {"o": "circle", "s": "square", "^": "triangle-up", "D": "diamond", "v": "triangle-down", "P": "cross",
                 "X": "x", "<": "triangle-left", ">": "triangle-right", "h": "hexagon"}
#: How a model's curve and a paper's published points are drawn, in every figure alike.
MODEL = {"color": "#000000", "linestyle": "-", "linewidth": 1.0}
PUBLISHED = {"color": "#000000", "marker": "x", "linestyle": "none", "markersize": 5}

#: The registry's names (``reclaim schemes``) as their papers print them. A scheme registered
#: without an entry here is shown by its registry name (tests/test_figures.py asks for one).
NAMES: dict[str, str] = {
    # policies
    "fifo": "FIFO", "greedy": "Greedy", "random": "Random", "d-choices": "d-choices", "gra": "GRA",
    "windowed": "Windowed greedy", "cost-benefit": "Cost-benefit", "mdc": "MDC", "multi-log": "Multi-log",
    "age-threshold": "Age threshold", "fitness": "Fitness", "random-greedy": "Random-greedy", "lru": "LRU",
    "cost-hotness": "Cost-hotness",
    # placements
    "single": "Single frontier", "double": "Double frontier", "oracle": "Oracle", "regions": "Regions",
    "age-sorted": "Age-sorted streams", "sort-buffer": "Sort buffer", "dac": "DAC", "sepbit": "SepBIT",
    "multi-queue": "MultiQueue", "sfr": "SFR", "fadac": "FADaC", "eti": "ETI", "fk": "FK", "warcip": "WARCIP",
    "sfs": "SFS", "planes": "Planes", "2r-greedy": "2R-Greedy", "2r-fifo": "2R-FIFO", "2a": "2a", "gen": "gen",
    "opt": "opt", "deathtime": "Death time", "midas": "MiDAS",
    # workloads
    "uniform": "Uniform", "hotcold": "Hot/cold", "shifting": "Shifting hot spot", "locality": "Locality",
    "zipf": "Zipf", "zones": "Zones", "trace": "Trace",
    # triggers
    "frontier": "Frontier", "one-free": "One free", "batch": "Batch", "max-empty": "MaxEmpty",
}
#: Configuration parameters as a figure's axis names them.
AXES: dict[str, str] = {
    "spare": "spare factor", "fill": "fill factor", "pages_per_segment": "pages per segment", "segments": "segments",
    "logical_pages": "logical pages", "cache": "write cache [pages]", "window": "window [user writes]",
    "policy": "victim policy", "placement": "placement", "frontier": "frontier", "gc": "cleaner trigger",
    "workload": "workload", "wa": "write amplification (WA)", "wamp": "Wamp", "seed": "seed", "_setting": "setting",
}


def _registry() -> list[dict[str, Any]]:
    from reclaim.schemes import SCHEMES

    return SCHEMES


def _defaults(name: str) -> dict[str, str]:
    """The registry's default of each keyed parameter of the scheme ``name`` (first of a family)."""
    for s in _registry():
        if s["name"] == name or name in s.get("aliases", []):
            return {p["key"]: str(p["default"]) for p in s["params"] if p["key"] and p["default"] is not None}
    return {}


def _canonical(name: str) -> str:
    for s in _registry():
        if name in s.get("aliases", []):
            return str(s["name"])
    return name


def parse(spec: str) -> tuple[str, dict[str, str]]:
    """A spec ``name[:key=value,…]`` as its name (an alias resolved) and its parameters.

    >>> parse("hotcold:r=0.8,f=0.2")
    ('hotcold', {'r': '0.8', 'f': '0.2'})
    """
    name, _, rest = str(spec).partition(":")
    params: dict[str, str] = {}
    for item in rest.split(",") if rest else []:
        key, eq, value = item.partition("=")
        params[key.strip()] = value.strip() if eq else ""
    return _canonical(name.strip()), params


def _value(v: str) -> str:
    try:
        x = float(v)
    except ValueError:
        return v
    return f"{x:g}" if math.isfinite(x) else v


def display(spec: Any, keep: Iterable[str] | None = None) -> str:
    """The name a paper prints for ``spec``: the scheme's name as its paper spells it, with the
    parameters that differ from the registry's default (or, given ``keep``, those named there).
    A trace's path is shown by its file name; a value that is not a spec (a number) as it is.

    >>> display("age"), display("trace:/tmp/x/volumes.rtr"), display(0.1)
    ('FIFO', 'Trace volumes.rtr', '0.1')
    """
    if not isinstance(spec, str):
        return _value(str(spec))
    name, params = parse(spec)
    if name == "trace":
        return f"Trace {Path(spec.partition(':')[2]).name}"
    written = _written_in_python(spec)
    if written is not None:
        return written
    if name not in NAMES:
        return spec
    defaults = _defaults(name)
    shown = [k for k in params if (k in keep if keep is not None else params[k] != defaults.get(k))]
    inside = ", ".join(f"{k} = {_value(params[k])}" if params[k] else k for k in shown)
    return NAMES[name] + (f" ({inside})" if inside else "")


def _written_in_python(spec: str) -> str | None:
    """The name of a scheme written in Python, ``MODULE:CLASS[:key=value,…]``: its class's
    ``display`` where the module imports here, else its class name, with its parameters.

    >>> _written_in_python("mymodule:Greedy:tie=oldest"), _written_in_python("greedy:tie=oldest")
    ('Greedy (tie = oldest)', None)
    """
    module, _, rest = spec.partition(":")
    cls, _, params = rest.partition(":")
    if module in NAMES or not cls.isidentifier() or not all(p.isidentifier() for p in module.removesuffix(".py").replace("/", ".").split(".") if p):
        return None
    name = cls
    try:
        from reclaim.outside import resolve

        for family in ("policy", "placement"):
            try:
                _, factory = resolve(family, f"{module}:{cls}")
                name = factory.cls.display or cls
                break
            except ValueError:
                continue
    except ImportError:  # pragma: no cover - reclaim.outside is part of the package
        pass
    shown = [item.replace("=", " = ") for item in params.split(",") if item]
    return name + (f" ({', '.join(shown)})" if shown else "")


def labels(specs: Sequence[Any]) -> list[str]:
    """Legend labels for several series: each spec's :func:`display` name with, among the
    parameters that differ from their defaults, only those whose value varies between series of
    the same scheme (``d-choices (d = 10)`` beside ``Greedy``; ``Hot/cold (r = 0.8)`` beside
    ``Hot/cold (r = 0.9)``). Distinct specs keep distinct labels.

    >>> labels(["greedy:tie=random", "d-choices:d=10", "fifo"])
    ['Greedy', 'd-choices (d = 10)', 'FIFO']
    """
    parsed = [parse(s) if isinstance(s, str) else (None, {}) for s in specs]
    out = []
    for s, (name, params) in zip(specs, parsed, strict=True):
        if name is None:
            out.append(display(s))
            continue
        same = [p for n, p in parsed if n == name]
        varying = [k for k in params if len({p.get(k) for p in same}) > 1]
        # A scheme drawn once keeps its non-default parameters: `d-choices (d = 10)`.
        out.append(display(s, keep=varying) if len(same) > 1 else display(s))
    if len(set(out)) < len(set(map(str, specs))):
        return [display(s) for s in specs]
    return out


@dataclass(frozen=True)
class Series:
    """How one series is drawn: colour, marker, dash (matplotlib's names)."""

    color: str
    marker: str
    dash: str

    def mpl(self) -> dict[str, Any]:
        """Keyword arguments of ``Axes.plot``."""
        return {"color": self.color, "marker": self.marker, "linestyle": self.dash}

    def plotly_line(self) -> dict[str, Any]:
        """plotly's ``line`` of a scatter trace."""
        return {"color": self.color, "dash": PLOTLY_DASH[self.dash]}

    def plotly_marker(self) -> dict[str, Any]:
        """plotly's ``marker`` of a scatter trace."""
        return {"color": self.color, "symbol": PLOTLY_MARKER[self.marker], "size": 7}


def _index(name: str) -> int | None:
    """The scheme's place in its family of the registry, or ``None``."""
    for s in _registry():
        if s["name"] == name:
            return [t["name"] for t in _registry() if t["family"] == s["family"]].index(name)
    return None


def style_of(i: int) -> Series:
    """The i-th style: the colours in turn, a marker each, and the dash changing after each round of
    colours, so that the first 36 are distinct in colour and dash together."""
    return Series(COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)], DASHES[(i // len(COLOURS)) % len(DASHES)])


def series(specs: Sequence[Any]) -> list[Series]:
    """The style of each series: a scheme's own (from its place in the registry, so the same in
    every figure), the same scheme with other parameters the next free ones; values that are not
    schemes (numbers, other categories) the styles in turn. No two series share a style.

    >>> s = series(["greedy", "fifo"]); s[0] == series(["fifo", "greedy"])[1]
    True
    """
    out: list[Series | None] = [None] * len(specs)
    taken: set[int] = set()
    for i, spec in enumerate(specs):
        name = parse(spec)[0] if isinstance(spec, str) else None
        k = _index(name) if name is not None else None
        if k is not None and k not in taken:
            out[i] = style_of(k)
            taken.add(k)
    free = (k for k in range(10_000) if k not in taken)
    for i in range(len(specs)):
        if out[i] is None:
            k = next(free)
            taken.add(k)
            out[i] = style_of(k)
    return [s for s in out if s is not None]


#: Widths [in]: a column and a page of a two-column paper.
WIDTHS = {"column": 3.5, "page": 7.0}
#: The matplotlib style of every figure reclaim writes (rcParams).
RC: dict[str, Any] = {
    "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
    "legend.fontsize": 7, "legend.title_fontsize": 7, "legend.frameon": False, "figure.titlesize": 9,
    "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "axes.prop_cycle": cycler(color=list(COLOURS)),
    "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5, "axes.linewidth": 0.6,
    "axes.spines.top": False, "axes.spines.right": False,
    "lines.linewidth": 1.2, "lines.markersize": 4, "errorbar.capsize": 2.5,
    "xtick.major.width": 0.6, "ytick.major.width": 0.6,
    "savefig.dpi": 300, "savefig.bbox": "tight", "savefig.pad_inches": 0.02,
    # TrueType fonts embedded whole (Type 42) rather than Type 3, which publishers refuse.
    "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none",
}


def use() -> None:
    """Makes :data:`RC` matplotlib's style for what is drawn next (for one figure only:
    ``with matplotlib.pyplot.style.context(reclaim.style.RC): …``).

    >>> RC["pdf.fonttype"], RC["font.size"]  # TrueType embedded; 8 pt at a 3.5 in column
    (42, 8)
    """
    import matplotlib.style

    matplotlib.style.use(RC)


def legend_outside(fig: Any, axes: Any, ncol: int | None = None, title: str | None = None, order: Sequence[str] | None = None) -> Any:
    """One legend for the figure, below its axes (never over the data); the handles of every axis,
    each label once, in the ``order`` of their labels where given (else as drawn)."""
    handles, names = [], []
    for ax in (axes if isinstance(axes, Iterable) else [axes]):
        for h, n in zip(*ax.get_legend_handles_labels(), strict=True):
            if n not in names and not n.startswith("_"):
                handles.append(h)
                names.append(n)
    if not handles:
        return None
    if order is not None:
        rank = {n: i for i, n in enumerate(order)}
        pairs = sorted(zip(handles, names, strict=True), key=lambda hn: rank.get(hn[1], len(rank)))
        handles, names = [h for h, _ in pairs], [n for _, n in pairs]
    cols = ncol or max(1, min(len(names), int(fig.get_figwidth() // 1.15)))
    return fig.legend(handles, names, loc="outside lower center", ncol=cols, title=title)


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """``rows`` as CSV with a header of every key, in first-seen order."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: _cell(r.get(k)) for k in keys})
    return path


def _cell(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return ""
    return v


def save(draw: Callable[[float], Any], folder: str | Path, stem: str, rows: Sequence[Mapping[str, Any]],
         formats: Sequence[str] = ("pdf", "svg", "png")) -> list[Path]:
    """Draws a figure at each of :data:`WIDTHS` (``draw(width_in_inches)`` returns a matplotlib
    figure laid out for that width) under :data:`RC`, and writes it as ``STEM-3.5in.pdf`` …
    ``STEM-7in.png``, with ``STEM.csv``, the data drawn, beside them.

    Returns:
        The paths written: the CSV first.

    Raises:
        OSError: the folder cannot be made or written (the message names it).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = [write_csv(folder / f"{stem}.csv", rows)]
    except OSError as e:
        raise OSError(f"{folder}: cannot write the figures: {e.strerror or e}") from None
    with plt.style.context(RC):
        for width in WIDTHS.values():
            fig = draw(width)
            for ext in formats:
                p = folder / f"{stem}-{width:g}in.{ext}"
                fig.savefig(p, metadata={"Creator": "reclaim"} if ext in ("pdf", "svg") else None)
                written.append(p)
            plt.close(fig)
    return written


def figure(width: float, aspect: float = 0.72, ncols: int = 1, nrows: int = 1, legend_rows: int = 1, **kw: Any) -> tuple[Any, Any]:
    """A figure ``width`` inches wide, each panel ``aspect`` as high as wide (at most 2.6 in), with
    room below for a legend of ``legend_rows`` rows: ``(figure, axes)``."""
    import matplotlib.pyplot as plt

    panel = width / ncols
    height = nrows * min(panel * aspect, 2.6) + 0.18 * legend_rows + 0.35
    return plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", squeeze=False, **kw)
