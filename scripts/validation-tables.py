#!/usr/bin/env python3
"""Rebuild the tables of ``docs/validation.md`` with the current engine.

A table the document quotes from a command comes right after a marker line::

    <!-- table: reclaim reproduce vanhoudt-table1 #1 -->

naming the command (run from the repository's root, with ``--db`` so that a rerun reads its
simulations back) and which of the tables it prints the block holds (1 for the first). The
command is a reproduction or ``reclaim validate``, whose tables the document quotes as a fenced
block of their header and row lines (the borders dropped), or
``python scripts/validation-markdown.py NAME``, which prints the document's Markdown tables that
no one reproduction prints; a Markdown block is the table's lines (``| … |``) themselves. Each
command runs once; its tables replace the blocks' text. Numbers quoted in the prose are not
touched: a block that changes says which paragraphs to reread.

    scripts/validation-tables.py                 # rebuild every block (full length: long)
    scripts/validation-tables.py --only vanhoudt # the blocks whose command contains this
    scripts/validation-tables.py --check         # rewrite nothing; exit 1 if a block differs
    scripts/validation-tables.py --list          # the markers and their commands, no runs

``make validation-tables`` runs the first form.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- table: (?P<command>(?:reclaim|python scripts/[\w.-]+\.py) [^#]+?) #(?P<index>\d+) -->$")
#: Wide enough that no table of a reproduction wraps.
WIDTH = "250"


@dataclass(frozen=True)
class Block:
    """A marked block: its command, which of the command's tables, and its lines' span."""

    command: str
    index: int
    start: int  # the first line of the table (inside the fence)
    end: int  # the line after the table (the closing fence)
    markdown: bool = False  # a Markdown table (`| … |` lines), not a fenced block

    @property
    def line(self) -> int:
        """The marker's line number (from 1)."""
        return self.start if self.markdown else self.start - 1


def blocks(lines: list[str], doc: Path) -> list[Block]:
    """The marked blocks of a document, each checked to be followed by a fenced block or (for
    ``scripts/validation-markdown.py``) a Markdown table."""
    out = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if m is None:
            if line.startswith("<!-- table:"):
                raise ValueError(f"{doc}:{i + 1}: a malformed marker: {line!r} "
                                 "(expected `<!-- table: reclaim … #N -->` or `<!-- table: python scripts/….py … #N -->`)")
            continue
        if m["command"].startswith("python "):
            if i + 1 >= len(lines) or not lines[i + 1].startswith("|"):
                raise ValueError(f"{doc}:{i + 1}: the marker is not followed by a Markdown table (| … |)")
            last = next((j for j in range(i + 1, len(lines)) if not lines[j].startswith("|")), len(lines))
            out.append(Block(m["command"].strip(), int(m["index"]), i + 1, last, markdown=True))
            continue
        if i + 1 >= len(lines) or lines[i + 1] != "```":
            raise ValueError(f"{doc}:{i + 1}: the marker is not followed by a fenced block (```)")
        end = next((j for j in range(i + 2, len(lines)) if lines[j] == "```"), None)
        if end is None:
            raise ValueError(f"{doc}:{i + 2}: the fenced block after the marker is not closed")
        out.append(Block(m["command"].strip(), int(m["index"]), i + 2, end))
    return out


def tables(output: str) -> list[list[str]]:
    """The tables of a command's output: each one's header (┃) and row (│) lines, in order."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for line in output.splitlines():
        s = line.strip()
        if s.startswith("┏"):
            current = []
            found.append(current)
        elif current is not None and s.startswith(("┃", "│")):
            current.append(s)
        elif s.startswith("└"):
            current = None
    return found


def markdown_tables(output: str) -> list[list[str]]:
    """The Markdown tables of a command's output: each one's lines (`| … |`), in order."""
    found: list[list[str]] = []
    previous = False
    for line in output.splitlines():
        is_row = line.startswith("|")
        if is_row and not previous:
            found.append([])
        if is_row:
            found[-1].append(line.rstrip())
        previous = is_row
    return found


def run(command: str, db: Path) -> str:
    """The output of a reproduction, validation or table command, run with the project's
    environment (its messages and progress go to this script's standard error)."""
    argv = shlex.split(command)
    exe = ROOT / ".venv" / "bin" / argv[0]  # reclaim, or python with the project installed
    argv[0] = str(exe) if exe.exists() else argv[0]
    env = dict(os.environ, COLUMNS=WIDTH, NO_COLOR="1")
    print(f"running: {command}", file=sys.stderr, flush=True)
    proc = subprocess.run([*argv, "--db", str(db)], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"`{command}` failed (exit {proc.returncode}; its messages are above)")
    return proc.stdout


def rebuild(text: str, doc: Path, runner: Callable[[str], str], only: str | None = None) -> tuple[str, list[str]]:
    """The document with its marked blocks rebuilt by ``runner`` (command → output), and a line
    for each block that changed."""
    lines = text.split("\n")
    marked = [b for b in blocks(lines, doc) if only is None or only in b.command]
    outputs = {c: runner(c) for c in dict.fromkeys(b.command for b in marked)}
    changed = []
    for b in reversed(marked):  # from the end, so that earlier spans stay valid
        found = (markdown_tables if b.markdown else tables)(outputs[b.command])
        if not 1 <= b.index <= len(found):
            raise ValueError(f"{doc}:{b.line}: `{b.command}` printed {len(found)} tables, not #{b.index}")
        new = found[b.index - 1]
        if lines[b.start:b.end] != new:
            changed.append(f"{doc}:{b.line}: `{b.command}` #{b.index} changed")
            lines[b.start:b.end] = new
    return "\n".join(lines), list(reversed(changed))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--doc", type=Path, default=ROOT / "docs" / "validation.md")
    ap.add_argument("--db", type=Path, default=ROOT / "results" / "validation.duckdb",
                    help="results database the commands keep their simulations in")
    ap.add_argument("--only", help="only the blocks whose command contains this text")
    ap.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 when a block differs")
    ap.add_argument("--list", action="store_true", help="list the markers; run nothing")
    args = ap.parse_args(argv)
    text = args.doc.read_text()
    if args.list:
        for b in blocks(text.split("\n"), args.doc):
            print(f"{args.doc}:{b.line}: {b.command} #{b.index}")
        return 0
    args.db.parent.mkdir(parents=True, exist_ok=True)
    new, changed = rebuild(text, args.doc, lambda c: run(c, args.db), args.only)
    for line in changed:
        print(line)
    if args.check:
        return 1 if changed else 0
    if changed:
        args.doc.write_text(new)
        print(f"{len(changed)} tables rewritten; reread the prose around them", file=sys.stderr)
    else:
        print("every table as the engine gives it", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
