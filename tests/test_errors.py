"""Bad input gets a clear error: every command, every class of bad value.

Each example of the issue that collected them is a regression test here; a hypothesis test then
drives every command's options with generated bad values. The rule checked everywhere: exit
status 2, a message that names the parameter, no traceback, and an answer within seconds.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import reclaim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reclaim import cli, parallel, traces
from reclaim.cli import common as cli_common

RECLAIM = [sys.executable, "-m", "reclaim.cli"]


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Runs the command line in this process; returns (exit status, stdout + stderr)."""
    old = sys.argv
    sys.argv = ["reclaim", *argv]
    try:
        cli.main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = old
        cli_common.DEBUG = False  # a `--debug` run must not leave tracebacks on for the next
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture(scope="module")
def mqsim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small MQSim trace (`arrival_ns device lba sectors type`, type 0 = write)."""
    p = tmp_path_factory.mktemp("t") / "small.trace"
    rng = np.random.default_rng(1)
    lines = [f"{i * 1000} 1 {int(rng.integers(0, 20000)) * 8} 8 {int(rng.random() < 0.3)}" for i in range(3000)]
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("c") / "pages.rtr"
    traces.write_pages(np.random.default_rng(2).integers(0, 5000, 20000), p)
    return p


# (argv, text the message must contain): the examples, one per line.
EXAMPLES = [
    (["trace", "stats", "{missing}"], "does not exist"),
    (["trace", "stats", "{dir}"], "is a directory"),
    (["trace", "evaluate", "{missing}"], "does not exist"),
    (["trace", "evaluate", "{dir}"], "is a directory"),
    (["trace", "stats", "{magic}"], "a header length; truncated at 8 bytes"),
    (["trace", "evaluate", "{mqsim}", "-f", "mqsim", "--pages-per-segment", "0"], "--pages-per-segment"),
    (["trace", "stats", "{mqsim}", "-f", "mqsim", "--page-size", "-1"], "--page-size"),
    (["trace", "evaluate", "{reads}", "-f", "mqsim"], "no page writes"),
    (["model", "gra", "--writes", "nan"], "`writes`: nan"),
    (["model", "gra", "--writes", "inf"], "`writes`: inf"),
    (["layout", "mva", "--disk", "abc"], "`--disk`: `abc`"),
    (["bench", "--runs", "0"], "--runs"),
    (["bench", "--segments", "64"], "`--segments` is for `--sizes` only"),
    (["bench", "--sizes", "--segments", "8"], "`segments`: '8'"),
    (["validate", "--workers", "-1"], "--workers"),
    (["reproduce", "dyal-draughn", "--figures", "{file}"], "--figures"),
    (["model", "gra", "--d", "0"], "`d`: 0.0"),
    (["model", "gra", "--d", "-1"], "`d`: -1.0"),
    (["model", "gra", "--d", "nan"], "`d`: nan"),
    (["model", "gra", "--d", "1e12"], "`d`: 1e+12"),
    (["model", "gra", "--segments", "-5"], "--segments"),
    (["model", "gra", "--segments", "100", "--d", "500"], "N = 100 blocks"),
    (["layout", "mva", "--cpu", "-1"], "`--cpu`: -1.0"),
    (["layout", "mva", "--cpu", "nan"], "`--cpu`: nan"),
    (["layout", "mva", "--workstations", "0"], "--workstations"),
    (["model", "mean-field", "--d", "2.5"], "`d`: 2.5"),
    (["simulate", "--writes", "0"], "at least one measured write"),
    (["simulate", "--workload", "hotcold:r=0.8,r=0.7,f=0.2"], "`r` given twice"),
    (["trace", "convert", "{mqsim}", "-f", "mqsim", "-o", "{out}", "--device", "999"], "`device`: `999`"),
    (["trace", "convert", "{mqsim}", "-f", "mqsim", "-o", "{mqsim}"], "other than the trace being converted"),
    (["simulate", "--writes", "1e300x"], "at most 140737488355328 writes"),
    (["simulate", "--writes", "18446744073709551615"], "at most 140737488355328 writes"),
    (["simulate", "--warmup", "1e20x"], "invalid value for `warmup`"),
    (["simulate", "--segments", "-5"], "`segments`: -5 (expected a whole number ≥ 4"),
    (["simulate", "--spare", "nan"], "`spare`: nan (expected a number in (0, 1))"),
    (["simulate", "--gc", "batch:low=1000,victims=5000"], "invalid value for `gc`"),
    (["model", "age-based", "--spare", "2"], "`--spare`: 2.0"),
    (["model", "mean-field", "--optimal-d", "--d-max", "0"], "--d-max"),
    (["trace", "evaluate", "{converted}", "--passes", "0"], "`--passes`: 0.0"),
    (["simulate", "--arrays"], "give `--json` too"),
    (["simulate", "--sizes", "uniform:min=4,max=2"], "`min` ≤ `max`"),
    (["simulate", "--sizes", "fixed:size=0"], "sizes of at least 1 slot"),
    (["simulate", "--sizes", "fixed:size=100"], "at most pages_per_segment = 64 slots"),
    (["simulate", "--sizes", "choice:sizes=1/x"], "`sizes.sizes`: `1/x`"),
    (["simulate", "--sizes", "choice:sizes=1/2,weights=1"], "one weight per size"),
    (["simulate", "--sizes", "fixed:size=2", "--placement", "double:copy=random"], "when pages have sizes"),
    (["simulate", "--sizes", "uniform:min=1,max=60", "--spare", "0.1"], "less 59 a page may leave unused"),
    # Fitness over ten Tree buckets stops without progress when 2⁴ + 2⁶ age-sorted streams and the
    # 2⁶ − 1 segments their GC streams keep free take 143 of the 150 beyond the data (design.md).
    (["simulate", "--segments", "1500", "--spare", "0.1", "--policy", "fitness:buckets=10,sort=tree",
      "--placement", "age-sorted:dtg_exp=4,fsc_exp=6", "--gc", "max-empty:k=1", "--workload", "hotcold:r=0.9,f=0.1"],
     "150 segments beyond the data, of which the open streams hold up to 80 and the cleaner's reserve 63"),
]


@pytest.mark.parametrize(("argv", "needle"), EXAMPLES, ids=[" ".join(a) for a, _ in EXAMPLES])
def test_each_reported_example_is_a_clear_error(argv: list[str], needle: str, tmp_path: Path, mqsim: Path,
                                                 converted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "magic.rtr").write_bytes(b"RCLMTRC1")
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    reads = tmp_path / "reads.trace"
    reads.write_text("0 1 8 8 1\n1000 1 16 8 1\n")
    names = {"missing": tmp_path / "nope.rtr", "dir": tmp_path / "d", "magic": tmp_path / "magic.rtr", "mqsim": mqsim,
             "file": tmp_path / "f", "out": tmp_path / "out.rtr", "converted": converted, "reads": reads}
    before = mqsim.read_bytes()
    start = time.monotonic()
    code, text = run_main([a.format(**names) for a in argv], capsys)
    assert time.monotonic() - start < 10
    assert code == 2, text
    assert needle in " ".join(text.split()), text
    assert "Traceback" not in text
    assert "error: 2" not in text
    assert mqsim.read_bytes() == before  # `-o` the input never overwrites it
    assert not (tmp_path / "out.rtr").exists()  # an empty conversion leaves no file


def test_model_grouping_runs_on_its_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    # Li et al. §5.1 (f_a = 0.1): b_c* = (0.432, 0.568), b_w* = (0.862, 0.138) (Fig. 7(a)).
    code, text = run_main(["model", "grouping", "--json"], capsys)
    assert code == 0, text
    import json

    data = json.loads(text)
    assert round(data["allocation"][0], 3) == 0.432
    assert round(data["oblivious_equal_allocation"][0], 3) == 0.862


def test_json_output_is_strict_json(capsys: pytest.CaptureFixture[str]) -> None:
    # No cache: cache_hit_ratio is NaN in Python, null in JSON.
    code, text = run_main(["simulate", "--segments", "64", "--pages-per-segment", "8", "--writes", "2x", "--json", "-q"], capsys)
    assert code == 0, text
    assert "NaN" not in text
    import json

    assert json.loads(text)["cache_hit_ratio"] is None


def test_help_keeps_units_and_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run_main(["simulate", "--help"], capsys)
    flat = " ".join(text.split())
    assert code == 0
    assert "[user writes]" in flat  # --window's unit, no longer eaten as markup
    assert "trace:PATH" in flat and "Np (passes over a trace)" in flat and "+P% of a trace" in flat
    assert "Default: 64." in flat  # pages per segment, from the engine's one definition
    code, text = run_main(["trace", "stats", "--help"], capsys)
    assert "mqsim" in text and "blkparse" in text
    code, text = run_main(["--version"], capsys)
    assert code == 0 and text.strip() == f"reclaim {reclaim._core.__version__}"


def test_debug_shows_the_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="`spare`"):
        run_main(["--debug", "simulate", "--spare", "2"], capsys)


# --- generated bad values over every command's options ------------------------------------------

NEGATIVE = st.integers(max_value=-1).map(str)
HUGE = st.integers(min_value=2**64, max_value=2**200).map(str)
NONFINITE = st.sampled_from(["nan", "inf", "-inf", "NaN", "1e400"])
TEXT = st.sampled_from(["", " ", "abc", "1,2", "0x10", "--", "1/0", "½", "1e", "ten"])
BAD_COUNT = st.one_of(NEGATIVE, HUGE, NONFINITE, TEXT, st.floats(0.01, 1e6).filter(lambda x: not x.is_integer()).map(repr))
BAD_REAL = st.one_of(NONFINITE, TEXT, st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False).map(repr))
BAD_SHARE = st.one_of(BAD_REAL, st.floats(1.0, 1e30, exclude_min=True).map(repr))
BAD_SPEC = st.one_of(TEXT, st.text(min_size=1, max_size=30).filter(lambda s: ":" in s or s.isalpha()),
                     st.sampled_from(["greedy:tie=", "d-choices:d=-3", "hotcold:r=2,f=0.2", "batch:low=x", "fill+-1x", "1e300x",
                                      "nan", "inf x", "trace:", "regions:spare=1/2/3", "double:copy=newest"]))

SMALL_SIM = ["simulate", "--segments", "64", "--pages-per-segment", "8", "--writes", "1x", "--warmup", "fill", "-q"]

# (command prefix, option, strategy of values that are all invalid)
OPTIONS: list[tuple[list[str], str, st.SearchStrategy[str]]] = [
    *[(SMALL_SIM, f"--{o}", BAD_COUNT) for o in ("segments", "pages-per-segment", "logical-pages", "cache", "window")],
    (SMALL_SIM, "--seed", st.one_of(NEGATIVE, HUGE, NONFINITE, TEXT)),
    *[(["simulate", "--segments", "64", "--pages-per-segment", "8", "-q"], f"--{o}", BAD_SHARE) for o in ("spare", "fill")],
    *[(SMALL_SIM, f"--{o}", BAD_SPEC) for o in ("policy", "frontier", "placement", "streams", "gc", "workload", "warmup", "writes")],
    (SMALL_SIM, "--trace-classes", st.one_of(TEXT, st.sampled_from(["0", "5,10", "-1", "10,10"]))),
    (["model", "gra"], "--d", st.one_of(NEGATIVE, NONFINITE, TEXT, st.sampled_from(["0", "1.5", "1e12"]))),
    (["model", "gra"], "--pages-per-segment", st.one_of(NEGATIVE, TEXT, st.just("0"))),
    (["model", "gra"], "--spare", BAD_SHARE),
    (["model", "gra"], "--fa", BAD_SHARE),
    (["model", "gra"], "--r", st.one_of(TEXT, st.sampled_from(["0.5", "1,1", "-1,2", "nan,0.5"]))),
    (["model", "gra"], "--writes", BAD_REAL),
    (["model", "gra"], "--segments", st.one_of(NEGATIVE, TEXT, st.just("0"))),
    (["model", "grouping"], "--spare", BAD_SHARE),
    (["model", "grouping"], "--f", st.one_of(TEXT, st.sampled_from(["0.5", "0.2,0.9", "-0.2,1.2"]))),
    (["model", "mean-field"], "--d", st.one_of(NEGATIVE, NONFINITE, TEXT, st.sampled_from(["0", "2.5"]))),
    (["model", "mean-field"], "--pages-per-segment", st.one_of(NEGATIVE, TEXT, st.sampled_from(["0", "100000"]))),
    (["model", "mean-field"], "--r", BAD_SHARE),
    (["model", "age-based"], "--fill", BAD_SHARE),
    (["model", "age-based", "--fill", "0.8"], "--pages", st.one_of(NEGATIVE, TEXT, st.sampled_from(["0", "1"]))),
    (["model", "hot-cold-slack", "--fill", "0.8"], "--skew", st.one_of(TEXT, st.sampled_from(["80", "0:20", "-1:5", "a:b"]))),
    (["layout", "mva"], "--cpu", BAD_REAL),
    (["layout", "mva"], "--think", BAD_REAL),
    (["layout", "mva"], "--workstations", st.one_of(NEGATIVE, TEXT, HUGE, st.just("0"))),
    (["bench"], "--runs", st.one_of(NEGATIVE, TEXT, st.just("0"))),
    (["validate"], "--workers", st.one_of(NEGATIVE, TEXT, HUGE, st.just("0"))),
    (["reproduce"], "--quick", st.sampled_from(["x"])),  # a flag given a value: an unknown argument
]


@pytest.mark.parametrize(("prefix", "option", "values"), OPTIONS, ids=[f"{' '.join(p[:2])} {o}" for p, o, _ in OPTIONS])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_generated_bad_values_are_refused(prefix: list[str], option: str, values: st.SearchStrategy[str],
                                          data: st.DataObject, capsys: pytest.CaptureFixture[str]) -> None:
    value = data.draw(values)
    argv = [*prefix, f"{option}={value}"]
    start = time.monotonic()
    code, text = run_main(argv, capsys)
    assert time.monotonic() - start < 10, argv
    assert code == 2, (argv, text)
    assert "Traceback" not in text and "internal error" not in text, (argv, text)
    flat = " ".join(text.split())
    name = option.lstrip("-")
    names = {option, name, name.replace("-", "_"), f"'{option}'"}
    assert any(n in flat for n in names), (argv, text)


def test_trace_readers_give_file_and_line_for_generated_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A 50,000-character bad line is reported at once, cut to 200 characters.
    p = tmp_path / "long.csv"
    p.write_text("128166372003061629,hm,0,Write,0,4096,10\n" + "x" * 50_000 + "\n")
    start = time.monotonic()
    code, text = run_main(["trace", "convert", str(p), "-f", "msr", "-o", str(tmp_path / "o.rtr")], capsys)
    assert time.monotonic() - start < 5
    assert code == 2 and "long.csv, line 2" in text and len(text) < 2000, text


def test_skipped_lines_are_summarised_per_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "bad.csv"
    good = "128166372003061629,hm,0,Write,0,4096,10"
    bad = [f"128166372003061629,hm,0,Op{i},0,4096,10" for i in range(3000)]
    bad += [f"128166372003061629,hm,0,Write,x{i},4096,10" for i in range(3000)]
    p.write_text("\n".join([good, *bad, good]) + "\n")
    code, text = run_main(["trace", "convert", str(p), "-f", "msr", "-o", str(tmp_path / "o.rtr"), "--skip-bad-lines"], capsys)
    assert code == 0, text
    skipped = [line for line in text.splitlines() if line.startswith("skipped")]
    assert skipped == ["skipped 3,000 bad line(s) where `Type` Read or Write (unknown opcode) was expected",
                       "skipped 3,000 bad line(s) where an unsigned integer `Offset` was expected"], skipped


# --- the Python API -------------------------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "error", "needle"), [
    ({"segments": "64"}, TypeError, "`segments`: str"),
    ({"spare": "0.1"}, TypeError, "`spare`: str"),
    ({"free_empty": 1}, TypeError, "`free_empty`"),
    ({"workload": 5}, TypeError, "`workload`: int"),
    ({"workload": [0, 2**32]}, ValueError, "page id 4294967296 at index 1"),
    ({"workload": [3, -1]}, ValueError, "page id -1 at index 1"),
    ({"workload": [1.5]}, ValueError, "page id 1.5 at index 0"),
    ({"segments": 64.5}, ValueError, "`segments`: 64.5"),
    ({"spare": float("nan")}, ValueError, "`spare`: nan"),
    ({"spares": 0.1}, TypeError, "unknown parameter `spares`"),
])
def test_api_errors_name_the_parameter(kwargs: dict, error: type, needle: str) -> None:
    with pytest.raises(error, match=None) as e:
        reclaim.simulate(writes="1x", **kwargs)
    assert needle in str(e.value)


def test_api_takes_numpy_scalars_and_refuses_a_non_config() -> None:
    r = reclaim.simulate(segments=np.int64(64), pages_per_segment=np.int32(8), spare=np.float32(0.25), writes=np.int64(1000))
    assert r.user_writes == 1000
    with pytest.raises(TypeError, match="`config`: int 256"):
        reclaim.simulate(256)  # type: ignore[arg-type]


# --- guards that refuse runs up front -------------------------------------------------------------


def _limited(gib: int):
    def set_limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (gib << 30, gib << 30))

    return set_limit


@pytest.mark.parametrize("segments", ["20000000", "60000000"])
def test_a_device_that_cannot_fit_is_refused(segments: str) -> None:
    # 20M × 64 pages need ~10.8 GiB, 60M × 64 ~32.5 GiB: both beyond a 4 GiB address space, so
    # the run is refused with both figures instead of aborting (exit 134) or swapping.
    p = subprocess.run([*RECLAIM, "simulate", "--segments", segments, "-q"], capture_output=True, text=True,
                       timeout=60, preexec_fn=_limited(4))
    assert p.returncode == 2, p.stderr
    flat = " ".join(p.stderr.split())
    assert "a device that fits in memory: it needs about" in flat and "ulimit -v" in flat, flat


# --- Ctrl-C and SIGTERM ---------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    """Every descendant of ``pid`` (from /proc)."""
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d.name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def _sigint_as_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize(("argv", "sig", "status", "workers"), [
    # Each with a database of its own: results kept from an earlier run would leave nothing to stop.
    (["validate", "--quick", "--workers", "2", "--plot", "{tmp}/v.png", "--db", "{tmp}/r.duckdb"], signal.SIGINT, 130, 2),
    (["validate", "--quick", "--workers", "2", "--plot", "{tmp}/v.png", "--db", "{tmp}/r.duckdb"], signal.SIGTERM, 143, 2),
    (["reproduce", "vanhoudt-table1", "--db", "{tmp}/r.duckdb"], signal.SIGINT, 130, 0),
    # Passes enough to outlast the 3 s wait on any machine.
    (["trace", "evaluate", "{trace}", "--passes", "1000"], signal.SIGINT, 130, 0),
], ids=["validate-SIGINT", "validate-SIGTERM", "reproduce-SIGINT", "trace-evaluate-SIGINT"])
def test_a_signal_stops_every_process(argv: list[str], sig: int, status: int, workers: int, tmp_path: Path,
                                      converted: Path) -> None:
    args = [a.format(tmp=tmp_path, trace=converted) for a in argv]
    # A session of its own: the signal goes to the whole process group, as a terminal sends it.
    # SIGINT at its default, as from a terminal: a test run started in the background (`cmd &`
    # in a script) has it ignored, which every child would inherit.
    p = subprocess.Popen([*RECLAIM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=_sigint_as_from_a_terminal)
    try:
        # Until the workers run (a busy machine may take a while to get there), then 3 s more.
        deadline = time.monotonic() + 180
        seen: set[int] = set()
        ready = None
        while time.monotonic() < deadline and p.poll() is None:
            seen |= _children(p.pid)
            if len(seen) >= workers:
                ready = ready or time.monotonic()
                if time.monotonic() - ready > 3:
                    break
            time.sleep(0.1)
        assert p.poll() is None, p.communicate()
        assert len(seen) >= workers
        os.killpg(p.pid, sig)
        start = time.monotonic()
        p.wait(timeout=5)
    except BaseException:
        # Never leave the command running or its pipes open (a later test would see them as an
        # unraisable ResourceWarning), whatever failed above.
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        if p.stdout is not None and not p.stdout.closed:
            p.communicate()
        raise
    elapsed = time.monotonic() - start
    _, err = p.communicate()
    assert elapsed < 2.0
    assert p.returncode == status, err.decode()
    time.sleep(0.2)
    assert not [c for c in seen if _alive(c)], "worker processes left behind"
    assert b"Traceback" not in err


_STOPPED_INSIDE = """
import os, signal, sys
import reclaim.schemes
from reclaim import cli, parallel

def interrupted(*args, **kwargs):
    if parallel.stopped_by() is None:  # once: `schemes` asks once per family
        os.kill(os.getpid(), signal.SIG{sig})
    {then}

reclaim.schemes.schemes = interrupted
sys.argv = ["reclaim", "schemes"]
cli.main()
"""


@pytest.mark.parametrize(("sig", "then", "status", "said"), [
    # DuckDB answers an interrupted query with RuntimeError("Query interrupted") in place of
    # the KeyboardInterrupt (seen in CI): the stop, not the error, is reported.
    ("INT", "raise RuntimeError('Query interrupted')", 130, "interrupted"),
    ("TERM", "raise ImportError('initialization failed')", 143, "terminated"),
    # An extension that swallows the interrupt ("Exception ignored in ..."), the command then
    # finishing normally: still the signal's status.
    ("INT", "return {}", 130, "interrupted"),
])
def test_an_error_in_place_of_a_stop_signal_reports_the_stop(sig: str, then: str, status: int, said: str) -> None:
    code = _STOPPED_INSIDE.format(sig=sig, then=then)
    if then.startswith("return"):
        swallow = "        try:\n            os.kill(os.getpid(), signal.SIGINT)\n        except KeyboardInterrupt:\n            pass\n"
        code = code.replace("        os.kill(os.getpid(), signal.SIGINT)\n", swallow)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    err = p.stderr.decode()
    assert p.returncode == status, err
    assert err.strip().endswith(said), err
    assert "error" not in err and "Traceback" not in err


def test_a_second_stop_signal_does_not_interrupt_the_first_clean_up() -> None:
    restore = parallel.stop_on_signals()
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        os.kill(os.getpid(), signal.SIGTERM)  # ignored: already stopping
        time.sleep(0.05)
        assert parallel.stopped_by() == signal.SIGINT
    finally:
        restore()


def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    p = subprocess.Popen([*RECLAIM, "validate", "--quick", "--workers", "2", "--plot", str(tmp_path / "v.png"), "--db", str(tmp_path / "r.duckdb")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        kids: set[int] = set()
        while time.monotonic() < deadline and len(kids) < 2 and p.poll() is None:
            kids = _children(p.pid)
            time.sleep(0.1)
        assert len(kids) >= 2
        time.sleep(1.0)
        kids |= _children(p.pid)
    finally:
        p.kill()  # SIGKILL: no handler runs in the parent
        p.wait()
    time.sleep(1.0)
    assert not [c for c in kids if _alive(c)], "workers outlived their parent"
