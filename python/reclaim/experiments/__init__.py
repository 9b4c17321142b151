"""Sweeps: experiment files, their tasks, executors and the results database.

>>> from reclaim.experiments import parse
>>> e = parse({"axes": {"policy": ["fifo", "greedy"], "spare": {"start": 0.1, "stop": 0.2, "step": 0.05}}, "replications": 2})
>>> e.size, [p["spare"] for p in e.points()][:3]
(12, [0.1, 0.15, 0.2])
"""

from reclaim.experiments.spec import Experiment, ExperimentError, Task, engine_version, load, make_task, parse
from reclaim.experiments.store import (
    SCHEMA_VERSION,
    EmptyDatabaseError,
    ForeignDatabaseError,
    Query,
    ResultStore,
    SchemaError,
    WriteError,
    export,
    frame,
    migrate,
    query,
)
from reclaim.experiments.sweep import Plan, SweepReport, plan, run

__all__ = [
    "EmptyDatabaseError",
    "Experiment",
    "ExperimentError",
    "ForeignDatabaseError",
    "Plan",
    "Query",
    "ResultStore",
    "SCHEMA_VERSION",
    "SchemaError",
    "SweepReport",
    "Task",
    "WriteError",
    "engine_version",
    "export",
    "frame",
    "load",
    "make_task",
    "migrate",
    "parse",
    "plan",
    "query",
    "run",
]
