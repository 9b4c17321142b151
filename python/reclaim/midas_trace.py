"""A Zipf(θ) page-write trace of the shape of MiDAS-Simulation's reference run, in its own text format.

MiDAS-Simulation (`sungkyun123/MiDAS-Simulation`, `ssdsimul.cpp`) reads one request a line,
`TIMESTAMP TYPE LBA SIZE` separated by blanks or tabs (`req_processing`), and ignores what
follows: TYPE 1 is a write, 0 and 2 are ignored, 3 a discard; LBA is in 4 KiB pages and SIZE in
bytes (`submit_io` splits a request into SIZE / 4096 pages from LBA on). The timestamp only sets
`stats->cur_time`, so this script writes the write's index there. The published trace has a
fifth column, a stream number MiDAS does not read; these lines stop at the four it reads.

The reference trace of its README, `test-fio-small` (zenodo record 10409599: "an FIO (Zipfian)
trace file … 54 million write operations on a 4GiB block device", lines `<Time Stamp (s)>
<Request Type> <LBA (unit: 4KB)> <Request Size> <Stream Number>`), is not reachable here; this
module writes one of the same shape:

- pages: 1,048,576 by default, the 4 GiB block device FIO wrote, within the 8 GB device the
  README simulates (`LBANUM` = 8·10⁹ / 4096 = 1,953,125 logical pages, `ssd_config.cpp`
  `ssd_init`): the other 904,549 pages are written only by MiDAS's own fill and stay cold;
  more pages than LBANUM would write past MiDAS's mapping table;
- writes: 52,284,773 by default, so that MiDAS's USERWRITE is the README's 54,237,899 once its
  own sequential fill of the 1,953,125 logical pages (`ssd_simulation_sw`, `SW_GENERATE 1`) and
  the 1 its counter starts at (`stats_init`: `cur_wp = 1`) are counted with them;
- law: P(rank k) = k^−θ / H(n, θ), k = 1 … n (exact inverse CDF over the cumulative sums);
- scatter of the ranks over the pages, ``scatter``:
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

`scripts/midas-trace.py` writes one from the command line; `reclaim reproduce midas` draws the
same writes and keeps them converted (:func:`write_trace`, then `reclaim trace convert`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

#: MiDAS's logical pages for an 8 GB device: 8·10⁹ B / 4096 B (`ssd_config.cpp`, `ssd_init`).
MIDAS_8GB_PAGES = 8 * 1000**3 // 4096
#: The 4 GiB block device of the published trace (zenodo 10409599), in 4 KiB pages.
FIO_DEVICE_PAGES = 4 * 1024**3 // 4096
#: The README's USERWRITE (54,237,899) less MiDAS's own sequential fill of every logical page and
#: less the 1 its counter starts at (`ssd_config.cpp` `stats_init`: `cur_wp = 1`).
README_TRACE_WRITES = 54_237_899 - 1 - MIDAS_8GB_PAGES
PAGE_BYTES = 4096
CHUNK = 1 << 22
#: FIO's 64-bit multiplicative hash constant (`axboe/fio` `hash.h`, `GOLDEN_RATIO_PRIME`).
FIO_GOLDEN_RATIO_PRIME = 0x9E37FFFFFFFC0001
SCATTERS = ("fio-hash", "permutation")


def iter_zipf_pages(pages: int, theta: float, writes: int, seed: int, chunk: int = CHUNK, scatter: str = "fio-hash") -> Iterator[np.ndarray]:
    """Draw `writes` page ids of a Zipf(θ) law over `pages` shuffled pages, `chunk` at a time.

    Args:
        pages: Number of logical pages n ≥ 1.
        theta: Zipf exponent θ ≥ 0 (0: uniform).
        writes: Number of page writes to draw.
        seed: Seed of the permutation and the draws (NumPy's PCG64).
        chunk: Writes drawn per array.
        scatter: `fio-hash` or `permutation` (the module's docstring).

    Yields:
        Arrays of page ids in [0, pages).

    >>> import numpy as np
    >>> a = np.concatenate(list(iter_zipf_pages(100, 1.0, 1000, seed=1)))
    >>> len(a), int(a.min()) >= 0, int(a.max()) < 100
    (1000, True, True)
    """
    if scatter not in SCATTERS:
        raise ValueError(f"scatter {scatter!r}: expected one of {', '.join(SCATTERS)}")
    rng = np.random.default_rng(seed)
    perm = rng.permutation(pages) if scatter == "permutation" else fio_hash_pages(pages, int(rng.integers(0, 2**32)))
    weights = np.arange(1, pages + 1, dtype=np.float64) ** (-theta)
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    done = 0
    while done < writes:
        n = min(chunk, writes - done)
        ranks = np.searchsorted(cdf, rng.random(n), side="right")
        np.minimum(ranks, pages - 1, out=ranks)
        yield perm[ranks]
        done += n


def fio_hash_pages(pages: int, rand_off: int) -> np.ndarray:
    """Page of each rank k = 1 … n under FIO's scatter: (hash(k − 1) + rand_off) mod n.

    >>> fio_hash_pages(7, 0).tolist()  # k · 0x9e37fffffffc0001 mod 2⁶⁴ mod 7: pages 1, 3, 5 get no rank
    [0, 2, 2, 4, 4, 4, 6]
    """
    ranks = np.arange(pages, dtype=np.uint64)
    with np.errstate(over="ignore"):
        # Both the product and the sum wrap mod 2⁶⁴, as C's unsigned long arithmetic does.
        hashed = ranks * np.uint64(FIO_GOLDEN_RATIO_PRIME) + np.uint64(rand_off)
    return (hashed % np.uint64(pages)).astype(np.int64)


def write_trace(out: Path, pages: int, theta: float, writes: int, seed: int, scatter: str = "fio-hash") -> int:
    """Write the trace to `out`; return the number of lines written.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t"
    >>> write_trace(p, 10, 1.0, 3, seed=1)
    3
    >>> p.read_text().splitlines()[0].split()[1::2]
    ['1', '4096']
    """
    index = 0
    with out.open("w", encoding="ascii") as f:
        for ids in iter_zipf_pages(pages, theta, writes, seed, scatter=scatter):
            lines = [f"{index + i} 1 {p} {PAGE_BYTES}" for i, p in enumerate(ids.tolist())]
            f.write("\n".join(lines))
            f.write("\n")
            index += len(lines)
    return index
