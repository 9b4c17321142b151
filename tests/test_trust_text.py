"""Text from a user is printed as it is: paths, trace and volume names, database values and error
messages that hold `[…]`, `[/]` or `:x:` are neither markup nor emoji codes, whatever the command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import reclaim
from reclaim.cli import app
from reclaim.cli.common import out
from reclaim.progress import progress_bar
from reclaim.reproduce.common import Reproduction
from typer.testing import CliRunner

runner = CliRunner()

#: Names rich would read as markup (`[v2]` a style, `[/]` a closing tag with nothing to close,
#: `[bold]` a style) or as an emoji code (`:x:` is ❌).
ODD = ("[v2]", "[/]", ":x:", "[bold]")


def flat(text: str) -> str:
    """The text with every run of white space as one space (tables wrap long titles)."""
    return " ".join(text.split())


def squash(text: str) -> str:
    """The text without white space (a table's title wraps at its width, within a long path too)."""
    return "".join(text.split())


def mqsim(path: Path, volumes: int = 1, requests: int = 400) -> Path:
    """A small MQSim trace: `volumes` devices, each writing 50 pages of 4 KiB over and over."""
    path.write_text("".join(f"{1000 * i} {i % volumes} {8 * (i % 50)} 8 0\n" for i in range(requests)))
    return path


@pytest.fixture
def odd_dir(tmp_path: Path) -> Path:
    """A folder whose path holds `[/]` and `:x:` (a `/` is a separator: `a[` then `]b:x:`)."""
    d = tmp_path / "a[" / "]b:x:"
    d.mkdir(parents=True)
    return d


def test_trace_convert_prints_a_bracketed_path_as_it_is(odd_dir: Path):
    # Before: the title's `[/]` ended in a MarkupError traceback after the file was written.
    src = mqsim(odd_dir / "tpcc[v2]:x:[bold].trace")
    dst = odd_dir / "out[/x].rtr"
    res = runner.invoke(app, ["trace", "convert", "-f", "mqsim", str(src), "-o", str(dst)])
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output and "internal error" not in res.output
    text = flat(res.stdout)
    assert squash(f"tpcc[v2]:x:[bold].trace → {dst}") in squash(text)
    assert f"│ source │ {src} │" in text
    assert "❌" not in res.output
    assert dst.is_file()


def test_trace_stats_title_and_volume_names_as_they_are(odd_dir: Path):
    # An MSR CSV names its volumes `host_disk`: hosts `[bold]` and `:x:` give volumes `[bold]_0`, `:x:_1`.
    src = odd_dir / "msr[v2].csv"
    src.write_text("".join(f"{128166372003061629 + i},{'[bold]' if i % 2 else ':x:'},{i % 2},Write,{4096 * (i % 40)},4096,1\n"
                           for i in range(400)))
    res = runner.invoke(app, ["trace", "stats", "-f", "msr", str(src)])
    assert res.exit_code == 0, res.output
    text = flat(res.stdout)
    assert "trace statistics: msr[v2].csv" in text
    assert "│ [bold]_1 │" in text and "│ :x:_0 │" in text
    assert "❌" not in res.output and "Traceback" not in res.output


def test_simulate_on_a_bracketed_trace_names_it_as_it_is(odd_dir: Path):
    src = mqsim(odd_dir / "t[v2].trace")
    dst = odd_dir / "t[/]:x:.rtr"
    assert runner.invoke(app, ["trace", "convert", "-f", "mqsim", str(src), "-o", str(dst)]).exit_code == 0
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{dst}", "--pages-per-segment", "8", "-q"])
    assert res.exit_code == 0, res.output
    assert f"trace:{dst}" in squash(res.stdout)
    assert "❌" not in res.output and "Traceback" not in res.output


def test_simulate_names_each_volume_as_it_is(odd_dir: Path):
    src = odd_dir / "v.csv"
    src.write_text("".join(f"{128166372003061629 + i},{'[/]' if i % 2 else ':x:'},0,Write,{4096 * (i % 40)},4096,1\n"
                           for i in range(4000)))
    dst = odd_dir / "v[/].rtr"
    assert runner.invoke(app, ["trace", "convert", "-f", "msr", str(src), "-o", str(dst)]).exit_code == 0
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{dst}", "--pages-per-segment", "8", "--workers", "1", "-q"])
    assert res.exit_code == 0, res.output
    text = flat(res.stdout)
    assert "│ [/]_0 │" in text and "│ :x:_0 │" in text
    assert "❌" not in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("command", [["trace", "stats"], ["trace", "convert", "-f", "mqsim", "-o", "x.rtr"]])
def test_an_error_naming_a_bracketed_path_prints_it(odd_dir: Path, command: list[str]):
    missing = odd_dir / "no[/]such:x:[bold].trace"
    res = runner.invoke(app, [*command, str(missing)])
    assert res.exit_code == 2
    assert str(missing) in flat(res.output)
    assert "Traceback" not in res.output and "internal error" not in res.output


def test_an_engine_error_naming_a_bracketed_path_prints_it(odd_dir: Path):
    missing = odd_dir / "gone[/]:x:.rtr"
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{missing}", "-q"])
    assert res.exit_code == 2
    assert str(missing) in flat(res.output)
    assert res.output.lstrip().startswith("error:")
    assert "Traceback" not in res.output


def test_a_range_in_brackets_is_not_eaten_as_a_tag(tmp_path: Path):
    # Before: "expected a whole number in )": `[tracks, 2³²]` starts like a style tag.
    res = runner.invoke(app, ["trace", "stand-in", "-o", str(tmp_path / "s.rtr"), "--tracks", "10", "--writes", "5"])
    assert res.exit_code == 2
    assert "invalid value for `writes`: 5 (expected a whole number in [tracks = 10, 2³²])" in flat(res.output)


@pytest.fixture(scope="module")
def results_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("db")
    exp = d / "e.toml"
    exp.write_text('name = "tiny"\n[base]\nsegments = 64\npages_per_segment = 8\nwrites = "1x"\n[axes]\npolicy = ["greedy"]\n')
    db = d / "r[/]:x:.duckdb"
    res = runner.invoke(app, ["sweep", "run", str(exp), "--db", str(db), "--workers", "1"])
    assert res.exit_code == 0, res.output
    return db


def test_results_query_prints_values_as_they_are(results_db: Path):
    sql = "SELECT '[/]' AS \"[bold]\", ':x:' AS b, '[bold]x' AS c, count(*) AS n FROM tasks"
    res = runner.invoke(app, ["results", "query", str(results_db), sql])
    assert res.exit_code == 0, res.output
    # One task in the database (one policy, one seed): the row is the literals and 1.
    assert "│ [/] │ :x: │ [bold]x │ 1 │" in flat(res.stdout)
    assert "┃ [bold] ┃" in flat(res.stdout)
    res = runner.invoke(app, ["results", "query", str(results_db), sql, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [{"[bold]": "[/]", "b": ":x:", "c": "[bold]x", "n": 1}]


def test_a_database_error_names_the_value_as_it_is(results_db: Path):
    res = runner.invoke(app, ["results", "query", str(results_db), "SELECT nope FROM '[/]:x:'"])
    assert res.exit_code == 2
    assert res.output.lstrip().startswith("error:")
    assert "Table with name [/]:x: does not exist" in res.output
    assert "Traceback" not in res.output and "❌" not in res.output


def test_schemes_styles_parameter_names_without_literal_tags():
    res = runner.invoke(app, ["schemes", "policies"])
    assert res.exit_code == 0, res.output
    assert "[bold]" not in res.output
    # d-choices' one parameter, as its file declares it (policy/d_choices.rs).
    assert "d: Segments drawn, with replacement. [segments] Required." in flat(res.stdout)


def test_reproduction_titles_and_progress_descriptions_are_text():
    t = Reproduction("t[v2] :x:", "source [/]", lambda c: [], [("a", "a [pages]", ".1f")]).table([{"a": 1.0}])
    with out.capture() as cap:
        out.print(t)
    text = flat(cap.get())
    assert "t[v2] :x:" in text and "source [/]" in text and "a [pages]" in text
    with progress_bar(enabled=True) as p:
        task = p.add_task("tpcc[v2] [/] :x:", total=None)
        shown = p.columns[0].render(p.tasks[task])  # type: ignore[union-attr]
        p.stop()
    assert shown.plain == "tpcc[v2] [/] :x:"


@pytest.mark.parametrize(
    "args, message",
    [
        # `{}` of an f64 wrote 1e-300 as 302 characters; the message gives the number as typed.
        (["--spare", "-1e-300"], "invalid value for `spare`: -1e-300 (expected a number in (0, 1))"),
        (["--workload", "hotcold:r=-1e-300,f=0.2"], "invalid value for `workload.r`: -1e-300 (expected a number in (0, 1))"),
        (["--spare", "1e300"], "invalid value for `spare`: 1e300 (expected a number in (0, 1))"),
        (["--fill", "1e-300"], "invalid value for `fill`: 1e-300 (0 logical pages) (expected at least 1"),
        # 1024 segments of 64 pages less 2 kept open or free: 65,408 logical pages at most.
        (["--spare", "1e-300"], "invalid value for `spare`: 1e-300 (65536 logical pages) (expected at least 1 and at most 65408"),
    ],
)
def test_a_tiny_or_huge_number_is_echoed_in_its_shortest_form(args: list[str], message: str):
    res = runner.invoke(app, ["simulate", "-q", *args])
    assert res.exit_code == 2
    assert message in flat(res.output)
    assert len(res.output) < 300


@pytest.mark.parametrize("pages", [np.array([]), [], np.array([], dtype=np.uint32)])
def test_an_empty_page_array_is_named_as_the_argument(pages):
    # Before: "invalid value for `workload`: trace:/tmp/tmpXXXX/pages.rtr (expected a trace with at
    # least one page write)", a temporary file the caller never named.
    with pytest.raises(ValueError) as e:
        reclaim.simulate(workload=pages)
    assert str(e.value) == ("invalid value for `workload`: an empty sequence of page ids "
                            "(expected at least one page id, a whole number in [0, 4294967294])")


def test_a_bad_page_id_is_named_as_the_argument():
    with pytest.raises(ValueError, match=r"^invalid value for `workload`: page id -1 at index 2 "):
        reclaim.simulate(workload=[0, 1, -1])


def three_volumes(path: Path) -> Path:
    """An MQSim trace of three volumes: 0 and 2 write each of their pages once (200 and 100
    pages), 1 rewrites 20 pages ten times each; a fourth device, 3, only reads."""
    lines = [f"{i} 0 {8 * i} 8 0" for i in range(200)]
    lines += [f"{i} 1 {8 * (i % 20)} 8 0" for i in range(200)]
    lines += [f"{i} 2 {8 * i} 8 0" for i in range(100)]
    lines += [f"{i} 3 {8 * i} 8 1" for i in range(50)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_warning_of_several_volumes_is_one_line_naming_them(tmp_path: Path):
    src = three_volumes(tmp_path / "t.trace")
    dst = tmp_path / "t.rtr"
    assert runner.invoke(app, ["trace", "convert", "-f", "mqsim", str(src), "-o", str(dst)]).exit_code == 0
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{dst}", "--pages-per-segment", "4", "--workers", "1", "-q"])
    assert res.exit_code == 0, res.output
    looped = [ln for ln in res.stderr.splitlines() if "written once per pass" in ln]
    # precondition replays pass after pass; volumes 0 and 2 write every page once a pass (100%),
    # volume 1 rewrites its 20 pages within the pass (none written once): it is not named.
    assert looped == ["warning: volumes 0, 2: the trace is replayed pass after pass and 100.0% of the pages it writes are "
                      "written once per pass: looped, each of them is rewritten exactly one pass later, a lifetime the "
                      "loop makes and the trace does not have"]
    assert all(ln.startswith("warning: volume") for ln in res.stderr.splitlines() if ln.startswith("warning:"))
    res = runner.invoke(app, ["simulate", "--workload", f"trace:{dst}", "--pages-per-segment", "4", "--workers", "1",
                              "--json"])
    d = json.loads(res.stdout)
    assert looped[0].removeprefix("warning: ") in d["warnings"]
    # Each volume keeps its own warnings, unnamed and with its own figures.
    own = {v["volume"]: [w for w in v["warnings"] if "written once per pass" in w] for v in d["volumes"]}
    assert [len(own[n]) for n in ("0", "1", "2")] == [1, 0, 1]
    assert own["0"][0].startswith("the trace is replayed pass after pass and 100.0%")


def test_group_warnings_gives_differing_figures_as_a_range_and_counts_the_rest():
    from reclaim.volumes import group_warnings

    by = {f"v{i}": [f"spare {0.1 + i / 100:.4f} simulated where 0.1 was asked", "same"] for i in range(25)}
    by["idle"] = []
    lines = group_warnings(by)
    # 25 of the 26 volumes: the first 20 named, 5 counted; 0.1000 to 0.3400 the range of the figure.
    named = ", ".join(f"v{i}" for i in range(20))
    assert lines == [f"25 volumes ({named} and 5 more): spare 0.1000–0.3400 simulated where 0.1 was asked",
                     f"25 volumes ({named} and 5 more): same"]
    assert group_warnings({"a": ["x 1,000 y"], "b": ["x 999 y"]}) == ["volumes a, b: x 999–1,000 y"]


def test_trace_stats_says_only_reads_where_it_printed_nan(tmp_path: Path):
    src = three_volumes(tmp_path / "t.trace")
    res = runner.invoke(app, ["trace", "stats", "-f", "mqsim", str(src)])
    assert res.exit_code == 0, res.output
    text = flat(res.stdout)
    assert "nan" not in text
    # Volume 3: 50 reads, no write; volume 0: 200 pages written once each, none rewritten.
    assert "│ 3 │ 50 │ 0 │ 0 │ 0 │ only reads │ only reads │" in text
    assert "│ 0 │ 200 │ 200 │ 200 │ 200 │ no page rewritten │ 0.000 │" in text
    reads = tmp_path / "reads.trace"
    reads.write_text("".join(f"{i} 0 {8 * i} 8 1\n" for i in range(10)))
    res = runner.invoke(app, ["trace", "stats", "-f", "mqsim", str(reads)])
    assert res.exit_code == 0, res.output
    text = flat(res.stdout)
    assert "nan" not in text and "n/a" not in text
    for row in ("f_a", "f_a_address", "lifetime quantiles", "rewritten within"):
        assert f"│ {row} │ only reads │" in text


@pytest.mark.parametrize(
    "spec, message",
    [
        ("d-choices:d=", "invalid value for `policy.d`: nothing after `d=` in `d-choices:d=` (expected a whole number ≥ 1)"),
        ("d-choices:=3", "invalid value for `policy`: `d-choices:=3` (a value without its key: `=3`) "
                         "(expected `key=value` arguments after `d-choices:`)"),
    ],
)
def test_an_empty_key_or_value_in_a_spec_is_said_so(spec: str, message: str):
    # Before: "`` (expected …)" and "(unknown argument ``)", an empty pair of backticks.
    res = runner.invoke(app, ["simulate", "-q", "--policy", spec])
    assert res.exit_code == 2
    assert message in flat(res.output)


def test_group_warnings_keeps_digits_in_names_and_paths_as_text():
    from reclaim.volumes import group_warnings

    # Each volume's own file: two kinds of text, not one with a range inside a file name.
    assert group_warnings({"a": ["in /d/vol_1.rtr: 3 steps back"], "b": ["in /d/vol_2.rtr: 5 steps back"]}) == [
        "volume a: in /d/vol_1.rtr: 3 steps back", "volume b: in /d/vol_2.rtr: 5 steps back"]
    assert group_warnings({"a": ["`fill+10x` writes 30 pages"], "b": ["`fill+10x` writes 50 pages"]}) == [
        "volumes a, b: `fill+10x` writes 30–50 pages"]


def test_the_installed_command_prints_a_bracketed_path_without_a_traceback(odd_dir: Path):
    import subprocess
    import sys

    src = mqsim(odd_dir / "t[v2]:x:.trace")
    dst = odd_dir / "o[bold].rtr"
    run = subprocess.run([sys.executable, "-m", "reclaim.cli", "trace", "convert", "-f", "mqsim", str(src), "-o", str(dst)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and run.stderr == ""
    assert f"│ source │ {src} │" in flat(run.stdout)
    run = subprocess.run([sys.executable, "-m", "reclaim.cli", "trace", "stats", str(odd_dir / "gone[/]:x:.rtr")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == f"error: Invalid value for 'path': file '{odd_dir / 'gone[/]:x:.rtr'}' does not exist."
