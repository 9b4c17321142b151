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

import math
import struct

__all__ = ["geometry", "size_bytes", "zones_spec"]

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
