"""Solve times of every analytical model that ``reclaim validate`` computes, the simulations aside:
Van Houdt's mean field on each row of Tables 1 and 2, Li et al.'s Theorems 1 and 5, Lomet & Luo's
eq. 4, SSD-iq's 2a closed form and the device's closed forms (fed a WA of 2 where they take a
run's).

Run: .venv/bin/pytest benchmarks/bench_models.py   (pytest-benchmark, 5 rounds a model, grouped as
     validate groups them; skipped without the plugin)
 or: .venv/bin/python benchmarks/bench_models.py [--rounds 5] [--group "Van Houdt"]
     (the median and the slowest of the rounds of each model, slowest first)

The first round of a model pays its caches (the single frontier's binomial table); the median
does not. One BLAS thread, as ``validate``'s workers run them.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import types
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from reclaim import validate
from threadpoolctl import threadpool_limits

if __name__ != "__main__":
    pytest.importorskip("pytest_benchmark")


def models() -> list[tuple[str, str, Callable[[], float]]]:
    """(group, setting, model) for every model value ``reclaim validate`` computes."""
    out = [(c.group, c.setting, c.model) for c in (validate._vh_cases(False) + validate._li_cases(False) + validate._li_regions_cases(False)
                                                   + validate._lomet_cases(False) + validate._ssdiq_cases(False))]
    run = types.SimpleNamespace(wa=2.0)
    for tc in validate._device_cases(False):
        for check in tc.checks:
            out.append((tc.group, check.setting, partial(check.model, run)))
    return out


MODELS = models()


@pytest.mark.parametrize(("group", "setting", "model"), MODELS, ids=[f"{g}: {s}" for g, s, _ in MODELS])
def test_model(benchmark: Any, group: str, setting: str, model: Callable[[], float]) -> None:
    benchmark.group = group
    with threadpool_limits(limits=1, user_api="blas"):
        value = benchmark.pedantic(model, rounds=5, iterations=1)
    assert math.isfinite(value) and value > 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--group", default="", help="only the groups whose name starts with this")
    args = ap.parse_args()
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        for group, setting, model in MODELS:
            if not group.startswith(args.group):
                continue
            times = []
            for _ in range(args.rounds):
                t = time.perf_counter()
                value = model()
                times.append(time.perf_counter() - t)
            rows.append((statistics.median(times), max(times), group, setting, value))
    print(f"{'median s':>9} {'max s':>7}  {'group':<50} {'setting':<34} value")
    for med, worst, group, setting, value in sorted(rows, key=lambda r: -r[0]):
        print(f"{med:9.3f} {worst:7.3f}  {group:<50} {setting:<34} {value:.6g}")
    print(f"{len(rows)} models; the slowest median {max(r[0] for r in rows):.3f} s, the slowest round {max(r[1] for r in rows):.3f} s")


if __name__ == "__main__":
    main()
