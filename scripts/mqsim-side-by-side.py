#!/usr/bin/env python3
"""One device configuration run in MQSim and in reclaim, side by side.

MQSim (CMU-SAFARI/MQSim) is a cycle-level SSD simulator. Stock MQSim loses requests once
garbage collection runs (see docs/validation.md, "Time: side by side with MQSim", and
scripts/mqsim-mends.md); this script applies the mends described in mqsim-mends.md to a clone
of it (small targeted replacements, each checked to match exactly once), adds a per-request
latency log, builds it, writes the SSD and workload XML files of one configuration, runs it,
then runs reclaim on the matched configuration and prints one table: metric | MQSim | reclaim |
difference %, with each tool's wall time.

Usage:
    .venv/bin/python scripts/mqsim-side-by-side.py --clone /work/mqsim        # mend, build, run
    .venv/bin/python scripts/mqsim-side-by-side.py --mqsim /work/mqsim        # already mended build
    .venv/bin/python scripts/mqsim-side-by-side.py --mqsim DIR --reads 0 --arrivals poisson:iops=300

Building takes the machine's shared build lock (flock /tmp/reclaim-build.lock), as any
heavy job on it must.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.csv as pacsv

BUILD_LOCK = "/tmp/reclaim-build.lock"
LATENCY_LOG_ENV = "MQSIM_LATENCY_LOG"

# ---------------------------------------------------------------------------------------------
# Mends to MQSim (commit 7ec40e3). Each is (file, anchor, replacement, count): the anchor must
# occur exactly `count` times in a clean clone; a file that already holds the replacement is
# left as it is, so applying twice is harmless. scripts/mqsim-mends.md says why each is needed.
# ---------------------------------------------------------------------------------------------

_GREEDY_START = (
    "gc_candidate_block_id = 0;\n"
    "\t\t\t\t\tif (pbke->Ongoing_erase_operations.find(0) != pbke->Ongoing_erase_operations.end()) {\n"
    "\t\t\t\t\t\tgc_candidate_block_id++;\n"
    "\t\t\t\t\t}\n"
    "\t\t\t\t\tfor (flash_block_ID_type block_id = 1; block_id < block_no_per_plane; block_id++) {\n"
    "\t\t\t\t\t\tif (pbke->Blocks[block_id].Invalid_page_count > "
    "pbke->Blocks[gc_candidate_block_id].Invalid_page_count"
)
_GREEDY_NEW = (
    "gc_candidate_block_id = block_no_per_plane; // none yet: block 0 may be a frontier\n"
    "\t\t\t\t\tfor (flash_block_ID_type block_id = 0; block_id < block_no_per_plane; block_id++) {\n"
    "\t\t\t\t\t\tif ((gc_candidate_block_id == block_no_per_plane || "
    "pbke->Blocks[block_id].Invalid_page_count > "
    "pbke->Blocks[gc_candidate_block_id].Invalid_page_count)"
)

_REDISPATCH = (
    "{{ NVM_Transaction_Flash* parked = (*{it}).second; ftl->TSU->Prepare_for_transaction_submit();"
    " if (translate_lpa_to_ppa(stream_id, parked)) {{ ftl->TSU->Submit_transaction(parked);"
    "{related} }} else {{ mange_unsuccessful_translation(parked); }}"
    " ftl->TSU->Schedule(); }} // dispatched again, no longer dropped"
)
_RELATED = " if (((NVM_Transaction_Flash_WR*)parked)->RelatedRead != NULL) { ftl->TSU->Submit_transaction(((NVM_Transaction_Flash_WR*)parked)->RelatedRead); }"

_LOG_HELPER = (
    '#include <cstdio>\n#include <cstdlib>\n#include "../ssd/Stats.h"\n'
    "// Per-request latency log: arrival and completion (ns), R/W, and the flash program, read and\n"
    "// erase commands issued so far; one line a request, where MQSIM_LATENCY_LOG names a file.\n"
    "static void log_request_latency(sim_time_type arrival, sim_time_type completion, bool is_read)\n"
    "{\n"
    "\tstatic FILE* log = NULL; static bool opened = false;\n"
    '\tif (!opened) { opened = true; const char* path = std::getenv("MQSIM_LATENCY_LOG");'
    ' if (path != NULL) { log = std::fopen(path, "w"); } }\n'
    '\tif (log != NULL) { std::fprintf(log, "%llu %llu %c %lu %lu %lu\\n", (unsigned long long)arrival,'
    " (unsigned long long)completion, is_read ? 'R' : 'W', SSD_Components::Stats::IssuedProgramCMD,"
    " SSD_Components::Stats::IssuedReadCMD, SSD_Components::Stats::IssuedEraseCMD); }\n"
    "}\n"
    "namespace Host_Components"
)

MENDS: list[tuple[str, str, str, int]] = [
    # 1. Preconditioning replays the generator over the same address range as the flow.
    (
        "src/ssd/FTL.cpp",
        "LHA_type max_lha = stat->Max_LHA - 1;",
        "LHA_type max_lha = stat->Max_LHA; // the flow's own range",
        1,
    ),
    # 2. The GC unit gets the wear-levelling settings of the configuration (they were missing,
    #    so the seed was read as "dynamic wear-levelling on" and static wear-levelling stayed on).
    (
        "src/exec/SSD_Device.cpp",
        "parameters->Use_Copyback_for_GC, max_rho, 10,\n",
        "parameters->Use_Copyback_for_GC, max_rho, 10, parameters->Dynamic_Wearleveling_Enabled, parameters->Static_Wearleveling_Enabled, parameters->Static_Wearleveling_Threshold,\n",
        1,
    ),
    # 3. User reads and writes parked behind a GC lock are dispatched again when it is lifted.
    (
        "src/ssd/Address_Mapping_Unit_Page_Level.cpp",
        "handle_transaction_serviced_signal_from_PHY((*read_tr).second);\n\t\t\tdelete (*read_tr).second;",
        _REDISPATCH.format(it="read_tr", related=""),
        1,
    ),
    (
        "src/ssd/Address_Mapping_Unit_Page_Level.cpp",
        "handle_transaction_serviced_signal_from_PHY((*write_tr).second);\n\t\t\tdelete (*write_tr).second;",
        _REDISPATCH.format(it="write_tr", related=_RELATED),
        1,
    ),
    # 4. A write parked for a full plane whose page GC has locked meanwhile waits for the lock.
    (
        "src/ssd/Address_Mapping_Unit_Page_Level.cpp",
        "\t\t\tif (translate_lpa_to_ppa((*program)->Stream_id, *program)) {",
        "\t\t\tif (is_lpa_locked_for_gc((*program)->Stream_id, (*program)->LPA)) {"
        " manage_user_transaction_facing_barrier(*program); waiting_write_list.erase(program++); }"
        " else if (translate_lpa_to_ppa((*program)->Stream_id, *program)) {",
        1,
    ),
    # 5. Greedy considers only full blocks that are safe victims, block 0 included.
    ("src/ssd/GC_and_WL_Unit_Page_Level.cpp", _GREEDY_START, _GREEDY_NEW, 1),
    (
        "src/ssd/GC_and_WL_Unit_Page_Level.cpp",
        "\t\t\t//This should never happen, but we check it here for safty",
        "\t\t\tif (gc_candidate_block_id >= block_no_per_plane) { return; } // no victim\n\t\t\t//This should never happen, but we check it here for safty",
        1,
    ),
    # 6. A deferred GC issues its moves once and submits its erase.
    (
        "src/ssd/GC_and_WL_Unit_Base.cpp",
        "if (_my_instance->block_manager->Can_execute_gc_wl(transaction->Address)) {",
        "if (_my_instance->block_manager->Can_execute_gc_wl(transaction->Address) && pbke->Blocks[transaction->Address.BlockID].Erase_transaction == NULL) {",
        1,
    ),
    (
        "src/ssd/GC_and_WL_Unit_Base.cpp",
        "block->Erase_transaction = gc_wl_erase_tr;",
        "block->Erase_transaction = gc_wl_erase_tr; _my_instance->tsu->Submit_transaction(gc_wl_erase_tr);",
        1,
    ),
    # 7. A read of a never-written page, which MQSim maps to a fresh page as if written, leaves
    #    no program outstanding on that block (it left one, so GC could never take the block)
    #    and records the page's LPA where GC looks for it (it found none and moved garbage).
    (
        "src/ssd/Address_Mapping_Unit_Page_Level.cpp",
        "block_manager->Allocate_block_and_page_in_plane_for_user_write(stream_id, read_address);",
        "block_manager->Allocate_block_and_page_in_plane_for_user_write(stream_id, read_address);"
        " block_manager->Program_transaction_serviced(read_address);"
        " flash_controller->Change_flash_page_status_for_preconditioning(read_address, lpa);"
        " // no program is issued, but GC must find the page's LPA",
        1,
    ),
    # 8. The per-request latency log.
    ("src/host/IO_Flow_Base.cpp", "namespace Host_Components", _LOG_HELPER, 1),
    (
        "src/host/IO_Flow_Base.cpp",
        "sim_time_type request_delay = Simulator->Time() - request->Arrival_time;",
        "sim_time_type request_delay = Simulator->Time() - request->Arrival_time;"
        " log_request_latency(request->Arrival_time, Simulator->Time(),"
        " request->Type == Host_IO_Request_Type::READ);",
        2,
    ),
]


def apply_mends(clone: Path) -> list[str]:
    """Apply MENDS to an MQSim clone; return the names of the files changed.

    Raises SystemExit naming the file and the anchor when a clean clone does not match.
    """
    changed: list[str] = []
    texts: dict[str, str] = {}
    for rel, old, new, count in MENDS:
        path = clone / rel
        text = texts.get(rel) or path.read_text(encoding="latin-1")
        if new in text:
            texts[rel] = text
            continue
        found = text.count(old)
        if found != count:
            first = old.splitlines()[0].strip()
            sys.exit(f"{path}: anchor {first!r} found {found} times, expected {count}")
        texts[rel] = text.replace(old, new)
        if rel not in changed:
            changed.append(rel)
    for rel in changed:
        (clone / rel).write_text(texts[rel], encoding="latin-1")
    return changed


def build(clone: Path) -> Path:
    """Build MQSim in `clone` under the shared build lock; return the executable's path."""
    subprocess.run(["flock", BUILD_LOCK, "make", "-j2"], cwd=clone, check=True, stdout=subprocess.DEVNULL)
    exe = clone / "MQSim"
    if not exe.exists():
        sys.exit(f"{clone}: make finished without an MQSim executable")
    return exe


# ---------------------------------------------------------------------------------------------
# The configuration
# ---------------------------------------------------------------------------------------------


@dataclass
class Config:
    """One device and workload, in the units both tools take.

    MQSim's chip is its unit of parallelism (a chip with several dies runs one command at a
    time unless they are interleaved), so a chip here holds one die of one plane: reclaim's
    die = MQSim's chip.
    """

    channels: int = 2
    dies: int = 2  # per channel (MQSim chips per channel, one die each)
    planes: int = 1
    blocks_per_plane: int = 1024  # reclaim's segments
    pages_per_block: int = 64
    page_size: int = 4096  # bytes
    tr_ns: int = 75_000  # MQSim's default MLC read (ssdconfig.xml)
    tprog_ns: int = 750_000
    tbers_ns: int = 3_800_000
    mts: int = 333
    width_bits: int = 8
    spare: float = 0.125  # MQSim's Overprovisioning_Ratio: fraction of physical pages
    gc_free_blocks: int = 10  # MQSim cleans a plane below this many free blocks (its least: 10)
    max_victims: int = 10  # MQSim's victims in flight per plane at most (a constant, 10)
    reads: float = 0.3  # share of requests that are single-page reads
    arrivals: str = "closed:iodepth=16"  # or poisson:iops=N, in reclaim's grammar
    unit: str = "plane"  # reclaim's segment: one plane's block (MQSim's), or a "superblock"
    requests: int = 2_300_000  # MQSim requests generated in all (about 7 x logical pages written)
    measured: int = 500_000  # the last ones, measured
    seed: int = 12345
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def physical_pages(self) -> int:
        return self.channels * self.dies * self.planes * self.blocks_per_plane * self.pages_per_block

    def arrival(self) -> tuple[str, int]:
        """The arrival process as ("closed", iodepth) or ("poisson", iops)."""
        kind, _, value = self.arrivals.partition(":")
        key, _, number = value.partition("=")
        if (kind, key) not in (("closed", "iodepth"), ("poisson", "iops")) or not number.isdigit() or int(number) < 1:
            raise ValueError(f"--arrivals {self.arrivals}: expected closed:iodepth=N or poisson:iops=N with N a whole number >= 1")
        return kind, int(number)

    @property
    def logical_pages(self) -> int:
        # MQSim: Address_Mapping_Unit_Base.cpp, total_logical_pages_no = physical * (1 - OP).
        return int(self.physical_pages * (1 - self.spare))


def ssd_xml(cfg: Config) -> str:
    """MQSim's device file: its default ssdconfig.xml with the configuration's values and what a
    simpler model leaves out turned off (no copyback, no suspension, no wear-levelling, no data
    cache, an ideal mapping table, non-preemptible GC, greedy)."""
    gc_threshold = cfg.gc_free_blocks / cfg.blocks_per_plane
    t = {
        "PCIe_Lane_Bandwidth": "1.0",
        "PCIe_Lane_Count": "4",
        "SATA_Processing_Delay": "400000",
        "Enable_ResponseTime_Logging": "false",
        "ResponseTime_Logging_Period_Length": "1000000",
    }
    d = {
        "Seed": str(cfg.seed),
        "Enabled_Preconditioning": "false",
        "Memory_Type": "FLASH",
        "HostInterface_Type": "NVME",
        "IO_Queue_Depth": "65535",
        "Queue_Fetch_Size": "512",
        "Caching_Mechanism": "ADVANCED",
        "Data_Cache_Sharing_Mode": "SHARED",
        "Data_Cache_Capacity": "268435456",
        "Data_Cache_DRAM_Row_Size": "8192",
        "Data_Cache_DRAM_Data_Rate": "800",
        "Data_Cache_DRAM_Data_Busrt_Size": "4",
        "Data_Cache_DRAM_tRCD": "13",
        "Data_Cache_DRAM_tCL": "13",
        "Data_Cache_DRAM_tRP": "13",
        "Address_Mapping": "PAGE_LEVEL",
        "Ideal_Mapping_Table": "true",
        "CMT_Capacity": str(256 * 1024 * 1024),
        "CMT_Sharing_Mode": "SHARED",
        "Plane_Allocation_Scheme": "CWDP",
        "Transaction_Scheduling_Policy": "OUT_OF_ORDER",
        "Overprovisioning_Ratio": f"{cfg.spare}",
        "GC_Exec_Threshold": repr(gc_threshold),
        "GC_Block_Selection_Policy": "GREEDY",
        "Use_Copyback_for_GC": "false",
        "Preemptible_GC_Enabled": "false",
        "GC_Hard_Threshold": "0.001",
        "Dynamic_Wearleveling_Enabled": "false",
        "Static_Wearleveling_Enabled": "false",
        "Static_Wearleveling_Threshold": "100",
        "Preferred_suspend_erase_time_for_read": "700000",
        "Preferred_suspend_erase_time_for_write": "700000",
        "Preferred_suspend_write_time_for_read": "100000",
        "Flash_Channel_Count": str(cfg.channels),
        "Flash_Channel_Width": str(cfg.width_bits // 8),
        "Channel_Transfer_Rate": str(cfg.mts),
        "Chip_No_Per_Channel": str(cfg.dies),
        "Flash_Comm_Protocol": "NVDDR2",
    }
    f = {
        "Flash_Technology": "MLC",
        "CMD_Suspension_Support": "NONE",
        "Page_Read_Latency_LSB": str(cfg.tr_ns),
        "Page_Read_Latency_CSB": str(cfg.tr_ns),
        "Page_Read_Latency_MSB": str(cfg.tr_ns),
        "Page_Program_Latency_LSB": str(cfg.tprog_ns),
        "Page_Program_Latency_CSB": str(cfg.tprog_ns),
        "Page_Program_Latency_MSB": str(cfg.tprog_ns),
        "Block_Erase_Latency": str(cfg.tbers_ns),
        "Block_PE_Cycles_Limit": "1000000",
        "Suspend_Erase_Time": "700000",
        "Suspend_Program_Time": "100000",
        "Die_No_Per_Chip": "1",
        "Plane_No_Per_Die": str(cfg.planes),
        "Block_No_Per_Plane": str(cfg.blocks_per_plane),
        "Page_No_Per_Block": str(cfg.pages_per_block),
        "Page_Capacity": str(cfg.page_size),
        "Page_Metadat_Capacity": "448",
    }
    d.update(cfg.extra)

    def tags(values: dict[str, str], indent: str) -> str:
        return "".join(f"{indent}<{k}>{v}</{k}>\n" for k, v in values.items())

    return (
        '<?xml version="1.0" encoding="us-ascii"?>\n<Execution_Parameter_Set>\n'
        f"\t<Host_Parameter_Set>\n{tags(t, chr(9) * 2)}\t</Host_Parameter_Set>\n"
        f"\t<Device_Parameter_Set>\n{tags(d, chr(9) * 2)}"
        f"\t\t<Flash_Parameter_Set>\n{tags(f, chr(9) * 3)}\t\t</Flash_Parameter_Set>\n"
        "\t</Device_Parameter_Set>\n</Execution_Parameter_Set>\n"
    )


def workload_xml(cfg: Config) -> str:
    """One synthetic flow: uniform random single-page requests over the whole logical space,
    a closed loop of `iodepth` outstanding requests (QUEUE_DEPTH) or Poisson arrivals
    (BANDWIDTH, in bytes per second). Initial_Occupancy_Percentage matters only with
    preconditioning, which is off."""
    sectors = cfg.page_size // 512
    kind, number = cfg.arrival()
    chan = ",".join(str(i) for i in range(cfg.channels))
    chips = ",".join(str(i) for i in range(cfg.dies))
    planes = ",".join(str(i) for i in range(cfg.planes))
    v = {
        "Priority_Class": "HIGH",
        "Device_Level_Data_Caching_Mode": "TURNED_OFF",
        "Channel_IDs": chan,
        "Chip_IDs": chips,
        "Die_IDs": "0",
        "Plane_IDs": planes,
        "Initial_Occupancy_Percentage": "100",
        "Working_Set_Percentage": "100",
        "Synthetic_Generator_Type": "QUEUE_DEPTH" if kind == "closed" else "BANDWIDTH",
        "Read_Percentage": f"{round(cfg.reads * 100)}",
        "Address_Distribution": "RANDOM_UNIFORM",
        "Percentage_of_Hot_Region": "0",
        "Generated_Aligned_Addresses": "true",
        "Address_Alignment_Unit": str(sectors),
        "Request_Size_Distribution": "FIXED",
        "Average_Request_Size": str(sectors),
        "Variance_Request_Size": "0",
        "Seed": str(cfg.seed + 1),
        "Average_No_of_Reqs_in_Queue": str(number if kind == "closed" else 1),
        "Bandwidth": str(number * cfg.page_size if kind == "poisson" else 0),
        "Stop_Time": "0",
        "Total_Requests_To_Generate": str(cfg.requests),
    }
    body = "".join(f"\t\t\t<{k}>{x}</{k}>\n" for k, x in v.items())
    return (
        '<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n\t<IO_Scenario>\n'
        f"\t\t<IO_Flow_Parameter_Set_Synthetic>\n{body}\t\t</IO_Flow_Parameter_Set_Synthetic>\n"
        "\t</IO_Scenario>\n</MQSim_IO_Scenarios>\n"
    )


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@dataclass
class Side:
    """One tool's figures over the measured requests (latencies in µs)."""

    read_mean: float = math.nan
    read_p50: float = math.nan
    read_p99: float = math.nan
    write_mean: float = math.nan
    write_p50: float = math.nan
    write_p99: float = math.nan
    die_busy: float = math.nan
    iops: float = math.nan
    wa: float = math.nan
    wall_s: float = math.nan
    notes: list[str] = field(default_factory=list)


def latency_figures(log: Path, measured: int, cfg: Config | None = None) -> tuple[Side, int]:
    """Figures of the last `measured` completed requests of MQSim's latency log.

    IOPS is requests completed over the time from the first to the last completion of that
    window (MQSim's own IOPS is requests over whole simulated seconds, integer division); WA is
    the flash programs issued in that window over its host writes (one plane a die, so one
    program command is one page); with `cfg`, die busy is the window's flash reads, programs
    and erases times tR, tPROG and tBERS over the window's span times the dies.
    """
    table = pacsv.read_csv(
        log,
        read_options=pacsv.ReadOptions(column_names=["arrival", "done", "kind", "programs", "reads", "erases"]),
        parse_options=pacsv.ParseOptions(delimiter=" "),
    )
    column = {name: table[name].to_numpy().astype(np.int64) for name in ("arrival", "done", "programs", "reads", "erases")}
    is_read = table["kind"].to_numpy(zero_copy_only=False) == "R"
    total = len(is_read)  # the log is written in completion order
    k = min(measured, total)
    a, c, r = column["arrival"][-k:], column["done"][-k:], is_read[-k:]
    ops = {name: float(column[name][-1] - column[name][-k]) for name in ("programs", "reads", "erases")}
    lat_us = (c - a) / 1000.0
    side = Side()
    if r.any():
        side.read_mean = float(lat_us[r].mean())
        side.read_p50, side.read_p99 = (float(x) for x in np.percentile(lat_us[r], [50, 99]))
    if (~r).any():
        side.write_mean = float(lat_us[~r].mean())
        side.write_p50, side.write_p99 = (float(x) for x in np.percentile(lat_us[~r], [50, 99]))
        side.wa = ops["programs"] / float((~r[1:]).sum())
    span_ns = float(c[-1] - c[0])
    side.iops = (k - 1) / (span_ns / 1e9) if span_ns > 0 else math.nan
    if cfg is not None and span_ns > 0:
        flash_ns = ops["reads"] * cfg.tr_ns + ops["programs"] * cfg.tprog_ns + ops["erases"] * cfg.tbers_ns
        side.die_busy = flash_ns / (span_ns * cfg.channels * cfg.dies)
    return side, total


def mqsim_counters(out_xml: Path) -> dict[str, float]:
    """Flash operation counters from MQSim's scenario output file."""
    root = ET.parse(out_xml).getroot()
    found: dict[str, float] = {}
    for el in root.iter():
        for key in (
            "Issued_Flash_Read_CMD",
            "Issued_Flash_Program_CMD",
            "Issued_Flash_Erase_CMD",
            "Issued_Flash_Interleaved_Read_CMD",
            "Issued_Flash_Interleaved_Program_CMD",
            "Issued_Flash_Multiplane_Program_CMD",
            "Issued_Flash_Multiplane_Read_CMD",
            "Total_GC_Executions",
            "Total_Page_Movements_For_GC",
            "Total_Flash_Writes_For_Mapping",
        ):
            if key in el.attrib:
                found[key] = float(el.attrib[key])
        if el.tag == "SSDDevice.FlashChips" and "Fraction_of_Time_in_Execution" in el.attrib:
            found["chips"] = found.get("chips", 0.0) + 1
            found["chip busy sum"] = found.get("chip busy sum", 0.0) + float(el.attrib["Fraction_of_Time_in_Execution"])
        for key in ("Request_Count", "Read_Request_Count", "Write_Request_Count"):
            if key in el.attrib and el.tag.startswith("Host.IO_Flow"):
                found[key] = float(el.attrib[key])
    return found


def run_mqsim(exe: Path, cfg: Config, workdir: Path) -> tuple[Side, dict[str, float]]:
    """Run one configuration in MQSim; figures of its measured window and its counters."""
    ssd, wl, log = workdir / "ssd.xml", workdir / "workload.xml", workdir / "latency.log"
    ssd.write_text(ssd_xml(cfg))
    wl.write_text(workload_xml(cfg))
    env = dict(os.environ, **{LATENCY_LOG_ENV: str(log)})
    start = time.perf_counter()
    proc = subprocess.run([str(exe), "-i", str(ssd), "-w", str(wl)], cwd=workdir, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        sys.exit(f"MQSim exited with {proc.returncode}: " + " | ".join(tail))
    side, completed = latency_figures(log, cfg.measured, cfg)
    side.wall_s = wall
    counters = mqsim_counters(workdir / "workload_scenario_1.xml")
    counters["completed"] = completed
    if counters.get("chips"):
        # Fraction_of_Time_in_Execution: each chip's flash time over the whole simulated run.
        counters["whole-run chip busy"] = counters.pop("chip busy sum") / counters.pop("chips")
    counters["whole-run WA"] = counters.get("Issued_Flash_Program_CMD", math.nan) / max(1.0, completed * (1 - cfg.reads))
    if completed < cfg.requests:
        side.notes.append(f"MQSim completed {completed} of {cfg.requests} requests")
    return side, counters


# ---------------------------------------------------------------------------------------------
# reclaim's side
# ---------------------------------------------------------------------------------------------


def run_reclaim(cfg: Config) -> Side:
    """Run reclaim on the matched configuration through the Python API (reclaim.simulate)."""
    import reclaim

    side = Side()
    start = time.perf_counter()
    r = reclaim.simulate(**reclaim_arguments(cfg))
    side.wall_s = time.perf_counter() - start
    t = r.time
    if t is None:
        sys.exit("reclaim returned no timed result: is its device model built?")
    if t.read_latency.count:
        side.read_mean, side.read_p50, side.read_p99 = t.read_latency.mean, t.read_latency.p50, t.read_latency.p99
    if t.write_latency.count:
        side.write_mean, side.write_p50, side.write_p99 = t.write_latency.mean, t.write_latency.p50, t.write_latency.p99
    side.iops = t.iops
    side.wa = r.wa
    side.die_busy = t.die_busy
    side.notes.append(f"reclaim: cleaning's share of the dies' busy time {t.gc_busy:.3f}")
    return side


def device_spec(cfg: Config) -> str:
    """reclaim's --device value for the configuration: MQSim's preset with every value named.

    Cleaning is in the foreground (reclaim's default): MQSim, with GC not preemptible, serves
    a plane's GC reads and programs before user ones and parks user writes to a plane short of
    free blocks until an erase ends.
    """
    keys = {
        "channels": cfg.channels,
        "dies": cfg.dies,
        "planes": cfg.planes,
        "pages_per_block": cfg.pages_per_block,
        "page_size": f"{cfg.page_size // 1024}KiB",
        "tr": f"{cfg.tr_ns}ns",
        "tprog": f"{cfg.tprog_ns}ns",
        "tbers": f"{cfg.tbers_ns}ns",
        "mts": cfg.mts,
        "width": cfg.width_bits,
        "bus": "on",
    }
    if cfg.unit != "superblock":
        keys["unit"] = cfg.unit
    return "mqsim:" + ",".join(f"{k}={v}" for k, v in keys.items())


def reclaim_arguments(cfg: Config) -> dict[str, Any]:
    """Keyword arguments of reclaim.simulate for the configuration.

    Greedy over the double frontier (MQSim keeps a user and a GC write frontier per plane), and
    a batch of `max_victims` victims whenever fewer than `gc_free_blocks` segments are free:
    MQSim starts a victim on a plane each time a frontier block is taken with fewer than that
    many free, up to 10 at once (max_ongoing_gc_reqs_per_plane, SSD_Device.cpp), and with user
    writes parked below 10 free blocks its GC runs in such batches. With `unit=plane` each plane
    is its own log with its own frontier and cleaning (reclaim's `planes` placement), as in
    MQSim, but one frontier for user and relocated pages. The warm-up is reclaim's
    default (sequential fill, then 10 x logical capacity of uniform writes); the measured user
    writes are those of MQSim's measured window.
    """
    return {
        "segments": cfg.blocks_per_plane,
        "spare": cfg.spare,
        "policy": "greedy",
        "placement": "double" if cfg.unit == "superblock" else "single",
        "gc": f"batch:low={cfg.gc_free_blocks},victims={cfg.max_victims}",
        "device": device_spec(cfg),
        "arrivals": cfg.arrivals,
        "reads": cfg.reads,
        "writes": round(cfg.measured * (1 - cfg.reads)),
        "seed": cfg.seed,
    }


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------


def table(m: Side, r: Side) -> str:
    rows = [
        ("read latency mean (µs)", m.read_mean, r.read_mean),
        ("read latency p50 (µs)", m.read_p50, r.read_p50),
        ("read latency p99 (µs)", m.read_p99, r.read_p99),
        ("write latency mean (µs)", m.write_mean, r.write_mean),
        ("write latency p50 (µs)", m.write_p50, r.write_p50),
        ("write latency p99 (µs)", m.write_p99, r.write_p99),
        ("IOPS", m.iops, r.iops),
        ("WA (flash programs / host writes)", m.wa, r.wa),
        ("die busy (MQSim: tR, tPROG, tBERS; reclaim: and its transfers)", m.die_busy, r.die_busy),
        ("wall time (s)", m.wall_s, r.wall_s),
    ]
    out = ["| metric | MQSim | reclaim | difference % |", "|---|---:|---:|---:|"]
    for name, a, b in rows:
        if math.isnan(a) and math.isnan(b):
            continue
        diff = (b - a) / a * 100 if a and not (math.isnan(a) or math.isnan(b)) else math.nan
        out.append(f"| {name} | {_fmt(a)} | {_fmt(b)} | {_fmt(diff, signed=True)} |")
    if not (math.isnan(m.wall_s) or math.isnan(r.wall_s)) and r.wall_s > 0:
        out.append(f"| wall time ratio MQSim / reclaim | | | {m.wall_s / r.wall_s:.1f}× |")
    return "\n".join(out)


def _fmt(x: float, signed: bool = False) -> str:
    if math.isnan(x):
        return "–"
    if signed:
        return f"{x:+.1f}"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--mqsim", type=Path, help="directory of a mended, built MQSim")
    src.add_argument("--clone", type=Path, help="an MQSim clone to mend and build first")
    p.add_argument("--reads", type=float, default=Config.reads, help="share of requests that are reads, in [0, 1]")
    p.add_argument("--arrivals", default=Config.arrivals, help="closed:iodepth=N or poisson:iops=N")
    p.add_argument("--unit", choices=["superblock", "plane"], default=Config.unit, help="reclaim's segment (its device's unit=)")
    p.add_argument("--requests", type=int, default=Config.requests, help="MQSim's requests in all")
    p.add_argument("--measured", type=int, default=Config.measured, help="the last requests, measured")
    p.add_argument("--workdir", type=Path, help="where MQSim's files go (default: a temporary folder)")
    p.add_argument("--skip-reclaim", action="store_true", help="run MQSim only")
    a = p.parse_args()
    if not 0 <= a.reads <= 1:
        sys.exit(f"--reads {a.reads}: must be in [0, 1]")
    if not 1 <= a.measured <= a.requests:
        sys.exit(f"--measured {a.measured}: must be in [1, --requests ({a.requests})]")
    cfg = Config(reads=a.reads, arrivals=a.arrivals, unit=a.unit, requests=a.requests, measured=a.measured)
    try:
        cfg.arrival()
    except ValueError as err:
        sys.exit(str(err))
    if a.clone is not None:
        changed = apply_mends(a.clone)
        print(f"mended: {', '.join(changed) or 'nothing (already mended)'}")
        exe = build(a.clone)
    else:
        exe = a.mqsim / "MQSim"
        if not exe.exists():
            sys.exit(f"--mqsim {a.mqsim}: no MQSim executable there (build it, or use --clone)")
    workdir = a.workdir or Path(tempfile.mkdtemp(prefix="mqsim-side-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(
        f"device: {cfg.channels} channels x {cfg.dies} dies x {cfg.planes} plane, "
        f"{cfg.blocks_per_plane} blocks of {cfg.pages_per_block} pages of {cfg.page_size} B "
        f"({cfg.physical_pages * cfg.page_size / 2**20:.0f} MiB), spare {cfg.spare}; "
        f"reads {cfg.reads}, {cfg.arrivals}; MQSim: {cfg.requests:,} requests, the last {cfg.measured:,} measured"
    )
    m, counters = run_mqsim(exe, cfg, workdir)
    print("MQSim counters: " + ", ".join(f"{k}={v:,.3g}" if v < 100 else f"{k}={v:,.0f}" for k, v in sorted(counters.items())))
    if a.skip_reclaim:
        r = Side()
    else:
        args = reclaim_arguments(cfg)
        print("reclaim.simulate(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")")
        r = run_reclaim(cfg)
    print(table(m, r))
    for note in m.notes + r.notes:
        print(f"note: {note}")


if __name__ == "__main__":
    main()
