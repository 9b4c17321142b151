"""Every volume of a trace as a device of its own, and the overall write amplification.

Real trace sets (Alibaba, Tencent, MSR) hold one log per volume. A run of each volume on its own
device, with the configuration's other parameters, gives each volume's metrics; the overall write
amplification is the sum of all writes over the sum of user writes, (ΣU + ΣG) / ΣU, as SepBIT
(Wang et al., FAST '22) reports it over a trace set.

The volumes come from a converted trace of several (``reclaim trace convert`` keeps each
request's device) or from a folder of one converted trace per volume (``reclaim trace convert
--volumes``, listed in its ``volumes.json``).

>>> import tempfile
>>> from pathlib import Path
>>> from reclaim import traces
>>> with tempfile.TemporaryDirectory() as d:
...     _ = Path(d, "t.csv").write_text("".join(f"{i},h,{i % 2},Write,{4096 * (i % 500)},4096,1\\n" for i in range(20_000)))
...     _ = traces.convert(f"{d}/t.csv", "msr", f"{d}/t.rtr")
...     r = simulate_volumes(workload=f"trace:{d}/t.rtr", pages_per_segment=8, workers=1)
>>> sorted(r.volumes), r.user_writes
(['h_0', 'h_1'], 20000)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reclaim import parallel
from reclaim.api import SimConfig, SimResult, _merge, simulate
from reclaim.traces import MAGIC, VOLUME_INDEX, volume_files


def header(path: str | Path) -> dict[str, Any]:
    """The header of a converted trace, read without its arrays.

    Raises:
        ValueError: the file is not a converted trace.
    """
    with open(path, "rb") as f:
        head = f.read(16)
        if len(head) < 16 or head[:8] != MAGIC:
            raise ValueError(f"invalid value for `workload`: {path} (expected a converted trace, starting with RCLMTRC1)")
        n = int.from_bytes(head[8:], "little")
        try:
            meta: dict[str, Any] = json.loads(f.read(n))
        except ValueError as e:
            raise ValueError(f"invalid value for `workload`: {path} (expected a converted trace: its header is not JSON: {e})") from None
    return meta


def idle_volumes(params: Mapping[str, Any]) -> list[str]:
    """The volumes of the trace of ``params`` that only read (nothing to replay)."""
    path = Path(str(params.get("workload", ""))[len("trace:"):])
    if path.is_dir():
        return [str(n) for n in json.loads((path / VOLUME_INDEX).read_text()).get("idle", [])]
    return [str(v["name"]) for v in header(path).get("volumes") or [] if v["writes"] == 0]


def volume_runs(params: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The runs of ``params`` one volume each: (volume, parameters), in the trace's order.

    ``volume`` unset or ``each``: every volume with writes; a name: that one. The workload is a
    converted trace of several volumes or a folder of one per volume.

    Raises:
        ValueError: the workload is not a trace, or ``volume`` names none of its volumes.
    """
    workload = params.get("workload")
    if not (isinstance(workload, str) and workload.startswith("trace:")):
        raise ValueError(f"invalid value for `workload`: {workload!r} (expected `trace:PATH` to run its volumes)")
    path = Path(workload[len("trace:"):])
    chosen = params.get("volume")
    base = {k: v for k, v in params.items() if k != "volume"}
    if path.is_dir():
        runs = [(name, {**base, "workload": f"trace:{file}"}) for name, file in volume_files(path)]
        idle: list[str] = []
    else:
        listed = header(path).get("volumes") or [{"name": "", "writes": 1}]
        # A volume that only reads has nothing to replay (`trace stats` still lists it).
        names = [str(v["name"]) for v in listed if v["writes"] > 0]
        idle = [str(v["name"]) for v in listed if v["writes"] == 0]
        runs = [(name, {**base, "volume": name} if len(listed) > 1 else dict(base)) for name in names]
    if chosen not in (None, "each"):
        picked = [r for r in runs if r[0] == chosen]
        if chosen in idle:
            raise ValueError(f"invalid value for `volume`: `{chosen}` (expected a volume with writes: {path} has only reads of it)")
        if not picked:
            shown = ", ".join(f"`{n}`" for n, _ in runs[:20]) + (", …" if len(runs) > 20 else "")
            raise ValueError(f"invalid value for `volume`: `{chosen}` (expected one of the {len(runs)} volumes of "
                             f"{path}: {shown}, or `each`)")
        return picked
    return runs


@dataclass(frozen=True)
class VolumeResults:
    """The runs of a trace's volumes, each on a device of its own.

    Attributes:
        volumes: Each volume's result, by name, in the trace's order.
        user_writes: ΣU over the volumes.
        gc_writes: ΣG over the volumes.
        wa: The overall write amplification (ΣU + ΣG) / ΣU (SepBIT's over a trace set).
        config: The configuration the volumes share.
        idle: The volumes that only read, not run (nothing to replay).
        off_spare: The volumes that ran at another spare factor than the one asked: too small
            to fill whole segments at it (each result's ``simulated_spare`` says which, its
            ``method["spare_as_asked"]`` is false and its ``warnings`` say why).
    """

    volumes: dict[str, SimResult]
    user_writes: int
    gc_writes: int
    wa: float
    config: SimConfig
    idle: list[str]
    off_spare: list[str] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """The volumes' warnings, one line for each kind naming the volumes it concerns
        (:func:`group_warnings`); each volume's result keeps its own, with its figures."""
        return group_warnings({n: r.warnings for n, r in self.volumes.items()})

    def to_dict(self, arrays: bool = False) -> dict[str, Any]:
        """A JSON-ready dict: the overall metrics, the shared configuration, the warnings grouped
        by kind and one entry per volume (with its own warnings)."""
        return {"user_writes": self.user_writes, "gc_writes": self.gc_writes, "wa": self.wa,
                "config": self.config.to_dict(), "idle_volumes": self.idle, "volumes_off_spare": self.off_spare,
                "ran": next(iter(self.volumes.values())).ran() if self.volumes else None,
                "warnings": self.warnings,
                "volumes": [{"volume": n, **r.to_dict(arrays=arrays)} for n, r in self.volumes.items()]}


#: A figure in a warning: a count (with thousands separators), a decimal or a number with an
#: exponent, standing alone (digits in a word or a path, `fill+10x` or `vol_2.rtr`, are text).
_FIGURE = re.compile(r"(?<![\w./-])-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?(?![\w/])")


def group_warnings(by_volume: Mapping[str, Sequence[str]], names: int = 20) -> list[str]:
    """The warnings of several volumes, one line for each kind of warning (its text with its
    figures left out) naming the volumes it concerns, in the volumes' order; a figure that differs
    between them is given as its range. A volume's own warnings keep its figures.

    Args:
        by_volume: Each volume's warnings, by name, in the trace's order.
        names: Volumes named at most in a line; the others are counted. A kind of warning
            that concerns every volume, more than three, says so instead of naming them.

    >>> group_warnings({"a": ["the trace is replayed 2.00 times and 100.0% of its pages ..."],
    ...                 "b": ["the trace is replayed 2.00 times and 82.0% of its pages ..."], "c": []})
    ['volumes a, b: the trace is replayed 2.00 times and 82.0–100.0% of its pages ...']
    >>> group_warnings({str(v): ["x"] for v in range(16)})
    ['all 16 volumes: x']
    """
    kinds: dict[str, tuple[str, list[str], list[list[str]]]] = {}
    for volume, warnings in by_volume.items():
        for w in dict.fromkeys(warnings):
            kind = _FIGURE.sub("#", w)
            _, volumes, figures = kinds.setdefault(kind, (w, [], []))
            volumes.append(volume)
            figures.append(_FIGURE.findall(w))
    lines = []
    for first, volumes, figures in kinds.values():
        shown = []
        for values in zip(*figures):
            ordered = sorted(set(values), key=lambda v: float(v.replace(",", "")))
            shown.append(ordered[0] if len(ordered) == 1 else f"{ordered[0]}–{ordered[-1]}")
        parts = _FIGURE.split(first)
        text = parts[0] + "".join(f + p for f, p in zip(shown, parts[1:]))
        if len(volumes) == 1:
            who = f"volume {volumes[0]}"
        elif len(volumes) == len(by_volume) and len(volumes) > 3:
            who = f"all {len(volumes):,} volumes"
        elif len(volumes) <= names:
            who = "volumes " + ", ".join(volumes)
        else:
            who = f"{len(volumes):,} volumes ({', '.join(volumes[:names])} and {len(volumes) - names:,} more)"
        lines.append(f"{who}: {text}")
    return lines


def _run(params: dict[str, Any]) -> SimResult:
    return simulate(params)


def simulate_volumes(
    config: SimConfig | Mapping[str, Any] | None = None,
    *,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    **overrides: Any,
) -> VolumeResults:
    """Runs every volume of a trace (or the one ``volume`` names) on a device of its own, on
    ``workers`` processes (one per core by default).

    Args:
        config: A :class:`SimConfig` or a dict; its workload a trace of several volumes or a
            folder of one per volume.
        workers: Worker processes.
        progress: Called as ``progress(volumes done, volumes)``.
        **overrides: Parameters replacing those of ``config``.

    Raises:
        ValueError: a parameter is out of range, or the workload has no such volume.
    """
    params = _merge(config, overrides)
    runs = volume_runs(params)
    results: list[SimResult | None] = [None] * len(runs)
    items = [p for _, p in runs]
    done = 0
    if len(items) == 1 or workers == 1:
        pairs: Any = ((i, _run(p)) for i, p in enumerate(items))
    else:
        pairs = parallel.imap(_run, items, workers)
    for i, r in pairs:
        results[i] = r
        done += 1
        if progress is not None:
            progress(done, len(items))
    by_name = {name: r for (name, _), r in zip(runs, results) if r is not None}
    u = sum(r.user_writes for r in by_name.values())
    g = sum(r.gc_writes for r in by_name.values())
    shared = SimConfig(**{k: v for k, v in params.items() if k != "volume"})
    off = [name for name, r in by_name.items() if (r.method or {}).get("spare_as_asked") is False]
    return VolumeResults(volumes=by_name, user_writes=u, gc_writes=g, wa=(u + g) / u if u else float("nan"), config=shared,
                         idle=[] if params.get("volume") not in (None, "each") else idle_volumes(params), off_spare=off)
