"""Page ids, as the engine takes them: the one check that both a simulation's workload
(:func:`reclaim.simulate`) and a written trace (:func:`reclaim.traces.write_pages`) go through."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Largest page id a trace holds (page ids are 32-bit; the largest value marks "no page").
MAX_PAGE_ID = (1 << 32) - 2


def page_ids(pages: Any, name: str = "workload") -> np.ndarray:
    """Page ids as ``uint32``, refusing what would wrap or truncate: ids must be whole numbers in
    [0, 2³² − 2].

    >>> page_ids([3, 1, 3]).tolist()
    [3, 1, 3]
    >>> page_ids([0, -1])
    Traceback (most recent call last):
    ...
    ValueError: invalid value for `workload`: page id -1 at index 1 (expected whole numbers in [0, 4294967294])
    """
    if isinstance(pages, (str, bytes, int, float, np.integer, np.floating)) or not hasattr(pages, "__len__"):
        raise TypeError(f"invalid type for `{name}`: {type(pages).__name__} {pages!r:.60} (expected a spec string or a sequence of page ids)")
    arr = np.asarray(pages)
    expected = f"whole numbers in [0, {MAX_PAGE_ID}]"
    if arr.ndim != 1:
        raise ValueError(f"invalid value for `{name}`: an array of shape {arr.shape} (expected a flat sequence of page ids)")
    if arr.size == 0:
        return arr.astype(np.uint32)
    if arr.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))
        if bad.size:
            raise ValueError(f"invalid value for `{name}`: page id {float(arr[bad[0]])!r} at index {bad[0]} (expected {expected})")
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"invalid type for `{name}`: {type(pages).__name__} {pages!r:.60} "
                        f"(expected a sequence of page ids ({expected}), got dtype {arr.dtype})")
    bad = np.flatnonzero((arr < 0) | (arr > MAX_PAGE_ID))
    if bad.size:
        v = arr[bad[0]]
        shown = int(v) if arr.dtype.kind in "iu" else float(v)
        raise ValueError(f"invalid value for `{name}`: page id {shown} at index {bad[0]} (expected {expected})")
    return arr.astype(np.uint32)
