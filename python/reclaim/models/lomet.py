"""Lomet & Luo, "Efficiently Reclaiming Space in a Log Structured Store": the age-based cleaning
analysis of §2 (eq. 1–4, Table 1) and the hot/cold slack division of §3 (Table 2).

Units: fill factor F and emptiness E are fractions of a segment; costs are I/Os per segment of
new data written (eq. 1: Cost_seg = 2/E); Wamp is GC writes per user write (eq. 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.optimize import minimize_scalar


def _check_fill(fill: float, name: str = "fill") -> None:
    if not 0.0 < fill < 1.0:
        raise ValueError(f"invalid value for `{name}`: {fill} (expected a number in (0, 1))")


def emptiness(fill: float, pages: int | None = None, tol: float = 1e-14) -> float:
    """Emptiness E of a segment when age-based cleaning reaches it under uniform updates.

    With ``pages`` = P the fixed point of eq. 3, E = 1 − ((P − 1)/P)^(P·E/F); without it the
    limit P → ∞, eq. 4, E = 1 − exp(−E/F). Both are solved by Newton's method from E = 1, which
    converges to the non-zero root (E = 0 is always a root too).

    Args:
        fill: Fill factor F, 0 < F < 1.
        pages: P, user-visible pages (≥ 2), or None for the limit.
        tol: Convergence tolerance on E.

    Returns:
        E in (0, 1).

    >>> round(emptiness(0.8), 4)  # Table 1 prints .375; eq. 4 gives .3714
    0.3714
    >>> round(emptiness(0.8, pages=30), 4)  # eq. 3 with P = 30 pages: within 0.023 of the limit
    0.3941
    """
    _check_fill(fill)
    if pages is not None and pages < 2:
        raise ValueError(f"invalid value for `pages`: {pages} (expected a whole number ≥ 2)")
    # g(E) = 1 − E − q^(E·c), with q^c = exp(−1/F) in the limit or ((P−1)/P)^(P/F) for finite P.
    log_q = -1.0 / fill if pages is None else pages / fill * math.log1p(-1.0 / pages)
    e = 1.0
    for _ in range(100):
        t = math.exp(log_q * e)
        g = 1.0 - e - t
        dg = -1.0 - log_q * t
        step = g / dg
        e -= step
        if abs(step) < tol:
            break
    return e


@dataclass(frozen=True)
class AgeBased:
    """Age-based cleaning under uniform updates at one fill factor (a row of Table 1).

    Attributes:
        fill: F.
        emptiness: E (eq. 4, or eq. 3 for finite P).
        cost: 2/E, I/Os per segment written (eq. 1).
        r: E/(1 − F), the ratio used in §3.
        wamp: (1 − E)/E (eq. 2).
    """

    fill: float
    emptiness: float
    cost: float
    r: float
    wamp: float


def age_based(fill: float, pages: int | None = None) -> AgeBased:
    """Table 1's row for fill factor F.

    >>> a = age_based(0.9)
    >>> round(a.emptiness, 3), round(a.cost, 2), round(a.wamp, 2)  # Table 1: .19, 10.5, 4.26
    (0.193, 10.36, 4.18)
    """
    e = emptiness(fill, pages)
    return AgeBased(fill=fill, emptiness=e, cost=2.0 / e, r=e / (1.0 - fill), wamp=(1.0 - e) / e)


def parse_skew(skew: str) -> tuple[float, float]:
    """``"80:20"`` → (share of updates to the hot data, share of data that is hot) = (0.8, 0.2).

    Lomet & Luo's m : 1 − m: m% of the updates go to (1 − m)% of the data.

    >>> parse_skew("90:10")
    (0.9, 0.1)

    Two percentages that do not sum to 100 are refused rather than rescaled (``120:20`` would
    otherwise be read silently as 85.7:14.3):

    >>> parse_skew("120:20")
    Traceback (most recent call last):
    ...
    ValueError: invalid value for `skew`: `120:20` (expected two positive percentages summing to 100, such as `80:20`)
    """
    try:
        a, b = (float(x) for x in skew.split(":"))
    except ValueError:
        raise ValueError(f"invalid value for `skew`: `{skew}` (expected `m:n` such as `80:20`)") from None
    if not (a > 0 and b > 0 and abs(a + b - 100.0) <= 1e-9 * 100):
        raise ValueError(f"invalid value for `skew`: `{skew}` (expected two positive percentages summing to 100, such as `80:20`)")
    return a / 100.0, b / 100.0


def hot_cold_cost(fill: float, hot_updates: float, hot_data: float, hot_share: float) -> float:
    """Update-weighted cost Σ U_i · 2/E_i of hot and cold data managed separately (§3.1–3.2).

    Each set is cleaned by age in its own space, with fill factor
    F_i = F·Dist_i / ((1 − F)·g_i + F·Dist_i) and E_i from eq. 4; g_i is its share of the slack.

    Args:
        fill: Overall fill factor F.
        hot_updates: U_1, share of updates to the hot set.
        hot_data: Dist_1, share of the data that is hot.
        hot_share: g_1, share of the slack given to the hot set, 0 < g_1 < 1.

    >>> round(hot_cold_cost(0.8, 0.5, 0.5, 0.5), 4)  # uniform: 2/E at F = 0.8
    5.3855
    """
    _check_fill(fill)
    if not 0.0 < hot_share < 1.0:
        raise ValueError(f"invalid value for `hot_share`: {hot_share} (expected a number in (0, 1))")
    total = 0.0
    for u, dist, g in ((hot_updates, hot_data, hot_share), (1.0 - hot_updates, 1.0 - hot_data, 1.0 - hot_share)):
        f_i = fill * dist / ((1.0 - fill) * g + fill * dist)
        total += u * 2.0 / emptiness(f_i)
    return total


@dataclass(frozen=True)
class HotColdSlack:
    """The slack division of §3 at one skew (a row of Table 2).

    Attributes:
        min_cost: Smallest update-weighted cost over the hot set's slack share.
        hot_share: The share g_1 that attains it.
        cost_hot60: Cost with 60% of the slack to the hot set.
        cost_hot40: Cost with 40% of the slack to the hot set.
        ratio_rule: g_1 from the paper's closed form g_1/g_2 = (R_2/R_1)^(1/2) (R_i held constant
            at the values of the equal division); the paper then rounds this to g_1 ≈ g_2.
    """

    min_cost: float
    hot_share: float
    cost_hot60: float
    cost_hot40: float
    ratio_rule: float


def hot_cold_slack(fill: float, skew: str) -> HotColdSlack:
    """Divides the slack between hot and cold data to minimise the cost (Table 2).

    Args:
        fill: Overall fill factor F (Table 2: 0.8).
        skew: ``"m:n"``, m% of updates to n% of the data (Table 2's 90:10 … 50:50).

    >>> round(hot_cold_slack(0.8, "80:20").min_cost, 2)  # Table 2: 4.00
    4.0
    """
    u, d = parse_skew(skew)
    res = minimize_scalar(lambda g: hot_cold_cost(fill, u, d, g), bounds=(1e-6, 1 - 1e-6), method="bounded",
                          options={"xatol": 1e-10})
    half = 0.5
    f1 = fill * d / ((1 - fill) * half + fill * d)
    f2 = fill * (1 - d) / ((1 - fill) * half + fill * (1 - d))
    r1, r2 = age_based(f1).r, age_based(f2).r
    ratio = math.sqrt(r2 / r1)
    return HotColdSlack(
        min_cost=float(res.fun),
        hot_share=float(res.x),
        cost_hot60=hot_cold_cost(fill, u, d, 0.6),
        cost_hot40=hot_cold_cost(fill, u, d, 0.4),
        ratio_rule=ratio / (1 + ratio),
    )
