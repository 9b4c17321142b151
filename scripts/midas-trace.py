"""Write a Zipf(θ) page-write trace in MiDAS-Simulation's own text format.

MiDAS-Simulation (`sungkyun123/MiDAS-Simulation`, `ssdsimul.cpp`) reads one request a line,
`TIMESTAMP TYPE LBA SIZE` separated by blanks or tabs (`req_processing`), and ignores what
follows: TYPE 1 is a write, 0 and 2 are ignored, 3 a discard; LBA is in 4 KiB pages and SIZE in
bytes (`submit_io` splits a request into SIZE / 4096 pages from LBA on). The timestamp only sets
`stats->cur_time`, so this script writes the write's index there. The published trace has a
fifth column, a stream number MiDAS does not read; these lines stop at the four it reads.

The reference trace of its README, `test-fio-small` (zenodo record 10409599: "an FIO (Zipfian)
trace file … 54 million write operations on a 4GiB block device", lines `<Time Stamp (s)>
<Request Type> <LBA (unit: 4KB)> <Request Size> <Stream Number>`), is not reachable here; this
script writes one of the same shape:

- pages: 1,048,576 by default, the 4 GiB block device FIO wrote, within the 8 GB device the
  README simulates (`LBANUM` = 8·10⁹ / 4096 = 1,953,125 logical pages, `ssd_config.cpp`
  `ssd_init`): the other 904,549 pages are written only by MiDAS's own fill and stay cold;
  `--pages` above LBANUM would write past MiDAS's mapping table, and is refused;
- writes: 52,284,773 by default, so that MiDAS's USERWRITE is the README's 54,237,899 once its
  own sequential fill of the 1,953,125 logical pages (`ssd_simulation_sw`, `SW_GENERATE 1`) and
  the 1 its counter starts at (`stats_init`: `cur_wp = 1`) are counted with them;
- law: P(rank k) = k^−θ / H(n, θ), k = 1 … n (exact inverse CDF over the cumulative sums);
- scatter of the ranks over the pages, `--scatter`:
  `fio-hash` (the default) as FIO's `zipf_next` (`axboe/fio` `lib/zipf.c`):
  page = (hash(k − 1) + rand_off) mod n, hash(x) = x · 0x9e37fffffffc0001 mod 2⁶⁴
  (`hash.h` `__hash_long` on 64 bits), rand_off drawn once from the seed. For n a power of two, as
  the default 2²⁰, the odd multiplier makes this a permutation of the pages; for other n it
  sends several ranks to some pages and none to others (35.1 % of 1,953,125 pages get no rank,
  about 1/e, and are written only by MiDAS's fill);
  `permutation`: rank k to page perm[k − 1] for a permutation drawn from the seed, every page
  with one rank (reclaim's `zipf` and SSD-iq's `zipf` workloads scatter this way).
  FIO refuses θ = 1.0 itself (`options.c`: "zipf theta must be different than 1.0") and its
  Gray et al. formula divides by 1 − θ, so θ = 1.0 here is the exact law under FIO's scatter.

The generator is `reclaim.midas_trace` (shared with `reclaim reproduce midas`); this script is
its command line. Run: `.venv/bin/python scripts/midas-trace.py /tmp/fio-zipf1.trace` (1.2 GB, about 30 s);
`--writes 5000000` gives a quick version.
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
