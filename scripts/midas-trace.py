"""Write a Zipf(θ) page-write trace in MiDAS-Simulation's own text format.

The generator, its defaults (1,048,576 pages, 52,284,773 writes, θ = 1.0, FIO's hash scatter) and
their sources are `reclaim.midas_trace` (shared with `reclaim reproduce midas`): this script is its
command line. Run: `.venv/bin/python scripts/midas-trace.py /tmp/fio-zipf1.trace` (1.2 GB, about
30 s); `--writes 5000000` gives a quick version; `--help` lists the options.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reclaim.midas_trace import (
    FIO_DEVICE_PAGES,
    FIO_GOLDEN_RATIO_PRIME,
    MIDAS_8GB_PAGES,
    PAGE_BYTES,
    README_TRACE_WRITES,
    SCATTERS,
    fio_hash_pages,
    iter_zipf_pages,
    write_trace,
)

__all__ = ["FIO_DEVICE_PAGES", "FIO_GOLDEN_RATIO_PRIME", "MIDAS_8GB_PAGES", "PAGE_BYTES", "README_TRACE_WRITES", "SCATTERS",
           "fio_hash_pages", "iter_zipf_pages", "main", "write_trace"]


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and write the trace."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="trace file to write")
    ap.add_argument(
        "--writes",
        type=int,
        default=README_TRACE_WRITES,
        help=f"page writes (default {README_TRACE_WRITES:,}: the README's USERWRITE less the fill)",
    )
    ap.add_argument(
        "--pages",
        type=int,
        default=FIO_DEVICE_PAGES,
        help=f"pages written, from 0 (default {FIO_DEVICE_PAGES:,}: the published trace's 4 GiB device)",
    )
    ap.add_argument("--theta", type=float, default=1.0, help="Zipf exponent θ ≥ 0 (default 1.0)")
    ap.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    ap.add_argument("--scatter", choices=SCATTERS, default="fio-hash", help="ranks to pages: FIO's hash (default) or a permutation")
    a = ap.parse_args(argv)
    if a.writes < 1:
        ap.error(f"--writes {a.writes}: must be ≥ 1")
    if not 1 <= a.pages <= MIDAS_8GB_PAGES:
        ap.error(f"--pages {a.pages}: must be in [1, {MIDAS_8GB_PAGES:,}] (MiDAS's logical pages at 8 GB; more would write past its mapping table)")
    if not 0 <= a.theta <= 10:
        ap.error(f"--theta {a.theta}: must be in [0, 10]")
    n = write_trace(a.out, a.pages, a.theta, a.writes, a.seed, a.scatter)
    print(f"{a.out}: {n:,} writes over {a.pages:,} pages, Zipf θ={a.theta}, {a.scatter} scatter, seed {a.seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
