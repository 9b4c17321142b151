"""Analytical models of the seed papers, one module per paper.

- :mod:`reclaim.models.lomet` — Lomet & Luo: age-based cleaning (eq. 3–4, Table 1) and the
  hot/cold slack division (§3, Table 2).
- :mod:`reclaim.models.vanhoudt` — Van Houdt: mean-field models of d-choices with a single
  (eq. 1–8) and a double (eq. 9–15) write frontier.
- :mod:`reclaim.models.li` — Li, Lee, Lui & Xu: GRA(d) cleaning cost (Theorems 1–4, Corollary 1)
  and data grouping with spare allocation (Theorem 5).
- :mod:`reclaim.models.ssdiq` — SSD-iq's 2a closed form (ssdiq_plus's ``TwoAFormula.hpp``): the
  spare shared among equal write groups and the WA it gives (its ``2a`` and ``opt`` schemes), and
  the optimum as ``opt-N`` prints it (``Optimal.hpp``: the formula on a histogram of page counts).
- :mod:`reclaim.models.device` — time under cleaning: die utilisation and saturation throughput
  from WA, M/D/1 read latency (Pollaczek–Khinchine, Erlang's distribution) and Dyal & Draughn's
  closed model of a queue depth by exact MVA.
"""

from reclaim.models import device, li, lomet, ssdiq, vanhoudt

__all__ = ["device", "li", "lomet", "ssdiq", "vanhoudt"]
