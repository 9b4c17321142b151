"""Traces from the command line and the API: samples, fixtures, errors, replay, statistics."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import reclaim
from reclaim import traces
from reclaim.cli import app
from typer.testing import CliRunner

runner = CliRunner()

# SOURCES.md of ../shared/data/traces: requests / writes of each sample.
SAMPLES = [
    ("cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines", "fiu", 9_998, 1_102),
    ("Installing_log181.txt", "biotracer", 17_952, 17_640),
    ("Booting_log176.txt", "biotracer", 18_417, 6_090),
    ("tpcc-small.trace", "mqsim", 6_999, 2_618),
]


@pytest.mark.parametrize("name, fmt, requests, writes", SAMPLES)
def test_samples_convert_with_published_counts(shared_dir, tmp_path, name, fmt, requests, writes):
    out = tmp_path / "t.rtr"
    res = runner.invoke(app, ["trace", "convert", str(shared_dir / "data" / "traces" / name), "-f", fmt, "-o", str(out), "--json"])
    assert res.exit_code == 0, res.output
    meta = json.loads(res.stdout)
    assert (meta["requests"], meta["writes"]) == (requests, writes)
    t = traces.load(out)
    assert len(t.pages) == meta["pages_written"] == int(t.request_pages.sum())
    assert len(np.unique(t.pages)) == meta["unique_pages"]


def test_fiu_framing_is_reported(shared_dir, tmp_path):
    res = runner.invoke(app, ["trace", "convert", str(shared_dir / "data" / "traces" / SAMPLES[0][0]), "-f", "fiu",
                              "-o", str(tmp_path / "t.rtr")])
    assert res.exit_code == 0
    assert "1,536 bytes on 3 lines before the first record" in " ".join(res.output.split())


def test_malformed_line_exits_2_naming_file_line_and_expectation(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("0,20941264,8192,W,0.551706\n0,20941264,8192,X,0.6\n")
    res = runner.invoke(app, ["trace", "convert", str(bad), "-f", "spc", "-o", str(tmp_path / "o.rtr")])
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    assert "bad.csv, line 2: `Opcode` r or w (unknown opcode) expected; found `0,20941264,8192,X,0.6`" in text
    res = runner.invoke(app, ["trace", "convert", str(bad), "-f", "spc", "-o", str(tmp_path / "o.rtr"), "--skip-bad-lines"])
    assert res.exit_code == 0
    assert "skipped 1 bad line(s) where `Opcode` r or w (unknown opcode) was expected" in " ".join(res.output.split())


def test_replay_equals_page_list_through_the_api(tmp_path):
    # The same page ids, once converted from a text page list and once given as an array.
    rng = np.random.default_rng(7)
    pages = rng.integers(0, 3000, size=20_000).astype(np.uint32)
    text = tmp_path / "pages.txt"
    text.write_text("\n".join(map(str, pages)) + "\n")
    out = tmp_path / "pages.rtr"
    assert runner.invoke(app, ["trace", "convert", str(text), "-f", "pages", "-o", str(out)]).exit_code == 0
    common = dict(pages_per_segment=16, spare=0.15, policy="greedy", method="li", warmup="fill+2x", writes="3p", seed=3)
    a = reclaim.simulate(workload=f"trace:{out}", **common)
    b = reclaim.simulate(workload=pages, **common)
    assert (a.user_writes, a.gc_writes, a.erases) == (b.user_writes, b.gc_writes, b.erases)
    assert a.user_writes == 3 * len(pages)
    # Without `segments` the logical space is the trace's address space (Li et al. §6.1).
    assert a.simulated_logical_pages >= int(pages.max()) + 1
    # One time-series window per pass.
    assert len(a.series["wa"]) == 3


def test_fit_recovers_a_known_locality_workload():
    # Li et al. §2.2: pages with ≥ 20 writes are type 1, ≥ 5 type 2, the rest type 3.
    pages = np.concatenate([np.repeat(np.arange(10), 40), np.repeat(np.arange(10, 30), 6), np.arange(30, 100)])
    fit = traces.fit_locality(traces.access_counts(pages), [20, 5], fa=0.1)
    total = 400 + 120 + 70
    assert fit["r"] == pytest.approx([400 / total, 120 / total, 70 / total])
    assert fit["f"] == pytest.approx([10 / 100, 20 / 100, 70 / 100])


def test_stats_cli_json_and_plot(shared_dir, tmp_path):
    plot = tmp_path / "freq.png"
    res = runner.invoke(app, ["trace", "stats", str(shared_dir / "data" / "traces" / "tpcc-small.trace"), "-f", "mqsim",
                              "--json", "--plot", str(plot)])
    assert res.exit_code == 0, res.output
    st = json.loads(res.stdout)
    assert st["requests"] == 6_999 and st["writes"] == 2_618
    assert st["fit"]["n"] == 3 and sum(st["fit"]["r"]) == pytest.approx(1.0)
    assert st["access_frequency"][0] == st["max_writes_per_page"]
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_text_trace_needs_a_format(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("1\n")
    res = runner.invoke(app, ["trace", "stats", str(p)])
    assert res.exit_code == 2 and "give its `--format`" in res.output


@pytest.mark.slow
def test_li_evaluation_on_a_biotracer_sample(shared_dir):
    # Li et al. §6.2–6.3: cleaning cost grows from GREEDY to RANDOM while the wear-leveling index
    # improves; oracle data grouping cuts the cleaning cost below GREEDY's (by > 87% in §6.2).
    from reclaim.evaluate import evaluate

    t = traces.load_or_convert(shared_dir / "data" / "traces" / "Booting_log176.txt", "biotracer")
    rows = {r["algorithm"]: r for r in evaluate(t, warmup_writes=2_000_000)}
    cost = [rows[a]["normalized_cleaning_cost"] for a in ("GREEDY (d=1)", "GRA d=N/2", "GRA d=3N/4", "RANDOM (d=N)")]
    wli = [rows[a]["wear_leveling_index"] for a in ("GREEDY (d=1)", "RANDOM (d=N)")]
    assert cost == sorted(cost) and cost[0] < cost[-1]
    assert wli[0] < wli[1]
    assert rows["grouping n=2"]["normalized_cleaning_cost"] < 0.13 * cost[0]
    assert sum(rows["grouping n=2"]["allocation"]) == pytest.approx(1.0)


def test_li_grouping_raises_a_region_too_small_to_run(tmp_path):
    # 20,000 writes over 5,000 pages in 98 blocks of 64: the 104 pages never written take 3 blocks,
    # the 4,896 written 76.5, leaving 18.5 spare. The 26 pages written ten times or more get
    # b_c* ≈ 0.009 of them, less than a region runs with (its data, an open block, one kept free,
    # one to clean into: 3.59 spare blocks). The share is raised to that and the run goes ahead.
    from reclaim.evaluate import evaluate

    pages = np.random.default_rng(2).integers(0, 5000, 20000)
    p = tmp_path / "pages.rtr"
    traces.write_pages(pages, p)
    rows = {r["algorithm"]: r for r in evaluate(traces.load(p), warmup_writes=10_000)}
    g = rows["grouping n=2"]
    assert g["raised"] == [0]
    assert g["allocation"][0] == pytest.approx((1 + 2 + 1 - 26 / 64) / (98 - 3 - 4896 / 64))
    assert sum(g["allocation"]) == pytest.approx(1.0)
    assert g["trace_writes"] == 20_000


def test_trace_prefix_warmup_is_not_measured(tmp_path):
    # Stockmeyer §2.1–2.3: fill, uniform writes, then the first part of the trace as warm-up and
    # the rest measured.
    pages = np.random.default_rng(1).integers(0, 2000, size=10_000).astype(np.uint32)
    r = reclaim.simulate(workload=pages, pages_per_segment=16, spare=0.2, method="stockmeyer", warmup="fill+2x+25%")
    assert r.user_writes == 7_500
    with pytest.raises(ValueError, match="a trace prefix"):
        reclaim.simulate(warmup="fill+25%", segments=64, pages_per_segment=8)


def _reference_pages(path: Path, fmt: str) -> tuple[int, int]:
    """An independent, plain-Python reading of a sample: (page writes, unique pages) at 4 KiB, a
    page being a (device, page) pair: devices never share pages."""
    written: list[tuple[str, int]] = []
    for raw in path.read_bytes().split(b"\n"):
        f = raw.split(b"\x00")[-1].decode(errors="replace").split()
        if fmt == "fiu" and len(f) == 9 and f[5] == "W":
            start, size, dev = int(f[3]) * 512, int(f[4]) * 512, f"{f[6]} {f[7]}"
        elif fmt == "biotracer" and len(f) == 8 and int(f[3]) % 2 == 1:
            start, size, dev = int(f[0]) * 512, int(f[2]), ""
        elif fmt == "mqsim" and len(f) == 5 and f[4] == "0":
            start, size, dev = int(f[2]) * 512, int(f[3]) * 512, f[1]
        else:
            continue
        written.extend((dev, p) for p in range(start // 4096, (start + size - 1) // 4096 + 1))
    return len(written), len(set(written))


@pytest.mark.parametrize("name, fmt, requests, writes", SAMPLES)
def test_sample_pages_match_an_independent_reading(shared_dir, name, fmt, requests, writes):
    path = shared_dir / "data" / "traces" / name
    t = traces.load_or_convert(path, fmt)
    assert (t.meta["pages_written"], t.meta["unique_pages"]) == _reference_pages(path, fmt)


def test_simulate_names_its_method_and_warns_on_stderr(tmp_path):
    # 1,000 pages written, ids 50 apart: the address space is 50 times the working set.
    rng = np.random.default_rng(3)
    pages = (np.concatenate([np.arange(1000), rng.integers(0, 1000, size=9000)]) * 50).astype(np.uint32)
    out = tmp_path / "sparse.rtr"
    traces.write_pages(pages, out)
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{out}", "--pages-per-segment", "8", "--quiet"])
    assert res.exit_code == 0, res.output
    # The default preconditions with the trace itself, and says so beside the metrics.
    assert "method precondition:tol=0.01,max_passes=10,measure=settled" in res.stdout
    assert "(settled)" in res.stdout and "warning" not in res.stderr
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{out}", "--pages-per-segment", "8", "--quiet",
                              "--method", "li", "--warmup", "fill+1x", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["method"]["method"] == "li" and data["method"]["working_set"] == 1000
    # Li et al.'s uniform warm-up over an address space the trace touches 2% of: warned, on
    # stderr and in the JSON alike.
    assert len(data["warnings"]) == 1 and "the trace writes only 1000 of them" in data["warnings"][0]
    assert f"warning: {data['warnings'][0]}" in res.stderr


def test_log_method_reports_its_trigger_and_each_volume_is_a_log(tmp_path):
    # Alibaba CSV, two volumes: each fills 2,000 blocks, then rewrites a hot tenth 90% of the time.
    rng = np.random.default_rng(6)
    lines = [f"{v},W,{b * 4096},4096,{b}" for v in (0, 1) for b in range(2000)]
    for i in range(40000):
        v = int(rng.integers(0, 2))
        b = int(rng.integers(0, 200)) if rng.random() < 0.9 else int(rng.integers(200, 2000))
        lines.append(f"{v},W,{b * 4096},4096,{4000 + i}")
    text = tmp_path / "ali.csv"
    text.write_text("\n".join(lines) + "\n")
    out = tmp_path / "ali.rtr"
    assert runner.invoke(app, ["trace", "convert", str(text), "-f", "alibaba", "-o", str(out)]).exit_code == 0
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{out}", "--volume", "0", "--method", "log",
                              "--pages-per-segment", "32", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    log = data["method"]["log"]
    # One pass from empty, every write measured; one segment collected per trigger that found one.
    assert data["user_writes"] == sum(1 for ln in lines if ln.startswith("0,"))
    assert data["erases"] == log["triggers"] - log["passed"] > 0
    # The log floats near working set / (1 − 0.15) = 2,353 pages = 73.5 segments of 32, plus the
    # open segment: never more than the pages ever written.
    assert 73 <= log["peak_segments"] <= 80
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{out}", "--method", "log", "--pages-per-segment", "32"])
    assert res.exit_code == 0, res.output
    assert "overall" in res.stdout and "method log:gp=0.15,room=2 on each volume" in res.stdout


def test_volumes_are_kept_apart_and_run_each_on_a_device_of_its_own(tmp_path):
    # A DiskSim trace of three devices writing the same blocks and one that only reads.
    rng = np.random.default_rng(4)
    lines = [f"{i * 0.5} {d} {8 * b} 8 0" for i, (d, b) in enumerate(zip(rng.integers(0, 3, 6000), rng.integers(0, 400, 6000)))]
    lines.append("9999.0 7 0 8 1")
    text = tmp_path / "devs.trace"
    text.write_text("\n".join(lines) + "\n")
    res = runner.invoke(app, ["trace", "convert", str(text), "-f", "disksim", "-o", str(tmp_path / "all.rtr"), "--json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["trace", "stats", str(tmp_path / "all.rtr"), "--json"])
    st = json.loads(res.stdout)
    first_seen = list(dict.fromkeys(ln.split()[1] for ln in lines))
    assert st["volumes"] == 4 and [v["name"] for v in st["volume_list"]] == first_seen
    # Unique pages add up over the devices: the same block of two devices is two pages.
    assert st["unique_pages"] == sum(v["unique_pages"] for v in st["volume_list"])
    assert st["unique_pages"] == sum(len({b for d, b in zip(*_devs(lines)) if d == k}) for k in range(3))
    res = runner.invoke(app, ["trace", "convert", str(text), "-f", "disksim", "-o", str(tmp_path / "vols"), "--volumes"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "vols").iterdir()) == ["0.rtr", "1.rtr", "2.rtr", "volumes.json"]
    a = reclaim.volumes.simulate_volumes(workload=f"trace:{tmp_path / 'all.rtr'}", pages_per_segment=8, workers=1)
    b = reclaim.volumes.simulate_volumes(workload=f"trace:{tmp_path / 'vols'}", pages_per_segment=8, workers=2)
    assert a.idle == b.idle == ["7"]
    assert {n: r.gc_writes for n, r in a.volumes.items()} == {n: r.gc_writes for n, r in b.volumes.items()}
    # The overall WA is the sum of all writes over the sum of user writes (SepBIT's).
    u = sum(r.user_writes for r in a.volumes.values())
    g = sum(r.gc_writes for r in a.volumes.values())
    assert (a.user_writes, a.gc_writes) == (u, g) == (6000, g)
    assert a.wa == pytest.approx((u + g) / u, rel=1e-15)
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{tmp_path / 'all.rtr'}", "--volume", "each",
                              "--pages-per-segment", "8", "--workers", "1", "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert len(data["volumes"]) == 3 and data["idle_volumes"] == ["7"] and data["wa"] == pytest.approx(a.wa)
    # One volume by name is that volume's run.
    one = reclaim.simulate(workload=f"trace:{tmp_path / 'all.rtr'}", volume="2", pages_per_segment=8)
    assert one.gc_writes == a.volumes["2"].gc_writes
    with pytest.raises(ValueError, match=r"one of the trace's 4 volumes"):
        reclaim.simulate(workload=f"trace:{tmp_path / 'all.rtr'}", pages_per_segment=8)


def _devs(lines: list[str]) -> tuple[list[int], list[int]]:
    fields = [ln.split() for ln in lines if ln.split()[4] == "0"]
    return [int(f[1]) for f in fields], [int(f[2]) // 8 for f in fields]


def test_lifetimes_are_write_reuse_distances() -> None:
    # Brute force: each write's distance back to the same page's previous write.
    rng = np.random.default_rng(5)
    pages = rng.integers(0, 300, size=5000).astype(np.uint32)
    last: dict[int, int] = {}
    expected = []
    for t, p in enumerate(pages.tolist()):
        if p in last:
            expected.append(t - last[p])
        last[p] = t
    assert traces.reuse_distances(pages).tolist() == expected
    lt = traces.lifetimes(pages)
    ws = len(set(pages.tolist()))
    assert lt["working_set"] == ws and lt["rewrites"] == len(expected)
    assert lt["within"]["0.1"] == sum(d <= 0.1 * ws for d in expected) / len(pages)
    assert sum(lt["lifetime_histogram_log2"]) == len(expected)
    assert lt["lifetime_histogram_log2"][3] == sum(8 <= d < 16 for d in expected)


def test_a_sweep_runs_every_volume_and_the_database_gives_the_overall_wa(tmp_path):
    from reclaim.experiments import frame, load, run

    rng = np.random.default_rng(6)
    lines = [f"{i * 0.5} {d} {8 * b} 8 0" for i, (d, b) in enumerate(zip(rng.integers(0, 4, 8000), rng.integers(0, 300, 8000)))]
    (tmp_path / "t.trace").write_text("\n".join(lines) + "\n")
    traces.convert(tmp_path / "t.trace", "disksim", tmp_path / "t.rtr")
    (tmp_path / "v.toml").write_text('name = "vols"\n[base]\nworkload = "trace:t.rtr"\nvolume = "each"\npages_per_segment = 8\n'
                                     '[axes]\npolicy = ["greedy", "fifo"]\n')
    exp = load(tmp_path / "v.toml")
    tasks = exp.tasks()
    # One task per volume and policy, each named by its volume.
    assert len(tasks) == 8 and sorted({t.point["volume"] for t in tasks}) == ["0", "1", "2", "3"]
    db = tmp_path / "r.duckdb"
    run([exp], db, workers=1)
    rows = frame(db, "SELECT t.policy, sum(t.user_writes + t.gc_writes) / sum(t.user_writes) AS wa, count(*) AS n, "
                           "bool_and(t.replay_method LIKE 'precondition%') AS pre FROM tasks t JOIN sweep_tasks s USING (key) "
                           "WHERE s.sweep = 'vols' GROUP BY t.policy ORDER BY t.policy").to_dict("records")
    direct = reclaim.volumes.simulate_volumes(workload=f"trace:{tmp_path / 't.rtr'}", pages_per_segment=8, policy="fifo", workers=1)
    fifo = [r for r in rows if r["policy"] == "fifo"][0]
    assert fifo["n"] == 4 and fifo["pre"] and fifo["wa"] == pytest.approx(direct.wa, rel=1e-12)
