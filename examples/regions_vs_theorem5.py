"""Data grouping with regions against Li et al.'s Theorem 5, region by region.

Li et al. §4–5.3 (seed 004): each class gets a region with its own segments, frontier and
greedy cleaning; Theorem 5 sums Corollary 1's per-region cost, Lᵢ·Cᵢ / (k − Cᵢ). This runs the
whole device with ``regions``, then each written region alone (uniform writes over its pages on
its own segments, its share rᵢ·L of the writes), and sets each beside Corollary 1 at the region's
actual spare factor. The regions are independent, so the alone runs add up to the whole; the
table shows which region carries the gap between exact greedy and the model.

Corollary 1's formula is the one for cleaning in age order (FIFO): with u = C̄/k and F = 1 − S it
is Lomet & Luo's eq. 4 (seed 001, §2.2), E = 1 − u = 1 − exp(−E/F), as Li et al. §3.1 says: their
analysis approximates GREEDY by FIFO, the blocks sealed earliest. So the same runs are repeated
with ``fifo`` cleaning in every region: that is the policy the model describes, and it meets
Theorem 5 within about 1%, where exact greedy, which takes the least valid block of many, lies
below it (docs/validation.md, "Data grouping").

Run: .venv/bin/python examples/regions_vs_theorem5.py
"""

from typing import Any

import reclaim
from reclaim.models import li

SETUP: dict[str, Any] = {
    "pages_per_segment": 64,
    "spare": 0.1,
    "workload": "locality:fa=0.1,r=0.8/0.2,f=0.2/0.8",
    "gc": "one-free",
}


def main(segments: int = 8192, writes: int = 5_000_000, warmup: str = "fill+1x", seed: int = 1) -> dict[str, dict[str, float]]:
    """Rows keyed "b_c*", "b_c* region 1", … for greedy and "fifo b_c*", … for age order."""
    rows: dict[str, dict[str, float]] = {}
    for policy in ("greedy", "fifo"):
        rows |= _compare(policy, segments, writes, warmup, seed)
    return rows


def _compare(policy: str, segments: int, writes: int, warmup: str, seed: int) -> dict[str, dict[str, float]]:
    k = SETUP["pages_per_segment"]
    prefix = "" if policy == "greedy" else f"{policy} "
    rows: dict[str, dict[str, float]] = {}
    for allocation, placement in [("b_c*", "regions:spare=optimal"), ("b_w*", "regions:spare=0.862/0.138")]:
        name = prefix + allocation
        whole = reclaim.simulate(
            SETUP, policy=policy, segments=segments, placement=placement, warmup=warmup, writes=writes, seed=seed
        )
        total_alone = total_model = 0.0
        for i, region in enumerate(reclaim.region_layout(SETUP, segments=segments, placement=placement)):
            if region["write_share"] == 0:
                continue  # never written: no cleaning (Li et al. §4, region n + 1)
            share = round(region["write_share"] * writes)
            alone = reclaim.simulate(
                pages_per_segment=k,
                segments=region["segments"],
                logical_pages=region["pages"],
                policy=policy,
                gc=SETUP["gc"],
                workload="uniform",
                warmup="fill+1x",
                writes=share,
                seed=seed,
            )
            c = li.uniform_cost(k, region["spare"])
            model = share * c / (k - c)
            total_alone += alone.gc_writes
            total_model += model
            rows[f"{name} region {i + 1}"] = {
                "segments": region["segments"], "spare": region["spare"], "model": model, "sim": alone.gc_writes
            }
            print(
                f"{name} region {i + 1}: {region['segments']:>5} segments, S_i = {region['spare']:.4f}, "
                f"Corollary 1 {model:>10,.0f}, alone {alone.gc_writes:>10,}, rel {alone.gc_writes / model - 1:+.2%}"
            )
        rows[name] = {"model": total_model, "sim": whole.gc_writes, "alone": total_alone}
        print(
            f"{name} whole device ({placement}, {policy}): model {total_model:,.0f}, regions {whole.gc_writes:,}, "
            f"rel {whole.gc_writes / total_model - 1:+.2%}; regions alone add up to {total_alone:,.0f}"
        )
    return rows


if __name__ == "__main__":
    main()
