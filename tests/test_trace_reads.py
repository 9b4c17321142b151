"""Reads kept in converted traces (layout 3): their place among the writes, page ids, times and
volumes survive conversion, writing and loading; a file of layout 2 loads with none kept."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from reclaim import traces
from reclaim.cli import app
from typer.testing import CliRunner

runner = CliRunner()

U = traces.UNWRITTEN


def expected_mqsim_reads(text: Path, page_size: int = 4096) -> dict[str, list]:
    """The reads of an MQSim ASCII trace worked out from its text alone (ids kept), as the
    converter must give them: volumes in first-seen order, each volume's range as large as its
    largest written page + 1 and placed after the ones before; a read's pages inside its volume's
    range by their ids, those past it without id (``UNWRITTEN``); each read at the page writes
    before it, its time in seconds since the first request."""
    rows = []
    for line in text.read_text().splitlines():
        ns, dev, lba, size, op = line.split()
        first = int(lba) * 512 // page_size
        last = (int(lba) * 512 + int(size) * 512 - 1) // page_size
        rows.append((int(ns) * 1e-9, dev, first, last, op == "0"))
    order: dict[str, int] = {}
    extent: dict[str, int] = {}
    for _, dev, _, last, write in rows:
        order.setdefault(dev, len(order))
        extent[dev] = max(extent.get(dev, 0), last + 1 if write else 0)
    start, base = {}, 0
    for dev in order:
        start[dev], base = base, base + extent[dev]
    out: dict[str, list] = {"at": [], "runs": [], "first": [], "pages": [], "times": [], "volumes": [], "start": [start[d] for d in order]}
    written = 0
    t0 = rows[0][0]
    for t, dev, first, last, write in rows:
        if write:
            written += last - first + 1
            continue
        inside = max(0, min(last + 1, extent[dev]) - first)
        runs = []
        if inside:
            runs.append((start[dev] + first, inside))
        if last + 1 - first > inside:
            runs.append((U, last + 1 - first - inside))
        out["at"].append(written)
        out["runs"].append(len(runs))
        out["first"] += [f for f, _ in runs]
        out["pages"] += [n for _, n in runs]
        out["times"].append(t - t0)
        out["volumes"].append(order[dev])
    return out


def test_the_reads_of_a_sample_survive_conversion_writing_and_loading(shared_dir, tmp_path):
    # MQSim's tpcc-small: 6,999 requests, 2,618 writes (SOURCES.md), so 4,381 reads, over 16 devices.
    text = shared_dir / "data" / "traces" / "tpcc-small.trace"
    meta = traces.convert(text, "mqsim", tmp_path / "t.rtr")
    assert (meta["version"], meta["requests"], meta["writes"], meta["reads"]) == (3, 6_999, 2_618, 4_381)
    t = traces.load(tmp_path / "t.rtr")
    want = expected_mqsim_reads(text)
    assert [v["first_page"] for v in meta["volumes"]] == want["start"]
    r = t.reads
    assert len(r.at) == meta["reads"] == 4_381
    assert r.at.tolist() == want["at"]
    assert (r.runs.tolist() or [1] * len(r.at)) == want["runs"]
    assert r.first.tolist() == want["first"]
    assert r.pages.tolist() == want["pages"]
    assert r.volumes.tolist() == want["volumes"]
    assert r.times == pytest.approx(want["times"], rel=1e-12, abs=1e-12)
    assert meta["read_runs"] == len(want["first"])
    assert meta["pages_read"] == int(r.pages.sum()) == sum(want["pages"])
    assert meta["pages_read_unwritten"] == sum(n for f, n in zip(want["first"], want["pages"]) if f == U)
    # Reads interleave with the writes on one clock: a read's time lies between those of the
    # write requests before and after it (the trace's arrivals are in order).
    starts = np.concatenate([[0], np.cumsum(t.request_pages)])
    k = np.searchsorted(starts, r.at, side="left")
    before = k[k > 0] - 1
    assert np.all(t.times[before] <= r.times[k > 0])


def test_renamed_reads_of_pages_never_written_have_no_id(tmp_path):
    # MSR lines (Timestamp in 100 ns ticks, Hostname, DiskNumber, Type, Offset, Size, ResponseTime):
    # pages 0-1 written, then pages 1-2 read, page 9 read, page 9 written, page 9 read.
    text = tmp_path / "t.csv"
    text.write_text("0,hm,0,Write,0,8192,0\n"
                    "10000000,hm,0,Read,4096,8192,0\n"
                    "20000000,hm,0,Read,36864,4096,0\n"
                    "30000000,hm,0,Write,36864,4096,0\n"
                    "40000000,hm,0,Read,36864,4096,0\n")
    meta = traces.convert(text, "msr", tmp_path / "t.rtr", rename=True)
    t = traces.load(tmp_path / "t.rtr")
    # Names in first-write order: page 0 → 0, 1 → 1, 9 → 2. Page 2 is never written: no id. Page
    # 9 is named by its write, so the read before that write reads id 2 too.
    assert t.pages.tolist() == [0, 1, 2]
    assert t.reads.at.tolist() == [2, 2, 3]
    assert t.reads.runs.tolist() == [2, 1, 1]
    assert t.reads.first.tolist() == [1, U, 2, 2]
    assert t.reads.pages.tolist() == [1, 1, 1, 1]
    assert t.reads.times.tolist() == [1.0, 2.0, 4.0]
    assert (meta["read_runs"], meta["pages_read"], meta["pages_read_unwritten"]) == (4, 4, 1)


def layout_2(path: Path, out: Path) -> None:
    """Writes ``path`` (layout 3) as a file of layout 2 was written: the header without the reads'
    fields and version 2, the arrays up to the discards, no reads after them."""
    data = path.read_bytes()
    (hlen,) = struct.unpack_from("<Q", data, 8)
    meta = json.loads(data[16:16 + hlen])
    size = len(data) - 16 - hlen
    size -= sum(a.nbytes for a in vars(traces.load(path).reads).values())
    for key in ("read_runs", "pages_read", "pages_read_unwritten", "read_times"):
        del meta[key]
    meta["version"] = 2
    header = json.dumps(meta).encode()
    out.write_bytes(data[:8] + struct.pack("<Q", len(header)) + header + data[16 + hlen:16 + hlen + size])


def test_a_file_of_layout_2_loads_with_its_reads_counted_and_none_kept(shared_dir, tmp_path):
    # The FIU sample: 9,998 requests, 1,102 writes (SOURCES.md), so 8,896 reads.
    text = shared_dir / "data" / "traces" / "cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines"
    traces.convert(text, "fiu", tmp_path / "new.rtr")
    new = traces.load(tmp_path / "new.rtr")
    assert len(new.reads.at) == 8_896
    layout_2(tmp_path / "new.rtr", tmp_path / "old.rtr")
    old = traces.load(tmp_path / "old.rtr")
    assert (old.meta["version"], old.meta["reads"]) == (2, 8_896)
    assert len(old.reads.at) == 0
    assert np.array_equal(old.pages, new.pages) and np.array_equal(old.times, new.times)
    st_old, st_new = traces.stats(old), traces.stats(new)
    assert (st_old["reads"], st_old["reads_kept"]) == (8_896, 0)
    assert (st_new["reads"], st_new["reads_kept"]) == (8_896, 8_896)
    # Every write-side figure is the same either way.
    assert {k: v for k, v in st_old.items() if "read" not in k} == {k: v for k, v in st_new.items() if "read" not in k}


def test_trace_stats_shows_the_reads_kept(shared_dir, tmp_path):
    text = shared_dir / "data" / "traces" / "tpcc-small.trace"
    res = runner.invoke(app, ["trace", "stats", str(text), "-f", "mqsim", "--json"])
    assert res.exit_code == 0, res.output
    st = json.loads(res.stdout)
    # 6,999 requests less 2,618 writes (SOURCES.md).
    assert (st["reads"], st["reads_kept"]) == (4_381, 4_381)
    assert st["pages_read"] >= st["reads_kept"]
    res = runner.invoke(app, ["trace", "stats", str(text), "-f", "mqsim"])
    assert res.exit_code == 0, res.output
    assert "reads_kept" in res.output
