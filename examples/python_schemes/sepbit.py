"""SepBIT's data separation written in Python (``reclaim.Placement``).

Wang et al., FAST '22, §3, in the form of the engine's ``sepbit`` (its doc comment gives the
artifact's details): user writes whose previous write is younger than min(ℓ, F) go to class 0,
the others to class 1; relocated pages of a class-0 victim go to class 2, the others by the age
of their last user write, below 4ℓ, below 16ℓ, or beyond; ℓ is the mean lifespan of each batch
of 16 collected class-0 segments. ``SepBITUser`` separates user writes only (the artifact's UW,
the engine's ``sepbit:separate=user``).

User writes are classified ``batch`` at a time, before any of them is written, so a change of ℓ
by a cleaning inside a batch reaches the next batch; that is the one difference from the
engine's ``sepbit``, which classifies write by write (``tests/test_outside.py`` measures it).

    reclaim simulate --placement examples/python_schemes/sepbit.py:SepBIT --workload hotcold:r=0.9,f=0.1
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import reclaim

NEVER = -1
#: Collected class-0 segments per update of ℓ, and the factor between relocation thresholds.
BATCH, STEP = 16, 4.0


class SepBITUser(reclaim.Placement):
    """SepBIT's user-write separation (classes 0 and 1), relocated pages in one class."""

    display = "SepBIT-UW (Python)"
    source = "Wang et al., FAST '22, §3; SepBIT artifact's UW.java"
    user_streams = 2
    gc_streams = 1
    batch = 4096

    def start(self, segments: int, pages_per_segment: int, logical_pages: int) -> None:
        self.last = np.full(logical_pages, NEVER, dtype=np.int64)
        self.written = 0
        self.fifo = 0
        self.ell = float("inf")
        self.batch_sum, self.batch_len = 0.0, 0
        self.opened = np.zeros(self.user_streams + self.gc_streams, dtype=np.int64)
        self.cls = np.zeros(segments, dtype=np.int8)
        self.born = np.zeros(segments, dtype=np.int64)
        # The writes of the batch in progress, applied to `last` as time passes them.
        self.pending: npt.NDArray[np.uint32] = np.zeros(0, dtype=np.uint32)
        self.pending_t: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.applied = 0

    def _apply(self, upto: int) -> None:
        """Applies the pending writes numbered below ``upto`` (user writes so far)."""
        if self.pending.size == 0:
            return
        end = int(np.searchsorted(self.pending_t, upto, side="right"))
        if end > self.applied:
            # Later writes of a page come later in the slice: the last assignment wins.
            self.last[self.pending[self.applied:end]] = self.pending_t[self.applied:end]
            self.applied = end

    def classify_user(self, pages: npt.NDArray[np.uint32], view: Any) -> npt.NDArray[np.int64]:
        self._apply(1 << 62)
        k = pages.size
        t = view.now + 1 + np.arange(k, dtype=np.int64)  # the engine counts a write before placing it
        # Each write's previous write: earlier in this batch, else as `last` holds it.
        order = np.argsort(pages, kind="stable")
        sp = pages[order]
        same = sp[1:] == sp[:-1]
        prev = self.last[pages]
        prev[order[1:][same]] = t[order[:-1][same]]
        first = prev == NEVER
        written = self.written + np.cumsum(first)
        # F before each write: it grows by one per write up to min(V, ℓ) (see the engine's sepbit).
        cap = np.floor(np.minimum(written, self.ell))
        steps = np.arange(k, dtype=np.float64)
        if self.fifo <= self.ell:
            after = np.minimum(self.fifo + steps + 1, np.maximum(cap, self.fifo))
        else:
            after = np.maximum(self.fifo - steps - 1, np.floor(self.ell))
        before = np.concatenate(([self.fifo], after[:-1]))
        short = ~first & ((t - prev) < np.minimum(self.ell, before))
        self.written = int(written[-1])
        self.fifo = int(after[-1])
        self.pending, self.pending_t, self.applied = pages, t, 0
        return np.where(short, 0, 1)

    def on_seal(self, stream: int, segment: int, now: int) -> None:
        self.cls[segment] = stream
        self.born[segment] = self.opened[stream]
        self.opened[stream] = now

    def on_collect(self, segment: int, now: int) -> None:
        if self.cls[segment] != 0:
            return
        self.batch_sum += now - int(self.born[segment])
        self.batch_len += 1
        if self.batch_len == BATCH:
            self.ell = self.batch_sum / BATCH
            self.batch_sum, self.batch_len = 0.0, 0


class SepBIT(SepBITUser):
    """SepBIT: user writes by their previous write's age against ℓ, relocated pages by their age
    in multiples of ℓ (six classes)."""

    display = "SepBIT (Python)"
    source = "Wang et al., FAST '22, §3; SepBIT artifact's SepBIT.java"
    gc_streams = 4

    def classify_gc(self, victim: int, pages: npt.NDArray[np.uint32], view: Any) -> npt.ArrayLike:
        if self.cls[victim] == 0:
            return np.zeros(pages.size, dtype=np.int64)
        self._apply(view.now)
        age = (view.now - self.last[pages]).astype(np.float64)
        return 1 + (age >= STEP * self.ell) + (age >= STEP * STEP * self.ell)
