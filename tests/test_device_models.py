"""The device's closed forms (reclaim.models.device): operational laws, Pollaczek–Khinchine,
the exact M/D/1 waiting-time distribution and MVA of the closed loop, each against a number
computed another way."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from reclaim.cli import app
from reclaim.models import device as dm
from scipy.optimize import brentq
from typer.testing import CliRunner

# --- parsing the simulator's --device text -------------------------------------------------


def test_presets_are_their_sources_values():
    # FEMU hw/femu/bbssd/ftl.h and ftl.c: 8 × 8 dies, 1 plane, 256 pages of 4 KiB, 40/200/2000 µs,
    # no transfer time.
    f = dm.parse("femu")
    assert (f.total_dies, f.planes, f.pages_per_block, f.page_size) == (64, 1, 256, 4096)
    assert (f.tr, f.tprog, f.tbers, f.transfer) == (40.0, 200.0, 2000.0, 0.0)
    # MQSim ssdconfig.xml: 8 channels × 4 chips × 2 dies, 2 planes, 256 pages of 8 KiB,
    # 75/750/3800 µs, 8-bit channel at 333 MT/s: 8192 transfers / 333 MT/s = 24.601 µs (the
    # engine's transfer_ns of the preset, 24,601 ns).
    m = dm.parse("mqsim")
    assert (m.total_dies, m.planes, m.page_size, m.pages_per_segment) == (64, 2, 8192, 8 * 8 * 2 * 256)
    assert (m.tr, m.tprog, m.tbers, m.transfer) == (75.0, 750.0, 3800.0, 24.601)


def test_overrides_take_units():
    d = dm.parse("femu:channels=2,dies=3,planes=4,page_size=16KiB,tr=750000ns,tprog=1.5ms,tbers=4ms,bus=on,mts=800,width=16,clean=background")
    assert (d.channels, d.dies, d.planes, d.page_size) == (2, 3, 4, 16384)
    assert (d.tr, d.tprog, d.tbers) == (750.0, 1500.0, 4000.0)
    # 16384 B × 8 / 16 bits = 8192 transfers at 800 MT/s: 10.24 µs.
    assert d.transfer == pytest.approx(10.24, abs=1e-9)


@pytest.mark.parametrize(("spec", "message"), [
    ("ssd", "`device`: `ssd`"),
    ("femu:dies=0", "`device.dies`: 0 (expected a whole number in [1, 1024])"),
    ("femu:tr=40", "`device.tr`: `40` (no unit)"),
    ("femu:tbers=20s", "in (0, 10s]"),
    ("femu:page_size=3", "`device.page_size`: `3`"),
    ("femu:bus=yes", "`device.bus`: `yes` (expected `on`, `off` or `fifo`)"),
    ("femu:speed=2", "unknown argument `speed`"),
    ("femu:mts=0", "`device.mts`: 0 (expected a number in (0, 100000])"),
])
def test_bad_device_text_is_refused_in_the_engines_words(spec, message):
    # The same text to `reclaim simulate --device` gives the same message (the engine's check).
    with pytest.raises(ValueError) as e:
        dm.parse(spec)
    assert message in str(e.value)


def test_the_engine_times_the_device_parsed_here():
    # One read at a time on MQSim's geometry with 2 × 3 dies: the engine reports 6 dies, and each
    # read takes tR + tX = 75 + 24.601 µs (HdrHistogram's three significant digits: 0.1%).
    import reclaim

    d = dm.parse("mqsim:channels=2,dies=3")
    r = reclaim.simulate(device="mqsim:channels=2,dies=3", arrivals="closed:iodepth=1", reads=1, segments=64, writes=20_000,
                         warmup="fill")
    assert r.time is not None
    assert r.time.dies == d.total_dies == 6
    assert r.time.read_latency.mean == pytest.approx(d.tr + d.transfer, rel=1e-3)
    assert dm.closed_loop(d, 1.0, 1, reads=1.0).iops == pytest.approx(r.time.iops, rel=1e-3)


# --- operational laws ------------------------------------------------------------------------


def test_write_cost_and_saturation_arithmetic():
    # FEMU at WA = 2: 2·200 + (2 − 1)·40 + 2·2000 / (1 plane · 256 pages) = 455.625 µs of die time,
    # all but the write's own 200 µs cleaning's; 64 dies / 455.625 µs = 140,466.39 IOPS.
    c = dm.write_cost(dm.FEMU, 2.0)
    assert (c.die, c.gc, c.channel) == (455.625, 255.625, 0.0)
    assert dm.saturation_iops(dm.FEMU, 2.0) == pytest.approx(64 / 455.625e-6, rel=1e-12)
    assert dm.saturation_iops(dm.FEMU, 2.0) == pytest.approx(140466.39, abs=0.01)
    # Half reads: 64 / (0.5·40 + 0.5·455.625) µs = 64 / 247.8125 µs.
    assert dm.saturation_iops(dm.FEMU, 2.0, reads=0.5) == pytest.approx(64 / 247.8125e-6, rel=1e-12)
    # MQSim's erase is multi-plane: 3800 / (2 · 256) per program.
    assert dm.write_cost(dm.MQSIM, 1.0).die == pytest.approx(750 + 3800 / 512, rel=1e-12)


def test_channel_bound_when_the_bus_is_on():
    # MQSim, reads alone: the dies allow 64 / 75 µs = 853,333/s but each channel moves one page
    # per 24.601 µs, 8 channels: 325,190/s, the lower bound.
    assert dm.saturation_iops(dm.MQSIM, 1.0, reads=1.0) == pytest.approx(8 / 24.601e-6, rel=1e-12)
    # Writes at WA = 3: dies 64 / (2250 + 150 + 3·3800/512) µs = 26,421.5/s; channels
    # 8 / ((2·3 − 1)·24.601 µs) = 65,038/s: the dies bind.
    s = 3 * 750 + 2 * 75 + 3 * 3800 / 512
    assert dm.saturation_iops(dm.MQSIM, 3.0) == pytest.approx(64 / (s * 1e-6), rel=1e-12)
    assert dm.write_cost(dm.MQSIM, 3.0).channel == pytest.approx(5 * 24.601, rel=1e-12)


def test_utilisation_law():
    # FEMU, WA = 3, 50,000 writes/s: S_w = 600 + 80 + 3·2000/256 = 703.4375 µs; ρ = 50,000 ×
    # 703.4375 µs / 64 dies = 0.549560546875; cleaning's share (703.4375 − 200) / 703.4375.
    u = dm.utilisation(dm.FEMU, 3.0, 50_000.0)
    assert u.die_busy == pytest.approx(0.549560546875, rel=1e-12)
    assert u.gc_busy == pytest.approx(503.4375 / 703.4375, rel=1e-12)
    assert u.channel_busy == 0.0
    # Add 100,000 reads/s: + 100,000 × 40 µs / 64; cleaning's share of the larger busy time.
    v = dm.utilisation(dm.FEMU, 3.0, 50_000.0, 100_000.0)
    assert v.die_busy == pytest.approx(0.549560546875 + 0.0625, rel=1e-12)
    assert v.gc_busy == pytest.approx(50_000 * 503.4375 / (50_000 * 703.4375 + 100_000 * 40), rel=1e-12)


def test_bad_model_arguments_are_named():
    with pytest.raises(ValueError, match=r"`wa`: 0.5 \(expected a write amplification, finite and ≥ 1\)"):
        dm.write_cost(dm.FEMU, 0.5)
    with pytest.raises(ValueError, match=r"`reads`: 1.5 \(expected a share in \[0, 1\]\)"):
        dm.saturation_iops(dm.FEMU, 1.0, reads=1.5)
    with pytest.raises(ValueError, match=r"`utilisation`: 1.0 "):
        dm.md1_wait_cdf(1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"`iodepth`: 0 "):
        dm.closed_loop(dm.FEMU, 1.0, 0)


# --- Pollaczek–Khinchine and the M/D/1 waiting time ----------------------------------------


def test_pk_mean_at_known_values():
    # M/D/1: W = ρ·D / (2(1 − ρ)); ρ = 0.5, D = 1: 0.5. ρ = 0.9, D = 40: 180.
    assert dm.pk_mean_wait(0.5, 1.0, 1.0) == pytest.approx(0.5, rel=1e-15)
    assert dm.pk_mean_wait(0.9 / 40, 40.0, 1600.0) == pytest.approx(180.0, rel=1e-12)
    # M/M/1 as an M/G/1 (E[S²] = 2/μ²): W = ρ / (μ − λ) = 0.8 / 0.2 = 4 at λ = 0.8, μ = 1.
    assert dm.pk_mean_wait(0.8, 1.0, 2.0) == pytest.approx(4.0, rel=1e-12)


@pytest.mark.parametrize("rho", [0.3, 0.6, 0.9])
def test_md1_cdf_first_intervals_closed_form(rho):
    # On [0, D) only k = 0 is summed: (1 − ρ)·e^{λt}; on [D, 2D) also k = 1:
    # (1 − ρ)·(e^{λt} − λ(t − D)·e^{λ(t − D)}). D = 1, so λ = ρ.
    lam = rho
    assert dm.md1_wait_cdf(0.0, lam, 1.0) == pytest.approx(1 - rho, rel=1e-14)
    assert dm.md1_wait_cdf(0.7, lam, 1.0) == pytest.approx((1 - rho) * math.exp(lam * 0.7), rel=1e-14)
    t = 1.6
    assert dm.md1_wait_cdf(t, lam, 1.0) == pytest.approx((1 - rho) * (math.exp(lam * t) - lam * (t - 1) * math.exp(lam * (t - 1))), rel=1e-14)


@pytest.mark.parametrize("rho", [0.3, 0.6, 0.9])
def test_md1_cdf_integrates_to_the_pk_mean(rho):
    # E[W] = ∫ (1 − F(t)) dt must equal Pollaczek–Khinchine's ρD / (2(1 − ρ)): F is smooth on
    # each [k, k + 1) (D = 1), integrated there by 10-point Gauss–Legendre, up to where 1 − F is
    # below 1e-13; the rest by the exponential tail (below 1e-11 of the mean).
    x, w = np.polynomial.legendre.leggauss(10)
    total, k = 0.0, 0
    while True:
        ts = k + (x + 1) / 2
        total += float(sum(wi / 2 * (1 - dm.md1_wait_cdf(float(t), rho, 1.0)) for t, wi in zip(ts, w)))
        k += 1
        if 1 - dm.md1_wait_cdf(float(k), rho, 1.0) < 1e-13:
            break
    assert total == pytest.approx(rho / (2 * (1 - rho)), rel=1e-9)


def test_md1_tail_decays_at_the_dominant_root():
    # 1 − F(t) ~ C·e^{−θt} where s = −θ is the pole of the waiting-time transform
    # (1 − ρ)s / (s − λ + λe^{−sD}): λ(e^{θD} − 1) = θ. At ρ = 0.9, D = 1, θ = 0.207147, so
    # (1 − F(t + 1)) / (1 − F(t)) → e^{−θ} = 0.812901; in double precision the alternating sum is
    # already wrong at t = 30 (it exceeds 1), where these values are still exact.
    theta = brentq(lambda th: 0.9 * (math.exp(th) - 1) - th, 1e-6, 5.0)
    for t in (20.0, 40.0, 60.0):  # beyond, 1 − F nears the double-precision spacing of F near 1
        ratio = (1 - dm.md1_wait_cdf(t + 1, 0.9, 1.0)) / (1 - dm.md1_wait_cdf(t, 0.9, 1.0))
        assert ratio == pytest.approx(math.exp(-theta), rel=1e-8)

    def naive(t: float, lam: float) -> float:
        return (1 - lam) * sum((lam * (k - t)) ** k / math.factorial(k) * math.exp(-lam * (k - t)) for k in range(int(t) + 1))

    assert naive(30.0, 0.9) > 1.0  # the cancellation the decimal sum avoids
    assert 0.99 < dm.md1_wait_cdf(30.0, 0.9, 1.0) < 1.0


def _lindley(rho: float, n: int, seed: int) -> np.ndarray:
    """Waiting times of n customers of an M/D/1 queue (D = 1) by Lindley's recursion
    W_{i+1} = max(0, W_i + D − A_{i+1}), in closed form W_i = S_i − min_{k ≤ i} S_k with S the
    partial sums of D − A, started empty."""
    a = np.random.default_rng(seed).exponential(1 / rho, n)
    s = np.concatenate(([0.0], np.cumsum(1.0 - a)))
    return s - np.minimum.accumulate(s)


@pytest.mark.parametrize("rho", [0.3, 0.6, 0.9])
def test_md1_percentiles_against_a_long_simulation(rho):
    # 2·10^6 customers (the first 10^5 dropped); at each model percentile q_p the simulated share
    # P(W ≤ q_p) must be within 5 standard errors of p, the error estimated by batch means over
    # 50 batches (batches of 38,000 customers, far longer than the queue's relaxation time,
    # about 1/(1 − √ρ)² ≈ 0.3·10^3 customers at ρ = 0.9).
    w = _lindley(rho, 2_000_000, seed=7)[100_000:]
    batches = w[: len(w) // 50 * 50].reshape(50, -1)
    for p in (0.5, 0.9, 0.99, 0.999):
        q = dm.md1_wait_quantile(p, rho, 1.0)
        if q == 0.0:
            assert p <= 1 - rho
            continue
        assert dm.md1_wait_cdf(q, rho, 1.0) == pytest.approx(p, abs=1e-10)
        shares = (batches <= q).mean(axis=1)
        se = shares.std(ddof=1) / math.sqrt(len(shares))
        assert abs(shares.mean() - p) <= 5 * se + 1e-6, (p, q, shares.mean(), se)
    # The mean too: Pollaczek–Khinchine.
    means = batches.mean(axis=1)
    assert abs(means.mean() - rho / (2 * (1 - rho))) <= 5 * means.std(ddof=1) / math.sqrt(50)


def test_read_latency_is_wait_plus_tr():
    # FEMU, ρ = 0.5 on every die (800,000 reads/s over 64 dies × 40 µs): mean = 40 + 20 = 60 µs;
    # p99 = 40 + 40 × the p99 of the wait at λD = 0.5 (3.3363 D).
    lat = dm.read_latency(dm.FEMU, 800_000.0)
    assert lat["mean"] == pytest.approx(60.0, rel=1e-12)
    assert lat["p99"] == pytest.approx(40 + 40 * dm.md1_wait_quantile(0.99, 0.5, 1.0), rel=1e-9)
    assert lat["p50"] == pytest.approx(40.0, abs=1e-9)  # P(W = 0) = 1 − ρ = 0.5
    assert list(lat) == ["mean", "p50", "p90", "p99", "p999", "p9999"]


# --- the closed loop by exact MVA (Dyal & Draughn's model) ---------------------------------


def test_mva_two_dies_by_hand():
    # Two dies, reads alone (demand 40/2 = 20 µs at each), N = 2. MVA by hand: N = 1: R = 40,
    # Q = 0.5 at each die; N = 2: R_k = 20·(1 + 0.5) = 30, R = 60 µs, X = 2 / 60 µs = 33,333.3/s.
    c = dm.closed_loop(dm.parse("femu:channels=1,dies=2"), 1.0, 2, reads=1.0)
    assert c.response == pytest.approx(60.0, rel=1e-12)
    assert c.iops == pytest.approx(1e6 / 30, rel=1e-12)


def test_mva_die_and_channel_by_hand():
    # One die (75 µs) and its channel (24.601 µs), bus on, N = 2. N = 1: R = 99.601,
    # Q_die = 75/99.601, Q_ch = 24.601/99.601; N = 2: R = 75·(1 + 0.753004) + 24.601·(1 + 0.246996)
    # = 162.152673 µs, X = 2 / R = 12,334.055/s.
    c = dm.closed_loop(dm.parse("mqsim:channels=1,dies=1"), 1.0, 2, reads=1.0)
    assert c.response == pytest.approx(162.152673, rel=1e-8)
    assert c.iops == pytest.approx(12334.055, rel=1e-7)


def test_mva_with_think_time_by_hand():
    # One die (40 µs), think 60 µs, N = 2: N = 1: R = 40, X = 1/100, Q = 0.4; N = 2:
    # R = 40·1.4 = 56, X = 2 / (60 + 56) µs = 17,241.38/s.
    c = dm.closed_loop(dm.parse("femu:channels=1,dies=1"), 1.0, 2, reads=1.0, think=60.0)
    assert c.response == pytest.approx(56.0, rel=1e-12)
    assert c.iops == pytest.approx(2e6 / 116, rel=1e-12)


def test_mva_reaches_the_saturation_bound():
    # At a deep queue the throughput tends to dies / S (the bound of the saturation formula):
    # with 64 equal stations and N = 4096, X = N / (N + 63) of it (MVA's closed form for K
    # equal stations: X(N) = N / ((N + K − 1)·D)).
    c = dm.closed_loop(dm.FEMU, 2.0, 4096)
    assert c.iops == pytest.approx(dm.saturation_iops(dm.FEMU, 2.0) * 4096 / (4096 + 63), rel=1e-9)


# --- reclaim model device ----------------------------------------------------------------------


def _run(args: list[str]) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["model", "device", *args])
    return r.exit_code, r.output


def test_cli_prints_the_closed_forms():
    code, text = _run(["--device", "femu", "--reads", "1", "--utilisation", "0.5", "--iodepth", "2", "--json"])
    assert code == 0, text
    d = json.loads(text)
    assert d["saturation_iops"] == pytest.approx(1.6e6, rel=1e-12)  # 64 dies / 40 µs
    assert d["rate_iops"] == pytest.approx(0.8e6, rel=1e-12)
    assert d["die_busy"] == pytest.approx(0.5, rel=1e-12)
    assert d["md1_read_latency_mean_us"] == pytest.approx(60.0, rel=1e-12)
    assert d["md1_read_latency_p99_us"] == pytest.approx(40 + 40 * dm.md1_wait_quantile(0.99, 0.5, 1.0), rel=1e-9)
    assert d["mva_iops"] == pytest.approx(dm.closed_loop(dm.FEMU, 1.0, 2, reads=1.0).iops, rel=1e-12)


def test_cli_leaves_out_md1_with_the_bus_on():
    # With bus=on the channel is a second queue: M/D/1 does not describe the read latency.
    code, text = _run(["--device", "mqsim", "--reads", "1", "--rate", "100000", "--json"])
    assert code == 0, text
    d = json.loads(text)
    assert "md1_read_latency_mean_us" not in d
    assert d["channel_busy"] == pytest.approx(100_000 * 24.601e-6 / 8, rel=1e-12)


@pytest.mark.parametrize(("args", "message"), [
    (["--wa", "0.5"], "`--wa`: 0.5"),
    (["--reads", "2"], "`--reads`: 2.0"),
    (["--rate", "0"], "`--rate`: 0.0"),
    (["--rate", "1", "--utilisation", "0.5"], "only one of"),
    (["--utilisation", "1"], "`--utilisation`: 1.0"),
    (["--device", "femu:tr=40"], "`device.tr`: `40`"),
])
def test_cli_errors_name_the_option(args, message):
    code, text = _run(args)
    assert code == 2
    assert message in text


# --- reclaim validate's device rows --------------------------------------------------------


def test_validate_device_rows_hold_within_their_tolerances():
    # Two of the timed cases of `reclaim validate` (the rest differ only in ρ and the device):
    # Poisson reads at ρ = 0.9 on FEMU's 64 dies (M/D/1: mean 220 µs, p99 915.93 µs; 1% and 2%)
    # and saturated writes at depth 256 (dies / S_w with the run's WA, 2%; cleaning's share, 1%).
    from reclaim import validate

    cases = validate._device_cases(quick=True)
    assert sum(len(c.checks) for c in cases) == 2 * 3 * 2 + 2 * 2 + 3
    md1 = next(c for c in cases if c.group == "Device M/D/1 (femu, 64 dies)" and c.checks[0].setting.startswith("ρ=0.9"))
    sat = next(c for c in cases if c.group == "Device saturation (femu)")
    for case in (md1, sat):
        for check, (model, sim) in zip(case.checks, validate._timed(case)):
            assert abs(sim - model) / model <= check.tolerance, (case.group, check.setting, model, sim)
    assert md1.checks[0].model(None) == pytest.approx(220.0, rel=1e-12)


def test_cli_says_when_the_rate_is_beyond_saturation():
    # FEMU at WA = 2 saturates at 140,466 writes/s; 10^6/s offered loads the dies 7.1 times over.
    code, text = _run(["--wa", "2", "--rate", "1e6", "--json"])
    assert code == 0, text
    d = json.loads(text)
    assert d["die_busy"] == pytest.approx(1e6 * 455.625e-6 / 64, rel=1e-12)
    assert "beyond saturation (140,466 IOPS)" in d["note"]


def test_free_cleaning_costs_the_users_program_alone():
    # clean=free (ttFlash's ideal device): cleaning takes no device time, so a user write costs
    # its tPROG whatever the WA: 64 dies / 200 µs = 320,000 IOPS at saturation.
    d = dm.parse("femu:clean=free")
    assert d.free_cleaning and not dm.FEMU.free_cleaning
    assert dm.write_cost(d, 5.0) == dm.Cost(200.0, 0.0, 0.0)
    assert dm.saturation_iops(d, 5.0) == pytest.approx(320_000.0, rel=1e-12)
    assert dm.utilisation(d, 5.0, 160_000.0).gc_busy == 0.0


def test_a_plane_block_erase_is_not_shared_by_the_planes():
    # unit=plane: a segment is one block, its erase one tBERS on one die, so a user write costs
    # WA·tBERS / pages_per_block of erase; a superblock's multi-plane erase shares one tBERS among
    # a die's planes: WA·tBERS / (planes·pages_per_block). At WA 3, femu with 2 planes and
    # 256-page blocks: 3·2000/256 = 23.4375 µs against 11.71875 µs.
    plane = dm.parse("femu:planes=2,unit=plane")
    superblock = dm.parse("femu:planes=2")
    assert plane.pages_per_segment == 256 and superblock.pages_per_segment == 8 * 8 * 2 * 256
    gap = dm.write_cost(plane, 3.0).die - dm.write_cost(superblock, 3.0).die
    assert gap == pytest.approx(3 * 2000 / 256 - 3 * 2000 / 512)
