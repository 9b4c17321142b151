"""The command line: `reclaim simulate --json` and its errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from reclaim.cli import app
from typer.testing import CliRunner

runner = CliRunner()


def test_simulate_json_has_metric_names_rates_and_config():
    res = runner.invoke(app, ["simulate", "--segments", "128", "--pages-per-segment", "16", "--spare", "0.2",
                              "--policy", "d-choices:d=10", "--workload", "hotcold:r=0.8,f=0.2",
                              "--warmup", "fill+1x", "--writes", "3x", "--json", "-q"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    for k in ["user_writes", "gc_writes", "erases", "wa", "wamp", "cleaning_cost", "emptiness_at_clean", "gcu",
              "collected", "emptied", "work_rd_live", "work_rd_all", "wear_leveling_index", "seconds",
              "user_writes_per_second", "page_writes_per_second", "config"]:
        assert k in d, k
    assert d["config"]["policy"] == "d-choices:d=10"
    assert d["config"]["workload"] == "hotcold:r=0.8,f=0.2"
    assert d["page_writes_per_second"] == pytest.approx(d["user_writes_per_second"] * d["wa"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--spare", "0"], "invalid value for `spare`: 0 (expected a number in (0, 1))"),
        (["--policy", "d-choices:d=0"], "invalid value for `policy.d`: 0 (expected a whole number in [1, segments = 1024])"),
        (["--workload", "zipf:theta=-1"], "invalid value for `workload.theta`: -1"),
        (["--warmup", "fill+x"], "invalid value for `warmup`"),
    ],
)
def test_bad_values_exit_2_with_message(args, message):
    res = runner.invoke(app, ["simulate", "-q", *args])
    assert res.exit_code == 2
    assert message in " ".join(res.output.split())


def test_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "reclaim.cli", "simulate", "--segments", "64", "--pages-per-segment", "8",
                          "--writes", "2x", "--warmup", "fill", "--json", "-q"], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["user_writes"] == round(64 * 8 * 0.9) * 2
