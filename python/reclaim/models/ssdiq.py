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

Since share i is √w_i / Σ√w, the WA is, in closed form, ½ + F·(Σ_i √w_i)² / (2n(1 − F)) (w
normalised): 1 / (2(1 − F)), greedy's approximation, when the groups are written alike, and
lower the more unequal they are. :func:`opt_wa` evaluates it the simulator's way, vectorised.

``opt-N`` (``Optimal.hpp``, ``OptimalGC``) writes no block: ``writePage`` counts each logical
page's writes, ``stats`` (called by ``sim.cpp`` ``runBench`` after each row of a tenth of the
logical pages) sorts the counts, sums them into N buckets (:func:`opt_histogram`) and prints
``optWA:``, the value of ``newOptWA`` at the fill (in single precision). The counts are never
reset (``resetStats`` clears only the number of writes), so the last line covers every write
since the start, the sequential fill and the init phase's writes included
(:func:`opt_wa_of_counts`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


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


def opt_histogram(counts: Any, groups: int) -> list[int]:
    """``OptimalGC::stats``: the pages' write counts sorted most written first, summed into
    ``groups`` buckets of equal page count, an empty bucket raised to 1.

    Page k of n (0-based, in sorted order) goes to bucket ⌊(float)k / n · groups⌋ computed in
    single precision, as the simulator's ``hist[(float)i/ssd.logicalPages*histSize]`` does (an
    index that rounds up to ``groups``, which the simulator would write past its last bucket,
    is kept in the last; at n < 2²⁴ pages it does not happen).

    Args:
        counts: Writes of each logical page (whole numbers ≥ 0), at least one page.
        groups: ``optHistSize``, ≥ 1.

    Returns:
        The writes of each bucket, most written first.

    Raises:
        ValueError: ``groups`` < 1, no page, or a count that is not a whole number ≥ 0.

    >>> opt_histogram([5, 0, 1, 9, 0, 3], 3)
    [14, 4, 1]
    >>> opt_histogram([2, 2], 4)  # pages 0 and 1 of 2 fall in buckets 0 and 2
    [2, 1, 2, 1]
    """
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"invalid value for `groups`: {groups} (expected a whole number ≥ 1)")
    c = np.asarray(counts)
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"invalid value for `counts`: an array of shape {c.shape} (expected one count per page, at least one page)")
    if c.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(c) | (c != np.round(c)) | (c < 0))
    elif c.dtype.kind in "iu":
        bad = np.flatnonzero(c < 0)
    else:
        raise ValueError(f"invalid value for `counts`: dtype {c.dtype} (expected whole numbers ≥ 0)")
    if bad.size:
        raise ValueError(f"invalid value for `counts`: {c[bad[0]]} at page {bad[0]} (expected whole numbers ≥ 0)")
    pages = np.sort(c.astype(np.int64))[::-1]
    hist = np.bincount(opt_buckets(pages.size, groups), weights=pages.astype(np.float64), minlength=groups)
    return [int(h) if h != 0 else 1 for h in hist]


def opt_buckets(pages: int, groups: int) -> np.ndarray:
    """The bucket of each rank 0 … pages − 1 (most written first) in ``OptimalGC::stats``:
    ⌊(float)k / pages · groups⌋ in single precision, kept below ``groups``.

    Args:
        pages: Logical pages, ≥ 1.
        groups: ``optHistSize``, ≥ 1.

    Returns:
        An int64 array of ``pages`` bucket numbers, non-decreasing.

    >>> opt_buckets(6, 3).tolist()
    [0, 0, 1, 1, 2, 2]
    """
    if pages < 1 or groups < 1:
        raise ValueError(f"invalid value for `pages`, `groups`: {pages}, {groups} (expected whole numbers ≥ 1)")
    k = np.arange(pages, dtype=np.int64).astype(np.float32)
    index = (k / np.float32(pages) * np.float32(groups)).astype(np.int64)
    np.minimum(index, groups - 1, out=index)
    return index


def opt_wa(fill: float, histogram: Any) -> float:
    """``newOptWA(fill, histogram).second``: the optimum's WA for groups of equal size whose
    write counts are ``histogram`` (what ssdiq_plus's ``opt-N`` prints as ``optWA:``).

    The simulator's steps (``TwoAFormula.hpp``: ``calc2aSolution`` per pair of neighbours, the
    factors q = x / (1 − x), ``compute_a``, the chain of shares, ``intervalWA``) in NumPy, in
    double precision (the simulator stores the result in a ``float``). The same value as
    ``two_a(fill, histogram).wa`` and as ½ + F·(Σ√w)² / (2n(1 − F)), w the normalised
    histogram.

    Args:
        fill: Fill level F (logical / physical pages), 0 < F < 1.
        histogram: Write counts of the groups, each > 0 and finite (any scale), most written
            first or not.

    Returns:
        The WA.

    Raises:
        ValueError: a fill outside (0, 1), no group, or a count that is not > 0 and finite.

    One bucket, or buckets written alike, is greedy's approximation 1 / (2(1 − F)); 80 : 20 at
    F = 0.9 is 4.55 (see :func:`two_a`):

    >>> opt_wa(0.875, [7]), opt_wa(0.875, [3, 3, 3, 3]), round(opt_wa(0.9, [80, 20]), 12)
    (4.0, 4.0, 4.55)
    """
    _check_fill(fill)
    w = np.asarray(histogram, dtype=np.float64)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"invalid value for `histogram`: an array of shape {w.shape} (expected one count per group, at least one group)")
    bad = np.flatnonzero(~(np.isfinite(w) & (w > 0.0)))
    if bad.size:
        raise ValueError(f"invalid value for `histogram`: {w[bad[0]]} at group {bad[0]} (expected every count > 0 and finite)")
    wf = w / w.sum()
    n = wf.size
    if n == 1:
        shares = np.ones(1)
    else:
        r = wf[:-1] / (wf[:-1] + wf[1:])
        even = np.abs(2.0 * r - 1.0) < 1e-15
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(even, 0.5, (r - np.sqrt(np.maximum(r * (1.0 - r), 0.0))) / np.where(even, 1.0, 2.0 * r - 1.0))
        if np.any(np.abs(1.0 - x) <= 1e-15) or np.any(np.abs(x) < 1e-15):
            # newOptWA would drop the factor and then read past its shares: not a state it meets
            # with counts ≥ 1 below 2⁵³.
            raise ValueError(f"invalid value for `histogram`: neighbouring counts {w.min()} and {w.max()} too far apart (expected ratios below 10¹⁵)")
        q = x / (1.0 - x)
        suffix = np.cumprod(q[::-1])[::-1]  # Π_{j ≥ i} q_j
        a = suffix[0] / (1.0 + suffix.sum())  # compute_a
        shares = a / np.concatenate(([1.0], np.cumprod(q)))
    sf = fill / n
    f = sf / (sf + (1.0 - fill) * shares)
    return float(np.sum(wf / (2.0 * (1.0 - f))))


def opt_wa_of_counts(fill: float, counts: Any, groups: int) -> float:
    """What ssdiq_plus's ``opt-<groups>`` prints (``optWA:``) when its pages' write counts are
    ``counts``: :func:`opt_wa` on :func:`opt_histogram`.

    Args:
        fill: Fill level F, 0 < F < 1 (the simulator's ``SSDFILL``).
        counts: Writes of each logical page since the start (``writesPerPage``: the sequential
            fill's and the init phase's included).
        groups: ``optHistSize``, the N of ``opt-N``, ≥ 1.

    Returns:
        The WA.

    Raises:
        ValueError: as :func:`opt_histogram` and :func:`opt_wa`.

    >>> round(opt_wa_of_counts(0.9, [8, 8, 8, 8, 2, 2, 2, 2], 2), 12)  # buckets 32 : 8
    4.55
    """
    return opt_wa(fill, opt_histogram(counts, groups))


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
