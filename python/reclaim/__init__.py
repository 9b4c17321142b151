"""reclaim: a workbench for space reclamation in log-structured storage.

The public API is :func:`simulate`, :class:`SimConfig` and :class:`SimResult`.

>>> import reclaim
>>> r = reclaim.simulate(segments=128, pages_per_segment=16, policy="greedy", writes="5x")
>>> r.wa > 1.0
True
"""

from reclaim._core import __version__
from reclaim.api import SimConfig, SimResult, region_layout, simulate

__all__ = ["SimConfig", "SimResult", "__version__", "region_layout", "simulate"]
