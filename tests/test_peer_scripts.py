"""scripts/ssdiq-side-by-side.py, scripts/midas-side-by-side.py and scripts/midas-trace.py:
the peers' settings mapped onto reclaim's (closed forms from the peers' sources, docs/peers.md),
the reading of the peers' outputs, and the trace generator's format. No peer is run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from script_loader import load_script

ssdiq = load_script("ssdiq-side-by-side")
midas = load_script("midas-side-by-side")
gen = load_script("midas-trace")


# --- SSD-iq ------------------------------------------------------------------------------------


def test_ssdiq_defaults_map_to_segments_spare_and_warmup() -> None:
    # ssdiq sim/SSD.hpp: blocks = 16 GiB / 8 MiB = 2048, pages per block = 8 MiB / 4 KiB = 2048,
    # logical = 4,194,304 × 0.875 = 3,670,016 (exact: 0.875 is a binary fraction).
    g = ssdiq.geometry("16G", "8M", "4K", 0.875, 10)
    assert (g.segments, g.pages_per_segment, g.logical_pages) == (2048, 2048, 3_670_016)
    assert g.physical_pages == 4_194_304
    assert g.spare == 0.125  # 1 − 0.875, exact in binary
    # Init phase: the fill, then physical-pages pattern writes = 8/7 logical capacities.
    assert g.warmup == f"fill+{8 / 7:.9f}x"
    # Measured: ⌊10·L / ⌊L/10⌋⌋ rows of ⌊L/10⌋ = 100 × 367,001 writes (sim.cpp runBench).
    assert g.measured_writes == 100 * 367_001


def test_ssdiq_fill_is_floored_like_the_peer() -> None:
    # 1 GiB of 4 KiB pages at fill 0.9: 262,144 × 0.9 = 235,929.6, floored to 235,929;
    # 128 blocks of 2048 pages; spare 1 − 235,929 / 262,144.
    g = ssdiq.geometry("1G", "8M", "4K", 0.9, 10)
    assert (g.segments, g.pages_per_segment, g.logical_pages) == (128, 2048, 235_929)
    assert g.spare == pytest.approx(1 - 235_929 / 262_144, rel=1e-12)


def test_ssdiq_sizes_are_binary() -> None:
    # shared/Env.hpp getBytesFromString: K, M, G, T are powers of 1024, case ignored.
    assert ssdiq.parse_bytes("16G") == 16 * 2**30
    assert ssdiq.parse_bytes("8m") == 8 * 2**20
    assert ssdiq.parse_bytes("0.5K") == 512


def test_ssdiq_zone_strings_are_the_scripts() -> None:
    # The literal strings of ssdiq scripts/runsimzones.sh and sim/algos.sh.
    assert ssdiq.peer_env("zones-0.6")["ZONES"] == "s0.6 f0.4 s0.4 f0.6"
    assert ssdiq.peer_env("zones-0.95")["ZONES"] == "s0.95 f0.05 s0.05 f0.95"
    assert ssdiq.peer_env("zipf-1.0") == {"PATTERN": "zipf", "ZIPF": "1"}
    assert len(ssdiq.SETTINGS) == 12
    with pytest.raises(ValueError, match="setting 'beta-2'"):
        ssdiq.peer_env("beta-2")


def test_ssdiq_workloads_map_to_reclaims() -> None:
    def none(family: str, name: str) -> bool:
        return False

    def zones(family: str, name: str) -> bool:
        return (family, name) == ("workload", "zones")

    # The cold zone (s0.8, f0.2) first, as the peer lays it out; hot/cold before `zones` exists.
    assert ssdiq.reclaim_workload("zones-0.8", zones) == "zones:s=0.8/0.2,f=0.2/0.8"
    assert ssdiq.reclaim_workload("zones-0.8", none) == "hotcold:r=0.8,f=0.2"
    assert ssdiq.reclaim_workload("zipf-0", none) == "uniform"  # k⁰: every page alike
    assert ssdiq.reclaim_workload("zipf-0.4", none) == "zipf:theta=0.4"


def test_ssdiq_reads_the_last_cumulative_waf_and_opts_last_line() -> None:
    # Two rows as ssdiq's sim printed them here (sim.cpp runBench); the last field is cumulativeWAF.
    out = (
        "Init WA: 2.183\n"
        "bench,2026-11-28_21-43-14.633,'output',4.8,48,0.06,1073741824,8388608,4096,uniform,0,'',1,1,0.9000,greedy,64,20,4,1000,0.1922,5.20384,5.19972\n"
        "Greedy stats\n"
        "bench,2026-11-28_21-43-14.633,'output',4.9,49,0.07,1073741824,8388608,4096,uniform,0,'',1,1,0.9000,greedy,64,20,4,1000,0.1919,5.21003,5.19992\n"
        "Greedy stats\n"
    )
    assert ssdiq.peer_wa(out, "greedy") == 5.19992
    assert ssdiq.peer_wa("optWA: 2.15174\nbench,x\noptWA: 2.141\n", "opt-1000") == 2.141
    assert ssdiq.peer_wa("capacity: 1\n", "greedy") is None


def test_ssdiq_plus_rows_get_its_write_buffer() -> None:
    # ssdiq_plus sim/SSD.hpp: writeBufferSizePct = 0.0004 of the logical pages: ⌊1,468.0064⌋.
    fam = {"policy": {"greedy"}, "placement": {"single", "opt"}, "workload": {"uniform"}}
    g = ssdiq.geometry("16G", "8M", "4K", 0.875, 10)
    kw = ssdiq.reclaim_arguments(ssdiq.SCHEMES["opt"], "uniform", g, 1, fam)
    assert isinstance(kw, dict) and kw["placement"] == "opt:groups=4" and "cache" not in kw  # opt-4 writes no block
    kw = ssdiq.reclaim_arguments(ssdiq.SCHEMES["plus-greedy"], "uniform", g, 1, fam)
    assert isinstance(kw, dict) and kw["cache"] == 1468
    # Its WA: flash writes over host writes (sim.cpp runBench), absorbed rewrites included.
    assert ssdiq.reclaim_wa(1_707_875, 8_286_468, 2_293_760, True) == pytest.approx(9_994_343 / 2_293_760, rel=1e-12)
    assert ssdiq.reclaim_arguments(ssdiq.SCHEMES["gen"], "uniform", g, 1, fam) == "reclaim has no scheme gen yet"


# --- MiDAS -------------------------------------------------------------------------------------


def test_midas_8gb_on_8gib_is_7_37_percent_over_provisioning() -> None:
    # ssd_config.cpp ssd_init: LOGSIZE = 8·10⁹ B, DEVSIZE = 8·2³⁰ B, 4 KiB pages, 4 MB segments of
    # 2 blocks × 512 pages. 8·10⁹/4096 = 1,953,125 and 8·2³⁰/4096 = 2,097,152 exactly, so the
    # over-provisioning is 2³⁰/10⁹ − 1 and the spare 1 − 10⁹/2³⁰.
    g = midas.geometry(8, 4)
    assert (g.segments, g.pages_per_segment, g.logical_pages) == (2048, 1024, 1_953_125)
    assert g.over_provisioning == pytest.approx(2**30 / 1e9 - 1, rel=1e-12)
    assert round(g.over_provisioning * 100, 2) == 7.37
    assert g.spare == pytest.approx(1 - 1e9 / 2**30, rel=1e-12)


def test_midas_other_sizes_follow_the_same_formulas() -> None:
    # 16 GB, 8 MB segments: 512 × 4 = 2048 pages a segment, 16·2³⁰ / (2048·4096) = 2048 segments.
    g = midas.geometry(16, 8)
    assert (g.segments, g.pages_per_segment, g.logical_pages) == (2048, 2048, 3_906_250)
    with pytest.raises(ValueError, match="seg_mb 1: must be ≥ 2"):
        midas.geometry(8, 1)


def test_midas_final_block_is_read_and_the_fill_taken_out() -> None:
    # The README's final block: USERWRITE counts the 1 the counter starts at and the fill.
    out = (
        "[Progress: 8GB] WAF: 1.002\n Experimental result\n============\n"
        "USERWRITE: 54237899\nCOPYWRITE: 70485894\nTOTAL WAF: 2.300\n"
        "HOT[9]: 0.0202 (ERASE: 22858)\nGROUP 5[1737]: 0.9090 (ERASE: 31715)\n"
    )
    r = midas.parse_peer(out)
    assert r is not None and r.total_waf == 2.3 and len(r.groups) == 2
    # (54,237,899 + 70,485,894) / 54,237,899 = 2.29956…, printed 2.300.
    assert (r.user_writes + r.copies) / r.user_writes == pytest.approx(2.29956, abs=1e-5)
    # Without the fill: (52,284,773 + 70,485,894) / 52,284,773.
    assert r.trace_wa(1_953_125) == pytest.approx((52_284_773 + 70_485_894) / 52_284_773, rel=1e-12)
    assert midas.parse_peer("[Progress: 8GB] WAF: 1.002\n") is None


def test_midas_reclaim_run_counts_the_fill_as_midas_does() -> None:
    # Closed form: fill F then U user writes at WA w: (F + w·U) / (F + U).
    assert midas.with_fill(3.0, 300, 100) == (100 + 900) / 400
    kw = midas.reclaim_arguments("midas", "greedy", midas.geometry(8, 4), "batch:low=4,victims=1", 7)
    assert (kw["method"], kw["warmup"], kw["writes"], kw["gc"], kw["seed"]) == ("li", "fill", "1p", "batch:low=4,victims=1", 7)


# --- the trace generator -----------------------------------------------------------------------


def test_trace_defaults_are_the_readmes_run() -> None:
    # MiDAS's USERWRITE 54,237,899 = 1 (stats_init) + 1,953,125 (fill) + the trace's writes;
    # the published trace's device: 4 GiB of 4 KiB pages (zenodo 10409599).
    assert gen.MIDAS_8GB_PAGES == 1_953_125
    assert gen.FIO_DEVICE_PAGES == 2**20
    assert gen.README_TRACE_WRITES == 54_237_899 - 1 - 1_953_125 == 52_284_773


def test_trace_lines_are_midas_requests(tmp_path: Path) -> None:
    path = tmp_path / "t.trace"
    assert gen.write_trace(path, 1000, 1.0, 500, seed=3) == 500
    lines = path.read_text().splitlines()
    assert len(lines) == 500
    for i, line in enumerate(lines[:50]):
        # ssdsimul.cpp req_processing: TIMESTAMP TYPE LBA SIZE; a 4 KiB write of one page.
        t, kind, lba, size = line.split(" ")
        assert (int(t), kind, size) == (i, "1", "4096")
        assert 0 <= int(lba) < 1000
    # The side-by-side script's own reader gives the same pages back.
    ids, trims = midas.trace_pages(path)
    assert trims == 0 and ids.tolist() == [int(x.split()[2]) for x in lines]


def test_trace_is_read_back_by_reclaims_midas_reader(tmp_path: Path) -> None:
    # reclaim's `midas` format (trace/midas.rs) reads what the generator writes, and the
    # side-by-side script finds it.
    assert midas.reclaim_has_midas_reader()
    path = tmp_path / "t.trace"
    gen.write_trace(path, 1000, 1.0, 200, seed=5)
    out = tmp_path / "t.bin"
    cli = str(Path(sys.executable).parent / "reclaim")
    subprocess.run([cli, "trace", "convert", str(path), "--format", "midas", "-o", str(out)], check=True, capture_output=True)
    stats = subprocess.run([cli, "trace", "stats", str(out)], check=True, capture_output=True, text=True).stdout
    assert "200" in stats.replace(",", "")  # 200 page writes


def test_fio_hash_scatter_is_fios_multiplicative_hash() -> None:
    # axboe/fio lib/zipf.c zipf_next: (hash(k − 1) + rand_off) mod n, hash.h __hash_long on 64
    # bits = x · 0x9e37fffffffc0001 mod 2⁶⁴; computed here with Python's integers.
    n, off = 1000, 2**64 - 5  # an offset that makes some sums wrap
    want = [((k * 0x9E37FFFFFFFC0001 % 2**64 + off) % 2**64) % n for k in range(n)]
    assert gen.fio_hash_pages(n, off).tolist() == want


def test_fio_hash_on_a_power_of_two_is_a_permutation() -> None:
    # An odd multiplier is invertible mod 2^k: on 2²⁰ pages every page gets exactly one rank.
    assert np.array_equal(np.sort(gen.fio_hash_pages(2**20, 777)), np.arange(2**20))


def test_zipf_draws_follow_the_law() -> None:
    # Zipf(1.0) over 10 pages: the top rank takes 1/H₁₀ = 1/2.928968… = 0.34142 of the writes;
    # 200,000 draws give a standard error of 0.0011, so ±0.005 is over 4 of them.
    ids = np.concatenate(list(gen.iter_zipf_pages(10, 1.0, 200_000, seed=11, scatter="permutation")))
    counts = np.bincount(ids, minlength=10)
    assert counts.max() / counts.sum() == pytest.approx(1 / sum(1 / k for k in range(1, 11)), abs=0.005)
    # Under a permutation every page has a rank: all ten are written.
    assert np.count_nonzero(counts) == 10
    with pytest.raises(ValueError, match="scatter 'hash'"):
        next(gen.iter_zipf_pages(10, 1.0, 10, seed=1, scatter="hash"))


@pytest.mark.parametrize(("capacity", "fill"), [("16G", 0.875), ("128G", 0.9), ("1G", 0.8)])
def test_ssdiq_script_agrees_with_reclaim_ssdiq(capacity: str, fill: float) -> None:
    # The script's mapping and reclaim.ssdiq's (the library's) are two readings of the same
    # sim/SSD.hpp constructor: same segments, pages per segment, logical pages and warm-up K.
    from reclaim import ssdiq as library

    mine = ssdiq.geometry(capacity, "8M", "4K", fill, 10)
    theirs = library.geometry(capacity, "8M", "4K", fill)
    assert (mine.segments, mine.pages_per_segment, mine.logical_pages) == (theirs["segments"], theirs["pages_per_segment"], theirs["logical_pages"])
    k_mine = float(mine.warmup.removeprefix("fill+").removesuffix("x"))
    k_theirs = float(str(theirs["warmup"]).removeprefix("fill+").removesuffix("x"))
    assert k_mine == pytest.approx(k_theirs, rel=1e-9)
    for z in ssdiq.ZONES:
        setting = f"zones-{z}"
        assert ssdiq.reclaim_workload(setting, lambda family, name: True) == library.zones_spec(ssdiq.peer_env(setting)["ZONES"])
