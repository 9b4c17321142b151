"""The mean-field model's fast double frontier (:mod:`reclaim.models.vanhoudt`) against what it
stands for: the 4 decimals Van Houdt prints in Tables 1 and 2, the solver it replaced, and eq. 11,
14 and 15 written out term by term. Times are measured in ``benchmarks/bench_models.py``, not here.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from reclaim.models import vanhoudt
from reclaim.reproduce.common import published

#: WA of every row of Tables 1 and 2 by the solver before the transform (commit 35c5301, its
#: O(b⁴) hypergeometric tables and direct sums), run here to 10 decimals.
BEFORE = {
    (16, 0.1, 16, 0.92, 0.23, "single"): 4.5925113276,
    (16, 0.14, 13, 0.94, 0.21, "single"): 3.7272159933,
    (32, 0.07, 9, 0.81, 0.06, "single"): 7.6480589792,
    (32, 0.08, 5, 0.94, 0.25, "single"): 6.5347293518,
    (32, 0.11, 14, 0.79, 0.19, "single"): 4.6507245836,
    (32, 0.13, 14, 0.87, 0.12, "single"): 4.4551431177,
    (32, 0.14, 15, 0.84, 0.21, "single"): 3.8504641268,
    (64, 0.06, 4, 0.85, 0.17, "single"): 9.2976050993,
    (64, 0.08, 2, 0.82, 0.19, "single"): 8.6972549315,
    (64, 0.09, 6, 0.79, 0.08, "single"): 6.5886094717,
    (64, 0.11, 11, 0.94, 0.28, "single"): 4.8997294350,
    (64, 0.13, 15, 0.84, 0.26, "single"): 4.1587032289,
    (16, 0.05, 12, 0.83, 0.24, "double"): 6.7745061153,
    (16, 0.06, 5, 0.94, 0.22, "double"): 6.0319529023,
    (32, 0.05, 6, 0.74, 0.15, "double"): 8.4561866531,
    (32, 0.08, 11, 0.81, 0.22, "double"): 5.5622550493,
    (32, 0.12, 18, 0.9, 0.23, "double"): 3.9199402072,
    (32, 0.13, 2, 0.91, 0.24, "double"): 4.9147685332,
    (32, 0.14, 14, 0.93, 0.1, "double"): 2.7981976347,
    (64, 0.05, 6, 0.87, 0.12, "double"): 8.2523815722,
    (64, 0.05, 10, 0.71, 0.07, "double"): 8.4386747166,
    (64, 0.05, 20, 0.94, 0.26, "double"): 8.9138112026,
    (64, 0.09, 3, 0.94, 0.06, "double"): 4.6363597985,
    (64, 0.13, 12, 0.92, 0.08, "double"): 2.9317302104,
}

ROWS = [(row, "single") for row in published("vanhoudt_table1.csv")] + [(row, "double") for row in published("vanhoudt_table2.csv")]


def _key(row: dict[str, str], frontier: str) -> tuple[int, float, int, float, float, str]:
    return int(row["b"]), float(row["spare"]), int(row["d"]), float(row["r"]), float(row["f"]), frontier


@pytest.mark.parametrize(("row", "frontier"), ROWS, ids=lambda x: x if isinstance(x, str) else f"b{x['b']}-S{x['spare']}-d{x['d']}")
def test_every_table_row_prints_the_papers_four_decimals(row, frontier):
    # Van Houdt Table 1 (single) and Table 2 (double), ODE column, as printed: 4 decimals, and
    # the solver before the transform to 1e-8 (it stops at a residual of 1e-10).
    key = _key(row, frontier)
    m = vanhoudt.solve(*key[:5], frontier=frontier)
    assert f"{m.wa:.4f}" == row["wa_ode"]
    assert m.wa == pytest.approx(BEFORE[key], abs=1e-8)


def _random_p(b: int, seed: int) -> np.ndarray:
    """A selection distribution p[i, j] on 0 ≤ i ≤ j ≤ b, summing to 1."""
    rng = np.random.default_rng(seed)
    p = np.triu(rng.random((b + 1, b + 1)))
    return p / p.sum()


def _hyper(n: int, i: int, s: int, h: int) -> float:
    """P(h hot among s pages drawn from n pages of which i are hot)."""
    if h > i or s - h > n - i or h < 0:
        return 0.0
    return comb(i, h) * comb(n - i, s - h) / comb(n, s)


def test_thinning_equals_the_hypergeometric_sums():
    # Eq. 15's second sum (without 1/b) and eq. 11's last, written out with binomial coefficients.
    b = 9
    p = _random_p(b, 1)
    s_sum, g = vanhoudt._moved_hot(p, b)
    for s in range(b + 1):
        for h in range(s + 1):
            full = sum(p[i, n] * _hyper(n, i, s, h) for n in range(s, b + 1) for i in range(n + 1))
            moved = sum(p[i, n] * _hyper(n, i, s, h) for n in range(s + 1, b + 1) for i in range(n + 1))
            assert s_sum[s, h] == pytest.approx(full, rel=1e-12, abs=1e-16)
            assert g[s, h] == pytest.approx(moved, rel=1e-12, abs=1e-16)


def _pi_written_out(p: np.ndarray, b: int) -> np.ndarray:
    """π of eq. 14–15, each sum a loop."""
    pi = np.zeros((b + 1, b + 1))
    norm = 1.0 - p[0, 0]
    for js in range(1, b + 1):
        for i_star in range(js + 1):
            recursive = sum(pi[ip, jp] * p[i_star - ip, js - jp] for jp in range(1, js) for ip in range(i_star + 1) if i_star - ip <= js - jp)
            drawn = sum(p[i, b - jp + js] * _hyper(b - jp + js, i, js, i_star) for jp in range(js, b + 1) for i in range(i_star, b - jp + i_star + 1)
                        if i <= b - jp + js)
            pi[i_star, js] = (recursive + drawn / b) / norm
    return pi


@pytest.mark.parametrize("b", [1, 2, 7, 12])
def test_wfi_distribution_equals_eq_14_15_term_by_term(b):
    p = _random_p(b, b)
    pi, _ = vanhoudt.wfi_distribution(p, b)
    assert pi == pytest.approx(_pi_written_out(p, b), rel=1e-12, abs=1e-16)
    # §4.2: the lumped chain is a stochastic Toeplitz matrix, so each column sums to 1/b.
    assert pi[:, 1:].sum(axis=0) == pytest.approx([1 / b] * b, rel=1e-12)


def test_creation_of_full_wfi_blocks_equals_eq_11_written_out():
    # Eq. 11's last term averaged over π (eq. 9): a full WFI block with i hot pages is the WFI's
    # i* plus i − i* hot among the b − j* pages drawn from a victim (i', j') with j' > b − j*.
    b = 10
    p = _random_p(b, 5)
    model = vanhoudt._Model(b, 0.1, 3, 0.8, 0.2)
    pi, _ = vanhoudt.wfi_distribution(p, b)
    expected = np.zeros(b + 1)
    for i in range(b + 1):
        for js in range(1, b + 1):
            s = b - js
            for i_star in range(max(0, i - s), min(i, js) + 1):
                moved = sum(p[ip, jp] * _hyper(jp, ip, s, i - i_star) for jp in range(s + 1, b + 1) for ip in range(jp + 1))
                expected[i] += pi[i_star, js] * moved
    w = 0.7
    got = vanhoudt._creation_double(model, p, p.sum(axis=0), w)
    wfe = w * np.array([comb(b, k) * 0.8**k * 0.2 ** (b - k) for k in range(b + 1)]) / b  # eq. 11's B_i^{b,r}/b times W
    assert got - wfe == pytest.approx(expected, rel=1e-12, abs=1e-15)
