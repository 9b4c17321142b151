"""The results database at its edges: another program's DuckDB file, an empty one, a query that
reaches outside the database or returns a hundred million rows, a plan of many tasks, a full disk,
an output that cannot be written, a scheduler that is not Dask's (docs/experiments.md)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import duckdb
import pytest
from reclaim.cli import app
from reclaim.experiments import ForeignDatabaseError, ResultStore, WriteError, load, plan, query, run
from reclaim.experiments import store as store_mod
from reclaim.experiments import sweep as sweep_mod
from reclaim.experiments.spec import MAX_TASKS
from typer.testing import CliRunner

runner = CliRunner()
RECLAIM = [sys.executable, "-m", "reclaim.cli"]
#: A geometry whose runs take a few milliseconds.
SMALL = {"segments": 16, "pages_per_segment": 16, "spare": 0.25, "warmup": "fill", "writes": "2x"}


def experiment(folder: Path, tasks: int, name: str = "small") -> Path:
    """``tasks`` replications of a base that runs in milliseconds."""
    base = "\n".join(f"{k} = {json.dumps(v)}" for k, v in SMALL.items())
    p = folder / f"{name}.toml"
    p.write_text(f'name = "{name}"\nreplications = {tasks}\n[base]\n{base}\n')
    return p


def foreign_db(path: Path, **tables: str) -> Path:
    """A DuckDB file of another program: ``name="columns"`` per table, one row each."""
    con = duckdb.connect(str(path))
    for name, columns in (tables or {"x": "a INTEGER", "y": "b VARCHAR"}).items():
        con.execute(f"CREATE TABLE {name} ({columns})")
        con.execute(f"INSERT INTO {name} DEFAULT VALUES")
    con.close()
    return path


def empty_db(path: Path) -> Path:
    duckdb.connect(str(path)).close()
    return path


def tables_of(path: Path) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return sorted(r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall())
    finally:
        con.close()


def said(res: Any) -> str:
    """A command's output on one line (the console wraps long messages)."""
    return " ".join(res.output.split())


# Databases that are reclaim's, and only reclaim's.


def test_another_programs_database_is_named_and_left_alone(tmp_path):
    db = foreign_db(tmp_path / "other.duckdb")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    expected = f"not a reclaim results database: {db} has tables x, y"
    for args in (["results", "query", str(db), "SELECT 1"], ["report", str(db), "-o", str(tmp_path / "r.html")],
                 ["results", "export", str(db), "--csv", str(tmp_path / "t.csv")], ["results", "migrate", str(db)],
                 ["sweep", "plan", str(experiment(tmp_path, 2)), "--db", str(db), "--no-calibrate"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert expected in said(res), (args, res.output)
        assert "migrate" not in said(res).replace("results migrate", "") or args[1] == "migrate"
        assert "older" not in res.output and "layout" not in res.output
    res = runner.invoke(app, ["sweep", "run", str(experiment(tmp_path, 2)), "--db", str(db)])
    assert res.exit_code == 2 and expected in said(res) and "--into-foreign" in said(res)
    # Nothing was added to the other program's file, not a byte changed.
    assert tables_of(db) == ["x", "y"]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_into_foreign_adds_reclaims_tables_beside_the_others(tmp_path):
    db = foreign_db(tmp_path / "other.duckdb")
    res = runner.invoke(app, ["sweep", "run", str(experiment(tmp_path, 2)), "--db", str(db), "--into-foreign", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert tables_of(db) == ["failures", "schema_version", "series", "sweep_tasks", "tasks", "x", "y"]
    # The other program's rows are as they were (one row each, from foreign_db); reclaim reads its own.
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM x").fetchall() == [(1,)]
    con.close()
    assert query(db, "SELECT count(*) FROM tasks")[1] == [(2,)]
    res = runner.invoke(app, ["report", str(db), "-o", str(tmp_path / "r.html")])
    assert res.exit_code == 0 and "2 tasks in 1 sweep(s)" in said(res)
    # A second run needs no flag: the file holds reclaim's tables now.
    again = run([load(tmp_path / "small.toml")], db, workers=1)
    assert (again.already_done, again.ran) == (2, 0)


def test_a_foreign_table_with_a_name_of_reclaims_is_never_taken_for_an_older_layout(tmp_path):
    # Another program's `tasks` table (no key, no config): not reclaim's layout 1 to migrate.
    db = foreign_db(tmp_path / "jobs.duckdb", tasks="id INTEGER, title VARCHAR")
    res = runner.invoke(app, ["results", "query", str(db), "SELECT 1"])
    assert res.exit_code == 2 and f"not a reclaim results database: {db} has tables tasks" in said(res)
    assert "migrate" not in res.output
    res = runner.invoke(app, ["sweep", "run", str(experiment(tmp_path, 1)), "--db", str(db), "--into-foreign"])
    assert res.exit_code == 2 and "its table tasks is not reclaim's" in said(res)
    con = duckdb.connect(str(db), read_only=True)
    cols = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'tasks'").fetchall()]
    con.close()
    assert cols == ["id", "title"]
    with pytest.raises(ForeignDatabaseError):
        ResultStore(db, into_foreign=True)
    # Nor is a `tasks` table of a key and a config alone (no metric): migrating it failed half-way
    # on a missing column, an internal error.
    db = foreign_db(tmp_path / "keys.duckdb", tasks="key VARCHAR, config JSON")
    res = runner.invoke(app, ["results", "migrate", str(db)])
    assert res.exit_code == 2 and f"not a reclaim results database: {db} has tables tasks" in said(res)


@pytest.mark.parametrize("kind", ["no table", "no byte"])
def test_an_empty_duckdb_file_is_a_new_database_for_a_sweep_and_no_results_for_a_reader(tmp_path, kind):
    db = empty_db(tmp_path / "new.duckdb") if kind == "no table" else tmp_path / "new.duckdb"
    if kind == "no byte":
        db.touch()  # DuckDB itself refuses such a file: "not a valid DuckDB database file"
    for args in (["results", "query", str(db), "SELECT 1"], ["report", str(db), "-o", str(tmp_path / "r.html")],
                 ["results", "export", str(db), "--parquet", str(tmp_path / "t.parquet")]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert f"no results in {db}: run `reclaim sweep run` first" in said(res), (args, res.output)
    res = runner.invoke(app, ["sweep", "plan", str(experiment(tmp_path, 3)), "--db", str(db), "--json", "--no-calibrate"])
    assert res.exit_code == 0 and (json.loads(res.stdout)["tasks"], json.loads(res.stdout)["done"]) == (3, 0)
    res = runner.invoke(app, ["sweep", "run", str(tmp_path / "small.toml"), "--db", str(db), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert query(db, "SELECT count(*) FROM tasks")[1] == [(3,)]


# `results query`: read-only, bounded.


@pytest.fixture(scope="module")
def results_db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("results")
    db = folder / "r.duckdb"
    report = run([load(experiment(folder, 120))], db, workers=2)
    assert report.ran == 120
    return db


@pytest.mark.parametrize("sql", [
    "SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM read_text('{secret}')",
    "COPY (SELECT key FROM tasks) TO '{target}'",
    "ATTACH '{target}' AS other",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "RESET lock_configuration",
])
def test_a_query_reads_the_database_and_nothing_else(results_db, tmp_path, sql):
    secret = tmp_path / "secret.csv"
    secret.write_text("a,b\n1,2\n")
    target = tmp_path / "out.csv"
    res = runner.invoke(app, ["results", "query", str(results_db), sql.format(secret=secret, target=target)])
    assert res.exit_code == 2, res.output
    assert "invalid value for `sql`" in said(res) and "--allow-files" in said(res)
    assert not target.exists()


def test_allow_files_lets_a_query_read_and_write_files(results_db, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("a,b\n1,2\n")
    res = runner.invoke(app, ["results", "query", str(results_db), f"SELECT a + b FROM read_csv('{secret}')", "--json", "--allow-files"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [{"(a + b)": 3}]  # 1 + 2 from the file above
    target = tmp_path / "keys.csv"
    res = runner.invoke(app, ["results", "query", str(results_db), f"COPY (SELECT key FROM tasks) TO '{target}'", "--allow-files"])
    assert res.exit_code == 0, res.output
    assert len(target.read_text().splitlines()) == 1 + 120  # a header and the 120 tasks of results_db


@pytest.mark.parametrize("sql", ["", "   ", " ; ", ";;", "/* a comment, no statement */"])
def test_an_empty_query_is_named(results_db, sql):
    res = runner.invoke(app, ["results", "query", str(results_db), sql])
    assert res.exit_code == 2, res.output
    assert "invalid value for `sql`: an empty query" in said(res)
    assert "internal error" not in res.output


def test_a_query_prints_its_first_rows_and_counts_the_rest(results_db):
    res = runner.invoke(app, ["results", "query", str(results_db), "SELECT seed FROM tasks ORDER BY seed"])
    assert res.exit_code == 0, res.output
    # The default limit, 50 of the 120 rows: seeds 1 … 50 shown, 70 more counted.
    assert [int(x) for x in res.stdout.split() if x.isdigit()] == list(range(1, 51))
    assert "70 more rows not shown" in said(res)
    res = runner.invoke(app, ["results", "query", str(results_db), "SELECT seed FROM tasks ORDER BY seed", "--json", "--limit", "3"])
    assert res.exit_code == 0 and json.loads(res.stdout) == [{"seed": 1}, {"seed": 2}, {"seed": 3}]
    assert "117 more rows" in res.stderr
    res = runner.invoke(app, ["results", "query", str(results_db), "SELECT seed FROM tasks ORDER BY seed", "--csv", "--limit", "0"])
    assert res.exit_code == 0 and res.stdout.split() == ["seed", *map(str, range(1, 121))]
    assert "more rows" not in res.output
    res = runner.invoke(app, ["results", "query", str(results_db), "SELECT seed FROM tasks", "--limit", "0"])
    assert res.exit_code == 2 and "invalid value for `limit`: 0" in said(res)
    res = runner.invoke(app, ["results", "query", str(results_db), "SELECT 1 WHERE false", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == []


#: Runs the command line, then prints its peak resident memory [KiB] on stderr's last line.
PEAK = ("import resource, runpy, sys\n"
        "sys.argv = ['reclaim', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('reclaim.cli', run_name='__main__')\n"
        "finally:\n    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")


def test_a_query_of_a_hundred_million_rows_stays_small(results_db):
    # Fetched all at once, 10^8 rows are gigabytes (DuckDB's 8 bytes a row, then a Python tuple
    # each); streamed, the command stays near its start-up size (190-255 MB measured, 113 MB for
    # a query of one row).
    p = subprocess.run([sys.executable, "-c", PEAK, "results", "query", str(results_db), "SELECT * FROM range(100000000)", "--limit", "5"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert [int(x) for x in p.stdout.split() if x.isdigit()] == [0, 1, 2, 3, 4]
    # Counting stops after 2 s (about 7 million rows a second): "more than N more rows not shown".
    assert "more rows not shown (counted for 2 s)" in p.stderr and p.stderr.startswith("more than ")
    peak_mb = int(p.stderr.split()[-1]) / 1024
    # Fetched whole, the rows alone are 800 MB in DuckDB and about 10 GB as Python tuples (10.9 GB
    # measured): the bound is far below that and far above what DuckDB's own buffers take under
    # a loaded machine (190-255 MB alone, 671 MB once beside the full test suite).
    assert peak_mb < 1500, peak_mb


# Faults named.


class FullDiskOnSecondCommit:
    """A connection whose second COMMIT fails as DuckDB's does on a full disk: the transaction
    ends and an IOException names the WAL (what a 1 MB tmpfs gave)."""

    def __init__(self, con: Any) -> None:
        self.con, self.commits = con, 0

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            self.commits += 1
            if self.commits == 2:
                self.con.execute("ROLLBACK")
                raise duckdb.IOException('TransactionContext Error: Failed to commit: Could not write file "r.duckdb.wal": No space left on device')
        return self.con.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)


def test_a_full_disk_during_a_sweep_is_named_and_loses_no_written_row(tmp_path, monkeypatch):
    db = tmp_path / "r.duckdb"
    f = experiment(tmp_path, 6)
    real = ResultStore._write

    def failing(self: ResultStore, c: Any, rows: Any, failures: Any) -> None:
        if not isinstance(getattr(self, "_proxy", None), FullDiskOnSecondCommit):
            self._proxy = FullDiskOnSecondCommit(c)  # type: ignore[attr-defined]
        real(self, self._proxy, rows, failures)  # type: ignore[attr-defined]

    monkeypatch.setattr(ResultStore, "_write", failing)
    monkeypatch.setattr(sweep_mod, "FLUSH_SECONDS", 0.0)  # a transaction per task
    res = runner.invoke(app, ["sweep", "run", str(f), "--db", str(db), "--workers", "1"])
    text = said(res)
    assert res.exit_code == 2, res.output
    assert f"{db}: cannot write the results database (1 task rows and 0 failures not written): no space left on device" in text
    assert "rollback" not in text and "internal error" not in text
    # The first commit is kept, the second is not there at all (no series without its task).
    assert query(db, "SELECT count(*), (SELECT count(*) FROM series) FROM tasks")[1] == [(1, 2)]
    monkeypatch.undo()
    report = run([load(f)], db, workers=1)
    assert (report.already_done, report.ran) == (1, 5)
    assert query(db, "SELECT count(*), count(DISTINCT key), (SELECT count(*) FROM series) FROM tasks")[1] == [(6, 6, 12)]


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 1 MiB tmpfs (root only): a disk that fills during a sweep."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "full"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True).returncode != 0:
        pytest.skip("no tmpfs mount here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_real_full_disk_is_named(tmp_path, small_tmpfs):
    # 400 tasks of 20 windows do not fit in 1 MiB beside DuckDB's file (measured: the first
    # batch's commit fails writing the WAL).
    base = "\n".join(f"{k} = {json.dumps(v)}" for k, v in {**SMALL, "writes": "20x"}.items())
    f = tmp_path / "big.toml"
    f.write_text(f'name = "big"\nreplications = 400\n[base]\n{base}\n')
    db = small_tmpfs / "r.duckdb"
    p = subprocess.run([*RECLAIM, "sweep", "run", str(f), "--db", str(db), "--workers", "1"], capture_output=True, text=True, timeout=300)
    text = " ".join(p.stderr.split())
    assert p.returncode == 2, p.stderr
    assert f"{db}: cannot write the results database" in text and "no space left on device" in text
    assert "Traceback" not in p.stderr and "rollback" not in text


def test_write_error_is_an_os_error_naming_the_file(tmp_path):
    e = store_mod._write_error(tmp_path / "r.duckdb", duckdb.IOException('Could not write file "x": Read-only file system'), "closing it")
    assert isinstance(e, WriteError) and isinstance(e, OSError)
    assert str(e).startswith(f"{tmp_path / 'r.duckdb'}: cannot write the results database (closing it): read-only file system: give a --db")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_an_output_that_cannot_be_written_is_named(results_db, tmp_path):
    res = runner.invoke(app, ["report", str(results_db), "-o", "/dev/full"])
    assert res.exit_code == 2 and "/dev/full: cannot write the report: No space left on device" in said(res)
    res = runner.invoke(app, ["results", "export", str(results_db), "--csv", "/dev/full"])
    assert res.exit_code == 2 and "/dev/full: cannot write the export: No space left on device" in said(res)
    res = runner.invoke(app, ["report", str(results_db), "-o", str(tmp_path / "r.html"), "--figures", "/dev/full"])
    assert res.exit_code == 2 and "/dev/full: cannot make the figures folder: File exists" in said(res)
    f = experiment(tmp_path, 2)
    for args in (["results", "query", str(results_db), "SELECT * FROM tasks", "--json"],
                 ["results", "query", str(results_db), "SELECT key FROM tasks", "--csv", "--limit", "0"],
                 ["results", "query", str(results_db), "SELECT key FROM tasks"],
                 ["sweep", "plan", str(f), "--json", "--no-calibrate", "--db", str(results_db)],
                 # Any command's output, through the one error path: the OSError of a failed write
                 # names no file, standard output is the one that failed.
                 ["simulate", "--segments", "64", "--json"], ["schemes"]):
        with open("/dev/full", "w") as full:
            p = subprocess.run([*RECLAIM, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
        assert p.returncode == 2, (args, p.stderr)
        assert "error: cannot write the output: standard output: No space left on device" in p.stderr, (args, p.stderr)
        assert "Traceback" not in p.stderr and "Errno" not in p.stderr


@pytest.mark.parametrize("address", ["foo", "tcp://host", "tcp://host:99999", "http://host:8786", "tcp://host:port"])
def test_a_scheduler_address_of_the_wrong_form_is_named(tmp_path, address):
    res = runner.invoke(app, ["sweep", "run", str(experiment(tmp_path, 1)), "--db", str(tmp_path / "r.duckdb"), "--scheduler", address])
    assert res.exit_code == 2, res.output
    assert f"invalid value for `scheduler`: {address!r} (expected a Dask scheduler address tcp://host:port" in said(res)
    assert not (tmp_path / "r.duckdb").exists()


def test_a_server_that_is_not_a_dask_scheduler_is_named(tmp_path: Path) -> None:
    # An SSH server speaks first: Dask read its banner as a frame length and asked for 2.82 EiB
    # (MemoryError) before this was caught.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        held = []
        while not stop.is_set():
            try:
                c, _ = server.accept()
            except OSError:
                continue
            c.sendall(b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n")
            held.append(c)
        for c in held:
            c.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        res = runner.invoke(app, ["sweep", "run", str(experiment(tmp_path, 1)), "--db", str(tmp_path / "r.duckdb"),
                                  "--scheduler", f"tcp://127.0.0.1:{port}"])
    finally:
        stop.set()
        t.join()
        server.close()
    assert res.exit_code == 2, res.output
    assert f"invalid value for `scheduler`: tcp://127.0.0.1:{port}: something answers there, but not a Dask scheduler" in said(res)
    assert "MemoryError" not in res.output and "internal error" not in res.output


# `sweep plan`: counted before it is expanded, bounded.


def test_a_plan_counts_each_task_once_and_shows_its_progress(tmp_path: Path) -> None:
    db = tmp_path / "r.duckdb"
    run([load(experiment(tmp_path, 4))], db, workers=1)
    f = tmp_path / "plan.toml"
    base = "\n".join(f"{k} = {json.dumps(v)}" for k, v in SMALL.items() if k != "spare")
    # 2,500 spares × 2 seeds = 5,000 tasks; small.toml's 4 (spare 0.25, seeds 1-4) are in the database.
    f.write_text(f'name = "plan"\nreplications = 2\n[base]\n{base}\n[axes]\nspare = {{ start = 0.25, stop = 0.4999, num = 2500 }}\n')
    seen: list[tuple[int, int]] = []
    pl = plan([load(f), load(tmp_path / "small.toml")], db, calibrate=True, on_expand=lambda n, total: seen.append((n, total)))
    # 5,000 + 4 tasks, of which seeds 1 and 2 at spare 0.25 are one task in both files.
    assert (pl.tasks, pl.done) == (5_002, 4)
    assert pl.experiments == [("plan", 5_000), ("small", 4)]
    assert seen[:2] == [(1000, 5004), (2000, 5004)] and seen[-1] == (5004, 5004)
    assert "the largest of 1,000 sampled tasks" in pl.calibration and pl.seconds_estimate is not None and pl.seconds_estimate > 0


def test_more_tasks_than_the_cap_are_refused_before_any_is_made(tmp_path):
    f = tmp_path / "huge.toml"
    # 1,000 spares × 2,000 seeds = 2,000,000 tasks > MAX_TASKS (1,000,000).
    f.write_text("replications = 2000\n[axes]\nspare = { start = 0.05, stop = 0.3, num = 1000 }\n")
    res = runner.invoke(app, ["sweep", "plan", str(f)])
    assert res.exit_code == 2 and f"2,000,000 tasks (expected at most {MAX_TASKS:,}; split the sweep)" in said(res)
    # Two files of 600,000 each: each under the cap, together over it.
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text('name = "a"\nreplications = 600\n[axes]\nspare = { start = 0.05, stop = 0.3, num = 1000 }\n')
    b.write_text('name = "b"\nreplications = 600\n[axes]\nspare = { start = 0.05, stop = 0.3, num = 1000 }\n')
    res = runner.invoke(app, ["sweep", "plan", str(a), str(b)])
    assert res.exit_code == 2 and f"1,200,000 tasks in 2 experiment files (expected at most {MAX_TASKS:,} in one command" in said(res)


def available_gib() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines() if Path("/proc/meminfo").exists() else []:
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 2**20
    return 0.0


@pytest.mark.skipif(available_gib() > 30, reason="60,000,000 segments fit in this machine's memory")
def test_a_plan_leaves_out_of_its_estimate_the_tasks_that_cannot_run_here(tmp_path):
    # 60,000,000 segments of 64 pages need about 32.5 GiB (the engine's estimate): it refuses to
    # build them, and the plan says so instead of stopping (the sweep would fail that task alone).
    f = tmp_path / "huge.toml"
    f.write_text('[base]\npages_per_segment = 64\nwarmup = "fill"\nwrites = "1x"\n[axes]\nsegments = [64, 60000000]\n')
    res = runner.invoke(app, ["sweep", "plan", str(f), "--db", str(tmp_path / "r.duckdb")])
    assert res.exit_code == 0, res.output
    text = said(res)
    assert "2 tasks in all, 0 already in" in text
    assert "50% of the sampled tasks cannot run here and are left out (first: segments=60000000, seed=1: invalid value for `segments`" in text
    f.write_text('[base]\npages_per_segment = 64\nwarmup = "fill"\nwrites = "1x"\n[axes]\nsegments = [60000000]\n')
    res = runner.invoke(app, ["sweep", "plan", str(f), "--db", str(tmp_path / "r.duckdb")])
    assert res.exit_code == 0 and "estimated time: no estimate: none of the sampled tasks can run here" in said(res)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_scheduler_without_workers_is_said_so(tmp_path, monkeypatch):
    # A running scheduler with no worker: the sweep's tasks waited for ever without a word.
    pytest.importorskip("distributed")
    monkeypatch.setattr(sweep_mod, "DASK_WORKER_WAIT", 2.0)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    # Its HTTP server on a free port too: on 8787, Dask's default, it would stand in the way of
    # any LocalCluster started meanwhile.
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--no-dashboard", "--dashboard-address", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert scheduler.stderr is not None
        for line in scheduler.stderr:  # its log says when it listens
            if "Scheduler at:" in line:
                break
        res = runner.invoke(app, ["sweep", "run", str(experiment(tmp_path, 2)), "--db", str(tmp_path / "r.duckdb"), "--scheduler", address])
    finally:
        scheduler.terminate()
        scheduler.communicate(timeout=30)
    assert res.exit_code == 2, res.output
    assert f"the Dask scheduler at {address} has no worker after 2 s: start some (`dask worker {address}`)" in said(res)
    assert query(tmp_path / "r.duckdb", "SELECT count(*) FROM tasks")[1] == [(0,)]


def test_a_scheduler_lost_during_a_sweep_is_named_and_loses_no_written_row(tmp_path):
    # Before: the client's reconnection traceback, then "internal error (FutureCancelledError: …
    # scheduler-connection-lost)", status 1.
    pytest.importorskip("distributed")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--no-dashboard", "--dashboard-address", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = tmp_path / "r.duckdb"
    # About 20 ms a task (12,288 logical pages, 20 passes, as in test_experiments' kill test):
    # 600 tasks on one worker take some 12 s, the scheduler goes after the first write.
    base = "\n".join(f"{k} = {json.dumps(v)}" for k, v in {**SMALL, "segments": 256, "pages_per_segment": 64, "writes": "20x"}.items())
    f = tmp_path / "long.toml"
    f.write_text(f'name = "long"\nreplications = 600\n[base]\n{base}\n')
    try:
        assert scheduler.stderr is not None
        for line in scheduler.stderr:
            if "Scheduler at:" in line:
                break
        sweep = subprocess.Popen([*RECLAIM, "sweep", "run", str(f), "--db", str(db), "--scheduler", address, "--log-interval", "0"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert sweep.stderr is not None
        first = sweep.stderr.readline()
        assert "tasks written" in first, first
        scheduler.terminate()
        scheduler.communicate(timeout=30)
        rest = sweep.communicate(timeout=120)[1]
    finally:
        for p in (scheduler, worker):
            if p.poll() is None:
                p.terminate()
                p.communicate(timeout=30)
    text = " ".join(rest.split())
    assert sweep.returncode == 2, rest
    assert f"error: lost the Dask scheduler at {address} during the sweep" in text and "every task written before is kept" in text
    assert "Traceback" not in rest and "internal error" not in rest
    kept, distinct, orphans = query(db, "SELECT count(*), count(DISTINCT key), (SELECT count(*) FROM series WHERE key NOT IN "
                                        "(SELECT key FROM tasks)) FROM tasks")[1][0]
    assert 0 < kept < 600 and distinct == kept and orphans == 0
    # Each task kept has its 20 windows (20x measured writes, a window a logical capacity).
    assert query(db, "SELECT count(*) FROM series")[1] == [(20 * kept,)]


def test_a_report_reads_only_the_columns_it_shows(results_db):
    # Every column was 12 KB a task in memory (the configuration's text and two histograms of
    # pages_per_segment + 1 counts each): 1.25 GB for 100,000 tasks, 606 MB with these.
    from reclaim.report import MODEL_INPUTS, _groups

    con = store_mod._connect(results_db, read_only=True)
    try:
        (g,) = _groups(con, None)
    finally:
        con.close()
    assert len(g.frame) == 120  # the 120 seeds of results_db
    assert g.varying == [] and g.x is None  # replications of one configuration
    # The metrics shown, and the configuration's scalar parameters a model's prediction reads
    # (MODEL_INPUTS: a few bytes each); never the configuration's text or the histograms.
    assert set(g.frame.columns) == {"key", "seed", "wa", "simulated_spare", "wamp", "gcu", "emptiness_at_clean", "cleaning_cost", "user_writes",
                                    "seconds", "workload", "volume", *MODEL_INPUTS}
    assert not {"config", "victim_valid_histogram", "segment_valid_histogram"} & set(g.frame.columns)


def test_a_report_or_export_cut_short_by_a_full_disk_leaves_no_file(results_db, small_tmpfs):
    # The page inlines plotly.js (about 4.5 MB): it does not fit in 1 MiB; nor do the 120 tasks'
    # series, 240 windows of some 150 bytes as CSV (36 KB), in the 16 KiB the filler leaves.
    out = small_tmpfs / "report.html"
    res = runner.invoke(app, ["report", str(results_db), "-o", str(out)])
    assert res.exit_code == 2 and f"{out}: cannot write the report: No space left on device" in said(res)
    csv = small_tmpfs / "series.csv"
    (small_tmpfs / "filler").write_bytes(b"\0" * ((1 << 20) - 16 * 1024))
    res = runner.invoke(app, ["results", "export", str(results_db), "--csv", str(csv), "--table", "series"])
    assert res.exit_code == 2 and f"{csv}: cannot write the export: No space left on device" in said(res)
    assert sorted(p.name for p in small_tmpfs.iterdir()) == ["filler"]
