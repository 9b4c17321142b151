"""Command-line inputs that were taken without a word or answered beside the point: each is now
an error that names what is wrong, before any work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from reclaim.cli import app
from typer.testing import CliRunner

runner = CliRunner()


def one_task_sweep(tmp_path: Path, axes: str = 'policy = ["greedy"]', segments: int = 64) -> Path:
    """A results database of a small sweep run here (`sweep run`), its axes as TOML."""
    toml = tmp_path / "s.toml"
    toml.write_text(f'[base]\nsegments = {segments}\npages_per_segment = 16\nwrites = "2x"\n[axes]\n{axes}\n')
    db = tmp_path / "r.duckdb"
    assert runner.invoke(app, ["sweep", "run", str(toml), "--db", str(db)]).exit_code == 0
    return db


@pytest.mark.parametrize("args, said", [
    # Ignored: the whole bench (minutes) ran without the policies asked for.
    (["bench", "--policies", "greedy"], "`--policies` is for `--compare` or `--sizes` only"),
    # Named before any timing.
    (["bench", "--sizes", "--policies", "greedy,nosuch"], "invalid value for `policy`: `nosuch`"),
    # `trace:` was taken for the current folder and answered about its missing volumes.json.
    (["simulate", "--workload", "trace:"], "`trace:` (expected `trace:PATH`"),
    # `120:20` was rescaled without a word to 85.7:14.3 (Lomet & Luo's skews are m : 100 − m).
    (["model", "hot-cold-slack", "--fill", "0.8", "--skew", "120:20"], "expected two positive percentages summing to 100"),
    # Reported as `spare`: 0.0, the value of 1 − (1 − 1e-300).
    (["model", "mean-field", "--spare", "1e-300"], "invalid value for `--spare`: 1e-300"),
])
def test_a_bad_argument_is_named_before_any_work(args: list[str], said: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert said in res.output


def test_a_folder_without_an_index_says_so(tmp_path: Path) -> None:
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{tmp_path}"])
    assert res.exit_code == 2
    assert "this folder has no volumes.json" in " ".join(res.output.split())
    assert "Errno" not in res.output


def test_a_whole_number_past_64_bits_is_echoed_as_given() -> None:
    # It reached the engine's JSON reader as a float: `seed`: 1.1805916207174112e+21.
    from reclaim import simulate

    with pytest.raises(ValueError, match=r"invalid value for `seed`: 1180591620717411303424 \(expected a whole number in \[0, 2⁶⁴\)\)"):
        simulate(seed=2**70)


def test_a_one_page_trace_is_one_page() -> None:
    from reclaim import simulate

    r = simulate(workload=[0] * 100)
    assert any("for 1 page)" in w for w in r.warnings), r.warnings


def test_a_failed_simulation_of_a_reproduction_is_named_as_a_command(tmp_path: Path) -> None:
    # It was a dump of the canonical configuration as a Python dict.
    from reclaim.experiments.batch import results

    bad = tmp_path / "pages.txt"
    bad.write_text("1\n2\nabc\n")
    with pytest.raises(RuntimeError) as e:
        results([{"workload": f"trace:{bad}", "pages_per_segment": 4}], sweep="reproduce:x", workers=1)
    assert f"line 3: an unsigned integer `page` expected; found `abc` (reclaim simulate --workload trace:{bad} --pages-per-segment 4)" in str(e.value)
    assert "{" not in str(e.value)


def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    # `reclaim … | head -1`: the reader has what it wanted; no error line (a query's rows said
    # "cannot write the output: standard output: Broken pipe"), status 1 as click gives it.
    import subprocess
    import sys

    db = one_task_sweep(tmp_path)
    for command in (f"results query {db} 'SELECT * FROM range(1000000)' --limit 0 --csv", "schemes"):
        ran = subprocess.run(["bash", "-c", f"{sys.executable} -m reclaim.cli {command} | head -c 1 > /dev/null; echo ${{PIPESTATUS[0]}}"],
                             capture_output=True, text=True, timeout=120)
        assert ran.stderr == "", (command, ran.stderr)
        assert ran.stdout.strip() == "1", (command, ran.stdout)


def test_a_sparse_trace_renamed_for_the_run_takes_memory_by_its_writes(tmp_path: Path) -> None:
    # 200,000 random ids below 2³² kept as they are: renaming them for `precondition` took a
    # 16 KiB block per page written (3.0 GB peak); the map it now uses follows the writes.
    import subprocess
    import sys

    import numpy as np
    from reclaim import simulate, traces

    ids = np.random.default_rng(5).integers(0, 2**32 - 2, size=200_000)
    (tmp_path / "sp.pages").write_text("\n".join(map(str, ids.tolist())) + "\n")
    traces.convert(tmp_path / "sp.pages", "pages", tmp_path / "kept.rtr")
    traces.convert(tmp_path / "sp.pages", "pages", tmp_path / "renamed.rtr", rename=True)
    kept, renamed = (simulate(workload=f"trace:{tmp_path / n}", pages_per_segment=16) for n in ("kept.rtr", "renamed.rtr"))
    # The same names, in first-write order, either way: the same run.
    assert (kept.wa, kept.gc_writes, kept.simulated_segments) == (renamed.wa, renamed.gc_writes, renamed.simulated_segments)
    # VmHWM, the peak of this process image: getrusage's ru_maxrss keeps the forking parent's
    # peak across exec on Linux (pytest's own, 550 MB here).
    code = (f"import re, reclaim; reclaim.simulate(workload='trace:{tmp_path / 'kept.rtr'}', pages_per_segment=16); "
            "print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))")
    peak_mb = int(subprocess.run([sys.executable, "-c", code], check=True, timeout=120, capture_output=True, text=True).stdout) / 1024
    assert peak_mb < 500, peak_mb


def test_a_server_that_accepts_and_says_nothing_is_not_waited_for(tmp_path: Path, monkeypatch: Any) -> None:
    # A server that accepts the connection and never answers (or answers HTTP) held Dask's
    # client past its own 10 s timeout for minutes, with nothing printed: the whole connection
    # now has a deadline (20 s; 2 s here).
    import socket
    import threading

    from reclaim.experiments import sweep

    monkeypatch.setattr(sweep, "CONNECT_DEADLINE", 2.0)
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    toml = tmp_path / "s.toml"
    toml.write_text('[base]\nsegments = 64\npages_per_segment = 16\nwrites = "2x"\n[axes]\npolicy = ["greedy"]\n')
    try:
        res = runner.invoke(app, ["sweep", "run", str(toml), "--db", str(tmp_path / "r.duckdb"), "--scheduler", f"tcp://127.0.0.1:{port}"])
    finally:
        stop.set()
        t.join()
        for c in accepted:
            c.close()
        server.close()
    assert res.exit_code == 2, res.output
    assert f"tcp://127.0.0.1:{port}: nothing answered as a Dask scheduler" in " ".join(res.output.split())


def test_a_sweep_row_names_no_frontier_beside_its_placement(tmp_path: Path) -> None:
    # The `frontier` column said `single` beside a `dac` placement (the alias's unused default).
    from reclaim.experiments.store import query

    db = one_task_sweep(tmp_path, 'placement = ["dac", "sepbit"]', segments=256)
    _, rows = query(db, "SELECT placement, frontier FROM tasks ORDER BY placement")
    assert [r[1] for r in rows] == [None, None] and [r[0].split(":")[0] for r in rows] == ["dac", "sepbit"]
    assert one_task_sweep(tmp_path, 'frontier = ["single", "double"]', segments=256) == db
    _, rows = query(db, "SELECT frontier FROM tasks WHERE placement IS NULL ORDER BY frontier")
    assert [r[0] for r in rows] == ["double:copy=random", "single"]


@pytest.mark.parametrize("sig, status", [(2, 130), (15, 143)])
def test_a_long_query_stops_at_once_on_a_signal(tmp_path: Path, sig: int, status: int) -> None:
    # A join's aggregate (about 25 s) ran on past SIGINT and SIGTERM: DuckDB looks for a signal
    # only in some operators. The query now runs beside the main thread, which interrupts it.
    import subprocess
    import sys
    import time

    db = one_task_sweep(tmp_path)
    p = subprocess.Popen([sys.executable, "-m", "reclaim.cli", "results", "query", str(db),
                          "SELECT sum(a.range * b.range) FROM range(100000) a, range(100000) b"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    p.send_signal(sig)
    sent = time.monotonic()
    _, err = p.communicate(timeout=60)
    # Within 2 s of the signal (a full run is some 25 s), with the stop's own word.
    assert (p.returncode, err.strip()) == (status, "interrupted" if sig == 2 else "terminated")
    assert time.monotonic() - sent < 2.0


def test_a_plot_is_written_where_it_is_named(tmp_path: Path) -> None:
    # matplotlib added `.png` to a name without a suffix (`--plot /dev/full` wrote
    # /dev/full.png and said nothing); a full output is named with its cause.
    from reclaim import traces

    traces.write_pages([1, 2, 3, 1, 2, 1], tmp_path / "t.rtr")
    res = runner.invoke(app, ["trace", "stats", str(tmp_path / "t.rtr"), "--plot", str(tmp_path / "curve")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "curve").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and not (tmp_path / "curve.png").exists()
    res = runner.invoke(app, ["trace", "stats", str(tmp_path / "t.rtr"), "--plot", "/dev/full"])
    assert res.exit_code == 2
    assert "/dev/full: cannot write the figure: No space left on device" in res.output
