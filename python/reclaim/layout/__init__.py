"""Disk space placement for seek time and the closed queueing model of throughput (Dyal &
Draughn, "Performance Aspects of Disk Space Management"): :mod:`.disk` (seek curves, expected
seek time of a placement), :mod:`.placement` (as copied, organ-pipe reorganisation, local
search), :mod:`.queueing` (exact and approximate MVA, load-dependent stations).
"""

from reclaim.layout import disk, placement, queueing

__all__ = ["disk", "placement", "queueing"]
