"""The ``reclaim`` command line: a thin layer over the Python API, one module per group of
sub-commands (``run``: simulate, schemes, demo, bench, reproduce, validate; ``sweep``: sweep,
results, report; ``trace``; ``layout``; ``model``), all on one application (``common``).

Every error reaches the user through one path (:class:`~reclaim.cli.common._OneErrorPath`): a bad
value exits with status 2 and a message naming the parameter, the value and what was expected;
Ctrl-C exits with 130 and SIGTERM with 143, with every worker process stopped; ``--debug`` shows
the traceback.
"""

from __future__ import annotations

from reclaim import parallel
from reclaim.cli import layout, model, run, sweep, trace
from reclaim.cli.common import CliError, app, fail, number, print_json

__all__ = ["CliError", "app", "fail", "main", "number", "print_json"]
# The sub-command modules register their commands on `app` when imported.
_COMMANDS = (run, sweep, trace, layout, model)


def main() -> None:
    """Entry point of the ``reclaim`` script."""
    parallel.stop_on_sigterm()
    app()
