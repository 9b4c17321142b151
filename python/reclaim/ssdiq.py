"""SSD-iq's simulator settings as reclaim's configuration.

Haas, Lee, Bonnet & Leis, "SSD-iq: Uncovering the Hidden Side of SSD Performance", PVLDB 18(11),
2025; simulator ``gabriel-haas/ssdiq`` (``sim/sim.cpp``, ``sim/SSD.hpp``, ``shared/Env.hpp``,
``shared/PatternGen.hpp``), extended in ``LeeBohyun/ssdiq_plus``. Its device is set by
``--capacity`` (physical bytes), ``--erase`` (bytes per block), ``--page`` (bytes per page) and
``--ssdfill`` (the fill factor ρ, logical over physical pages: reclaim's ``fill``, 1 − ``spare``);
its workload by ``--pattern`` and ``--zones``. reclaim's ``--fill`` is the same quantity, so no
option is added: :func:`geometry` gives the exact logical size, which SSD-iq truncates where
reclaim's ``fill`` rounds (see ``docs/schemes-after-sepbit.md``).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence

import numpy as np

__all__ = ["geometry", "opt_formula", "page_counts", "page_probabilities", "size_bytes", "zones_spec"]

_UNITS = (("K", 1024), ("M", 1024**2), ("G", 1024**3), ("T", 1024**4))


def size_bytes(text: str, name: str = "size") -> int:
    """A size as SSD-iq's ``getBytesFromString`` (``shared/Env.hpp``) reads it.

    The first of the letters K, M, G, T (either case) found in the text multiplies the number
    before it by 1024, 1024², 1024³ or 1024⁴; without one the text is a number of bytes.

    Args:
        text: The size, such as ``"16G"``, ``"8M"``, ``"4k"`` or ``"4096"``.
        name: The parameter's name, for the error.

    Returns:
        The size in bytes, truncated to a whole number as SSD-iq's ``long`` does.

    Raises:
        ValueError: The number before the unit is not a positive number.

    >>> size_bytes("16G"), size_bytes("8M"), size_bytes("4k")
    (17179869184, 8388608, 4096)
    """
    upper = text.strip().upper()
    number, mult = upper, 1
    for letter, factor in _UNITS:
        pos = upper.find(letter)
        if pos >= 0:
            number, mult = upper[:pos], factor
            break
    try:
        value = float(number) * mult
    except ValueError:
        value = math.nan
    if not (value >= 1 and math.isfinite(value)):
        raise ValueError(f"invalid value for `{name}`: {text!r} (expected a size such as 16G, 8M, 4K or a number of bytes ≥ 1)")
    return int(value)


def _float32(x: float) -> float:
    """``x`` rounded to a C ``float``, as SSD-iq's ``SimOptions::ssdFill`` holds it."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


def geometry(capacity: str = "16G", erase: str = "8M", page: str = "4K", ssdfill: float = 0.875) -> dict[str, int | str]:
    """The configuration of an SSD-iq device and its warm-up, for :func:`reclaim.simulate`.

    SSD-iq (``sim/SSD.hpp``, ``SSD::SSD``): ``blockCount = capacity / erase``, ``pagesPerBlock =
    erase / page``, ``logicalPages = (capacity / page) * ssdFill`` truncated, with ``ssdFill`` a C
    ``float`` (``sim/sim.cpp``, ``SimOptions``) widened to ``double``. A run
    (``runBench``) writes every logical page in order, then as many pattern writes as there are
    physical pages (``--load``, on by default), then measures ``--writes`` (default 10) ×
    logical pages: reclaim's ``warmup="fill+Kx"`` with K = physical / logical pages, and
    ``writes="10x"``.

    Args:
        capacity: Physical capacity, as SSD-iq's ``--capacity`` (default ``16G``).
        erase: Block (segment) size, as ``--erase`` (default ``8M``).
        page: Page size, as ``--page`` (default ``4K``).
        ssdfill: Fill factor, as ``--ssdfill``, in (0, 1] (default 0.875).

    Returns:
        ``segments``, ``pages_per_segment``, ``logical_pages`` and ``warmup``.

    Raises:
        ValueError: A size that is not one, a fill outside (0, 1], or a page larger than a block.

    >>> g = geometry("128G", "8M", "4K", 0.9)  # sim/algos.sh's device
    >>> g["segments"], g["pages_per_segment"], g["logical_pages"]
    (16384, 2048, 30198988)
    """
    cap, block, pg = size_bytes(capacity, "capacity"), size_bytes(erase, "erase"), size_bytes(page, "page")
    if not 0 < ssdfill <= 1:
        raise ValueError(f"invalid value for `ssdfill`: {ssdfill} (expected a number in (0, 1])")
    if pg > block or block > cap:
        raise ValueError(f"invalid value for `page`: {page} with erase {erase} and capacity {capacity} (expected page ≤ erase ≤ capacity)")
    segments, pps = cap // block, block // pg
    logical = int((cap // pg) * _float32(ssdfill))
    physical = segments * pps
    return {"segments": segments, "pages_per_segment": pps, "logical_pages": logical, "warmup": f"fill+{physical / logical!r}x"}


def zones_spec(zones: str, shuffle: bool = True) -> str:
    """SSD-iq's ``--zones`` string as reclaim's ``zones`` workload spec.

    SSD-iq's tokens (``shared/PatternGen.hpp``, ``parseZoneSizes``): ``sX`` opens a zone of
    relative size X, ``fX`` gives its relative write frequency, ``uniform`` its (default)
    sub-pattern. SSD-iq divides each list by its sum; here each must sum to 1.

    Args:
        zones: Such as ``"s0.2 f0.8 s0.8 f0.2"`` (``uniform`` tokens allowed).
        shuffle: SSD-iq's ``zones`` pattern (True, its default) or ``zones-noshuffle`` (False).

    Returns:
        The spec, such as ``"zones:s=0.2/0.8,f=0.8/0.2"``.

    Raises:
        ValueError: A token other than ``sX``, ``fX`` and ``uniform``, or a zone without ``fX``.

    >>> zones_spec("s0.95 f0.05 s0.05 f0.95")
    'zones:s=0.95/0.05,f=0.05/0.95'
    """
    sizes: list[str] = []
    freqs: list[str | None] = []
    for token in zones.split():
        if token[0] == "s" and token not in ("shuffle", "sequential"):
            sizes.append(token[1:])
            freqs.append(None)
        elif token[0] == "f" and freqs:
            freqs[-1] = token[1:]
        elif token == "uniform" and sizes:
            continue
        else:
            raise ValueError(f"invalid value for `zones`: token {token!r} in {zones!r} (expected sX, fX and uniform, in zones opened by sX)")
    if not sizes or any(f is None for f in freqs):
        raise ValueError(f"invalid value for `zones`: {zones!r} (expected one fX after each sX)")
    spec = f"zones:s={'/'.join(sizes)},f={'/'.join(str(f) for f in freqs)}"
    return spec if shuffle else spec + ",shuffle=no"


def page_probabilities(workload: str, logical_pages: int, segments: int, pages_per_segment: int) -> np.ndarray:
    """Each logical page's probability of being written under reclaim's workload law.

    A Zipf workload (``zipf:theta=T``, ``zipf-shuffle:theta=T``) gives rank k the probability
    k^−θ / Σⱼ j^−θ (``workload/zipf.rs``; SSD-iq's ``RejectionInversionZipf.hpp``), listed by rank
    (a permutation of the pages does not change their counts' histogram); any other workload its
    classes as the engine reports them (pages and write share), each page of a class taking the
    class's share over its pages; pages outside every class are never written.

    Args:
        workload: reclaim's workload spec.
        logical_pages: The device's logical pages.
        segments: Its segments.
        pages_per_segment: Pages per segment.

    Returns:
        An array of ``logical_pages`` probabilities summing to 1.

    >>> p = page_probabilities("zones:s=0.8/0.2,f=0.2/0.8", 229_376, 128, 2048)
    >>> p.size, round(float(p.sum()), 12), sorted({round(float(x) * 229_376, 6) for x in p})
    (229376, 1.0, [0.25, 4.000017])
    >>> p = page_probabilities("zipf:theta=1", 1000, 16, 64)
    >>> round(float(p[0] / p[9]), 12)  # rank 1 against rank 10
    10.0
    """
    kind, _, params = workload.partition(":")
    n = logical_pages
    if kind in ("zipf", "zipf-shuffle"):
        theta = float(dict(kv.split("=", 1) for kv in params.split(",") if kv).get("theta", "0.99"))
        w = np.arange(1, n + 1, dtype=np.float64) ** -theta
        return w / w.sum()
    from reclaim import _core

    spec = {"segments": segments, "pages_per_segment": pages_per_segment, "logical_pages": n, "workload": workload}
    parts = [np.full(c["pages"], c["write_share"] / c["pages"]) for c in _core.class_shares(json.dumps(spec))["classes"] if c["pages"] > 0]
    p = np.concatenate(parts) if parts else np.zeros(0)
    if p.size != n:
        p = np.concatenate([p, np.zeros(max(0, n - p.size))])[:n]
    return p / p.sum()


def page_counts(p: np.ndarray, physical_pages: int, measured_writes: int, seed: int) -> np.ndarray:
    """The pages' write counts ssdiq_plus's ``opt-N`` holds at its last ``stats()``
    (``sim/Optimal.hpp``; ``writesPerPage`` is never reset): each page once (the init phase's
    sequential fill), then ``physical_pages`` init writes and the measured writes drawn
    independently by the law ``p`` (``sim/sim.cpp``, ``runBench``), from a NumPy generator
    seeded with ``seed`` (the peer's draw comes from ``std::random_device``: the counts agree
    in law, not one by one).

    >>> c = page_counts(np.full(100, 0.01), 128, 1000, 1)
    >>> int(c.sum()), int(c.min()) >= 1
    (1228, True)
    """
    rng = np.random.default_rng(seed)
    return 1 + rng.multinomial(physical_pages + measured_writes, p)


def opt_formula(workload: str, groups: int, measured_writes: int, capacity: str = "16G", erase: str = "8M", page: str = "4K",
                ssdfill: float = 0.875, seeds: Sequence[int] = (1,)) -> list[float]:
    """What ssdiq_plus's ``opt-<groups>`` prints for a workload on an SSD-iq device, evaluated
    here once per seed: its formula (:func:`reclaim.models.ssdiq.opt_wa_of_counts`, ``newOptWA``
    on an H-bucket histogram) on :func:`page_counts` drawn from :func:`page_probabilities`, at
    the fill as the simulator's C ``float`` holds it.

    Args:
        workload: reclaim's workload spec for SSD-iq's pattern.
        groups: H, the histogram's buckets (``opt-H``).
        measured_writes: The writes measured after the init phase.
        capacity, erase, page, ssdfill: The device, as :func:`geometry` takes them.
        seeds: One evaluation per seed.

    >>> [round(x, 3) for x in opt_formula("uniform", 1000, 2_293_700, capacity="1G", seeds=(1, 2))]
    [3.932, 3.932]
    """
    from reclaim.models import ssdiq as model

    g = geometry(capacity, erase, page, ssdfill)
    segments, pps, logical = int(g["segments"]), int(g["pages_per_segment"]), int(g["logical_pages"])
    p = page_probabilities(workload, logical, segments, pps)
    fill = _float32(ssdfill)
    return [model.opt_wa_of_counts(fill, page_counts(p, segments * pps, measured_writes, seed), groups) for seed in seeds]
