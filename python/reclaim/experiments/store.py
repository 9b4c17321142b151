"""The results database: one embedded DuckDB file per project or sweep (DESIGN "Experiments,
results, scale").

Tables:

- ``tasks``: one row per task that finished: ``key``, the canonical configuration as ``config``
  (JSON) and as one column per parameter, every metric of :class:`reclaim.SimResult` under its
  name, the victim and segment valid-page histograms as lists, and the provenance (``engine``,
  ``host``, ``started``, ``wall_seconds``).
- ``series``: the time series, one row per task and window (``key``, ``window_index``, ``window``,
  and the per-window metrics).
- ``sweep_tasks``: which sweep holds which task, with the task's axis values (``point``, JSON);
  a task shared by two sweeps runs once and belongs to both.
- ``failures``: the last error of each task that failed and has not succeeded since.

DuckDB has one writer: only the coordinator of a sweep writes, in one transaction per batch of
results, so a task's row and its series are in the database together or not at all, and a sweep
killed at any moment loses at most the batch it was writing (which a rerun does again).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reclaim.api import SimConfig, SimResult

#: Scalar metrics of a result, with their column types.
METRICS: dict[str, str] = {
    "user_writes": "BIGINT",
    "gc_writes": "BIGINT",
    "erases": "BIGINT",
    "wa": "DOUBLE",
    "wamp": "DOUBLE",
    "cleaning_cost": "BIGINT",
    "emptiness_at_clean": "DOUBLE",
    "gcu": "DOUBLE",
    "collected": "BIGINT",
    "emptied": "BIGINT",
    "work_rd_live": "DOUBLE",
    "work_rd_all": "DOUBLE",
    "wear_leveling_index": "DOUBLE",
    "cache_hit_ratio": "DOUBLE",
    "logical_pages": "BIGINT",
    "seconds": "DOUBLE",
    "user_writes_per_second": "DOUBLE",
    "page_writes_per_second": "DOUBLE",
}
#: List-valued columns of a result.
ARRAYS: dict[str, str] = {
    "victim_valid_histogram": "BIGINT[]",
    "segment_valid_histogram": "DOUBLE[]",
}
#: Per-window series and their column types.
SERIES: dict[str, str] = {
    "user_writes": "BIGINT",
    "gc_writes": "BIGINT",
    "erases": "BIGINT",
    "wa": "DOUBLE",
    "cache_hit_ratio": "DOUBLE",
    "collected": "BIGINT",
    "emptied": "BIGINT",
    "gcu": "DOUBLE",
    "work_rd_live": "DOUBLE",
    "work_rd_all": "DOUBLE",
}
#: Provenance of a row.
PROVENANCE: dict[str, str] = {
    "engine": "VARCHAR",
    "host": "VARCHAR",
    "started": "TIMESTAMP WITH TIME ZONE",
    "wall_seconds": "DOUBLE",
}


def _config_type(annotation: Any) -> str:
    text = str(annotation)
    if "list[int]" in text:
        return "BIGINT[]"
    if text.startswith("bool"):
        return "BOOLEAN"
    if text.startswith("int"):
        return "BIGINT"
    if text.startswith("float"):
        return "DOUBLE"
    return "VARCHAR"


#: One column per parameter of :class:`reclaim.SimConfig` (new parameters become new columns).
CONFIG_COLUMNS: dict[str, str] = {f.name: _config_type(f.type) for f in dataclasses.fields(SimConfig)}


def _connect(path: str | Path, read_only: bool = False) -> Any:
    import duckdb

    p = Path(path)
    if read_only and not p.is_file():
        raise FileNotFoundError(f"{p}: no results database there (a sweep creates one: `reclaim sweep run`)")
    try:
        return duckdb.connect(str(p), read_only=read_only)
    except duckdb.IOException as e:
        if "lock" in str(e).lower():
            raise RuntimeError(f"{p}: the results database is open for writing in another process "
                               "(a running sweep); wait for it or query a copy") from None
        raise RuntimeError(f"{p}: cannot open the results database: {e}") from None


class ResultStore:
    """A results database, opened for writing by one coordinator."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True)
        self.con = _connect(self.path)
        self._schema()

    def _schema(self) -> None:
        c = self.con
        c.execute("CREATE TABLE IF NOT EXISTS tasks (key VARCHAR PRIMARY KEY, config JSON)")
        have = {r[0] for r in c.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'tasks'").fetchall()}
        for name, kind in {**CONFIG_COLUMNS, **METRICS, **ARRAYS, **PROVENANCE}.items():
            if name not in have:
                c.execute(f'ALTER TABLE tasks ADD COLUMN "{name}" {kind}')
        cols = ", ".join(f'"{k}" {v}' for k, v in SERIES.items())
        c.execute(f"CREATE TABLE IF NOT EXISTS series (key VARCHAR, window_index INTEGER, \"window\" BIGINT, {cols}, PRIMARY KEY (key, window_index))")
        have = {r[0] for r in c.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'series'").fetchall()}
        for name, kind in SERIES.items():
            if name not in have:
                c.execute(f'ALTER TABLE series ADD COLUMN "{name}" {kind}')
        c.execute("CREATE TABLE IF NOT EXISTS sweep_tasks (sweep VARCHAR, key VARCHAR, point JSON, PRIMARY KEY (sweep, key))")
        c.execute("CREATE TABLE IF NOT EXISTS failures (key VARCHAR PRIMARY KEY, sweep VARCHAR, config JSON, point JSON, error VARCHAR, "
                  "host VARCHAR, failed_at TIMESTAMP WITH TIME ZONE)")

    def done(self) -> set[str]:
        """Keys of the tasks in the database."""
        return {r[0] for r in self.con.execute("SELECT key FROM tasks").fetchall()}

    def register(self, sweep: str, members: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        """Records which tasks (key, axis values) belong to ``sweep``."""
        rows = [(sweep, key, json.dumps(point, sort_keys=False, default=str)) for key, point in members]
        if not rows:
            return
        import pyarrow as pa

        table = pa.table({"sweep": [r[0] for r in rows], "key": [r[1] for r in rows], "point": [r[2] for r in rows]})
        self.con.register("new_members", table)
        try:
            self.con.execute("INSERT INTO sweep_tasks SELECT sweep, key, point::JSON FROM new_members ON CONFLICT DO NOTHING")
        finally:
            self.con.unregister("new_members")

    def write(self, rows: Sequence[Mapping[str, Any]], failures: Sequence[Mapping[str, Any]] = ()) -> None:
        """Writes finished tasks (rows from :func:`row`) and failures in one transaction."""
        if not rows and not failures:
            return
        import pyarrow as pa

        c = self.con
        c.execute("BEGIN TRANSACTION")
        try:
            if rows:
                names = ["key", "config", *CONFIG_COLUMNS, *METRICS, *ARRAYS, *PROVENANCE]
                table = pa.table({n: [r["task"].get(n) for r in rows] for n in names}, schema=_arrow_schema(names))
                c.register("new_tasks", table)
                casts = ", ".join("config::JSON" if n == "config" else _q(n) for n in names)
                c.execute(f"INSERT INTO tasks ({', '.join(map(_q, names))}) SELECT {casts} FROM new_tasks ON CONFLICT DO NOTHING")
                c.unregister("new_tasks")
                series = [s for r in rows for s in r["series"]]
                if series:
                    snames = ["key", "window_index", "window", *SERIES]
                    stable = pa.table({n: [s.get(n) for s in series] for n in snames}, schema=_arrow_schema(snames, series=True))
                    c.register("new_series", stable)
                    c.execute(f"INSERT INTO series SELECT {', '.join(map(_q, snames))} FROM new_series ON CONFLICT DO NOTHING")
                    c.unregister("new_series")
                keys = [r["task"]["key"] for r in rows]
                c.execute("DELETE FROM failures WHERE key IN (SELECT unnest($1))", [keys])
            for f in failures:
                c.execute("INSERT OR REPLACE INTO failures VALUES ($1, $2, $3::JSON, $4::JSON, $5, $6, $7)",
                          [f["key"], f["sweep"], f["config"], json.dumps(f["point"], default=str), f["error"], f["host"], f["at"]])
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _q(name: str) -> str:
    """A column name quoted for SQL (``window`` and others are keywords)."""
    return f'"{name}"'


def _arrow_type(kind: str) -> Any:
    import pyarrow as pa

    return {
        "BIGINT": pa.int64(),
        "DOUBLE": pa.float64(),
        "VARCHAR": pa.string(),
        "BOOLEAN": pa.bool_(),
        "BIGINT[]": pa.list_(pa.int64()),
        "DOUBLE[]": pa.list_(pa.float64()),
        "TIMESTAMP WITH TIME ZONE": pa.timestamp("us", tz="UTC"),
        "INTEGER": pa.int32(),
        "JSON": pa.string(),
    }[kind]


def _arrow_schema(names: Sequence[str], series: bool = False) -> Any:
    import pyarrow as pa

    types = {"key": "VARCHAR", "config": "JSON", "window_index": "INTEGER", "window": "BIGINT"}
    types.update(SERIES if series else {**CONFIG_COLUMNS, **METRICS, **ARRAYS, **PROVENANCE})
    return pa.schema([(n, _arrow_type(types[n])) for n in names])


def _finite(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def row(key: str, canonical: str, result: SimResult, provenance: Mapping[str, Any]) -> dict[str, Any]:
    """The database rows of a finished task: ``{"task": {...}, "series": [{...}, ...]}``. NaN
    metrics (a cache hit ratio without a cache) are stored as NULL."""
    config = json.loads(canonical)
    task: dict[str, Any] = {"key": key, "config": canonical}
    for name, kind in CONFIG_COLUMNS.items():
        v = config.get(name)
        task[name] = str(v) if (kind == "VARCHAR" and v is not None) else v
    for name in METRICS:
        task[name] = _finite(getattr(result, name))
    task["victim_valid_histogram"] = [int(x) for x in result.victim_valid_histogram]
    task["segment_valid_histogram"] = [float(x) for x in result.segment_valid_histogram]
    task.update(provenance)
    s = result.series
    n = len(s.get("wa", []))
    window = s.get("window")
    series = []
    for i in range(n):
        item: dict[str, Any] = {"key": key, "window_index": i, "window": int(window) if window is not None else None}
        for name in SERIES:
            arr = s.get(name)
            item[name] = _finite(arr[i].item()) if arr is not None and len(arr) > i else None
        series.append(item)
    return {"task": task, "series": series}


def query(path: str | Path, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Runs ``sql`` on the database read-only; returns column names and rows.

    Raises:
        ValueError: the SQL is not valid for this database (DuckDB's message).
    """
    import duckdb

    con = _connect(path, read_only=True)
    try:
        rel = con.execute(sql)
        cols = [d[0] for d in rel.description] if rel.description else []
        return cols, rel.fetchall()
    except duckdb.Error as e:
        raise ValueError(f"invalid value for `sql`: {e}") from None
    finally:
        con.close()


def frame(path: str | Path, sql: str = "SELECT * FROM tasks", kind: str = "pandas") -> Any:
    """A query's result as a pandas (``kind="pandas"``) or polars (``"polars"``, if installed)
    data frame, e.g. ``frame("results/reclaim.duckdb", "SELECT policy, spare, avg(wa) FROM tasks
    GROUP BY ALL")``."""
    if kind not in ("pandas", "polars"):
        raise ValueError(f"invalid value for `kind`: {kind!r} (expected 'pandas' or 'polars')")
    import duckdb

    con = _connect(path, read_only=True)
    try:
        # Through Arrow: DuckDB's own pandas conversion warns under pandas 3.
        table = con.sql(sql).to_arrow_table()
        if kind == "pandas":
            return table.to_pandas()
        import polars

        return polars.from_arrow(table)
    except duckdb.Error as e:
        raise ValueError(f"invalid value for `sql`: {e}") from None
    finally:
        con.close()


def export(path: str | Path, out: str | Path, fmt: str, table: str = "tasks") -> int:
    """Writes a table (``tasks``, ``series``, ``sweep_tasks`` or ``failures``) to Parquet or CSV;
    returns the rows written."""
    if fmt not in ("parquet", "csv"):
        raise ValueError(f"invalid value for `format`: {fmt!r} (expected parquet or csv)")
    if table not in ("tasks", "series", "sweep_tasks", "failures"):
        raise ValueError(f"invalid value for `table`: {table!r} (expected tasks, series, sweep_tasks or failures)")
    con = _connect(path, read_only=True)
    try:
        n = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        target = str(Path(out)).replace("'", "''")
        con.execute(f"COPY {table} TO '{target}' (FORMAT {fmt.upper()})")
        return int(n)
    finally:
        con.close()
