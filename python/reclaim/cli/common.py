"""What every sub-command shares: the application, its one error path, the output console and
the formatting of numbers and JSON."""

from __future__ import annotations

import json
import math
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import numpy as np
import typer
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from reclaim import parallel
from reclaim.api import PARAMETERS
from reclaim.progress import console, plain_console


class CliError(Exception):
    """A user error the command line reports in one line (exit status 2)."""


def _report(message: str) -> None:
    # The message is text: a path `tpcc[v2].trace` or a range `[tracks, 2³²]` is not markup.
    console.print(Text.assemble(("error:", "bold red"), " ", message), soft_wrap=True, highlight=False)


#: The parser's exceptions: click's, or the copy of click that newer Typer releases carry.
_parser_errors: Any = sys.modules[typer.BadParameter.__module__]
#: End of input at a prompt (click's Abort, or Typer's own in the releases that carry click).
_ABORT: Any = (typer.Abort, getattr(_parser_errors, "Abort", typer.Abort))


def _shows_help(e: Exception) -> bool:
    # click >= 8.2 raises NoArgsIsHelpError for a group called without arguments.
    kind = getattr(_parser_errors, "NoArgsIsHelpError", None)
    return kind is not None and isinstance(e, kind)


class _OneErrorPath(TyperGroup):
    """Every command runs inside :meth:`invoke`: the one place where errors become messages and
    exit statuses; :meth:`main` gives the parser's usage errors (also status 2) the same
    ``error:`` prefix."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # The parser's own signature varies between click and Typer releases: pass it through.
        standalone = kwargs.get("standalone_mode", True)
        kwargs["standalone_mode"] = False
        if not isinstance(sys.stdout, _WatchedStdout):
            sys.stdout = _WatchedStdout(sys.stdout)  # type: ignore[assignment]
        if not standalone:
            return super().main(*args, **kwargs)
        try:
            code = super().main(*args, **kwargs)
        except _parser_errors.UsageError as e:
            if _shows_help(e):
                # `reclaim` alone (no_args_is_help): the help is the message, not an error.
                e.show()
                sys.exit(e.exit_code)
            if e.ctx is not None:
                typer.echo(e.ctx.get_usage(), err=True)
                typer.echo(f"Try '{e.ctx.command_path} {e.ctx.help_option_names[0]}' for help.\n", err=True)
            _report(e.format_message())
            sys.exit(e.exit_code)
        except _parser_errors.ClickException as e:
            _report(e.format_message())
            sys.exit(e.exit_code)
        except _ABORT:
            console.print("aborted")
            sys.exit(1)
        except KeyboardInterrupt:  # before or after a command's own error path (while parsing)
            console.print("interrupted")
            sys.exit(130)
        except parallel.Terminated:
            console.print("terminated")
            sys.exit(143)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except KeyboardInterrupt:
            console.print("interrupted")
            raise typer.Exit(130) from None
        except parallel.Terminated:
            console.print("terminated")
            raise typer.Exit(143) from None
        except CliError as e:
            _report(str(e))
            raise typer.Exit(2) from None
        except Exception as e:
            stopped = parallel.stopped_by()
            if stopped is None:
                _fail(e)
            # What a stop signal interrupted may raise its own error in place of the signal's
            # (DuckDB's "Query interrupted"): the stop, not the error, is what happened.
            console.print("interrupted" if stopped == signal.SIGINT else "terminated")
            raise typer.Exit(128 + stopped) from None


def _fail(e: Exception) -> NoReturn:
    """Reports an error that no stop signal caused: status 2 for bad values, unreadable files and
    runs that cannot proceed (the message says which), 1 for a bug (said so, without a traceback
    unless ``--debug``)."""
    if DEBUG:
        raise e
    if isinstance(e, BrokenPipeError) and e.filename is None and _stdout_failed():
        # The reader closed the pipe (`| head`): it has what it wanted. Quiet, with status 1 as
        # click ends a command whose output meets a closed pipe; what is left unflushed goes
        # nowhere.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(1) from None
    if isinstance(e, OSError) and e.filename is None and _stdout_failed():
        _report(f"cannot write the output: standard output: {e.strerror or e}")
        raise typer.Exit(2) from None
    if isinstance(e, (ValueError, TypeError, OSError, RuntimeError, LookupError)):
        text = str(e) or type(e).__name__
        if isinstance(e, OSError) and e.filename is not None:
            text = f"{e.filename}: {e.strerror or e}"
        _report(text)
        raise typer.Exit(2) from None
    _report(f"internal error ({type(e).__name__}: {e}); run again with --debug for the traceback")
    raise typer.Exit(1) from None


class _WatchedStdout:
    """Standard output, remembering whether a write to it failed: an OSError carries no file
    name when a write to an open file fails, and Python drops what it could not flush, so that
    only this tells a full ``> /dev/full`` or a closed pipe from another file's error."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.failed = False

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except OSError:
            self.failed = True
            raise

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError:
            self.failed = True
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _stdout_failed() -> bool:
    """Whether the command's last error was a failed write to standard output."""
    return bool(getattr(sys.stdout, "failed", False))


app = typer.Typer(
    cls=_OneErrorPath,
    help="reclaim: space reclamation (garbage collection) in log-structured storage.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help text: units in square brackets are text, not markup.
    rich_markup_mode=None,
)
# Tables are not squeezed to 80 columns when the output goes to a file or a pipe; what they hold
# (paths, trace and volume names, database values) is printed as it is.
out = plain_console(width=None if sys.stdout.isatty() else 200)

#: Set by ``--debug``: errors show their traceback.
DEBUG = False
#: Where sweeps, reproductions and validations keep their results unless `--db` says otherwise.
DEFAULT_DB = Path("results") / "reclaim.duckdb"


def fail(message: str) -> NoReturn:
    """Stops the command with an error message and exit status 2."""
    raise CliError(message)


def _finite(v: Any) -> Any:
    """NaN and infinities as ``null``: JSON has no such numbers."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    if isinstance(v, np.ndarray):
        return _finite(v.tolist())
    if isinstance(v, np.generic):
        return _finite(v.item())
    return v


def number(name: str, v: Any, other: str = ".4f") -> str:
    """A metric as printed in tables: counts with thousands separators, rates to the whole unit,
    seconds to the millisecond, other numbers (ratios) in the format ``other``, four places.

    >>> number("page_writes_per_second", 39274373.2445), number("seconds", 1.23456), number("wa", 2.0), number("erases", 12345)
    ('39,274,373', '1.235', '2.0000', '12,345')
    """
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return f"{int(v):,}"
    if not isinstance(v, (float, np.floating)):
        return str(v)
    if not math.isfinite(v):
        return "n/a" if v != v else str(v)
    if name.endswith("_per_second"):
        return f"{v:,.0f}"
    if name == "seconds":
        return f"{v:.3f}"
    return format(v, other)


def print_json(data: Any) -> None:
    """Prints strict JSON (no NaN) on stdout."""
    out.print_json(json.dumps(_finite(data), allow_nan=False, default=str))


def ph(name: str, note: str = "") -> str:
    """Option help of a simulation parameter, from its one definition (``reclaim._core``)."""
    p = PARAMETERS[name]
    unit = f" [{p['unit']}]" if p["unit"] else ""
    extra = f" {note}" if note else ""
    return f"{p['help']}{unit}{extra} Values: {p['range']}. Default: {p['default']}."


def _version(value: bool) -> None:
    if value:
        from reclaim import _core

        typer.echo(f"reclaim {_core.__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="On an error, show the Python traceback.")] = False,
) -> None:
    """reclaim: space reclamation (garbage collection) in log-structured storage."""
    global DEBUG
    DEBUG = debug


def emit(as_json: bool, data: dict[str, Any], title: str) -> None:
    """Prints `data` as JSON, or as a table of quantities under `title`."""
    if as_json:
        print_json(data)
        return
    t = Table(title=title)
    t.add_column("quantity")
    t.add_column("value", justify="right")
    for k, v in data.items():
        if isinstance(v, float):
            # Model outputs to six significant digits (a residual of 1e-11 stays readable).
            t.add_row(k, number(k, v, other=".6g"))
        elif isinstance(v, list) and len(v) > 8:
            t.add_row(k, f"[{len(v)} values]")
        else:
            t.add_row(k, str(v))
    out.print(t)
