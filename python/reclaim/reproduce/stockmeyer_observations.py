"""The numbered observations of Stockmeyer's report (seed 000, §3 items 1–6, §4 items 1–3), each
as a check over a reproduction's rows: on our numbers, or (``paper=True``) on the report's own,
which every check must pass, since it is the report's statement about them.

Each check reads the report strictly: "at most 24%" is at most 24%, "with no exception" is none,
"with four exceptions" is at most four; where the report says "almost all" or "a few" without a
count, the function's comment gives the count it reads. ``paper_rows`` builds the rows of the
report's own numbers, which the checks must accept.
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
    """Range of differences: over the six algorithms of Figure 1 (greedy aside), "the percentage
    by which the Work of the worst exceeds that of the best is maximized at 24%" in the case
    (Y, 1, Live). Read as: every (Unwritten, Cache, measure) spread is at most 24%."""
    spreads = []
    for un, cache, key in itertools.product("NY", CACHES, ("wrl_k", "wra_k")):
        vals = [r[p + key] for r in _rows(rows, "figure1", unwritten=un, cache=cache) if r["algorithm"] != "greedy"]
        spreads.append(100 * (max(vals) / min(vals) - 1))
    return max(spreads) <= 24.0, f"spreads {min(spreads):.1f}–{max(spreads):.1f}% (report: 9–24%)"


def _fitness(rows: list[Row], p: str, un: str, cache: int, sort: str, key: str) -> float:
    return float(_rows(rows, "figure1", unwritten=un, cache=cache, algorithm="fitness", sorting=sort)[0][p + key])


def item3_2(rows: list[Row], p: str) -> tuple[bool, str]:
    """Fitness-fifo against fitness-tree. Figure 1: Fifo has the smaller WorkRdLive except in
    (Y, 320), Tree the smaller WorkRdAll except in (N, 320): at most one exception each. Figure 6:
    where DtgSortExp, FscSortExp ≥ 2, Fifo does less WorkRdLive, less WorkRdAll with Cache = 320,
    and Tree less WorkRdAll with Cache = 1, with no exception; where both are ≥ 1, "only three
    exceptions"."""
    live_x = sum(_fitness(rows, p, un, c, "fifo", "wrl_k") >= _fitness(rows, p, un, c, "tree", "wrl_k")
                 for un, c in itertools.product("NY", CACHES))
    all_x = sum(_fitness(rows, p, un, c, "tree", "wra_k") >= _fitness(rows, p, un, c, "fifo", "wra_k")
                for un, c in itertools.product("NY", CACHES))
    wrong2 = wrong1 = 0
    for cache in CACHES:
        live = _grid(rows, "figure6", p + "wrl_pct", cache=cache)
        alll = _grid(rows, "figure6", p + "wra_pct", cache=cache)
        for d, f in itertools.product(range(1, 5), range(1, 5)):
            bad = (live[(d, f)] <= 0) + ((alll[(d, f)] <= 0) if cache == 320 else (alll[(d, f)] >= 0))
            wrong1 += bad
            wrong2 += bad if d >= 2 and f >= 2 else 0
    holds = live_x <= 1 and all_x <= 1 and wrong2 == 0 and wrong1 <= 3
    return holds, (f"Figure 1: {live_x} WRL and {all_x} WRA exceptions (report: 1, 1); Figure 6: {wrong2} of 36 "
                   f"exceptions with exponents ≥ 2 (report: 0), {wrong1} of 64 with ≥ 1 (report: 3)")


def item3_3(rows: list[Row], p: str) -> tuple[bool, str]:
    """"Fitness (with AT = 0) versus age-threshold" (Figure 1), each in all four (Unwritten,
    Cache) cases: under WorkRdLive a fitness algorithm finishes first; under WorkRdAll the
    age-threshold algorithm (optimal AT) does; the age-threshold algorithm has a larger
    EmptyCount than fitness-fifo and fitness-tree. The race is the item's title's: fitness-fifo,
    fitness-tree, age-threshold and age-thr-nat.10 (fit-age-nat.10 has a positive threshold and
    is item 4's; in the report's (N, 320) its WorkRdAll, 528K, is below age-threshold's 534K)."""
    live = alll = empty = 0
    for un, cache in itertools.product("NY", CACHES):
        rs = [r for r in _rows(rows, "figure1", unwritten=un, cache=cache) if r["algorithm"] not in ("greedy", "fit-age-nat.10")]
        best_live = min(rs, key=lambda r: r[p + "wrl_k"])
        live += best_live["algorithm"] == "fitness"
        at = next(r for r in rs if r["algorithm"] == "age-threshold")
        alll += at[p + "wra_k"] <= min(r[p + "wra_k"] for r in rs)
        fit = [r for r in rs if r["algorithm"] == "fitness"]
        empty += all(at[p + "empty_k"] > r[p + "empty_k"] for r in fit)
    holds = live == 4 and alll == 4 and empty == 4
    return holds, f"fitness first under WRL in {live}/4, age-threshold first under WRA in {alll}/4, larger EmptyCount in {empty}/4"


def item3_4(rows: list[Row], p: str) -> tuple[bool, str]:
    """Fitness with NAT 0.10 against fitness (Figure 1): "In all sixteen cases except one, the
    introduction of the positive age-threshold causes a decrease in Work; the exception is … a
    < 1% increase in WorkRdLive. Under WorkRdLive, the improvement is at most 3% in each case."
    Read as: Work lower in at least 15 of the 16 (Unwritten, Cache, measure, Sorting) cases, any
    other case a WorkRdLive increase below 1%, and no WorkRdLive improvement above 3%."""
    lower = 0
    small = True
    best_live = -math.inf
    for un, cache, sort in itertools.product("NY", CACHES, ("fifo", "tree")):
        fit = _rows(rows, "figure1", unwritten=un, cache=cache, algorithm="fitness", sorting=sort)[0]
        age = _rows(rows, "figure1", unwritten=un, cache=cache, algorithm="fit-age-nat.10", sorting=sort)[0]
        for key in ("wrl_k", "wra_k"):
            if age[p + key] < fit[p + key]:
                lower += 1
            else:
                small = small and key == "wrl_k" and age[p + key] < 1.01 * fit[p + key]
        best_live = max(best_live, 100 * (1 - age[p + "wrl_k"] / fit[p + "wrl_k"]))
    holds = lower >= 15 and small and best_live <= 3.0
    return holds, f"Work lower in {lower}/16 (report: 15); WorkRdLive improvement at most {best_live:.1f}% (report: 3%)"


def _steps(grid: dict[tuple[int, int], float]) -> Iterable[tuple[float, float]]:
    for d, f in itertools.product(EXPS, EXPS):
        if d < 4:
            yield grid[(d, f)], grid[(d + 1, f)]
        if f < 4:
            yield grid[(d, f)], grid[(d, f + 1)]


def _monotone(rows: list[Row], p: str, figures: Iterable[tuple[int, tuple[str, ...]]]) -> tuple[int, int, int, int, int]:
    """(unit steps, steps up, steps up by 1.5% or more, grids, grids whose minimum is at (4, 4))."""
    steps = ups = big = grids = at44 = 0
    for fig, variants in figures:
        for cache, v, key in itertools.product(CACHES, variants, ("gcu", "wrl_k")):
            g = _grid(rows, f"figure{fig}", p + key, cache=cache, variant=v)
            if not g:
                continue
            for a, b in _steps(g):
                steps += 1
                ups += b > a
                big += b >= 1.015 * a
            grids += 1
            at44 += g[(4, 4)] <= min(g.values())
    return steps, ups, big, grids, at44


#: The report's figures of GCU and WorkRdLive over the (DtgSortExp, FscSortExp) grid.
GRIDS = ((5, ("fifo", "tree")), (10, ("optimal", "nat.10")), (14, ("fifo", "tree")), (17, ("optimal", "nat.10")),
         (21, ("fifo", "tree")), (22, ("fifo", "tree")))


def item3_5(rows: list[Row], p: str) -> tuple[bool, str]:
    """GCU and Work decrease as the SortExp's increase "in almost all cases … There are a few
    sporadic instances where an increase of 1 in one of the exponents causes GCU or Work to
    increase by at most 1% … the smallest GCU, WorkRdLive, and WorkRdAll are always found in the
    case (4, 4)" (every grid of GCU and WorkRdLive: Figures 5, 10, 14, 17, 21, 22; the grids
    give no WorkRdAll). Read as: no unit step up by more than 1% as the report rounds percentages
    (to whole ones: its own largest step up is 1.08%, Figure 5 (a) Tree, WorkRdLive 743K → 751K),
    at most 2% of the unit steps up at all (a few sporadic instances), and every grid's minimum
    at (4, 4)."""
    steps, ups, big, grids, at44 = _monotone(rows, p, GRIDS)
    holds = big == 0 and ups <= 0.02 * steps and at44 == grids
    return holds, f"{ups} of {steps} steps up, {big} by ≥1.5%; minimum at (4, 4) in {at44}/{grids} grids"


def item3_6(rows: list[Row], p: str) -> tuple[bool, str]:
    """Ten passes (Figure 3): with unwritten tracks, fitness improves GCU, WorkRdLive and WorkRdAll
    more than the age-threshold algorithm with unwritten tracks and more than fitness without
    them, in each (Cache, SortExp) case: all 24 comparisons."""
    good = total = 0
    for cache, e in itertools.product(CACHES, (0, 4)):
        rs = {(r["algorithm"], r["unwritten"]): r for r in _rows(rows, "figure3", cache=cache, sort_exp=e)}
        fy = rs[("fitness", "Y")]
        for other, key in itertools.product((rs[("age-thr", "Y")], rs[("fitness", "N")]), ("gcu", "wrl", "wra")):
            total += 1
            good += fy[f"{p}improvement_{key}"] > other[f"{p}improvement_{key}"]
    return good == total, f"{good} of {total} comparisons as stated"


def item4_1(rows: list[Row], p: str) -> tuple[bool, str]:
    """Fitness (Figure 5): GCU and WorkRdLive "generally decrease as the SortExp's increase (there
    is only one exception in Figure 5)". Read as: at most one unit step (a Sorting and a move from
    one point to the next) along which GCU or WorkRdLive rises at either cache: the report's one
    exception is the step (0, 1) → (0, 2) of Tree, where three of the four values rise."""
    bad: set[tuple[str, tuple[int, int], tuple[int, int]]] = set()
    for cache, v, key in itertools.product(CACHES, ("fifo", "tree"), ("gcu", "wrl_k")):
        g = _grid(rows, "figure5", p + key, cache=cache, variant=v)
        for d, f in itertools.product(EXPS, EXPS):
            for nxt in ((d + 1, f), (d, f + 1)):
                if nxt in g and g[nxt] > g[(d, f)]:
                    bad.add((v, (d, f), nxt))
    return len(bad) <= 1, f"{len(bad)} of 80 steps with a rise (report: 1)"


def item4_2(rows: list[Row], p: str) -> tuple[bool, str]:
    """CltdCount (Figure 5) "remains fairly constant across each row" (FscSortExp varies); with
    Cache = 1 it "increases down each column", with Cache = 320 it "decreases slowly with
    increasing DtgSortExp". Read as: every row within 15% of its smallest value (the report's own
    rows at Cache = 320 vary by up to 13%, counts of 23–26 thousand, rounded), and in every column
    CltdCount at DtgSortExp 4 above its value at 0 (Cache = 1) or below it (Cache = 320)."""
    flat = trend = 0
    for cache, v in itertools.product(CACHES, ("fifo", "tree")):
        g = _grid(rows, "figure5", p + "cltd_k", cache=cache, variant=v)
        flat += all(max(g[(d, f)] for f in EXPS) <= 1.15 * min(g[(d, f)] for f in EXPS) for d in EXPS)
        trend += all((g[(4, f)] > g[(0, f)]) if cache == 1 else (g[(4, f)] < g[(0, f)]) for f in EXPS)
    return flat == 4 and trend == 4, f"rows flat in {flat}/4 grids; column trend as stated in {trend}/4"


def item4_3(rows: list[Row], p: str) -> tuple[bool, str]:
    """Tree against Fifo (Figure 6), "with four insignificant exceptions": Fifo has the better
    WorkRdLive when FscSortExp > 0; Tree the better WorkRdAll when Cache = 1 and DtgSortExp > 0;
    Fifo the better WorkRdAll when Cache = 320 and DtgSortExp > 0. Read as: at most four
    comparisons the other way (a tie counts as one), each under 1.5% (insignificant: 1% as the
    report rounds; its own four are 0.19%, 0.72%, 1.00% and 1.04%)."""
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
                    big += x <= -1.5
    return wrong <= 4 and big == 0, f"{wrong} of {total} comparisons the other way (report: 4), {big} by 1.5% or more"


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


def paper_rows() -> list[Row]:
    """The rows of the report's own numbers (Figures 1, 3, 5, 6, 10, 14, 17, 21, 22), each value
    both as ours and as ``paper_``: what the checks read, without a simulation."""
    from reclaim.reproduce.common import published

    rows: list[Row] = []

    def both(row: Row, values: dict[str, float]) -> Row:
        return row | values | {"paper_" + k: v for k, v in values.items()}

    for p in published("stockmeyer_figure1.csv"):
        rows.append(both({"table": "figure1", "unwritten": p["unwritten"], "algorithm": p["algorithm"], "cache": int(p["cache"]),
                          "sorting": p["sorting"]},
                         {"gcu": float(p["gcu"]), "wrl_k": float(p["work_rd_live_k"]), "wra_k": float(p["work_rd_all_k"]),
                          "empty_k": float(p["empty_count_k"])}))
    for p in published("stockmeyer_grids.csv"):
        fig, keys = int(p["figure"]), ("gcu", "cltd_k", "wrl_k")
        if fig in (13, 20):
            continue
        if fig == 6:
            keys = ("gcu_pct", "wrl_pct", "wra_pct")
        rows.append(both({"table": f"figure{fig}", "unwritten": p["unwritten"], "cache": int(p["cache"]), "variant": p["variant"],
                          "dtg": int(p["dtg"]), "fsc": int(p["fsc"])}, dict(zip(keys, (float(p[k]) for k in "abc")))))
    for p in published("stockmeyer_figure3.csv"):
        rows.append(both({"table": "figure3", "algorithm": p["algorithm"], "unwritten": p["unwritten"], "cache": int(p["cache"]),
                          "sort_exp": int(p["sort_exp"])},
                         {f"improvement_{k}": float(p[f"improvement_{k}"]) for k in ("gcu", "wrl", "wra")}))
    return rows


def observations(rows: list[Row], paper: bool = False) -> list[Row]:
    """One row per observation: ``holds`` on our numbers (on the report's with ``paper``)."""
    out = []
    for item, statement, check in OBSERVATIONS:
        holds, detail = check(rows, "paper_" if paper else "")
        out.append({"table": "observation", "item": item, "statement": statement, "holds": bool(holds), "detail": detail})
    return out
