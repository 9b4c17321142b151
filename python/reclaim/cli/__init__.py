"""The ``reclaim`` command line: a thin layer over the Python API, one module per group of
sub-commands (``run``: simulate, schemes, demo, bench, reproduce, validate; ``sweep``: sweep,
results, report; ``trace``; ``layout``; ``model``; ``advise``), all on one application (``common``).

Every error reaches the user through one path (:class:`~reclaim.cli.common._OneErrorPath`): a bad
value exits with status 2 and a message naming the parameter, the value and what was expected;
Ctrl-C exits with 130 and SIGTERM with 143, with every worker process stopped; ``--debug`` shows
the traceback.
"""

from __future__ import annotations

import os
import signal
import sys

from reclaim import parallel
from reclaim.cli import advise, layout, model, run, sweep, trace
from reclaim.cli.common import CliError, app, fail, number, print_json
from reclaim.progress import console

__all__ = ["CliError", "app", "fail", "main", "number", "print_json"]
# The sub-command modules register their commands on `app` when imported.
_COMMANDS = (run, sweep, trace, layout, model, advise)


def main() -> None:
    """Entry point of the ``reclaim`` script."""
    restore = parallel.stop_on_signals()
    said = False
    try:
        app()
    except KeyboardInterrupt:  # while Typer builds the command, before its error path runs
        pass
    except parallel.Terminated:
        pass
    except SystemExit as e:
        if parallel.stopped_by() is None:
            restore()
            raise
        said = e.code == 128 + (parallel.stopped_by() or 0)
    stopped = parallel.stopped_by()
    if stopped is None:
        restore()
        return
    if not said:
        console.print("interrupted" if stopped == signal.SIGINT else "terminated")
    # Stopped by a signal: whatever the command's own outcome (an extension may swallow the
    # interrupt it was given, "Exception ignored in ..."), the status says so. The command's
    # clean-up has run (workers stopped, databases closed); exit now, without the interpreter's
    # finalisation, which would re-raise a recorded SIGINT (status -2) in place of 130.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(128 + stopped)
