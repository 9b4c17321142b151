"""reclaim against SepBIT's artifact run on the same trace (`docs/data/sepbit-artifact-runs.csv`,
made by `scripts/sepbit-artifact.sh` on the hot/cold trace `scripts/validation-markdown.py` draws)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import reclaim
from reclaim import traces
from script_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
vm = load_script("validation-markdown")


def artifact_runs() -> dict[tuple[str, str], float]:
    with (ROOT / "docs" / "data" / "sepbit-artifact-runs.csv").open() as f:
        return {(r["scheme"], r["selection"]): float(r["wa"]) for r in csv.DictReader(line for line in f if not line.startswith("#"))}


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("hot-cold") / "hot-cold.rtr"
    traces.write_pages(vm.hot_cold_pages(), str(path))
    return str(path)


def test_cost_hotness_under_sfs_is_the_artifacts_to_its_last_digit(trace: str) -> None:
    # The artifact prints WA to six decimals: 2.170808 for SFS with CostHotness on this trace.
    want = artifact_runs()[("SFS", "CostHotness")]
    r = reclaim.simulate(workload=f"trace:{trace}", method="log", policy="cost-hotness", pages_per_segment=128,
                         placement="sfs")
    assert abs(r.wa - want) < 5e-7, (r.wa, want)
