"""SepBIT (Wang et al., FAST '22) and the schemes its artifact measures against, replayed as its
artifact replays traces (§5, the ``log`` method: each volume its own log, one segment collected
per write request while the garbage proportion exceeds 0.15, 512 KiB segments of 4 KiB blocks):
every placement under greedy and under the artifact's cost-benefit, the overall WA of a trace
set (the sum of all writes over the sum of user writes, as the paper's overall-WA figure), the
future-knowledge oracle FK beside them, and each volume's WA for a CDF.

The default trace set is synthetic, one volume per shape: the artifact's hot/cold trace (a
working set written once in order, then single-page writes, 90% of them to a random tenth),
hot/cold 80/20, uniform, and Zipf (θ = 0.99 over a random order of the pages). ``--trace``
replays a converted trace instead, or a folder of them (:func:`volume_paths`), each volume as its
own log; volumes that only read are skipped and named (:func:`logs_of`). The segments are 128
pages, SepBIT's, where ``reclaim simulate`` takes 64, and the method is ``log`` where
``simulate`` preconditions: the table and its rows say so. The published figures this is checked
against are the artifact's on the hot/cold trace (``docs/validation.md``).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from reclaim.api import SimConfig
from reclaim.reproduce.common import Context, Reproduction, Row
from reclaim.volumes import group_warnings

#: (placement, the artifact's name), in the order of the paper's overall-WA figure; FK last.
PLACEMENTS = (
    ("single", "NoSep"), ("sepgc", "SepGC"), ("dac", "DAC"), ("sfs", "SFS"), ("multi-log:form=sepbit", "MultiLog"),
    ("eti", "ETI"), ("multi-queue", "MultiQueue"), ("sfr", "SFR"), ("fadac", "FADaC"), ("warcip", "WARCIP"),
    ("sepbit", "SepBIT"), ("uw", "UW"), ("gw", "GW"), ("fk", "FK"),
)
#: The two selections of the paper's Exp#1: (policy, the artifact's name).
SELECTIONS = (("greedy", "Greedy"), ("cost-benefit:form=sepbit", "Cost-Benefit"))
#: The synthetic trace set: (name, hot share of writes, hot share of pages; 0 for uniform,
#: ``zipf`` for Zipf θ = 0.99).
SHAPES: tuple[tuple[str, float | str, float], ...] = (
    ("hot/cold 90/10", 0.9, 0.1), ("hot/cold 80/20", 0.8, 0.2), ("uniform", 0.0, 0.0), ("zipf 0.99", "zipf", 0.99))
#: Working set [pages] and measured writes of each synthetic volume (the artifact's trace: 65,536
#: and 1,000,000); ``quick``: a quarter of each.
SIZES = {False: (65_536, 1_000_000), True: (16_384, 250_000)}
#: Pages per segment: 512 KiB of 4 KiB pages, the paper's default segment size (``reclaim
#: simulate`` defaults to 64).
PPS = 128
#: How each log is replayed: the artifact's (the ``log`` method; ``reclaim simulate`` defaults to
#: ``precondition`` for a trace).
METHOD = "log"
#: ``reclaim simulate``'s pages per segment, said beside :data:`PPS`.
SIMULATE_PPS = 64


def registered() -> list[tuple[str, str]]:
    """The placements of :data:`PLACEMENTS` this build of reclaim has (the others are not yet
    built; their rows say so)."""
    from reclaim.schemes import schemes

    names = {s["name"] for s in schemes("placements")} | {a for s in schemes("placements") for a in s["aliases"]}
    return [(p, n) for p, n in PLACEMENTS if p.split(":")[0] in names]


def display_name(spec: str) -> str:
    """The name of a placement given with ``--scheme``: a scheme written in Python by its
    ``display`` (its class name when it has none), a built-in by its spec."""
    from reclaim.outside import resolve

    if ":" in spec and spec.split(":", 1)[1][:1].isupper():
        try:
            _, factory = resolve("placement", spec)
        except ValueError:
            return spec
        return factory.cls.display or factory.cls.__name__
    return spec


def synthetic_pages(shape: str, hot: float | str, share: float, pages: int, writes: int, seed: int) -> Any:
    """A volume of the synthetic set: ``pages`` written once in order, then ``writes`` single-page
    writes of the shape."""
    import numpy as np

    rng = np.random.default_rng(seed)
    order = rng.permutation(pages)
    if hot == "zipf":
        ranks = np.arange(1, pages + 1, dtype=np.float64) ** -share
        drawn = order[rng.choice(pages, size=writes, p=ranks / ranks.sum())]
    elif hot == 0.0:
        drawn = rng.integers(0, pages, writes)
    else:
        assert isinstance(hot, float)
        k = max(1, int(pages * share))
        hot_pages, cold_pages = order[:k], order[k:]
        is_hot = rng.random(writes) < hot
        drawn = np.where(is_hot, hot_pages[rng.integers(0, k, writes)], cold_pages[rng.integers(0, len(cold_pages), writes)])
    return np.concatenate([np.arange(pages), drawn]).astype(np.uint32)


def trace_set(quick: bool) -> list[tuple[str, Path]]:
    """The synthetic volumes as converted traces, written once into the temporary folder (their
    names carry their parameters, so that a rerun finds them, and its results, again)."""
    from reclaim import traces

    pages, writes = SIZES[quick]
    folder = Path(tempfile.gettempdir()) / "reclaim-sepbit-traces"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, (name, hot, share) in enumerate(SHAPES):
        tag = hashlib.sha256(f"{name}|{hot}|{share}|{pages}|{writes}|{2022 + i}".encode()).hexdigest()[:12]
        path = folder / f"{tag}.rtr"
        if not path.exists():
            partial = path.with_suffix(".part")
            traces.write_pages(synthetic_pages(name, hot, share, pages, writes, 2022 + i), partial, source=f"synthetic {name}")
            partial.replace(path)
        out.append((name, path))
    return out


def _header(path: Path) -> dict[str, Any]:
    """A converted trace's header, every array checked against it.

    Raises:
        ValueError: ``path`` cannot be read, or is not a whole converted trace (named).
    """
    from reclaim import traces

    try:
        if not traces.is_converted(path):
            raise ValueError(f"invalid value for `trace`: {path} (not a converted trace, which starts with RCLMTRC1: "
                             f"convert it first, `reclaim trace convert {path} --format FMT -o OUT.rtr`)")
        return traces.load(path).meta
    except OSError as e:
        raise ValueError(f"invalid value for `trace`: {path} (cannot be read: {e.strerror or e})") from None
    except ValueError as e:
        # The reader's message names the file, the byte and what it expected.
        raise ValueError(str(e) if str(e).startswith("invalid value") else f"invalid value for `trace`: {e}") from None


def volume_paths(trace: Path) -> list[Path]:
    """The volume files of ``trace``: the file itself, or, for a folder, its files named
    ``*.rtr`` (what ``reclaim trace convert`` writes, ``--volumes`` one per volume), in name
    order; its other files (``volumes.json``, notes) are not read.

    Raises:
        ValueError: no such file or folder, or a folder without a ``*.rtr`` file.
    """
    if trace.is_dir():
        files = sorted((p for p in trace.iterdir() if p.name.endswith(".rtr") and not p.is_dir()), key=lambda p: p.name)
        if not files:
            raise ValueError(f"invalid value for `trace`: {trace} (a folder without a converted trace: expected one "
                             "`*.rtr` file per volume, e.g. from `reclaim trace convert TRACE --format FMT -o "
                             f"{trace} --volumes`)")
        return files
    if not trace.exists():
        raise ValueError(f"invalid value for `trace`: {trace} (no such file or folder)")
    return [trace]


def logs_of(trace: Path) -> tuple[list[tuple[str, Path, str | None]], list[str]]:
    """The logs the reproduction replays from ``trace`` (a converted trace or a folder of them,
    see :func:`volume_paths`) as (name, converted trace, ``volume`` parameter), and the volumes
    that only read, which have nothing to replay (``reclaim simulate`` skips them likewise).

    A file's volumes are its logs; a file of one volume is one log, named after the file (in a
    folder, its name less ``.rtr``). The idle volumes that ``trace convert --volumes`` listed in
    the folder's ``volumes.json`` and wrote no file for are among the skipped.

    Raises:
        ValueError: a file that cannot be read or is not a whole converted trace, named.
    """
    from reclaim.traces import VOLUME_INDEX

    logs: list[tuple[str, Path, str | None]] = []
    idle: list[str] = []
    folder = trace.is_dir()
    for path in volume_paths(trace):
        meta = _header(path)
        base = path.name[: -len(".rtr")] if folder else path.name
        listed = meta.get("volumes") or []
        if len(listed) > 1:
            for v in listed:
                name = f"{base}/{v['name']}" if folder else str(v["name"])
                if v["writes"] > 0:
                    logs.append((name, path, str(v["name"])))
                else:
                    idle.append(name)
        elif meta.get("pages_written", 0) > 0:
            logs.append((base, path, None))
        else:
            idle.append(base)
    index = trace / VOLUME_INDEX
    if folder and index.is_file():
        import json

        try:
            idle += [str(n) for n in json.loads(index.read_text()).get("idle", [])]
        except (OSError, ValueError, AttributeError) as e:
            raise ValueError(f"invalid value for `trace`: {index} (cannot be read as the index `reclaim trace convert "
                             f"--volumes` writes: {e})") from None
    if not logs:
        raise ValueError(f"invalid value for `trace`: {trace} (no volume with writes: {', '.join(idle)} only read; "
                         "expected a trace that writes)")
    return logs, idle


def segment_size(page_sizes: set[int]) -> str:
    """The segments' size in words, from the page sizes [bytes] of the traces replayed (1: a
    page-id list, whose pages have no size).

    >>> segment_size({4096}), segment_size({1})
    ('128 pages of 4 KiB = 512 KiB', '128 pages (512 KiB at 4 KiB pages)')
    """
    sized = sorted(p for p in page_sizes if p > 1)
    if not sized:
        return f"{PPS} pages ({PPS * 4} KiB at 4 KiB pages)"
    return "; ".join(f"{PPS} pages of {_bytes(p)} = {_bytes(PPS * p)}" for p in sized)


def _bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,} bytes"


def compute(ctx: Context) -> list[Row]:
    if ctx.trace is not None:
        logs, idle = logs_of(ctx.trace)
    else:
        logs, idle = [(name, path, None) for name, path in trace_set(ctx.quick)], []
    sizes = {int(_header(path).get("page_size") or 1) for path in dict.fromkeys(p for _, p, _ in logs)}
    schemes = registered() + [(spec, display_name(spec)) for spec in ctx.extra]
    configs, keys = [], []
    for placement, name in schemes:
        for policy, selection in SELECTIONS:
            for log, path, volume in logs:
                configs.append(SimConfig(workload=f"trace:{path}", method=METHOD, policy=policy, placement=placement,
                                         pages_per_segment=PPS, volume=volume))
                keys.append((name, selection, log))
    # The method as the engine spells it out, every parameter with its value.
    method = str(configs[0].validated().method) if configs else METHOD
    results = ctx.simulate(configs)
    by: dict[tuple[str, str], list[tuple[str, float, int, int]]] = {}
    # Each volume's warnings, once whichever scheme earned them (a clock that goes backwards is
    # said by every scheme that reads the time, in the same words but the scheme's name).
    said: dict[str, list[str]] = {}
    for (name, selection, log), r in zip(keys, results):
        by.setdefault((name, selection), []).append((log, float(r.wa), int(r.user_writes), int(r.gc_writes)))
        for w in getattr(r, "warnings", None) or []:
            # The schemes that read the trace's time are named last, in parentheses: the table's
            # rows name them all.
            w = re.sub(r" for the schemes that read it \(`[^()]*`\)$", " for the schemes that read it", w)
            if w not in said.setdefault(log, []):
                said[log].append(w)
    # What the runs share, in every row (for the JSON), beside what `reclaim simulate` would take.
    setting: Row = {"method": method, "pages_per_segment": PPS, "segment": segment_size(sizes), "logs": len(logs),
                    "only_reads": idle, "warnings": group_warnings(said)}
    rows: list[Row] = []
    for placement, name in schemes:
        row: Row = {"scheme": name, "placement": placement}
        for _, selection in SELECTIONS:
            vols = by[(name, selection)]
            user, gc = sum(v[2] for v in vols), sum(v[3] for v in vols)
            row[selection] = (user + gc) / user if user else float("nan")
            row[f"{selection} volumes"] = {v[0]: v[1] for v in vols}
        rows.append(row | setting)
    have = {p for p, _ in schemes}
    rows += [{"scheme": name, "placement": p, "missing": True} | setting for p, name in PLACEMENTS if p not in have]
    return rows


def render(rows: list[Row]) -> list[Table]:
    first = rows[0] if rows else {}
    setting = (f"method {first.get('method', METHOD)}, each volume a log; segments of {first.get('segment', PPS)} "
               f"(SepBIT's: 128 blocks of 4 KiB; `reclaim simulate` defaults to {SIMULATE_PPS}-page segments and, on a "
               "trace, to the precondition method); overall WA = Σ all writes / Σ user writes; FK: the future-knowledge oracle")
    idle = first.get("only_reads") or []
    notes = [f"volumes that only read, not replayed: {', '.join(idle)}"] if idle else []
    notes += [f"warning: {w}" for w in first.get("warnings") or []]
    t = Table(title=Text.assemble("SepBIT (FAST '22), Exp#1 layout: overall WA per scheme, under greedy and cost-benefit\n",
                                  (setting, "dim")),
              caption=Text("\n".join(notes)) if notes else None)
    t.add_column("scheme")
    for _, selection in SELECTIONS:
        t.add_column(f"WA, {selection}", justify="right")
    vols = next((list(r[f"{SELECTIONS[0][1]} volumes"]) for r in rows if not r.get("missing")), [])
    for v in vols:
        t.add_column(Text(f"{v} (greedy)"), justify="right")  # a volume name is not markup
    for r in rows:
        if r.get("missing"):
            t.add_row(r["scheme"], "not yet", "not yet", *["" for _ in vols])
            continue
        per = r[f"{SELECTIONS[0][1]} volumes"]
        t.add_row(r["scheme"], *[f"{r[s]:.4f}" for _, s in SELECTIONS], *[f"{per[v]:.4f}" for v in vols])
    return [t]


def figures(rows: Sequence[Row], out_dir: Path) -> list[Path]:
    """The paper's overall-WA figure (a bar per scheme, a group per selection) and its per-volume
    figure (each scheme's per-volume WA as a CDF, a panel per selection), with their data as CSV
    (:func:`reclaim.figures.papers.sepbit`)."""
    from reclaim.figures import papers

    return papers.sepbit(rows, SELECTIONS, out_dir)


SEPBIT = Reproduction(
    title="SepBIT (FAST '22): overall WA of every placement under greedy and cost-benefit",
    source="Wang et al., FAST '22, §5 Exp#1, replayed as its artifact (fallfish/sepbit) replays traces",
    compute=compute,
    columns=[],
    render=render,
    figures=figures,
)
