"""Schemes written in Python (``reclaim.VictimPolicy``, ``reclaim.Placement``): the examples of
``examples/python_schemes`` against the engine's own schemes, and the errors a scheme's mistakes
give."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import reclaim
from reclaim.outside import NOT_CANDIDATE, parse_params, resolve

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "python_schemes"
GREEDY = f"{EXAMPLES}/greedy.py"
SEPBIT = f"{EXAMPLES}/sepbit.py"

#: The golden configurations (crates/reclaim-core/tests/golden_schemes.rs): 256 segments of 8
#: pages at spare 0.25, hot/cold 90/10, filled then one pass, three passes measured, seed 7.
GOLDEN: dict[str, Any] = {
    "segments": 256, "pages_per_segment": 8, "spare": 0.25, "workload": "hotcold:r=0.9,f=0.1",
    "warmup": "fill+1x", "writes": "3x", "seed": 7,
}
GCS = ("one-free", "batch:low=2,victims=3")


def same(a: reclaim.SimResult, b: reclaim.SimResult) -> None:
    assert (a.gc_writes, a.erases) == (b.gc_writes, b.erases)
    assert np.array_equal(a.erase_counts, b.erase_counts)


@pytest.mark.parametrize("gc", GCS)
@pytest.mark.parametrize(("python", "rust"), [
    (f"{GREEDY}:Greedy:tie=oldest", "greedy:tie=oldest"),
    (f"{GREEDY}:CostBenefit", "cost-benefit"),
])
@pytest.mark.parametrize("placement", ["single", "sepbit"])
def test_python_policies_choose_as_the_engines_victim_for_victim(python: str, rust: str, gc: str, placement: str) -> None:
    # Bit for bit: the same victims in the same order give the same erase count of every segment.
    same(reclaim.simulate(GOLDEN, policy=python, gc=gc, placement=placement),
         reclaim.simulate(GOLDEN, policy=rust, gc=gc, placement=placement))


@pytest.mark.parametrize("gc", GCS)
def test_sepbit_in_python_one_write_at_a_time_is_the_engines_sepbit(tmp_path: Path, gc: str) -> None:
    # With batches of one write, nothing is classified before the cleaning that precedes it.
    (tmp_path / "one.py").write_text(textwrap.dedent(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("sepbit_example", {SEPBIT!r})
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        class SepBIT(m.SepBIT):
            batch = 1
        class SepBITUser(m.SepBITUser):
            batch = 1
    """))
    for python, rust in [("SepBIT", "sepbit"), ("SepBITUser", "sepbit:separate=user")]:
        same(reclaim.simulate(GOLDEN, placement=f"{tmp_path}/one.py:{python}", gc=gc),
             reclaim.simulate(GOLDEN, placement=rust, gc=gc))


def test_sepbit_in_python_in_batches_is_within_a_tenth_of_a_percent_of_the_engines() -> None:
    # Batches of 4,096 user writes see a change of ℓ one batch late; over 3 seeds on 2,000 × 64
    # at spare 0.10, hot/cold 90/10, the mean WA stays within 0.1% of the engine's sepbit
    # (docs/python-schemes.md gives the measurement at the speed geometry).
    size = {"segments": 2000, "pages_per_segment": 64, "spare": 0.1, "workload": "hotcold:r=0.9,f=0.1", "writes": "10x"}
    py = np.mean([reclaim.simulate(size, placement=f"{SEPBIT}:SepBIT", seed=s).wa for s in (1, 2, 3)])
    rust = np.mean([reclaim.simulate(size, placement="sepbit", seed=s).wa for s in (1, 2, 3)])
    assert abs(py / rust - 1) < 1e-3, (py, rust)


def test_the_spec_is_canonical_and_the_parameters_checked() -> None:
    text, factory = resolve("policy", f"{GREEDY}:Greedy:tie=lowest")
    # A default is not shown, as the built-ins do not show theirs.
    assert text == f"{GREEDY}:Greedy"
    assert factory.values == {"tie": "lowest"}
    with pytest.raises(ValueError, match=r"invalid value for `tie`: newest \(expected `lowest` or `oldest`\)"):
        resolve("policy", f"{GREEDY}:Greedy:tie=newest")
    with pytest.raises(ValueError, match=r"a parameter of Greedy \(tie\); found `k`"):
        parse_params(factory.cls, "k=3")
    r = reclaim.simulate(GOLDEN, policy=f"{GREEDY}:Greedy:tie=oldest")
    assert r.config.policy == f"{GREEDY}:Greedy:tie=oldest"


@pytest.mark.parametrize(("spec", "says"), [
    ("no_such_module_here:Greedy", r"invalid value for `policy`: no_such_module_here:Greedy \(expected a module that imports"),
    (f"{GREEDY}:Nope", r"expected a class of .*greedy.py`; it has no `Nope`"),
    (f"{SEPBIT}:SepBIT", r"expected a subclass of reclaim.VictimPolicy"),
    ("/nowhere/x.py:Greedy", r"expected a Python file; `/nowhere/x.py` does not exist"),
])
def test_a_spec_that_names_no_scheme_is_a_clear_error(spec: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        reclaim.simulate(GOLDEN, policy=spec)


def write(tmp_path: Path, body: str) -> str:
    path = tmp_path / "schemes.py"
    path.write_text("import numpy as np\nimport reclaim\n" + textwrap.dedent(body))
    return str(path)


def test_an_exception_stops_the_run_with_its_traceback_and_the_schemes_name(tmp_path: Path) -> None:
    path = write(tmp_path, """
        class Broken(reclaim.VictimPolicy):
            def select(self, view):
                if view.now > 1000:
                    raise KeyError("no such segment")
                return int(np.argmin(view.valid))
    """)
    with pytest.raises(KeyError, match="no such segment") as e:
        reclaim.simulate(GOLDEN, policy=f"{path}:Broken")
    notes = getattr(e.value, "__notes__", [])
    assert notes == [f"raised in `select` of the scheme `{path}:Broken`"]
    assert "schemes.py" in "".join(__import__("traceback").format_tb(e.value.__traceback__))


def test_a_segment_that_is_not_a_candidate_is_an_error_naming_the_scheme_and_the_value(tmp_path: Path) -> None:
    path = write(tmp_path, """
        class Free(reclaim.VictimPolicy):
            # A segment not a candidate (free or open; the batch trigger keeps some free).
            def select(self, view):
                other = np.flatnonzero(view.valid == reclaim.NOT_CANDIDATE)
                return int(other[0]) if other.size else int(np.argmin(view.valid))
        class Outside(reclaim.VictimPolicy):
            def select(self, view):
                return view.segments
        class NotInt(reclaim.VictimPolicy):
            def select(self, view):
                return "7"
    """)
    with pytest.raises(RuntimeError, match=rf"the scheme `{path}:Free` failed: select returned segment \d+, which is not a candidate: it is (free|open), not sealed"):
        reclaim.simulate(GOLDEN, policy=f"{path}:Free", gc="batch:low=2,victims=3")
    with pytest.raises(RuntimeError, match=r"select returned segment 256, which is not a candidate: segments are numbered 0 to 255"):
        reclaim.simulate(GOLDEN, policy=f"{path}:Outside")
    with pytest.raises(RuntimeError, match=r"select returned '7', not a segment number \(an int\)"):
        reclaim.simulate(GOLDEN, policy=f"{path}:NotInt")


def test_a_class_out_of_range_is_an_error_naming_the_scheme_and_the_value(tmp_path: Path) -> None:
    path = write(tmp_path, """
        class Three(reclaim.Placement):
            user_streams = 2
            def classify_user(self, pages, view):
                return np.full(pages.size, 3 if view.now > 500 else 1)
        class Short(reclaim.Placement):
            def classify_user(self, pages, view):
                return np.zeros(pages.size - 1)
    """)
    with pytest.raises(RuntimeError, match=rf"`{path}:Three` failed: classify_user returned class 3, out of range: the scheme declares 2 user streams \(classes 0 to 1\)"):
        reclaim.simulate(GOLDEN, placement=f"{path}:Three")
    with pytest.raises(RuntimeError, match=r"classify_user returned \d+ classes for \d+ pages"):
        reclaim.simulate(GOLDEN, placement=f"{path}:Short")


def test_an_array_kept_past_its_call_stays_valid_and_a_kept_view_is_closed(tmp_path: Path) -> None:
    path = write(tmp_path, """
        kept = []
        views = []
        generators = []
        class Keeps(reclaim.VictimPolicy):
            def select(self, view):
                if not kept:
                    kept.append(view.valid[:4])
                    kept.append(view.stamp)
                views.append(view)
                generators.append(view.rng)
                return int(view.valid.argmin())
    """)
    reclaim.simulate(GOLDEN, policy=f"{path}:Keeps")
    import gc
    gc.collect()
    m = module_of(path)
    # The run is over and its engine dropped; the arrays still read the engine's last values
    # (each holds the memory it shows): valid counts of at most 8 pages or NOT_CANDIDATE.
    valid, stamp = m.kept
    assert valid.size == 4 and np.all((valid <= 8) | (valid == NOT_CANDIDATE))
    assert stamp.size == 256 and stamp.max() <= 1536 * 5 and not stamp.flags.writeable
    with pytest.raises(RuntimeError, match="the view is open only during the call"):
        m.views[-1].valid  # noqa: B018 - the access is the test
    with pytest.raises(RuntimeError, match="the run's generator is available only during a call"):
        m.generators[-1].random()


def module_of(path: str) -> Any:
    import sys
    return next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == path)


def test_the_view_is_read_only_and_shows_the_engines_facts(tmp_path: Path) -> None:
    path = write(tmp_path, """
        seen = []
        class Checks(reclaim.VictimPolicy):
            facts = ("seal_time",)
            def select(self, view):
                v = view.valid
                assert not v.flags.writeable and v.dtype == np.uint32 and v.size == view.segments
                assert (v != reclaim.NOT_CANDIDATE).sum() == view.candidates
                assert view.fact("seal_time").dtype == np.uint64
                seen.append(view.candidates)
                return int(np.argmin(v))
    """)
    reclaim.simulate(GOLDEN, policy=f"{path}:Checks")
    m = module_of(path)
    assert len(m.seen) > 100 and min(m.seen) >= 1
    assert NOT_CANDIDATE == 2**32 - 1


def test_runs_are_reproducible_from_the_seed(tmp_path: Path) -> None:
    path = write(tmp_path, """
        class Random(reclaim.VictimPolicy):
            def select(self, view):
                c = np.flatnonzero(view.valid != reclaim.NOT_CANDIDATE)
                return int(c[view.rng.below(c.size)])
    """)
    a, b = (reclaim.simulate(GOLDEN, policy=f"{path}:Random") for _ in range(2))
    same(a, b)
    c = reclaim.simulate(GOLDEN, policy=f"{path}:Random", seed=8)
    assert c.gc_writes != a.gc_writes


def test_reproduce_sepbit_runs_a_python_placement_on_a_trace_beside_the_papers(tmp_path: Path) -> None:
    # A small hot/cold trace (8,192 pages written once, then 40,000 writes, 90% to a tenth of
    # them). With batches of one write, the Python UW is the engine's UW exactly, under both
    # selections (the `log` method draws batches as the other loops do).
    from reclaim import traces
    from reclaim.reproduce import REPRODUCTIONS

    rng = np.random.default_rng(3)
    n, count = 8192, 40_000
    hot = rng.permutation(n)[: n // 10]
    drawn = np.where(rng.random(count) < 0.9, hot[rng.integers(0, hot.size, count)], rng.integers(0, n, count))
    trace = tmp_path / "hot-cold.rtr"
    traces.write_pages(np.concatenate([np.arange(n), drawn]).astype(np.uint32), trace)
    (tmp_path / "uw.py").write_text(textwrap.dedent(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("sepbit_example", {SEPBIT!r})
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        class SepBITUser(m.SepBITUser):
            batch = 1
    """))
    rows = REPRODUCTIONS["sepbit"].run(db=tmp_path / "r.duckdb", workers=1, trace=trace,
                                       extra=[f"{tmp_path}/uw.py:SepBITUser"])
    by = {r["scheme"]: r for r in rows}
    assert "SepBIT-UW (Python)" in by
    for selection in ("Greedy", "Cost-Benefit"):
        assert by["SepBIT-UW (Python)"][selection] == by["UW"][selection] > 1.0


def test_the_readme_example_runs() -> None:
    # README.md's Python scheme, as a user pastes it: a class of __main__ named by module path.
    import re
    import subprocess
    import sys

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "reclaim.VictimPolicy" in b)
    res = subprocess.run([sys.executable, "-c", code + "\nassert r.wa > 1 and r.config.policy == '__main__:Greedy'\n"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_sweep_runs_python_schemes_on_local_processes_and_dask_workers(tmp_path: Path) -> None:
    # The same tasks, a Python policy beside the engine's, on both executors: each worker imports
    # the scheme by its path, and the Python greedy:tie=oldest gives the engine's WA.
    from reclaim.experiments import load, query, run

    f = tmp_path / "py.toml"
    f.write_text('replications = 2\n[base]\nsegments = 64\npages_per_segment = 16\nwarmup = "fill"\nwrites = "3x"\n'
                 'workload = "hotcold:r=0.8,f=0.2"\n[axes]\n'
                 f'policy = ["greedy:tie=oldest", "{GREEDY}:Greedy:tie=oldest"]\nspare = [0.15, 0.25]\n')
    exp = load(f)
    sql = "SELECT policy, spare, seed, wa FROM tasks ORDER BY policy, spare, seed"
    for name in ("local", "dask"):
        db = tmp_path / f"{name}.duckdb"
        report = run([exp], db, workers=2) if name == "local" else run([exp], db, dask_local=2)
        assert report.ran == 8 and not report.failed
        rows = query(tmp_path / f"{name}.duckdb", sql)[1]
        engine = [r[1:] for r in rows if r[0] == "greedy:tie=oldest"]
        python = [r[1:] for r in rows if r[0] != "greedy:tie=oldest"]
        assert engine == python and len(engine) == 4


def test_a_python_scheme_that_raises_in_a_sweep_leaves_no_result_in_the_database(tmp_path: Path) -> None:
    from reclaim.experiments import load, query, run

    path = write(tmp_path, """
        class Broken(reclaim.VictimPolicy):
            def select(self, view):
                raise ValueError("not today")
    """)
    f = tmp_path / "broken.toml"
    f.write_text('[base]\nsegments = 64\npages_per_segment = 16\nwarmup = "fill"\nwrites = "3x"\n'
                 f'[axes]\npolicy = ["greedy", "{path}:Broken"]\n')
    report = run([load(f)], tmp_path / "r.duckdb", workers=1)
    assert report.ran == 1 and len(report.failed) == 1
    task, message = report.failed[0]
    assert "not today" in message
    assert query(tmp_path / "r.duckdb", "SELECT policy FROM tasks")[1] == [("greedy:tie=random",)]


def test_a_scheme_without_its_method_is_refused_by_name(tmp_path: Path) -> None:
    path = write(tmp_path, """
        class NoSelect(reclaim.VictimPolicy):
            pass
        class NoClasses(reclaim.Placement):
            pass
    """)
    with pytest.raises(ValueError, match=r"expected a policy that defines `select\(view\)`; NoSelect does not"):
        reclaim.simulate(GOLDEN, policy=f"{path}:NoSelect")
    with pytest.raises(ValueError, match=r"expected a placement that defines `classify_user\(pages, view\)`; NoClasses does not"):
        reclaim.simulate(GOLDEN, placement=f"{path}:NoClasses")


def test_a_policy_reads_any_per_segment_fact_it_declares(tmp_path: Path) -> None:
    # `seal_writes` (the user-write clock at each seal, the ledgers' worked example): among the
    # candidates, the order of seal_writes is the order of sealed_at, and none is in the future.
    path = write(tmp_path, """
        checked = []
        class Reads(reclaim.VictimPolicy):
            facts = ("seal_writes", "sealed_by")
            def select(self, view):
                c = np.flatnonzero(view.valid != reclaim.NOT_CANDIDATE)
                w, s = view.fact("seal_writes")[c], view.sealed_at[c]
                assert np.all(w <= view.now) and np.all(np.diff(w[np.argsort(s)]) >= 0)
                assert view.fact("sealed_by").dtype == np.uint16
                checked.append(c.size)
                return int(view.valid.argmin())
    """)
    reclaim.simulate(GOLDEN, policy=f"{path}:Reads")
    assert len(module_of(path).checked) > 100
    assert {"seal_time", "destage_number", "sealed_by", "up2", "seal_writes"} <= set(reclaim.outside.FACTS)
    bad = tmp_path / "bad"
    bad.mkdir()
    bad_path = write(bad, """
        class Bad(reclaim.VictimPolicy):
            facts = ("colour",)
            def select(self, view):
                return 0
    """)
    with pytest.raises(ValueError, match=r"expected facts among .*; Bad declares colour"):
        reclaim.simulate(GOLDEN, policy=f"{bad_path}:Bad")
