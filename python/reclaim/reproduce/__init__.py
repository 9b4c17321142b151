"""Reproductions of the seed papers' tables: each builds its rows beside the published numbers.

The published numbers ship with the package (``data/``, copied from the project's transcriptions
of the seeds, with their sources in each file's first lines).
"""

from __future__ import annotations

import dataclasses

from reclaim.reproduce import dyal_draughn, latency, li, lomet, lomet_mdc, midas, sepbit, ssdiq, stockmeyer, vanhoudt
from reclaim.reproduce.common import Reproduction

#: Every reproduction by its name on the command line (and in the results database).
REPRODUCTIONS: dict[str, Reproduction] = {
    name: dataclasses.replace(r, name=name)
    for name, r in {
        "vanhoudt-table1": vanhoudt.TABLE1,
        "vanhoudt-table2": vanhoudt.TABLE2,
        "lomet-table1": lomet.TABLE1,
        "lomet": lomet_mdc.LOMET,
        "li-greedy": li.GREEDY,
        "dyal-draughn": dyal_draughn.TABLES,
        "stockmeyer": stockmeyer.STOCKMEYER,
        "sepbit": sepbit.SEPBIT,
        "latency": latency.LATENCY,
        "ssdiq": ssdiq.SSDIQ,
        "midas": midas.MIDAS,
    }.items()
}

__all__ = ["REPRODUCTIONS", "Reproduction"]
