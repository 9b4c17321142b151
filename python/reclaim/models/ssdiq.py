"""SSD-iq's 2a closed form: how a device's spare space is best shared among write groups of equal
size and known write shares, and the WA that sharing gives.

Haas, Lee, Bonnet & Leis, "SSD-iq", PVLDB 18(11), 2025; the simulator of ``LeeBohyun/ssdiq_plus``
(after ``gabriel-haas/ssdiq``), ``sim/TwoAFormula.hpp``: ``greedyApproxWA``, ``calc2aSolution``,
``compute_a``, ``intervalWA`` and ``newOptWA``. Its ``2a`` scheme (``TwoAGC.hpp``) takes from it
the fill level each write group should have, and its ``opt`` scheme (``Optimal.hpp``) reports as
its WA the value of ``newOptWA`` over a histogram of the pages' write counts (its ``optHistSize``
groups of equal page count, most written first). ``sim/optWAF.R`` holds the same expressions
with another greedy approximation (a polynomial); the C++ form, which the simulator runs, is
the one here.

The expressions, for groups i = 1 … n of equal size (a share 1/n of the data each) and write
shares w_i (normalised to sum 1), at fill level F (logical / physical pages):

- greedy's WA at fill f, approximated as 1 / (2(1 − f)) (``greedyApproxWA``);
- for neighbours i, i + 1: x_i = (r − √(r(1 − r))) / (2r − 1), r = w_i / (w_i + w_{i+1})
  (``calc2aSolution``, ½ at r = ½), and the factor q_i = x_i / (1 − x_i) (which is
  √(w_i / w_{i+1}));
- a = Πq / (1 + Σ_i Π_{j ≥ i} q_j) (``compute_a``), the first group's share of the spare; each
  next share is the last divided by q_i, so that share i is √w_i / Σ√w;
- group i's fill f_i = (F/n) / (F/n + (1 − F)·share_i), and WA = Σ w_i / (2(1 − f_i))
  (``intervalWA``).

A write share of 0 is not admitted (the simulator asserts w > 0; its ``opt`` raises an empty
histogram bucket to 1 write and its ``2a`` an idle group to 0.01 writes before calling).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def _check_fill(fill: float) -> None:
    if not 0.0 < fill < 1.0:
        raise ValueError(f"invalid value for `fill`: {fill} (expected a number in (0, 1))")


def greedy_approx_wa(fill: float) -> float:
    """Greedy's WA at fill level f as ``TwoAFormula.hpp`` approximates it: 1 / (2(1 − f)).

    Args:
        fill: Fill level f (valid pages / physical pages of the space), 0 < f < 1.

    Returns:
        The approximate WA.

    >>> greedy_approx_wa(0.875)
    4.0
    """
    _check_fill(fill)
    return 1.0 / (2.0 * (1.0 - fill))


def two_a_split(r: float) -> float:
    """``calc2aSolution``: the share of two neighbours' spare that goes to the first, whose share
    of their writes is r.

    Args:
        r: w_i / (w_i + w_{i+1}), 0 < r < 1.

    Returns:
        (r − √(r(1 − r))) / (2r − 1), and ½ at r = ½ (the limit).

    >>> round(two_a_split(0.8), 6)  # √0.8 / (√0.8 + √0.2) = 2/3
    0.666667
    """
    if abs(2.0 * r - 1.0) < 1e-15:
        return 0.5
    val = r * (1.0 - r)
    if val < 0.0:
        return 0.0
    return (r - math.sqrt(val)) / (2.0 * r - 1.0)


def compute_a(factors: Sequence[float]) -> float:
    """``compute_a``: Πq / (1 + Σ_i Π_{j ≥ i} q_j).

    >>> compute_a([2.0])  # 2 / (1 + 2)
    0.6666666666666666
    """
    num = math.prod(factors)
    denom = 1.0 + sum(math.prod(factors[i:]) for i in range(len(factors)))
    return num / denom


@dataclass(frozen=True)
class TwoA:
    """The 2a closed form at one fill level for some write shares.

    Attributes:
        shares: Each group's share of the spare space (sums to 1), ``newOptWA``'s ``firsta``.
        fills: Each group's fill level f_i.
        wa: Σ w_i · greedy_approx_wa(f_i).
    """

    shares: tuple[float, ...]
    fills: tuple[float, ...]
    wa: float


def two_a(fill: float, writes: Sequence[float]) -> TwoA:
    """``newOptWA(fill, writes)``: the spare shares and the WA of groups of equal size whose
    relative write counts are ``writes``.

    Args:
        fill: Fill level F (logical / physical pages), 0 < F < 1.
        writes: Relative write counts of the groups, each > 0 (any scale).

    Returns:
        A :class:`TwoA`.

    Raises:
        ValueError: a fill level outside (0, 1), no group or a count that is not > 0.

    Two groups taking 80% and 20% of the writes share the spare as √0.8 : √0.2 = 2/3 : 1/3:

    >>> t = two_a(0.9, [80, 20])
    >>> [round(s, 6) for s in t.shares], round(t.wa, 4)
    ([0.666667, 0.333333], 4.55)
    """
    _check_fill(fill)
    if not writes:
        raise ValueError("invalid value for `writes`: [] (expected at least one group)")
    for w in writes:
        if not w > 0.0:
            raise ValueError(f"invalid value for `writes`: {list(writes)} (expected every count > 0)")
    total = float(sum(writes))
    wf = [w / total for w in writes]
    factors = []
    for i in range(len(wf) - 1):
        x = two_a_split(wf[i] / (wf[i] + wf[i + 1]))
        if abs(1.0 - x) > 1e-15:
            factors.append(x / (1.0 - x))
    if factors:
        shares = [compute_a(factors)]
        for q in factors:
            shares.append(0.0 if abs(q) < 1e-15 else shares[-1] / q)
    else:
        shares = [1.0]
    n = len(wf)
    fills = []
    wa = 0.0
    for w, share in zip(wf, shares):
        sf = fill / n
        denom = sf + (1.0 - fill) * share
        f = sf / denom
        fills.append(f)
        wa += w / (2.0 * (1.0 - f))
    return TwoA(shares=tuple(shares), fills=tuple(fills), wa=wa)


def opt_histogram(counts: Sequence[int], groups: int) -> list[int]:
    """``OptimalGC::stats``: the pages' write counts sorted most written first, summed into
    ``groups`` buckets of equal page count (page k of n into bucket ⌊k·groups/n⌋, in single
    precision as the simulator computes it), an empty bucket raised to 1.

    Args:
        counts: Writes of each logical page.
        groups: ``optHistSize``, ≥ 1.

    Returns:
        The writes of each bucket.

    >>> opt_histogram([5, 0, 1, 9, 0, 3], 3)
    [14, 4, 1]
    """
    if groups < 1:
        raise ValueError(f"invalid value for `groups`: {groups} (expected a whole number ≥ 1)")
    pages = sorted(counts, reverse=True)
    n = len(pages)
    hist = [0] * groups
    for k, c in enumerate(pages):
        hist[min(int(k / n * groups), groups - 1)] += c
    return [h if h != 0 else 1 for h in hist]


def hot_cold_writes(r: float, f: float, groups: int) -> list[float]:
    """The write share of each of ``groups`` equal groups of pages, most written first, under
    hot/cold writes (a share r of the writes to a share f of the pages, uniform within each):
    what ``opt_histogram`` tends to on a long run of that workload.

    Args:
        r: Share of writes to the hot pages, 0 < r < 1.
        f: Share of pages that are hot, 0 < f < 1.
        groups: Groups, ≥ 1.

    Returns:
        Each group's share of the writes.

    >>> [round(w, 4) for w in hot_cold_writes(0.9, 0.1, 4)]  # hot pages all in group 0
    [0.9167, 0.0278, 0.0278, 0.0278]
    """
    if not (0.0 < r < 1.0 and 0.0 < f < 1.0):
        raise ValueError(f"invalid value for `r`, `f`: {r}, {f} (expected numbers in (0, 1))")
    if groups < 1:
        raise ValueError(f"invalid value for `groups`: {groups} (expected a whole number ≥ 1)")
    out = []
    for g in range(groups):
        lo, hi = g / groups, (g + 1) / groups
        hot = max(0.0, min(hi, f) - lo)
        cold = (hi - lo) - hot
        out.append(hot * r / f + cold * (1.0 - r) / (1.0 - f))
    return out
