"""Discrete-event simulation (SimPy) of the closed network of :mod:`.queueing`, to cross-check
MVA and to study non-exponential service.

Each transaction: a delay (think + type + transmit + display), then the CPU, then the disk(s);
a transaction visits disk i with probability ``disk_share[i]``. Service times have the station's
mean and a chosen coefficient of variation: 1 (exponential), 0 (deterministic) or, above 1, a
two-phase hyperexponential with balanced means.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import simpy


@dataclass(frozen=True)
class DesResult:
    """Throughput [transactions/min] and mean central-site response time [s] over the measured
    transactions."""

    throughput_per_minute: float
    response_seconds: float
    transactions: int


def _sampler(rng: np.random.Generator, mean: float, cv: float):
    if mean <= 0:
        return lambda: 0.0
    if cv == 1.0:
        return lambda: rng.exponential(mean)
    if cv == 0.0:
        return lambda: mean
    if cv > 1.0:
        # Balanced-means H2: p/μ1 = (1 − p)/μ2, squared CV = c².
        c2 = cv * cv
        p = 0.5 * (1.0 + np.sqrt((c2 - 1.0) / (c2 + 1.0)))
        m1, m2 = mean / (2 * p), mean / (2 * (1 - p))
        return lambda: rng.exponential(m1) if rng.random() < p else rng.exponential(m2)
    # 0 < cv < 1: gamma with shape 1/cv².
    k = 1.0 / (cv * cv)
    return lambda: rng.gamma(k, mean / k)


def simulate_network(
    workstations: int,
    think: float,
    cpu: float,
    disks: Sequence[float],
    disk_share: Sequence[float] | None = None,
    cv: float = 1.0,
    transactions: int = 20_000,
    warmup: int = 2_000,
    seed: int = 1,
) -> DesResult:
    """Simulates the closed network.

    Args:
        workstations: N.
        think: Delay-station mean [s] (exponential).
        cpu: CPU demand per transaction [s].
        disks: Service time per visit of each disk [s].
        disk_share: Probability that a transaction visits each disk (default: all visit disk 0
            only when there is one disk, else equal shares).
        cv: Coefficient of variation of CPU and disk service times.
        transactions: Measured transactions.
        warmup: Transactions discarded first.
        seed: Random seed.
    """
    rng = np.random.default_rng(seed)
    env = simpy.Environment()
    cpu_res = simpy.Resource(env, capacity=1)
    disk_res = [simpy.Resource(env, capacity=1) for _ in disks]
    share = np.asarray(disk_share if disk_share is not None else [1.0 / len(disks)] * len(disks))
    think_s = _sampler(rng, think, 1.0)
    cpu_s = _sampler(rng, cpu, cv)
    disk_s = [_sampler(rng, d, cv) for d in disks]
    done = {"n": 0, "t0": 0.0, "resp": 0.0, "count": 0}
    finished = env.event()

    def station(res, sampler):
        with res.request() as req:
            yield req
            yield env.timeout(sampler())

    def workstation():
        while True:
            yield env.timeout(think_s())
            start = env.now
            yield from station(cpu_res, cpu_s)
            i = int(rng.choice(len(disks), p=share)) if len(disks) > 1 else 0
            yield from station(disk_res[i], disk_s[i])
            done["n"] += 1
            if done["n"] == warmup:
                done["t0"] = env.now
            elif done["n"] > warmup:
                done["resp"] += env.now - start
                done["count"] += 1
                if done["count"] == transactions and not finished.triggered:
                    finished.succeed()

    for _ in range(workstations):
        env.process(workstation())
    env.run(until=finished)
    span = env.now - done["t0"]
    return DesResult(60.0 * done["count"] / span, done["resp"] / done["count"], int(done["count"]))
