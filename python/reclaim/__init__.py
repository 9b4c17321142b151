"""reclaim: a workbench for space reclamation in log-structured storage.

The public API is :func:`simulate`, :class:`SimConfig` and :class:`SimResult`, :func:`advise`
(which scheme at which spare for a trace, from miniature runs), and
:class:`VictimPolicy` and :class:`Placement` to write schemes in Python (``reclaim.outside``); the subpackages
(``reclaim.experiments``, ``reclaim.traces``, ``reclaim.models``, ``reclaim.report``,
``reclaim.layout``, ``reclaim.reproduce``, ``reclaim.schemes``, ``reclaim.volumes``) load on first use, so ``import reclaim`` stays quick.

>>> import reclaim
>>> r = reclaim.simulate(segments=128, pages_per_segment=16, policy="greedy", writes="5x")
>>> r.wa > 1.0
True
"""

import importlib
from typing import Any

from reclaim._core import __version__

# The function, not its module, is `reclaim.advise` (the module stays importable by name:
# `from reclaim.advise import sample_pages`).
from reclaim.advise import advise
from reclaim.api import SimConfig, SimResult, region_layout, simulate
from reclaim.outside import NOT_CANDIDATE, Param, Placement, VictimPolicy

__all__ = [
    "NOT_CANDIDATE",
    "Param",
    "Placement",
    "SimConfig",
    "SimResult",
    "VictimPolicy",
    "__version__",
    "advise",
    "region_layout",
    "simulate",
]

_SUBPACKAGES = ("experiments", "traces", "models", "report", "layout", "reproduce", "schemes", "volumes")


def __getattr__(name: str) -> Any:
    # PEP 562: `reclaim.experiments.frame(...)` after a bare `import reclaim`.
    if name in _SUBPACKAGES:
        return importlib.import_module(f"reclaim.{name}")
    raise AttributeError(f"module 'reclaim' has no attribute {name!r}")
