"""SSD-iq (Haas, Lee, Bonnet & Leis, "SSD-iq: Uncovering the Hidden Side of SSD Performance",
PVLDB 18(11), 2025): its simulator's table of schemes on the zones and Zipf patterns, greedy,
2R-greedy, 2R-FIFO and the optimum, each beside the peer simulator's own run here.

The paper plots the relative WAF (each scheme's WA over its WA on uniform writes) against the
zones patterns (uniform, 60/40, 70/30, 80/20, 90/10, 95/5: the cold zone's share of the space,
the hot zone's of the writes, ``scripts/runsimzones.sh``) and against Zipf θ = 0 … 1
(``paper/plotsim.R``). The published figures' data (``plotzone.csv``, ``plotzipf.csv``, read by
``plotsim.R``) are not in the public repository: **the reference is the peer simulators' runs
here**, shipped in ``data/ssdiq_peer.csv`` (its first lines say which simulator, commit and
command gave each number, and when). greedy, 2R-greedy and 2R-FIFO are ``gabriel-haas/ssdiq``
``sim/``'s ``GC=greedy``, ``2r-greedy``, ``2r-fifo``; the optimum is ``LeeBohyun/ssdiq_plus``
``sim/``'s ``opt-1000``, a closed form (``sim/Optimal.hpp``, ``sim/TwoAFormula.hpp``) on a
1,000-bucket histogram of the pages' write counts, its last ``optWA`` line. reclaim's ``opt``
placement simulates those counts as 4 groups by rate rank: the optimum's row compares a
simulation with a formula, not two simulations. The row ``opt formula`` compares like with like:
reclaim evaluates the same formula (:func:`reclaim.ssdiq.opt_formula`) on write counts drawn as
the peer's run writes them (the fill, the init phase and the measured writes, by the
workload's law; one draw, seed 1: over seeds the formula moves by 0.002–0.025%).

Settings are the simulator's defaults, which the paper's scripts keep (docs/peers.md): 16 GiB
physical, 8 MiB erase blocks (2,048 segments of 2,048 pages), 4 KiB pages, fill 0.875 (3,670,016
logical pages, :func:`reclaim.ssdiq.geometry`); the init phase, a sequential fill then as many
pattern writes as there are physical pages (``--warmup fill+1.142857…x``); then 10 logical
capacities measured in rows of ⌊logical / 10⌋ (36,700,100 writes); cleaning when no segment is
free, one victim compacted into the single frontier (``--gc frontier``). ssdiq_plus keeps an LRU
write buffer of ⌊0.0004 × logical⌋ pages: the optimum's rows run with that ``--cache``. Zones are
``zones:s=…,f=…`` (pages shuffled, as SSD-iq's ``zones``); Zipf is ``zipf-shuffle:theta=T``;
θ = 0 is uniform. The peers seed from ``std::random_device``: one run per cell, reclaim's seed 1.

``--quick`` runs a 1 GiB device (128 segments of 2,048 pages, 229,376 logical pages) at the same
fill and lengths, beside the peers' runs at that capacity (``CAPACITY=1G``), also in the CSV.
A cell the peer has no run for shows reclaim's figure with the peer's column empty.
"""

from __future__ import annotations

import math
from typing import Any

from rich.table import Table
from rich.text import Text

from reclaim.api import SimConfig
from reclaim.reproduce.common import Context, Reproduction, Row, published, rel
from reclaim.ssdiq import geometry, opt_formula

#: (setting, the paper's label, reclaim's workload): the zones of ``scripts/runsimzones.sh``
#: (cold zone first: its share of the space, the hot zone's share of the writes), then Zipf θ.
PATTERNS: tuple[tuple[str, str, str], ...] = (
    ("uniform", "uniform", "uniform"),
    *((f"zones-{s:g}", f"{round(s * 100)}/{round((1 - s) * 100)}", f"zones:s={s:g}/{1 - s:.2g},f={1 - s:.2g}/{s:g}")
      for s in (0.6, 0.7, 0.8, 0.9, 0.95)),
    *((f"zipf-{t}", f"zipf {t}", "uniform" if float(t) == 0 else f"zipf-shuffle:theta={t}") for t in ("0", "0.2", "0.4", "0.6", "0.8", "1.0")),
)
#: (name, the peer and its GC value, reclaim's placement, whether ssdiq_plus's write buffer is on).
SCHEMES: tuple[tuple[str, str, str, bool], ...] = (
    ("greedy", "ssdiq greedy", "single", False),
    ("2r-greedy", "ssdiq 2r-greedy", "2r-greedy", False),
    ("2r-fifo", "ssdiq 2r-fifo", "2r-fifo", False),
    ("opt", "ssdiq_plus opt-1000", "opt", True),
    ("opt formula", "ssdiq_plus opt-1000", "", False),
)
#: Rows reclaim evaluates rather than simulates (no placement): ssdiq_plus's ``opt-1000`` formula
#: on page write counts drawn as the peer's run writes them (:func:`reclaim.ssdiq.opt_formula`),
#: beside the same peer figure as ``opt``, which simulates groups where the peer evaluates.
FORMULA = {"opt formula": ("opt", 1000)}
#: Physical capacity, SSD-iq's ``CAPACITY``: its default, and the quick run's.
CAPACITY = {False: "16G", True: "1G"}
#: ssdiq_plus's write buffer, a share of the logical pages (``sim/SSD.hpp``, ``writeBufferSizePct``).
BUFFER_SHARE = 0.0004
#: Logical capacities measured (SSD-iq's ``WRITES``) and rows per capacity (``--print-every``).
WRITES, ROWS_PER_CAPACITY = 10, 10


def measured_writes(logical: int) -> int:
    """The writes SSD-iq measures: whole rows of ⌊logical / 10⌋ writes (``writesPerRep``,
    ``sim/sim.cpp``) while fewer than ``WRITES`` × logical have been written.

    >>> measured_writes(3_670_016)
    36700100
    """
    per_row = logical // ROWS_PER_CAPACITY
    return (WRITES * logical) // per_row * per_row


def config(pattern: str, placement: str, buffer: bool, quick: bool, seed: int = 1) -> SimConfig:
    """reclaim's run of one cell: the peer's device, init phase and measured writes.

    >>> c = config("zones:s=0.95/0.05,f=0.05/0.95", "2r-fifo", False, quick=False)
    >>> c.segments, c.pages_per_segment, c.logical_pages, c.writes, c.gc
    (2048, 2048, 3670016, '36700100', 'frontier')
    """
    g: dict[str, Any] = geometry(CAPACITY[quick])
    logical = int(g["logical_pages"])
    return SimConfig(
        segments=int(g["segments"]),
        pages_per_segment=int(g["pages_per_segment"]),
        logical_pages=logical,
        warmup=str(g["warmup"]),
        writes=str(measured_writes(logical)),
        gc="frontier",
        policy="greedy",
        placement=placement,
        cache=math.floor(BUFFER_SHARE * logical) if buffer else None,
        workload=pattern,
        seed=seed,
    )


def peer_figures(quick: bool) -> dict[tuple[str, str], float]:
    """The peers' WA by (setting, scheme) at the run's scale, from ``data/ssdiq_peer.csv``."""
    scale = "quick" if quick else "full"
    return {(r["setting"], r["scheme"]): float(r["wa"]) for r in published("ssdiq_peer.csv") if r["scale"] == scale and r["wa"]}


def compute(ctx: Context) -> list[Row]:
    peer = peer_figures(ctx.quick)
    cells = [(s, label, w, name, who, placement, buffer) for s, label, w in PATTERNS for name, who, placement, buffer in SCHEMES]
    simulated = [c for c in cells if c[3] not in FORMULA]
    sims = ctx.simulate([config(w, placement, buffer, ctx.quick) for _, _, w, _, _, placement, buffer in simulated])
    ours = {(s, name): sim.wa for (s, _, _, name, _, _, _), sim in zip(simulated, sims)}
    for s, _, w, name, _, _, _ in cells:
        if name in FORMULA:
            logical = int(geometry(CAPACITY[ctx.quick])["logical_pages"])
            (wa,) = opt_formula(w, FORMULA[name][1], measured_writes(logical), capacity=CAPACITY[ctx.quick])
            ours[(s, name)] = wa
    rows = []
    for s, label, w, name, who, _, _ in cells:
        # The paper's relative WAF: over the scheme's own WA on uniform writes (θ = 0 for Zipf).
        base = "zipf-0" if s.startswith("zipf") else "uniform"
        peer_name = FORMULA[name][0] if name in FORMULA else name
        p, o = peer.get((s, peer_name)), ours[(s, name)]
        p_base = peer.get((base, peer_name))
        rows.append({
            "setting": s, "pattern": label, "scheme": name, "peer": who, "workload": w,
            "peer_wa": p, "ours": o, "rel": None if p is None else rel(o, p),
            "peer_relative": None if p is None or p_base is None else p / p_base,
            "ours_relative": o / ours[(base, name)],
        })
    return rows


COLUMNS = [
    ("pattern", "pattern", ""), ("scheme", "scheme", ""), ("peer_wa", "peer WA", ".3f"), ("ours", "reclaim WA", ".3f"),
    ("rel", "rel", "+.2%"), ("peer_relative", "peer rel. WAF", ".3f"), ("ours_relative", "reclaim rel. WAF", ".3f"),
]


def render(rows: list[Row]) -> list[Table]:
    """Two tables, as the paper's two figures: the zones, then Zipf."""
    tables = []
    for title, zipf in (("zones", False), ("Zipf θ", True)):
        t = Table(title=Text.assemble(
            f"SSD-iq: WA and relative WAF (over uniform) on {title}", "\n",
            ("peer: gabriel-haas/ssdiq sim/ (greedy, 2R), LeeBohyun/ssdiq_plus sim/ opt-1000 (a formula), run here; "
             "rel = (reclaim − peer) / peer; the published data are not public; opt: reclaim's simulation of 4 groups, "
             "opt formula: reclaim's evaluation of the peer's formula on counts drawn as its run writes them", "dim")))
        for _, heading, _ in COLUMNS:
            t.add_column(heading, justify="right")
        for r in rows:
            if r["setting"].startswith("zipf") == zipf:
                t.add_row(*[("" if r.get(k) is None else format(r[k], fmt)) for k, _, fmt in COLUMNS])
        tables.append(t)
    return tables


SSDIQ = Reproduction(
    title="SSD-iq: greedy, 2R-greedy, 2R-FIFO and the optimum on zones and Zipf",
    source="WA beside the peer simulators' runs here (data/ssdiq_peer.csv); relative WAF = WA / WA on uniform",
    compute=compute,
    columns=COLUMNS,
    render=render,
)
