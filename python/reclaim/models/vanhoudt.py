"""Van Houdt, "Performance of garbage collection algorithms for flash-based solid state drives
with hot/cold data": mean-field models of class-C cleaners (d-choices; random is d = 1, greedy
the limit of large d) under Rosenblum's hot/cold writes, for the single write frontier (§3,
eq. 1–8) and the double write frontier (§4, eq. 9–15).

The state m[i, j] is the fraction of the N blocks that hold j valid pages, i of them hot
(0 ≤ i ≤ j ≤ b). The fixed point of the ODE dm/dt = f(m) is found by a semi-implicit iteration:
each state's outflow (its pages being invalidated, or the block being selected) is taken
implicitly and its inflow explicitly, m ← (m + h·inflow)/(1 + h·outflow). That iteration has
exactly the fixed points of the ODE, and the ODE's fixed point satisfies the paper's constraints
(Σm = 1, Σ j·m = bρ, Σ i·m = bρf) by itself, so nothing is lost; the run stops when the ODE's
residual ‖f(m)‖₁ is below ``tol`` (the paper stops Euler's method when ‖μ(t+h) − μ(t)‖₁ < 10⁻⁷).
For the double frontier the invariant vector π of the WFI's chain K(m) is computed by the
recursion of eq. 13–15, never by building K: its hypergeometric sums by thinning one page at a
time, and its convolutions over hot counts at each frequency of a transform of length b + 1, which
no product in eq. 11 or 15 outgrows; an iteration is then O(b³) (π's recursion: about b³/4
complex products) where the sums written out take O(b⁴) (b = 64: 0.23–0.55 s a solve, was
3.7–10.4 s).

Write amplification is eq. 4, WA = b / Σ_k k·p_{b−k}, at the fixed point (for the double
frontier, eq. 5 deconditioned on j*, which reduces to eq. 4 since π_{j*} = 1/b).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.stats import binom
from threadpoolctl import threadpool_limits


@dataclass(frozen=True)
class MeanField:
    """A solved mean-field model.

    Attributes:
        wa: Write amplification (eq. 4).
        valid_distribution: Fraction of blocks with j valid pages, j = 0 … b (Fig. 3).
        hot_valid: m[i, j], fraction of blocks with j valid pages of which i are hot.
        d: The number of choices.
        frontier: ``single`` or ``double``.
        residual: ‖f(m)‖₁ at the end.
        iterations: Iterations taken.
        seconds: Time taken.
    """

    wa: float
    valid_distribution: np.ndarray
    hot_valid: np.ndarray
    d: float
    frontier: str
    residual: float
    iterations: int
    seconds: float


def _check(b: int, spare: float, d: float, r: float, f: float) -> None:
    if not 1 <= b <= 512:
        raise ValueError(f"invalid value for `pages_per_segment`: {b} (expected a whole number in [1, 512])")
    if not 0.0 < spare < 1.0:
        raise ValueError(f"invalid value for `spare`: {spare} (expected a number in (0, 1))")
    if not (d >= 1 and math.isfinite(d) and float(d).is_integer()):
        raise ValueError(f"invalid value for `d`: {d} (expected a whole number of choices ≥ 1)")
    for name, v in (("r", r), ("f", f)):
        if not 0.0 < v < 1.0:
            raise ValueError(f"invalid value for `{name}`: {v} (expected a number in (0, 1))")


@lru_cache(maxsize=8)
def _binomial_creation(b: int, r: float) -> np.ndarray:
    """T[j', i', i] = P(i − i' of the b − j' writes that refill a selected block are hot)."""
    t = np.zeros((b + 1, b + 1, b + 1))
    for jp in range(b + 1):
        n = b - jp
        pmf = binom.pmf(np.arange(n + 1), n, r)
        for ip in range(jp + 1):
            t[jp, ip, ip : ip + n + 1] = pmf
    return t


class _Model:
    """The common parts of f(m): selection probabilities, update probabilities, W."""

    def __init__(self, b: int, spare: float, d: float, r: float, f: float):
        self.b, self.d, self.r, self.f = b, d, r, f
        rho = 1.0 - spare
        i = np.arange(b + 1)[:, None]
        j = np.arange(b + 1)[None, :]
        self.mask = (i <= j).astype(float)
        # Per-page update probabilities of eq. 1–2 divided by m[i, j]: u_hot = i·m·r/(bρf), …
        self.hot_rate = i * r / (b * rho * f) * self.mask
        self.cold_rate = (j - i) * (1.0 - r) / (b * rho * (1.0 - f)) * self.mask
        self.jj = np.arange(b + 1)

    def selection(self, m: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(p_j of eq. 3, σ_j = p_j/m_j, W = Σ_j p_j·(b − j))."""
        mj = m.sum(axis=0)
        tail = np.cumsum(mj[::-1])[::-1]
        tail = np.clip(tail / tail[0], 0.0, 1.0)
        nxt = np.append(tail[1:], 0.0)
        pj = tail**self.d - nxt**self.d
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma = np.where(mj > 1e-300, pj / mj, 0.0)
        w = float(np.dot(pj, self.b - self.jj))
        return pj, sigma, w

    def flows(self, m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray]:
        """(inflow, outflow rate, p[i, j], W, p_j) of the state m, column b's creation excluded."""
        b = self.b
        pj, sigma, w = self.selection(m)
        u_hot = self.hot_rate * m
        u_cold = self.cold_rate * m
        inflow = np.zeros_like(m)
        inflow[:b, :b] += u_hot[1:, 1:]
        inflow[:, :b] += u_cold[:, 1:]
        inflow *= w
        out_rate = w * (self.hot_rate + self.cold_rate) + sigma[None, :] * self.mask
        p = sigma[None, :] * m
        return inflow, out_rate, p, w, pj


def _creation_single(model: _Model, p: np.ndarray) -> np.ndarray:
    """Eq. 8's first term: a selected (i', j') block refilled by b − j' writes, k of them hot."""
    t = _binomial_creation(model.b, model.r)
    return np.einsum("ij,jik->k", p, t)


def _moved_hot(p: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray]:
    """The hypergeometric sums of eq. 11 and 15, by thinning one page at a time.

    S[s, h] = Σ_{n ≥ s} Σ_i p[i, n]·C(i, h)·C(n − i, s − h)/C(n, s): the probability that the
    cleaner selects a block with n ≥ s valid pages and that s of them, drawn at random, hold h hot
    pages. G[s, h] is the same sum over n > s only: the hot count of the s pages moved to the WFI
    from a victim that does not fit.

    A random s-subset of a block is a random (s + 1)-subset less one random page, so the hot count
    among s drawn pages follows from that among s + 1 by dropping a hot page with probability
    h/(s + 1): G[s] = drop_s(S[s + 1]) and S[s] = p[:, s] + G[s], from S[b] = p[:, b] down. That is
    O(b²) additions of nonnegative terms, against O(b⁴) for the sums written out.
    """
    s_sum = np.zeros((b + 1, b + 1))
    g = np.zeros((b + 1, b + 1))
    s_sum[b] = p[:, b]
    for s in range(b - 1, -1, -1):
        h = np.arange(s + 1)
        above = s_sum[s + 1, : s + 2]
        g[s, : s + 1] = (above[:-1] * (s + 1 - h) + above[1:] * (h + 1)) / (s + 1)
        s_sum[s] = p[:, s] + g[s]
    return s_sum, g


def _wfi_spectrum(p: np.ndarray, b: int, s_sum: np.ndarray) -> np.ndarray:
    """The WFI's invariant vector π of eq. 13–15, as its discrete Fourier transform over i*.

    Column j* of π holds hot counts i* ≤ j* and column j' of p counts i ≤ j', so each product
    in eq. 15's first sum has degree at most j* in i*: a cyclic transform of length b + 1 makes
    that sum, a convolution over i*, a product at each frequency without wrapping round. The
    recursion over j* (eq. 14, then 15) is then b steps, step j* a sum of j* − 1 products of
    vectors of ⌊(b + 1)/2⌋ + 1 frequencies: O(b³) in all, where the sums written out take O(b⁴).

    Returns:
        Π̂[k, j*] = Σ_{i*} π[i*, j*]·e^{−2πi·k·i*/(b + 1)} for k = 0 … ⌊(b + 1)/2⌋ (numpy's rfft).
    """
    n = b + 1
    p_hat = np.fft.rfft(p, n=n, axis=0)
    # The second term of eq. 15 (and eq. 14 at j* = 1): (1/b)·S[j*, i*].
    first = np.fft.rfft(s_sum.T, n=n, axis=0) / b
    pi_hat = np.zeros_like(p_hat)
    norm = 1.0 - p[0, 0]
    for js in range(1, n):
        # Σ_{j+ < j*} Σ_{i+} π[i+, j+]·p[i* − i+, j* − j+], at each frequency.
        conv = np.einsum("kj,kj->k", p_hat[:, js - 1 : 0 : -1], pi_hat[:, 1:js]) if js > 1 else 0.0
        pi_hat[:, js] = (first[:, js] + conv) / norm
    return pi_hat


def wfi_distribution(p: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray]:
    """π[i*, j*]: the invariant vector of the WFI's chain K(m) by the recursion of eq. 13–15.

    Args:
        p: p[i, j], probability that the cleaner selects a block with j valid pages, i hot.
        b: Pages per block.

    Returns:
        π as a (b + 1) × (b + 1) array; column 0 is zero (the WFI is never empty) and each
        column j* ≥ 1 sums to 1/b (the lumped chain is a stochastic Toeplitz matrix). Beside it
        G[s, h] of :func:`_moved_hot`, which the creation step reuses.

    >>> p = np.zeros((3, 3)); p[0, 1] = p[1, 2] = 0.5  # b = 2: half the victims (0, 1), half (1, 2)
    >>> pi, _ = wfi_distribution(p, 2)
    >>> pi.round(6).tolist()  # by hand from eq. 14–15: π[:, 1] = (3/8, 1/8), π[:, 2] = (3/16, 5/16)
    [[0.0, 0.375, 0.1875], [0.0, 0.125, 0.3125], [0.0, 0.0, 0.0]]
    """
    s_sum, g = _moved_hot(p, b)
    pi = np.fft.irfft(_wfi_spectrum(p, b, s_sum), n=b + 1, axis=0)
    # The transform's rounding leaves values below 1e-18 where π is zero (i* > j*).
    return np.maximum(pi, 0.0), g


def _creation_double(model: _Model, p: np.ndarray, pj: np.ndarray, w: float) -> np.ndarray:
    """Eq. 11's creation terms: full WFE blocks (b external writes, i hot), and full WFI blocks
    (the WFI's i* hot plus h hot of the b − j* pages moved from a victim that did not fit).

    The second is Σ_{j*} Σ_{i*} π[i*, j*]·G[b − j*, i − i*], a convolution over hot counts of
    degree at most j* + (b − j*) = b: it is summed at each frequency of π's transform.
    """
    b = model.b
    s_sum, g = _moved_hot(p, b)
    pi_hat = _wfi_spectrum(p, b, s_sum)
    g_hat = np.fft.rfft(g.T, n=b + 1, axis=0)
    wfe = w * binom.pmf(np.arange(b + 1), b, model.r) / b
    # For j* = 1 … b, s = b − j* pages are moved: G's columns b − 1 … 0.
    wfi = np.fft.irfft((pi_hat[:, 1:] * g_hat[:, b - 1 :: -1]).sum(axis=1), n=b + 1)
    return wfe + np.maximum(wfi, 0.0)


def _tilt(m: np.ndarray, valid: float, hot: float) -> np.ndarray:
    """The state closest to m (in relative entropy) with Σm = 1, Σ j·m = ``valid`` and
    Σ i·m = ``hot``: m·exp(λj + μi), normalised, by Newton's method on (λ, μ).

    The ODE conserves these three sums and its fixed point satisfies them; holding the iterate on
    them keeps it away from the degenerate fixed points on the boundary (e.g. every block full).
    """
    n = m.shape[0]
    i = np.arange(n)[:, None] * np.ones((1, n))
    j = np.ones((n, 1)) * np.arange(n)[None, :]
    lam = np.zeros(2)
    q = m / m.sum()
    for _ in range(50):
        w = q * np.exp(lam[0] * j + lam[1] * i - (lam[0] * j + lam[1] * i).max())
        w /= w.sum()
        ej, ei = float((w * j).sum()), float((w * i).sum())
        resid = np.array([ej - valid, ei - hot])
        if np.abs(resid).max() < 1e-12 * n:
            return w
        cjj = float((w * j * j).sum()) - ej * ej
        cii = float((w * i * i).sum()) - ei * ei
        cij = float((w * i * j).sum()) - ei * ej
        jac = np.array([[cjj, cij], [cij, cii]])
        try:
            lam -= np.linalg.solve(jac, resid)
        except np.linalg.LinAlgError:
            return q
    return w


def _initial(b: int, spare: float, f: float) -> np.ndarray:
    """μ(0)[i, j] = μ_j·C(j, i)·f^i·(1 − f)^(j − i) with μ_j binomial(b, ρ) (mean bρ, all j > 0)."""
    rho = 1.0 - spare
    mu_j = binom.pmf(np.arange(b + 1), b, rho)
    m = np.zeros((b + 1, b + 1))
    for j in range(b + 1):
        m[: j + 1, j] = mu_j[j] * binom.pmf(np.arange(j + 1), j, f)
    return m


def solve(
    pages_per_segment: int,
    spare: float,
    d: float,
    r: float,
    f: float,
    frontier: str = "single",
    tol: float = 1e-10,
    max_iterations: int = 20_000,
    h: float = 1.0,
    anderson: int = 15,
) -> MeanField:
    """Solves the mean-field model of d-choices under hot/cold writes to its fixed point.

    Args:
        pages_per_segment: b, pages per block.
        spare: Spare factor S_f = 1 − ρ.
        d: Choices per selection (d = 1 is random; large d approaches greedy).
        r: Share of writes to hot pages.
        f: Share of pages that are hot (r = f is uniform writes).
        frontier: ``single`` (§3) or ``double`` (§4, random partial copy).
        tol: Stop when the ODE residual ‖f(m)‖₁ is below this.
        max_iterations: Give up (RuntimeError) after this many iterations.
        h: Step of the semi-implicit iteration (its fixed points do not depend on it).
        anderson: Memory of the Anderson acceleration (0: plain iteration).

    Returns:
        The solved :class:`MeanField`.

    >>> round(solve(16, 0.10, 16, 0.92, 0.23).wa, 4)  # Van Houdt Table 1, row 1: 4.5925
    4.5925
    """
    _check(pages_per_segment, spare, d, r, f)
    if frontier not in ("single", "double"):
        raise ValueError(f"invalid value for `frontier`: `{frontier}` (expected `single` or `double`)")
    # Every product here is small (at most (b + 1)²/2 by the Anderson memory): OpenBLAS's extra
    # threads only spin, and on a busy machine they wait for a core. b = 64, Table 2's last row:
    # 0.5 s on one thread, 9.8 s on two beside another job (median of 3).
    # A state with no finite successor is raised as such (`_solve`), not warned of on the way.
    with threadpool_limits(limits=1, user_api="blas"), np.errstate(divide="ignore", invalid="ignore"):
        return _solve(pages_per_segment, spare, d, r, f, frontier, tol, max_iterations, h, anderson)


def _no_finite_state(it: int, b: int, spare: float, d: float, r: float, f: float, frontier: str) -> RuntimeError:
    """The error of an iterate that left the finite numbers: a state whose cleaner finds only
    empty blocks (p[0, 0] = 1) or whose tilt has no mass left. No fixed point is reachable from
    there, and a least-squares step on it would only fail inside LAPACK."""
    return RuntimeError(f"the mean-field model left the finite numbers at iteration {it} (b = {b}, spare = {spare}, "
                        f"d = {d}, r = {r}, f = {f}, {frontier} frontier): no fixed point found")


def _solve(b: int, spare: float, d: float, r: float, f: float, frontier: str, tol: float, max_iterations: int, h: float,
           anderson: int) -> MeanField:
    t0 = time.perf_counter()
    model = _Model(b, spare, d, r, f)
    m = _initial(b, spare, f)
    keep = model.mask > 0
    residual = np.inf
    xs: list[np.ndarray] = []
    gs: list[np.ndarray] = []
    fallback: tuple[float, np.ndarray] | None = None
    for it in range(1, max_iterations + 1):
        inflow, out_rate, p, w, pj = model.flows(m)
        if frontier == "single":
            inflow[:, b] = _creation_single(model, p)
        else:
            inflow[:, b] = _creation_double(model, p, pj, w)
        residual = float(np.abs(inflow - out_rate * m).sum())
        if not math.isfinite(residual):
            raise _no_finite_state(it, b, spare, d, r, f, frontier)
        # The ODE also has degenerate fixed points on the simplex's boundary (every block full,
        # so no write happens: W = 0); they break Σ j·m = bρ, which the true one keeps.
        drift = abs(float(np.dot(m.sum(axis=0), model.jj)) - b * (1.0 - spare)) / (b * spare)
        if residual < tol and drift < 1e-3:
            break
        if fallback is not None and (residual > 2.0 * fallback[0] or drift > 0.25):
            # The accelerated step made things worse: take the plain step instead, forget history.
            m = fallback[1]
            fallback = None
            xs.clear()
            gs.clear()
            continue
        g_map = (m + h * inflow) / (1.0 + h * out_rate) * model.mask
        g_map /= g_map.sum()
        if not np.all(np.isfinite(g_map)):
            raise _no_finite_state(it, b, spare, d, r, f, frontier)
        fallback = (residual, g_map)
        # Anderson acceleration of the fixed-point map m ↦ g_map: the plain iteration's slowest
        # mode (cold blocks draining) takes thousands of steps.
        x = m[keep]
        g = g_map[keep] - x
        xs.append(x)
        gs.append(g)
        if len(xs) > anderson + 1:
            xs.pop(0)
            gs.pop(0)
        plain = x + g
        nxt = plain
        if anderson and len(xs) > 1:
            df = np.diff(np.array(gs), axis=0).T
            dx = np.diff(np.array(xs), axis=0).T
            gamma, *_ = np.linalg.lstsq(df, g, rcond=None)
            acc = x + g - (dx + df) @ gamma
            if np.all(np.isfinite(acc)):
                # Overshoots below zero are held at a fraction of the plain step: the fixed
                # point is interior (§4.2).
                nxt = np.maximum(acc, 0.1 * plain)
        m = np.zeros_like(m)
        m[keep] = nxt
        m = _tilt(m, b * (1.0 - spare), b * (1.0 - spare) * f)
    else:
        raise RuntimeError(f"the mean-field model did not converge in {max_iterations} iterations (residual {residual:.3g})")
    pj, _, w = model.selection(m)
    return MeanField(
        wa=b / w,
        valid_distribution=m.sum(axis=0),
        hot_valid=m,
        d=d,
        frontier=frontier,
        residual=residual,
        iterations=it,
        seconds=time.perf_counter() - t0,
    )


def optimal_d(
    pages_per_segment: int,
    spare: float,
    r: float,
    f: float,
    frontier: str = "double",
    d_max: int = 64,
    tol: float = 1e-9,
) -> MeanField:
    """The d in 1 … d_max with the lowest write amplification (Van Houdt Fig. 4–5), found by a
    golden-section style search over integers, then confirmed against its neighbours.

    With a single frontier WA decreases in d (greedy is optimal), so d_max is returned.
    """
    if not (isinstance(d_max, (int, np.integer)) and d_max >= 1):
        raise ValueError(f"invalid value for `d_max`: {d_max} (expected a whole number ≥ 1)")
    cache: dict[int, MeanField] = {}

    def wa(d: int) -> float:
        if d not in cache:
            cache[d] = solve(pages_per_segment, spare, d, r, f, frontier=frontier, tol=tol)
        return cache[d].wa

    lo, hi = 1, d_max
    while hi - lo > 2:
        m1 = lo + (hi - lo) // 3
        m2 = hi - (hi - lo) // 3
        if wa(m1) <= wa(m2):
            hi = m2
        else:
            lo = m1
    best = min(range(lo, hi + 1), key=wa)
    return cache[best]
