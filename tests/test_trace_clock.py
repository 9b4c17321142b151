"""A trace whose clock goes backwards: before a scheme that reads the trace's time (SepBIT's
cost-benefit, WARCIP, SFS, cost-hotness, …) sees it, each time is held at the latest before it,
and the run says so in one warning line. A scheme that reads no time is not told."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from reclaim import simulate, traces


def msr(path: Path, backwards: bool) -> Path:
    """An MSR Cambridge CSV of 40,000 uniform 4 KiB writes over 2,000 pages, 1 ms apart (times in
    100 ns units); with ``backwards``, every 1,000th request is stamped 0.25 s before the one
    before it (39 steps back, the first at request 1,000)."""
    rng = np.random.default_rng(3)
    lines = []
    for i in range(40_000):
        t = 128_166_372_000_000_000 + i * 10_000
        if backwards and i % 1_000 == 0 and i > 0:
            t -= 2_500_000 + 10_000
        lines.append(f"{t},h,0,Write,{4096 * int(rng.integers(0, 2_000))},4096,1\n")
    (path / "t.csv").write_text("".join(lines))
    traces.convert(path / "t.csv", "msr", path / "t.rtr")
    return path / "t.rtr"


@pytest.mark.parametrize("scheme", [{"policy": "cost-benefit:form=sepbit"}, {"placement": "warcip"}])
def test_a_clock_that_goes_backwards_is_held_and_said(tmp_path: Path, scheme: dict[str, str]) -> None:
    r = simulate({"workload": f"trace:{msr(tmp_path, backwards=True)}", "spare": 0.2, **scheme})
    said = [w for w in r.warnings if "clock goes backwards" in w]
    assert len(said) == 1, r.warnings
    # 39 requests stepped back (1,000 to 39,000), the first at index 1,000, each 0.25 s before the one before it.
    assert "at 39 of its requests (the first at request 1000, the largest step 0.250 s back)" in said[0]
    assert next(iter(scheme.values())) in said[0]
    assert 1.0 <= r.wa < 10.0


def test_an_ordered_clock_or_a_scheme_without_time_is_not_warned(tmp_path: Path) -> None:
    ordered = simulate(workload=f"trace:{msr(tmp_path, backwards=False)}", spare=0.2, policy="cost-benefit:form=sepbit")
    assert not [w for w in ordered.warnings if "clock" in w]
    (tmp_path / "b").mkdir()
    greedy = simulate(workload=f"trace:{msr(tmp_path / 'b', backwards=True)}", spare=0.2)
    assert not [w for w in greedy.warnings if "clock" in w]


def test_the_command_line_prints_the_clock_warning_once(tmp_path: Path) -> None:
    from reclaim.cli import app
    from typer.testing import CliRunner

    trace = msr(tmp_path, backwards=True)
    res = CliRunner().invoke(app, ["simulate", "--workload", f"trace:{trace}", "--spare", "0.2", "--placement", "warcip"])
    assert res.exit_code == 0, res.output
    lines = [line for line in res.output.splitlines() if "clock goes backwards" in line]
    assert len(lines) == 1 and lines[0].startswith("warning: the trace's clock goes backwards at 39 of its requests"), res.output


def test_the_sepbit_reproduction_says_the_clock_went_backwards(tmp_path: Path) -> None:
    # Its WARCIP, SFS and cost-benefit rows read the time; the warning was lost in the table.
    from reclaim.cli import app
    from typer.testing import CliRunner

    trace = msr(tmp_path, backwards=True)
    res = CliRunner().invoke(app, ["reproduce", "sepbit", "--trace", str(trace), "--db", str(tmp_path / "r.duckdb")])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "warning: volume t.rtr: the trace's clock goes backwards at 39 of its requests (the first at request 1000, the largest step 0.250 s back): " \
           "each time is held at the latest before it for the schemes that read it" in text
    assert text.count("clock goes backwards") == 1
