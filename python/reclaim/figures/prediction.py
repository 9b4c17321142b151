"""The analytical model that applies to a simulated configuration, if one does, and its WA.

A model is drawn beside a simulation only where its assumptions hold for the plotted
configuration: a single write frontier cleaned when it fills (``frontier=single``,
``gc=frontier``: Van Houdt §2.3, Li et al. §2.1), no write cache, pages of one size, and a
workload the model describes:

- d-choices (and random, d = 1) under uniform or Rosenblum's hot/cold writes: Van Houdt's
  mean-field model of the single write frontier (eq. 6–8), solved to its fixed point;
- greedy, the same model's limit as d grows (Van Houdt §1: greedy is d-choices with d → ∞),
  evaluated at d = N, the number of segments (every segment a choice);
- FIFO under uniform writes: Lomet & Luo's eq. 4, E = 1 − exp(−E/F), WA = 1/E (eq. 2: Wamp =
  (1 − E)/E, and WA = 1 + Wamp).

Other policies and workloads have no model here: :func:`predict` returns ``None`` for them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reclaim.style import parse


@dataclass(frozen=True)
class Prediction:
    """A model's WA for one configuration, and which model (as a legend names it)."""

    wa: float
    model: str


def _float(v: Any) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x == x else None


@functools.lru_cache(maxsize=4096)
def _mean_field(b: int, spare: float, d: float, r: float, f: float) -> float | None:
    from threadpoolctl import threadpool_limits

    from reclaim.models import vanhoudt

    # One BLAS thread: the model's small least-squares steps take 100 times longer when BLAS
    # spreads each over the cores (0.09 s against 12.7 s for one solve on two busy cores).
    try:
        with threadpool_limits(1):
            # A residual of 1e-6 moves WA in the 7th digit (Table 1, row 1: 4.5925 either way), at a
            # fraction of the default's iterations; 2,000 iterations bound a setting that has none.
            return float(vanhoudt.solve(b, spare, d, r, f, frontier="single", tol=1e-6, max_iterations=2_000).wa)
    except (RuntimeError, ValueError):
        # No fixed point found (or a setting outside the model's range): nothing drawn.
        return None


def _workload(spec: Any) -> tuple[float, float] | None:
    """(r, f) of uniform (r = f) or hot/cold writes; ``None`` for any other workload."""
    name, p = parse(str(spec or "uniform"))
    if name == "uniform":
        return 0.5, 0.5
    if name == "hotcold":
        r, f = _float(p.get("r", 0.8)), _float(p.get("f", 0.2))
        return (r, f) if r is not None and f is not None else None
    return None


def predict(config: Mapping[str, Any]) -> Prediction | None:
    """The model's WA for ``config`` (a task's parameters: ``policy``, ``workload``, ``spare`` or
    ``fill``, ``pages_per_segment``, ``segments``, ``frontier``, ``placement``, ``gc``, ``cache``,
    ``sizes``, ``device``; missing ones at ``simulate``'s defaults), or ``None`` where no model applies.

    >>> p = predict({"policy": "d-choices:d=16", "workload": "hotcold:r=0.92,f=0.23", "spare": 0.10,
    ...              "pages_per_segment": 16, "segments": 10000})
    >>> round(p.wa, 4), p.model  # Van Houdt Table 1, row 1 (ODE): 4.5925
    (4.5925, 'mean-field (Van Houdt eq. 6–8)')
    >>> round(predict({"policy": "fifo", "fill": 0.8}).wa, 3)  # Lomet & Luo eq. 4: E = 0.3714
    2.693
    >>> predict({"policy": "cost-benefit", "spare": 0.1}) is None
    True
    """
    get = config.get
    if parse(str(get("frontier") or "single"))[0] != "single" or get("placement") not in (None, "", "single"):
        return None
    if parse(str(get("gc") or "frontier"))[0] != "frontier" or get("cache") not in (None, 0) or get("sizes") not in (None, ""):
        return None
    spare = _float(get("spare"))
    if spare is None:
        fill = _float(get("fill"))
        spare = None if fill is None else 1.0 - fill
    workload = _workload(get("workload"))
    if spare is None or not 0.0 < spare < 1.0 or workload is None:
        return None
    if get("device"):
        # A device lays segments on its own geometry (a superblock, or a plane's block), which the
        # task's pages_per_segment need not be.
        return None
    b = int(_float(get("pages_per_segment")) or 64)
    segments = int(_float(get("segments")) or 1024)
    policy, params = parse(str(get("policy") or "greedy"))
    r, f = workload
    if policy == "fifo":
        if abs(r - f) > 1e-12:
            return None
        from reclaim.models.lomet import emptiness

        return Prediction(1.0 / emptiness(1.0 - spare), "Lomet & Luo eq. 4")
    d = {"random": 1.0, "greedy": float(segments)}.get(policy)
    if policy == "d-choices":
        # `k` is `d` as SSD-iq's greedy-k names it; d has no default in the registry.
        d = _float(params.get("d", params.get("k")))
    if d is None:
        return None
    wa = _mean_field(b, round(spare, 12), d, r, f)
    if wa is None:
        return None
    return Prediction(wa, "mean-field (Van Houdt eq. 6–8)" + (", d = N" if policy == "greedy" else ""))
