"""Placements of allocation entities on a disk (Dyal & Draughn §2–3): as copied from three
smaller packs, organ-pipe reorganisation (the simplified Arora–Gallo rule of §2.2), and a local
search that improves on it.

An entity has a size [tracks] and a share of references; its references are spread uniformly
over its tracks (not collapsed to its centre), and tracks fill cylinders in order.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources

import numpy as np

from reclaim.layout.disk import CYLINDERS, TRACKS_PER_CYLINDER, SeekCurve, expected_seek


@dataclass(frozen=True)
class Entity:
    """An allocation entity: a file partition or extent."""

    name: str
    category: str
    tracks: int
    refs: float


def table1() -> list[Entity]:
    """Dyal & Draughn Table 1 as 106 entities.

    The table gives each category's entity count, tracks and reference share; the entities of a
    category are taken as equal in size (tracks split as evenly as whole tracks allow) and in
    reference share. This is our reading: the paper lists no per-entity figures.

    >>> es = table1()
    >>> len(es), sum(e.tracks for e in es), round(sum(e.refs for e in es), 6)
    (106, 7121, 1.0)
    """
    text = resources.files("reclaim.layout").joinpath("dyal_draughn_table1.csv").read_text()
    rows = list(csv.DictReader(ln for ln in text.splitlines() if ln and not ln.startswith("#")))
    total_refs = sum(float(r["reference_percent"]) for r in rows)
    out = []
    for r in rows:
        n, tracks, refs = int(r["entities"]), int(r["tracks"]), float(r["reference_percent"]) / total_refs
        sizes = [tracks // n + (1 if i < tracks % n else 0) for i in range(n)]
        cat = r["category"].split(" ")[0] + r["segments"]
        for i, size in enumerate(sizes):
            out.append(Entity(f"{cat}{i + 1}", r["category"].split(" ")[0], size, refs / n))
    return out


def refs_by_cylinder(order: list[Entity], cylinders: int = CYLINDERS, tracks_per_cylinder: int = TRACKS_PER_CYLINDER) -> np.ndarray:
    """The reference distribution over cylinders of entities laid out in ``order``."""
    per_track = np.concatenate([np.full(e.tracks, e.refs / e.tracks) for e in order])
    padded = np.zeros(cylinders * tracks_per_cylinder)
    padded[: len(per_track)] = per_track
    return padded.reshape(cylinders, tracks_per_cylinder).sum(axis=1)


def seek_time(order: list[Entity], curve: SeekCurve) -> float:
    """Expected seek time [ms] of a layout."""
    return expected_seek(refs_by_cylinder(order), curve)


def organ_pipe(entities: list[Entity]) -> list[Entity]:
    """§2.2: sort by references per track, place the hottest at the centre and the rest
    alternately to either side, so that the coldest end up at the two ends."""
    ranked = sorted(entities, key=lambda e: e.refs / e.tracks, reverse=True)
    left: list[Entity] = []
    right: list[Entity] = []
    for i, e in enumerate(ranked):
        (right if i % 2 == 0 else left).append(e)
    return left[::-1] + right


#: Our assignment of Table 1's categories to the three smaller source packs (§2.1: "copied from
#: three smaller disk packs … laid out in the same sequence"): the system files AA on one pack,
#: the smaller system files BB with the user files CC on another, DD on the third — 2,405, 2,568
#: and 2,148 tracks.
PACKS = (("AA",), ("BB", "CC"), ("DD",))


def as_copied(entities: list[Entity], packs: tuple[tuple[str, ...], ...] = PACKS) -> list[Entity]:
    """§2.1: each small pack had its references well centred (organ-pipe within the pack); the
    packs are copied end to end onto the large disk."""
    out: list[Entity] = []
    for cats in packs:
        out += organ_pipe([e for e in entities if e.category in cats])
    return out


def local_search(order: list[Entity], curve: SeekCurve, max_rounds: int = 20) -> tuple[list[Entity], float]:
    """Pairwise swaps of entities (any two positions) while one lowers the expected seek time;
    never worse than the start."""
    best = list(order)
    best_t = seek_time(best, curve)
    for _ in range(max_rounds):
        improved = False
        for i in range(len(best)):
            for j in range(i + 1, len(best)):
                cand = best.copy()
                cand[i], cand[j] = cand[j], cand[i]
                t = seek_time(cand, curve)
                if t < best_t - 1e-12:
                    best, best_t, improved = cand, t, True
        if not improved:
            break
    return best, best_t


def normalised_seek(order: list[Entity], curve: SeekCurve) -> float:
    """Expected seek [ms] between two references to the same disk (its reference share scaled
    to 1): the seek time of a drive in a multi-drive layout."""
    r = refs_by_cylinder(order)
    return expected_seek(r / r.sum(), curve)


def split_two_disks(order: list[Entity], first_share: float = 0.6) -> tuple[list[Entity], list[Entity]]:
    """§2.5: every allocation unit made twice as big and split into two equal extents, the first
    half on drive 1 and the second on drive 2, both in the original vertical sequence. The
    60/40 reference imbalance the paper assumes is given to every entity alike: its first half
    gets ``first_share`` of its references."""
    d1 = [Entity(e.name + "/1", e.category, e.tracks, e.refs * first_share) for e in order]
    d2 = [Entity(e.name + "/2", e.category, e.tracks, e.refs * (1.0 - first_share)) for e in order]
    return d1, d2


def share(d1: list[Entity], d2: list[Entity]) -> float:
    """Drive 1's share of the references."""
    a, b = sum(e.refs for e in d1), sum(e.refs for e in d2)
    return a / (a + b)


def balance(d1: list[Entity], d2: list[Entity]) -> tuple[list[Entity], list[Entity], int]:
    """§2.5: split partitions swapped sideways across the drives (an entity's two halves have the
    same size, so a swap keeps every track in place) until the references are as even as the
    swaps allow; largest reference shares are tried first. Returns the drives and the swaps."""
    d1, d2 = list(d1), list(d2)
    swaps = 0
    for i in sorted(range(len(d1)), key=lambda k: d1[k].refs + d2[k].refs, reverse=True):
        before = abs(share(d1, d2) - 0.5)
        d1[i], d2[i] = d2[i], d1[i]
        if abs(share(d1, d2) - 0.5) < before - 1e-15:
            swaps += 1
        else:
            d1[i], d2[i] = d2[i], d1[i]
    return d1, d2, swaps


def with_spike(order: list[Entity], spike_tracks: int = 800, spike_refs: float = 0.2) -> list[Entity]:
    """§3, Fig. 6's situation: the entities in the first ``spike_tracks`` tracks of a good layout
    become popular (a newly allocated file that turned out to be hot), together taking
    ``spike_refs`` of all references; the rest keep their proportions. The paper gives no data
    for its spike, so this is a constructed case of the same shape."""
    out, used = [], 0
    spike = []
    for i, e in enumerate(order):
        if used < spike_tracks:
            spike.append(i)
            used += e.tracks
    rest = sum(e.refs for i, e in enumerate(order) if i not in spike)
    spike_tracks_total = sum(order[i].tracks for i in spike)
    for i, e in enumerate(order):
        if i in spike:
            out.append(Entity(e.name, e.category, e.tracks, spike_refs * e.tracks / spike_tracks_total))
        else:
            out.append(Entity(e.name, e.category, e.tracks, e.refs * (1.0 - spike_refs) / rest))
    return out


def relocate_spike(order: list[Entity], curve: SeekCurve, window_tracks: int = 800) -> tuple[list[Entity], dict[str, float]]:
    """§3: detect the reference spike — the run of entities, about ``window_tracks`` long, in the
    outer halves of the disk with the most references per track — and swap it with a less
    popular run of about the same length right of the reference centre.

    Returns:
        The new layout and ``seek_before_ms``, ``seek_after_ms``, ``tracks_moved`` (both runs).
    """
    n = len(order)
    tracks = np.array([e.tracks for e in order])
    refs = np.array([e.refs for e in order])
    starts = np.concatenate([[0], np.cumsum(tracks)[:-1]])
    total_tracks = tracks.sum()
    centre = float(np.sum((starts + tracks / 2) * refs) / refs.sum())

    def runs():
        for i in range(n):
            j, size = i, 0
            while j < n and size < window_tracks:
                size += tracks[j]
                j += 1
            yield i, j, size

    # The spike: among runs lying in the outer halves of the disk (their middle more than a
    # quarter of the tracks away from the reference centre), the one with the most references.
    outer = [r for r in runs() if abs(starts[r[0]] + r[2] / 2 - centre) > total_tracks / 4]
    if not outer:
        return list(order), {"seek_before_ms": seek_time(order, curve), "seek_after_ms": seek_time(order, curve), "tracks_moved": 0}
    spike = max(outer, key=lambda r: refs[r[0]:r[1]].sum() / r[2])
    i0, j0, size0 = spike
    # The partner: a run of about the same size starting just right of the centre (the paper
    # moves the spike "just right of center" by a swap with "a relatively less-popular file
    # partition"); of all such runs less popular than the spike, the swap that lowers the seek
    # time most.
    before = seek_time(order, curve)
    best = None
    candidates = [r for r in runs() if starts[r[0]] >= centre and (r[1] <= i0 or r[0] >= j0) and abs(r[2] - size0) <= tracks.max()]
    for i, j, size in sorted(candidates, key=lambda r: starts[r[0]] - centre):
        if refs[i:j].sum() >= refs[i0:j0].sum():
            continue
        a, b = ((i0, j0), (i, j)) if i0 < i else ((i, j), (i0, j0))
        cand = order[: a[0]] + order[b[0] : b[1]] + order[a[1] : b[0]] + order[a[0] : a[1]] + order[b[1] :]
        t = seek_time(cand, curve)
        if t < before and (best is None or t < best[0][0]):
            best = ((t,), i, j, size)
    if best is None:
        return list(order), {"seek_before_ms": before, "seek_after_ms": before, "tracks_moved": 0}
    _, i1, j1, size1 = best
    a, b = (i0, j0), (i1, j1)
    if a[0] > b[0]:
        a, b = b, a
    new = order[: a[0]] + order[b[0] : b[1]] + order[a[1] : b[0]] + order[a[0] : a[1]] + order[b[1] :]
    return new, {"seek_before_ms": seek_time(order, curve), "seek_after_ms": seek_time(new, curve),
                 "tracks_moved": int(size0 + size1)}
