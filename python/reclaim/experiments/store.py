"""The results database: one embedded DuckDB file per project or sweep (DESIGN "Experiments,
results, scale").

Tables:

- ``tasks``: one row per task that finished: ``key``, the canonical configuration as ``config``
  (JSON) and as one column per parameter, every metric of :class:`reclaim.SimResult` under its
  name, the victim and segment valid-page histograms as lists, how a trace was replayed
  (``replay_method``, ``working_set``, ``passes``, ``settled``, ``pass_wa``) and the run's
  ``warnings``, a timed run's latencies and throughput (:data:`TIME`, NULL without a device),
  and the provenance (``engine``, ``host``, ``started``, ``wall_seconds``).
- ``series``: the time series, one row per task and window (``key``, ``window_index``, ``window``,
  and the per-window metrics; a timed run's too, :data:`SERIES`).
- ``sweep_tasks``: which sweep holds which task, with the task's axis values (``point``, JSON);
  a task shared by two sweeps runs once and belongs to both.
- ``failures``: the last error of each task that failed and has not succeeded since.
- ``schema_version``: one row, the version of this layout (:data:`SCHEMA_VERSION`).

Configuration and results never share a column name: a parameter's column holds what was asked
for (``logical_pages``, often NULL), the result's ``simulated_*`` columns the geometry that was
simulated. A database written by an older layout is refused, with the command that migrates it
(:func:`migrate`, ``reclaim results migrate DB``).

A DuckDB file that holds another program's tables is named as such and left alone: a sweep adds
reclaim's tables beside them only when asked (``into_foreign``, ``reclaim sweep run
--into-foreign``), and never when one of them has a name of reclaim's. An empty DuckDB file is a
new database for a sweep and holds no results for a reader.

Queries (:func:`query`, :func:`frame`, :class:`Query`) read the database and nothing else: it is
opened read-only with DuckDB's external access off (no file read or written by SQL, no extension
installed or loaded, no other database attached) and its configuration locked, unless
``allow_files`` says otherwise.

DuckDB has one writer: only the coordinator of a sweep writes, in one transaction per batch of
results, so a task's row and its series are in the database together or not at all, and a sweep
killed at any moment loses at most the batch it was writing (which a rerun does again).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from reclaim.api import SimConfig, SimResult
from reclaim.device import LATENCY_FIELDS

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
    "simulated_segments": "BIGINT",
    "simulated_pages_per_segment": "BIGINT",
    "simulated_logical_pages": "BIGINT",
    "simulated_spare": "DOUBLE",
    "seconds": "DOUBLE",
    "user_writes_per_second": "DOUBLE",
    "page_writes_per_second": "DOUBLE",
    "trimmed": "BIGINT",
}
#: List-valued columns of a result.
ARRAYS: dict[str, str] = {
    "victim_valid_histogram": "BIGINT[]",
    "segment_valid_histogram": "BIGINT[]",
}
#: How a trace was replayed (:attr:`reclaim.SimResult.method`, NULL for a generated workload)
#: and the run's warnings.
REPLAY: dict[str, str] = {
    "replay_method": "VARCHAR",
    "working_set": "BIGINT",
    "passes": "DOUBLE",
    "settled": "BOOLEAN",
    "pass_wa": "DOUBLE[]",
    "warnings": "VARCHAR[]",
}
#: A timed run's measured phase on the device's clock (:attr:`reclaim.SimResult.time`, NULL
#: without a ``device``), named as :meth:`reclaim.device.TimeResult.scalars` names them: the JSON's
#: ``time.read_latency.p99`` is ``read_latency_p99`` [µs]; ``device_spec`` and ``arrivals_spec``
#: are what ran (the parameters' columns ``device`` and ``arrivals`` hold what was asked, NULL for
#: a default). A kind of request a run did not make has NULL latencies, not zeros.
TIME: dict[str, str] = {
    "device_spec": "VARCHAR",
    "arrivals_spec": "VARCHAR",
    "dies": "BIGINT",
    "read_requests": "BIGINT",
    "write_requests": "BIGINT",
    "read_pages": "BIGINT",
    "write_pages": "BIGINT",
    "span_us": "DOUBLE",
    "iops": "DOUBLE",
    "read_iops": "DOUBLE",
    "write_iops": "DOUBLE",
    "mb_per_s": "DOUBLE",
    **{f"{kind}_latency_{k}": "BIGINT" if k == "count" else "DOUBLE" for kind in ("read", "write") for k in LATENCY_FIELDS},
    "die_busy": "DOUBLE",
    "die_busy_max": "DOUBLE",
    "gc_busy": "DOUBLE",
}
#: Per-window series and their column types: the engine's (:attr:`reclaim.SimResult.series`),
#: then a timed run's (``TimeResult.windows``, NULL without a device).
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
    "requests": "BIGINT",
    "span_us": "DOUBLE",
    "iops": "DOUBLE",
    "mb_per_s": "DOUBLE",
    "read_mean": "DOUBLE",
    "read_p99": "DOUBLE",
    "write_mean": "DOUBLE",
    "write_p99": "DOUBLE",
    "die_busy": "DOUBLE",
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


#: The 95% interval by batch means of a run's ``precision`` metric, else of ``wa``
#: (:attr:`reclaim.SimResult.interval`); NULL with fewer than 20 whole windows measured.
INTERVAL: dict[str, str] = {
    "interval_metric": "VARCHAR",
    "interval_value": "DOUBLE",
    "interval_half_width": "DOUBLE",
    "interval_batches": "BIGINT",
    "interval_windows_per_batch": "BIGINT",
    "interval_lag1": "DOUBLE",
    "interval_reached": "BOOLEAN",
}

#: One column per parameter of :class:`reclaim.SimConfig` (new parameters become new columns).
CONFIG_COLUMNS: dict[str, str] = {f.name: _config_type(f.type) for f in dataclasses.fields(SimConfig)}

#: The layout of the database: 1 before the configuration and the results had names of their
#: own (``logical_pages`` was both, and the INSERT named it twice), 2 since.
SCHEMA_VERSION = 2


def task_columns() -> list[str]:
    """Every column of the ``tasks`` table, in order.

    Raises:
        RuntimeError: a name is both a parameter and a result (a bug in reclaim's own tables).

    >>> task_columns()[:3]
    ['key', 'config', 'segments']
    """
    names = ["key", "config", *CONFIG_COLUMNS, *METRICS, *ARRAYS, *REPLAY, *TIME, *INTERVAL, *PROVENANCE]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise RuntimeError(f"the results table names {', '.join(repeated)} twice (a parameter and a result may not share a name)")
    return names


class SchemaError(RuntimeError):
    """The database was written with another layout than this reclaim's."""


#: reclaim's tables, and the columns that make each one reclaim's.
OWN_TABLES: dict[str, set[str]] = {
    "tasks": {"key", "config", "user_writes", "wa"},
    "series": {"key", "window_index"},
    "sweep_tasks": {"sweep", "key", "point"},
    "failures": {"key", "sweep", "error"},
    "schema_version": {"version"},
    "legacy_segment_valid_fractions": {"key", "fractions"},
}


class ForeignDatabaseError(RuntimeError):
    """A DuckDB file that holds another program's tables."""


class EmptyDatabaseError(RuntimeError):
    """A DuckDB file without a table: no results yet."""


def _tables(con: Any) -> set[str]:
    return {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}


def _all_tables(con: Any) -> dict[str, set[str]]:
    """Every table and view of the database file (``schema.name`` outside ``main``) with its
    columns."""
    out: dict[str, set[str]] = {}
    rows = con.execute("SELECT table_schema, table_name, column_name FROM information_schema.columns "
                       "WHERE table_catalog = current_database()").fetchall()
    for schema, table, column in rows:
        out.setdefault(table if schema == "main" else f"{schema}.{table}", set()).add(column)
    return out


def _shown(names: Iterable[str], most: int = 8) -> str:
    names = sorted(names)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def ownership(con: Any) -> tuple[str, list[str]]:
    """Whose database this is: ``("empty", [])`` without a table, ``("reclaim", others)`` when it
    holds reclaim's tables (``others``: any other program's beside them), ``("foreign", tables)``
    when it holds only another program's tables or a table of reclaim's name that is not
    reclaim's."""
    tables = _all_tables(con)
    for name, need in OWN_TABLES.items():
        if name in tables and not need <= tables[name]:
            return "foreign", sorted(tables)
    others = sorted(set(tables) - set(OWN_TABLES))
    if "tasks" in tables:
        return "reclaim", others
    # No table, or only some of reclaim's (a creation cut short): no results yet.
    return ("empty", []) if not others else ("foreign", sorted(tables))


def _foreign(path: Path, tables: Sequence[str]) -> str:
    return f"not a reclaim results database: {path} has tables {_shown(tables)}"


def schema_version(con: Any) -> int | None:
    """The layout version of an open database: ``None`` when it is empty, 1 for a database
    written before versions were kept."""
    tables = _tables(con)
    if "schema_version" in tables:
        # fetchall, not fetchone: a result left unfinished blocks the connection's next query.
        (version,) = con.execute("SELECT max(version) FROM schema_version").fetchall()[0]
        return int(version) if version is not None else 1
    return 1 if "tasks" in tables else None


def _check_version(con: Any, path: Path) -> None:
    v = schema_version(con)
    if v is None or v == SCHEMA_VERSION:
        return
    if v < SCHEMA_VERSION:
        raise SchemaError(f"{path}: this results database has layout {v}, written by an older reclaim (this one reads layout "
                          f"{SCHEMA_VERSION}); run `reclaim results migrate {path}` to bring it up to date (every row is kept)")
    raise SchemaError(f"{path}: this results database has layout {v}, written by a newer reclaim (this one reads layout "
                      f"{SCHEMA_VERSION}); open it with that version")


#: DuckDB's settings for a query that reads the database and nothing else: no file read or
#: written by SQL (``COPY … TO``, ``read_csv``, ``ATTACH``), no extension installed or loaded, and
#: none of it undone by a ``SET`` in the query.
CONFINED: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,
}


def _connect(path: str | Path, read_only: bool = False, check: bool = True, confined: bool = False) -> Any:
    """Opens a results database. A reader (``read_only``) is refused an empty file and another
    program's database; ``check`` refuses a reclaim database of a layout this reclaim does not
    read; ``confined`` applies :data:`CONFINED`."""
    import duckdb

    p = Path(path)
    if read_only and not p.is_file():
        raise FileNotFoundError(f"{p}: no results database there (a sweep creates one: `reclaim sweep run`)")
    if p.is_file() and p.stat().st_size == 0:
        # A file of no byte (`touch`): DuckDB refuses to open it (a writer replaces it first).
        raise EmptyDatabaseError(f"no results in {p}: run `reclaim sweep run` first")
    try:
        con = duckdb.connect(str(p), read_only=read_only, config=dict(CONFINED) if confined else {})
    except duckdb.IOException as e:
        if "lock" in str(e).lower():
            raise RuntimeError(f"{p}: the results database is open for writing in another process "
                               "(a running sweep); wait for it or query a copy") from None
        raise RuntimeError(f"{p}: cannot open the results database: {_first_line(e)}") from None
    except duckdb.Error as e:
        raise RuntimeError(f"{p}: cannot open the results database: {_first_line(e)}") from None
    try:
        kind, tables = ownership(con)
        if read_only and kind == "empty":
            raise EmptyDatabaseError(f"no results in {p}: run `reclaim sweep run` first")
        if read_only and kind == "foreign":
            raise ForeignDatabaseError(_foreign(p, tables))
        # Another program's tables have no layout of reclaim's (the writer decides about them).
        if check and kind == "reclaim":
            _check_version(con, p)
    except BaseException:
        con.close()
        raise
    return con


#: What the system says of a failed write, as DuckDB's messages quote it.
_IO_CAUSES = re.compile(r"No space left on device|Permission denied|Read-only file system|No such file or directory|Is a directory|"
                        r"Disk quota exceeded|File too large|Input/output error")


def _io_cause(e: BaseException) -> str:
    """The system's reason in a DuckDB I/O error (``No space left on device``), else its first
    line."""
    m = _IO_CAUSES.search(str(e))
    return m.group(0) if m else _first_line(e)


def _first_line(e: BaseException) -> str:
    """DuckDB's message without the lines of context it adds."""
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


class WriteError(OSError):
    """The results database could not be written (a full disk, a file system gone read-only):
    what was committed before is kept."""


def _write_error(path: Path, e: BaseException, what: str) -> WriteError:
    text = _io_cause(e)
    if text in ("No space left on device", "Disk quota exceeded", "File too large"):
        cause = f"{text.lower()}: free some space on its disk and run again"
    elif text in ("Read-only file system", "Permission denied"):
        cause = f"{text.lower()}: give a --db where reclaim may write"
    else:
        cause = f"{text}; run again once the cause is fixed"
    return WriteError(f"{path}: cannot write the results database ({what}): {cause} "
                      "(every task written before is kept; a rerun runs only what is missing)")


class ResultStore:
    """A results database, opened for writing by one coordinator.

    Args:
        path: The DuckDB file (created if missing; an empty file is a new database).
        into_foreign: Add reclaim's tables to a file that holds another program's tables (none
            of theirs may have a name of reclaim's).

    Raises:
        ForeignDatabaseError: the file holds another program's tables and ``into_foreign`` is
            not given, or one of them has a name of reclaim's.
        WriteError: the file cannot be written (a full disk).
    """

    def __init__(self, path: str | Path, into_foreign: bool = False) -> None:
        import duckdb

        self.path = Path(path)
        self.broken = False
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True)
        if self.path.is_file() and self.path.stat().st_size == 0:
            # A file of no byte (`touch`) holds nothing to lose; DuckDB would refuse to open it.
            self.path.unlink()
        self.con = _connect(self.path)
        try:
            kind, tables = ownership(self.con)
            if kind == "foreign":
                clash = sorted(set(tables) & set(OWN_TABLES))
                if clash:
                    raise ForeignDatabaseError(f"{_foreign(self.path, tables)}; its table {clash[0]} is not reclaim's, so "
                                               "reclaim's tables cannot go beside it: choose another --db")
                if not into_foreign:
                    raise ForeignDatabaseError(f"{_foreign(self.path, tables)}; choose another --db, or add reclaim's "
                                               "tables beside them with `reclaim sweep run --into-foreign`")
            self._schema()
        except duckdb.Error as e:
            self.broken = True
            self.close()
            raise _write_error(self.path, e, "creating its tables") from None
        except BaseException:
            self.close()
            raise

    def _schema(self) -> None:
        c = self.con
        c.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
        if c.execute("SELECT count(*) FROM schema_version").fetchall()[0][0] == 0:
            c.execute("INSERT INTO schema_version VALUES ($1)", [SCHEMA_VERSION])
        c.execute("CREATE TABLE IF NOT EXISTS tasks (key VARCHAR PRIMARY KEY, config JSON)")
        have = {r[0] for r in c.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'tasks'").fetchall()}
        # A column added since the database was made (a new parameter, the timed run's metrics)
        # is NULL for the rows written before it.
        for name, kind in {**CONFIG_COLUMNS, **METRICS, **ARRAYS, **REPLAY, **TIME, **INTERVAL, **PROVENANCE}.items():
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
        import duckdb

        self.con.register("new_members", table)
        try:
            self.con.execute("INSERT INTO sweep_tasks SELECT sweep, key, point::JSON FROM new_members ON CONFLICT DO NOTHING")
        except duckdb.Error as e:
            self.broken = True
            raise _write_error(self.path, e, f"the {len(rows)} tasks of {sweep} not registered") from None
        finally:
            self.con.unregister("new_members")

    def write(self, rows: Sequence[Mapping[str, Any]], failures: Sequence[Mapping[str, Any]] = ()) -> None:
        """Writes finished tasks (rows from :func:`row`) and failures in one transaction."""
        if not rows and not failures:
            return
        import duckdb

        c = self.con
        try:
            self._write(c, rows, failures)
        except duckdb.Error as e:
            # DuckDB ends the transaction itself when its commit fails: the cause is the commit's.
            self.broken = True
            raise _write_error(self.path, e, f"{len(rows)} task rows and {len(failures)} failures not written") from None

    def _write(self, c: Any, rows: Sequence[Mapping[str, Any]], failures: Sequence[Mapping[str, Any]]) -> None:
        import duckdb
        import pyarrow as pa

        c.execute("BEGIN TRANSACTION")
        try:
            if rows:
                names = task_columns()
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
                    # Columns named: a database made before a column existed has it at the end.
                    cols = ", ".join(map(_q, snames))
                    c.execute(f"INSERT INTO series ({cols}) SELECT {cols} FROM new_series ON CONFLICT DO NOTHING")
                    c.unregister("new_series")
                keys = [r["task"]["key"] for r in rows]
                c.execute("DELETE FROM failures WHERE key IN (SELECT unnest($1))", [keys])
            for f in failures:
                c.execute("INSERT OR REPLACE INTO failures VALUES ($1, $2, $3::JSON, $4::JSON, $5, $6, $7)",
                          [f["key"], f["sweep"], f["config"], json.dumps(f["point"], default=str), f["error"], f["host"], f["at"]])
            c.execute("COMMIT")
        except BaseException:
            try:
                c.execute("ROLLBACK")
            except duckdb.Error:
                pass  # a failed COMMIT has ended the transaction already
            raise

    def close(self) -> None:
        """Closes the database; after a failed write, whatever closing raises too is left unsaid
        (the write's error is the one that names the cause)."""
        import duckdb

        try:
            self.con.close()
        except duckdb.Error as e:
            if not self.broken:
                raise _write_error(self.path, e, "closing it") from None

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
        "VARCHAR[]": pa.list_(pa.string()),
        "TIMESTAMP WITH TIME ZONE": pa.timestamp("us", tz="UTC"),
        "INTEGER": pa.int32(),
        "JSON": pa.string(),
    }[kind]


def _arrow_schema(names: Sequence[str], series: bool = False) -> Any:
    import pyarrow as pa

    types = {"key": "VARCHAR", "config": "JSON", "window_index": "INTEGER", "window": "BIGINT"}
    types.update(SERIES if series else {**CONFIG_COLUMNS, **METRICS, **ARRAYS, **REPLAY, **TIME, **INTERVAL, **PROVENANCE})
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
    if task.get("placement") is not None:
        # `frontier` is an alias of `placement`: beside a placement it is only its unused
        # default, which would contradict what ran (`single` beside `dac`).
        task["frontier"] = None
    for name in METRICS:
        task[name] = _finite(getattr(result, name))
    task["victim_valid_histogram"] = [int(x) for x in result.victim_valid_histogram]
    task["segment_valid_histogram"] = [int(x) for x in result.segment_valid_histogram]
    m = result.method or {}
    task["replay_method"] = m.get("method")
    task["working_set"] = m.get("working_set")
    task["passes"] = m.get("passes")
    task["settled"] = m.get("settled")
    task["pass_wa"] = [_finite(float(x)) for x in m.get("pass_wa") or []] or None
    task["warnings"] = list(result.warnings) or None
    task.update(_time_columns(result))
    iv = result.interval or {}
    task.update({name: _finite(iv.get(name.removeprefix("interval_"))) for name in INTERVAL})
    task.update(provenance)
    s = dict(result.series)
    n = len(s.get("wa", []))
    if result.time is not None:
        # A timed run's windows are the engine's (windows of user writes), or with reads alone,
        # where the engine has none, windows of reads: their rows hold the clock's columns only.
        timed = {k: v for k, v in result.time.windows.items() if len(v) == n or n == 0}
        n = max([n, *map(len, timed.values())])
        s.update(timed)
        # A kind of request the run did not make has no latency in any window (NULL, not 0).
        for kind, made in (("read", result.time.read_requests), ("write", result.time.write_requests)):
            if not made:
                s.pop(f"{kind}_mean", None)
                s.pop(f"{kind}_p99", None)
    window = s.get("window")
    series = []
    for i in range(n):
        item: dict[str, Any] = {"key": key, "window_index": i, "window": int(window) if window is not None else None}
        for name in SERIES:
            arr = s.get(name)
            item[name] = _finite(arr[i].item()) if arr is not None and len(arr) > i else None
        series.append(item)
    return {"task": task, "series": series}


def _time_columns(result: SimResult) -> dict[str, Any]:
    """The :data:`TIME` columns of a result: NULL without a device, and a latency of a kind of
    request the run did not make (no reads) NULL rather than 0."""
    if result.time is None:
        return dict.fromkeys(TIME)
    scalars = result.time.scalars()
    out = {name: _finite(scalars[name]) for name in TIME}
    for kind in ("read", "write"):
        if not out[f"{kind}_latency_count"]:
            out.update({f"{kind}_latency_{k}": None for k in LATENCY_FIELDS if k != "count"})
    return out


def migrate(path: str | Path) -> str:
    """Brings a results database written by an older reclaim to :data:`SCHEMA_VERSION`, in one
    transaction; returns what was done. Every row is kept.

    Layout 1 → 2: the result's ``logical_pages`` (the geometry simulated; layout 1 had no column
    for the requested value) becomes ``simulated_logical_pages``; ``logical_pages`` is the
    requested value again, read from each row's ``config``; ``simulated_pages_per_segment`` is
    read from the victim histogram's length, ``simulated_segments`` from the configuration where
    it names them, ``simulated_spare`` follows where both are known (no page sizes);
    ``segment_valid_histogram`` held shares, not counts: they move to the table
    ``legacy_segment_valid_fractions`` (``key``, ``fractions``) and the column is NULL for those rows.
    """
    import duckdb

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no results database there")
    con = _connect(p, check=False)
    try:
        kind, tables = ownership(con)
        if kind == "empty":
            raise EmptyDatabaseError(f"no results in {p}: run `reclaim sweep run` first")
        if kind == "foreign":
            raise ForeignDatabaseError(_foreign(p, tables))
        v = schema_version(con)
        if v is None or v == SCHEMA_VERSION:
            return f"{p}: layout {SCHEMA_VERSION} already; nothing to do"
        if v > SCHEMA_VERSION:
            _check_version(con, p)
        con.execute("BEGIN TRANSACTION")
        try:
            cols = {r[0]: r[1] for r in con.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'tasks'").fetchall()}
            n = con.execute("SELECT count(*) FROM tasks").fetchall()[0][0]
            if "logical_pages" in cols and "simulated_logical_pages" not in cols:
                con.execute('ALTER TABLE tasks RENAME COLUMN logical_pages TO simulated_logical_pages')
            con.execute('ALTER TABLE tasks ADD COLUMN IF NOT EXISTS logical_pages BIGINT')
            con.execute("UPDATE tasks SET logical_pages = TRY_CAST(json_extract_string(config, '$.logical_pages') AS BIGINT)")
            for name in ("simulated_segments", "simulated_pages_per_segment"):
                con.execute(f"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS {name} BIGINT")
            con.execute("ALTER TABLE tasks ADD COLUMN IF NOT EXISTS simulated_spare DOUBLE")
            con.execute("UPDATE tasks SET simulated_pages_per_segment = len(victim_valid_histogram) - 1 WHERE victim_valid_histogram IS NOT NULL")
            con.execute("UPDATE tasks SET simulated_segments = TRY_CAST(json_extract_string(config, '$.segments') AS BIGINT)")
            con.execute("UPDATE tasks SET simulated_spare = 1 - simulated_logical_pages / (simulated_segments * simulated_pages_per_segment) "
                        "WHERE simulated_segments IS NOT NULL AND json_extract_string(config, '$.sizes') IS NULL")
            moved = 0
            if cols.get("segment_valid_histogram", "").startswith("DOUBLE"):
                con.execute("CREATE TABLE IF NOT EXISTS legacy_segment_valid_fractions (key VARCHAR PRIMARY KEY, fractions DOUBLE[])")
                con.execute("INSERT INTO legacy_segment_valid_fractions SELECT key, segment_valid_histogram FROM tasks "
                            "WHERE segment_valid_histogram IS NOT NULL ON CONFLICT DO NOTHING")
                moved = con.execute("SELECT count(*) FROM legacy_segment_valid_fractions").fetchall()[0][0]
                con.execute("ALTER TABLE tasks DROP COLUMN segment_valid_histogram")
                con.execute("ALTER TABLE tasks ADD COLUMN segment_valid_histogram BIGINT[]")
            con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
            con.execute("DELETE FROM schema_version")
            con.execute("INSERT INTO schema_version VALUES ($1)", [SCHEMA_VERSION])
            con.execute("COMMIT")
        except duckdb.Error as e:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass  # a failed COMMIT has ended the transaction already
            raise RuntimeError(f"{p}: cannot migrate it: {_first_line(e)} (one transaction: the database is as it was)") from None
        except BaseException:
            con.execute("ROLLBACK")
            raise
    finally:
        con.close()
    # The writer adds whatever columns the current layout has beyond these.
    ResultStore(p).close()
    return (f"{p}: layout {v} → {SCHEMA_VERSION}: {n} task rows kept; `logical_pages` is now the requested value and "
            f"`simulated_logical_pages` the simulated one; {moved} rows' segment_valid_histogram shares moved to "
            "legacy_segment_valid_fractions (the counts were not stored)")


#: What an empty query is told.
_EMPTY = ("invalid value for `sql`: an empty query (expected a statement, e.g. "
          "\"SELECT policy, spare, avg(wa) FROM tasks GROUP BY ALL\")")


def _interruptible(con: Any, work: Callable[[], Any]) -> Any:
    """``work()``, a DuckDB call on ``con``, run beside the main thread so that a stop signal is
    taken at once: DuckDB checks for one only in some operators (a join's aggregate ran 25 s past
    SIGINT and SIGTERM), so the main thread waits, and on the signal interrupts the query and
    lets the signal's exception go on."""
    import threading

    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = work()
        except BaseException as e:  # handed to the caller
            out["error"] = e

    t = threading.Thread(target=run, name="duckdb-query", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.05)
    except BaseException:
        con.interrupt()
        t.join(5.0)
        raise
    if "error" in out:
        raise out["error"]
    return out.get("value")


def _refuse_empty(sql: str) -> None:
    if not sql.strip().strip(";").strip():
        raise ValueError(_EMPTY)


def _sql_error(e: BaseException) -> ValueError:
    text = str(e).strip()
    if "file system operations are disabled" in text or "external extensions is disabled" in text or "configuration has been locked" in text:
        return ValueError(f"invalid value for `sql`: {_first_line(e)} (a query reads the results database only; "
                          "`--allow-files` lets it read and write files, attach databases and load extensions)")
    return ValueError(f"invalid value for `sql`: {text}")


class Query:
    """A query's rows as they come, never all in memory at once; a context manager.

    >>> import tempfile, os
    >>> db = os.path.join(tempfile.mkdtemp(), "r.duckdb")
    >>> ResultStore(db).close()
    >>> with Query(db, "SELECT * FROM range(1000000) t(n)") as q:
    ...     q.columns, next(q.batches(2)), q.count_rest(10)
    (['n'], [(0,), (1,)], (999998, True))

    Args:
        path: The results database (opened read-only).
        sql: One or more statements (DuckDB); the rows are the last one's.
        allow_files: Let the query read and write files, attach databases and load extensions
            (DuckDB's external access).

    Raises:
        ValueError: the SQL is empty or not valid for this database (DuckDB's message), or it
            reaches outside the database without ``allow_files``.
        RuntimeError: the file is empty or another program's database.
    """

    def __init__(self, path: str | Path, sql: str, allow_files: bool = False) -> None:
        import duckdb

        _refuse_empty(sql)
        self.con = _connect(path, read_only=True, confined=not allow_files)
        try:
            # A DB-API result streams: its rows are made as they are fetched.
            self._result = _interruptible(self.con, lambda: self.con.execute(sql))
            if self._result is None:  # comments only: no statement
                raise ValueError(_EMPTY)
            described = self._result.description if self._result is not None else None
            self.columns: list[str] = [d[0] for d in described] if described else []
        except duckdb.Error as e:
            self.con.close()
            raise _sql_error(e) from None
        except BaseException:
            self.con.close()
            raise
        if not self.columns:
            self._result = None

    def _fetch(self, size: int) -> list[tuple[Any, ...]]:
        import duckdb

        if self._result is None:
            return []
        try:
            result = self._result
            return list(_interruptible(self.con, lambda: result.fetchmany(size)))
        except duckdb.Error as e:
            raise _sql_error(e) from None
        except (OverflowError, ValueError) as e:
            # A value DuckDB holds that Python's types do not (a date before year 1).
            raise ValueError(f"invalid value for `sql`: a value of its result has no Python form ({e}); "
                             "cast that column to VARCHAR in the query") from None

    def batches(self, size: int = 2048) -> Iterator[list[tuple[Any, ...]]]:
        """The rows not yet read, in lists of ``size`` (the last one shorter)."""
        while batch := self._fetch(size):
            yield batch

    def count_rest(self, seconds: float) -> tuple[int, bool]:
        """The rows not yet read, read and dropped for at most ``seconds`` (some 7 million rows
        a second); whether the count reached the end."""
        start = time.monotonic()
        n = 0
        while batch := self._fetch(1 << 16):
            n += len(batch)
            if time.monotonic() - start > seconds:
                return n, False
        return n, True

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Query:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def query(path: str | Path, sql: str, allow_files: bool = False) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Runs ``sql`` on the database read-only; returns column names and every row.

    Args:
        path: The results database.
        sql: The query (DuckDB).
        allow_files: Let the query reach outside the database (see :class:`Query`).

    Raises:
        ValueError: the SQL is empty or not valid for this database (DuckDB's message).
        RuntimeError: the file is empty or another program's database.
    """
    import duckdb

    _refuse_empty(sql)
    con = _connect(path, read_only=True, confined=not allow_files)
    try:
        result = con.execute(sql)
        if result is None:  # comments only: no statement
            raise ValueError(_EMPTY)
        return [d[0] for d in result.description or []], result.fetchall() if result.description else []
    except duckdb.Error as e:
        raise _sql_error(e) from None
    finally:
        con.close()


def done_keys(path: str | Path) -> set[str]:
    """Keys of the tasks a database holds: none for a file that does not exist or is empty.

    Raises:
        RuntimeError: the file is another program's database or of another layout.
    """
    p = Path(path)
    if not p.is_file():
        return set()
    try:
        con = _connect(p, read_only=True, confined=True)
    except EmptyDatabaseError:
        return set()
    try:
        if "tasks" not in _tables(con):
            return set()
        return {r[0] for r in con.execute("SELECT key FROM tasks").fetchall()}
    finally:
        con.close()


def frame(path: str | Path, sql: str = "SELECT * FROM tasks", kind: str = "pandas", allow_files: bool = False) -> Any:
    """A query's result as a pandas (``kind="pandas"``) or polars (``"polars"``, if installed)
    data frame, e.g. ``frame("results/reclaim.duckdb", "SELECT policy, spare, avg(wa) FROM tasks
    GROUP BY ALL")``; ``allow_files`` as for :class:`Query`."""
    if kind not in ("pandas", "polars"):
        raise ValueError(f"invalid value for `kind`: {kind!r} (expected 'pandas' or 'polars')")
    import duckdb

    _refuse_empty(sql)
    con = _connect(path, read_only=True, confined=not allow_files)
    try:
        rel = con.sql(sql)
        if rel is None:
            raise ValueError(f"invalid value for `sql`: {sql!r} returns no rows (expected a query such as SELECT … FROM tasks)")
        # Through Arrow: DuckDB's own pandas conversion warns under pandas 3.
        table = rel.to_arrow_table()
        if kind == "pandas":
            return table.to_pandas()
        import polars

        return polars.from_arrow(table)
    except duckdb.Error as e:
        raise _sql_error(e) from None
    finally:
        con.close()


def export(path: str | Path, out: str | Path, fmt: str, table: str = "tasks") -> int:
    """Writes a table (``tasks``, ``series``, ``sweep_tasks`` or ``failures``) to Parquet or CSV;
    returns the rows written."""
    if fmt not in ("parquet", "csv"):
        raise ValueError(f"invalid value for `format`: {fmt!r} (expected parquet or csv)")
    if table not in ("tasks", "series", "sweep_tasks", "failures"):
        raise ValueError(f"invalid value for `table`: {table!r} (expected tasks, series, sweep_tasks or failures)")
    import duckdb

    con = _connect(path, read_only=True)
    try:
        n = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
        target = str(Path(out)).replace("'", "''")
        try:
            con.execute(f"COPY {table} TO '{target}' (FORMAT {fmt.upper()})")
        except duckdb.Error as e:
            # A file cut short is not left to be read as if whole.
            if Path(out).is_file():
                Path(out).unlink(missing_ok=True)
            raise OSError(f"{out}: cannot write the export: {_io_cause(e)}") from None
        return int(n)
    finally:
        con.close()
