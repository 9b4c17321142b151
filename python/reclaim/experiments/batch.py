"""Simulations of a reproduction or a validation, through the results database: each
configuration is a task, the tasks not yet in the database run in parallel (local processes),
and every result is read back from the database, so a second run only prints.

>>> from reclaim.experiments.batch import results
>>> rs = results([{"segments": 64, "pages_per_segment": 32, "spare": 0.25, "policy": "fifo", "writes": "20x"}], sweep="doc")
>>> round(rs[0].wa, 1)  # FIFO at fill 0.75: 1/E with E from Lomet & Luo eq. 4 (2.20)
2.2
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reclaim.api import SimConfig
from reclaim.experiments.spec import Task, engine_version, make_task
from reclaim.experiments.store import SERIES, ResultStore, query
from reclaim.experiments.sweep import SweepReport, execute, local_executor

#: A metrics row: the ``tasks`` columns as attributes (``r.wa``, ``r.cleaning_cost``, …).
Metrics = types.SimpleNamespace


def _tasks(configs: Sequence[SimConfig | Mapping[str, Any]]) -> list[Task]:
    version = engine_version()
    digests: dict[str, str] = {}
    out = []
    for c in configs:
        params = c.to_dict() if isinstance(c, SimConfig) else {k: v for k, v in c.items() if v is not None}
        out.append(make_task(params, version, digests, point=params))
    return out


def results(configs: Sequence[SimConfig | Mapping[str, Any]], *, sweep: str, db: str | Path | None = None, workers: int | None = None,
            on_progress: Callable[[int, int], None] | None = None, series: bool = False) -> list[Metrics]:
    """The metrics of each configuration, in order.

    Args:
        configs: Simulation configurations.
        sweep: The name they are recorded under in the database (``reproduce:lomet-table1``).
        db: The results database; ``None`` runs every task and keeps nothing.
        workers: Local worker processes (one per core by default).
        on_progress: Called as ``(done, total)`` as tasks finish.
        series: Also give each row its time series, ``r.series``: a dict of per-window lists
            named as the ``series`` table's columns, in window order.

    Raises:
        RuntimeError: a task failed (the message names its configuration); the others are kept.
    """
    tasks = _tasks(configs)
    by_key = {t.key: t for t in tasks}
    unique = list(by_key.values())
    report = SweepReport(tasks=len(unique))
    failures: list[tuple[Task, str]] = []

    def progress(done: int, failed: int, total: int) -> None:
        if on_progress:
            on_progress(done, total)

    def failure(task: Task, error: str) -> None:
        failures.append((task, error))

    windows: dict[str, list[dict[str, Any]]] = {}
    if db is None:
        rows: dict[str, dict[str, Any]] = {}
        run = local_executor(workers)
        done = 0
        for out in run([[t] for t in unique]):
            for r in out:
                done += 1
                if r["ok"]:
                    rows[r["key"]] = r["row"]["task"]
                    windows[r["key"]] = r["row"]["series"]
                else:
                    failures.append((by_key[r["key"]], r["error"]))
            progress(done, len(failures), len(unique))
    else:
        with ResultStore(db) as store:
            store.register(sweep, [(t.key, t.point) for t in unique])
            have = store.done()
            todo = [t for t in unique if t.key not in have]
            if on_progress:
                on_progress(len(unique) - len(todo), len(unique))
            if todo:
                before = len(unique) - len(todo)
                execute(store, todo, {t.key: sweep for t in todo}, report, workers=workers,
                        on_progress=lambda d, f, n: progress(before + d, f, len(unique)), on_failure=failure)
        keys = [t.key for t in unique]
        # Keys are hex digests: safe inside the statement.
        listed = ", ".join(f"'{k}'" for k in keys)
        cols, found = query(db, f"SELECT * EXCLUDE (config) FROM tasks WHERE key IN ({listed})")
        rows = {r[0]: dict(zip(cols, r)) for r in found}
        if series:
            scols, srows = query(db, f"SELECT * FROM series WHERE key IN ({listed}) ORDER BY key, window_index")
            for w in srows:
                windows.setdefault(w[0], []).append(dict(zip(scols, w)))
    if failures:
        task, error = failures[0]
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        # The run as the command that repeats it, not a dump of its canonical configuration.
        options = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in task.params.items() if v is not None)
        raise RuntimeError(f"a simulation of {sweep} failed{more}: {error} (reclaim simulate {options})")
    if not series:
        return [Metrics(**rows[t.key]) for t in tasks]
    return [Metrics(**rows[t.key], series={n: [w[n] for w in windows.get(t.key, [])] for n in SERIES}) for t in tasks]


class MissingResults(LookupError):
    """A read-only reading (:func:`stored`) found a configuration the database does not hold."""


def _matched(point: Mapping[str, Any]) -> str:
    """A task's point as :func:`stored` compares it: its JSON as the store records it, keys in
    order, a replayed trace by its file name (the same trace, reached from another folder)."""
    p = json.loads(json.dumps(dict(point), default=str))
    w = p.get("workload")
    if isinstance(w, str) and w.startswith("trace:"):
        p["workload"] = "trace:" + Path(w[len("trace:"):]).name
    return json.dumps(p, sort_keys=True)


def stored(configs: Sequence[SimConfig | Mapping[str, Any]], *, sweep: str, db: str | Path, series: bool = False) -> list[Metrics]:
    """The metrics of each configuration as :func:`results` gives them, read from ``db`` without
    running anything: each is the task of ``sweep`` recorded with the same parameters (by any
    engine build; where several builds ran it, the latest run). Neither the engine nor a
    replayed trace is consulted, so a report reads a database made elsewhere or before a rebuild.

    Args:
        configs: Simulation configurations.
        sweep: The sweep they were recorded under (``reproduce:li-greedy:quick``).
        db: The results database (opened read-only).
        series: Also give each row its time series, as :func:`results` does.

    Raises:
        MissingResults: a configuration has no finished task in the sweep (the message says how
            many and names the first as a ``reclaim simulate`` command).
        FileNotFoundError: ``db`` does not exist.
    """
    from reclaim.experiments.store import _connect

    params = [c.to_dict() if isinstance(c, SimConfig) else {k: v for k, v in c.items() if v is not None} for c in configs]
    con = _connect(db, read_only=True)
    try:
        have = {r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'tasks'").fetchall()}
        # The latest run of each point last, so that it wins (a database older than the column: by key).
        order = "t.started NULLS FIRST, t.key" if "started" in have else "t.key"
        found = con.execute(f"SELECT s.point, t.key FROM sweep_tasks s JOIN tasks t USING (key) WHERE s.sweep = $1 ORDER BY {order}",
                            [sweep]).fetchall()
        by_point = {_matched(json.loads(p)): k for p, k in found}
        keys = [by_point.get(_matched(p)) for p in params]
        missing = [p for p, k in zip(params, keys, strict=True) if k is None]
        if missing:
            options = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in missing[0].items())
            raise MissingResults(f"{db}: {len(missing)} of the {len(params)} runs of {sweep} are not in the database, "
                                 f"e.g. reclaim simulate {options}")
        listed = ", ".join(f"'{k}'" for k in dict.fromkeys(keys))
        cur = con.execute(f"SELECT * EXCLUDE (config) FROM tasks WHERE key IN ({listed})")
        cols = [d[0] for d in cur.description or []]
        rows = {r[0]: dict(zip(cols, r, strict=True)) for r in cur.fetchall()}
        windows: dict[str, list[dict[str, Any]]] = {}
        if series:
            cur = con.execute(f"SELECT * FROM series WHERE key IN ({listed}) ORDER BY key, window_index")
            scols = [d[0] for d in cur.description or []]
            for w in cur.fetchall():
                windows.setdefault(w[0], []).append(dict(zip(scols, w, strict=True)))
    finally:
        con.close()
    if not series:
        return [Metrics(**rows[k]) for k in keys if k is not None]
    return [Metrics(**rows[k], series={n: [w[n] for w in windows.get(k, [])] for n in SERIES}) for k in keys if k is not None]


__all__ = ["Metrics", "MissingResults", "results", "stored"]
