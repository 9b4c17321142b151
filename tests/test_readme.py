"""Every example of README.md's "Use" block and of its "Time under cleaning" section runs,
succeeds and finishes in under 30 seconds (the README promises it: a new user runs them and waits). They run in order in one scratch folder
holding only the checkout's ``data/`` and ``examples/``, with no ``../shared`` beside it, as from a
fresh clone: the trace examples use the file the one before them wrote."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECLAIM = Path(sys.executable).parent / "reclaim"
#: The README's promise for each example [s]; a guard against a run that has grown, not a speed
#: target (those live in `reclaim bench`).
LIMIT = 30


#: The sections whose first ``sh`` and ``python`` blocks are run.
SECTIONS = ("Use", "Time under cleaning")


def examples(section: str = "Use") -> list[str]:
    """The commands of the first ``sh`` block under "## <section>", continuations joined."""
    text = (ROOT / "README.md").read_text()
    use = text.split(f"\n## {section}\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", use, re.S)
    assert block, f"README.md has no sh block under ## {section}"
    lines = block.group(1).replace("\\\n", " ").splitlines()
    return [ln.split("  #", 1)[0].strip() for ln in lines if ln.strip()]


def test_the_use_block_holds_the_examples():
    cmds = examples()
    assert len(cmds) >= 10
    assert all(c.startswith(".venv/bin/reclaim ") for c in cmds), cmds


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    # A clone's root as the examples see it: its data and example files, nothing beside it.
    base = tmp_path_factory.mktemp("readme")
    (base / "work").mkdir()
    for name in ("data", "examples"):
        (base / "work" / name).symlink_to(ROOT / name)
    assert not (base / "shared").exists()
    return base / "work"


def test_no_example_reads_beside_the_checkout():
    assert not [c for s in SECTIONS for c in examples(s) if "../" in c]


@pytest.mark.parametrize("cmd", [c for s in SECTIONS for c in examples(s)])
def test_readme_example(cmd, workdir):
    argv = [str(RECLAIM), *shlex.split(cmd)[1:]]
    try:
        res = subprocess.run(argv, cwd=workdir, capture_output=True, text=True, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"README example took over {LIMIT} s: {cmd}")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    # Whatever an example writes goes under out/ (ignored by git), beside the results/ default.
    assert {p.name for p in workdir.iterdir()} <= {"data", "examples", "out", "results"}


@pytest.mark.parametrize("section", SECTIONS)
def test_readme_python_block(section, workdir):
    # Runs after the sh examples (same folder): it reads the trace and the database they wrote.
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", text.split(f"\n## {section}\n", 1)[1], re.S)
    assert block, f"README.md has no python block under ## {section}"
    code = block.group(1)
    res = subprocess.run([sys.executable, "-c", code], cwd=workdir, capture_output=True, text=True, timeout=LIMIT)
    assert res.returncode == 0, res.stdout + res.stderr
