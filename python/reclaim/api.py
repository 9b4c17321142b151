"""The public Python API: :func:`simulate`, :class:`SimConfig`, :class:`SimResult`.

Every parameter is validated by the engine (``reclaim-core``'s ``config``), which names the
parameter, the value and the valid range in its error.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reclaim import _core
from reclaim.device import TimeResult
from reclaim.pages import MAX_PAGE_ID, page_ids
from reclaim.schemes import FAMILIES, usage_list

#: User writes per engine step between progress reports (and Ctrl-C checks).
STEP_WRITES = 1 << 20

#: Every simulation parameter, defined once in the engine (``reclaim-core``'s ``config``): name,
#: kind (integer, number, spec, flag, counts), unit, range, default and help.
PARAMETERS: dict[str, dict[str, str]] = {p["name"]: p for p in _core.parameters()}

def _bad_type(name: str, value: Any, expected: str) -> TypeError:
    return TypeError(f"invalid type for `{name}`: {type(value).__name__} {value!r:.60} (expected {expected})")


def _bad_value(name: str, value: Any) -> ValueError:
    return ValueError(f"invalid value for `{name}`: {value!r:.60} (expected {PARAMETERS[name]['range']})")


def _whole(name: str, v: Any) -> int:
    """An integer parameter: Python and numpy integers, or a float with no fractional part."""
    if isinstance(v, (bool, np.bool_)):
        raise _bad_type(name, v, "a whole number")
    if isinstance(v, (int, np.integer)):
        n = int(v)
    elif isinstance(v, (float, np.floating)):
        if not (math.isfinite(v) and float(v).is_integer()):
            raise _bad_value(name, float(v))
        n = int(v)
    else:
        raise _bad_type(name, v, "a whole number")
    # Past 64 bits the engine's JSON reader would take the number as a float and echo it so.
    if not -(2**63) <= n < 2**64:
        raise _bad_value(name, n)
    return n


def checked(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters checked for their type against :data:`PARAMETERS` and made JSON-ready.

    Values of the wrong type raise :class:`TypeError`; non-finite or fractional numbers where a
    finite or whole one belongs raise :class:`ValueError`; both name the parameter. Ranges are
    checked by the engine. numpy scalars are taken as their Python values.

    >>> checked({"segments": np.int64(64), "spare": np.float32(0.5)})
    {'segments': 64, 'spare': 0.5}
    >>> checked({"segments": "64"})
    Traceback (most recent call last):
    ...
    TypeError: invalid type for `segments`: str '64' (expected a whole number)
    """
    out: dict[str, Any] = {}
    for name, v in params.items():
        if v is None:
            continue
        p = PARAMETERS.get(name)
        if p is None:
            raise TypeError(f"unknown parameter `{name}` (expected one of {', '.join(PARAMETERS)})")
        kind = p["kind"]
        if kind == "integer":
            out[name] = _whole(name, v)
        elif kind == "number":
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise _bad_type(name, v, "a number")
            if not math.isfinite(v):
                raise _bad_value(name, float(v))
            out[name] = float(v)
        elif kind == "flag":
            if not isinstance(v, (bool, np.bool_)):
                raise _bad_type(name, v, "True or False")
            out[name] = bool(v)
        elif kind == "counts":
            if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple, np.ndarray)):
                raise _bad_type(name, v, "a list of whole numbers")
            out[name] = [_whole(name, x) for x in v]
        elif name == "writes" and not isinstance(v, str):
            out[name] = _whole(name, v)
        else:
            if not isinstance(v, str):
                raise _bad_type(name, v, f"a string: {p['range']}")
            out[name] = v
    return out


ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class SimConfig:
    """A simulation configuration; ``None`` leaves a parameter at the engine's default.

    Args:
        segments: Physical segments N (≥ 4). Default 1024.
        pages_per_segment: Pages per segment b (1 to 65,536). Default 64.
        spare: Spare factor 1 − logical/physical pages, in (0, 1). Default 0.1.
        fill: Fill factor ρ = logical/physical pages, in (0, 1); instead of ``spare``.
        logical_pages: Logical pages; instead of ``spare`` or ``fill``.
        policy: Victim policy (``reclaim schemes policies``): {policies}.
        frontier: ``single``, ``double:copy=random`` or ``double:copy=oldest``; an alias of
            ``placement`` for these two.
        placement: Where written pages go (``reclaim schemes placements``): {placements}.
        streams: ``hole`` (default): a rewrite of a page still in an open stream leaves an invalid
            slot; ``cache``: pages wait in their stream until a segment's worth has gathered, a
            rewrite takes a waiting page out, and every sealed segment is full (Stockmeyer §2.3,
            "the streams act as a cache"). Not with ``double``.
        free_empty: A sealed segment that empties by itself goes to the free pool at once,
            counted as collected at utilization 0 (Stockmeyer §2.2). Default: it waits to be
            selected.
        cache: LRU write cache in front of the store, in pages (Stockmeyer's CacheTrkCount).
        trace_classes: Access-count thresholds, decreasing, splitting a trace's pages into
            classes (Li et al. §6.2), e.g. ``[50, 10]``.
        gc: Cleaner trigger (``reclaim schemes triggers``): {triggers}.
        workload: The user writes (``reclaim schemes workloads``): {workloads}; to
            :func:`simulate`, also a sequence of page ids.
        sizes: Page sizes in slots (Lomet & Luo §4.4; ``reclaim schemes sizes``): {sizes}; a
            segment holds ``pages_per_segment`` slots, the fill factor and U, G are then in slots.
            Default: one slot per page. :func:`reclaim.traces.request_sizes` gives a trace's.
        method: How a trace is replayed (``reclaim schemes methods``): {methods}. Only with a
            trace workload, whose default is ``precondition`` (docs/traces.md, "Methods").
        trim: Whether a trace's discards (TRIM) invalidate their pages. Default ``True``;
            ``False`` replays the writes alone.
        volume: Which volume of a trace of several to replay: its name, or ``all`` for every volume
            on one device (each in pages of its own); :func:`reclaim.volumes.simulate_volumes`
            runs each on a device of its own.
        warmup: ``fill+Kx``, ``fill``, ``Kx`` or ``none``, then optionally ``+P%`` of a trace.
            Default ``fill+10x``; none with ``method=precondition``.
        writes: Measured user writes: ``20x`` (of the logical capacity), ``2p`` (passes over a
            trace; one by default for traces) or a count.
        seed: Seed of the run's random generator. Default 1.
        window: Time-series window in user writes. Default: the logical capacity.
        precision: Ends the measured phase once a metric's 95% interval, by batch means over the
            windows, is this narrow: ``wa:rel=0.0003`` (a half-width relative to the value) or
            ``emptiness_at_clean:abs=0.0001`` (in the metric's unit), for ``wa``, ``wamp``,
            ``gcu`` or ``emptiness_at_clean``; ``writes`` is then the cap (docs/experiments.md,
            "Runs that stop when they know enough"). Only with a generated workload.
        device: A flash device to time the run on (``reclaim schemes devices``): {devices}; the
            result's ``time`` then holds latencies and throughput (docs/device.md). Default: none.
        arrivals: How a timed run's requests arrive (``reclaim schemes arrivals``): {arrivals}.
            Default ``closed:iodepth=1``.
        reads: Share of a timed run's requests that are single-page reads, drawn by the
            workload's own law, in [0, 1] (1: reads only, ``writes`` then counting reads).

    >>> SimConfig(policy="d-choices:d=10").validated().policy
    'd-choices:d=10'
    """

    segments: int | None = None
    pages_per_segment: int | None = None
    spare: float | None = None
    fill: float | None = None
    logical_pages: int | None = None
    policy: str | None = None
    frontier: str | None = None
    placement: str | None = None
    streams: str | None = None
    free_empty: bool | None = None
    cache: int | None = None
    trace_classes: list[int] | None = None
    gc: str | None = None
    workload: Any = None
    sizes: str | None = None
    method: str | None = None
    trim: bool | None = None
    volume: str | None = None
    warmup: str | None = None
    writes: str | int | None = None
    seed: int | None = None
    window: int | None = None
    precision: str | None = None
    device: str | None = None
    arrivals: str | None = None
    reads: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The parameters that are set.

        >>> SimConfig(segments=64).to_dict()
        {'segments': 64}
        """
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}

    def to_json(self) -> str:
        """The parameters that are set, as JSON (types checked by :func:`checked`)."""
        return json.dumps(checked(self.to_dict()), allow_nan=False)

    def validated(self) -> SimConfig:
        """Every parameter resolved to its canonical form by the engine.

        Raises:
            ValueError: a parameter is out of range; the message names it, its value and the range.

        >>> SimConfig(spare=1.5).validated()
        Traceback (most recent call last):
        ...
        ValueError: invalid value for `spare`: 1.5 (expected a number in (0, 1))
        """
        return SimConfig(**json.loads(_core.canonical_config(self.to_json())))


# The schemes' usage lines come from their declarations in the engine (`reclaim.schemes`).
SimConfig.__doc__ = (SimConfig.__doc__ or "").format(**{f: usage_list(f) for f in FAMILIES})


@dataclass(frozen=True, repr=False)
class SimResult:
    """Metrics of a run's measured phase, named as everywhere in reclaim (DESIGN "Metrics").

    Attributes:
        user_writes: User writes U.
        gc_writes: GC writes G (pages relocated).
        erases: Segment erases.
        wa: Write amplification (U + G) / U.
        wamp: G / U (Lomet & Luo's Wamp; Li et al.'s normalized cleaning cost).
        cleaning_cost: G (Li et al. eq. 1).
        emptiness_at_clean: Mean empty fraction of a victim (Lomet & Luo's E).
        gcu: Mean utilization of collected segments (Stockmeyer §2.2).
        collected: Segments collected (Stockmeyer's CltdCount).
        emptied: Collected segments that had no valid page (EmptyCount).
        work_rd_live: Stockmeyer's WorkRdLive.
        work_rd_all: Stockmeyer's WorkRdAll.
        wear_leveling_index: (Σnᵢ)² / (N·Σnᵢ²) over measured erases (Li et al. §6.3).
        cache_hit_ratio: Share of the workload's writes absorbed by the write cache (NaN
            without one); with a cache, ``user_writes`` counts the writes that reach the store.
        erase_counts: Erases per segment in the measured phase.
        victim_valid_histogram: Victims by valid-page count (b + 1 bins, counts;
            :meth:`victim_valid_fractions` gives shares).
        segment_valid_histogram: Sealed segments by valid-page count, counted at every
            cleaning epoch and summed (b + 1 bins, counts); :meth:`segment_valid_fractions` is
            Van Houdt's Fig. 3 distribution, averaged over epochs.
        series: Per-window arrays ``user_writes``, ``gc_writes``, ``erases``, ``wa``,
            ``cache_hit_ratio`` (NaN in every window without a cache), Stockmeyer's
            ``collected``, ``emptied``, ``gcu``, ``work_rd_live`` and ``work_rd_all`` (§2.2 per
            window, e.g. per quarter of a pass, §8), and ``window`` (the window's length in user
            writes, one number); :meth:`frame` makes a table of them.
        simulated_segments: Physical segments as simulated (for a trace run without
            ``segments``, derived from the trace and the spare factor).
        simulated_pages_per_segment: Pages per segment as simulated.
        simulated_logical_pages: Logical pages as simulated (``config.logical_pages`` is what
            was asked for, often nothing).
        simulated_spare: Spare factor as simulated, 1 − logical / physical pages (of slots
            with ``sizes``).
        seconds: Wall-clock seconds of the measured phase.
        user_writes_per_second: User writes per second in the measured phase.
        page_writes_per_second: User + GC writes per second in the measured phase.
        config: The canonical configuration.
        trimmed: Pages holding data that the trace's discards (TRIM) invalidated.
        method: With a trace workload, how it was replayed: ``method`` (canonical spec),
            ``trace_writes`` (page writes of one pass), ``working_set`` (pages written),
            ``passes`` (passes replayed, prefix and measured writes), ``pass_wa`` (with
            ``precondition``, the WA of each pass, the measured one last), ``settled`` and,
            with ``log``, ``log``: ``triggers`` (requests after which the garbage proportion
            exceeded its threshold), ``passed`` (of those, with no segment to collect) and
            ``peak_segments`` (the log's largest size).
        warnings: Where the method is likely to mislead on this trace, in words (the command
            line prints them on stderr).
        time: With a ``device``, the measured phase on the device's clock
            (:class:`reclaim.device.TimeResult`: latencies, IOPS, die utilisation); else ``None``.
        scheme_log: The placement's own record of the run, from its start, where it keeps one
            (``midas``: a row per progress window, model run, configuration applied and merge,
            each a dict of ``user_writes``, ``kind``, ``waf``, ``total_waf``, ``groups``,
            ``sizes``, ``valid``); empty otherwise.
        interval: The 95% confidence interval by batch means over the measured windows of
            ``precision``'s metric, else of ``wa``: ``metric``, ``value``, ``half_width`` (in
            the metric's unit), ``batches`` (20 to 39), ``windows_per_batch``, ``lag1`` (the
            batches' lag-1 autocorrelation) and ``reached`` (with ``precision``: whether the
            target was met, else ``None``); ``None`` with fewer than 20 whole windows.
    """

    user_writes: int
    gc_writes: int
    erases: int
    wa: float
    wamp: float
    cleaning_cost: int
    emptiness_at_clean: float
    gcu: float
    collected: int
    emptied: int
    work_rd_live: float
    work_rd_all: float
    wear_leveling_index: float
    cache_hit_ratio: float
    erase_counts: np.ndarray
    victim_valid_histogram: np.ndarray
    segment_valid_histogram: np.ndarray
    series: dict[str, Any]
    simulated_segments: int
    simulated_pages_per_segment: int
    simulated_logical_pages: int
    simulated_spare: float
    seconds: float
    user_writes_per_second: float
    page_writes_per_second: float
    config: SimConfig = field(default_factory=SimConfig)
    trimmed: int = 0
    method: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    time: TimeResult | None = None
    scheme_log: list[dict[str, Any]] = field(default_factory=list)
    interval: dict[str, Any] | None = None

    @classmethod
    def from_core(cls, d: Mapping[str, Any]) -> SimResult:
        """Builds a result from the engine's dict."""
        d = dict(d)
        if d.get("time") is not None:
            d["time"] = TimeResult.from_core(d["time"])
        d["config"] = SimConfig(**json.loads(d["config"]))
        series = dict(d["series"])
        windows = len(series["wa"])
        if len(series["cache_hit_ratio"]) != windows:
            # Without a cache there is no hit ratio in any window: NaN, as the scalar is.
            series["cache_hit_ratio"] = np.full(windows, np.nan)
        d["series"] = series
        return cls(**d)

    def frame(self) -> Any:
        """The time series as a pandas DataFrame: one row per window, with its index
        (``window_index``), its length in user writes (``window``) and every per-window metric.

        >>> r = simulate(segments=64, pages_per_segment=16, writes="3x", window=512)
        >>> f = r.frame()
        >>> len(f), list(f.columns[:3]), int(f["user_writes"].sum()) == r.user_writes
        (6, ['window_index', 'window', 'user_writes'], True)
        """
        import pandas as pd

        s = self.series
        windows = len(s["wa"])
        data: dict[str, Any] = {"window_index": np.arange(windows), "window": np.full(windows, int(s["window"]))}
        for name, arr in s.items():
            if name != "window":
                data[name] = np.asarray(arr)
        if self.time is not None:
            for name, arr in self.time.windows.items():
                if len(arr) == windows:
                    data[name] = arr
        return pd.DataFrame(data)

    def victim_valid_fractions(self) -> np.ndarray:
        """Victims by valid-page count as shares of all victims (zeros if none was collected)."""
        return _shares(self.victim_valid_histogram)

    def segment_valid_fractions(self) -> np.ndarray:
        """Sealed segments by valid-page count as shares, averaged over cleaning epochs (Van
        Houdt Fig. 3)."""
        return _shares(self.segment_valid_histogram)

    def __repr__(self) -> str:
        c = self.config
        what = ", ".join(f"{k}={v!r}" for k, v in (("policy", c.policy), ("placement", c.placement), ("workload", c.workload)) if v is not None)
        return (f"SimResult({what}, segments={self.simulated_segments:,}, spare={self.simulated_spare:.4g}, "
                f"user_writes={self.user_writes:,}, wa={self.wa:.4f})")

    def ran(self) -> dict[str, str | None]:
        """What was simulated, by the canonical specs: the victim ``policy``, the ``placement``
        (``single`` or ``double:…`` where ``frontier`` names it), the cleaner's trigger ``gc``
        and, for a trace, its ``method`` (``None`` otherwise).

        >>> simulate(segments=256, pages_per_segment=16, placement="dac", writes="2x").ran()
        {'policy': 'greedy:tie=random', 'placement': 'dac:levels=6', 'gc': 'frontier', 'method': None}
        """
        c = self.config
        return {"policy": c.policy, "placement": c.placement or c.frontier or "single", "gc": c.gc,
                "method": (self.method or {}).get("method")}

    def to_dict(self, arrays: bool = True) -> dict[str, Any]:
        """A JSON-ready dict: metric names as keys, arrays as lists (or left out), ``ran`` (see
        :meth:`ran`) and the configuration, without the ``frontier`` alias where a
        ``placement`` decided.

        Args:
            arrays: include the per-segment, histogram and time-series arrays.
        """
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                if arrays:
                    out[f.name] = v.tolist()
            elif f.name == "series":
                if arrays:
                    out[f.name] = {k: (a.tolist() if isinstance(a, np.ndarray) else a) for k, a in v.items()}
            elif f.name == "config":
                config = v.to_dict()
                if config.get("placement") is not None:
                    config.pop("frontier", None)  # an alias of `placement`: not what ran
                out[f.name] = config
                out["ran"] = self.ran()
            elif isinstance(v, float) and v != v:  # NaN is not JSON
                out[f.name] = None
            elif isinstance(v, TimeResult):
                out[f.name] = v.to_dict(arrays)
            else:
                out[f.name] = v
        return out


def _shares(counts: np.ndarray) -> np.ndarray:
    total = counts.sum()
    return counts / total if total > 0 else np.zeros(len(counts))


def _merge(config: SimConfig | Mapping[str, Any] | None, overrides: Mapping[str, Any]) -> dict[str, Any]:
    if config is None:
        base: dict[str, Any] = {}
    elif isinstance(config, SimConfig):
        base = config.to_dict()
    elif isinstance(config, Mapping):
        base = {k: v for k, v in config.items() if v is not None}
    else:
        raise TypeError(f"invalid type for `config`: {type(config).__name__} {config!r:.60} "
                        "(expected a SimConfig, a dict of parameters or None)")
    base.update({k: v for k, v in overrides.items() if v is not None})
    workload = base.pop("workload", None)
    base = checked(base)
    if workload is not None:
        base["workload"] = workload if isinstance(workload, str) else page_ids(workload)
    return base


def resolve_optimal_regions(params: Mapping[str, Any]) -> dict[str, Any]:
    """Replaces ``regions:spare=optimal`` by Theorem 5's cost-minimising shares b_c*.

    Li et al. §4–5.3: the written classes' write shares rᵢ, page shares fᵢ (of the written
    pages) and active share f_a, as the engine's workload reports them, go to
    :func:`reclaim.models.li.optimal_allocation` at the configuration's spare factor.

    >>> p = resolve_optimal_regions({"segments": 8192, "spare": 0.1, "workload":
    ...     "locality:fa=0.1,r=0.8/0.2,f=0.2/0.8", "placement": "regions:spare=optimal"})
    >>> p["placement"]  # Li et al. §5.3: b_c* = (0.432, 0.568)
    'regions:spare=0.4318/0.5682'
    """
    params = dict(params)
    placement = str(params.get("placement") or "").replace(" ", "")
    if not (placement.startswith("regions") and "spare=optimal" in placement):
        return params
    from reclaim.models import li

    info = _core.class_shares(json.dumps(params, allow_nan=False))
    geometry = info["geometry"]
    written = [c for c in info["classes"] if c["write_share"] > 0]
    active = sum(c["pages"] for c in written)
    logical = geometry["logical_pages"]
    physical = geometry["segments"] * geometry["pages_per_segment"]
    w = li.Workload(active / logical, tuple(c["write_share"] for c in written), tuple(c["pages"] / active for c in written))
    shares, _ = li.optimal_allocation(1.0, geometry["pages_per_segment"], 1.0 - logical / physical, w)
    rounded = [round(float(b), 4) for b in shares]
    rounded[-1] = round(1.0 - sum(rounded[:-1]), 4)
    params["placement"] = "regions:spare=" + "/".join(f"{b:.4f}" for b in rounded)
    return params


def region_layout(config: SimConfig | Mapping[str, Any] | None = None, **overrides: Any) -> list[dict[str, Any]]:
    """The regions of a ``regions`` placement: per class, its pages, write share, segments and
    spare factor Sᵢ = 1 − pages / (segments · b) (Li et al. §4). ``spare=optimal`` is resolved
    first, as :func:`simulate` does.

    >>> rs = region_layout(segments=8192, spare=0.1, workload="locality:fa=0.1,r=0.8/0.2,f=0.2/0.8",
    ...                    placement="regions:spare=optimal", gc="one-free")
    >>> [(r["pages"], r["segments"]) for r in rs]  # hot, cold, never written
    [(9437, 501), (37749, 1054), (424673, 6637)]
    """
    params = resolve_optimal_regions(_merge(config, overrides))
    placement = str(params.get("placement") or "")
    if not placement.replace(" ", "").startswith("regions"):
        raise ValueError(f"invalid value for `placement`: {placement!r} (expected a `regions:spare=…` placement)")
    info = _core.class_shares(json.dumps(params, allow_nan=False))
    pps = info["geometry"]["pages_per_segment"]
    return [
        {**c, "segments": q, "spare": 1.0 - c["pages"] / (q * pps)}
        for c, q in zip(info["classes"], info["region_quotas"])
    ]


def simulate(
    config: SimConfig | Mapping[str, Any] | None = None,
    *,
    progress: ProgressCallback | None = None,
    on_warning: Callable[[str], None] | None = None,
    **overrides: Any,
) -> SimResult:
    """Runs one simulation and returns the metrics of its measured phase.

    Args:
        config: A :class:`SimConfig`, a dict of the same names, or ``None`` for the defaults.
        progress: Called as ``progress(done, total)`` in user writes after every engine step.
        on_warning: Called with each warning known before the first write (the method's on this
            trace, a spare not as asked), so that it can be shown before a long run; the
            result's ``warnings`` hold them all.
        **overrides: Parameters replacing those of ``config`` (see :class:`SimConfig`).

    Returns:
        The :class:`SimResult` of the measured phase.

    Raises:
        ValueError: a parameter is unknown or out of range (the message names it).
        RuntimeError: the cleaner cannot free space (spare too small for the policy).

    >>> r = simulate(segments=256, pages_per_segment=32, spare=0.2, policy="fifo", writes="10x")
    >>> round(r.wa, 1)  # FIFO at fill 0.8: 1/E with E = 0.371 from Lomet & Luo eq. 4
    2.7
    """
    params = _merge(config, overrides)
    workload = params.get("workload")
    if workload is not None and not isinstance(workload, str):
        # A sequence of page ids: replay it as a trace of single-page writes.
        import tempfile

        from reclaim.traces import write_pages

        ids = page_ids(workload, "workload")
        if ids.size == 0:
            raise ValueError("invalid value for `workload`: an empty sequence of page ids (expected at least one page id, "
                             f"a whole number in [0, {MAX_PAGE_ID}])")
        with tempfile.TemporaryDirectory() as tmp:
            path = f"{tmp}/pages.rtr"
            write_pages(ids, path, source="page ids given to simulate()")
            try:
                return simulate({**params, "workload": f"trace:{path}"}, progress=progress, on_warning=on_warning)
            except (ValueError, RuntimeError) as e:
                # The temporary file is no name the caller knows: the message names the argument.
                shown = str(e).replace(f"trace:{path}", "the page ids given as `workload`").replace(path, "the page ids given as `workload`")
                raise type(e)(shown) from None
    params = resolve_optimal_regions(params)
    sim = _core.Simulator(json.dumps(params, allow_nan=False))
    if on_warning is not None:
        for w in sim.warnings():
            on_warning(w)
    more = True
    while more:
        more = sim.step(STEP_WRITES)
        if progress is not None:
            done, total = sim.progress()
            progress(done, total)
    return SimResult.from_core(sim.result())
