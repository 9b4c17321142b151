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
