"""`scripts/validation-tables.py`: the marked tables of docs/validation.md and their rebuilding."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

import pytest
from script_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
vt = load_script("validation-tables")

OUTPUT = """\
  Title
┏━━━┳━━━┓
┃ a ┃ b ┃
┡━━━╇━━━┩
│ 1 │ 2 │
└───┴───┘
  second
┏━━━┓
┃ c ┃
┡━━━┩
│ 3 │
│ 4 │
└───┘
"""

DOC = """\
# Doc

<!-- table: reclaim reproduce demo #2 -->
```
┃ c ┃
│ 3 │
│ 9 │
```

text

<!-- table: reclaim reproduce demo #1 -->
```
┃ a ┃ b ┃
│ 1 │ 2 │
```
"""


def test_tables_are_header_and_rows_without_borders() -> None:
    assert vt.tables(OUTPUT) == [["┃ a ┃ b ┃", "│ 1 │ 2 │"], ["┃ c ┃", "│ 3 │", "│ 4 │"]]


def test_rebuild_replaces_only_what_changed_and_runs_each_command_once() -> None:
    calls: list[str] = []

    def runner(command: str) -> str:
        calls.append(command)
        return OUTPUT

    new, changed = vt.rebuild(DOC, Path("doc.md"), runner)
    assert calls == ["reclaim reproduce demo"]
    assert changed == ["doc.md:3: `reclaim reproduce demo` #2 changed"]
    assert "│ 4 │" in new and "│ 9 │" not in new
    # The first table was already right, and the rest of the document is untouched.
    assert new.replace("│ 4 │", "│ 9 │") == DOC
    again, changed = vt.rebuild(new, Path("doc.md"), runner)
    assert again == new and changed == []
    # `--only` leaves the other commands' blocks alone and does not run them.
    _, changed = vt.rebuild(DOC, Path("doc.md"), runner, only="other")
    assert changed == [] and calls == ["reclaim reproduce demo"] * 2


def test_bad_markers_and_missing_tables_are_named() -> None:
    with pytest.raises(ValueError, match=r"doc.md:1: the marker is not followed by a fenced block"):
        vt.blocks(["<!-- table: reclaim reproduce demo #1 -->", "text"], Path("doc.md"))
    with pytest.raises(ValueError, match=r"doc.md:1: a malformed marker"):
        vt.blocks(["<!-- table: reproduce demo -->"], Path("doc.md"))
    with pytest.raises(ValueError, match=r"doc.md:2: the fenced block after the marker is not closed"):
        vt.blocks(["<!-- table: reclaim reproduce demo #1 -->", "```", "┃ a ┃"], Path("doc.md"))
    with pytest.raises(ValueError, match=r"doc.md:3: `reclaim reproduce demo` printed 2 tables, not #3"):
        vt.rebuild(DOC.replace("#2", "#3"), Path("doc.md"), lambda c: OUTPUT)


MARKDOWN_DOC = """\
<!-- table: python scripts/validation-markdown.py demo #2 -->
| a | b |
|---|---|
| 1 | 9 |
text
"""


def test_markdown_blocks_are_the_table_lines_and_are_rebuilt_from_markdown_output() -> None:
    lines = MARKDOWN_DOC.split("\n")
    [b] = vt.blocks(lines, Path("doc.md"))
    assert (b.command, b.index, b.start, b.end, b.markdown) == ("python scripts/validation-markdown.py demo", 2, 1, 4, True)
    output = "noise\n| x |\n|---|\n\n| a | b |\n|---|---|\n| 1 | 2 |\nafter\n"
    assert vt.markdown_tables(output) == [["| x |", "|---|"], ["| a | b |", "|---|---|", "| 1 | 2 |"]]
    new, changed = vt.rebuild(MARKDOWN_DOC, Path("doc.md"), lambda c: output)
    assert changed == ["doc.md:1: `python scripts/validation-markdown.py demo` #2 changed"]
    assert new == MARKDOWN_DOC.replace("| 1 | 9 |", "| 1 | 2 |")
    with pytest.raises(ValueError, match=r"doc.md:1: the marker is not followed by a Markdown table"):
        vt.blocks(["<!-- table: python scripts/validation-markdown.py demo #1 -->", "```"], Path("doc.md"))


def test_the_documents_markers_name_real_commands() -> None:
    # Every table of docs/validation.md is marked (the fenced tables a reproduction or
    # `reclaim validate` prints, and the Markdown tables), and each marker names a reproduction
    # or `reclaim validate` with options they take, or a table of scripts/validation-markdown.py.
    from reclaim.reproduce import REPRODUCTIONS

    doc = ROOT / "docs" / "validation.md"
    lines = doc.read_text().split("\n")
    marked = vt.blocks(lines, doc)
    fenced_tables = [i for i in range(1, len(lines)) if lines[i - 1] == "```" and lines[i].startswith("┃")]
    markdown_tables = [i for i in range(1, len(lines)) if lines[i].startswith("|") and not lines[i - 1].startswith("|")]
    assert [b.start for b in marked if not b.markdown] == fenced_tables
    assert [b.start for b in marked if b.markdown] == markdown_tables
    spec = importlib.util.spec_from_file_location("validation_markdown", ROOT / "scripts" / "validation-markdown.py")
    assert spec is not None and spec.loader is not None
    vm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(vm)
    for b in marked:
        if b.markdown:
            assert shlex.split(b.command)[:2] == ["python", "scripts/validation-markdown.py"], b
            assert shlex.split(b.command)[2:] in ([name] for name in vm.TABLES), b
            continue
        argv = shlex.split(b.command)
        assert argv[0] == "reclaim" and argv[1] in ("reproduce", "validate"), b
        if argv[1] == "reproduce":
            assert argv[2] in REPRODUCTIONS, b
        assert set(argv[3 if argv[1] == "reproduce" else 2:]) <= {"--quick"}, b
        assert lines[b.start].startswith("┃"), b
