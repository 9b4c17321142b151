"""The numbered observations of Stockmeyer's report (seed 000, §3 items 1–6, §4 items 1–3), each
as a check over a reproduction's rows: on our numbers, or (``paper=True``) on the report's own,
which every check must pass, since it is the report's statement about them.

Where the report says "almost all", "generally" or "with a few exceptions", the check allows the
exceptions it reports and no more than that order of them; each function's comment gives the
reading.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

Row = dict[str, Any]
EXPS = range(5)
CACHES = (1, 320)


def _rows(rows: Iterable[Row], table: str, **match: Any) -> list[Row]:
    return [r for r in rows if r["table"] == table and all(r.get(k) == v for k, v in match.items())]


def _grid(rows: Iterable[Row], table: str, key: str, **match: Any) -> dict[tuple[int, int], float]:
    return {(r["dtg"], r["fsc"]): r[key] for r in _rows(rows, table, **match)}


def _ok(x: Any) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def item3_1(rows: list[Row], p: str) -> tuple[bool, str]:
    """Range of differences: over the six algorithms of Figure 1 (greedy aside), the Work of the
    worst exceeds the best's by at most 24% in every (Unwritten, Cache, measure) case. Read as:
    every spread is at most 30%."""
    spreads = []
    for un, cache, key in itertools.product("NY", CACHES, ("wrl_k", "wra_k")):
        vals = [r[p + key] for r in _rows(rows, "figure1", unwritten=un, cache=cache) if r["algorithm"] != "greedy"]
        spreads.append(100 * (max(vals) / min(vals) - 1))
    return max(spreads) <= 30.0, f"spreads {min(spreads):.0f}–{max(spreads):.0f}% (report: 9–24%)"


def item3_2(rows: list[Row], p: str) -> tuple[bool, str]:
    """Fitness-fifo against fitness-tree where DtgSortExp, FscSortExp ≥ 2 (Figure 6): Fifo does
    less WorkRdLive; less WorkRdAll with Cache = 320; Tree does less WorkRdAll with Cache = 1. The
    report finds no exception there: read as at most 10% of the 36 comparisons failing."""
    total = good = 0
    for cache in CACHES:
        live = _grid(rows, "figure6", p + "wrl_pct", cache=cache)
        alll = _grid(rows, "figure6", p + "wra_pct", cache=cache)
        for d, f in itertools.product(range(2, 5), range(2, 5)):
            total += 2
            good += live[(d, f)] > 0
            good += (alll[(d, f)] > 0) if cache == 320 else (alll[(d, f)] < 0)
    return good >= 0.9 * total, f"{good} of {total} comparisons as stated"


def item3_3(rows: list[Row], p: str) -> tuple[bool, str]:
    """Fitness against age-threshold (Figure 1): under WorkRdLive a fitness algorithm (fitness or
    fit-age-nat.10) finishes first, under WorkRdAll the age-threshold algorithm (optimal AT; ties
    count), and the age-threshold algorithm has a larger EmptyCount than fitness-fifo and
    fitness-tree. Read as: each of the three in at least 3 of the 4 (Unwritten, Cache) cases."""
    live = alll = empty = 0
    for un, cache in itertools.product("NY", CACHES):
        rs = [r for r in _rows(rows, "figure1", unwritten=un, cache=cache) if r["algorithm"] != "greedy"]
        best_live = min(rs, key=lambda r: r[p + "wrl_k"])
        live += best_live["algorithm"] in ("fitness", "fit-age-nat.10")
        at = next(r for r in rs if r["algorithm"] == "age-threshold")
        alll += at[p + "wra_k"] <= min(r[p + "wra_k"] for r in rs)
        fit = [r for r in rs if r["algorithm"] == "fitness"]
        empty += all(at[p + "empty_k"] > r[p + "empty_k"] for r in fit)
    holds = live >= 3 and alll >= 3 and empty >= 3
    return holds, f"fitness first under WRL in {live}/4, age-threshold first under WRA in {alll}/4, larger EmptyCount in {empty}/4"


def item3_4(rows: list[Row], p: str) -> tuple[bool, str]:
    """Fitness with NAT 0.10 against fitness (Figure 1): the positive threshold lowers Work in 15
    of the 16 (Unwritten, Cache, measure, Sorting) cases, WorkRdLive by at most 3%. Read as: Work
    lower in at least 14 of 16."""
    lower = 0
    best_live = -math.inf
    for un, cache, sort in itertools.product("NY", CACHES, ("fifo", "tree")):
        fit = _rows(rows, "figure1", unwritten=un, cache=cache, algorithm="fitness", sorting=sort)[0]
        age = _rows(rows, "figure1", unwritten=un, cache=cache, algorithm="fit-age-nat.10", sorting=sort)[0]
        for key in ("wrl_k", "wra_k"):
            lower += age[p + key] < fit[p + key]
        best_live = max(best_live, 100 * (1 - age[p + "wrl_k"] / fit[p + "wrl_k"]))
    return lower >= 14, f"Work lower in {lower}/16; WorkRdLive improvement at most {best_live:.1f}% (report: 3%)"


def _steps(grid: dict[tuple[int, int], float]) -> Iterable[tuple[float, float]]:
    for d, f in itertools.product(EXPS, EXPS):
        if d < 4:
            yield grid[(d, f)], grid[(d + 1, f)]
        if f < 4:
            yield grid[(d, f)], grid[(d, f + 1)]


def _monotone(rows: list[Row], p: str, figures: Iterable[tuple[int, tuple[str, ...]]]) -> tuple[int, int, int, int]:
    """(unit steps, steps up by more than 1%, grids, grids whose minimum is within 1% of (4, 4))."""
    steps = ups = grids = at44 = 0
    for fig, variants in figures:
        for cache, v, key in itertools.product(CACHES, variants, ("gcu", "wrl_k")):
            g = _grid(rows, f"figure{fig}", p + key, cache=cache, variant=v)
            if not g:
                continue
            for a, b in _steps(g):
                steps += 1
                ups += b > 1.01 * a
            grids += 1
            at44 += g[(4, 4)] <= 1.01 * min(g.values())
    return steps, ups, grids, at44


def item3_5(rows: list[Row], p: str) -> tuple[bool, str]:
    """GCU and Work decrease as the SortExp's increase, in almost all cases, and are smallest at
    (4, 4) (every grid: Figures 5, 10, 14, 17, 21, 22). Read as: at most 5% of unit steps raise
    GCU or WorkRdLive by more than 1%, and every grid's minimum is within 1% of its (4, 4)."""
    figs = ((5, ("fifo", "tree")), (10, ("optimal", "nat.10")), (14, ("fifo", "tree")), (17, ("optimal", "nat.10")),
            (21, ("fifo", "tree")), (22, ("fifo", "tree")))
    steps, ups, grids, at44 = _monotone(rows, p, figs)
    return ups <= 0.05 * steps and at44 == grids, f"{ups} of {steps} steps up by >1%; minimum at (4, 4) in {at44}/{grids} grids"


def item3_6(rows: list[Row], p: str) -> tuple[bool, str]:
    """Ten passes (Figure 3): with unwritten tracks, fitness improves GCU, WorkRdLive and WorkRdAll
    more than the age-threshold algorithm with unwritten tracks and more than fitness without
    them, in each (Cache, SortExp) case. Read as: at least 22 of the 24 comparisons."""
    good = total = 0
    for cache, e in itertools.product(CACHES, (0, 4)):
        rs = {(r["algorithm"], r["unwritten"]): r for r in _rows(rows, "figure3", cache=cache, sort_exp=e)}
        fy = rs[("fitness", "Y")]
        for other, key in itertools.product((rs[("age-thr", "Y")], rs[("fitness", "N")]), ("gcu", "wrl", "wra")):
            total += 1
            good += fy[f"{p}improvement_{key}"] > other[f"{p}improvement_{key}"]
    return good >= total - 2, f"{good} of {total} comparisons as stated"


def item4_1(rows: list[Row], p: str) -> tuple[bool, str]:
    """Fitness (Figure 5): GCU and WorkRdLive generally decrease as the SortExp's increase, with
    one exception in the report. Read as: at most 5% of unit steps up by more than 1%."""
    steps, ups, _, _ = _monotone(rows, p, ((5, ("fifo", "tree")),))
    return ups <= 0.05 * steps, f"{ups} of {steps} steps up by >1%"


def item4_2(rows: list[Row], p: str) -> tuple[bool, str]:
    """CltdCount (Figure 5) is fairly constant along each row (FscSortExp varies); down each column
    (DtgSortExp rising) it increases with Cache = 1 and decreases slowly with Cache = 320. Read as:
    every row flat, and CltdCount at DtgSortExp 4 above (Cache = 1) or
    not above (Cache = 320) its value at 0 in at least 4 of 5 columns of each grid. Rows within
    15% of their smallest value: the report's own rows at Cache = 320 vary by up to 13% (counts of
    23–26 thousand, rounded)."""
    flat = trend = 0
    for cache, v in itertools.product(CACHES, ("fifo", "tree")):
        g = _grid(rows, "figure5", p + "cltd_k", cache=cache, variant=v)
        flat += all(max(g[(d, f)] for f in EXPS) <= 1.15 * min(g[(d, f)] for f in EXPS) for d in EXPS)
        ok = sum((g[(4, f)] > g[(0, f)]) if cache == 1 else (g[(4, f)] <= g[(0, f)]) for f in EXPS)
        trend += ok >= 4
    return flat == 4 and trend == 4, f"rows flat in {flat}/4 grids; column trend as stated in {trend}/4"


def item4_3(rows: list[Row], p: str) -> tuple[bool, str]:
    """Tree against Fifo (Figure 6), with four insignificant exceptions: Fifo has the better
    WorkRdLive when FscSortExp > 0; Tree the better WorkRdAll when Cache = 1 and DtgSortExp > 0;
    Fifo the better WorkRdAll when Cache = 320 and DtgSortExp > 0. Read as: at most 4 exceptions
    larger than 0.5%, and at most 10% of comparisons the wrong way at all."""
    total = wrong = big = 0
    for cache in CACHES:
        live = _grid(rows, "figure6", p + "wrl_pct", cache=cache)
        alll = _grid(rows, "figure6", p + "wra_pct", cache=cache)
        for d, f in itertools.product(EXPS, EXPS):
            checks = []
            if f > 0:
                checks.append(live[(d, f)])
            if d > 0:
                checks.append(-alll[(d, f)] if cache == 1 else alll[(d, f)])
            for x in checks:
                total += 1
                if x <= 0:
                    wrong += 1
                    big += x < -0.5
    return big <= 4 and wrong <= 0.1 * total, f"{wrong} of {total} comparisons the other way, {big} by more than 0.5%"


OBSERVATIONS: list[tuple[str, str, Callable[[list[Row], str], tuple[bool, str]]]] = [
    ("3.1", "The six algorithms' Work differs by at most about a quarter", item3_1),
    ("3.2", "Fitness-fifo vs fitness-tree: Fifo less WRL; Tree less WRA with Cache 1, Fifo with Cache 320", item3_2),
    ("3.3", "Fitness first under WRL, age-threshold first under WRA, with more naturally emptied segments", item3_3),
    ("3.4", "An age threshold (NAT 0.10) lowers fitness's Work", item3_4),
    ("3.5", "GCU and Work fall as the SortExp's rise; smallest at (4, 4)", item3_5),
    ("3.6", "Over ten passes fitness with unwritten tracks improves most", item3_6),
    ("4.1", "Fitness: GCU and WRL fall as the SortExp's rise", item4_1),
    ("4.2", "CltdCount flat along rows; rises with DtgSortExp at Cache 1, falls at Cache 320", item4_2),
    ("4.3", "Tree vs Fifo (Figure 6): Fifo less WRL; Tree less WRA at Cache 1, Fifo at Cache 320", item4_3),
]


def observations(rows: list[Row], paper: bool = False) -> list[Row]:
    """One row per observation: ``holds`` on our numbers (on the report's with ``paper``)."""
    out = []
    for item, statement, check in OBSERVATIONS:
        holds, detail = check(rows, "paper_" if paper else "")
        out.append({"table": "observation", "item": item, "statement": statement, "holds": bool(holds), "detail": detail})
    return out
