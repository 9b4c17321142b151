"""`reclaim report` on a reproduction's database: its rows rebuilt from the database alone (nothing
simulated again) and its paper figures embedded, with the published numbers as their own series
and the data as CSV; checked in headless Chromium where it is installed (as tests/test_report.py)."""

from __future__ import annotations

import base64
import csv
import io
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from browser import check_page
from reclaim.cli import app
from reclaim.experiments.batch import MissingResults
from reclaim.reproduce import REPRODUCTIONS, stockmeyer
from typer.testing import CliRunner

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
#: Where the screenshot stays for a person to look at (the build directory, not committed).
SCREENSHOT = ROOT / "target" / "test-artifacts" / "report-reproduction.png"
SWEEP = "reproduce:li-greedy:quick"
#: Li et al. Fig. 6(b)'s model values, as reclaim/reproduce/data/li_numbers.csv transcribes them.
PUBLISHED = {"0.2/0.8": 2.314e6, "0.8/0.2": 1.063e6}
#: Its runs: Fig. 6(b)'s 2, Fig. 5's 2 workloads × 8 windows less the one shared with Fig. 6(b), and
#: Fig. 7(a)'s 23 allocations × 2 policies (reclaim/reproduce/li.py: WINDOWS, ALLOCATIONS).
TASKS = 2 + (2 * 8 - 1) + 23 * 2


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> tuple[Path, list[dict]]:
    # Li et al. §5 at its quick length (the full one: 63 runs of well under a second each).
    db = tmp_path_factory.mktemp("repro") / "r.duckdb"
    rows = REPRODUCTIONS["li-greedy"].run(quick=True, db=db, workers=1)
    return db, rows


def _copy(db: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy.duckdb"
    shutil.copy(db, out)
    return out


def _tasks(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*) FROM tasks").fetchall()[0][0]


def test_read_rebuilds_the_rows_from_the_database_alone(ran):
    db, rows = ran
    before = db.read_bytes()
    again, setting = REPRODUCTIONS["li-greedy"].read(db, quick=True)
    # The same runs read back: equal to the last bit, and the database untouched.
    assert again == rows
    assert db.read_bytes() == before and _tasks(db) == TASKS
    # Fig. 6(b) runs gra:d=1, Fig. 5 gra:d=…, Fig. 7(a) regions under gra:d=1 and fifo.
    assert "by row: --policy, --placement, --workload" in setting
    assert [r["paper"] for r in again if r["table"] == "fig6b"] == [PUBLISHED["0.2/0.8"], PUBLISHED["0.8/0.2"]]


def test_read_raises_where_a_run_is_missing(ran, tmp_path):
    db = _copy(ran[0], tmp_path)
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM tasks WHERE key = (SELECT min(key) FROM tasks)")
    with pytest.raises(MissingResults, match=rf"1 of the {TASKS} runs of reproduce:li-greedy:quick are not in the database, "
                                             r"e\.g\. reclaim simulate --segments 8192 "):
        REPRODUCTIONS["li-greedy"].read(db, quick=True)
    # Nothing ran in its place.
    assert _tasks(db) == TASKS - 1
    # The full-length sweep was never run into it.
    with pytest.raises(MissingResults, match=f"{TASKS} of the {TASKS} runs of reproduce:li-greedy are not"):
        REPRODUCTIONS["li-greedy"].read(db, quick=False)


def test_read_finds_the_runs_of_another_engine_build(ran, tmp_path):
    # A database made before a rebuild: its keys hash another engine version. The runs are found by
    # the parameters they were recorded with.
    db = _copy(ran[0], tmp_path)
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE tasks SET key = 'old' || key, engine = '0.0.1+older'")
        con.execute("UPDATE sweep_tasks SET key = 'old' || key")
    again, _ = REPRODUCTIONS["li-greedy"].read(db, quick=True)
    assert again == ran[1]


def test_the_report_embeds_the_paper_figure_with_the_published_series(ran, tmp_path):
    db, rows = ran
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", str(db), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "12 figures, 3 paper figure(s) of reproductions" in res.output
    page = out.read_text()
    # Three figures, each an SVG inside the page: Fig. 6(b)'s bars beside the model against S
    # first, then Fig. 5 and Fig. 7(a).
    images = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert len(images) == 3
    assert re.findall(r'<a download="(li-[^"]+\.csv)"', page) == [
        "li-greedy-cleaning-cost.csv", "li-fig5-cleaning-cost-vs-d.csv", "li-fig7a-grouping-allocation.csv"]
    assert "reclaim, GRA(d)" in base64.b64decode(images[1]).decode()
    assert "published (§5.3: b_c*, b_w*)" in base64.b64decode(images[2]).decode()
    svg = base64.b64decode(images[0]).decode()
    # The published values as their own series, in the legend (svg.fonttype none: text is text).
    assert "published (Fig. 6(b))" in svg and "model (Theorems 1–4), published in Fig. 6(b)" in svg
    assert "reclaim, Greedy" in svg
    # Its data, the CSV `reclaim reproduce li-greedy --figures` writes, to download from the page.
    (link,) = re.findall(r'<a download="li-greedy-cleaning-cost.csv" href="data:text/csv;base64,([^"]+)"', page)
    data = list(csv.DictReader(io.StringIO(base64.b64decode(link).decode())))
    at = {(r["f"], r["series"]): float(r["cleaning_cost"]) for r in data if r["spare"] == "0.1"}
    for r in (r for r in rows if r["table"] == "fig6b"):
        assert at[(r["f"], "model (published)")] == PUBLISHED[r["f"]]
        assert at[(r["f"], "reclaim")] == r["ours"]
    # The printed table beside it, and nothing fetched from elsewhere.
    assert "Li et al. §5.1 / Fig. 6(b)" in page and "paper (model)" in page
    assert "<script src" not in page and "default-src 'none'" in page
    # Read, never written: the report ran nothing.
    assert _tasks(db) == TASKS


def test_the_figures_folder_holds_the_paper_figures_beside_the_wa_ones(ran, tmp_path):
    res = runner.invoke(app, ["report", str(ran[0]), "-o", str(tmp_path / "r.html"), "--figures", str(tmp_path / "figs")])
    assert res.exit_code == 0, res.output
    names = {p.name for p in (tmp_path / "figs").iterdir()}
    # The same files as `reclaim reproduce li-greedy --figures`: the CSV and 2 widths × 3 formats.
    stems = ("li-greedy-cleaning-cost", "li-fig5-cleaning-cost-vs-d", "li-fig7a-grouping-allocation")
    paper = {f"{s}.csv" for s in stems} | {f"{s}-{w}in.{e}" for s in stems for w in ("3.5", "7") for e in ("pdf", "svg", "png")}
    assert paper <= names
    assert len(names - paper) == 21  # the WA figures of the runs' settings, likewise (3 × 7 files)


def test_a_partial_reproduction_says_why_it_is_not_drawn(ran, tmp_path):
    db = _copy(ran[0], tmp_path)
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM tasks WHERE key = (SELECT min(key) FROM tasks)")
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(db), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert '<figure class="paper">' not in page and '<img src="data:' not in page
    assert "its paper figures are not rebuilt here" in page and f"1 of the {TASKS} runs of reproduce:li-greedy:quick" in page
    assert "reclaim reproduce li-greedy --quick --figures DIR" in page


def test_the_stand_in_is_only_named_when_reading_back(tmp_path):
    # Stockmeyer's runs replay a generated stand-in trace; reading them back needs its name, not
    # the file (nor the minutes it takes to make).
    s = stockmeyer.setting(None, True, tmp_path, generate=False)
    assert s.trace.parent == tmp_path and not s.trace.exists() and list(tmp_path.iterdir()) == []
    # A fifth of the snake's 6,760,000 writes with --quick (stockmeyer.QUICK_WRITES).
    assert (s.tracks, s.writes) == (36_607, 1_352_000)


def test_the_report_of_a_reproduction_opens_in_chromium(ran, tmp_path, chromium):
    out = tmp_path / "report.html"
    assert runner.invoke(app, ["report", str(ran[0]), "-o", str(out)]).exit_code == 0
    shown = ("(Array.from(document.querySelectorAll('figure.paper img')).map(i => [i.complete, i.naturalWidth]).concat("
             "[[document.querySelectorAll('figure.paper a[download]').length, document.querySelectorAll('.fig .main-svg').length > 0]]))")
    check = check_page(out, shown, SCREENSHOT)
    assert check.errors == []
    assert check.requests == []
    # The image decoded (an SVG 7 in wide: 504 pt, 672 px less its margins), its CSV linked,
    # and plotly's figures drawn beside it.
    *images, (links, plotly) = check.value
    assert len(images) == 3 and all(loaded and width > 600 for loaded, width in images)
    assert links == 3 and plotly
    assert SCREENSHOT.stat().st_size > 20_000


def test_a_reproduction_that_draws_nothing_keeps_its_pointer(ran, tmp_path):
    # MiDAS's reproduction draws no figure (reclaim reproduce refuses --figures for it): the
    # runs, renamed into its sweep, get the line that names the command, and no figure.
    db = _copy(ran[0], tmp_path)
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE sweep_tasks SET sweep = 'reproduce:midas:quick'")
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(db), "-o", str(out)])
    assert res.exit_code == 0 and "paper figure" not in res.output, res.output
    page = out.read_text()
    assert "<code>reclaim reproduce midas --quick</code> prints its table beside the published values" in page
    assert '<figure class="paper">' not in page


def test_which_files_of_a_reproduction_the_page_shows(tmp_path):
    from reclaim.report import _embedded

    # As latency's figures write them: its PNG and CSV, then a figure saved for print (a CSV, two
    # widths in three formats); and a PNG alone, as Stockmeyer's line figures.
    names = ["latency.png", "latency.csv", "tail.csv", *(f"tail-{w}in.{e}" for w in ("3.5", "7") for e in ("pdf", "svg", "png")),
             "stockmeyer_figure4.png"]
    written = [tmp_path / n for n in names]
    for p in written:
        p.write_bytes(b"x")
    shown = [(stem, uri.split(";")[0], csv.name if csv else None) for stem, uri, csv in _embedded(written)]
    assert shown == [("latency", "data:image/png", "latency.csv"), ("tail", "data:image/svg+xml", "tail.csv"),
                     ("stockmeyer_figure4", "data:image/png", None)]
