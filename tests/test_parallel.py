"""The worker pool's stop (:mod:`reclaim.parallel`): a signal to the whole process group kills
the workers too, an idle one while it holds the task queue's lock; the stop must still end."""

from __future__ import annotations

import subprocess
import sys
import textwrap

#: Two workers, two items: the first returns at once, so its worker waits for a task inside the
#: task queue's read lock while the second sleeps. Both are then killed as `kill -TERM -PGID`
#: kills them, and the consumer stops (as the parent's SIGTERM handler makes it stop).
SCENARIO = textwrap.dedent("""
    import os, signal, time
    from reclaim import parallel

    def work(x):
        if x == 1:
            time.sleep(60)
        return x

    it = parallel.imap(work, [0, 1], 2)
    index, value = next(it)
    assert value == 0
    time.sleep(0.5)  # the idle worker is back in the task queue's get()
    pids = [int(p) for p in open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split()]
    assert len(pids) == 2, pids
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    time.sleep(0.5)
    it.close()  # the stop: the generator's clean-up terminates the pool
    print("stopped")
""")


def test_the_pool_stops_when_its_workers_died_holding_a_queue_lock() -> None:
    # Before the pool's locks were freed, Pool.terminate waited forever for the lock the dead
    # idle worker held; 30 s is ample for a stop that takes well under a second.
    out = subprocess.run([sys.executable, "-c", SCENARIO], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "stopped"
