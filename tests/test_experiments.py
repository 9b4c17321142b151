"""Sweeps: experiment files, task keys, the results database, executors (docs/experiments.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from reclaim.cli import app
from reclaim.experiments import ExperimentError, load, make_task, parse, query, run
from reclaim.experiments import spec as spec_mod
from typer.testing import CliRunner

runner = CliRunner()
RECLAIM = [sys.executable, "-m", "reclaim.cli"]
#: A geometry whose runs take a few milliseconds.
SMALL = {"segments": 16, "pages_per_segment": 16, "spare": 0.25, "warmup": "fill", "writes": "2x"}


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_ranges_zips_and_seeds_expand_as_documented():
    e = parse({
        "base": {"segments": 64},
        "axes": {"spare": {"start": 0.05, "stop": 0.25, "step": 0.05}, "pages_per_segment": {"start": 8, "stop": 32, "step": 8},
                 "window": {"start": 1, "stop": 1000, "num": 4, "log": True}},
        "zip": [{"policy": ["fifo", "greedy"], "gc": ["frontier", "one-free"]}],
        "seeds": [7, 11],
    })
    points = list(e.points())
    # 5 spares (stop included) × 4 page counts (whole numbers stay whole) × 4 windows × 2 zipped × 2 seeds.
    assert e.size == 5 * 4 * 4 * 2 * 2 == 320
    assert sorted({p["spare"] for p in points}) == [0.05, 0.1, 0.15, 0.2, 0.25]
    assert sorted({p["pages_per_segment"] for p in points}) == [8, 16, 24, 32]
    assert sorted({p["window"] for p in points}) == [1.0, 10.0, 100.0, 1000.0]
    assert {(p["policy"], p["gc"]) for p in points} == {("fifo", "frontier"), ("greedy", "one-free")}
    assert e.seeds == [7, 11]
    assert parse({"replications": 3}).seeds == [1, 2, 3]


@pytest.mark.parametrize(("doc", "needle"), [
    ({"axes": {"spares": [0.1]}}, "`axes.spares`: unknown parameter"),
    ({"axes": {"seed": [1, 2]}}, "seeds are set by `replications`"),
    ({"base": {"spare": 0.1}, "axes": {"spare": [0.2]}}, "set both in [base] and as an axis"),
    ({"zip": [{"policy": ["fifo", "greedy"], "gc": ["frontier"]}]}, "zipped axes need equal lengths (policy: 2, gc: 1)"),
    ({"axes": {"spare": {"start": 0.3, "stop": 0.1, "step": 0.05}}}, "expected a step from 0.3 towards 0.1"),
    ({"axes": {"spare": {"start": 0.1, "stop": 0.2}}}, "give either `step` or `num`, not neither"),
    ({"axes": {"spare": []}}, "an axis needs at least one value"),
    ({"axes": {"window": {"start": 1, "stop": 2, "num": 20_000_000}}}, "expected a whole number in [1, 1000000]"),
    ({"replications": 0}, "`replications`: invalid value 0"),
    ({"seeds": [1, 1]}, "a seed appears twice"),
    ({"axs": {}}, "`axs`: unknown key"),
])
def test_a_bad_experiment_names_its_key(doc, needle):
    with pytest.raises(ExperimentError) as e:
        parse(doc)
    assert needle in str(e.value)


def test_bad_files_exit_2_naming_the_file(tmp_path):
    bad = write(tmp_path, "axes = {policy = [fifo]}\n")
    res = runner.invoke(app, ["sweep", "plan", str(bad)])
    assert res.exit_code == 2 and f"{bad}: not valid TOML" in " ".join(res.output.split())
    bad = write(tmp_path, '[axes]\nspare = [0.1, 2.0]\n')
    res = runner.invoke(app, ["sweep", "plan", str(bad), "--db", str(tmp_path / "r.duckdb")])
    # The engine's range check, naming the parameter, value and range.
    text = " ".join(res.output.split())
    assert res.exit_code == 2 and f"{bad}: the task spare=2.0: invalid value for `spare`: 2 (expected a number in (0, 1))" in text, text


def test_keys_follow_the_canonical_config_engine_and_trace(tmp_path, monkeypatch):
    a = make_task({"policy": "greedy", "spare": 0.1})
    # The same configuration written with its defaults spelled out is the same task.
    assert make_task({"policy": "greedy:tie=random", "spare": 0.1, "seed": 1, "gc": "frontier"}).key == a.key
    assert make_task({"policy": "greedy", "spare": 0.1, "seed": 2}).key != a.key
    monkeypatch.setattr(spec_mod, "engine_version", lambda: "0.0.0+another")
    assert make_task({"policy": "greedy", "spare": 0.1}).key != a.key
    monkeypatch.undo()
    trace = tmp_path / "t.txt"
    trace.write_text("1\n2\n3\n")
    k1 = make_task({"workload": f"trace:{trace}"}).key
    trace.write_text("1\n2\n4\n")
    assert make_task({"workload": f"trace:{trace}"}).key != k1


def test_relative_trace_paths_are_relative_to_the_file(tmp_path):
    (tmp_path / "sub").mkdir()
    f = write(tmp_path / "sub", '[axes]\nworkload = ["trace:../t.rtr", "uniform"]\n')
    e = load(f)
    assert [p["workload"] for p in e.points()] == [f"trace:{(tmp_path / 't.rtr').resolve()}", "uniform"]


def small_experiment(tmp_path: Path, tasks: int, name: str = "small", **base_params: object) -> Path:
    # `tasks` replications of a base that runs in milliseconds.
    base = "\n".join(f"{k} = {json.dumps(v)}" for k, v in {**SMALL, **base_params}.items())
    return write(tmp_path, f'name = "{name}"\nreplications = {tasks}\n[base]\n{base}\n', f"{name}.toml")


def test_a_rerun_does_only_what_is_missing(tmp_path):
    db = tmp_path / "r.duckdb"
    exp = load(small_experiment(tmp_path, 6))
    first = run([exp], db, workers=2)
    assert (first.tasks, first.already_done, first.ran, first.failed) == (6, 0, 6, [])
    second = run([exp], db, workers=2)
    assert (second.already_done, second.ran) == (6, 0)
    cols, rows = query(db, "SELECT count(*), count(DISTINCT key), min(wa) >= 1, count(DISTINCT seed) FROM tasks")
    assert rows == [(6, 6, True, 6)]
    # The time series sits beside each row: windows of one logical capacity over 2x measured writes.
    assert query(db, "SELECT count(*) FROM series")[1] == [(12,)]
    assert query(db, "SELECT sweep, count(*) FROM sweep_tasks GROUP BY sweep")[1] == [("small", 6)]


def test_a_failed_task_is_named_recorded_and_retried(tmp_path):
    db = tmp_path / "r.duckdb"
    # 60,000,000 segments cannot fit in this machine's memory: the engine refuses the run.
    f = write(tmp_path, '[base]\npages_per_segment = 64\nwarmup = "fill"\nwrites = "1x"\n[axes]\nsegments = [64, 60000000]\n')
    res = runner.invoke(app, ["sweep", "run", str(f), "--db", str(db)])
    text = " ".join(res.output.split())
    assert res.exit_code == 1, res.output
    assert "task failed (segments=60000000, seed=1): RuntimeError:" in text or "task failed (segments=60000000, seed=1): ValueError:" in text
    assert "2 tasks: 0 already in" in text and "1 ran, 1 failed" in text
    assert query(db, "SELECT segments FROM tasks")[1] == [(64,)]
    fails = query(db, "SELECT sweep, error FROM failures")[1]
    assert len(fails) == 1 and fails[0][0] == "exp" and "segments" in fails[0][1]
    # A rerun tries the failed task again (and only it).
    res = runner.invoke(app, ["sweep", "run", str(f), "--db", str(db)])
    assert res.exit_code == 1 and "1 already in" in " ".join(res.output.split())


def test_plan_counts_and_estimates(tmp_path):
    db = tmp_path / "r.duckdb"
    f = small_experiment(tmp_path, 4)
    run([load(f)], db, workers=1)
    f2 = small_experiment(tmp_path, 10)
    res = runner.invoke(app, ["sweep", "plan", str(f2), "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    plan = json.loads(res.stdout)
    assert (plan["tasks"], plan["done"], plan["pending"]) == (10, 4, 6)
    assert plan["estimated_seconds"] > 0 and "user writes/s" in plan["calibration"]


def test_results_query_and_export(tmp_path):
    db = tmp_path / "r.duckdb"
    run([load(small_experiment(tmp_path, 3))], db, workers=1)
    res = runner.invoke(app, ["results", "query", str(db), "SELECT seed, wa FROM tasks ORDER BY seed", "--json"])
    assert res.exit_code == 0 and [r["seed"] for r in json.loads(res.stdout)] == [1, 2, 3]
    res = runner.invoke(app, ["results", "query", str(db), "SELECT nope FROM tasks"])
    assert res.exit_code == 2 and "invalid value for `sql`" in res.output
    res = runner.invoke(app, ["results", "query", str(tmp_path / "none.duckdb"), "SELECT 1"])
    assert res.exit_code == 2 and "no results database there" in res.output
    res = runner.invoke(app, ["results", "export", str(db), "--parquet", str(tmp_path / "t.parquet")])
    assert res.exit_code == 0
    assert duckdb.sql(f"SELECT count(*) FROM '{tmp_path / 't.parquet'}'").fetchall() == [(3,)]
    res = runner.invoke(app, ["results", "export", str(db), "--csv", str(tmp_path / "s.csv"), "--table", "series"])
    assert res.exit_code == 0 and len((tmp_path / "s.csv").read_text().splitlines()) == 1 + 6


def test_a_sweep_killed_half_way_resumes_without_loss_or_duplicates(tmp_path):
    # Acceptance: 200 tasks, SIGKILL half-way, a rerun ends with exactly 200 rows.
    db = tmp_path / "r.duckdb"
    # About 20 ms a task (12,288 logical pages, 20 passes): the sweep takes seconds.
    f = small_experiment(tmp_path, 200, "kill", segments=256, pages_per_segment=64, writes="20x")
    p = subprocess.Popen([*RECLAIM, "sweep", "run", str(f), "--workers", "2", "--db", str(db), "--log-interval", "0"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # Without a terminal the sweep logs each write ("sweep: N of 200 tasks written"): kill
        # after the first.
        assert p.stderr is not None
        line = p.stderr.readline()
        assert "tasks written" in line, line
        os.killpg(p.pid, signal.SIGKILL)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
    kept = query(db, "SELECT count(*) FROM tasks")[1][0][0]
    assert 0 < kept < 200, kept
    # No time series without its task: a batch is written whole or not at all.
    assert query(db, "SELECT count(*) FROM series WHERE key NOT IN (SELECT key FROM tasks)")[1] == [(0,)]
    report = run([load(f)], db, workers=2)
    assert (report.already_done, report.ran) == (kept, 200 - kept)
    assert query(db, "SELECT count(*), count(DISTINCT key) FROM tasks")[1] == [(200, 200)]
    assert query(db, "SELECT count(*) FROM series")[1] == [(200 * 20,)]


def test_dask_and_local_give_the_same_metric_columns(tmp_path):
    # Acceptance: the same 50 tasks on local processes and on a 2-worker Dask LocalCluster (Dask is
    # the optional extra reclaim[dask]; requirements.lock installs it for the tests).
    f = write(tmp_path, 'replications = 5\n[base]\nsegments = 32\npages_per_segment = 16\nwarmup = "fill"\nwrites = "3x"\n'
                        'workload = "hotcold:r=0.8,f=0.2"\n[axes]\npolicy = ["fifo", "greedy", "d-choices:d=3", "cost-benefit", "random"]\nspare = [0.15, 0.25]\n',
              "same.toml")
    exp = load(f)
    assert exp.size == 50
    run([exp], tmp_path / "local.duckdb", workers=2)
    report = run([exp], tmp_path / "dask.duckdb", dask_local=2)
    assert report.ran == 50 and not report.failed
    varying = "engine, host, started, wall_seconds, seconds, user_writes_per_second, page_writes_per_second"
    sql = f"SELECT * EXCLUDE ({varying}) FROM tasks ORDER BY key"
    a, b = query(tmp_path / "local.duckdb", sql), query(tmp_path / "dask.duckdb", sql)
    assert a[0] == b[0] and len(a[1]) == 50
    assert a[1] == b[1]


def test_a_reproduction_reruns_from_the_database(tmp_path, monkeypatch):
    # Acceptance: a second run of a reproduction prints the same table from the database and
    # runs nothing.
    db = tmp_path / "r.duckdb"
    first = runner.invoke(app, ["reproduce", "li-greedy", "--db", str(db), "--json"])
    assert first.exit_code == 0, first.output
    # Fig. 6(b)'s 2 runs, Fig. 5's 15 more and Fig. 7(a)'s 46 (reclaim/reproduce/li.py).
    assert query(db, "SELECT sweep, count(*) FROM sweep_tasks GROUP BY sweep")[1] == [("reproduce:li-greedy", 63)]

    def no_run(*args, **kwargs):
        raise AssertionError("a simulation ran again")

    monkeypatch.setattr("reclaim.experiments.batch.execute", no_run)
    second = runner.invoke(app, ["reproduce", "li-greedy", "--db", str(db), "--json"])
    assert second.exit_code == 0, second.output
    assert json.loads(second.stdout) == json.loads(first.stdout)
