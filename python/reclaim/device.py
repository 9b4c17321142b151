"""What a timed run (``device=…``) measured on the device's clock: :class:`TimeResult`.

The engine lays the store's segments on a flash geometry and puts every flash operation (host
reads and programs, the cleaner's reads, programs and erases) on per-die timelines
(docs/device.md). Latencies are in microseconds, from a request's arrival to its completion,
summarised from HdrHistogram distributions (three significant digits).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

#: The percentiles of a latency summary, as named everywhere (Rust, JSON, the results database's
#: ``read_latency_p99`` and so on).
LATENCY_FIELDS = ("count", "mean", "p50", "p90", "p99", "p999", "p9999", "max")

#: Per-window columns a timed run adds to :meth:`reclaim.SimResult.frame`.
WINDOW_FIELDS = ("requests", "span_us", "iops", "mb_per_s", "read_mean", "read_p99", "write_mean", "write_p99",
                 "die_busy")


@dataclass(frozen=True)
class Latency:
    """A latency distribution's summary [µs]: ``count``, ``mean``, ``p50``, ``p90``, ``p99``,
    ``p999`` (99.9th), ``p9999`` (99.99th) and ``max``."""

    count: int = 0
    mean: float = 0.0
    p50: float = 0.0
    p90: float = 0.0
    p99: float = 0.0
    p999: float = 0.0
    p9999: float = 0.0
    max: float = 0.0


@dataclass(frozen=True)
class TimeResult:
    """A timed run's measured phase on the clock.

    Attributes:
        device: The device, as its spec (``femu:channels=4``).
        arrivals: The arrival process, as its spec (``closed:iodepth=32``).
        dies: Dies in all.
        read_requests, write_requests: Read and write requests measured (``reads`` and ``writes``
            name parameters).
        read_pages, write_pages: Pages the host read and wrote.
        span_us: From the first arrival to the last completion [µs].
        iops, read_iops, write_iops: Requests per second over the span.
        mb_per_s: Host pages moved per second × page size [MB/s, 10⁶ bytes].
        read_latency, write_latency: :class:`Latency` summaries [µs]; a write completes when its
            last page is programmed (buffered, with a write buffer).
        die_busy: Mean share of the span the dies spend on flash operations.
        die_busy_max: The busiest die's share.
        gc_busy: Share of the dies' flash time spent on cleaning.
        die_shares: Each die's busy share.
        windows: Per window (of the result's series) ``requests``, ``span_us``, ``iops``,
            ``mb_per_s``, ``read_mean``, ``read_p99``, ``write_mean``, ``write_p99``,
            ``die_busy``, as arrays.
        read_cdf, write_cdf: Latency distributions as an array of (latency µs, cumulative
            share) rows, for plotting.
    """

    device: str
    arrivals: str
    dies: int
    read_requests: int
    write_requests: int
    read_pages: int
    write_pages: int
    span_us: float
    iops: float
    read_iops: float
    write_iops: float
    mb_per_s: float
    read_latency: Latency
    write_latency: Latency
    die_busy: float
    die_busy_max: float
    gc_busy: float
    die_shares: np.ndarray = field(default_factory=lambda: np.zeros(0))
    windows: dict[str, np.ndarray] = field(default_factory=dict)
    read_cdf: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    write_cdf: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    @classmethod
    def from_core(cls, d: dict[str, Any]) -> TimeResult:
        """Builds the result from the engine's dict."""
        d = dict(d)
        for k in ("read_latency", "write_latency"):
            d[k] = Latency(**d[k])
        d["die_shares"] = np.asarray(d.get("die_shares", []), dtype=float)
        windows = d.get("windows", [])
        d["windows"] = {k: np.asarray([w[k] for w in windows]) for k in WINDOW_FIELDS}
        for k in ("read_cdf", "write_cdf"):
            d[k] = np.asarray(d.get(k, []), dtype=float).reshape(-1, 2)
        return cls(**d)

    def scalars(self) -> dict[str, Any]:
        """The scalar metrics flat, as the results database names them (``read_latency_p99``)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Latency):
                out.update({f"{f.name}_{k}": getattr(v, k) for k in LATENCY_FIELDS})
            elif not isinstance(v, (np.ndarray, dict)):
                out[f.name if f.name not in ("device", "arrivals") else f"{f.name}_spec"] = v
        return out

    def to_dict(self, arrays: bool = True) -> dict[str, Any]:
        """A JSON-ready dict, as the engine gives it."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Latency):
                out[f.name] = {k: getattr(v, k) for k in LATENCY_FIELDS}
            elif isinstance(v, np.ndarray):
                if arrays:
                    out[f.name] = v.tolist()
            elif isinstance(v, dict):
                if arrays:
                    out[f.name] = {k: a.tolist() for k, a in v.items()}
            else:
                out[f.name] = v
        return out
