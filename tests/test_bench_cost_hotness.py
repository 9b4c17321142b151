"""`reclaim bench --sizes` with cost-hotness beside greedy: the policies take turns seed by seed
and each row carries its share of greedy's speed."""

from reclaim.bench import measure_scaling


def test_sizes_rows_carry_each_policys_share_of_greedy() -> None:
    report = measure_scaling(runs=2, segments="64", policies=["greedy", "cost-hotness"], show=False)
    rows = {r["policy"]: r for r in report["rows"]}
    assert list(rows) == ["greedy", "cost-hotness"]
    # Greedy's share of itself: each seed's ratio is x / x, exactly 1.
    assert rows["greedy"]["share_of_greedy"] == 1.0
    ch = rows["cost-hotness"]
    assert len(ch["engine_runs"]) == 2 and ch["segments"] == 64
    assert ch["share_of_greedy"] > 0


def test_sizes_rows_without_greedy_carry_no_share() -> None:
    report = measure_scaling(runs=1, segments="64", policies=["cost-hotness"], show=False)
    assert "share_of_greedy" not in report["rows"][0]
    assert report["rows"][0]["engine_page_writes_per_second"] > 0
