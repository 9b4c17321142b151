"""Which scheme, at how much spare, for a trace: miniature runs on a spatially hashed sample of its
pages, each prediction with its interval (``reclaim advise``).

A **miniature run** keeps every write of the pages whose hash falls below a threshold, drops the
others, and replays what it kept on a device scaled with it: the ``precondition`` method sizes a
device from the sample's working set at the same spare factor, with the same pages per segment,
placement and victim policy (Waldspurger et al., "Efficient MRC Construction with SHARDS", FAST
'15: spatial sampling by a hash of the address; "Cache Modeling and Optimization using Miniature
Simulations", USENIX ATC '17: a scaled-down simulation of each configuration). The sample is
either a fixed rate R (each page kept with probability R: ``rate``) or a fixed number of distinct
pages (the ``sample`` pages of smallest hash, SHARDS' fixed-size variant). Several
independent hash seeds give the spread; the interval is the seeds' mean ± t(0.975, k − 1)·s/√k.

Where it is exact and where biased:

- The write amplification is a ratio, so nothing is rescaled: a page's writes are kept whole,
  its lifetime in user writes shrinks by R as the device does, and the fill factor is the same.
- The device has R times fewer segments of the same size. What a scheme keeps per device rather
  than per page (its open streams, the free segments of its trigger, the resolution of its
  thresholds) weighs R times more: with few segments the miniature is biased. The bias is
  measured against the segment count in ``docs/validation.md`` ("Advise: miniature runs"); it is
  small for one-stream schemes and large for schemes with several open streams (SepBIT's six)
  below a thousand segments. The default sample is therefore a fixed number of pages that gives
  the miniature about 2,000 segments at spare 0.1 with 64-page segments (:data:`SAMPLE_PAGES`),
  not a fixed rate.
- ``correct="extrapolate"`` removes the part of the bias that falls as 1/N (N segments): each
  seed also runs on the half sample (its pages of hash below half the threshold, a subset of the
  sample) and the prediction is 2·WA(N) − WA(N/2) (Richardson's extrapolation to first order).
  Its cost is half a miniature more; its variance is larger. Not the default: on the development
  trace of docs/validation.md it lowered the median error from 270 segments on, but doubled the
  90th percentile at 91 segments, where the multi-stream schemes' bias is not 1/N.
- The interval is the spread between the seeds' samples, not the miniature's bias, which is the
  same for every seed: on the traces of ``docs/validation.md`` it holds the full run's WA in
  25–46% of the configurations (uniform, hot/cold), its median half-width 0.08–0.12% against
  median errors of 0.24–0.34% with the default sample.
- The sampled trace is replayed as single-page writes without the trace's time (the page list is
  all a converted trace of page ids holds), and so are the full runs ``verify`` compares it with.

Where a model describes a scheme, its WA stands beside the prediction (``model``), from the
trace's per-page write counts (:func:`model_wa`): FIFO on the single frontier, Li et al.'s
Theorem 2 with one class per write count; greedy and d-choices on the single frontier, Van
Houdt's mean-field (§3, eq. 6–8) from a hot/cold fit, where the fit holds. Both assume
independent writes at each page's rate; the replay repeats the trace pass after pass in its
order. The measured gap is in ``docs/validation.md``.

FK, the future-knowledge bound, is not placed in the table: it knows each write's next
invalidation from a single in-order pass, which only the ``log`` method replays, and that method
has no fixed device and so no spare factor (:data:`FK_NOT_PLACED`).

>>> import numpy as np
>>> pages = np.arange(100_000, dtype=np.uint32)
>>> kept = sample_pages(pages, rate=0.1, seed=1)
>>> 9_000 < len(kept) < 11_000, set(kept.tolist()) <= set(pages.tolist())
(True, True)
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: Distinct pages of a volume's default sample: 2¹⁷, about 2,300 segments of 64 pages at spare
#: 0.1 (131,072 / 0.9 / 64); at 2,510 segments (the mean over the grid's spares) every default
#: scheme's mean bias measured in docs/validation.md is within 0.8%, at 790 within 6%.
SAMPLE_PAGES = 1 << 17
#: Hash seeds (independent samples) per configuration by default.
SEEDS = 4
#: Spare factors of the default grid.
SPARES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
#: The default schemes, ``placement[+policy]`` (greedy when no policy is named): the placements
#: of SepBIT's comparison (Wang et al., FAST '22, §5) that need no oracle, under greedy, and the
#: single frontier also under FIFO and cost-benefit. FK, the future-knowledge bound, needs the
#: ``log`` method (one pass in order) and so has no place on a spare axis.
SCHEMES = ("single", "single+fifo", "single+cost-benefit", "sepgc", "dac", "multi-log:form=sepbit", "eti",
           "multi-queue", "sfr", "fadac", "warcip", "sepbit")
#: Needs (``reclaim schemes``) that only an oracle the trace does not carry satisfies.
ORACLE_NEEDS = ("classes", "page-class")
#: Relative difference of two predictions under which the ranking between them is a close call.
CLOSE = 0.01
#: Why FK is not among the schemes, as the command line says it.
FK_NOT_PLACED = ("FK (future knowledge) is not ranked: it needs each write's next invalidation from one in-order "
                 "pass, the `log` method, which has no fixed device and so no spare factor to place it on")
#: Largest index of dispersion (variance / mean of the write counts) within each class of the
#: hot/cold fit for Van Houdt's model to apply: 1 for Poisson counts, as writes drawn
#: independently at one rate per class give (Rosenblum's hot/cold, Van Houdt §2.1); twice that
#: leaves room for the sample's noise and rejects skews with no two levels (Zipf).
HOT_COLD_DISPERSION = 2.0
#: Choices of Van Houdt's mean-field for greedy, the limit of large d: at 64 pages per segment and
#: spare 0.05–0.1, WA at d = 256 and 1,024 differ by 0.02%.
GREEDY_D = 1024

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def page_hash(pages: np.ndarray, seed: int) -> np.ndarray:
    """SplitMix64's finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number
    generators", OOPSLA '14) of each page id offset by the seed: uniform 64-bit hashes,
    independent between seeds.

    >>> page_hash(np.array([0, 1], dtype=np.uint32), 1).dtype
    dtype('uint64')
    """
    offset = np.uint64((int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (1 << 64))
    z = np.asarray(pages).astype(np.uint64) + offset
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    out: np.ndarray = z ^ (z >> np.uint64(31))
    return out


def _check_rate(rate: float) -> float:
    if isinstance(rate, bool) or not isinstance(rate, (int, float, np.integer, np.floating)) or not (0 < float(rate) <= 1):
        raise ValueError(f"invalid value for `rate`: {rate!r} (expected a sampling rate in (0, 1])")
    return float(rate)


def threshold(rate: float) -> int:
    """The hash threshold of a sampling rate: a page is kept when its hash is below it."""
    return min((1 << 64) - 1, int(_check_rate(rate) * (1 << 64)))


def sample_pages(pages: np.ndarray, *, rate: float | None = None, size: int | None = None, seed: int = 0) -> np.ndarray:
    """The writes of a spatially hashed sample of the pages, in trace order.

    Args:
        pages: Page ids written, in order.
        rate: Keep each page with this probability, in (0, 1].
        size: Instead of ``rate``: keep the ``size`` distinct pages of smallest hash (all of
            them when there are fewer).
        seed: The hash seed.

    Raises:
        ValueError: neither or both of ``rate`` and ``size``, or a value out of range.

    >>> sample_pages(np.array([5, 7, 5, 9], dtype=np.uint32), size=1, seed=3).tolist() in ([5, 5], [7], [9])
    True
    """
    pages = np.asarray(pages)
    return pages[pages_below(pages, _cut(np.unique(pages), rate, size, seed), seed)]


def _cut(distinct: np.ndarray, rate: float | None, size: int | None, seed: int) -> int:
    """The hash threshold of a sample of the ``distinct`` pages: from ``rate``, or the
    ``size``-th smallest of their hashes."""
    if (rate is None) == (size is None):
        raise ValueError("invalid value for `rate`: give either a sampling rate or a sample size, not both or neither")
    if rate is not None:
        return threshold(rate)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"invalid value for `sample`: {size!r} (expected a whole number of distinct pages ≥ 1)")
    hashes = page_hash(distinct, seed)
    if len(hashes) <= size:
        return 1 << 64
    return int(np.partition(hashes, size - 1)[size - 1]) + 1


def pages_below(pages: np.ndarray, cut: int, seed: int) -> np.ndarray:
    """Which writes are of pages whose hash is below ``cut`` (a boolean mask)."""
    if cut >= 1 << 64:
        return np.ones(len(pages), dtype=bool)
    return page_hash(pages, seed) < np.uint64(cut)


def parse_scheme(scheme: str) -> dict[str, str]:
    """A scheme ``placement[+policy]`` as simulation parameters (greedy by default).

    >>> parse_scheme("single+cost-benefit"), parse_scheme("sepbit")
    ({'placement': 'single', 'policy': 'cost-benefit'}, {'placement': 'sepbit', 'policy': 'greedy'})
    """
    placement, _, policy = str(scheme).partition("+")
    if not placement.strip():
        raise ValueError(f"invalid value for `schemes`: `{scheme}` (expected PLACEMENT[+POLICY], such as sepbit or single+cost-benefit)")
    return {"placement": placement.strip(), "policy": policy.strip() or "greedy"}


def check_schemes(schemes: Sequence[str]) -> list[dict[str, str]]:
    """Each scheme's parameters, refusing those that need what a trace replayed by miniature runs
    lacks: an oracle's classes, or the future of a single in-order pass (FK).

    Raises:
        ValueError: an unknown scheme, or one that needs an oracle (named with what it needs).
    """
    from reclaim.api import SimConfig
    from reclaim.schemes import SCHEMES as REGISTRY

    out = []
    for s in schemes:
        params = parse_scheme(s)
        for family, key in (("placement", "placement"), ("policy", "policy")):
            name = params[key].split(":")[0]
            decl = next((d for d in REGISTRY if d["family"] == family and (d["name"] == name or name in d["aliases"])), None)
            needs = set(decl["needs"]) if decl else set()
            if needs & set(ORACLE_NEEDS):
                raise ValueError(f"invalid value for `schemes`: `{s}` (its {family} `{name}` needs an oracle's classes "
                                 f"({', '.join(sorted(needs & set(ORACLE_NEEDS)))}), which a trace does not carry; "
                                 "expected a scheme that needs no oracle)")
            if decl and decl["name"] == "fk":
                raise ValueError(f"invalid value for `schemes`: `{s}` (FK knows the future of a trace replayed once in "
                                 "order, the `log` method, which has no spare factor; expected a scheme that needs no oracle)")
        try:
            SimConfig(placement=params["placement"], policy=params["policy"]).validated()
        except ValueError as e:
            raise ValueError(f"invalid value for `schemes`: `{s}` ({e})") from None
        out.append(params)
    return out


def count_classes(counts: np.ndarray) -> Any:
    """Li et al.'s workload (§2.2) of a trace replayed pass after pass: one class per distinct
    write count, hottest first, r_i its share of the writes and f_i its share of the written pages;
    f_a = 1 (the ``precondition`` method's device holds the written pages only).

    Args:
        counts: Writes per written page.

    >>> w = count_classes(np.array([3, 1, 1, 3]))
    >>> w.r, w.f
    ((0.75, 0.25), (0.5, 0.5))
    """
    from reclaim.models.li import Workload

    values, pages = np.unique(np.asarray(counts, dtype=np.int64), return_counts=True)
    values, pages = values[::-1], pages[::-1]
    writes = values * pages
    return Workload(1.0, tuple((writes / writes.sum()).tolist()), tuple((pages / pages.sum()).tolist()))


def hot_cold_fit(counts: np.ndarray) -> dict[str, float]:
    """Rosenblum's hot/cold (a share r of the writes to a share f of the pages) fitted to per-page
    write counts: the split of the counts, sorted, into two classes of least squared deviation
    from their means (two-means in one dimension, exact over every split), with each class's index
    of dispersion (variance / mean: 1 for Poisson counts).

    Returns:
        ``r``, ``f``, ``dispersion`` (the larger of the two classes'), ``fits`` (1.0 when the
        dispersion is at most :data:`HOT_COLD_DISPERSION`, else 0.0).

    >>> fit = hot_cold_fit(np.array([40, 40, 41, 39, 1, 1, 2, 1, 1, 2]))
    >>> round(fit["f"], 2), round(fit["r"], 3), fit["fits"]
    (0.4, 0.952, 1.0)
    """
    c = np.sort(np.asarray(counts, dtype=float))[::-1]
    n = len(c)
    if n < 2:
        return {"r": float("nan"), "f": float("nan"), "dispersion": float("nan"), "fits": 0.0}
    s1, s2 = np.cumsum(c), np.cumsum(c * c)
    k = np.arange(1, n)
    top = s2[:-1] - s1[:-1] ** 2 / k
    rest = (s2[-1] - s2[:-1]) - (s1[-1] - s1[:-1]) ** 2 / (n - k)
    split = int(k[np.argmin(top + rest)])
    dispersion = max(float(g.var() / g.mean()) for g in (c[:split], c[split:]))
    return {"r": float(s1[split - 1] / s1[-1]), "f": split / n, "dispersion": dispersion,
            "fits": float(dispersion <= HOT_COLD_DISPERSION)}


def model_wa(counts: np.ndarray, params: dict[str, str], spare: float, pages_per_segment: int,
             fit: dict[str, float] | None = None) -> float:
    """The model's WA of a scheme on a trace's full device, or NaN where no model describes it.

    - FIFO on the single frontier: Li et al. Theorem 2 (N → ∞, d = 1) on :func:`count_classes`.
      Their GREEDY is approximated by age order among the active blocks (§3.1); with f_a = 1
      every block is active, so the formula is FIFO's cost C̄, and WA = k / (k − C̄).
    - Greedy on the single frontier: Van Houdt's mean-field (§3, eq. 6–8, WA eq. 4) at
      d = :data:`GREEDY_D` (greedy is the limit of large d) with the r and f of
      :func:`hot_cold_fit`, where that fit holds.
    - d-choices on the single frontier: the same mean-field at the scheme's d.

    Args:
        counts: Writes per written page of the volume.
        params: The scheme's ``placement`` and ``policy``.
        spare: Spare factor, in (0, 1).
        pages_per_segment: Pages per segment k.
        fit: :func:`hot_cold_fit` of the counts, if already made.

    >>> counts = np.full(65_536, 8)
    >>> round(model_wa(counts, {"placement": "single", "policy": "fifo"}, 0.1, 64), 3)  # Corollary 1
    5.179
    >>> model_wa(counts, {"placement": "sepbit", "policy": "greedy"}, 0.1, 64)
    nan
    """
    from reclaim import style

    placement, args = style.parse(params["placement"])
    policy, pargs = style.parse(params["policy"])
    if placement != "single" or args or len(counts) < 2:
        return float("nan")
    k = pages_per_segment
    if policy == "fifo" and not pargs:
        from reclaim.models import li

        with np.errstate(over="ignore"):
            c = li.cost_per_gc(k, spare, count_classes(counts), 1)
        return float(k / (k - c))
    if policy == "greedy" and not pargs:
        d: str | int | None = GREEDY_D
    elif policy in ("d-choices", "greedy-k"):
        d = pargs.get("d", pargs.get("k"))
    else:
        return float("nan")
    from reclaim.models import vanhoudt

    fit = hot_cold_fit(counts) if fit is None else fit
    if d is None or not fit["fits"] or not (0 < fit["r"] < 1) or k > 512:
        return float("nan")
    # At large d and spare the accelerated iteration can oscillate; a shorter memory, or none,
    # settles it (64 pages, spare 0.2-0.3, d = 1,024: 0.2-2.2 s). A residual of 1e-8 moves WA by
    # far less than the 1e-4 the table shows.
    for memory, iterations in ((15, 1_500), (5, 1_500), (0, 5_000)):
        try:
            return float(vanhoudt.solve(k, spare, float(d), fit["r"], fit["f"], tol=1e-8, max_iterations=iterations,
                                        anderson=memory).wa)
        except RuntimeError:
            continue
    return float("nan")


@dataclass(frozen=True)
class Volume:
    """A volume's page writes and its name."""

    name: str
    pages: np.ndarray


def volumes_of(trace: Any, volume: str | None = None) -> list[Volume]:
    """The volumes of a trace: a page-id array (one volume), a converted trace (its volumes), or a
    folder of one converted trace per volume.

    Raises:
        ValueError: the trace has no writes, or no volume of that name.
    """
    from reclaim import traces

    if not isinstance(trace, (str, Path)):
        vols = [Volume("0", np.ascontiguousarray(np.asarray(trace, dtype=np.uint32)))]
    elif Path(trace).is_dir():
        vols = [Volume(n, np.array(traces.load(f).pages)) for n, f in traces.volume_files(trace)]
    else:
        t = traces.load(trace)
        listed = t.meta.get("volumes") or []
        if len(listed) > 1:
            vols = [Volume(str(v["name"]), np.array(traces.pages_of_volume(t, i))) for i, v in enumerate(listed)]
        else:
            vols = [Volume(str(listed[0]["name"]) if listed else "0", np.array(t.pages))]
    vols = [v for v in vols if len(v.pages)]
    if volume is not None and volume not in ("each", "all"):
        chosen = [v for v in vols if v.name == volume]
        if not chosen:
            raise ValueError(f"invalid value for `volume`: `{volume}` (expected one of {', '.join(v.name for v in vols)})")
        vols = chosen
    if not vols:
        raise ValueError(f"invalid value for `trace`: {trace if isinstance(trace, (str, Path)) else 'the page ids'} "
                         "has no page writes (expected a trace that writes)")
    return vols


def _interval(values: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """Mean and the 95% interval of a mean of independent samples (Student's t)."""
    from scipy import stats

    a = np.asarray(values, dtype=float)
    m = float(a.mean())
    if len(a) < 2:
        return m, float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(a) - 1) * a.std(ddof=1) / math.sqrt(len(a)))
    return m, m - half, m + half


def _spare_for(spares: Sequence[float], was: Sequence[float], target: float) -> float:
    """The least spare at which WA reaches ``target``, interpolated linearly in log(WA) between the
    grid's spares; NaN when no spare of the grid reaches it, the grid's first when all do."""
    pairs = sorted(zip(spares, was))
    for i, (s, w) in enumerate(pairs):
        if w <= target:
            if i == 0:
                return float(s)
            s0, w0 = pairs[i - 1]
            f = (math.log(w0) - math.log(target)) / (math.log(w0) - math.log(w))
            return float(s0 + f * (s - s0))
    return float("nan")


def advise(
    trace: Any,
    *,
    volume: str | None = None,
    spares: Sequence[float] = SPARES,
    schemes: Sequence[str] = SCHEMES,
    rate: float | None = None,
    sample: int | None = None,
    seeds: int = SEEDS,
    pages_per_segment: int = 64,
    correct: str = "none",
    target_wa: float | None = None,
    verify: bool = False,
    db: str | Path | None = None,
    workers: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> Any:
    """Predicted WA of every scheme × spare for a trace, from miniature runs, ranked.

    Args:
        trace: A converted trace (its volumes each on its own), a folder of one per volume, or
            page ids.
        volume: One volume's name; every volume by default.
        spares: Spare factors, each in (0, 1).
        schemes: ``placement[+policy]`` specs (greedy by default); :data:`SCHEMES` by default.
        rate: Sampling rate R in (0, 1]; default: a fixed sample of ``sample`` pages.
        sample: Distinct pages per volume's sample (default :data:`SAMPLE_PAGES` when no
            ``rate``).
        seeds: Hash seeds (independent samples), ≥ 2 for an interval.
        pages_per_segment: Pages per segment, as on the full device.
        correct: ``none``, or ``extrapolate`` (2·WA(N) − WA(N/2) from a half sample).
        target_wa: Give each scheme the least spare of the grid (interpolated) that reaches it.
        verify: Also run the full trace for the close calls at each spare (the best scheme and
            those within :data:`CLOSE` of it or whose interval reaches it).
        db: A results database to keep every run in (a second call only reads them back); the
            sampled traces the runs replay are kept beside it, in the folder ``DB.advise``.
        workers: Worker processes (one per core by default).
        on_progress: Called as ``(done, total)`` as runs finish.

    Returns:
        A pandas DataFrame, a row per volume × spare × scheme and, with several volumes, the
        overall rows (``volume`` ``all``: ΣU·WA / ΣU, U each volume's page writes): ``volume``,
        ``spare``, ``scheme``, ``placement``, ``policy``, ``wa`` (the prediction), ``wa_low``,
        ``wa_high`` (its 95% interval over seeds), ``rank`` (1 = lowest WA at that volume and
        spare), ``close`` (a close call with the best), ``rate`` (mean sampling rate),
        ``segments`` (mean segments of the miniature), ``seeds``, ``model`` (the model's WA on
        the full device, :func:`model_wa`; NaN where no model describes the scheme, and overall
        where one volume has none), ``spare_for_target`` (with
        ``target_wa``), ``full_wa`` and ``error`` (with ``verify``, where a full run was made).
        ``attrs`` holds ``seconds`` (wall time), ``runs`` and ``full_runs``.

    Raises:
        ValueError: a rate outside (0, 1], an empty sample, a scheme that needs an oracle, an
            unknown scheme or a spare out of range.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> pages = rng.integers(0, 20_000, 100_000).astype(np.uint32)
    >>> df = advise(pages, spares=[0.2], schemes=["single", "single+fifo"], rate=0.5, seeds=2, workers=1)
    >>> df.sort_values("rank")["scheme"].tolist()[0] in ("single", "single+fifo"), len(df)
    (True, 2)
    """
    import pandas as pd

    from reclaim.experiments.batch import results
    from reclaim.traces import write_pages

    start = time.perf_counter()
    if rate is not None:
        _check_rate(rate)
    elif sample is None:
        sample = SAMPLE_PAGES
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"invalid value for `seeds`: {seeds!r} (expected a whole number of hash seeds ≥ 1)")
    if correct not in ("none", "extrapolate"):
        raise ValueError(f"invalid value for `correct`: {correct!r} (expected none or extrapolate)")
    for x in spares:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 < x < 1:
            raise ValueError(f"invalid value for `spares`: {x!r} (expected spare factors in (0, 1))")
    if target_wa is not None and not (isinstance(target_wa, (int, float)) and target_wa >= 1):
        raise ValueError(f"invalid value for `target_wa`: {target_wa!r} (expected a write amplification ≥ 1)")
    params = check_schemes(schemes)
    vols = volumes_of(trace, volume)

    tmp = tempfile.TemporaryDirectory() if db is None else None
    folder = Path(tmp.name) if tmp is not None else Path(f"{db}.advise")
    try:
        files: dict[tuple[str, int, str], tuple[Path, int, float]] = {}
        counts: dict[str, np.ndarray] = {}
        for vi, v in enumerate(vols):
            # Each volume's distinct pages once: the threshold and the sample's share come from
            # their hashes, the sample's writes from a mask over the volume's writes, the models'
            # workload from their write counts.
            every, counts[v.name] = np.unique(v.pages, return_counts=True)
            for seed in range(seeds):
                cut = _cut(every, rate, sample, seed)
                hashes = page_hash(every, seed)
                cuts = [("full", cut)] + ([("half", cut // 2)] if correct == "extrapolate" else [])
                for part, c in cuts:
                    distinct = len(every) if c >= 1 << 64 else int(np.count_nonzero(hashes < np.uint64(c)))
                    if not distinct:
                        raise ValueError(f"invalid value for `rate`: {rate} gives volume {v.name} an empty sample "
                                         f"({len(every):,} distinct pages; expected a rate that keeps some)")
                    kept = v.pages[pages_below(v.pages, c, seed)]
                    path = _written(folder, vi, seed, part, kept, write_pages)
                    files[(v.name, seed, part)] = (path, distinct, distinct / len(every))
        configs: list[dict[str, Any]] = []
        index: list[tuple[str, int, str, float, int]] = []
        for v in vols:
            for seed in range(seeds):
                for part in ("full", "half") if correct == "extrapolate" else ("full",):
                    for spare in spares:
                        for k, p in enumerate(params):
                            configs.append({**p, "workload": f"trace:{files[(v.name, seed, part)][0]}", "spare": float(spare),
                                            "pages_per_segment": pages_per_segment, "method": "precondition",
                                            "seed": seed + 1})
                            index.append((v.name, seed, part, float(spare), k))
        name = Path(str(trace)).name if isinstance(trace, (str, Path)) else "pages"
        got = results(configs, sweep=f"advise:{name}", db=db, workers=workers, on_progress=on_progress)
        wa: dict[tuple[str, int, str, float, int], float] = {}
        segs: dict[tuple[str, int, str, float, int], int] = {}
        for key, r in zip(index, got):
            wa[key] = float(r.wa)
            segs[key] = int(r.simulated_segments)
        rows = []
        weights = {v.name: len(v.pages) for v in vols}
        fits = {v.name: hot_cold_fit(counts[v.name]) for v in vols}
        for spare in spares:
            for k, s in enumerate(schemes):
                per_seed_all = np.zeros(seeds)
                models = {v.name: model_wa(counts[v.name], params[k], float(spare), pages_per_segment, fits[v.name])
                          for v in vols}
                for v in vols:
                    per_seed = []
                    for seed in range(seeds):
                        w = wa[(v.name, seed, "full", float(spare), k)]
                        if correct == "extrapolate":
                            w = 2 * w - wa[(v.name, seed, "half", float(spare), k)]
                        per_seed.append(w)
                    per_seed_all += np.asarray(per_seed) * weights[v.name]
                    m, lo, hi = _interval(per_seed)
                    rows.append({"volume": v.name, "spare": float(spare), "scheme": s, **params[k], "wa": m, "wa_low": lo,
                                 "wa_high": hi, "rate": float(np.mean([files[(v.name, d, "full")][2] for d in range(seeds)])),
                                 "segments": float(np.mean([segs[(v.name, d, "full", float(spare), k)] for d in range(seeds)])),
                                 "seeds": seeds, "model": models[v.name]})
                if len(vols) > 1:
                    m, lo, hi = _interval(per_seed_all / sum(weights.values()))
                    overall = sum(models[v.name] * weights[v.name] for v in vols) / sum(weights.values())
                    rows.append({"volume": "all", "spare": float(spare), "scheme": s, **params[k], "wa": m, "wa_low": lo,
                                 "wa_high": hi, "rate": float("nan"), "segments": float("nan"), "seeds": seeds,
                                 "model": overall})
        df = pd.DataFrame(rows)
        df["rank"] = df.groupby(["volume", "spare"])["wa"].rank(method="min").astype(int)
        best = df.groupby(["volume", "spare"])["wa"].transform("min")
        best_high = df.loc[df.groupby(["volume", "spare"])["wa"].idxmin()].set_index(["volume", "spare"])["wa_high"]
        reach = [bool(r.wa_low <= best_high[(r.volume, r.spare)]) for r in df.itertuples()]
        df["close"] = (df["wa"] <= best * (1 + CLOSE)) | np.asarray(reach)
        if target_wa is not None:
            need = {key: _spare_for(g["spare"].tolist(), g["wa"].tolist(), float(target_wa))
                    for key, g in df.groupby(["volume", "scheme"])}
            df["spare_for_target"] = [need[(r.volume, r.scheme)] for r in df.itertuples()]
        full_runs = 0
        if verify:
            full_runs = _verify(df, vols, params, list(schemes), pages_per_segment, folder, name, db, workers)
        # Volumes in the trace's order, the overall last.
        order = {v.name: i for i, v in enumerate(vols)} | {"all": len(vols)}
        df = df.sort_values(["volume", "spare", "rank"], key=lambda c: c.map(order) if c.name == "volume" else c, kind="stable")
        df = df.reset_index(drop=True)
        df.attrs.update({"seconds": time.perf_counter() - start, "runs": len(configs), "full_runs": full_runs})
        return df
    finally:
        if tmp is not None:
            tmp.cleanup()


def _written(folder: Path, vi: int, seed: int, part: str, kept: np.ndarray, write: Callable[..., Any]) -> Path:
    """The sampled page list as a converted trace, named by its content so that a database's
    tasks find it again (and a different sample never overwrites one in use)."""
    import hashlib

    digest = hashlib.sha256(np.ascontiguousarray(kept).tobytes()).hexdigest()[:16]
    path = folder / f"v{vi}-s{seed}-{part}-{digest}.rtr"
    if not path.exists():
        write(kept, path, source=f"advise sample: volume {vi}, seed {seed}, {part}")
    return path


def _verify(df: Any, vols: list[Volume], params: list[dict[str, str]], schemes: list[str], pps: int, folder: Path,
            name: str, db: str | Path | None, workers: int | None) -> int:
    """Full runs of the close calls, their WA written into ``full_wa`` and the prediction's
    relative error into ``error``; returns how many ran."""
    from reclaim.experiments.batch import results
    from reclaim.traces import write_pages

    paths = {v.name: _written(folder, i, 0, "whole", v.pages, write_pages) for i, v in enumerate(vols)}
    todo = df[(df["close"]) & (df["volume"] != "all")]
    configs = [{**params[schemes.index(r.scheme)], "workload": f"trace:{paths[r.volume]}", "spare": float(r.spare),
                "pages_per_segment": pps, "method": "precondition", "seed": 1} for r in todo.itertuples()]
    got = results(configs, sweep=f"advise:{name}:full", db=db, workers=workers) if configs else []
    df["full_wa"] = np.nan
    for i, r in zip(todo.index, got):
        df.loc[i, "full_wa"] = float(r.wa)
    df["error"] = df["wa"] / df["full_wa"] - 1
    return len(configs)


def table_json(df: Any) -> str:
    """The DataFrame as JSON records, NaN as null (``reclaim advise --json``)."""
    records = json.loads(df.to_json(orient="records"))
    return json.dumps({"rows": records, **{k: v for k, v in df.attrs.items()}}, allow_nan=False)


def sample_volume(workload: str) -> str | None:
    """The volume index of a miniature's sampled trace (``trace:…/v3-s0-full-….rtr``: ``3``), or
    None for any other workload (the full runs of ``verify``: ``…-whole-…``)."""
    name = Path(str(workload)).name
    parts = name.split("-")
    if len(parts) < 4 or not parts[0].startswith("v") or parts[2] != "full":
        return None
    return parts[0][1:]


def report_figures(frame: Any) -> list[Any]:
    """The report's figures of an ``advise:`` sweep: WA against spare per scheme, one figure per
    volume of the trace, each point the mean over hash seeds with its 95% interval (Student's
    t), in each scheme's own colour and marker (:func:`reclaim.style.series`). The half samples
    of ``correct="extrapolate"`` and the full runs of ``verify`` are not drawn.

    Args:
        frame: The sweep's tasks (``workload``, ``placement``, ``policy``, ``spare``, ``wa``).
    """
    import plotly.graph_objects as go

    from reclaim import style

    df = frame.copy()
    df["_volume"] = [sample_volume(w) for w in df["workload"]]
    df = df[df["_volume"].notna()]
    if df.empty:
        return []
    greedy = [q is None or style.parse(q)[0] == "greedy" for q in df["policy"]]
    df["_scheme"] = [style.display(p) if g else f"{style.display(p)} + {style.display(q)}"
                     for p, q, g in zip(df["placement"], df["policy"], greedy)]
    df["_look"] = [p if g else q for p, q, g in zip(df["placement"], df["policy"], greedy)]
    figures = []
    for volume, dv in df.groupby("_volume", sort=True):
        fig = go.Figure()
        schemes = sorted(dv["_scheme"].unique())
        looks = style.series([dv.loc[dv["_scheme"] == s, "_look"].iloc[0] for s in schemes])
        for scheme, look in zip(schemes, looks):
            pts = [(float(x), *_interval(g["wa"].to_numpy())) for x, g in dv[dv["_scheme"] == scheme].groupby("spare")]
            fig.add_trace(go.Scatter(
                x=[p[0] for p in pts], y=[p[1] for p in pts], mode="lines+markers", name=scheme,
                line=look.plotly_line(), marker=look.plotly_marker(),
                error_y={"type": "data", "symmetric": False, "array": [0 if math.isnan(p[3]) else p[3] - p[1] for p in pts],
                         "arrayminus": [0 if math.isnan(p[2]) else p[1] - p[2] for p in pts], "thickness": 1.5, "width": 6,
                         "color": look.color},
                hovertemplate=f"{scheme}<br>spare %{{x}}<br>WA %{{y:.4f}}<extra></extra>"))
        fig.update_layout(title=f"Predicted WA against spare factor, volume {volume} (miniature runs, 95% interval over seeds)",
                          xaxis_title="spare factor", yaxis_title="write amplification (WA)", template="plotly_white",
                          legend={"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0},
                          margin={"t": 50, "r": 20, "b": 40})
        figures.append(fig)
    return figures


__all__ = ["CLOSE", "FK_NOT_PLACED", "GREEDY_D", "HOT_COLD_DISPERSION", "SAMPLE_PAGES", "SCHEMES", "SEEDS", "SPARES", "advise",
           "check_schemes", "count_classes", "hot_cold_fit", "model_wa", "page_hash", "parse_scheme", "report_figures",
           "sample_pages", "sample_volume", "volumes_of"]
