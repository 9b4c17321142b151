"""The API as a notebook uses it, and the command line's output: tables, names, short reprs,
one error prefix, numbers printed with sensible precision."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import reclaim
from reclaim.cli import app
from typer.testing import CliRunner

runner = CliRunner()
SMALL = dict(segments=64, pages_per_segment=16, spare=0.2, writes="4x", window=256)


def test_frame_has_a_row_per_window_with_and_without_a_cache():
    for cache in (None, 32):
        r = reclaim.simulate(**SMALL, cache=cache)
        f = pd.DataFrame(r.frame())
        # 4 × 820 logical pages of workload writes in windows of 256 user writes (the last one short).
        windows = len(r.series["wa"])
        assert len(f) == windows and windows >= 2
        assert list(f["window_index"]) == list(range(windows))
        assert (f["window"] == 256).all()
        assert f["user_writes"].sum() == r.user_writes and f["gc_writes"].sum() == r.gc_writes
        if cache is None:
            assert f["cache_hit_ratio"].isna().all()
        else:
            assert f["cache_hit_ratio"].between(0, 1).all()
        # The series dict itself makes a DataFrame too (the window length broadcast).
        assert pd.DataFrame(r.series).shape[0] == windows


def test_histograms_are_counts_with_fractions_as_methods():
    r = reclaim.simulate(**SMALL, policy="greedy")
    v, s = r.victim_valid_histogram, r.segment_valid_histogram
    assert v.dtype.kind == s.dtype.kind == "u"
    assert v.sum() == r.collected
    np.testing.assert_allclose(r.victim_valid_fractions(), v / v.sum())
    np.testing.assert_allclose(r.segment_valid_fractions(), s / s.sum())


def test_repr_is_short():
    r = reclaim.simulate(**SMALL, policy="greedy")
    text = repr(r)
    assert len(text) < 200, text
    assert text.startswith("SimResult(policy='greedy:tie=random'") and f"wa={r.wa:.4f}" in text


def test_subpackages_load_from_a_bare_import():
    code = "import reclaim; print(reclaim.experiments.frame.__name__, reclaim.traces.stats.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["frame", "stats"]


def test_trace_stats_take_a_path(tmp_path):
    pages = np.array([5, 1, 5, 2, 5, 1], dtype=np.uint32)
    text = tmp_path / "p.txt"
    text.write_text("\n".join(map(str, pages)) + "\n")
    converted = tmp_path / "p.rtr"
    reclaim.traces.convert(text, "pages", converted)
    a = reclaim.traces.stats(converted)
    b = reclaim.traces.stats(str(text), format="pages")
    c = reclaim.traces.stats(reclaim.traces.load(converted))
    # 6 page writes over 3 distinct pages; page 5 written 3 times.
    assert a["pages_written"] == b["pages_written"] == c["pages_written"] == 6
    assert a["unique_pages"] == 3 and a["max_writes_per_page"] == 3
    assert a["access_frequency"] == b["access_frequency"] == [3, 2, 1]


def test_a_trace_run_names_the_geometry_it_simulated(tmp_path):
    rng = np.random.default_rng(2)
    pages = rng.integers(0, 2000, size=10_000).astype(np.uint32)
    out = tmp_path / "t.rtr"
    reclaim.traces.write_pages(pages, out)
    r = reclaim.simulate(workload=f"trace:{out}", pages_per_segment=16, spare=0.2)
    assert r.config.segments is None and r.config.logical_pages is None
    # The logical space is the trace's working set (the default method, `precondition`); the
    # physical one follows from the spare.
    assert r.simulated_logical_pages >= len(np.unique(pages))
    assert r.method is not None and r.method["working_set"] == len(np.unique(pages))
    assert r.simulated_pages_per_segment == 16
    physical = r.simulated_segments * 16
    assert math.isclose(r.simulated_spare, 1 - r.simulated_logical_pages / physical)
    assert 0.15 < r.simulated_spare <= 0.2 + 16 / physical
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{out}", "--pages-per-segment", "16",
                              "--spare", "0.2", "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for name in ("simulated_segments", "simulated_pages_per_segment", "simulated_logical_pages", "simulated_spare", "method",
                 "warnings"):
        assert name in data, name
    assert data["simulated_logical_pages"] == r.simulated_logical_pages
    # The configuration keeps what was asked for (nothing), apart from what was simulated.
    assert data["config"].get("logical_pages") is None and "logical_pages" not in data


def test_printed_numbers_have_sensible_precision():
    res = runner.invoke(app, ["simulate", "--segments", "64", "--pages-per-segment", "16", "--spare", "0.08",
                              "--writes", "2x", "--quiet"])
    assert res.exit_code == 0, res.output
    # No float printed with the noise of its binary form (0.07999999999999996, 39274373.2445).
    assert not re.search(r"\d\.\d{7,}", res.output), res.output
    assert not re.search(r"\d{5,}\.\d", res.output), res.output
    res = runner.invoke(app, ["model", "mean-field", "--spare", "0.08", "--pages-per-segment", "16"])
    assert res.exit_code == 0, res.output
    assert "S_f = 0.08" in res.output and not re.search(r"\d\.\d{7,}", res.output), res.output


def test_one_error_prefix_for_usage_and_value_errors():
    for args in (["simulate", "--nope"], ["nope"], ["simulate", "--spare", "3"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert "error: " in res.output and "Error:" not in res.output, res.output
