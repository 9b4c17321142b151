"""Experiment files: a base configuration, axes to sweep, replications and seeds (DESIGN
"Experiments, results, scale"), expanded to tasks keyed by a hash of their full configuration.

An experiment is a TOML file::

    name = "policies"                  # names the sweep in the results database
    replications = 3                   # seeds 1, 2, 3 (or: seeds = [7, 11])

    [base]                             # anything reclaim.simulate accepts
    segments = 2048
    writes = "10x"

    [axes]                             # the product of these
    policy = ["fifo", "greedy", "d-choices:d=10"]
    spare = { start = 0.05, stop = 0.25, step = 0.05 }   # stop included
    # also { start, stop, num } (evenly spaced) and { start, stop, num, log = true }

    [[zip]]                            # axes varied together, one axis of the product
    workload = ["uniform", "hotcold:r=0.8,f=0.2"]
    gc = ["frontier", "one-free"]

A trace is an axis value like any other (``workload = ["trace:a.rtr", "trace:b.rtr"]``); a relative
path is relative to the experiment file, and the task key includes a digest of the file, so a
trace that changes is a new task.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reclaim import _core
from reclaim.api import SimConfig, checked

#: Keys of an experiment file.
TOP_LEVEL = {"name", "description", "base", "axes", "zip", "replications", "seeds"}
#: Parameters an axis or the base may set (those of :class:`reclaim.SimConfig`).
PARAMETERS = tuple(SimConfig.__dataclass_fields__)
#: Largest expansion accepted before a single task runs (a typo in a range should not plan
#: a billion tasks), checked on the product of the axes before any task is made. Each task is
#: checked and canonicalised by the engine and hashed: 40-100 µs a task on a 2-core machine
#: (200,000 tasks planned in 10 s), so a plan at the cap takes about a minute, with a progress
#: bar, and a sweep's list of tasks about 1 GB (some 1 KB a task); 10 million took minutes and
#: gigabytes without a word.
MAX_TASKS = 1_000_000


def engine_version() -> str:
    """The package version and the digest of the engine's sources it was built from: results of
    one engine build are never mistaken for another's."""
    return f"{_core.__version__}+{_core.ENGINE_ID}"


@dataclass(frozen=True)
class Task:
    """One simulation of a sweep.

    Attributes:
        key: Hex digest of the canonical configuration and the engine version (the row's id).
        params: Parameters as given to :func:`reclaim.simulate` (base, axis values, seed).
        canonical: The engine's canonical configuration (every parameter resolved), as JSON.
        point: The axis values of this task, axis order kept (for reports and messages).
    """

    key: str
    params: dict[str, Any]
    canonical: str
    point: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """The task's axis values and seed, for messages."""
        shown = {**self.point, "seed": self.params.get("seed")}
        return ", ".join(f"{k}={v}" for k, v in shown.items())


@dataclass(frozen=True)
class Experiment:
    """A parsed experiment file."""

    name: str
    base: dict[str, Any]
    axes: list[tuple[tuple[str, ...], list[tuple[Any, ...]]]]
    seeds: list[int]
    path: Path | None = None
    description: str = ""

    @property
    def size(self) -> int:
        """Tasks in the expansion."""
        return math.prod(len(v) for _, v in self.axes) * len(self.seeds)

    def points(self) -> Iterable[dict[str, Any]]:
        """Every combination of axis values, the last axis varying fastest."""
        names = [n for names, _ in self.axes for n in names]
        for combo in itertools.product(*(values for _, values in self.axes)):
            yield dict(zip(names, itertools.chain.from_iterable(combo)))

    def tasks(self) -> list[Task]:
        """The tasks, in file order, seeds innermost; duplicates (two points that resolve to the
        same configuration) appear once."""
        return list(self.iter_tasks())

    def iter_tasks(self) -> Iterator[Task]:
        """The tasks of :meth:`tasks`, one at a time (for a count or a plan that keeps only
        their keys)."""
        version = engine_version()
        digests: dict[str, str] = {}
        seen: set[str] = set()
        for point in self.points():
            for seed in self.seeds:
                for params, at in _volume_points({**self.base, **point, "seed": seed}, point, self.path or self.name):
                    try:
                        task = make_task(params, version, digests, at)
                    except (ValueError, TypeError) as e:
                        shown = ", ".join(f"{k}={v}" for k, v in at.items()) or "the base configuration"
                        raise ExperimentError(f"{self.path or self.name}: the task {shown}: {e}") from None
                    if task.key not in seen:
                        seen.add(task.key)
                        yield task


def _volume_points(params: dict[str, Any], point: dict[str, Any], where: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """A point whose trace holds several volumes, with ``volume = "each"`` (or a folder of one
    trace per volume as its workload), as one point per volume with writes, each named by its
    ``volume``; any other point as it is."""
    workload = params.get("workload")
    trace = workload[len("trace:"):] if isinstance(workload, str) and workload.startswith("trace:") else None
    if trace is None or not (params.get("volume") == "each" or Path(trace).is_dir()):
        return [(params, point)]
    from reclaim.volumes import volume_runs

    try:
        runs = volume_runs(params)
    except (OSError, ValueError) as e:
        raise ExperimentError(f"{where}: {e}") from None
    return [(p, {**point, "volume": name}) for name, p in runs]


class ExperimentError(ValueError):
    """An experiment file that cannot be expanded; the message names the file and the key."""


def _where(path: Path | None, key: str) -> str:
    return f"{path}: `{key}`" if path else f"`{key}`"


def _range(spec: Mapping[str, Any], where: str) -> list[Any]:
    """The values of a range table: ``{start, stop, step}`` (stop included when a step lands on
    it), ``{start, stop, num}`` evenly spaced, ``log = true`` for geometric spacing."""
    unknown = set(spec) - {"start", "stop", "step", "num", "log"}
    if unknown:
        raise ExperimentError(f"{where}: unknown range key {sorted(unknown)[0]!r} (expected start, stop, and step or num; log optional)")
    try:
        start, stop = spec["start"], spec["stop"]
    except KeyError as e:
        raise ExperimentError(f"{where}: a range needs {e.args[0]!r} (expected {{start, stop, step}} or {{start, stop, num}})") from None
    for k in ("start", "stop", "step"):
        v = spec.get(k, 1)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ExperimentError(f"{where}: invalid value for `{k}`: {v!r} (expected a finite number)")
    integral = all(isinstance(spec.get(k, 1), int) for k in ("start", "stop", "step")) and "num" not in spec
    if ("step" in spec) == ("num" in spec):
        raise ExperimentError(f"{where}: give either `step` or `num`, not {'both' if 'step' in spec else 'neither'}")
    log = spec.get("log", False)
    if not isinstance(log, bool):
        raise ExperimentError(f"{where}: invalid value for `log`: {log!r} (expected true or false)")
    if "num" in spec:
        num = spec["num"]
        if isinstance(num, bool) or not isinstance(num, int) or not 1 <= num <= MAX_TASKS:
            raise ExperimentError(f"{where}: invalid value for `num`: {num!r} (expected a whole number in [1, {MAX_TASKS}])")
        if log:
            if start <= 0 or stop <= 0:
                raise ExperimentError(f"{where}: a log range needs start and stop > 0 (got {start}, {stop})")
            values = [start * (stop / start) ** (i / (num - 1)) if num > 1 else start for i in range(num)]
        else:
            values = [start + (stop - start) * i / (num - 1) if num > 1 else start for i in range(num)]
        return [_tidy(v) for v in values]
    step = spec["step"]
    if log:
        raise ExperimentError(f"{where}: `log` goes with `num`, not `step`")
    if step == 0 or (stop - start) / step < 0:
        raise ExperimentError(f"{where}: invalid value for `step`: {step!r} (expected a step from {start} towards {stop})")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > MAX_TASKS:
        raise ExperimentError(f"{where}: {count} values (expected at most {MAX_TASKS})")
    if integral:
        return list(range(start, stop + (1 if step > 0 else -1), step))
    return [_tidy(start + i * step) for i in range(count)]


def _tidy(x: float) -> float:
    """``x`` to 12 significant digits: 0.15, not 0.15000000000000002, in configs and keys."""
    return float(f"{x:.12g}")


def _values(raw: Any, where: str) -> list[Any]:
    if isinstance(raw, list):
        if not raw:
            raise ExperimentError(f"{where}: an axis needs at least one value")
        return raw
    if isinstance(raw, dict):
        return _range(raw, where)
    raise ExperimentError(f"{where}: invalid axis {raw!r} (expected a list of values or a range table {{start, stop, step|num}})")


def _parameter(name: str, where: str) -> None:
    if name not in PARAMETERS:
        raise ExperimentError(f"{where}: unknown parameter (expected one of {', '.join(PARAMETERS)})")
    if name == "seed":
        raise ExperimentError(f"{where}: seeds are set by `replications` or `seeds`, not as a parameter")


def parse(doc: Mapping[str, Any], path: Path | None = None, name: str | None = None) -> Experiment:
    """An experiment from a parsed TOML document (see the module's documentation)."""
    unknown = set(doc) - TOP_LEVEL
    if unknown:
        key = sorted(unknown)[0]
        raise ExperimentError(f"{_where(path, key)}: unknown key (expected {', '.join(sorted(TOP_LEVEL))})")
    base = doc.get("base", {})
    if not isinstance(base, dict):
        raise ExperimentError(f"{_where(path, 'base')}: expected a table of parameters")
    for k in base:
        _parameter(k, _where(path, f"base.{k}"))
    axes: list[tuple[tuple[str, ...], list[tuple[Any, ...]]]] = []
    given = doc.get("axes", {})
    if not isinstance(given, dict):
        raise ExperimentError(f"{_where(path, 'axes')}: expected a table of axes")
    used: set[str] = set()
    for k, raw in given.items():
        where = _where(path, f"axes.{k}")
        _parameter(k, where)
        used.add(k)
        axes.append(((k,), [(v,) for v in _values(raw, where)]))
    zips = doc.get("zip", [])
    if not isinstance(zips, list):
        raise ExperimentError(f"{_where(path, 'zip')}: expected [[zip]] tables of axes varied together")
    for i, group in enumerate(zips):
        if not isinstance(group, dict) or not group:
            raise ExperimentError(f"{_where(path, f'zip[{i}]')}: expected a table of axes of equal length")
        names, columns = [], []
        for k, raw in group.items():
            where = _where(path, f"zip[{i}].{k}")
            _parameter(k, where)
            if k in used:
                raise ExperimentError(f"{where}: the parameter is already an axis")
            used.add(k)
            names.append(k)
            columns.append(_values(raw, where))
        lengths = {len(c) for c in columns}
        if len(lengths) > 1:
            shown = ", ".join(f"{n}: {len(c)}" for n, c in zip(names, columns))
            raise ExperimentError(f"{_where(path, f'zip[{i}]')}: zipped axes need equal lengths ({shown})")
        axes.append((tuple(names), list(zip(*columns))))
    clash = used & set(base)
    if clash:
        raise ExperimentError(f"{_where(path, sorted(clash)[0])}: set both in [base] and as an axis")
    if "seeds" in doc and "replications" in doc:
        raise ExperimentError(f"{_where(path, 'seeds')}: give `seeds` or `replications`, not both")
    if "seeds" in doc:
        seeds = doc["seeds"]
        if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**64 for s in seeds):
            raise ExperimentError(f"{_where(path, 'seeds')}: invalid value {seeds!r} (expected a list of whole numbers in [0, 2^64))")
        if len(set(seeds)) != len(seeds):
            raise ExperimentError(f"{_where(path, 'seeds')}: a seed appears twice in {seeds}")
    else:
        n = doc.get("replications", 1)
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1_000_000:
            raise ExperimentError(f"{_where(path, 'replications')}: invalid value {n!r} (expected a whole number in [1, 1000000])")
        seeds = list(range(1, n + 1))
    exp_name = doc.get("name", name or (path.stem if path else "sweep"))
    if not isinstance(exp_name, str) or not exp_name.strip():
        raise ExperimentError(f"{_where(path, 'name')}: expected a non-empty string")
    exp = Experiment(name=exp_name, base=dict(base), axes=axes, seeds=seeds, path=path, description=str(doc.get("description", "")))
    if exp.size > MAX_TASKS:
        raise ExperimentError(f"{path or 'experiment'}: {exp.size:,} tasks (expected at most {MAX_TASKS:,}; split the sweep)")
    if path is not None:
        exp = _resolve_traces(exp, path.parent)
    return exp


def _resolve_traces(exp: Experiment, folder: Path) -> Experiment:
    """Relative ``trace:`` paths made relative to the experiment file's folder."""

    def fix(v: Any) -> Any:
        if isinstance(v, str) and v.startswith("trace:"):
            p = Path(v[len("trace:"):])
            return f"trace:{p if p.is_absolute() else (folder / p).resolve()}"
        return v

    base = {k: fix(v) for k, v in exp.base.items()}
    axes = [(names, [tuple(fix(v) for v in combo) for combo in values]) for names, values in exp.axes]
    return Experiment(name=exp.name, base=base, axes=axes, seeds=exp.seeds, path=exp.path, description=exp.description)


def load(path: str | Path) -> Experiment:
    """Reads an experiment file.

    Raises:
        ExperimentError: the file is not valid TOML or not a valid experiment (the message names
            the file, the key and what was expected).
    """
    p = Path(path)
    try:
        doc = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{p}: not valid TOML: {e}") from None
    except UnicodeDecodeError:
        raise ExperimentError(f"{p}: not a text file (expected an experiment in TOML)") from None
    return parse(doc, p)


def _trace_digest(workload: str, digests: dict[str, str]) -> str:
    path = workload[len("trace:"):]
    if path not in digests:
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except OSError as e:
            raise ExperimentError(f"invalid value for `workload`: {workload} ({e.strerror or e}; expected a readable trace file)") from None
        digests[path] = h.hexdigest()
    return digests[path]


def make_task(params: Mapping[str, Any], version: str | None = None, digests: dict[str, str] | None = None,
              point: Mapping[str, Any] | None = None) -> Task:
    """A task from parameters: checked and canonicalised by the engine, keyed by a SHA-256 of the
    canonical configuration, the engine version, and the content of any trace it replays.

    Raises:
        ValueError: a parameter is out of range (the engine's message, naming it).
    """
    version = version or engine_version()
    digests = {} if digests is None else digests
    params = checked(dict(params))
    canonical = _core.canonical_config(json.dumps(params, allow_nan=False))
    ident = {"config": json.loads(canonical), "engine": version}
    workload = params.get("workload")
    if isinstance(workload, str) and workload.startswith("trace:"):
        ident["trace_sha256"] = _trace_digest(workload, digests)
    key = hashlib.sha256(json.dumps(ident, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return Task(key=key, params=dict(params), canonical=canonical, point=dict(point or {}))
