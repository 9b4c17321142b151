"""scripts/mqsim-side-by-side.py: its MQSim files and its reading of MQSim's latency log without
MQSim; its mends and a short MQSim run with the clone that MQSIM_DIR names (one mended and built
by `scripts/mqsim-side-by-side.py --clone DIR`; skipped without one)."""

from __future__ import annotations

import math
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from script_loader import load_script

side = load_script("mqsim-side-by-side")

MQSIM_DIR = Path(os.environ["MQSIM_DIR"]) if os.environ.get("MQSIM_DIR") else None
needs_clone = pytest.mark.skipif(MQSIM_DIR is None or not (MQSIM_DIR / "src" / "ssd" / "FTL.cpp").exists(), reason="MQSIM_DIR names no MQSim clone")
needs_build = pytest.mark.skipif(MQSIM_DIR is None or not (MQSIM_DIR / "MQSim").exists(), reason="MQSIM_DIR names no built MQSim")


def _tag(xml: str, name: str) -> str:
    found = ET.fromstring(xml).find(f".//{name}")
    assert found is not None and found.text is not None, name
    return found.text


def test_latency_log_read_as_written(tmp_path: Path) -> None:
    # Four requests: arrival ns, completion ns, kind, then the flash programs, reads and erases
    # issued so far.
    log = tmp_path / "latency.log"
    log.write_text("0 100000 R 0 1 0\n0 1000000 W 3 1 0\n500000 2000000 W 6 3 0\n1000000 3000000 R 6 4 1\n")
    cfg = side.Config(channels=1, dies=1)
    got, completed = side.latency_figures(log, measured=4, cfg=cfg)
    assert completed == 4
    assert got.read_mean == pytest.approx((100 + 2000) / 2)  # reads took 100 and 2,000 µs
    assert got.read_p50 == pytest.approx(1050)  # numpy's linear interpolation between the two
    assert got.write_mean == pytest.approx((1000 + 1500) / 2)
    # Three completions after the first, over 2.9 ms from the first completion to the last.
    assert got.iops == pytest.approx(3 / 2.9e-3)
    # Six programs issued after the first completion, for the two writes completed after it.
    assert got.wa == pytest.approx(3.0)
    # After the first completion: 6 programs, 3 reads, 1 erase on one die over 2.9 ms.
    assert got.die_busy == pytest.approx((6 * 750 + 3 * 75 + 1 * 3800) / 2900)


def test_measured_window_is_the_last_requests(tmp_path: Path) -> None:
    log = tmp_path / "latency.log"
    log.write_text("0 5000000 W 1 0 0\n5000000 5001000 W 2 0 0\n5001000 5002000 W 3 0 0\n")
    got, completed = side.latency_figures(log, measured=2)
    assert completed == 3
    assert got.write_mean == pytest.approx(1.0)  # the 5,000 µs first request is left out
    assert math.isnan(got.read_mean)


@pytest.mark.parametrize("blocks", [256, 512, 1000, 1024, 2048])
def test_gc_threshold_gives_mqsim_ten_free_blocks(blocks: int) -> None:
    # MQSim truncates GC_Exec_Threshold x blocks per plane to a whole number
    # (GC_and_WL_Unit_Base.cpp); a threshold printed with 6 decimals gave 9 for 1,024 blocks.
    cfg = side.Config(blocks_per_plane=blocks)
    threshold = float(_tag(side.ssd_xml(cfg), "GC_Exec_Threshold"))
    assert int(threshold * blocks) == 10


def test_workload_arrivals() -> None:
    closed = side.workload_xml(side.Config(arrivals="closed:iodepth=16"))
    assert _tag(closed, "Synthetic_Generator_Type") == "QUEUE_DEPTH"
    assert _tag(closed, "Average_No_of_Reqs_in_Queue") == "16"
    poisson = side.workload_xml(side.Config(arrivals="poisson:iops=300"))
    assert _tag(poisson, "Synthetic_Generator_Type") == "BANDWIDTH"
    assert _tag(poisson, "Bandwidth") == str(300 * 4096)  # bytes per second of 4 KiB requests
    assert _tag(poisson, "Stop_Time") == "0"  # else the stop time, not the count, ends the run
    with pytest.raises(ValueError, match="poisson:rate=3"):
        side.Config(arrivals="poisson:rate=3").arrival()


def test_reclaim_arguments_match_the_device() -> None:
    cfg = side.Config()
    args = side.reclaim_arguments(cfg)
    assert args["segments"] == cfg.blocks_per_plane
    assert args["gc"] == "batch:low=10,victims=10"
    assert args["writes"] == round(cfg.measured * (1 - cfg.reads))
    assert "channels=2,dies=2,planes=1,pages_per_block=64,page_size=4KiB" in args["device"]
    assert args["device"].endswith(",unit=plane")
    assert args["placement"] == "single"  # the device's planes placement, one log a plane
    superblocks = side.reclaim_arguments(side.Config(unit="superblock"))
    assert "unit=" not in superblocks["device"]  # the device's default
    assert superblocks["placement"] == "double"  # MQSim's user and GC frontiers


@needs_clone
def test_mends_apply_once(tmp_path: Path) -> None:
    assert MQSIM_DIR is not None
    files = {rel for rel, *_ in side.MENDS}
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(MQSIM_DIR / rel, tmp_path / rel)
    changed = side.apply_mends(tmp_path)
    if not changed:  # MQSIM_DIR is already mended: every replacement is there
        for rel, _, new, _ in side.MENDS:
            assert new in (tmp_path / rel).read_text(encoding="latin-1")
    else:
        assert set(changed) == files
    assert side.apply_mends(tmp_path) == []


@needs_build
def test_short_run_completes_with_no_load_medians(tmp_path: Path) -> None:
    assert MQSIM_DIR is not None
    # One die, 256 blocks of 64 pages, light Poisson load: about 4 x logical pages written.
    cfg = side.Config(channels=1, dies=1, blocks_per_plane=256, arrivals="poisson:iops=100", requests=80_000, measured=20_000)
    got, counters = side.run_mqsim(MQSIM_DIR / "MQSim", cfg, tmp_path)
    assert counters["completed"] == cfg.requests  # no request lost to GC
    assert counters["Total_GC_Executions"] > 0
    transfer_us = 4096 / 2 * 6 / 1000  # 2 bytes per 6 ns cycle at 333 MT/s (SSD_Device.cpp)
    # Medians at the no-load service time: tR (tPROG) plus the page's transfer, plus the few
    # µs of command, PCIe and NVMe time MQSim adds.
    assert 75 + transfer_us <= got.read_p50 <= 75 + transfer_us + 5
    assert 750 + transfer_us <= got.write_p50 <= 750 + transfer_us + 5
    assert got.wa > 1.0
