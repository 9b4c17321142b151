"""Whatever the input, a trace command ends in a clear error or a result, in memory bounded by
what it reads, and stops on Ctrl-C or SIGTERM: `/dev/zero`, `/dev/urandom`, a gzip of zeros, an
endless pipe of bad lines, a header that lies about its address space, a trace with one far
address."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from reclaim import traces

RECLAIM = [sys.executable, "-m", "reclaim.cli"]

#: Peak memory a command may reach on these inputs [MB]: the interpreter with numpy and the
#: engine loaded is about 60-120 MB; an address-space-sized array of a far address is 32 GiB.
MAX_RSS_MB = 500

#: An MSR record: a bad line for `spc`, whose second field is an LBA.
MSR_LINE = "128166372000000000,hm,0,Write,4096,4096,10"


def run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RECLAIM, *args], capture_output=True, text=True, timeout=timeout)


def peak_rss_mb(args: list[str], timeout: float = 120) -> tuple[int, str, float]:
    """(exit status, stderr, peak RSS in MB) of a command, measured by a parent of its own so that
    no other test's children count."""
    probe = ("import json, resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
             "print(json.dumps([p.returncode, p.stderr, kb / 1024]))\n")
    out = subprocess.run([sys.executable, "-c", probe, *RECLAIM, *args], capture_output=True, text=True,
                         timeout=timeout, check=True)
    status, err, mb = json.loads(out.stdout)
    return int(status), str(err), float(mb)


def test_dev_zero_as_a_trace_is_an_error_at_its_first_line(tmp_path: Path) -> None:
    for args in (["trace", "convert", "/dev/zero", "-f", "msr", "-o", str(tmp_path / "z.rtr")],
                 ["trace", "stats", "/dev/zero", "-f", "pages"],
                 ["simulate", "--workload", "trace:/dev/zero"]):
        p = run(args)
        assert p.returncode == 2, p.stderr
        # MAX_LINE_BYTES in crates/reclaim-core/src/trace/mod.rs: 1 MiB.
        assert "/dev/zero, line 1: a line of at most 1048576 bytes" in p.stderr
        assert "Traceback" not in p.stderr and "panicked" not in p.stderr


def test_a_gzip_of_zeros_is_an_error_in_small_memory(tmp_path: Path) -> None:
    # 256 MiB of zeros, 250 KiB compressed: one "line" that a reader without a bound buffers whole.
    gz = tmp_path / "zeros.gz"
    zeros = bytes(1 << 20)
    with gzip.open(gz, "wb", compresslevel=1) as f:
        for _ in range(256):
            f.write(zeros)
    status, err, mb = peak_rss_mb(["trace", "convert", str(gz), "-f", "msr", "-o", str(tmp_path / "z.rtr")])
    assert status == 2, err
    assert f"{gz}, line 1: a line of at most 1048576 bytes" in err
    assert mb < MAX_RSS_MB


def test_dev_urandom_as_a_trace_ends_in_a_clear_error(tmp_path: Path) -> None:
    start = time.monotonic()
    p = run(["trace", "convert", "/dev/urandom", "-f", "msr", "-o", str(tmp_path / "u.rtr")], timeout=60)
    assert p.returncode == 2, p.stderr
    # MAX_LEADING_GARBAGE_BYTES: 16 MiB of non-records before the first, then "no record".
    assert "/dev/urandom: no msr record in" in p.stderr
    assert "at most 16777216 are passed over" in p.stderr
    # A bound on work, not a timing: 16 MiB read, where an unbounded reader never ends.
    assert time.monotonic() - start < 60
    assert not (tmp_path / "u.rtr").exists()


def test_a_header_address_space_beyond_32_bit_ids_is_an_error(tmp_path: Path) -> None:
    good = tmp_path / "good.rtr"
    traces.write_pages([0, 1, 1], good)
    data = good.read_bytes()
    hlen = int.from_bytes(data[8:16], "little")
    meta = json.loads(data[16:16 + hlen])
    meta["address_pages"] = 1 << 40
    header = json.dumps(meta).encode()
    bad = tmp_path / "bad.rtr"
    bad.write_bytes(data[:8] + len(header).to_bytes(8, "little") + header + data[16 + hlen:])
    for args in (["trace", "stats", str(bad)], ["simulate", "--workload", f"trace:{bad}"]):
        p = run(args)
        assert p.returncode == 2, p.stderr
        # The header starts at byte 16, after the magic and its length.
        assert "byte 16" in p.stderr and "address_pages" in p.stderr, p.stderr
        assert "Traceback" not in p.stderr


@pytest.fixture
def far_trace(tmp_path: Path) -> Path:
    """Two single-page writes, the second at the largest page id (2³² − 2)."""
    p = tmp_path / "far.rtr"
    traces.write_pages(np.array([0, (1 << 32) - 2], dtype=np.uint64), p)
    return p


def test_stats_of_a_far_address_run_in_small_memory(far_trace: Path) -> None:
    status, err, mb = peak_rss_mb(["trace", "stats", str(far_trace), "--json"])
    assert status == 0, err
    # A count per address would be 2^32 × 8 bytes = 32 GiB.
    assert mb < MAX_RSS_MB


def test_stats_of_a_far_address(far_trace: Path) -> None:
    st = traces.stats(far_trace)
    # Two pages written once each, in an address space of 2^32 − 1 pages.
    assert (st["unique_pages"], st["address_pages"], st["access_frequency"]) == (2, (1 << 32) - 1, [1, 1])


def test_evaluate_of_a_far_address_is_a_clear_error(far_trace: Path) -> None:
    status, err, mb = peak_rss_mb(["trace", "evaluate", str(far_trace)])
    # Li et al.'s method simulates the whole address space: refused by the device's bounds.
    assert status == 2, err
    assert "internal error" not in err and "Traceback" not in err
    assert mb < MAX_RSS_MB


def test_stats_are_the_same_counted_densely_or_sparsely(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Zipf-like page writes over 50,000 pages, some written hundreds of times.
    rng = np.random.default_rng(7)
    pages = np.minimum(rng.zipf(1.3, 40_000), 50_000).astype(np.uint32) * 3
    path = tmp_path / "z.rtr"
    traces.write_pages(pages, path)
    trace = traces.load(path)
    results = []
    for per_write in (0, 1 << 40):  # 0: always sorted; 2^40: always an array over the addresses
        monkeypatch.setattr(traces, "DENSE_ADDRESSES_PER_WRITE", per_write)
        results.append(json.dumps(traces.stats(trace), sort_keys=True))
    assert results[0] == results[1]
    # The counts themselves: as many as distinct pages, summing to the writes.
    counts = traces.access_counts(trace.pages)
    assert (len(counts), int(counts.sum())) == (len(np.unique(pages)), 40_000)


def _endless_lines(tmp_path: Path, line: str | None) -> tuple[Path, subprocess.Popen[bytes] | None]:
    """A FIFO fed `line` forever by `yes`, opened again for each reader (the command line may
    look at a file's first bytes before the engine reads it); no writer at all for `None`."""
    fifo = tmp_path / "endless.fifo"
    os.mkfifo(fifo)
    if line is None:
        return fifo, None
    # A session of its own, so that the loop and its `yes` are stopped together.
    writer = subprocess.Popen(["sh", "-c", f'while :; do yes "{line}" > "{fifo}"; done'], stderr=subprocess.DEVNULL,
                              start_new_session=True)
    return fifo, writer


def _sigint_as_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(("source", "argv", "sig", "status", "said"), [
    # An endless line, skipped as bad without being kept.
    ("zero", ["trace", "convert", "/dev/zero", "-f", "msr", "--skip-bad-lines", "-o", "{tmp}/z.rtr"], signal.SIGINT, 130,
     "interrupted"),
    ("zero", ["trace", "convert", "/dev/zero", "-f", "msr", "--skip-bad-lines", "-o", "{tmp}/z.rtr"], signal.SIGTERM, 143,
     "terminated"),
    # Endless lines of the wrong format, each skipped as bad.
    ("fifo", ["trace", "convert", "{fifo}", "-f", "spc", "--skip-bad-lines", "-o", "{tmp}/f.rtr"], signal.SIGINT, 130,
     "interrupted"),
    ("fifo", ["trace", "stats", "{fifo}", "-f", "spc", "--skip-bad-lines"], signal.SIGTERM, 143, "terminated"),
    ("fifo", ["trace", "sizes", "{fifo}", "-f", "spc", "--skip-bad-lines"], signal.SIGINT, 130, "interrupted"),
    # A run's own read of a page list (comments forever: no record, no memory), in the engine.
    ("comments", ["simulate", "--workload", "trace:{fifo}"], signal.SIGINT, 130, "interrupted"),
    # A FIFO whose writer never comes: the engine waits in its open.
    ("no-writer", ["trace", "convert", "{fifo}", "-f", "msr", "-o", "{tmp}/n.rtr"], signal.SIGINT, 130, "interrupted"),
], ids=["zero-convert-SIGINT", "zero-convert-SIGTERM", "fifo-convert-SIGINT", "fifo-stats-SIGTERM",
        "fifo-sizes-SIGINT", "fifo-simulate-SIGINT", "fifo-without-writer-SIGINT"])
def test_an_endless_read_stops_on_a_signal(source: str, argv: list[str], sig: int, status: int, said: str,
                                           tmp_path: Path) -> None:
    writer = None
    fifo = tmp_path / "none"
    if source != "zero":
        fifo, writer = _endless_lines(tmp_path, {"fifo": MSR_LINE, "comments": "# a comment"}.get(source))
    args = [a.format(tmp=tmp_path, fifo=fifo) for a in argv]
    p = subprocess.Popen([*RECLAIM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=_sigint_as_from_a_terminal)
    try:
        # Reading by then (the interpreter starts in well under a second); still reading: the
        # input has no end.
        time.sleep(1.5)
        assert p.poll() is None, p.communicate()
        p.send_signal(sig)
        start = time.monotonic()
        p.wait(timeout=10)
        elapsed = time.monotonic() - start
    finally:
        if p.poll() is None:
            p.kill()
        _, err = p.communicate()
        if writer is not None:
            os.killpg(writer.pid, signal.SIGKILL)
            writer.wait()
    assert p.returncode == status, err.decode()
    # Polled every 4,096 lines (POLL_LINES): the stop is at once, not at the end of the input.
    assert elapsed < 2.0
    assert said in err.decode()
    assert b"Traceback" not in err
    # Nothing left half-written: no output, no spill files beside it.
    assert not [f for f in tmp_path.iterdir() if f.suffix == ".rtr" or ".part-" in f.name]


def _address_space_4_gib() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def test_a_stand_in_too_large_for_memory_is_refused_before_it_is_drawn(tmp_path: Path) -> None:
    # 2^32 writes: about 32 bytes each (the model's structures, the ids, the trace written) is
    # 128 GiB, far beyond the 4 GiB of address space given.
    p = subprocess.run([*RECLAIM, "trace", "stand-in", "-o", str(tmp_path / "s.rtr"), "--writes", str(1 << 32)],
                       capture_output=True, text=True, timeout=60, preexec_fn=_address_space_4_gib)
    assert p.returncode == 2, p.stderr
    assert "invalid value for `writes`: 4294967296 (expected a stand-in that fits in memory: it needs about 128.00 GiB" \
        in p.stderr
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
