"""Stockmeyer, "Simulations of the Age-Threshold and Fitness Free Space Collection Algorithms on
a Long Trace" (seed 000): every experiment of the report on the stand-in for the snake trace, or
on any converted trace.

The report's parameters (§2.3): SegTrkCount 20, ASU 0.8, CdmBucketCount 10, 2⁴ destage and 2⁴
FSC streams acting as a cache, DtgDecay = FscDecay = 10, MaxEmpty 1, segments that empty by
themselves freed at once, an LRU cache of 1 or 320 tracks. Each run places every track in order,
makes 10 × LsaTrkCount uniform writes, replays the first 1M of the trace's 6.76M writes
unmeasured and measures the rest (the working trace); with unwritten tracks ("Y", §7)
LsaTrkCount is three times the written tracks and the store three times as large. The ten-pass
experiment (§8) measures ten passes of the whole trace after the uniform warm-up, per pass and
per quarter of a pass, and its goals are the same cases on the written tracks alone at ASU 4/7.

What is computed:

- the (DtgSortExp, FscSortExp) grids of Figures 5, 14 (fitness, Fifo and Tree), 10, 17
  (age-threshold at the best NAT of 0.025 … 0.175 and at NAT 0.10) and 21, 22 (fitness with
  NAT 0.10), each cell [GCU, CltdCount (K), WorkRdLive (K)];
- the comparisons of Figures 6 (Tree against Fifo) and 13, 20 (age-threshold against
  fitness-fifo), in percent [GCU, WorkRdLive, WorkRdAll];
- the summaries of Figure 1 (at (4, 4), with greedy) and Figure 2 (one stream each);
- Figure 3 and Figure 4 (ten passes, AT = 1121, scaled with the trace's tracks), and WorkRdLive
  per quarter over the first two passes;
- the report's numbered observations (§3 items 1–6, §4 items 1–3), each stated as holding or not
  on this trace.

Choices where the report is silent (documented in ``docs/validation.md``): "optimal AT" is the
best of the seven NATs per measure, CltdCount taken at the WorkRdLive-best NAT; Figure 1's
"optimal (DtgSortExp, FscSortExp)" is (4, 4), where the report found every optimum; a goal value
is the goal run's tenth pass.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from reclaim.api import SimConfig
from reclaim.reproduce.common import Choice, Context, Reproduction, Row, published

#: Tracks per segment, average segment utilization, buckets (§2.3).
SEG_TRK = 20
ASU = 0.8
BUCKETS = 10
#: The snake trace (§2.1): written tracks and writes; its first 1M writes are the warm-up.
SNAKE_TRACKS = 36_607
SNAKE_WRITES = 6_760_000
WARM_SHARE = 1_000_000 / SNAKE_WRITES
#: The NATs searched for the age-threshold algorithm (§5: 0.025 to 0.175 by 0.025).
NATS = (0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175)
#: §8's age threshold, for 36,607 written tracks (scaled with the trace's tracks).
TEN_PASS_AT = 1121
CACHES = (1, 320)
EXPS = range(5)
#: ``--quick``: the stand-in keeps the snake's tracks (so the store and its 2⁴ + 2⁴ streams keep
#: their proportions) with a fifth of its writes (fewer would leave no room for its first writes), after 2 × LsaTrkCount uniform writes, not 10.
QUICK_WRITES = 0.2
QUICK_WARM = 2


@dataclass(frozen=True)
class Setting:
    """The trace a reproduction runs on."""

    trace: Path
    #: Written tracks (ids 0 … tracks − 1) and track writes.
    tracks: int
    writes: int
    label: str
    #: Uniform warm-up writes, in multiples of LsaTrkCount (§2.3: 10).
    warm: int = 10

    @property
    def scale(self) -> float:
        """Written tracks relative to the snake's, for §8's AT."""
        return self.tracks / SNAKE_TRACKS


def setting(trace: Path | None, quick: bool, cache_dir: Path | None, model: str = "files", generate: bool = True) -> Setting:
    """The trace: ``trace`` (a converted trace with renamed tracks), or the stand-in for the
    snake of ``model`` (``files`` or ``stack``, see :func:`reclaim.traces.stand_in`), generated
    once into ``cache_dir`` (a fifth of its writes with ``quick``; not with ``generate`` false,
    where only its name is wanted, to read its runs back).

    Raises:
        ValueError: ``trace`` is not a converted trace with renamed ids, or holds several volumes.
    """
    from reclaim import traces

    warm = QUICK_WARM if quick else 10
    if trace is None:
        tracks, writes = SNAKE_TRACKS, round(SNAKE_WRITES * (QUICK_WRITES if quick else 1.0))
        folder = cache_dir if cache_dir is not None else Path(".")
        # The file's name carries the model and its parameters, so that a recalibration or the
        # other model never reads a stale trace.
        params = traces.files_model() if model == "files" else traces.SNAKE
        tag = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]
        path = folder / f"stand-in-snake-{model}-{tag}-{tracks}-{writes}-seed1.rtr"
        if generate and not path.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            traces.stand_in(tmp, seed=1, model=model, tracks=tracks, writes=writes)
            tmp.replace(path)
        return Setting(path, tracks, writes, f"{model} stand-in ({tracks:,} tracks, {writes:,} writes)", warm)
    if not trace.is_file():
        raise ValueError(f"invalid value for `trace`: {trace} (no such file)")
    if not traces.is_converted(trace):
        raise ValueError(f"invalid value for `trace`: {trace} (expected a converted trace: "
                         f"`reclaim trace convert {trace} --format FMT --page-size 32768 --rename -o OUT.rtr`)")
    meta = traces.load(trace).meta
    if not meta.get("renamed"):
        raise ValueError(f"invalid value for `trace`: {trace} (its page ids are addresses; Stockmeyer §2.1 renames the "
                         "written tracks 0 … T − 1: convert it again with `--rename`)")
    volumes = meta.get("volumes") or []
    if len(volumes) > 1:
        names = ", ".join(f"`{v['name']}`" for v in volumes[:8]) + (", …" if len(volumes) > 8 else "")
        raise ValueError(f"invalid value for `trace`: {trace} (it holds {len(volumes)} volumes ({names}); the report replays "
                         "one device: convert each volume to its own trace with `reclaim trace convert … --rename --volumes "
                         "-o DIR` and run one)")
    return Setting(trace, int(meta["unique_pages"]), int(meta["pages_written"]), f"{trace.name}", warm)


@dataclass(frozen=True)
class Case:
    """One simulation of the report."""

    policy: str
    cache: int
    unwritten: bool = False
    dtg: int = 4
    fsc: int = 4
    exps: int = 4
    asu: float = ASU
    #: The trees' split rule (§2.3): ``mean``, the report's words, or ``median``.
    split: str = "mean"
    #: The destage clock's conventions beyond the report's (``,fsc_number=min`` …), or "".
    clock: str = ""
    passes: int = 0  # 0: one pass after the trace warm-up; else this many whole passes

    def config(self, s: Setting) -> SimConfig:
        tracks = s.tracks * (3 if self.unwritten else 1)
        segments = round(tracks / (SEG_TRK * self.asu))
        passes = self.passes or 1
        return SimConfig(
            logical_pages=tracks,
            pages_per_segment=SEG_TRK,
            segments=segments,
            policy=self.policy,
            placement=f"age-sorted:dtg_exp={self.exps},fsc_exp={self.exps},dtg_sort={self.dtg},fsc_sort={self.fsc},"
                      f"split={self.split}{self.clock}",
            streams="cache",
            free_empty=True,
            cache=self.cache,
            gc="max-empty:k=1",
            workload=f"trace:{s.trace}",
            # §2.1/§2.3: uniform warm-up, the trace's first million writes (here its share of the
            # trace), the rest measured; §8's multi-pass runs have no trace prefix.
            method="stockmeyer:prefix=0" if self.passes else "stockmeyer",
            warmup=f"fill+{s.warm}x" if self.passes else f"fill+{s.warm}x+{100 * WARM_SHARE:.4f}%",
            writes=f"{passes}p",
            # Quarters of a pass (§8); the working trace's windows are quarters of it.
            window=max(1, round(s.writes * (1 if self.passes else 1 - WARM_SHARE) / 4)),
            seed=1,
        )


def fitness(sort: str, nat: float = 0.0) -> str:
    """Fitness selection over 10 buckets (eq. 1); ``nat`` > 0 is §9's fit-age."""
    return f"fitness:{'nat=' + str(nat) + ',' if nat else ''}buckets={BUCKETS},sort={sort}"


def age_threshold(nat: float | None = None, at: int | None = None) -> str:
    """Greedy bucket heads among segments older than the threshold (Fifo buckets, §2.3)."""
    t = f"nat={nat}" if nat is not None else f"at={at}"
    return f"age-threshold:{t},buckets={BUCKETS},sort=fifo"


#: Figure 1's greedy (§3: "Selection = Greedy, Threshold = 0, and DtgSortExp = FscSortExp = 0"):
#: the head of the lowest non-empty bucket, no threshold, 2⁴ + 2⁴ streams that do not sort.
GREEDY = age_threshold(at=0)


#: Conventions the report leaves open, each selectable (``--set KEY=VALUE``); the first value is
#: the default, the report's words where it speaks. Policy keys go to every policy (``ties``
#: only to those in Tree order), placement keys to the age-sorted streams.
CONVENTIONS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "requeue": ("policy", ("bucket", "every"),
                "a bucket's candidate goes to its back when it changes bucket, or at every page it loses "
                "(a reading of §2.3's FIFO queue)"),
    "ties": ("policy", ("first", "last"),
             "Tree order among segments of equal age: the first to enter a bucket at its head, or the last"),
    "fsc_number": ("placement", ("max", "min"),
                   "an FSC segment's destage number: its contributors' largest (§2.3), or smallest"),
    "open_age": ("placement", ("closing", "zero"),
                 "a track rewritten in an open stream: aged as if its segment closed now, or 0"),
    "first_age": ("placement", ("oldest", "zero"),
                  "a first write's age: the destage counter, or 0"),
}


def cases(s: Setting, split: str = "mean", conventions: dict[str, str] | None = None) -> dict[str, Case]:
    """Every simulation, by a readable name (``fit/N/1/fifo/2,3``); ``split`` is the trees'
    split rule, ``conventions`` the values of :data:`CONVENTIONS` that are not the default."""
    out: dict[str, Case] = {}
    case = functools.partial(Case, split=split)
    for u, c, d, f in itertools.product((False, True), CACHES, EXPS, EXPS):
        un = "Y" if u else "N"
        for sort in ("fifo", "tree"):
            out[f"fit/{un}/{c}/{sort}/{d},{f}"] = case(fitness(sort), c, u, d, f)
            out[f"fitage/{un}/{c}/{sort}/{d},{f}"] = case(fitness(sort, 0.1), c, u, d, f)
        for nat in NATS:
            out[f"at/{un}/{c}/{nat}/{d},{f}"] = case(age_threshold(nat), c, u, d, f)
    for u, c in itertools.product((False, True), CACHES):
        out[f"greedy/{'Y' if u else 'N'}/{c}"] = case(GREEDY, c, u, dtg=0, fsc=0)
    for c in CACHES:
        for sort in ("fifo", "tree"):
            out[f"one/fit/{c}/{sort}"] = case(fitness(sort), c, exps=0, dtg=0, fsc=0)
        for nat in NATS:
            out[f"one/at/{c}/{nat}"] = case(age_threshold(nat), c, exps=0, dtg=0, fsc=0)
    at = max(1, round(TEN_PASS_AT * s.scale))
    for c, e in itertools.product(CACHES, (0, 4)):
        out[f"ten/fitness/Y/{c}/{e}"] = case(fitness("fifo"), c, True, e, e, passes=10)
        out[f"ten/age-thr/Y/{c}/{e}"] = case(age_threshold(at=at), c, True, e, e, passes=10)
        out[f"ten/fitness/N/{c}/{e}"] = case(fitness("fifo"), c, False, e, e, passes=10)
        out[f"goal/fitness/{c}/{e}"] = case(fitness("fifo"), c, False, e, e, asu=4 / 7, passes=10)
        out[f"goal/age-thr/{c}/{e}"] = case(age_threshold(at=at), c, False, e, e, asu=4 / 7, passes=10)
    chosen = {k: v for k, v in (conventions or {}).items() if v != CONVENTIONS[k][1][0]}
    policy = "".join(f",{k}={v}" for k, v in chosen.items() if CONVENTIONS[k][0] == "policy" and k != "ties")
    clock = "".join(f",{k}={v}" for k, v in chosen.items() if CONVENTIONS[k][0] == "placement")
    ties = f",ties={chosen['ties']}" if "ties" in chosen else ""
    if chosen:
        out = {n: dataclasses.replace(k, policy=k.policy + policy + (ties if "sort=tree" in k.policy else ""),
                                      clock=clock) for n, k in out.items()}
    return out


@dataclass(frozen=True)
class Measures:
    """The report's measures of one run or one stretch of it (§2.2); work in thousands."""

    gcu: float
    cltd_k: float
    wrl_k: float
    wra_k: float
    empty_k: float

    @staticmethod
    def of(r: Any) -> Measures:
        return Measures(_num(r.gcu), r.collected / 1e3, _num(r.work_rd_live) / 1e3, _num(r.work_rd_all) / 1e3, r.emptied / 1e3)


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def _pct(a: float, b: float) -> float:
    """Percentage by which ``a`` exceeds ``b``."""
    return 100.0 * (a - b) / b if b else math.nan


def _improvement(first: float, last: float) -> float:
    return 100.0 * (first - last) / first if first else math.nan


class Results:
    """The runs by case name, with the report's derived quantities."""

    def __init__(self, s: Setting, runs: dict[str, Any]) -> None:
        self.s = s
        self.runs = runs
        self.m = {k: Measures.of(r) for k, r in runs.items()}

    def at_opt(self, prefix: str) -> tuple[Measures, dict[str, float]]:
        """The age-threshold measures at the best NAT per measure (``prefix`` = ``at/N/1`` with
        ``/{nat}/{d},{f}`` or ``one/at/1`` with ``/{nat}``); CltdCount and EmptyCount at the
        WorkRdLive-best NAT."""
        ms = {nat: self.m[prefix.format(nat=nat)] for nat in NATS}
        best = {k: min(NATS, key=lambda n: float(getattr(ms[n], k))) for k in ("gcu", "wrl_k", "wra_k")}  # noqa: B023
        w = ms[best["wrl_k"]]
        return Measures(ms[best["gcu"]].gcu, w.cltd_k, w.wrl_k, ms[best["wra_k"]].wra_k, w.empty_k), best

    def grid(self, fig: int, un: str, cache: int, variant: str, d: int, f: int) -> Measures:
        """A cell of Figures 5, 10, 14, 17, 21, 22."""
        if fig in (5, 14):
            return self.m[f"fit/{un}/{cache}/{variant}/{d},{f}"]
        if fig in (21, 22):
            return self.m[f"fitage/{un}/{cache}/{variant}/{d},{f}"]
        if variant == "nat.10":
            return self.m[f"at/{un}/{cache}/0.1/{d},{f}"]
        return self.at_opt(f"at/{un}/{cache}/{{nat}}/{d},{f}")[0]

    def summary(self, fig: int, un: str, alg: str, cache: int, sort: str) -> Measures:
        """A row of Figure 1 (at (4, 4)) or Figure 2 (one stream each)."""
        if fig == 2:
            one = {"fitness": f"one/fit/{cache}/{sort}", "age-thr-nat.10": f"one/at/{cache}/0.1"}
            return self.at_opt(f"one/at/{cache}/{{nat}}")[0] if alg == "age-threshold" else self.m[one[alg]]
        if alg == "age-threshold":
            return self.at_opt(f"at/{un}/{cache}/{{nat}}/4,4")[0]
        name = {"fitness": f"fit/{un}/{cache}/{sort}/4,4", "age-thr-nat.10": f"at/{un}/{cache}/0.1/4,4",
                "fit-age-nat.10": f"fitage/{un}/{cache}/{sort}/4,4", "greedy": f"greedy/{un}/{cache}"}[alg]
        return self.m[name]

    def passes(self, name: str) -> list[Measures]:
        """Per pass of a ten-pass run, from its quarters."""
        return [self._span(name, 4 * p, 4 * p + 4) for p in range(10)]

    def quarters(self, name: str, n: int = 8) -> list[Measures]:
        return [self._span(name, q, q + 1) for q in range(n)]

    def _span(self, name: str, lo: int, hi: int) -> Measures:
        sr = self.runs[name].series
        g = sum(sr["gc_writes"][lo:hi])
        n = sum(sr["collected"][lo:hi])
        e = sum(sr["emptied"][lo:hi])
        gcu = g / (n * SEG_TRK) if n else math.nan
        return Measures(gcu, n / 1e3, 2 * g / 1e3, (g + SEG_TRK * (n - e)) / 1e3, e / 1e3)


# ----------------------------------------------------------------------------------------------
# Rows


def _figure_rows(res: Results) -> list[Row]:
    rows: list[Row] = []
    grids = {(int(r["figure"]), r["unwritten"], int(r["cache"]), r["variant"], int(r["dtg"]), int(r["fsc"])):
             (float(r["a"]), float(r["b"]), float(r["c"])) for r in published("stockmeyer_grids.csv")}
    for fig, un, variants in ((5, "N", ("fifo", "tree")), (10, "N", ("optimal", "nat.10")), (14, "Y", ("fifo", "tree")),
                              (17, "Y", ("optimal", "nat.10")), (21, "N", ("fifo", "tree")), (22, "Y", ("fifo", "tree"))):
        for cache, v, d, f in itertools.product(CACHES, variants, EXPS, EXPS):
            m = res.grid(fig, un, cache, v, d, f)
            p = grids[(fig, un, cache, v, d, f)]
            rows.append({"table": f"figure{fig}", "unwritten": un, "cache": cache, "variant": v, "dtg": d, "fsc": f,
                         "gcu": m.gcu, "cltd_k": m.cltd_k, "wrl_k": m.wrl_k, "wra_k": m.wra_k, "empty_k": m.empty_k,
                         "paper_gcu": p[0], "paper_cltd_k": p[1], "paper_wrl_k": p[2]})
    # Comparisons: Figure 6 (tree vs fifo), Figures 13 and 20 (age-threshold vs fitness-fifo).
    comparisons: tuple[tuple[int, str, tuple[str, ...]], ...] = ((6, "N", ("tree-vs-fifo",)), (13, "N", ("optimal", "nat.10")), (20, "Y", ("optimal", "nat.10")))
    for fig, un, pair in comparisons:
        for cache, v, d, f in itertools.product(CACHES, pair, EXPS, EXPS):
            base = res.grid(5 if un == "N" else 14, un, cache, "fifo", d, f)
            if fig == 6:
                other = res.grid(5, un, cache, "tree", d, f)
            else:
                other = res.grid(10 if un == "N" else 17, un, cache, v, d, f)
            p = grids[(fig, un, cache, v, d, f)]
            rows.append({"table": f"figure{fig}", "unwritten": un, "cache": cache, "variant": v, "dtg": d, "fsc": f,
                         "gcu_pct": _pct(other.gcu, base.gcu), "wrl_pct": _pct(other.wrl_k, base.wrl_k),
                         "wra_pct": _pct(other.wra_k, base.wra_k),
                         "paper_gcu_pct": p[0], "paper_wrl_pct": p[1], "paper_wra_pct": p[2]})
    return rows


def _summary_rows(res: Results) -> list[Row]:
    """Figures 1 and 2 in the report's layout."""
    rows: list[Row] = []
    for fig in (1, 2):
        for p in published(f"stockmeyer_figure{fig}.csv"):
            un, alg, cache, sort = p["unwritten"], p["algorithm"], int(p["cache"]), p["sorting"]
            m = res.summary(fig, un, alg, cache, sort)
            rows.append({"table": f"figure{fig}", "unwritten": un, "algorithm": alg, "cache": cache, "sorting": sort,
                         "gcu": m.gcu, "wrl_k": m.wrl_k, "wra_k": m.wra_k, "empty_k": m.empty_k,
                         "paper_gcu": float(p["gcu"]), "paper_wrl_k": float(p["work_rd_live_k"]),
                         "paper_wra_k": float(p["work_rd_all_k"]), "paper_empty_k": float(p["empty_count_k"])})
    return rows


def _ten_pass_rows(res: Results) -> list[Row]:
    """Figure 3 (improvement, above goal), Figure 4 (WorkRdLive per pass) and §8's quarters."""
    rows: list[Row] = []
    for p in published("stockmeyer_figure3.csv"):
        alg, un, cache, e = p["algorithm"], p["unwritten"], int(p["cache"]), int(p["sort_exp"])
        ps = res.passes(f"ten/{alg}/{un}/{cache}/{e}")
        row: Row = {"table": "figure3", "algorithm": alg, "unwritten": un, "cache": cache, "sort_exp": e}
        goal = res.passes(f"goal/{alg}/{cache}/{e}")[-1] if un == "Y" else None
        for k, attr in (("gcu", "gcu"), ("wrl", "wrl_k"), ("wra", "wra_k")):
            row[f"improvement_{k}"] = _improvement(getattr(ps[0], attr), getattr(ps[-1], attr))
            row[f"paper_improvement_{k}"] = float(p[f"improvement_{k}"])
            row[f"above_goal_{k}"] = _pct(getattr(ps[-1], attr), getattr(goal, attr)) if goal else None
            row[f"paper_above_goal_{k}"] = float(p[f"above_goal_{k}"]) if p[f"above_goal_{k}"] else None
        row["wrl_k_by_pass"] = [m.wrl_k for m in ps]
        row["goal_wrl_k"] = goal.wrl_k if goal else None
        rows.append(row)
    q = res.quarters("ten/fitness/Y/1/4")
    rows.append({"table": "quarters", "case": "fitness-fifo, Y, Cache 1, SortExp 4", "wrl_k": [m.wrl_k for m in q],
                 "paper_wrl_k": [141, 81, 113, 90, 78, 50, 57, 45]})
    return rows


def compute(ctx: Context) -> list[Row]:
    s = setting(ctx.trace, ctx.quick, ctx.db.parent if ctx.db is not None else None, ctx.options.get("stand-in", "files"),
                generate=not ctx.read_only)
    named = cases(s, ctx.options.get("split", "mean"), {k: ctx.options[k] for k in CONVENTIONS if k in ctx.options})
    names = list(named)
    runs = ctx.simulate([named[n].config(s) for n in names], series=True)
    res = Results(s, dict(zip(names, runs)))
    hit = {c: _num(res.runs[f"fit/N/{c}/fifo/4,4"].cache_hit_ratio) for c in CACHES}
    rows: list[Row] = [{"table": "trace", "trace": s.label, "tracks": s.tracks, "writes": s.writes, "split": named["greedy/N/1"].split,
                        "hit_ratio_1": hit[1], "hit_ratio_320": hit[320], "paper_hit_ratio_1": 0.223,
                        "paper_hit_ratio_320": 0.950}]
    rows += _summary_rows(res)
    rows += _figure_rows(res)
    rows += _ten_pass_rows(res)
    from reclaim.reproduce.stockmeyer_observations import observations

    rows += observations(rows)
    return rows


# ----------------------------------------------------------------------------------------------
# Tables


def _f(x: Any, fmt: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format(x, fmt)


def _by(rows: Iterable[Row], table: str) -> list[Row]:
    return [r for r in rows if r["table"] == table]


def render(rows: list[Row]) -> list[Table]:
    out: list[Table] = []
    tr = _by(rows, "trace")[0]
    head = Table(title=f"Stockmeyer (seed 000) on the {tr['trace']}, split={tr.get('split', 'mean')}")
    for h in ("LRU hit ratio", "Cache = 1", "Cache = 320"):
        head.add_column(h, justify="right")
    head.add_row("ours", _f(tr["hit_ratio_1"], ".3f"), _f(tr["hit_ratio_320"], ".3f"))
    head.add_row("snake (§2.3)", "0.223", "0.950")
    out.append(head)
    for fig, title in ((1, "Figure 1: summary at (DtgSortExp, FscSortExp) = (4, 4)"),
                       (2, "Figure 2: one destage stream and one FSC stream")):
        t = Table(title=Text.assemble(title, "\n", ("ours (paper); work in thousands", "dim")))
        for h in ("Unwritten", "Algorithm", "Cache", "Sorting", "GCU", "WorkRdLive", "WorkRdAll", "EmptyCount"):
            t.add_column(h, justify="right")
        for r in _by(rows, f"figure{fig}"):
            t.add_row(r["unwritten"], r["algorithm"], str(r["cache"]), r["sorting"],
                      *(f"{_f(r[k], fmt)} ({_f(r['paper_' + k], fmt)})" for k, fmt in
                        (("gcu", ".3f"), ("wrl_k", ".0f"), ("wra_k", ".0f"), ("empty_k", ".1f"))))
        out.append(t)
    titles = {5: "[GCU, CltdCount (K), WorkRdLive (K)] of the fitness algorithm",
              10: "[GCU, CltdCount (K), WorkRdLive (K)] of the age-threshold algorithm",
              14: "[GCU, CltdCount (K), WorkRdLive (K)] of the fitness algorithm with unwritten tracks",
              17: "[GCU, CltdCount (K), WorkRdLive (K)] of the age-threshold algorithm with unwritten tracks",
              21: "[GCU, CltdCount (K), WorkRdLive (K)] of the fit-age-nat.10 algorithm",
              22: "[GCU, CltdCount (K), WorkRdLive (K)] of the fit-age-nat.10 algorithm with unwritten tracks",
              6: "% by which [GCU, WorkRdLive, WorkRdAll] with Sorting = Tree exceeds Sorting = Fifo",
              13: "% by which [GCU, WorkRdLive, WorkRdAll] of age-threshold exceeds fitness-fifo",
              20: "% by which [GCU, WorkRdLive, WorkRdAll] of age-threshold exceeds fitness-fifo, unwritten tracks"}
    for fig in (5, 6, 10, 13, 14, 17, 20, 21, 22):
        frows = _by(rows, f"figure{fig}")
        for cache, variant in dict.fromkeys((r["cache"], r["variant"]) for r in frows):
            cells = {(r["dtg"], r["fsc"]): r for r in frows if r["cache"] == cache and r["variant"] == variant}
            t = Table(title=Text.assemble(f"Figure {fig}: {titles[fig]}\n", (f"Cache = {cache}, {variant}; ours (paper); "
                                                                         "rows DtgSortExp, columns FscSortExp", "dim")),
                      show_lines=True)
            t.add_column("Dtg \\ Fsc", justify="right")
            for f in EXPS:
                t.add_column(str(f), justify="right")
            for d in EXPS:
                lines = []
                for f in EXPS:
                    r = cells[(d, f)]
                    if "gcu_pct" in r:
                        ks = (("gcu_pct", "+.2f"), ("wrl_pct", "+.2f"), ("wra_pct", "+.2f"))
                    else:
                        ks = (("gcu", ".3f"), ("cltd_k", ".0f"), ("wrl_k", ".0f"))
                    lines.append("\n".join(f"{_f(r[k], fmt)} ({_f(r['paper_' + k], fmt)})" for k, fmt in ks))
                t.add_row(str(d), *lines)
            out.append(t)
    t = Table(title=Text.assemble("Figure 3: ten passes through the trace\n", ("% improvement from pass 1 to pass 10, % above goal "
              "after pass 10 (goal: written tracks only, ASU 4/7); ours (paper)", "dim")))
    for h in ("Algorithm", "Unwritten", "Cache", "SortExp", "impr. GCU", "impr. WRL", "impr. WRA", "above GCU",
              "above WRL", "above WRA"):
        t.add_column(h, justify="right")
    for r in _by(rows, "figure3"):
        t.add_row(r["algorithm"], r["unwritten"], str(r["cache"]), str(r["sort_exp"]),
                  *(f"{_f(r[k], '.1f')} ({_f(r['paper_' + k], '.1f')})" for k in
                    ("improvement_gcu", "improvement_wrl", "improvement_wra", "above_goal_gcu", "above_goal_wrl",
                     "above_goal_wra")))
    out.append(t)
    t = Table(title="Figure 4: WorkRdLive (K) by pass, SortExp 4, unwritten tracks")
    t.add_column("Case")
    for p in range(1, 11):
        t.add_column(str(p), justify="right")
    t.add_column("goal", justify="right")
    for r in _by(rows, "figure3"):
        if r["unwritten"] == "Y" and r["sort_exp"] == 4:
            t.add_row(f"{r['algorithm']}, Cache {r['cache']}", *(_f(x, ".0f") for x in r["wrl_k_by_pass"]),
                      _f(r["goal_wrl_k"], ".0f"))
    out.append(t)
    q = _by(rows, "quarters")[0]
    t = Table(title=Text.assemble("§8: WorkRdLive (K) in the first eight quarters of the trace\n", (f"{q['case']}; the report does "
              "not say which case its quarters are from", "dim")))
    for i in range(1, 9):
        t.add_column(f"Q{i}", justify="right")
    t.add_row(*(_f(x, ".0f") for x in q["wrl_k"]))
    t.add_row(*(f"({x})" for x in q["paper_wrl_k"]))
    out.append(t)
    t = Table(title="The report's observations on this trace", show_lines=True)
    for h in ("§", "Observation", "Holds", "Here"):
        t.add_column(h)
    for r in _by(rows, "observation"):
        t.add_row(r["item"], r["statement"], Text("yes", "green") if r["holds"] else Text("no", "red"), r["detail"])
    out.append(t)
    return out


def figures(rows: Sequence[Row], out_dir: Path) -> list[Path]:
    """Figures 7–9, 11, 12, 15, 16, 18, 19 (GCU and WorkRdLive over the (DtgSortExp, FscSortExp)
    grid, ours beside the paper's) and Figure 4 (WorkRdLive by pass, with the goals) as PNG; the
    grids also as heat maps for print (:func:`reclaim.figures.papers.stockmeyer_grids`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    plots = ((7, 5, "fifo", "gcu", "GCU, fitness-fifo"), (8, 5, "fifo", "wrl_k", "WorkRdLive (K), fitness-fifo"),
             (9, 5, "tree", "wrl_k", "WorkRdLive (K), fitness-tree"), (11, 10, "optimal", "gcu", "GCU, age-threshold"),
             (12, 10, "optimal", "wrl_k", "WorkRdLive (K), age-threshold"),
             (15, 14, "fifo", "gcu", "GCU, fitness-fifo, unwritten"), (16, 14, "fifo", "wrl_k", "WorkRdLive (K), fitness-fifo, unwritten"),
             (18, 17, "optimal", "gcu", "GCU, age-threshold, unwritten"),
             (19, 17, "optimal", "wrl_k", "WorkRdLive (K), age-threshold, unwritten"))
    for num, grid, variant, key, label in plots:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for ax, cache in zip(axes, CACHES):
            cells = {(r["dtg"], r["fsc"]): r for r in rows if r["table"] == f"figure{grid}" and r["cache"] == cache
                     and r["variant"] == variant}
            for d in EXPS:
                ax.plot(list(EXPS), [cells[(d, f)][key] for f in EXPS], "o-", label=f"Dtg {d}")
                ax.plot(list(EXPS), [cells[(d, f)]["paper_" + key] for f in EXPS], "x:", color=ax.lines[-1].get_color())
            ax.set(title=f"Cache = {cache}", xlabel="FscSortExp", ylabel=label)
            ax.legend(fontsize=7, title="ours (o), paper (x)", title_fontsize=7)
        fig.suptitle(f"Figure {num}: {label}")
        fig.tight_layout()
        path = out_dir / f"stockmeyer_figure{num}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, cache in zip(axes, CACHES):
        for r in rows:
            if r["table"] == "figure3" and r["unwritten"] == "Y" and r["sort_exp"] == 4 and r["cache"] == cache:
                line = ax.plot(np.arange(1, 11), r["wrl_k_by_pass"], "o-", label=r["algorithm"])[0]
                ax.axhline(r["goal_wrl_k"], color=line.get_color(), ls="--", lw=1)
        ax.set(title=f"Cache = {cache}", xlabel="pass", ylabel="WorkRdLive (K)")
        ax.legend(fontsize=8)
    fig.suptitle("Figure 4: WorkRdLive by pass (dashed: goals), SortExp 4, unwritten tracks")
    fig.tight_layout()
    path = out_dir / "stockmeyer_figure4.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    written.append(path)
    # The grids again as heat maps, published beside reclaim's and their difference, for print.
    from reclaim.figures import papers

    return written + papers.stockmeyer_grids(rows, plots, CACHES, list(EXPS), out_dir)


STOCKMEYER = Reproduction(
    title="Stockmeyer: age-threshold and fitness on a long trace",
    source="seed 000, Figures 1–6, 10, 13, 14, 17, 20–22",
    compute=compute,
    columns=[],
    render=render,
    choices={"split": Choice(("mean", "median"), "mean",
                             "the trees' split: the running average of ages (§2.3's words) or a running median"),
             **{k: Choice(values, values[0], text) for k, (_, values, text) in CONVENTIONS.items()},
             "stand-in": Choice(("files", "stack"), "files",
                                "the snake's stand-in: the file-structured model calibrated on the unsorted results, "
                                "or the stack-distance model through the two hit ratios")},
)
