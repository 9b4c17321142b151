"""Simulations on every core, stopped promptly and completely.

Worker processes ignore SIGINT (the terminal sends it to the whole process group; only the parent
decides) and ask the kernel to kill them when the parent dies, whatever kills it (Linux
``PR_SET_PDEATHSIG``), so that no worker outlives the command. The parent turns SIGTERM into the
same clean stop as Ctrl-C: the pool is terminated before the exception leaves :func:`imap`.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.pool
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from threadpoolctl import threadpool_limits

T = TypeVar("T")
R = TypeVar("R")

_PR_SET_PDEATHSIG = 1


class Terminated(BaseException):
    """SIGTERM received: the command stops as on Ctrl-C (exit status 143)."""


_stopped_by: int | None = None
_repeats = 0


def _stop(signum: int, frame: Any) -> None:
    global _stopped_by, _repeats
    if _stopped_by is not None:
        # Already stopping: a second signal must not interrupt the clean-up of the first (an
        # extension may see one signal twice); a third is a user who will not wait.
        _repeats += 1
        if _repeats >= 2:
            os._exit(128 + _stopped_by)
        return
    _stopped_by = signum
    if signum == signal.SIGTERM:
        raise Terminated()
    raise KeyboardInterrupt()


def stop_on_signals() -> Callable[[], None]:
    """Makes SIGINT raise :class:`KeyboardInterrupt` and SIGTERM :class:`Terminated` in the main
    thread, once; :func:`stopped_by` then names the signal (the command line installs this).
    Returns the function that puts the previous handlers back and forgets the signal."""
    global _stopped_by, _repeats
    _stopped_by, _repeats = None, 0
    before = {s: signal.signal(s, _stop) for s in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        global _stopped_by, _repeats
        for s, handler in before.items():
            signal.signal(s, handler)
        _stopped_by, _repeats = None, 0

    return restore


def stopped_by() -> int | None:
    """The signal that stopped the command, if one did.

    An extension interrupted by the signal may raise an error of its own in place of
    :class:`KeyboardInterrupt` (DuckDB: ``RuntimeError: Query interrupted``; an extension module
    interrupted while it loads: ``ImportError``): the command line reads this to report such an
    error as the stop it is.
    """
    return _stopped_by


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the parent's terminate() still applies
        pass
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)
    # One BLAS thread per worker: the workers already fill the cores, and OpenBLAS's extra
    # threads spin waiting for work. `reclaim validate --quick`'s twelve double-frontier
    # mean-field solves on two workers: 39.6 s with OpenBLAS's default threads, 17.7 s with one.
    threadpool_limits(1)


def workers(requested: int | None) -> int:
    """The number of worker processes: ``requested``, or one per core.

    Raises:
        ValueError: ``requested`` is not a whole number ≥ 1.
    """
    if requested is None:
        return os.cpu_count() or 1
    if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
        raise ValueError(f"invalid value for `workers`: {requested!r} (expected a whole number of processes ≥ 1)")
    return requested


def imap(fn: Callable[[T], R], items: Sequence[T], n_workers: int | None = None) -> Iterator[tuple[int, R]]:
    """``(index, fn(item))`` as each finishes, on ``n_workers`` processes (one per core by default).

    On any exception in the caller or a worker, including Ctrl-C and SIGTERM, every worker is
    terminated before the exception propagates.
    """
    n = min(workers(n_workers), max(1, len(items)))
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(processes=n, initializer=_worker_init)
    try:
        yield from pool.imap_unordered(_Indexed(fn), list(enumerate(items)))
        pool.close()
    except BaseException:
        _terminate(pool)
        raise
    finally:
        pool.terminate()
        pool.join()


def _terminate(pool: Any) -> None:
    """``pool.terminate()``, safe when workers died inside one of the pool's queue locks.

    A signal sent to the whole process group (a terminal's Ctrl-C is ignored by the workers, but
    ``kill -TERM -PGID`` and a batch system's stop are not) kills an idle worker while it holds
    the task queue's read lock, waiting for a task; ``Pool.terminate`` then waits for that lock
    forever. So the pool stops making workers, every worker is killed and reaped, and a lock that
    is still held, whose holder is gone, is released before the pool's own clean-up runs.
    """
    handler = getattr(pool, "_worker_handler", None)
    if handler is not None:
        # Pool.terminate's first step, taken early: no worker replaces a killed one.
        handler._state = multiprocessing.pool.TERMINATE
        pool._change_notifier.put(None)
        handler.join(5)
    for p in getattr(pool, "_pool", []):
        if p.exitcode is None:
            p.kill()
        p.join(5)
    for lock in (getattr(pool._inqueue, "_rlock", None), getattr(pool._outqueue, "_wlock", None)):
        if lock is not None:
            # Taken here, or held by a worker that is gone: free either way.
            lock.acquire(False)
            lock.release()
    pool.terminate()


class _Indexed:
    """``fn`` applied to the item of an ``(index, item)`` pair, keeping the index (picklable)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn

    def __call__(self, pair: tuple[int, Any]) -> tuple[int, Any]:
        return pair[0], self.fn(pair[1])
