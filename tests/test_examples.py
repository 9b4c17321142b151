"""The examples run, and say what the papers say."""

from __future__ import annotations

import runpy
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_compare_policies_double_frontier_helps_d_choices_under_hot_data():
    main = runpy.run_path(str(EXAMPLES / "compare_policies.py"))["main"]
    table = main(segments=256)
    # Van Houdt §4.3: with hot data the double write frontier lowers d-choices' WA markedly.
    assert table[("double:copy=random", "d-choices:d=10")] < 0.9 * table[("single", "d-choices:d=10")]
    # Greedy is no worse than FIFO with one frontier.
    assert table[("single", "greedy")] < table[("single", "fifo")]
