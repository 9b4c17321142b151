"""The Python side of trace ingestion: conversion with progress, loading converted traces, and
trace statistics with a fit of Li et al.'s workload model (f_a, n, r, f) (§2.2, Fig. 1).

Converted traces (`reclaim trace convert`) are read with numpy straight from their binary layout
(see ``crates/reclaim-core/src/trace/convert.rs``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reclaim import _core
from reclaim.pages import page_ids

MAGIC = b"RCLMTRC1"
FORMATS = ("msr", "spc", "fiu", "biotracer", "mqsim", "disksim", "blkparse", "alibaba", "pages", "vscsi", "oracle-general",
           "midas", "tectonic")


#: The first page id of a run of read pages that have no id in a converted trace: past their
#: volume's range (ids kept) or never written (renamed).
UNWRITTEN = 0xFFFF_FFFF


def _empty(dtype: str) -> Callable[[], np.ndarray]:
    return lambda: np.zeros(0, dtype=dtype)


@dataclass(frozen=True)
class Reads:
    """The read requests of a converted trace (layout 3 on), in trace order among the writes.

    Attributes:
        at: Page writes issued before each read request (uint64, non-decreasing).
        runs: Runs of page ids of each read request (uint32); empty when each is one run.
        first: First page id of each run (uint32); :data:`UNWRITTEN` for pages without id.
        pages: Pages of each run (uint32).
        times: Seconds since the trace's first request, per read request, or an empty array.
        volumes: The volume of each read request, an index into ``meta["volumes"]`` (empty for
            a trace of one volume).
    """

    at: np.ndarray = field(default_factory=_empty("<u8"))
    runs: np.ndarray = field(default_factory=_empty("<u4"))
    first: np.ndarray = field(default_factory=_empty("<u4"))
    pages: np.ndarray = field(default_factory=_empty("<u4"))
    times: np.ndarray = field(default_factory=_empty("<f8"))
    volumes: np.ndarray = field(default_factory=_empty("<u4"))

    def copy(self) -> Reads:
        """The same reads in arrays of their own."""
        return Reads(*(a.copy() for a in (self.at, self.runs, self.first, self.pages, self.times, self.volumes)))


@dataclass(frozen=True)
class Trace:
    """A converted trace in memory.

    Attributes:
        meta: The header (source, format, page_size, requests, reads, writes, pages_written,
            unique_pages, address_pages, renamed, has_times, report).
        pages: Page ids written, in order (uint32).
        request_pages: Pages per write request (uint32).
        times: Seconds since the first request per write request, or an empty array.
        request_volumes: The volume of each write request, an index into ``meta["volumes"]``
            (empty for a trace of one volume).
        reads: The read requests (none kept in a trace converted before layout 3).
    """

    meta: dict[str, Any]
    pages: np.ndarray
    request_pages: np.ndarray
    times: np.ndarray
    request_volumes: np.ndarray = field(default_factory=_empty("<u4"))
    reads: Reads = field(default_factory=Reads)


#: The index of a folder of per-volume traces (``reclaim trace convert --volumes``).
VOLUME_INDEX = "volumes.json"


def volume_files(folder: str | Path) -> list[tuple[str, Path]]:
    """The (volume, converted trace) pairs of a folder written by ``convert(…, volumes=True)``.

    Raises:
        ValueError: the folder has no readable index.
    """
    index = Path(folder) / VOLUME_INDEX
    if not index.exists():
        raise ValueError(f"invalid value for `workload`: {folder} (expected a converted trace, or a folder of one per volume "
                         f"from `reclaim trace convert --volumes`: this folder has no {VOLUME_INDEX})")
    try:
        listed = json.loads(index.read_text())["volumes"]
        return [(str(v["name"]), Path(folder) / str(v["file"])) for v in listed]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"invalid value for `workload`: {folder} (expected a converted trace, or a folder of one per "
                         f"volume with its {VOLUME_INDEX} from `reclaim trace convert --volumes`: {e})") from None


def is_converted(path: str | Path) -> bool:
    """True when ``path`` is a converted trace (starts with ``RCLMTRC1``)."""
    with open(path, "rb") as f:
        return f.read(8) == MAGIC


def convert(
    path: str | Path,
    format: str,
    out: str | Path,
    *,
    page_size: int = 4096,
    rename: bool = False,
    skip_bad_lines: bool = False,
    device: str | None = None,
    blkparse_action: str = "Q",
    volumes: bool = False,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Converts a text trace (plain, gzip or zstd) to a binary trace file, or to one per volume.

    Each request keeps its volume (device): in one file, each volume's pages lie apart from the
    others' (ids kept: in a range of their own; renamed: each (volume, page) its own id), and
    ``meta["volumes"]`` lists them with their counts.

    Args:
        path: The text trace.
        format: One of ``msr``, ``spc``, ``fiu``, ``biotracer``, ``mqsim``, ``disksim``, ``blkparse``,
            ``alibaba``, ``pages``, ``vscsi``, ``oracle-general`` (libCacheSim's binaries), ``midas``
            (MiDAS-Simulation's lines), ``tectonic`` (Tectonic as SSD-iq reads it), or a column-mapped ``csv:op=I,offset=I,size=I[,…]`` (docs/traces.md).
        out: The binary trace to write; with ``volumes``, the folder to write one per volume
            into, with ``volumes.json`` listing them (volume, file, counts).
        page_size: Page size in bytes (4096; Stockmeyer's tracks: 32768).
        rename: Rename page ids densely in first-write order (Stockmeyer §2.1); otherwise ids
            are addresses and the volume is the largest address (Li et al. §6.1).
        skip_bad_lines: Skip malformed lines, counted per reason in ``report.skipped``.
        device: Keep only this device or volume.
        blkparse_action: The blkparse stage whose events are requests.
        volumes: Write one converted trace per volume with writes (as if each were converted
            alone with ``device``) into the folder ``out``.
        progress: Called with the number of lines read after every step.

    Returns:
        The trace's metadata (with ``volumes``, also ``volume_files``: each volume's file).

    Raises:
        ValueError: a malformed line (file, line number, line, what was expected), an unknown
            format, or an address out of range.
    """
    if isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1:
        raise ValueError(f"invalid value for `page_size`: {page_size!r} (expected a whole number of bytes ≥ 1)")
    src, dst = Path(path), Path(out)
    if dst.exists() and src.exists() and src.resolve() == dst.resolve():
        raise ValueError(f"invalid value for `out`: {out} (expected a file other than the trace being converted)")
    if volumes and dst.exists() and not dst.is_dir():
        raise ValueError(f"invalid value for `out`: {out} (expected a folder for one trace per volume, not a file)")
    if not volumes and dst.is_dir():
        raise ValueError(f"invalid value for `out`: {out} (expected a file, not a folder)")
    dst.parent.mkdir(parents=True, exist_ok=True)
    # Written to one file, the arrays spill to disk beside it as they grow: memory stays bounded.
    conv = _core.TraceConverter(str(path), format, page_size, rename, skip_bad_lines, device, blkparse_action,
                                None if volumes else str(out))
    try:
        while conv.step(1 << 18):
            if progress is not None:
                progress(conv.lines())
        if progress is not None:
            progress(conv.lines())
        if volumes:
            header, files = conv.write_volumes(str(out))
            meta = json.loads(header)
            listed = [{**v, "file": f} for v, f in json.loads(files)]
            (dst / VOLUME_INDEX).write_text(json.dumps({"source": meta["source"], "format": meta["format"],
                                                        "page_size": meta["page_size"], "renamed": meta["renamed"],
                                                        "volumes": listed,
                                                        "idle": [v["name"] for v in meta.get("volumes") or []
                                                                 if v["writes"] == 0]}, indent=1) + "\n")
            meta["volume_files"] = listed
        else:
            meta = json.loads(conv.write(str(out)))
        if device is not None and meta["requests"] == 0:
            if not volumes:
                dst.unlink(missing_ok=True)
            others = meta["report"].get("other_devices", 0)
            raise ValueError(f"invalid value for `device`: `{device}` (expected a device of {path}: none of its "
                             f"{meta['report']['lines']:,} lines is, {others:,} requests are of other devices)")
        return meta
    finally:
        # The converter must be freed on this thread (it is not Send). On an error the
        # traceback keeps this frame alive, and the cycle collector could free it later on
        # whichever thread runs it, which aborts with "unsendable ... dropped on another thread".
        del conv


def write_pages(pages: Sequence[int] | np.ndarray, out: str | Path, source: str = "page list") -> dict[str, Any]:
    """Writes page ids as a converted trace of single-page writes.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.rtr")
    >>> write_pages([3, 1, 3], p)["unique_pages"]
    2
    """

    arr = np.ascontiguousarray(page_ids(pages, "pages"))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    return json.loads(_core.write_page_trace(str(out), arr, source))


#: Stockmeyer's snake trace as his report describes it (§2.1, §2.3): written tracks, track
#: writes, LRU hit ratios with 1 and with 320 tracks; and the stand-in's own tail exponents.
SNAKE = {"tracks": 36_607, "writes": 6_760_000, "p_repeat": 0.223, "p_near": 0.950, "near": 320,
         "alpha": 1.0, "beta": 1.0}


def files_model() -> dict[str, Any]:
    """The file-structured stand-in's parameters: the snake's size and the values
    ``scripts/calibrate_stand_in.py`` chose (``reproduce/data/stand_in_files.json``)."""
    from importlib import resources

    text = resources.files("reclaim.reproduce").joinpath("data", "stand_in_files.json").read_text()
    return {"tracks": SNAKE["tracks"], "writes": SNAKE["writes"]} | json.loads(text)["parameters"]


_INTS = {"tracks", "writes", "size_max", "depth", "near"}


def stand_in(out: str | Path, seed: int = 1, model: str = "files", **params: Any) -> dict[str, Any]:
    """Writes a stand-in for Stockmeyer's "snake" trace (not public) as a converted trace of
    single-track writes; returns its metadata. ``model``:

    - ``files`` (default): a generative model with file structure, its parameters calibrated on
      results the report gives without age sorting (:func:`files_model`;
      ``crates/reclaim-core/src/trace/stand_in_files.rs``);
    - ``stack``: the LRU stack-distance model through the report's two hit ratios
      (:data:`SNAKE`; ``crates/reclaim-core/src/trace/stand_in.rs``).

    Any parameter of the model may be overridden.

    Raises:
        ValueError: an unknown model or parameter, or a value out of its range.
    """
    if model not in ("files", "stack"):
        raise ValueError(f"invalid value for `model`: `{model}` (expected files or stack)")
    base = files_model() if model == "files" else SNAKE
    unknown = set(params) - set(base)
    if unknown:
        raise ValueError(f"invalid stand-in parameter(s) {sorted(unknown)} (expected some of {sorted(base)})")
    m = {k: (int(v) if k in _INTS else float(v)) for k, v in (base | params).items()}
    if model == "files":
        pages = _core.stand_in_files_pages(int(m["tracks"]), int(m["writes"]), m["size_min"], m["size_tail"],
                                           int(m["size_max"]), m["frozen"], m["skew"], m["p_stack"], int(m["depth"]),
                                           m["p_whole"], m["run"], m["p_repeat"], m["drift"], int(seed))
    else:
        pages = _core.stand_in_pages(int(m["tracks"]), int(m["writes"]), float(m["p_repeat"]), float(m["p_near"]),
                                     int(m["near"]), float(m["alpha"]), float(m["beta"]), int(seed))
    src = f"stand-in:snake:{model} " + ",".join(f"{k}={m[k]}" for k in base) + f",seed={seed}"
    return write_pages(pages, out, source=src)


def volume(meta: dict[str, Any]) -> int:
    """The volume in pages as Li et al. §6.1 take it: the largest address rounded up to a whole
    GiB. A page-id list (page size 1: ids, not bytes) has no GiB to round to; its volume is its
    address space.

    >>> volume({"page_size": 4096, "address_pages": 262145}), volume({"page_size": 1, "address_pages": 10})
    (524288, 10)
    """
    pages = int(meta["address_pages"])
    page_size = int(meta["page_size"])
    gib_pages = max(1, (1 << 30) // page_size) if page_size > 1 else 1
    return -(-pages // gib_pages) * gib_pages


def load(path: str | Path) -> Trace:
    """Reads a converted trace.

    Raises:
        ValueError: the file is not a converted trace, or is truncated.
    """
    data = Path(path).read_bytes()
    try:
        header, pages_at, requests_at, times_at, volumes_at, trims_at = _core.check_trace(str(path), data)
    except RuntimeError as e:
        # The engine's reader checks every count and page id against the header.
        raise ValueError(f"{e}; convert the trace again with `reclaim trace convert`") from None
    meta = json.loads(header)
    pages = np.frombuffer(data, dtype="<u4", count=(requests_at - pages_at) // 4, offset=pages_at)
    request_pages = np.frombuffer(data, dtype="<u4", count=(times_at - requests_at) // 4, offset=requests_at)
    times = np.frombuffer(data, dtype="<f8", count=(volumes_at - times_at) // 8, offset=times_at)
    volumes = np.frombuffer(data, dtype="<u4", count=(trims_at - volumes_at) // 4, offset=volumes_at)
    return Trace(meta=meta, pages=pages, request_pages=request_pages, times=times, request_volumes=volumes,
                 reads=_reads(meta, data))


def _reads(meta: dict[str, Any], data: bytes) -> Reads:
    """The reads' arrays, the last section of a converted trace (layout 3; its length checked by
    the engine against the header's counts)."""
    if meta["version"] < 3:
        return Reads()
    reads, runs = int(meta["reads"]), int(meta["read_runs"])
    several = len(meta.get("volumes") or []) > 1
    sizes = [("at", "<u8", reads), ("runs", "<u4", reads if runs > reads else 0), ("first", "<u4", runs),
             ("pages", "<u4", runs), ("times", "<f8", reads if meta["read_times"] else 0),
             ("volumes", "<u4", reads if several else 0)]
    at = len(data) - sum(np.dtype(d).itemsize * n for _, d, n in sizes)
    arrays = {}
    for name, dtype, n in sizes:
        arrays[name] = np.frombuffer(data, dtype=dtype, count=n, offset=at)
        at += np.dtype(dtype).itemsize * n
    return Reads(**arrays)


def load_or_convert(path: str | Path, format: str | None = None, **options: Any) -> Trace:
    """A converted trace as it is, or a text trace converted (to a temporary file) first."""
    import tempfile

    if is_converted(path):
        return load(path)
    if format is None:
        raise ValueError(f"{path} is a text trace: give its format ({', '.join(FORMATS)})")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "trace.rtr"
        convert(path, format, out, **options)
        t = load(out)
        # Copy the arrays out of the temporary file's buffer.
        return Trace(meta=t.meta, pages=t.pages.copy(), request_pages=t.request_pages.copy(), times=t.times.copy(),
                     request_volumes=t.request_volumes.copy(), reads=t.reads.copy())


def request_sizes(path: str | Path, format: str, slot_bytes: int = 512, skip_bad_lines: bool = False,
                  device: str | None = None) -> str:
    r"""A page-size distribution from a text trace's write requests (Lomet & Luo §4.4): each
    request's length rounded up to slots of ``slot_bytes``, weighted by how many requests have it,
    as a ``sizes`` spec for :func:`reclaim.simulate`.

    Raises:
        ValueError: the trace has no write request with a length, or a line is malformed (named
            with its file and line).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("128166372000000000,h,0,Write,0,4096,10\n"
    ...                  "128166372000000001,h,0,Write,8192,1024,10\n"
    ...                  "128166372000000002,h,0,Read,0,65536,10\n"
    ...                  "128166372000000003,h,0,Write,0,4096,10\n")
    >>> request_sizes(p, "msr")
    'choice:sizes=2/8,weights=1/2'
    """
    pairs, _skipped = _core.request_sizes(str(path), format, int(slot_bytes), skip_bad_lines, device)
    if not pairs:
        raise ValueError(f"invalid value for `trace`: {path} has no write request with a length (expected writes to take sizes from)")
    too_big = [s for s, _ in pairs if s > 65535]
    if too_big:
        raise ValueError(f"invalid value for `slot_bytes`: {slot_bytes} ({path} has writes of {max(too_big)} slots) "
                         f"(expected a slot size that makes every write at most 65,535 slots)")
    sizes = "/".join(str(s) for s, _ in pairs)
    weights = "/".join(str(n) for _, n in pairs)
    return f"choice:sizes={sizes},weights={weights}"


#: Addresses per page write up to which :func:`access_counts` counts in an array over the address
#: space (one pass, 8 bytes per address: up to 32 bytes per write) rather than by sorting the
#: writes (a copy of 4 bytes per write, n log n).
DENSE_ADDRESSES_PER_WRITE = 4


def access_counts(pages: np.ndarray) -> np.ndarray:
    """Writes per distinct page, in descending order (Li et al. Fig. 1's curve).

    Memory follows the page writes, not the address space: a count per address (8 bytes each)
    when the addresses are at most :data:`DENSE_ADDRESSES_PER_WRITE` per page write, else the
    distinct pages sorted out of a copy of the writes (4 bytes each) — the same counts either way,
    so a trace with one far address (page 2³² − 2) costs what its two writes cost, not 32 GiB.

    >>> access_counts(np.array([5, 1, 5, 5, 2, 1])).tolist()
    [3, 2, 1]
    >>> access_counts(np.array([0, 4_294_967_294, 0], dtype=np.uint32)).tolist()
    [2, 1]
    """
    pages = np.asarray(pages)
    if not len(pages):
        return np.zeros(0, dtype=np.int64)
    if int(pages.max()) < DENSE_ADDRESSES_PER_WRITE * len(pages):
        counts = np.bincount(pages)
        counts = counts[counts > 0]
    else:
        counts = np.unique(pages, return_counts=True)[1].astype(np.int64)
    return np.sort(counts)[::-1]


def fit_locality(counts: np.ndarray, thresholds: Sequence[int], fa: float) -> dict[str, Any]:
    """Li et al.'s (f_a, n, r, f) from per-page write counts and access-count thresholds (§2.2).

    Pages written at least ``thresholds[0]`` times are type 1, at least ``thresholds[1]`` type 2,
    and so on; the rest of the written pages are the last type. r_i is type i's share of the
    writes, f_i its share of the written (active) pages.

    Args:
        counts: Writes per written page.
        thresholds: Decreasing thresholds (e.g. 20 and 5 for n = 3).
        fa: The active share f_a.

    >>> fit_locality(np.array([30, 10, 1, 1]), [20, 5], 0.1)["r"]
    [0.7142857142857143, 0.23809523809523808, 0.047619047619047616]
    """
    ts = list(thresholds)
    if any(a <= b for a, b in zip(ts, ts[1:])) or any(t < 1 for t in ts):
        raise ValueError(f"invalid value for `thresholds`: {ts} (expected decreasing whole numbers ≥ 1, such as 20,5)")
    edges = [math.inf, *ts, 0]
    total_w = counts.sum()
    total_p = len(counts)
    r, f = [], []
    for hi, lo in zip(edges, edges[1:]):
        sel = (counts >= lo) & (counts < hi) if lo > 0 else (counts < hi)
        r.append(float(counts[sel].sum() / total_w))
        f.append(float(sel.sum() / total_p))
    return {"fa": fa, "n": len(r), "r": r, "f": f, "thresholds": ts}


def stats(trace: Trace | str | Path, thresholds: Sequence[int] = (20, 5), format: str | None = None,
          **options: Any) -> dict[str, Any]:
    """Statistics of a trace (names as in ``reclaim trace stats --json``): a loaded
    :class:`Trace`, the path of a converted one, or a text trace's path with its ``format`` (and
    the options of :func:`convert`).

    ``f_a`` is the written share of the volume, the volume being the largest address rounded up
    to a whole GiB (Li et al. §6.1); ``f_a_address`` uses the address space itself. ``volumes``
    counts the trace's volumes (devices), ``volume_list`` gives each one's counts, median lifetime
    and share of writes rewritten within its working set; ``lifetimes`` is :func:`lifetimes` of
    the whole trace.
    """
    if not isinstance(trace, Trace):
        trace = load_or_convert(trace, format, **options)
    m = trace.meta
    counts = access_counts(trace.pages) if len(trace.pages) else np.zeros(0, dtype=np.int64)
    volume_pages = volume(m)
    fa = m["unique_pages"] / volume_pages if volume_pages else float("nan")
    out = {
        "source": m["source"],
        "format": m["format"],
        "page_size": int(m["page_size"]),
        "requests": m["requests"],
        "reads": m["reads"],
        # Layout 3 keeps every read (for a replay with time); earlier layouts counted them only.
        "reads_kept": len(trace.reads.at),
        "pages_read": m.get("pages_read", 0),
        "pages_read_unwritten": m.get("pages_read_unwritten", 0),
        "writes": m["writes"],
        "pages_written": m["pages_written"],
        "unique_pages": m["unique_pages"],
        "address_pages": m["address_pages"],
        "volume_pages": volume_pages,
        "f_a": fa,
        "f_a_address": m["unique_pages"] / m["address_pages"] if m["address_pages"] else float("nan"),
        "max_writes_per_page": int(counts[0]) if len(counts) else 0,
        "mean_writes_per_page": float(counts.mean()) if len(counts) else 0.0,
        "access_frequency": counts.tolist(),
        "report": m["report"],
        "trims": m.get("trims", 0),
        "pages_trimmed": m.get("pages_trimmed", 0),
        "volumes": max(1, len(m.get("volumes") or [])),
        "volume_list": [{k: v[k] for k in ("name", "requests", "writes", "pages_written", "unique_pages")}
                        for v in m.get("volumes") or []],
        "lifetimes": lifetimes(trace.pages),
    }
    if len(trace.request_volumes):
        # Each volume's lifetimes in its own writes, as a run of the volume alone sees them.
        for i, v in enumerate(out["volume_list"]):
            lt = lifetimes(pages_of_volume(trace, i))
            v["median_lifetime"] = lt["lifetime_quantiles"]["0.5"]
            v["rewritten_within_working_set"] = lt["within"]["1"]
    if len(counts):
        out["fit"] = fit_locality(counts, thresholds, fa)
    return out


def pages_of_volume(trace: Trace, index: int) -> np.ndarray:
    """The page writes of volume ``index`` (of ``meta["volumes"]``), in order; every page write of a
    trace of one volume."""
    if not len(trace.request_volumes):
        return trace.pages
    return trace.pages[np.repeat(trace.request_volumes, trace.request_pages) == index]


#: Shares of the working set at which ``lifetimes`` reports the share of writes rewritten within.
WITHIN = (0.01, 0.1, 0.5, 1.0, 2.0)


def reuse_distances(pages: np.ndarray) -> np.ndarray:
    """Each rewrite's distance from the page's previous write, in page writes (the lifetime of the
    data the previous write wrote: it dies that many user writes later), in trace order.

    >>> reuse_distances(np.array([5, 7, 5, 5, 9, 7], dtype=np.uint32)).tolist()
    [2, 1, 4]
    """
    pages = np.asarray(pages)
    if len(pages) < 2:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(pages, kind="stable")
    same = pages[order][1:] == pages[order][:-1]
    later, earlier = order[1:][same], order[:-1][same]
    return (later - earlier)[np.argsort(later, kind="stable")].astype(np.int64)


def lifetimes(pages: np.ndarray) -> dict[str, Any]:
    """What lifetime-based placement exploits, from a trace's page writes: the working set, the
    lifetimes (write-reuse distances, :func:`reuse_distances`) as a histogram in powers of two
    and as quantiles, and the share of all writes whose data is rewritten within a share of the
    working set (``within``, keyed by :data:`WITHIN`); a write never rewritten has no lifetime.

    >>> l = lifetimes(np.array([0, 1, 0, 1, 2, 0], dtype=np.uint32))
    >>> l["working_set"], l["rewrites"], l["within"]["1"]
    (3, 3, 0.5)
    """
    pages = np.asarray(pages)
    d = reuse_distances(pages)
    ws = int(len(np.unique(pages))) if len(pages) else 0
    n = len(pages)
    top = int(d.max()).bit_length() if len(d) else 0
    # Bin k holds lifetimes in [2^k, 2^(k+1)).
    hist = np.bincount(np.floor(np.log2(d)).astype(np.int64), minlength=top).tolist() if len(d) else []
    qs = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
    return {
        "working_set": ws,
        "writes": n,
        "rewrites": int(len(d)),
        "lifetime_histogram_log2": hist,
        "lifetime_quantiles": {f"{q:g}": float(np.quantile(d, q)) if len(d) else float("nan") for q in qs},
        "within": {f"{x:g}": float(np.count_nonzero(d <= x * ws) / n) if n else float("nan") for x in WITHIN},
    }


def _figure(panels: int, width: float) -> tuple[Any, Any]:
    """A figure of ``panels`` axes side by side, drawn off-screen (Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, panels, figsize=(width, 4), squeeze=False)
    return fig, axes[0]


def _access_frequency(ax: Any, counts: np.ndarray, title: str) -> None:
    """Li et al. Fig. 1 on ``ax``: writes per page, pages sorted by decreasing writes, log-log."""
    ax.loglog(np.arange(1, len(counts) + 1), counts, "-")
    ax.set(xlabel="pages, by decreasing writes", ylabel="writes per page", title=title)


def save_figure(fig: Any, path: str | Path) -> Path:
    """Writes ``fig`` at ``path`` as named (the format from its suffix, PNG without one), its
    folder made, and closes it; a failed write is an :class:`OSError` naming the file."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    # The format named, so that a path without a suffix is written as given (matplotlib would
    # add `.png`: `--plot /dev/full` wrote /dev/full.png).
    try:
        fig.savefig(p, dpi=110, format=p.suffix[1:].lower() or "png")
    except OSError as e:  # the file is named: matplotlib's error names none
        raise OSError(e.errno, f"cannot write the figure: {e.strerror or e}", str(p)) from None
    finally:
        plt.close(fig)
    return p


def plot_stats(st: dict[str, Any], path: str | Path, title: str) -> Path:
    """Three panels: writes per page by decreasing writes (Li et al. Fig. 1), the histogram of
    lifetimes in powers of two, and the share of writes rewritten within a lifetime (CDF, as a
    share of the working set)."""
    lt = st["lifetimes"]
    fig, axes = _figure(3, 15)
    _access_frequency(axes[0], np.asarray(st["access_frequency"]), title)
    hist = np.asarray(lt["lifetime_histogram_log2"], dtype=float)
    axes[1].bar(np.arange(len(hist)), hist / max(1, lt["writes"]))
    axes[1].set(xlabel="lifetime, log2 of user writes", ylabel="share of writes", title="write-reuse distance")
    ws = max(1, lt["working_set"])
    edges = 2.0 ** np.arange(1, len(hist) + 1)
    axes[2].semilogx(edges / ws, np.cumsum(hist) / max(1, lt["writes"]), drawstyle="steps-post")
    axes[2].set(xlabel="lifetime / working set", ylabel="share of writes rewritten within", title="lifetime CDF", ylim=(0, 1))
    return save_figure(fig, path)


def plot_access_frequency(counts: np.ndarray, path: str | Path, title: str) -> Path:
    """Li et al. Fig. 1: writes per page, pages sorted by decreasing writes, log-log."""
    fig, axes = _figure(1, 6)
    _access_frequency(axes[0], counts, title)
    return save_figure(fig, path)
