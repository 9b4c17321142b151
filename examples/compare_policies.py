"""Compare victim policies under hot/cold writes with one and two write frontiers.

Run: .venv/bin/python examples/compare_policies.py
"""

import reclaim

POLICIES = ["fifo", "greedy", "d-choices:d=10", "cost-benefit"]


def main(segments: int = 1024) -> dict[tuple[str, str], float]:
    table = {}
    for frontier in ["single", "double:copy=random"]:
        for policy in POLICIES:
            r = reclaim.simulate(
                segments=segments,
                pages_per_segment=64,
                spare=0.1,
                policy=policy,
                frontier=frontier,
                workload="hotcold:r=0.9,f=0.1",
                warmup="fill+5x",
                writes="10x",
            )
            table[(frontier, policy)] = r.wa
            print(f"{frontier:<20} {policy:<16} wa = {r.wa:.3f}")
    return table


if __name__ == "__main__":
    main()
