#!/usr/bin/env python3
"""MiDAS-Simulation and reclaim's `midas` placement on the same trace and device, side by side.

MiDAS-Simulation (`sungkyun123/MiDAS-Simulation`; Oh et al., FAST '24) is run as its README
says, `ssdsimul TRACE POLICY DEV_GB SEG_MB`, `--repeats` times (its model thread makes runs
differ); reclaim replays the same trace on the matched device once per seed. One table: setting
(trace, policy), scheme, peer WA, reclaim WA, difference % (reclaim against the peer's mean),
first with the fill counted as MiDAS counts it, then over the trace's writes alone. `--csv FILE`
writes the same rows. docs/peers.md says how MiDAS-Simulation is built and what it prints;
`scripts/midas-trace.py` writes a trace in its format.

Matching (docs/peers.md, "Conventions that decide a comparison"):
- device: `DEV_GB`·10⁹ bytes logical and `DEV_GB`·2³⁰ physical (`ssd_config.cpp` 61–62), 4 KiB
  pages: logical pages ⌊DEV_GB·10⁹ / 4096⌋, segments of 512 × ⌊SEG_MB / 2⌋ pages, ⌊DEV_GB·2³⁰ /
  segment bytes⌋ of them; at 8 GB and 4 MB, 1,953,125 logical pages on 2,048 × 1,024 (spare
  1 − 10⁹/2³⁰ = 0.0687, over-provisioning 7.37 % of the logical space);
- MiDAS first writes every logical page in order, counted as user writes, then the trace
  (`ssd_simulation_sw`); reclaim: `--method li --warmup fill`, one pass of the trace. MiDAS's
  TOTAL WAF counts the fill (and a counter that starts at 1); reclaim's WA does not, so the
  table gives both: with the fill, reclaim's (fill + U + G) / (fill + U) against MiDAS's
  TOTAL WAF, and without it MiDAS's (USERWRITE − 1 − fill + COPYWRITE) / (USERWRITE − 1 − fill)
  (no page is copied during the fill: the device has more free pages than logical ones);
- cleaning while fewer than 4 segments are free (`FREENUM`, `ssd_config.cpp` 73), one victim at
  a time until 4 are free again (`GC`, `ssdsimul.cpp`): reclaim's
  `--gc batch:low=4,victims=1,until=low` (`--gc` changes it);
- POLICY (cost-benefit, greedy, fifo) is reclaim's `--policy` of the same name inside the
  placement's groups.
The trace reaches reclaim through its `midas` trace reader when it has one (`reclaim trace
convert --format midas`); before that, the script reads the trace's writes itself (a request of
SIZE bytes writes SIZE / 4096 pages from LBA) and passes the page ids to `reclaim.simulate`
(discards, TYPE 3, are then not replayed: the script says so when the trace has any).

Usage:
    .venv/bin/python scripts/midas-side-by-side.py --midas /tmp/midas/ssdsimul \\
        --trace /tmp/midas-fio-zipf1-hash.trace --policy cost-benefit --repeats 3 --csv /tmp/m.csv

Each peer run takes the machine's shared build lock (flock /tmp/reclaim-build.lock), as any long
job on it must; MiDAS-Simulation sleeps 5 s every DEV_GB GiB it writes, so an 8 GB run of the
README's length takes 4–5 minutes.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

BUILD_LOCK = "/tmp/reclaim-build.lock"
PAGE_BYTES = 4096
#: Pages per flash block and the free segments kept (`ssd_config.cpp` `ssd_init`: PPB, FREENUM).
PAGES_PER_BLOCK = 512
FREE_SEGMENTS = 4
POLICIES = ("cost-benefit", "greedy", "fifo")
#: The CLI installed beside the interpreter running this script (the project's venv).
RECLAIM_CLI = Path(sys.executable).parent / "reclaim"


@dataclass(frozen=True)
class Geometry:
    """MiDAS-Simulation's device for `DEV_GB` and `SEG_MB` (`ssd_config.cpp` `ssd_init`)."""

    segments: int
    pages_per_segment: int
    logical_pages: int

    @property
    def physical_pages(self) -> int:
        """Physical pages: segments × pages per segment."""
        return self.segments * self.pages_per_segment

    @property
    def spare(self) -> float:
        """reclaim's spare factor: 1 − logical / physical pages."""
        return 1 - self.logical_pages / self.physical_pages

    @property
    def over_provisioning(self) -> float:
        """MiDAS's over-provisioning: physical / logical pages − 1."""
        return self.physical_pages / self.logical_pages - 1


def geometry(dev_gb: int, seg_mb: int) -> Geometry:
    """The device of `ssdsimul TRACE POLICY DEV_GB SEG_MB`.

    >>> g = geometry(8, 4)
    >>> g.segments, g.pages_per_segment, g.logical_pages, round(g.spare, 6), round(g.over_provisioning, 6)
    (2048, 1024, 1953125, 0.068677, 0.073742)
    """
    if dev_gb < 1:
        raise ValueError(f"dev_gb {dev_gb}: must be ≥ 1")
    if seg_mb < 2:
        raise ValueError(f"seg_mb {seg_mb}: must be ≥ 2 (MiDAS's segments are SEG_MB / 2 blocks of 2 MiB)")
    pages_per_segment = PAGES_PER_BLOCK * (seg_mb // 2)
    segments = dev_gb * 1024**3 // (pages_per_segment * PAGE_BYTES)
    return Geometry(segments, pages_per_segment, dev_gb * 1000**3 // PAGE_BYTES)


@dataclass(frozen=True)
class PeerRun:
    """What MiDAS-Simulation printed at the end of a run (`display_result`)."""

    user_writes: int  # USERWRITE: the fill, the trace's writes, and the 1 the counter starts at
    copies: int  # COPYWRITE
    total_waf: float  # TOTAL WAF as printed (3 decimals)
    groups: tuple[str, ...]  # the final HOT / GROUP lines
    wall_s: float

    def trace_wa(self, fill: int) -> float:
        """WA over the trace's writes alone (the fill, and the counter's 1, taken out)."""
        u = self.user_writes - 1 - fill
        return (u + self.copies) / u


def parse_peer(text: str, wall_s: float = 0.0) -> PeerRun | None:
    """The end of a MiDAS-Simulation output, or None when the run did not finish.

    >>> out = "x\\n Experimental result\\nUSERWRITE: 54237899\\nCOPYWRITE: 70485894\\nTOTAL WAF: 2.300\\nHOT[9]: 0.0202 (ERASE: 22858)\\nGROUP 1[47]: 0.5408 (ERASE: 12136)\\n"
    >>> r = parse_peer(out)
    >>> r.user_writes, r.copies, r.total_waf, r.groups
    (54237899, 70485894, 2.3, ('HOT[9]: 0.0202 (ERASE: 22858)', 'GROUP 1[47]: 0.5408 (ERASE: 12136)'))
    >>> round(r.trace_wa(1953125), 4)  # README's run: (52,284,773 + 70,485,894) / 52,284,773
    2.3481
    """
    tail = text.rpartition("Experimental result")[2]
    u = re.search(r"^USERWRITE: (\d+)$", tail, re.M)
    c = re.search(r"^COPYWRITE: (\d+)$", tail, re.M)
    w = re.search(r"^TOTAL WAF: ([0-9.]+)$", tail, re.M)
    if not (u and c and w):
        return None
    groups = tuple(line for line in tail.splitlines() if line.startswith(("HOT[", "GROUP ")))
    return PeerRun(int(u.group(1)), int(c.group(1)), float(w.group(1)), groups, wall_s)


def run_peer(binary: Path, trace: Path, policy: str, dev_gb: int, seg_mb: int, out: Path) -> PeerRun | None:
    """Run MiDAS-Simulation once (or read back a finished output at `out`)."""
    if out.exists():
        done = parse_peer(out.read_text())
        if done is not None:
            return done
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with out.open("w") as f:
        subprocess.run(
            ["flock", BUILD_LOCK, str(binary), str(trace), policy, str(dev_gb), str(seg_mb)],
            cwd=out.parent,
            stdout=f,
            stderr=subprocess.STDOUT,
            check=False,
        )
    return parse_peer(out.read_text(), time.perf_counter() - start)


def trace_pages(trace: Path) -> tuple[np.ndarray, int]:
    """Page ids written by a MiDAS-format trace, in order, and the number of discards in it.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t"
    >>> _ = p.write_text("0 1 5 4096 0\\n1 0 9 4096 0\\n2 1 7 8192 0\\n3 3 5 4096 0\\n")
    >>> ids, trims = trace_pages(p)
    >>> ids.tolist(), trims
    ([5, 7, 8], 1)
    """
    import pyarrow.csv as pacsv

    with trace.open() as f:
        columns = len(f.readline().split())
    if columns < 4:
        raise ValueError(f"{trace}:1: expected TIMESTAMP TYPE LBA SIZE [STREAM], found {columns} fields")
    names = ["time", "type", "lba", "size", *(f"extra{i}" for i in range(columns - 4))]
    table = pacsv.read_csv(
        trace,
        read_options=pacsv.ReadOptions(column_names=names),
        parse_options=pacsv.ParseOptions(delimiter=" "),
        convert_options=pacsv.ConvertOptions(include_columns=["type", "lba", "size"], column_types={"type": "int32", "lba": "int64", "size": "int64"}),
    )
    kind = table["type"].to_numpy()
    writes = kind == 1
    lba = table["lba"].to_numpy()[writes]
    n = np.maximum(table["size"].to_numpy()[writes] // PAGE_BYTES, 0)
    if np.all(n == 1):
        ids = lba
    else:
        starts = np.repeat(lba - np.concatenate(([0], np.cumsum(n)[:-1])), n)
        ids = starts + np.arange(int(n.sum()))
    return ids.astype(np.uint32), int(np.count_nonzero(kind == 3))


def reclaim_has_midas_reader() -> bool:
    """Whether `reclaim trace convert` knows a `midas` format."""
    help_text = subprocess.run([str(RECLAIM_CLI), "trace", "convert", "--help"], capture_output=True, text=True, check=False).stdout
    return re.search(r"\bmidas\b", help_text) is not None


def reclaim_families() -> dict[str, set[str]]:
    """The names (and aliases) reclaim's registry has, by family."""
    from reclaim import _core

    out: dict[str, set[str]] = {}
    for entry in _core.schemes():
        out.setdefault(entry["family"], set()).update([entry["name"], *entry.get("aliases", [])])
    return out


def reclaim_arguments(scheme: str, policy: str, g: Geometry, gc: str, seed: int) -> dict[str, Any]:
    """reclaim.simulate's arguments for the run, the workload left out.

    >>> a = reclaim_arguments("midas", "cost-benefit", geometry(8, 4), "batch:low=4,victims=1", 1)
    >>> a["segments"], a["pages_per_segment"], a["logical_pages"], a["method"], a["warmup"], a["policy"]
    (2048, 1024, 1953125, 'li', 'fill', 'cost-benefit')
    """
    return {
        "segments": g.segments,
        "pages_per_segment": g.pages_per_segment,
        "logical_pages": g.logical_pages,
        "method": "li",
        "warmup": "fill",
        "writes": "1p",
        "placement": scheme,
        "policy": policy,
        "seed": seed,
    } | ({} if gc == "default" else {"gc": gc})


def with_fill(wa: float, user_writes: int, fill: int) -> float:
    """A WA measured after the fill, restated with the fill counted as user writes (no copies).

    >>> with_fill(2.0, 100, 100)
    1.5
    """
    return (fill + wa * user_writes) / (fill + user_writes)


def difference(peer: float | None, ours: float | None) -> float | None:
    """reclaim against the peer, in percent.

    >>> round(difference(2.0, 2.1), 6)
    5.0
    """
    if peer is None or ours is None:
        return None
    return (ours / peer - 1) * 100


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as aligned plain text (no Markdown: docs/validation.md keeps it in a fenced block)."""
    head = ("setting", "scheme", "WA", "peer WA", "peer spread", "reclaim WA", "difference %")
    cells = [head]
    for r in rows:
        for label, peer, spread, ours, diff in (
            ("fill counted", r["peer_wa_fill"], r["peer_spread_fill"], r["reclaim_wa_fill"], r["difference_fill_pct"]),
            ("trace only", r["peer_wa"], r["peer_spread"], r["reclaim_wa"], r["difference_pct"]),
        ):
            cells.append((r["setting"], r["scheme"], label, _fmt(peer), _fmt(spread), _fmt(ours), "" if diff is None else f"{diff:+.2f}"))
    width = [max(len(c[i]) for c in cells) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(row, width))).rstrip() for row in cells)


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def main(argv: list[str] | None = None) -> int:
    """Run the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--midas", type=Path, help="built MiDAS-Simulation (its ssdsimul)")
    p.add_argument("--trace", type=Path, required=True, help="trace in MiDAS's format (scripts/midas-trace.py writes one)")
    p.add_argument("--policy", default="cost-benefit", choices=POLICIES, help="MiDAS's victim selection (default cost-benefit)")
    p.add_argument("--dev-gb", type=int, default=8, help="MiDAS's DEV_GB (default 8)")
    p.add_argument("--seg-mb", type=int, default=4, help="MiDAS's SEG_MB (default 4)")
    p.add_argument("--repeats", type=int, default=1, help="peer runs (and reclaim seeds 1 … N), for the spread")
    p.add_argument("--scheme", default="midas", help="reclaim's placement (default midas)")
    p.add_argument("--gc", default=f"batch:low={FREE_SEGMENTS},victims=1,until=low", help="reclaim's trigger (default MiDAS's: fewer than 4 free; `default`: reclaim's own)")
    p.add_argument("--runs", type=Path, default=Path("/tmp/midas-runs"), help="peer outputs, kept and reused")
    p.add_argument("--skip-reclaim", action="store_true", help="run the peer only")
    p.add_argument("--csv", type=Path, help="write the rows to this CSV file")
    a = p.parse_args(argv)
    if a.repeats < 1:
        p.error(f"--repeats {a.repeats}: must be ≥ 1")
    if not a.trace.is_file():
        p.error(f"--trace {a.trace}: no such file")
    try:
        g = geometry(a.dev_gb, a.seg_mb)
    except ValueError as e:
        p.error(str(e))
    fill = g.logical_pages
    print(
        f"{a.dev_gb} GB on {a.dev_gb} GiB, {a.seg_mb} MB segments: {g.segments} × {g.pages_per_segment} pages, "
        f"{g.logical_pages:,} logical pages (spare {g.spare:.6f}, over-provisioning {g.over_provisioning:.4%})",
        file=sys.stderr,
    )
    row: dict[str, Any] = {"setting": f"{a.trace.name} {a.policy}", "scheme": a.scheme}
    peers: list[PeerRun] = []
    if a.midas is not None:
        for i in range(1, a.repeats + 1):
            out = a.runs / f"{a.trace.name}-{a.policy}-{a.dev_gb}-{a.seg_mb}-{i}.out"
            r = run_peer(a.midas, a.trace, a.policy, a.dev_gb, a.seg_mb, out)
            if r is None:
                print(f"peer run {i}: no result, see {out}", file=sys.stderr)
                continue
            peers.append(r)
            print(f"peer run {i}: USERWRITE {r.user_writes:,} COPYWRITE {r.copies:,} TOTAL WAF {r.total_waf:.3f} ({r.wall_s:.0f} s)", file=sys.stderr)
    fill_was = [(r.user_writes + r.copies) / r.user_writes for r in peers]
    trace_was = [r.trace_wa(fill) for r in peers]
    row["peer_runs"] = len(peers)
    row["peer_wa_fill"] = statistics.fmean(fill_was) if peers else None
    row["peer_spread_fill"] = (max(fill_was) - min(fill_was)) if peers else None
    row["peer_wa"] = statistics.fmean(trace_was) if peers else None
    row["peer_spread"] = (max(trace_was) - min(trace_was)) if peers else None
    row["peer_groups"] = " | ".join(peers[-1].groups) if peers else ""
    row["reclaim_wa"] = row["reclaim_wa_fill"] = row["reclaim_spread"] = None
    if not a.skip_reclaim:
        if a.scheme not in reclaim_families().get("placement", set()):
            print(f"reclaim has no placement {a.scheme} yet; reclaim skipped", file=sys.stderr)
        else:
            row.update(run_reclaim(a, g))
    row["difference_pct"] = difference(row["peer_wa"], row["reclaim_wa"])
    row["difference_fill_pct"] = difference(row["peer_wa_fill"], row["reclaim_wa_fill"])
    print(table([row]))
    if a.csv:
        with a.csv.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            w.writeheader()
            w.writerow(row)
    return 0


def run_reclaim(a: argparse.Namespace, g: Geometry) -> dict[str, Any]:
    """reclaim's runs, one per seed 1 … repeats: mean WA without and with the fill, spread, time."""
    import reclaim

    with tempfile.TemporaryDirectory() as tmp:
        workload: Any
        if reclaim_has_midas_reader():
            binary = Path(tmp) / "trace.bin"
            subprocess.run([str(RECLAIM_CLI), "trace", "convert", str(a.trace), "--format", "midas", "-o", str(binary)], check=True, stdout=subprocess.DEVNULL)
            workload = f"trace:{binary}"
        else:
            workload, trims = trace_pages(a.trace)
            if trims:
                print(f"{a.trace}: {trims:,} discards not replayed (reclaim has no midas reader yet)", file=sys.stderr)
        was, fill_was, seconds = [], [], 0.0
        for seed in range(1, a.repeats + 1):
            start = time.perf_counter()
            try:
                r = reclaim.simulate(workload=workload, **reclaim_arguments(a.scheme, a.policy, g, a.gc, seed))
            except (ValueError, RuntimeError) as e:  # a refused spec, or a run that stopped
                print(f"reclaim seed {seed}: {type(e).__name__}: {e}", file=sys.stderr)
                return {}
            seconds += time.perf_counter() - start
            was.append(r.wa)
            fill_was.append(with_fill(r.wa, r.user_writes, g.logical_pages))
            print(f"reclaim seed {seed}: WA {r.wa:.4f} (with the fill {fill_was[-1]:.4f}), {r.user_writes:,} user writes", file=sys.stderr)
    return {
        "reclaim_wa": statistics.fmean(was),
        "reclaim_wa_fill": statistics.fmean(fill_was),
        "reclaim_spread": max(was) - min(was),
        "reclaim_s": seconds / len(was),
    }


if __name__ == "__main__":
    sys.exit(main())
