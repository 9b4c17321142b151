"""Command-line inputs that were taken without a word or answered beside the point: each is now
an error that names what is wrong, before any work."""

from __future__ import annotations

from pathlib import Path

from reclaim.cli import app
from typer.testing import CliRunner

runner = CliRunner()


def test_bench_policies_without_compare_or_sizes_is_an_error() -> None:
    # It was ignored: the whole bench (minutes) ran without the policies asked for.
    res = runner.invoke(app, ["bench", "--policies", "greedy"])
    assert res.exit_code == 2
    assert "`--policies` is for `--compare` or `--sizes` only" in res.output


def test_bench_names_an_unknown_policy_before_timing_anything() -> None:
    res = runner.invoke(app, ["bench", "--sizes", "--policies", "greedy,nosuch"])
    assert res.exit_code == 2
    assert "invalid value for `policy`: `nosuch`" in res.output


def test_an_empty_trace_path_is_named_as_such() -> None:
    # `trace:` was taken for the current folder and answered about its missing volumes.json.
    res = runner.invoke(app, ["simulate", "--workload", "trace:"])
    assert res.exit_code == 2
    assert "`trace:` (expected `trace:PATH`" in res.output


def test_a_folder_without_an_index_says_so(tmp_path: Path) -> None:
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{tmp_path}"])
    assert res.exit_code == 2
    assert "this folder has no volumes.json" in " ".join(res.output.split())
    assert "Errno" not in res.output
