"""Li, Lee, Lui & Xu, "Impact of Data Locality on Garbage Collection in SSDs: A General Analytical
Study": the workload model (f_a, n, r, f) of §2.2, the cleaning cost of GRA(d) (§3: Theorem 1 and
its regimes, Theorems 2–4, Corollary 1) and data grouping with a spare allocation (§4, Theorem 5).

Units: k is pages per block; costs C̄ are pages moved per GC; a cleaning cost 𝒞 is pages moved
over L single-page writes (eq. 1–2). S is the spare factor (fraction of physical blocks).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize, minimize_scalar
from scipy.special import lambertw


@dataclass(frozen=True)
class Workload:
    """Li et al.'s workload model (§2.2): an active share ``fa`` of the logical space; class i
    receives a share r_i of the writes over a share f_i of the active pages, classes ordered
    hottest first (r_1/f_1 ≥ r_2/f_2 ≥ …).

    >>> Workload(0.1, (0.8, 0.2), (0.2, 0.8)).n
    2
    """

    fa: float
    r: tuple[float, ...]
    f: tuple[float, ...]

    def __post_init__(self) -> None:
        if not 0.0 < self.fa <= 1.0:
            raise ValueError(f"invalid value for `fa`: {self.fa} (expected a number in (0, 1])")
        if len(self.r) != len(self.f) or not self.r:
            raise ValueError(f"invalid value for `r`: {self.r} (expected as many classes as `f` = {self.f})")
        for name, v in (("r", self.r), ("f", self.f)):
            if any(x <= 0 for x in v) or abs(sum(v) - 1.0) > 1e-6:
                raise ValueError(f"invalid value for `{name}`: {v} (expected positive shares summing to 1)")

    @property
    def n(self) -> int:
        """Number of access types."""
        return len(self.r)


def _check(k: int, spare: float) -> None:
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"invalid value for `pages_per_segment`: {k} (expected a whole number ≥ 1)")
    if not 0.0 < spare < 1.0:
        raise ValueError(f"invalid value for `spare`: {spare} (expected a number in (0, 1))")


def spare_active(spare: float, fa: float) -> float:
    """S' = S / ((1 − S)·f_a + S), the spare factor of the active region (Theorem 1).

    >>> round(spare_active(0.1, 0.1), 4)
    0.5263
    """
    return spare / ((1.0 - spare) * fa + spare)


def active_blocks(blocks: int, spare: float, fa: float) -> float:
    """N_a = N((1 − S)·f_a + S) − 1, the active blocks (Theorem 1)."""
    return blocks * ((1.0 - spare) * fa + spare) - 1.0


def uniform_cost(k: int, spare: float) -> float:
    """Corollary 1: mean pages moved per GC by GREEDY under uniform writes, as N → ∞:
    C̄ = −W₀(−e^(−1/(1−S))/(1 − S)) · (1 − S)·k.

    Args:
        k: Pages per block.
        spare: Spare factor of the (sub)system, 0 < S < 1 (S' for an active region).

    >>> round(float(uniform_cost(64, 0.1)) / 64, 4)  # fraction of a victim still valid
    0.8069
    """
    _check(k, spare)
    a = 1.0 / (1.0 - spare)
    w = lambertw(-a * math.exp(-a), 0).real
    return float(-w * (1.0 - spare) * k)


def _solve(h, k: float) -> float:
    """The root of h on [0, k) (h(0) > 0 > h(k⁻), decreasing; Theorem 2's uniqueness argument)."""
    hi = k * (1.0 - 1e-12)
    return brentq(h, 0.0, hi, xtol=1e-13, rtol=1e-15, maxiter=500)


def cost_per_gc(k: int, spare: float, w: Workload, d: float = 1.0, blocks: int | None = None) -> float:
    """Mean valid pages moved per GC by GRA(d), C̄(d).

    With ``blocks`` = N given, the finite-N framework of Theorem 1 (eq. 3–5); otherwise the
    N → ∞ regimes: Theorem 2 (d = o(N), e.g. GREEDY, d = 1) when d ≥ 1 is a count; Theorem 4
    (d = α·N_a) when 0 < d < 1 is read as α; Theorem 3 (d ≥ N_a) needs N and d.

    Args:
        k: Pages per block.
        spare: Spare factor S.
        w: Workload (f_a, r, f).
        d: Window size (a count), or α in (0, 1) for Theorem 4.
        blocks: N, for Theorem 1's finite form.

    >>> w = Workload(0.1, (0.8, 0.2), (0.2, 0.8))
    >>> round(cost_per_gc(64, 0.1, w), 3)  # × ⌈5M / (64 − C̄)⌉ = 2.314e6, Fig. 6(b)
    20.249
    """
    _check(k, spare)
    if blocks is not None and not (isinstance(blocks, (int, np.integer)) and blocks >= 1):
        raise ValueError(f"invalid value for `blocks`: {blocks} (expected a whole number of blocks N ≥ 1)")
    if not (math.isfinite(d) and d > 0):
        raise ValueError(f"invalid value for `d`: {d} (expected α in (0, 1) or a whole number of blocks ≥ 1)")
    if d >= 1 and not float(d).is_integer():
        raise ValueError(f"invalid value for `d`: {d} (expected α in (0, 1) or a whole number of blocks ≥ 1)")
    if blocks is not None and d > blocks:
        raise ValueError(f"invalid value for `d`: {d:g} (expected at most the N = {blocks} blocks there are)")
    if blocks is None and d > 1:
        # Theorem 2 gives GREEDY's cost for any d = o(N); without N nothing says d is small.
        raise ValueError(f"invalid value for `d`: {d:g} (expected 1 or α in (0, 1) without `blocks`; "
                         "give N for a window of several blocks: Theorem 1's finite form)")
    s1 = spare_active(spare, w.fa)
    r = np.asarray(w.r)
    f = np.asarray(w.f)
    if blocks is None:
        alpha = d if 0.0 < d < 1.0 else 0.0

        def h(c: float) -> float:
            a = r * (k - c) / ((1.0 - s1) * k * f)
            return float(np.sum((k - c) * r / ((1.0 + alpha * a) * np.exp((1.0 - alpha) * a) - 1.0))) - c

        return _solve(h, k)
    na = active_blocks(blocks, spare, w.fa)
    dd = min(d, na)

    def h_finite(c: float) -> float:
        p = r * (k - c) / ((na + 1.0) * (1.0 - s1) * k * f)
        x = (na - dd) * np.log1p(-p)
        # (1 − P')^(N_a − d) / (1 + P'·d − (1 − P')^(N_a − d)), written to stay exact as P' → 0.
        return float(np.sum(r * (k - c) * np.exp(x) / (p * dd - np.expm1(x)))) - c

    ca = _solve(h_finite, k)
    if d <= na:
        return ca
    return (na / d) * ca + (1.0 - na / d) * k


def random_cost_per_gc(k: int, spare: float, blocks: int, d: float | None = None) -> float:
    """Theorem 3: C̄(d) = (1 − N·S/d)·k for d ≥ N_a (RANDOM: d = N gives (1 − S)·k).

    >>> random_cost_per_gc(64, 0.1, 8192)
    57.6
    """
    _check(k, spare)
    d = blocks if d is None else d
    return (1.0 - blocks * spare / d) * k


def cleaning_cost(writes: float, c: float, k: int) -> float:
    """Theorem 1, eq. 2: 𝒞 = ⌈L / (k − C̄)⌉ · C̄, pages moved over L writes.

    >>> cleaning_cost(5e6, 20.0, 64)
    2272740.0
    """
    if not (math.isfinite(writes) and writes >= 0):
        raise ValueError(f"invalid value for `writes`: {writes} (expected a finite number of writes ≥ 0)")
    return math.ceil(writes / (k - c)) * c


def grouping_cost(writes: float, k: int, spare: float, w: Workload, allocation: Sequence[float]) -> float:
    """Theorem 5: cleaning cost of data grouping with spare allocation b (Σ b_i = 1):
    𝒞 = Σ L·r_i·C_i / (k − C_i), C_i by Corollary 1 at S_i = S·b_i / ((1 − S)·f_a·f_i + S·b_i).

    >>> w = Workload(0.1, (0.8, 0.2), (0.2, 0.8))
    >>> round(grouping_cost(5e6, 64, 0.1, w, (0.432, 0.568)) / 1e6, 2)  # Fig. 7(a): 0.53e6
    0.53
    """
    _check(k, spare)
    b = np.asarray(allocation, dtype=float)
    if len(b) != w.n or np.any(b <= 0) or abs(b.sum() - 1.0) > 1e-9:
        raise ValueError(f"invalid value for `allocation`: {tuple(allocation)} (expected {w.n} positive shares summing to 1)")
    total = 0.0
    for ri, fi, bi in zip(w.r, w.f, b):
        si = spare * bi / ((1.0 - spare) * w.fa * fi + spare * bi)
        ci = uniform_cost(k, si)
        total += writes * ri * ci / (k - ci)
    return total


def optimal_allocation(writes: float, k: int, spare: float, w: Workload) -> tuple[np.ndarray, float]:
    """b_c*: the spare allocation that minimises Theorem 5's cost, and that cost.

    >>> b, c = optimal_allocation(5e6, 64, 0.1, Workload(0.1, (0.8, 0.2), (0.2, 0.8)))
    >>> round(float(b[0]), 3), round(c / 1e6, 2)  # Fig. 7(a): (0.432, 0.568), 0.53e6
    (0.432, 0.53)
    """
    _check(k, spare)
    if w.n == 1:
        return np.array([1.0]), grouping_cost(writes, k, spare, w, (1.0,))
    if w.n == 2:
        res = minimize_scalar(lambda b1: grouping_cost(writes, k, spare, w, (b1, 1.0 - b1)),
                              bounds=(1e-9, 1 - 1e-9), method="bounded", options={"xatol": 1e-12})
        b = np.array([res.x, 1.0 - res.x])
        return b, float(res.fun)

    # n > 2: optimise over the simplex through a softmax parametrisation.
    def cost(z: np.ndarray) -> float:
        e = np.exp(z - z.max())
        return grouping_cost(writes, k, spare, w, e / e.sum())

    res = minimize(cost, np.zeros(w.n), method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-6, "maxiter": 20000})
    e = np.exp(res.x - res.x.max())
    return e / e.sum(), float(res.fun)


def oblivious_equal_allocation(writes: float, k: int, spare: float, w: Workload) -> tuple[np.ndarray, float]:
    """b_w*: the allocation, past b_c* towards the hot region, at which data grouping costs as
    much as locality-oblivious GREEDY (Theorem 2, Fig. 7(a)); two classes only.

    >>> b, c = oblivious_equal_allocation(5e6, 64, 0.1, Workload(0.1, (0.8, 0.2), (0.2, 0.8)))
    >>> round(float(b[0]), 3), round(c / 1e6, 2)  # Fig. 7(a): (0.862, 0.138), 2.31e6
    (0.862, 2.31)
    """
    _check(k, spare)
    if w.n != 2:
        raise ValueError(f"invalid value for `r`: {w.r} (b_w* is defined for two classes)")
    greedy = cleaning_cost(writes, cost_per_gc(k, spare, w), k)
    bc, _ = optimal_allocation(writes, k, spare, w)
    def gap(x: float) -> float:
        return grouping_cost(writes, k, spare, w, (x, 1.0 - x)) - greedy

    # The cost grows without bound as the cold region's spare goes to 0, but Corollary 1 is not
    # computable at a spare of exactly 0: step towards 1 until the cost has passed GREEDY's.
    hi = float(bc[0])
    for j in range(1, 60):
        hi = float(bc[0]) + (1.0 - float(bc[0])) * (1.0 - 2.0**-j)
        g = gap(hi)
        if math.isfinite(g) and g > 0:
            break
    else:
        raise ValueError(f"invalid value for `r`: {w.r} (expected a workload where some allocation costs as much as GREEDY)")
    b1 = brentq(gap, bc[0], hi, xtol=1e-13)
    return np.array([b1, 1.0 - b1]), greedy
