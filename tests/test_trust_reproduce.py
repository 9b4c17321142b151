"""`reclaim reproduce`: the SepBIT reproduction on a trace set as it comes (volumes that only read,
a folder of volume files, files that are not traces) and every reproduction naming the settings
in which its runs differ from `reclaim simulate`'s defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import reclaim
from reclaim import traces
from reclaim.api import SimConfig
from reclaim.cli import app
from reclaim.reproduce import REPRODUCTIONS
from reclaim.reproduce.common import setting
from reclaim.reproduce.sepbit import PPS, logs_of
from typer.testing import CliRunner

runner = CliRunner()


def msr_lines() -> str:
    """Three MSR volumes: h_0 and h_1 write (4,000 single-page writes each over 300 and 200 pages,
    enough for the log method to collect), h_2 only reads."""
    lines = []
    for i in range(4_000):
        lines.append(f"{128166372000000000 + 3 * i},h,0,Write,{4096 * ((7 * i) % 300)},4096,1\n")
        lines.append(f"{128166372000000001 + 3 * i},h,1,Write,{4096 * ((11 * i) % 200)},4096,1\n")
        if i % 10 == 0:
            lines.append(f"{128166372000000002 + 3 * i},h,2,Read,{4096 * (i % 50)},4096,1\n")
    return "".join(lines)


@pytest.fixture(scope="module")
def trace_set(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("trace-set")
    (d / "t.csv").write_text(msr_lines())
    traces.convert(d / "t.csv", "msr", d / "t.rtr")
    traces.convert(d / "t.csv", "msr", d / "vols", volumes=True)
    (d / "vols" / "notes.txt").write_text("not a trace: a folder's other files are not read\n")
    return {"file": d / "t.rtr", "folder": d / "vols", "db": d / "results.duckdb"}


@pytest.fixture(scope="module")
def file_rows(trace_set: dict[str, Path]) -> dict[str, dict]:
    rows = REPRODUCTIONS["sepbit"].run(trace=trace_set["file"], db=trace_set["db"], workers=1)
    return {r["scheme"]: r for r in rows}


def test_a_volume_that_only_reads_is_skipped_and_named(trace_set: dict[str, Path], file_rows: dict[str, dict]) -> None:
    logs, idle = logs_of(trace_set["file"])
    assert [name for name, _, _ in logs] == ["h_0", "h_1"] and idle == ["h_2"]
    nosep = file_rows["NoSep"]
    assert list(nosep["Greedy volumes"]) == ["h_0", "h_1"]
    assert nosep["only_reads"] == ["h_2"] and nosep["logs"] == 2


def test_each_volume_is_the_log_simulate_runs(trace_set: dict[str, Path], file_rows: dict[str, dict]) -> None:
    # The reproduction's NoSep/greedy cell of a volume is `simulate --method log
    # --pages-per-segment 128 --volume V` on its own, to the last digit.
    nosep = file_rows["NoSep"]
    users = gcs = 0
    for volume in ("h_0", "h_1"):
        r = reclaim.simulate(workload=f"trace:{trace_set['file']}", method="log", policy="greedy", placement="single",
                             pages_per_segment=PPS, volume=volume)
        assert nosep["Greedy volumes"][volume] == r.wa
        users, gcs = users + r.user_writes, gcs + r.gc_writes
    # 4,000 single-page writes a volume, over 300 and 200 pages: the log collects, so WA > 1.
    assert users == 8_000 and gcs > 0
    assert nosep["Greedy"] == pytest.approx((users + gcs) / users, rel=1e-12)


def test_a_folder_of_volume_files_gives_the_same_logs(trace_set: dict[str, Path], file_rows: dict[str, dict]) -> None:
    # `trace convert --volumes` writes h_0.rtr and h_1.rtr (no file for h_2, listed as idle in
    # volumes.json); notes.txt is not a `*.rtr` file and is not read.
    logs, idle = logs_of(trace_set["folder"])
    assert [(name, path.name, volume) for name, path, volume in logs] == [("h_0", "h_0.rtr", None), ("h_1", "h_1.rtr", None)]
    assert idle == ["h_2"]
    rows = {r["scheme"]: r for r in REPRODUCTIONS["sepbit"].run(trace=trace_set["folder"], db=trace_set["db"], workers=1)}
    for scheme in ("NoSep", "SepBIT", "FK"):
        for selection in ("Greedy", "Cost-Benefit"):
            assert rows[scheme][f"{selection} volumes"] == file_rows[scheme][f"{selection} volumes"], (scheme, selection)


def test_a_folder_is_read_in_name_order(tmp_path: Path) -> None:
    for name, pages in (("b", [1, 2, 1]), ("a", [5, 5]), ("c10", [3]), ("c9", [4, 4])):
        traces.write_pages(pages, tmp_path / f"{name}.rtr", source=name)
    logs, idle = logs_of(tmp_path)
    # Name order, as `sorted` gives it: "c10" before "c9".
    assert [name for name, _, _ in logs] == ["a", "b", "c10", "c9"] and idle == []


def test_a_file_of_several_volumes_in_a_folder_gives_one_log_each(trace_set: dict[str, Path], tmp_path: Path) -> None:
    # t.rtr holds h_0, h_1 (writes) and h_2 (reads only); a.rtr one volume of its own.
    (tmp_path / "t.rtr").write_bytes(trace_set["file"].read_bytes())
    traces.write_pages([1, 2, 1], tmp_path / "a.rtr")
    logs, idle = logs_of(tmp_path)
    assert [(name, path.name, volume) for name, path, volume in logs] == [
        ("a", "a.rtr", None), ("t/h_0", "t.rtr", "h_0"), ("t/h_1", "t.rtr", "h_1")]
    assert idle == ["t/h_2"]


def test_files_that_are_not_converted_traces_are_named(tmp_path: Path) -> None:
    traces.write_pages([1, 2, 1], tmp_path / "a.rtr")
    (tmp_path / "b.rtr").write_text("0,W,0,4096\n")
    with pytest.raises(ValueError, match=r"invalid value for `trace`: .*b\.rtr \(not a converted trace, which starts with "
                                         r"RCLMTRC1: convert it first, `reclaim trace convert .*b\.rtr --format FMT"):
        logs_of(tmp_path)
    (tmp_path / "b.rtr").unlink()
    # A truncated file: the reader names the byte where it ends.
    whole = (tmp_path / "a.rtr").read_bytes()
    (tmp_path / "c.rtr").write_bytes(whole[:-3])
    with pytest.raises(ValueError, match=r"c\.rtr, byte \d+: .*truncated"):
        logs_of(tmp_path)
    (tmp_path / "c.rtr").unlink()
    # A link to nothing cannot be read.
    (tmp_path / "d.rtr").symlink_to(tmp_path / "gone.rtr")
    with pytest.raises(ValueError, match=r"invalid value for `trace`: .*d\.rtr \(cannot be read: No such file"):
        logs_of(tmp_path)


def test_a_folder_without_traces_or_a_trace_that_only_reads_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"empty \(a folder without a converted trace: expected one `\*\.rtr` file per volume"):
        logs_of(tmp_path / "empty")
    with pytest.raises(ValueError, match=r"nothere \(no such file or folder\)"):
        logs_of(tmp_path / "nothere")
    (tmp_path / "r.csv").write_text("".join(f"{128166372000000000 + i},h,{i % 2},Read,{4096 * i},4096,1\n" for i in range(10)))
    traces.convert(tmp_path / "r.csv", "msr", tmp_path / "r.rtr")
    with pytest.raises(ValueError, match=r"no volume with writes: h_0, h_1 only read"):
        logs_of(tmp_path / "r.rtr")


def test_the_command_lists_idle_volumes_and_names_its_segments(trace_set: dict[str, Path]) -> None:
    res = runner.invoke(app, ["reproduce", "sepbit", "--trace", str(trace_set["folder"]), "--db", str(trace_set["db"]),
                              "--workers", "1"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())  # the lines as the console wrapped them, joined
    assert "volumes that only read, not replayed: h_2" in text
    # MSR pages are 4 KiB (the converter's default page size): 128 of them are SepBIT's 512 KiB.
    assert "segments of 128 pages of 4 KiB = 512 KiB" in text
    assert "--pages-per-segment 128 (simulate: 64)" in text
    assert "--method log:gp=0.15,room=2 (simulate: precondition" in text
    res = runner.invoke(app, ["reproduce", "sepbit", "--trace", str(trace_set["folder"]), "--db", str(trace_set["db"]),
                              "--workers", "1", "--json"])
    rows = json.loads(res.stdout)
    assert {(r["pages_per_segment"], r["method"]) for r in rows} == {(128, "log:gp=0.15,room=2")}


def test_the_command_refuses_a_bad_folder_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "x.rtr").write_text("not a trace\n")
    res = runner.invoke(app, ["reproduce", "sepbit", "--trace", str(tmp_path), "--db", str(tmp_path / "r.duckdb")])
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and "x.rtr (not a converted trace" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["reproduce", "stockmeyer", "--trace", str(tmp_path), "--db", str(tmp_path / "r.duckdb")])
    assert res.exit_code == 2 and "a folder of volumes is for `sepbit`" in res.output


def test_the_setting_names_what_differs_from_simulate() -> None:
    # Li et al. §5.1 as `li-greedy` runs it: 8 × 1024 segments, the one-free trigger.
    from reclaim.reproduce import li

    text = setting([li.config(f) for f in ("0.2/0.8", "0.8/0.2")])
    assert "--segments 8192 (simulate: 1024" in text and "--gc one-free (simulate: frontier)" in text
    assert "--pages-per-segment 64," in text and "(simulate: 64)" not in text
    assert text.endswith("by row: --workload (locality:fa=0.1,r=0.8/0.2,f=0.2/0.8 | locality:fa=0.1,r=0.8/0.2,f=0.8/0.2); "
                         "the others at simulate's defaults")
    assert setting([]) == ""
    # A value the engine spells out is compared as spelled: `greedy` is simulate's default.
    assert "--policy greedy:tie=random;" in setting([SimConfig(policy="greedy", spare=0.2)])


def test_the_lomet_table1_command_states_its_geometry() -> None:
    from reclaim.reproduce import lomet

    text = setting([lomet.config(f, quick=True) for f in lomet.FILLS])
    # Lomet & Luo Table 1: 512 pages a segment, FIFO; quick runs use 1,000 segments.
    assert "--segments 1000 (simulate: 1024" in text and "--pages-per-segment 512 (simulate: 64)" in text
    assert "--policy fifo (simulate: greedy:tie=random)" in text and "by row: --fill;" in text


def test_a_reproduction_prints_its_setting_under_its_table(tmp_path: Path) -> None:
    # li-greedy (Li et al. §5): 8 × 1024 segments of 64 pages, S = 0.1, the one-free trigger of
    # §2.1, 5M measured writes after a fill and one capacity of warm-up; by row the policy (GRA(d),
    # FIFO), the placement (Fig. 7(a)'s regions) and the workload (Fig. 5's fine-grained one too).
    res = runner.invoke(app, ["reproduce", "li-greedy", "--db", str(tmp_path / "r.duckdb"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert ("as `reclaim simulate` options: --segments 8192 (simulate: 1024; with a trace workload, sized from the trace), "
            "--pages-per-segment 64, --spare 0.1, --gc one-free "
            "(simulate: frontier), --frontier single, --warmup fill+1x (simulate: fill+10x; none with method=precondition), "
            "--writes 5000000 (simulate: 20x; with a trace, 1p), --seed 1; by row: --policy, --placement, --workload "
            "(locality:fa=0.1,r=0.4/0.3/0.2/0.1,f=0.2/0.2/0.3/0.3 | locality:fa=0.1,r=0.8/0.2,f=0.2/0.8 | "
            "locality:fa=0.1,r=0.8/0.2,f=0.8/0.2); the others at simulate's defaults") in text
