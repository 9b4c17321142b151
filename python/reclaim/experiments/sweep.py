"""Running a sweep: the tasks not yet in the results database, on local processes or a Dask
cluster, their results written by this process alone as they arrive (DESIGN "Experiments,
results, scale").

Workers return rows; the coordinator writes them in one transaction per batch (at most every
half second), so a sweep killed at any moment keeps every task it wrote and reruns only the
rest. A task that fails is recorded with its error and reported naming its configuration; the
sweep goes on and ends with a non-zero exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import math
import re
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reclaim import parallel
from reclaim.api import simulate
from reclaim.experiments.spec import Experiment, Task, engine_version
from reclaim.experiments.store import ResultStore, row

#: Seconds between two writes to the database while results arrive.
FLUSH_SECONDS = 0.5
#: Work per unit sent to Dask [s]: shorter tasks are batched, since each costs about 1 ms there.
DASK_UNIT_SECONDS = 0.2
#: How long a sweep waits for a running Dask scheduler to have a worker [s] before it says so
#: (without one, its tasks would wait for ever without a word).
DASK_WORKER_WAIT = 60.0


def run_task(task: Task) -> dict[str, Any]:
    """Runs one task; returns ``{"ok": True, "row": …}`` or ``{"ok": False, "error": …}``. Never
    raises for a bad task: the sweep records the error and goes on."""
    started = datetime.datetime.now(datetime.UTC)
    t0 = time.perf_counter()
    host = socket.gethostname()
    try:
        result = simulate(task.params)
    except (ValueError, TypeError, RuntimeError, OSError, LookupError, MemoryError) as e:
        return {"ok": False, "key": task.key, "error": f"{type(e).__name__}: {e}", "host": host, "at": started}
    prov = {"engine": engine_version(), "host": host, "started": started, "wall_seconds": time.perf_counter() - t0}
    return {"ok": True, "key": task.key, "row": row(task.key, task.canonical, result, prov)}


def run_chunk(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """Runs tasks one after another (a unit of work for an executor)."""
    return [run_task(t) for t in tasks]


def _chunks(tasks: Sequence[Task], size: int) -> list[list[Task]]:
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


def local_executor(workers: int | None) -> Callable[[list[list[Task]]], Iterator[list[dict[str, Any]]]]:
    """Local processes, one per core by default (stopped completely on Ctrl-C or SIGTERM)."""

    def run(units: list[list[Task]]) -> Iterator[list[dict[str, Any]]]:
        for _, out in parallel.imap(run_chunk, units, workers):
            yield out

    return run


#: A Dask scheduler's address: ``[scheme://]host:port`` (Dask's schemes over a network).
_ADDRESS = re.compile(r"^(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})/?$")


def check_scheduler(address: str) -> str:
    """A Dask scheduler address as given, once its form is checked.

    >>> check_scheduler("tcp://10.0.0.5:8786")
    'tcp://10.0.0.5:8786'

    Raises:
        ValueError: not of the form ``tcp://host:port`` (also tls, ws, wss, ucx), port in
            [1, 65535].
    """
    m = _ADDRESS.match(address.strip())
    if m is None or not 1 <= int(m.group(3)) <= 65535:
        raise ValueError(f"invalid value for `scheduler`: {address!r} (expected a Dask scheduler address "
                         "tcp://host:port, port in [1, 65535], as `dask scheduler` prints it; tls://, ws://, wss:// and ucx:// also)")
    return address.strip()


def _not_a_scheduler(address: str, e: BaseException) -> RuntimeError:
    """What a failed connection to ``address`` says: unreachable, or something that is not a
    Dask scheduler (a server of another protocol answers with bytes Dask reads as a frame length
    of exabytes: its MemoryError)."""
    if isinstance(e, TimeoutError | asyncio.TimeoutError) or "Timed out" in str(e):
        cause = ("nothing answered as a Dask scheduler within 10 s (or the handshake within 20 s): is it a Dask scheduler, "
                 "running, and the port open?")
    elif isinstance(e, MemoryError | ValueError | TypeError | EOFError) or "Stream is closed" in str(e) or "deserial" in str(e).lower():
        cause = "something answers there, but not a Dask scheduler (another protocol); give the address `dask scheduler` prints"
    elif isinstance(e, OSError):
        cause = f"cannot connect ({e.strerror or e}); is the scheduler running there?"
    else:
        cause = f"not a Dask scheduler, or not one this client can talk to ({type(e).__name__}: {_short(e)})"
    return RuntimeError(f"invalid value for `scheduler`: {address}: {cause}")


#: Seconds a connection to a scheduler may take in all, its handshake included: a server that
#: accepts the connection and then says nothing Dask understands (an HTTP server) holds Dask's
#: client past its own 10 s timeout, for minutes.
CONNECT_DEADLINE = 20.0


def _connect(client: Any, address: str) -> Any:
    """A Dask client of the scheduler at ``address``, or the error of its connection; a
    connection still pending after :data:`CONNECT_DEADLINE` seconds is a :class:`TimeoutError`
    (the attempt is left to a daemon thread, which the process does not wait for)."""
    import threading

    got: dict[str, Any] = {}

    def attempt() -> None:
        try:
            got["client"] = client(address, timeout="10s")
        except BaseException as e:  # handed to the caller
            got["error"] = e

    t = threading.Thread(target=attempt, name="dask-connect", daemon=True)
    t.start()
    t.join(CONNECT_DEADLINE)
    if t.is_alive():
        raise TimeoutError(f"no Dask handshake within {CONNECT_DEADLINE:.0f} s")
    if "error" in got:
        raise got["error"]
    return got["client"]


def _short(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__


def dask_executor(scheduler: str | None = None, local_workers: int | None = None) -> Callable[[list[list[Task]]], Iterator[list[dict[str, Any]]]]:
    """Dask distributed: a running scheduler (``tcp://host:port``) or a LocalCluster of
    ``local_workers`` single-threaded worker processes started for the sweep.

    Raises:
        ValueError: the scheduler's address is not of Dask's form.
        RuntimeError: Dask is not installed (``pip install '.[dask]'``), or the scheduler
            cannot be reached or is not a Dask scheduler.
    """
    if scheduler is not None:
        check_scheduler(scheduler)
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise RuntimeError("Dask is not installed: `pip install '.[dask]'` from the checkout, or dask[distributed]") from None

    def run(units: list[list[Task]]) -> Iterator[list[dict[str, Any]]]:
        cluster = None
        if scheduler is None:
            n = parallel.workers(local_workers)
            # No dashboard, and the scheduler's HTTP server on a free port: on Dask's 8787, taken by
            # another cluster, it warns (an error under the tests' warnings-as-errors).
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                   scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})
            address = cluster
        else:
            address = scheduler  # type: ignore[assignment]
        try:
            client = Client(address, timeout="10s") if scheduler is None else _connect(Client, scheduler)
        except Exception as e:  # whatever the handshake with a server that is not Dask's raises
            if cluster is not None:
                cluster.close()
                raise
            raise _not_a_scheduler(str(scheduler), e) from None
        try:
            if scheduler is not None:
                try:
                    client.wait_for_workers(1, timeout=DASK_WORKER_WAIT)
                except TimeoutError:
                    raise RuntimeError(f"the Dask scheduler at {scheduler} has no worker after {DASK_WORKER_WAIT:.0f} s: start some "
                                       f"(`dask worker {scheduler}`) and run again; the sweep runs only what is missing") from None
            futures = client.map(run_chunk, units, pure=False)
            try:
                # The client's own log of its failed reconnections is a traceback; the error
                # below says what happened.
                with _quiet("distributed.client"):
                    for fut in as_completed(futures):
                        yield fut.result()
            except Exception as e:
                # distributed's CommClosedError is an OSError; its futures are cancelled
                # (FutureCancelledError) when the client loses the scheduler.
                if isinstance(e, OSError | TimeoutError) or type(e).__name__ == "FutureCancelledError":
                    where = f"at {scheduler}" if scheduler is not None else "of the local cluster"
                    raise RuntimeError(f"lost the Dask scheduler {where} during the sweep ({_short(e)}); every task written "
                                       "before is kept: run again for the rest") from None
                if type(e).__name__ == "KilledWorker":
                    raise RuntimeError(f"Dask workers died running the same tasks, more often than Dask retries them ({_short(e)}; "
                                       "out of memory?); every task written before is kept: run again for the rest") from None
                raise
            finally:
                _quietly(client.cancel, futures)
        finally:
            _quietly(client.close)
            if cluster is not None:
                _quietly(cluster.close)

    return run


@contextlib.contextmanager
def _quiet(logger: str) -> Iterator[None]:
    """Only a critical record of ``logger`` while inside."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)


def _quietly(fn: Callable[..., Any], *args: Any) -> None:
    """A clean-up that may fail once the scheduler is gone: its error would hide the one that
    says so."""
    try:
        with _quiet("distributed.client"):
            fn(*args)
    except Exception:  # noqa: BLE001 (best effort; the sweep's own error or result stands)
        pass


@dataclass
class SweepReport:
    """What a sweep did."""

    tasks: int = 0
    already_done: int = 0
    ran: int = 0
    failed: list[tuple[Task, str]] = field(default_factory=list)
    seconds: float = 0.0


def pending(experiments: Sequence[Experiment], store: ResultStore,
            on_expand: Callable[[int, int], None] | None = None) -> tuple[list[Task], list[Task], dict[str, str]]:
    """All tasks (each once), those not yet in the database, and the sweep each task is first
    listed in; registers every task with its sweeps. ``on_expand(made, at_most)`` is called
    every thousand tasks made (``at_most``: the product of the axes)."""
    everything: list[Task] = []
    first: dict[str, str] = {}
    at_most = sum(e.size for e in experiments)
    made = 0
    for e in experiments:
        ts = []
        for t in e.iter_tasks():
            ts.append(t)
            made += 1
            if on_expand is not None and made % 1000 == 0:
                on_expand(made, at_most)
        store.register(e.name, [(t.key, t.point) for t in ts])
        for t in ts:
            if t.key not in first:
                first[t.key] = e.name
                everything.append(t)
    done = store.done()
    return everything, [t for t in everything if t.key not in done], first


def run(experiments: Sequence[Experiment], db: str | Path, *, workers: int | None = None, scheduler: str | None = None,
        dask_local: int | None = None, chunk: int | None = None, on_progress: Callable[[int, int, int], None] | None = None,
        on_failure: Callable[[Task, str], None] | None = None, on_write: Callable[[int, int, int], None] | None = None,
        into_foreign: bool = False, on_expand: Callable[[int, int], None] | None = None) -> SweepReport:
    """Runs every task of ``experiments`` that is not yet in ``db``.

    Args:
        experiments: Parsed experiment files.
        db: The results database (created if missing).
        workers: Local worker processes (one per core by default).
        scheduler: A Dask scheduler address: run there instead of locally.
        dask_local: Start a Dask LocalCluster of this many workers and run there.
        chunk: Tasks per unit of work (default: 1 locally; on Dask enough tasks for about
            0.2 s, from the first results).
        on_progress: Called as ``(done, failed, total)`` after each unit.
        on_failure: Called with each failed task and its error.
        on_write: Called as ``(written, failed, total)`` after each transaction: tasks of this
            run in the database so far.
        into_foreign: Add reclaim's tables to a DuckDB file that holds another program's
            tables (refused otherwise).
        on_expand: Called as ``(made, at_most)`` every thousand tasks made from the
            experiments, before any runs.

    Raises:
        ValueError: ``scheduler`` is not a Dask scheduler address.
        ForeignDatabaseError: ``db`` holds another program's tables.
        WriteError: the database cannot be written (a full disk); the rows written before are
            kept.
    """
    if scheduler is not None:
        check_scheduler(scheduler)
    t0 = time.perf_counter()
    report = SweepReport()
    with ResultStore(db, into_foreign=into_foreign) as store:
        everything, todo, first = pending(experiments, store, on_expand)
        report.tasks, report.already_done = len(everything), len(everything) - len(todo)
        if not todo:
            report.seconds = time.perf_counter() - t0
            return report
        execute(store, todo, first, report, workers=workers, scheduler=scheduler, dask_local=dask_local, chunk=chunk,
                on_progress=on_progress, on_failure=on_failure, on_write=on_write)
    report.seconds = time.perf_counter() - t0
    return report


def execute(store: ResultStore, todo: Sequence[Task], sweep_of: Mapping[str, str], report: SweepReport, *,
            workers: int | None = None, scheduler: str | None = None, dask_local: int | None = None, chunk: int | None = None,
            on_progress: Callable[[int, int, int], None] | None = None, on_failure: Callable[[Task, str], None] | None = None,
            on_write: Callable[[int, int, int], None] | None = None) -> None:
    """Runs ``todo`` on the chosen executor and writes each result into ``store`` as it arrives
    (one transaction per batch); counts into ``report`` (see :func:`run` for the options)."""
    use_dask = scheduler is not None or dask_local is not None
    if use_dask:
        executor = dask_executor(scheduler, dask_local)
        size = chunk or _dask_chunk(todo)
    else:
        executor = local_executor(workers)
        size = chunk or 1
    by_key = {t.key: t for t in todo}
    rows: list[dict[str, Any]] = []
    fails: list[dict[str, Any]] = []
    last = time.monotonic()
    done = 0

    def flush() -> None:
        if not rows and not fails:
            return
        store.write(rows, fails)
        rows.clear()
        fails.clear()
        if on_write:
            on_write(report.ran, len(report.failed), len(todo))

    try:
        for out in executor(_chunks(todo, size)):
            for r in out:
                done += 1
                if r["ok"]:
                    rows.append(r["row"])
                    report.ran += 1
                else:
                    task = by_key[r["key"]]
                    report.failed.append((task, r["error"]))
                    fails.append({"key": task.key, "sweep": sweep_of[task.key], "config": task.canonical, "point": task.point,
                                  "error": r["error"], "host": r["host"], "at": r["at"]})
                    if on_failure:
                        on_failure(task, r["error"])
            if time.monotonic() - last >= FLUSH_SECONDS:
                flush()
                last = time.monotonic()
            if on_progress:
                on_progress(done, len(report.failed), len(todo))
    finally:
        # Whatever stops the sweep (Ctrl-C, SIGTERM, an error), what arrived is kept; after a
        # write that failed (a full disk) the next would fail the same way.
        if not store.broken:
            flush()


def _dask_chunk(todo: Sequence[Task]) -> int:
    """Tasks per Dask unit: enough for about :data:`DASK_UNIT_SECONDS` of work, from one task run
    here first (its result is not kept; the sweep runs it again)."""
    probe = run_task(todo[0])
    seconds = probe["row"]["task"]["wall_seconds"] if probe["ok"] else DASK_UNIT_SECONDS
    return max(1, min(len(todo) // 4 or 1, math.ceil(DASK_UNIT_SECONDS / max(seconds, 1e-6))))


@dataclass
class Plan:
    """What a sweep would do."""

    tasks: int
    done: int
    experiments: list[tuple[str, int]]
    seconds_estimate: float | None
    calibration: str


#: Pending tasks whose total user writes the estimate of :func:`plan` reads (evenly spaced
#: through the expansion; every task when there are no more). A simulator's construction takes
#: about 0.1 ms, the expansion of a task 40-100 µs: the sample costs a tenth of a second.
PLAN_SAMPLE = 1000


def plan(experiments: Sequence[Experiment], db: str | Path | None, workers: int | None = None, calibrate: bool = True,
         on_expand: Callable[[int, int], None] | None = None) -> Plan:
    """Task count, what is already in ``db``, and an estimated time from a short calibration
    run: one reduced copy of the largest configuration of a sample of the pending tasks (one
    logical capacity of warm-up and of measured writes) gives user writes per second; the
    sample's mean total user writes (warm-up and measured, from the engine) times the pending
    tasks, divided by that rate and shared among the workers, is the estimate.

    The tasks are expanded one at a time and only their keys are kept (and the sample), so that
    memory stays a few hundred bytes a task; ``on_expand(expanded, at_most)`` is called every
    thousand tasks (``at_most``: the product of the axes, before duplicates collapse).

    Raises:
        RuntimeError: ``db`` is another program's database.
    """
    from reclaim import _core
    from reclaim.experiments.store import done_keys

    done = done_keys(db) if db is not None else set()
    at_most = sum(e.size for e in experiments)
    step = max(1, at_most // PLAN_SAMPLE)
    seen: set[str] = set()
    per: list[tuple[str, int]] = []
    sample: list[Task] = []
    pending = expanded = 0
    for e in experiments:
        own = 0  # the experiment's tasks (iter_tasks yields each once)
        for t in e.iter_tasks():
            expanded += 1
            if on_expand is not None and expanded % 1000 == 0:
                on_expand(expanded, at_most)
            own += 1
            if t.key in seen:
                continue
            seen.add(t.key)
            if t.key not in done:
                if pending % step == 0:
                    sample.append(t)
                pending += 1
        per.append((e.name, own))
    if on_expand is not None:
        on_expand(expanded, expanded)
    total = len(seen)
    if not pending or not calibrate:
        return Plan(total, total - pending, per, 0.0 if not pending else None, "")
    # Total user writes of each sampled task, from the engine (one construction per config
    # without its seed: the seed does not change the count).
    ident = {t.key: json.dumps({k: v for k, v in json.loads(t.canonical).items() if k != "seed"}, sort_keys=True) for t in sample}
    totals: dict[str, int] = {}
    refused: dict[str, str] = {}
    for t in sample:
        if ident[t.key] not in totals and ident[t.key] not in refused:
            try:
                totals[ident[t.key]] = _core.Simulator(t.canonical).progress()[1]
            except (ValueError, RuntimeError, MemoryError) as e:
                # A task this machine cannot run (a device larger than its memory) fails alone
                # in the sweep; the estimate is of the others.
                refused[ident[t.key]] = f"{t.describe()}: {e}"
    runnable = [t for t in sample if ident[t.key] in totals]
    cannot = ""
    if refused:
        share = 1 - len(runnable) / len(sample)
        cannot = f"; {share:.0%} of the sampled tasks cannot run here and are left out (first: {next(iter(refused.values()))})"
    if not runnable:
        return Plan(total, total - pending, per, None, f"no estimate: none of the sampled tasks can run here (first: {next(iter(refused.values()))})")
    writes = sum(totals[ident[t.key]] for t in runnable) / len(sample) * pending
    biggest = max(runnable, key=lambda t: totals[ident[t.key]])
    probe = {**biggest.params, "warmup": "fill+1x", "writes": "1x"}
    if isinstance(probe.get("workload"), str) and probe["workload"].startswith("trace:"):
        # One pass of the trace after a short warm-up (Li et al.'s method: `precondition`'s passes
        # are not known before the run).
        probe.update(method="li", writes="1p")
    start = time.perf_counter()
    try:
        r = simulate(probe)
    except (ValueError, RuntimeError, MemoryError) as e:
        return Plan(total, total - pending, per, None, f"no estimate: its calibration run on {biggest.describe() or 'the base configuration'} failed: {e}")
    seconds = time.perf_counter() - start
    probe_writes = _core.Simulator(json.dumps(probe)).progress()[1]
    rate = probe_writes / max(seconds, 1e-9)
    n = parallel.workers(workers)
    estimate = writes / rate / min(n, pending)
    shown = f"{len(sample):,} sampled tasks" if len(sample) < pending else "the pending tasks"
    note = (f"calibrated on {biggest.describe() or 'the base configuration'}, the largest of {shown}: {rate / 1e6:.2f}M user "
            f"writes/s (WA {r.wa:.2f}) on one core, {n} workers{cannot}")
    return Plan(total, total - pending, per, estimate, note)
