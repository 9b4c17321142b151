"""The results database's layout: configuration and results apart, a version, a migration."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from reclaim.cli import app
from reclaim.experiments import SCHEMA_VERSION, SchemaError, frame, load, migrate, query, run
from reclaim.experiments import store as store_mod
from typer.testing import CliRunner

runner = CliRunner()


def sweep(folder: Path, db: Path, **params: object) -> None:
    folder.mkdir(exist_ok=True)
    base = {"segments": 16, "pages_per_segment": 16, "warmup": "fill", "writes": "2x", **params}
    text = 'name = "s"\nreplications = 2\n[base]\n' + "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in base.items())
    (folder / "s.toml").write_text(text)
    report = run([load(folder / "s.toml")], db, workers=1)
    assert report.failed == []


def test_no_table_repeats_a_column_name(tmp_path):
    # The tasks table's INSERT names every column once: a name that is both a parameter and a
    # result (layout 1's `logical_pages`) made duckdb 2.0.1 refuse it and 2.0.0 keep one value.
    params = set(store_mod.CONFIG_COLUMNS)
    results = set(store_mod.METRICS) | set(store_mod.ARRAYS) | set(store_mod.TIME) | set(store_mod.PROVENANCE)
    assert params.isdisjoint(results), params & results
    names = store_mod.task_columns()
    assert len(names) == len(set(names))
    db = tmp_path / "r.duckdb"
    store_mod.ResultStore(db).close()
    con = duckdb.connect(str(db), read_only=True)
    tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
    assert {"tasks", "series", "sweep_tasks", "failures", "schema_version"} <= set(tables)
    for t in tables:
        cols = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ?", [t]).fetchall()]
        assert len(cols) == len(set(cols)), (t, cols)
    tasks = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'tasks'").fetchall()]
    assert sorted(tasks) == sorted(names)
    assert con.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


def test_requested_and_simulated_geometry_are_both_kept(tmp_path):
    db = tmp_path / "r.duckdb"
    sweep(tmp_path, db, logical_pages=200)
    _, rows = query(db, "SELECT logical_pages, simulated_logical_pages, simulated_segments, simulated_pages_per_segment, "
                        "simulated_spare FROM tasks")
    # 200 logical pages of 16 × 16 = 256 physical: spare 1 − 200/256 = 0.21875.
    assert rows == [(200, 200, 16, 16, pytest.approx(0.21875))] * 2
    # The layout check leaves the connection free for the query (a data frame through Arrow).
    f = frame(db, "SELECT logical_pages, simulated_spare FROM tasks")
    assert list(f["logical_pages"]) == [200, 200]
    sweep(tmp_path / "spare", tmp_path / "q.duckdb", spare=0.25)
    _, rows = query(tmp_path / "q.duckdb", "SELECT DISTINCT logical_pages, simulated_logical_pages, simulated_spare FROM tasks")
    # A spare factor asked for, no logical pages: 0.75 × 256 = 192 simulated, NULL requested.
    assert rows == [(None, 192, 0.25)]


def downgrade_to_layout_1(db: Path) -> None:
    """Rewrites a database into the layout landed before versions were kept: no version table,
    `logical_pages` the simulated value (no column for the requested one), no simulated_*
    columns, and the segment histogram as shares (DOUBLE[])."""
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE schema_version")
    con.execute("ALTER TABLE tasks ADD COLUMN shares DOUBLE[]")
    con.execute("UPDATE tasks SET shares = list_transform(segment_valid_histogram, lambda x: x / list_sum(segment_valid_histogram))")
    for name in ("logical_pages", "simulated_segments", "simulated_pages_per_segment", "simulated_spare", "segment_valid_histogram"):
        con.execute(f"ALTER TABLE tasks DROP COLUMN {name}")
    con.execute("ALTER TABLE tasks RENAME COLUMN simulated_logical_pages TO logical_pages")
    con.execute("ALTER TABLE tasks RENAME COLUMN shares TO segment_valid_histogram")
    con.close()


def test_a_layout_1_database_is_refused_then_migrated(tmp_path):
    db = tmp_path / "r.duckdb"
    sweep(tmp_path, db, logical_pages=200)
    downgrade_to_layout_1(db)
    res = runner.invoke(app, ["results", "query", str(db), "SELECT count(*) FROM tasks"])
    assert res.exit_code == 2
    assert f"run `reclaim results migrate {db}`" in " ".join(res.output.split())
    with pytest.raises(SchemaError, match="results migrate"):
        run([load(tmp_path / "s.toml")], db, workers=1)
    res = runner.invoke(app, ["results", "migrate", str(db)])
    assert res.exit_code == 0, res.output
    assert "layout 1 → 2: 2 task rows kept" in " ".join(res.output.split())
    _, rows = query(db, "SELECT logical_pages, simulated_logical_pages, simulated_segments, simulated_pages_per_segment, "
                        "simulated_spare, segment_valid_histogram FROM tasks")
    assert rows == [(200, 200, 16, 16, pytest.approx(0.21875), None)] * 2
    _, rows = query(db, "SELECT round(list_sum(fractions), 9) FROM legacy_segment_valid_fractions")
    assert rows == [(1.0,)] * 2
    # The migrated database takes the same sweep as done, and a new one beside it.
    again = run([load(tmp_path / "s.toml")], db, workers=1)
    assert (again.already_done, again.ran) == (2, 0)
    assert "nothing to do" in migrate(db)
