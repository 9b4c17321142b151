#!/usr/bin/env python3
"""SSD-iq's 2R (``sim/TwoR.hpp``) and reclaim's on one write sequence, call by call.

SSD-iq's simulator (``gabriel-haas/ssdiq``) seeds from ``std::random_device`` and has no trace
reader for a plain page sequence, so two runs of it never see the same writes. This script
writes one sequence of page ids (a sequential fill, as many pattern writes as physical pages,
then the measured writes: the simulator's ``runBench``), builds a small driver against the
peer's own ``sim/TwoR.hpp`` and ``sim/SSD.hpp`` (from a checkout given by ``--ssdiq``; nothing
of the peer is copied) that writes those pages through ``TwoR::writePage`` and resets the
counters where the init phase ends, as ``runBench`` does, and runs reclaim on the same pages as
a trace (``method=stockmeyer:prefix=N``, no warm-up). Both print the WA of the measured writes.

Usage::

    .venv/bin/python scripts/ssdiq-trace-side-by-side.py --ssdiq /tmp/ssdiq \\
        --blocks 1000 --pages 64 --fill 0.9 --pattern zones:0.9:0.1 --schemes 2r-greedy,2r-fifo

Patterns: ``uniform``; ``zones:F:S``, a share F of the writes to a share S of the pages (the
peer's ``zones`` "s(1-S) f(1-F) s(S) f(F)", shuffled); ``zipf:T``, rank k drawn with weight
k^-T, ranks over a permutation of the pages. docs/schemes-after-sepbit.md ("2R and greedy
variants") has the figures it gave.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import reclaim

#: The driver: the peer's TwoR fed page ids from a file (one a line), its physical writes
#: counted from the write numbered argv[6] on (runBench's resetPhysicalCounters).
DRIVER = r"""
#include "sim/TwoR.hpp"
#include <cstdio>
int main(int argc, char** argv) {
   uint64_t blocks = std::stoull(argv[1]), ppb = std::stoull(argv[2]);
   SSD ssd(blocks * ppb * 4096, ppb * 4096, 4096, std::stod(argv[3]));
   TwoR gc(ssd, argv[4]);
   FILE* f = std::fopen(argv[5], "r");
   uint64_t prefix = std::stoull(argv[6]), page = 0, i = 0;
   while (std::fscanf(f, "%lu", &page) == 1) {
      if (i++ == prefix) ssd.resetPhysicalCounters();
      gc.writePage(page);
   }
   std::printf("%.6f\n", double(ssd.physWrites()) / double(i - prefix));
}
"""


@dataclass(frozen=True)
class Sequence:
    """A write sequence as SSD-iq's ``runBench`` orders it.

    Attributes:
        pages: every write's page id, in order.
        logical_pages: the device's logical pages, ⌊physical × fill⌋ (``SSD.hpp``).
        prefix: writes before the measured ones (the fill and the init phase).
    """

    pages: np.ndarray
    logical_pages: int
    prefix: int


def sequence(blocks: int, pages: int, fill: float, pattern: str, writes: float, seed: int) -> Sequence:
    """The fill, the init phase (physical pages' worth) and ``writes`` logical capacities.

    Args:
        blocks: erase blocks.
        pages: pages per block.
        fill: logical / physical pages.
        pattern: ``uniform``, ``zones:F:S`` or ``zipf:T`` (see the module's docstring).
        writes: measured writes [logical capacities].
        seed: the draw's seed.

    Returns:
        The sequence with its logical pages and the length of its unmeasured prefix.

    Raises:
        ValueError: an unknown pattern.

    >>> s = sequence(8, 4, 0.75, "zones:0.9:0.25", 2, 1)
    >>> s.logical_pages, s.prefix, len(s.pages), s.pages[:4].tolist()
    (24, 56, 104, [0, 1, 2, 3])
    """
    physical = blocks * pages
    logical = int(physical * fill)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(logical)
    kind, *args = pattern.split(":")
    if kind == "uniform":
        def draw(n: int) -> np.ndarray:
            return rng.integers(0, logical, n)
    elif kind == "zones" and len(args) == 2:
        share, size = float(args[0]), float(args[1])
        hot = max(1, int(logical * size))

        def draw(n: int) -> np.ndarray:
            to_hot = rng.random(n) < share
            return perm[np.where(to_hot, rng.integers(0, hot, n), hot + rng.integers(0, logical - hot, n))]
    elif kind == "zipf" and len(args) == 1:
        weights = np.arange(1, logical + 1, dtype=float) ** -float(args[0])
        weights /= weights.sum()

        def draw(n: int) -> np.ndarray:
            return perm[rng.choice(logical, n, p=weights)]
    else:
        raise ValueError(f"pattern = {pattern!r}: expected uniform, zones:F:S or zipf:T")
    measured = int(writes * logical)
    seq = np.concatenate([np.arange(logical), draw(physical), draw(measured)]).astype(np.uint64)
    return Sequence(seq, logical, logical + physical)


def reclaim_wa(seq: Sequence, blocks: int, pages: int, scheme: str) -> float:
    """reclaim's WA of the measured writes of ``seq`` under placement ``scheme``.

    >>> s = sequence(64, 16, 0.875, "zones:0.9:0.1", 2, 1)
    >>> reclaim_wa(s, 64, 16, "2r-greedy") > 1
    True
    """
    r = reclaim.simulate(workload=seq.pages, method=f"stockmeyer:prefix={seq.prefix}", warmup="none",
                         segments=blocks, pages_per_segment=pages, logical_pages=seq.logical_pages,
                         placement=scheme, writes="1p")
    return float(r.wa)


def build_driver(ssdiq: Path, out: Path, cxx: str = "clang++-16") -> Path:
    """Compiles :data:`DRIVER` against the checkout ``ssdiq`` (its ``sim/`` and ``shared/``)."""
    src = out.with_suffix(".cpp")
    src.write_text(DRIVER)
    flags = ["-std=c++2b", "-O2", "-stdlib=libc++", "-fexperimental-library", "-include", "format", "-include", "sstream"]
    subprocess.run([cxx, *flags, "-I", str(ssdiq), "-o", str(out), str(src)], check=True)
    return out


def peer_wa(driver: Path, seq: Sequence, blocks: int, pages: int, fill: float, scheme: str, path: Path) -> float:
    """The peer's WA of the measured writes of ``seq``, its pages written to ``path``."""
    if not path.exists():
        np.savetxt(path, seq.pages, fmt="%d")
    out = subprocess.run([str(driver), str(blocks), str(pages), repr(fill), scheme, str(path), str(seq.prefix)],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ssdiq", type=Path, required=True, help="a checkout of gabriel-haas/ssdiq (sim/, shared/)")
    p.add_argument("--blocks", type=int, default=1000)
    p.add_argument("--pages", type=int, default=64, help="pages per block")
    p.add_argument("--fill", type=float, default=0.9, help="logical / physical pages")
    p.add_argument("--pattern", default="zones:0.9:0.1")
    p.add_argument("--writes", type=float, default=10, help="measured writes [logical capacities]")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--schemes", default="2r-greedy,2r-fifo", help="comma-separated: 2r-greedy, 2r-fifo")
    p.add_argument("--cxx", default="clang++-16")
    a = p.parse_args()
    seq = sequence(a.blocks, a.pages, a.fill, a.pattern, a.writes, a.seed)
    with tempfile.TemporaryDirectory() as tmp:
        driver = build_driver(a.ssdiq, Path(tmp) / "driver", a.cxx)
        for scheme in a.schemes.split(","):
            peer = peer_wa(driver, seq, a.blocks, a.pages, a.fill, scheme, Path(tmp) / "pages.txt")
            ours = reclaim_wa(seq, a.blocks, a.pages, scheme)
            print(f"{a.pattern} {scheme}: peer {peer:.5f} reclaim {ours:.5f} ({(ours / peer - 1) * 100:+.2f}%)")


if __name__ == "__main__":
    main()
