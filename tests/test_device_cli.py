"""Timed runs from the command line and in the results database: `--device`, `--arrivals` and
`--reads` reach the engine, the second table and `--json` carry the clock's figures, the database
keeps them (NULL without a device) and a killed timed sweep resumes; bad values of each timed
parameter get one line naming parameter, value and range (docs/device.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest
import reclaim
from reclaim import cli, traces
from reclaim.cli import common as cli_common
from reclaim.device import LATENCY_FIELDS, WINDOW_FIELDS
from reclaim.experiments import load, query, run
from reclaim.experiments import store as store_mod

RECLAIM = [sys.executable, "-m", "reclaim.cli"]
#: Four dies (2 channels × 2), 16 pages per block: a superblock of 64 pages, runs of milliseconds.
SMALL_DEVICE = "femu:channels=2,dies=2,pages_per_block=16"
#: Reads only, one outstanding, on FEMU's times (hw/femu/bbssd/ftl.h: tR 40 µs, no transfer
#: time): each read takes tR alone, so IOPS = 1 / 40 µs = 25,000, MB/s = 25,000 × 4,096 B = 102.4,
#: and one die of the four is busy at a time (die busy 0.25); nothing is written, nothing cleaned.
READS_ONLY = ["--segments", "64", "--writes", "1x", "--device", SMALL_DEVICE, "--reads", "1", "--arrivals", "closed:iodepth=1"]


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The command line in this process: (exit status, stdout, stderr)."""
    old = sys.argv
    sys.argv = ["reclaim", *argv]
    try:
        cli.main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = old
        cli_common.DEBUG = False
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def untimed_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A converted trace of page ids alone: no request times."""
    p = tmp_path_factory.mktemp("t") / "pages.rtr"
    traces.write_pages(np.random.default_rng(3).integers(0, 3000, 20000), p)
    return p


# (extra arguments, what the one line must say): parameter, value, and the unit or range.
BAD = [
    (["--device", "femu:dies=0"], ["`device.dies`: 0", "a whole number in [1, 1024]"]),
    (["--device", "femu:tr=40"], ["`device.tr`: `40` (no unit)", "(ns, us, ms or s)", "e.g. 40us"]),
    (["--device", "femu:tr=-4us"], ["`device.tr`: `-4us`", "in (0, 1s]"]),
    (["--device", "femu:tbers=20s"], ["`device.tbers`: `20s`", "in (0, 10s]"]),
    (["--device", "femu:pages_per_block=70000"], ["`device.pages_per_block`: 70000", "[1, 65536]"]),
    (["--device", "femu:page_size=3"], ["`device.page_size`: `3`", "[512, 1048576]"]),
    # FEMU's 8 × 8 dies × 4,096 pages per block: a superblock of 262,144 pages, over 65,536.
    (["--device", "femu:pages_per_block=4096"], ["`device`", "a superblock of 262144 pages", "≤ 65536"]),
    (["--device", "femu:clean=sometimes"], ["`device.clean`: `sometimes`", "`foreground`, `background` or `free`"]),
    (["--device", "ssd"], ["`device`: `ssd`", "`femu[:", "`mqsim[:"]),
    (["--device", "femu", "--arrivals", "trace"], ["`arrivals`: `trace` over a generated workload", "closed:iodepth=N", "poisson:iops=N"]),
    (["--device", "femu", "--arrivals", "closed:iodepth=0"], ["`arrivals.iodepth`: 0", "[1, 65536]"]),
    (["--device", "femu", "--arrivals", "poisson"], ["`arrivals`: `poisson`", "`iops=`", "(0, 1e9]"]),
    (["--device", "femu", "--reads", "1.5"], ["`reads`: 1.5", "[0, 1]"]),
    (["--arrivals", "closed:iodepth=4"], ["`arrivals`: `closed:iodepth=4`", "a `device`"]),
    (["--reads", "0.5"], ["`reads`: 0.5", "a `device`"]),
    (["--device", "femu", "--cache", "100"], ["`cache`: given with a `device`", "no `cache` in a timed run"]),
    (["--device", "femu", "--sizes", "uniform:min=1,max=8"], ["`sizes`: given with a `device`", "no `sizes` in a timed run"]),
    (["--device", "femu", "--streams", "cache"], ["`streams`: `cache` with a `device`", "`hole`"]),
    (["--device", "femu:unit=plane", "--placement", "sepbit"], ["`placement`: `sepbit` with `unit=plane`", "`single`"]),
]


def _api_args(argv: list[str]) -> dict[str, object]:
    """The same arguments as keyword arguments of reclaim.simulate."""
    out: dict[str, object] = {}
    for flag, value in zip(argv[::2], argv[1::2], strict=True):
        key = flag.removeprefix("--").replace("-", "_")
        out[key] = float(value) if key == "reads" else int(value) if key == "cache" else value
    return out


@pytest.mark.parametrize(("argv", "needles"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_timed_parameter_is_one_line_naming_it(argv, needles, capsys):
    code, out, err = run_main(["simulate", "--segments", "64", "--writes", "1x", *argv], capsys)
    assert code == 2, out + err
    text = (out + err).strip()
    assert "\n" not in text and "Traceback" not in text, text
    assert text.startswith("error: invalid value for `"), text
    for needle in needles:
        assert needle in text, (needle, text)
    # The Python API raises the same message (the engine's one check).
    with pytest.raises(ValueError) as e:
        reclaim.simulate(segments=64, writes="1x", **_api_args(argv))  # type: ignore[arg-type]
    assert str(e.value) == text.removeprefix("error: ")


def test_trace_arrivals_over_a_trace_without_times_names_the_others(untimed_trace, capsys):
    code, out, err = run_main(["simulate", "--workload", f"trace:{untimed_trace}", "--device", SMALL_DEVICE,
                               "--arrivals", "trace"], capsys)
    text = (out + err).strip()
    assert code == 2 and "\n" not in text, text
    assert "`arrivals`: `trace` over" in text and "has no request times" in text, text
    assert "`closed:iodepth=N`" in text and "`poisson:iops=N`" in text, text


def test_the_time_table_holds_the_closed_form_of_reads_alone(capsys):
    code, out, err = run_main(["simulate", *READS_ONLY, "--quiet"], capsys)
    assert code == 0, out + err
    lines = {ln.split("│")[1].strip(): [c.strip() for c in ln.split("│")[2:-1]] for ln in out.splitlines() if ln.count("│") == 5}
    assert f"time on {SMALL_DEVICE}, closed:iodepth=1" in " ".join(out.split())
    # Reads, writes, all (see READS_ONLY): 1 / 40 µs.
    assert lines["IOPS"] == ["25,000", "0", "25,000"]
    assert lines["MB/s"][2] == "102.4"
    # tR = 40 µs to HdrHistogram's three significant digits (40.031 µs is 40,000 ns's bucket).
    assert lines["p50 [µs]"][:2] == ["40.0", "—"] and lines["p99.99 [µs]"][0] == "40.0"
    assert lines["die busy (4 dies: mean, max)"][2].startswith("0.250,")
    assert lines["cleaning's share of die time"][2] == "0.000"


def test_json_carries_the_time_and_the_parameters(capsys):
    code, out, err = run_main(["simulate", *READS_ONLY, "--json"], capsys)
    assert code == 0, out + err
    d = json.loads(out)
    assert d["config"]["device"] == SMALL_DEVICE and d["config"]["reads"] == 1.0
    t = d["time"]
    assert (t["device"], t["arrivals"], t["dies"], t["write_requests"]) == (SMALL_DEVICE, "closed:iodepth=1", 4, 0)
    assert t["iops"] == pytest.approx(25_000, rel=1e-9)  # 1 / tR (READS_ONLY)
    assert t["read_latency"]["p50"] == pytest.approx(40.0, rel=1e-3)  # tR, three significant digits
    assert t["read_requests"] == t["read_latency"]["count"] > 0


def test_a_bad_device_in_a_sweep_file_names_the_file_and_the_task(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text('name = "bad"\n[base]\nsegments = 64\n[axes]\ndevice = ["femu", "femu:tr=40"]\n')
    code, out, err = run_main(["sweep", "plan", str(f), "--db", str(tmp_path / "r.duckdb")], capsys)
    text = (out + err).strip()
    assert code == 2 and "\n" not in text, text
    assert "bad.toml: the task device=femu:tr=40: invalid value for `device.tr`: `40` (no unit)" in text, text


def test_schemes_lists_the_devices_and_arrivals_with_their_sources(capsys):
    code, out, _ = run_main(["schemes", "devices", "--json"], capsys)
    assert code == 0
    devices = {s["name"]: s for s in json.loads(out)}
    assert set(devices) == {"femu", "mqsim"}
    assert "ftl.h" in devices["femu"]["source"] and "ssdconfig.xml" in devices["mqsim"]["source"]
    code, out, _ = run_main(["schemes", "arrivals", "--json"], capsys)
    assert {s["name"] for s in json.loads(out)} == {"trace", "poisson", "closed"}


# --- the results database -------------------------------------------------------------------


def test_time_columns_are_the_results_scalars():
    r = reclaim.simulate(segments=64, writes="1x", device=SMALL_DEVICE)
    assert r.time is not None
    scalars = set(r.time.scalars())
    # One name each, in Rust, Python, JSON and the database; none is a parameter's
    # (`reads` and `writes` are a share and an amount: the counts are `read_requests`, ...).
    assert set(store_mod.TIME) == scalars
    assert not scalars & set(store_mod.CONFIG_COLUMNS)
    assert set(WINDOW_FIELDS) <= set(store_mod.SERIES)
    assert {f"read_latency_{k}" for k in LATENCY_FIELDS} <= set(store_mod.TIME)


def write_sweep(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    p = folder / f"{name}.toml"
    p.write_text(f'name = "{name}"\n{text}')
    return p


def test_the_database_keeps_a_timed_runs_figures_and_null_without_a_device(tmp_path):
    db = tmp_path / "r.duckdb"
    timed = write_sweep(tmp_path, "timed", f'[base]\nsegments = 64\nwrites = "1x"\ndevice = "{SMALL_DEVICE}"\n'
                                           'arrivals = "closed:iodepth=1"\n[axes]\nreads = [1.0, 0.0]\n')
    plain = write_sweep(tmp_path, "plain", '[base]\nsegments = 64\nwrites = "1x"\n')
    report = run([load(timed), load(plain)], db, workers=1)
    assert report.ran == 3 and not report.failed
    cols, rows = query(db, "SELECT device, reads, device_spec, arrivals_spec, iops, mb_per_s, read_latency_count, read_latency_p50, "
                           "write_latency_count, write_latency_p99, die_busy, gc_busy FROM tasks ORDER BY reads NULLS LAST")
    got = [dict(zip(cols, r)) for r in rows]
    writes_only, reads_only, untimed = got
    # Reads alone at depth 1 (READS_ONLY): 25,000 IOPS, 102.4 MB/s, tR = 40 µs, no write measured.
    assert reads_only["device"] == reads_only["device_spec"] == SMALL_DEVICE
    assert reads_only["arrivals_spec"] == "closed:iodepth=1"
    assert reads_only["iops"] == pytest.approx(25_000) and reads_only["mb_per_s"] == pytest.approx(102.4)
    assert reads_only["read_latency_p50"] == pytest.approx(40.0, rel=1e-3)
    assert (reads_only["write_latency_count"], reads_only["write_latency_p99"]) == (0, None)
    assert reads_only["gc_busy"] == 0.0
    # Writes alone: no read latency (NULL, not 0), the cleaner busy.
    assert (writes_only["read_latency_count"], writes_only["read_latency_p50"]) == (0, None)
    assert writes_only["write_latency_p99"] > 0 and 0 < writes_only["gc_busy"] < 1
    # No device: every time column NULL.
    assert all(v is None for k, v in untimed.items() if k != "reads"), untimed
    _, series = query(db, "SELECT t.reads, s.requests, s.iops, s.read_mean, s.write_mean, s.die_busy FROM series s JOIN tasks t USING (key) "
                          "ORDER BY t.reads NULLS LAST, s.window_index")
    # Every run has its windows: reads alone (no user write, so no engine window) too.
    assert {r[0] for r in series} == {None, 0.0, 1.0}
    for reads, requests, iops, read_mean, write_mean, die_busy in series:
        if reads is None:
            assert (requests, iops, read_mean, write_mean, die_busy) == (None,) * 5
        elif reads == 1.0:
            assert requests > 0 and iops == pytest.approx(25_000) and write_mean is None and die_busy == pytest.approx(0.25, abs=0.01)
        else:
            assert requests > 0 and read_mean is None and write_mean > 0


def test_a_database_made_before_the_time_columns_gets_them(tmp_path):
    db = tmp_path / "r.duckdb"
    plain = write_sweep(tmp_path, "plain", '[base]\nsegments = 64\nwrites = "1x"\n')
    run([load(plain)], db, workers=1)
    # As a database written before timed runs: none of their columns.
    con = duckdb.connect(str(db))
    for name in store_mod.TIME:
        con.execute(f'ALTER TABLE tasks DROP COLUMN "{name}"')
    for name in ("requests", "span_us", "iops", "mb_per_s", "read_mean", "read_p99", "write_mean", "write_p99", "die_busy"):
        con.execute(f'ALTER TABLE series DROP COLUMN "{name}"')
    for name in ("device", "arrivals", "reads"):
        con.execute(f'ALTER TABLE tasks DROP COLUMN "{name}"')
    con.close()
    timed = write_sweep(tmp_path, "timed", f'[base]\nsegments = 64\nwrites = "1x"\ndevice = "{SMALL_DEVICE}"\nreads = 1.0\n')
    report = run([load(timed), load(plain)], db, workers=1)
    assert (report.already_done, report.ran) == (1, 1)
    _, rows = query(db, "SELECT device, iops FROM tasks ORDER BY device NULLS FIRST")
    # The old row kept with NULLs, the new one whole (1 / tR, READS_ONLY).
    assert rows[0] == (None, None) and rows[1][0] == SMALL_DEVICE and rows[1][1] == pytest.approx(25_000)
    _, rows = query(db, "SELECT count(*), count(iops) FROM series")
    assert rows[0][0] > rows[0][1] > 0


def test_a_killed_timed_sweep_resumes_without_loss_or_duplicates(tmp_path):
    db = tmp_path / "r.duckdb"
    # 120 timed tasks of some 25 ms each (32 superblocks of 1,024 pages, reads and writes): seconds.
    f = write_sweep(tmp_path, "kill", 'replications = 60\n[base]\nsegments = 32\nwrites = "2x"\ndevice = "femu:channels=2,dies=2"\n'
                                      'arrivals = "closed:iodepth=8"\n[axes]\nreads = [0.0, 0.5]\n')
    p = subprocess.Popen([*RECLAIM, "sweep", "run", str(f), "--workers", "2", "--db", str(db), "--log-interval", "0"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # Without a terminal the sweep logs each write ("sweep: N of 120 tasks written"): kill
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
    assert 0 < kept < 120, kept
    # What was written is whole: every timed row has its figures and its series.
    assert query(db, "SELECT count(*) FROM tasks WHERE iops IS NULL OR write_latency_p99 IS NULL")[1] == [(0,)]
    assert query(db, "SELECT count(*) FROM series WHERE key NOT IN (SELECT key FROM tasks)")[1] == [(0,)]
    report = run([load(f)], db, workers=2)
    assert (report.already_done, report.ran) == (kept, 120 - kept)
    assert query(db, "SELECT count(*), count(DISTINCT key), count(iops) FROM tasks")[1] == [(120, 120, 120)]
    # Two writes of the logical capacity at 32 × 1,024 pages and the default spare, in windows
    # of the logical capacity: two windows a task, each with the clock's columns.
    assert query(db, "SELECT count(*), count(iops) FROM series")[1] == [(240, 240)]
