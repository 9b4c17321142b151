"""`reclaim report`: one self-contained HTML page, checked in headless Chromium (Debian's package,
installed by scripts/setup-test-browser.sh when RECLAIM_INSTALL_BROWSER=1, as CI and `make
test-browser` do; skipped, saying so, when no chromium is on PATH)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from browser import check_page
from reclaim.cli import app
from reclaim.experiments import load, run
from typer.testing import CliRunner

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
#: Where the screenshot stays for a person to look at (the build directory, not committed).
SCREENSHOT = ROOT / "target" / "test-artifacts" / "report.png"
#: What the page rendered: figure containers, plotly's drawn SVGs and traces, task table rows.
RENDERED = ("({figs: document.querySelectorAll('.fig').length, svgs: document.querySelectorAll('.fig .main-svg').length,"
            " traces: document.querySelectorAll('.fig .scatterlayer .trace').length,"
            " rows: document.querySelectorAll('table.sortable tbody tr').length})")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    # 4 policies × 5 spare factors × 5 seeds = 100 tasks.
    d = tmp_path_factory.mktemp("report")
    f = d / "policies.toml"
    f.write_text('name = "policies"\nreplications = 5\n[base]\nsegments = 64\npages_per_segment = 32\nwarmup = "fill+2x"\nwrites = "5x"\n'
                 'workload = "hotcold:r=0.8,f=0.2"\n[axes]\npolicy = ["fifo", "greedy", "d-choices:d=4", "cost-benefit"]\n'
                 'spare = { start = 0.1, stop = 0.3, step = 0.05 }\n')
    path = d / "r.duckdb"
    report = run([load(f)], path, workers=2)
    assert report.ran == 100
    return path


def test_the_report_opens_in_chromium_without_errors_or_fetches(db, tmp_path, chromium):
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", str(db), "-o", str(out)])
    assert res.exit_code == 0, res.output
    check = check_page(out, RENDERED, SCREENSHOT)
    assert check.errors == []
    assert check.requests == []
    # One sweep, one facet: WA against spare, WA over greedy's, two valid-page distributions, one
    # time series.
    assert check.value["figs"] == 5
    # plotly draws each figure in its SVG layers, and one trace per policy in each figure; the
    # mean-field model (Van Houdt eq. 6–8) adds greedy's and d-choices's curves to the WA figure and
    # d-choices's to the relative one (greedy's over itself is not drawn).
    assert check.value["svgs"] >= 5 and check.value["traces"] == 5 * 4 + 2 + 1
    assert check.value["rows"] == 100
    assert SCREENSHOT.stat().st_size > 20_000


def test_the_report_fetches_nothing_by_policy(db, tmp_path):
    out = tmp_path / "report.html"
    runner.invoke(app, ["report", str(db), "-o", str(out)])
    text = out.read_text()
    # Scripts and data inline, and a content security policy that forbids any fetch.
    assert "default-src 'none'" in text and "<script src" not in text and "<link" not in text


def test_paper_figures_in_three_formats(db, tmp_path):
    res = runner.invoke(app, ["report", str(db), "-o", str(tmp_path / "r.html"), "--figures", str(tmp_path / "figs")])
    assert res.exit_code == 0, res.output
    # WA against spare and WA over greedy's, each at 3.5 and 7 in in three formats, and its CSV.
    names = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert names == sorted(f"wa{v}-policies-00{w}.{e}" for v in ("", "-relative")
                           for w, e in [("", "csv")] + [(f"-{i}in", x) for i in ("3.5", "7") for x in ("pdf", "png", "svg")])


def test_bad_report_arguments_exit_2(db, tmp_path):
    res = runner.invoke(app, ["report", str(db), "-o", str(tmp_path / "r.html"), "--sweep", "nope"])
    assert res.exit_code == 2 and "invalid value for `sweep`: 'nope' (expected one of policies)" in res.output
    res = runner.invoke(app, ["report", str(tmp_path / "none.duckdb")])
    assert res.exit_code == 2 and "no results database there" in res.output
    empty = tmp_path / "empty.duckdb"
    from reclaim.experiments import ResultStore

    ResultStore(empty).close()
    res = runner.invoke(app, ["report", str(empty), "-o", str(tmp_path / "r.html")])
    assert res.exit_code == 2 and "holds no finished task" in res.output


def test_chromium_is_debians(chromium):
    # The check runs in the browser a reader of the report has: Debian's chromium package, the
    # one scripts/setup-test-browser.sh installs (elsewhere, whichever chromium is on PATH).
    if shutil.which("dpkg") is None:
        pytest.skip("not a Debian system: the report tests use the chromium on PATH")
    owner = subprocess.run(["dpkg", "-S", str(Path(chromium).resolve())], capture_output=True, text=True)
    assert owner.returncode == 0 and owner.stdout.split(":")[0] in ("chromium", "chromium-common"), owner.stdout


def test_trace_statistics_stand_beside_the_wa_of_each_volume(tmp_path, chromium):
    # A trace of two volumes (Alibaba CSV): volume 0 rewrites a hot tenth, volume 1 rewrites
    # uniformly; a sweep of two policies over each volume.
    import numpy as np
    from reclaim import traces

    rng = np.random.default_rng(8)
    lines = [f"{v},W,{b * 4096},4096,{b}" for v in (0, 1) for b in range(1000)]
    for i in range(12000):
        v = i % 2
        b = int(rng.integers(0, 100)) if v == 0 and rng.random() < 0.9 else int(rng.integers(0, 1000))
        lines.append(f"{v},W,{b * 4096},4096,{2000 + i}")
    text = tmp_path / "two.csv"
    text.write_text("\n".join(lines) + "\n")
    trace = tmp_path / "two.rtr"
    traces.convert(text, "alibaba", trace)
    f = tmp_path / "vols.toml"
    f.write_text(f'name = "vols"\n[base]\nworkload = "trace:{trace}"\npages_per_segment = 16\nvolume = "each"\n'
                 '[axes]\npolicy = ["greedy", "fifo"]\n')
    db = tmp_path / "v.duckdb"
    assert run([load(f)], db, workers=1).ran == 4
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", str(db), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "Traces: what lifetime-based placement exploits, beside WA" in page
    # One row per volume, whose median lifetime is the trace statistics' for that volume's writes.
    t = traces.load(trace)
    per_page = np.repeat(t.request_volumes, t.request_pages)
    for i, name in enumerate(["0", "1"]):
        median = traces.lifetimes(t.pages[per_page == i])["lifetime_quantiles"]["0.5"]
        assert f"{trace} [{name}]" in page and f'data-v="{median:,.0f}"' in page
    check = check_page(out, RENDERED, SCREENSHOT.with_name("report-traces.png"))
    assert check.errors == [] and check.requests == []
    # The WA figure, two histograms and a series, and the lifetimes' CDF with one line per volume.
    assert check.value["figs"] == 5


def test_a_timed_sweep_shows_latency_against_offered_load(tmp_path, chromium):
    # 2 policies × 2 spares × 3 Poisson rates on a device whose superblock is 64 pages
    # (2 channels × 4 dies × 2 planes × 4 pages), half the requests reads.
    f = tmp_path / "timed.toml"
    f.write_text('name = "timed"\n[base]\nsegments = 64\nwarmup = "fill+2x"\nwrites = "2x"\nreads = 0.5\n'
                 'device = "mqsim:channels=2,dies=4,pages_per_block=4"\n'
                 '[axes]\npolicy = ["greedy", "fifo"]\nspare = [0.1, 0.2]\n'
                 'arrivals = ["poisson:iops=1000", "poisson:iops=4000", "poisson:iops=16000"]\n')
    db = tmp_path / "t.duckdb"
    assert run([load(f)], db, workers=2).ran == 12
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", str(db), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "Latency under load" in page
    for title in ("read latency p99 against load", "read latency p99.9 against load", "write latency p99 against load"):
        assert title in page
    # The task table adds the time columns.
    assert "<th class=\"\">read_latency_p99</th>" in page and "<th class=\"\">die_busy</th>" in page
    check = check_page(out, RENDERED, SCREENSHOT.with_name("report-timed.png"))
    assert check.errors == [] and check.requests == []
    # The arrivals change only the clock: one WA figure (x spare, a line per policy, not a figure
    # per rate), WA over greedy's, its two valid-page distributions and its series; then the three
    # knees, each with a line per (policy, spare): 2 + 2 + 2·2 + 2 + 3·4 traces (no model: a
    # device lays segments on its own geometry).
    assert check.value["figs"] == 5 + 3
    assert check.value["traces"] == 2 + 2 + 2 * 2 + 2 + 3 * 4
    assert check.value["rows"] == 12


def test_a_timed_run_without_a_load_axis_shows_its_latency_tails(tmp_path, chromium):
    # One closed-loop run, half reads: no rate varies, so the page draws the read and write
    # tails from the percentiles the database keeps (p50 … p99.99), one trace each.
    f = tmp_path / "one.toml"
    f.write_text('name = "one"\n[base]\nsegments = 64\nwarmup = "fill+2x"\nwrites = "2x"\nreads = 0.5\n'
                 'device = "mqsim:channels=2,dies=4,pages_per_block=4"\narrivals = "closed:iodepth=4"\n'
                 '[axes]\npolicy = ["greedy"]\n')
    db = tmp_path / "o.duckdb"
    assert run([load(f)], db, workers=1).ran == 1
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", str(db), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "latency tails: share of requests slower than x" in page and "against load (the knee)" not in page
    check = check_page(out, RENDERED, SCREENSHOT.with_name("report-tails.png"))
    assert check.errors == [] and check.requests == []
    # WA, two valid-page distributions, the series, and the tails: one line each, then reads and writes.
    assert check.value["figs"] == 5
    assert check.value["traces"] == 4 + 2
