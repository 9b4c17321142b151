"""Closed queueing network of Dyal & Draughn §2.3–2.4 (Fig. 3): N workstations, each a delay
station (think + type + transmit + display), then the central site: a CPU and one or more disks
with a service demand per transaction. Solved by exact Mean Value Analysis, by Schweitzer's
approximate MVA, and with load-dependent stations.

Units: demands and times in seconds; throughput reported per minute as the paper does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: Fig. 3: per-transaction times [s]. The delay station is think + type + transmit + display.
THINK = 9.000 + 1.000 + 0.040 + 0.127
CPU = 0.157
DISK = 0.394


@dataclass(frozen=True)
class Solution:
    """MVA results for populations 1 … N.

    Attributes:
        workstations: N values.
        throughput_per_minute: X(N) [transactions/min].
        response_seconds: Central-site response time R(N) = Σ residence times [s].
        utilisation: Utilisation of each queueing station, shape (len(N), stations).
        queue: Mean number at each queueing station.
    """

    workstations: np.ndarray
    throughput_per_minute: np.ndarray
    response_seconds: np.ndarray
    utilisation: np.ndarray
    queue: np.ndarray


def mva(demands: Sequence[float], think: float, n_max: int,
        rate: Sequence[Callable[[int], float] | None] | None = None) -> Solution:
    """Exact MVA of a single-class closed network with a delay station.

    Args:
        demands: Service demand D_k [s] per transaction at each queueing station.
        think: Delay-station time Z [s].
        n_max: Largest population.
        rate: Per station, None (fixed rate) or α(j), the service-rate multiplier with j
            customers present (a load-dependent station: service time D_k/α(j)).

    >>> s = mva([0.157, 0.394], 10.167, 1)
    >>> round(float(s.throughput_per_minute[0]), 2), round(float(s.response_seconds[0]), 3)  # Fig. 3: 5.6/min
    (5.6, 0.551)
    """
    d = np.asarray(demands, dtype=float)
    if d.ndim != 1 or d.size == 0 or not np.all(np.isfinite(d) & (d >= 0)):
        raise ValueError(f"invalid value for `demands`: {list(demands)} (expected service demands in seconds, finite and ≥ 0)")
    if not (math.isfinite(think) and think >= 0):
        raise ValueError(f"invalid value for `think`: {think} (expected a time in seconds, finite and ≥ 0)")
    if not (isinstance(n_max, (int, np.integer)) and n_max >= 1):
        raise ValueError(f"invalid value for `workstations`: {n_max} (expected a whole number ≥ 1)")
    k = len(d)
    rates: list[Callable[[int], float] | None] = list(rate) if rate is not None else [None] * k
    q = np.zeros(k)
    # Marginal queue-length distributions of the load-dependent stations: marg[i][j] at
    # population n − 1 (fixed-rate stations need none).
    marg = {i: np.array([1.0]) for i, a in enumerate(rates) if a is not None}
    xs, rs, us, qs = [], [], [], []
    for n in range(1, n_max + 1):
        j = np.arange(1, n + 1)
        alphas = {i: np.array([a(int(x)) for x in j]) for i, a in enumerate(rates) if a is not None}
        res = np.empty(k)
        for i in range(k):
            if i in marg:
                res[i] = float(np.sum(j * d[i] / alphas[i] * marg[i][:n]))
            else:
                res[i] = d[i] * (1.0 + q[i])
        x = n / (think + res.sum())
        q = x * res
        for i, p_prev in marg.items():
            p_new = np.empty(n + 1)
            p_new[1:] = x * d[i] / alphas[i] * p_prev[:n]
            p_new[0] = max(0.0, 1.0 - p_new[1:].sum())
            marg[i] = p_new
        util = x * d
        for i, m in marg.items():
            util[i] = 1.0 - m[0]
        xs.append(x * 60.0)
        rs.append(res.sum())
        us.append(util)
        qs.append(q.copy())
    return Solution(np.arange(1, n_max + 1), np.array(xs), np.array(rs), np.array(us), np.array(qs))


def schweitzer(demands: Sequence[float], think: float, n: int, tol: float = 1e-12) -> tuple[float, float]:
    """Schweitzer's approximate MVA at population n: Q_k(n − 1) ≈ (n − 1)/n·Q_k(n).

    Returns:
        (throughput per minute, response time [s]).

    >>> x, r = schweitzer([0.157, 0.394], 10.167, 30)
    >>> exact = mva([0.157, 0.394], 10.167, 30)
    >>> bool(abs(x - exact.throughput_per_minute[-1]) / x < 0.05)
    True
    """
    d = np.asarray(demands, dtype=float)
    q = np.full(len(d), n / len(d))
    for _ in range(100_000):
        res = d * (1.0 + (n - 1) / n * q)
        x = n / (think + res.sum())
        new = x * res
        if np.abs(new - q).max() < tol:
            q = new
            break
        q = new
    return float(x * 60.0), float(res.sum())


def knee(demands: Sequence[float], think: float) -> tuple[float, float]:
    """The knee of the throughput curve: where the light-load line N/(Z + ΣD) meets the
    bottleneck bound 1/D_max, at N* = (Z + ΣD)/D_max workstations (asymptotic bound analysis).

    Returns:
        (N*, bound throughput per minute).

    >>> n, x = knee([0.157, 0.394], 10.167)
    >>> round(n, 1), round(x, 1)  # §2.4: the knee "at about 150 transactions per minute"
    (27.2, 152.3)
    """
    d = np.asarray(demands, dtype=float)
    return float((think + d.sum()) / d.max()), float(60.0 / d.max())
