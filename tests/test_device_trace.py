"""Timed runs over a converted trace: its reads replayed among its writes, at its own times."""

from __future__ import annotations

from pathlib import Path

import pytest
from reclaim import simulate, traces

DEVICE = "femu:channels=2,dies=2,pages_per_block=16"


@pytest.fixture(scope="module")
def fiu(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The FIU sample: 9,998 requests, 1,102 writes (SOURCES.md), so 8,896 reads.
    out = tmp_path_factory.mktemp("fiu") / "fiu.rtr"
    traces.convert(shared_dir / "data" / "traces" / "cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines", "fiu", out)
    return out


def test_every_read_of_the_measured_pass_is_timed(fiu: Path) -> None:
    # `precondition` measures its last pass: one pass of the trace's reads and write requests.
    r = simulate(workload=f"trace:{fiu}", device=DEVICE, arrivals="trace")
    assert r.time is not None
    assert r.time.read_requests == 8_896
    assert r.time.read_pages == 8_896
    assert r.time.write_pages == r.user_writes


def test_reads_of_pages_without_data_cost_what_unwritten_says(fiu: Path) -> None:
    # Most of the sample's reads are of pages its writes never touch: free with `unwritten=skip`
    # (FEMU's), a flash read each (tR = 40 µs at least) with `unwritten=read`.
    skip = simulate(workload=f"trace:{fiu}", device=DEVICE, arrivals="trace").time
    read = simulate(workload=f"trace:{fiu}", device=DEVICE + ",unwritten=read", arrivals="trace").time
    assert skip is not None and read is not None
    assert skip.read_latency.p50 == 0.0
    assert read.read_latency.p50 >= 40.0


def test_replaying_faster_raises_the_load(fiu: Path) -> None:
    # The same requests in a tenth of the time: ten times the IOPS over the span (within the
    # last request's completion), and the dies ten times as busy.
    slow = simulate(workload=f"trace:{fiu}", device=DEVICE, arrivals="trace").time
    fast = simulate(workload=f"trace:{fiu}", device=DEVICE, arrivals="trace:speed=10").time
    assert slow is not None and fast is not None
    assert fast.iops / slow.iops == pytest.approx(10, rel=0.02)
    assert fast.die_busy / slow.die_busy == pytest.approx(10, rel=0.02)
