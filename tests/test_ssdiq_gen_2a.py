"""SSD-iq's `gen` and `2a` against ssdiq_plus's simulator at a small setting.

The peer figures come from `LeeBohyun/ssdiq_plus` `sim/` (built here as docs/peers.md says) at
`CAPACITY=1G ERASE=1M PAGE=4K SSDFILL=0.875 LOAD=true WRITES=10` (1,024 blocks of 256 pages,
229,376 logical pages, its init phase then 10 logical capacities measured), the last row's
`cumulativeWAF`. Its write buffer is ⌊0.0004 × 229,376⌋ = 91 pages (`sim/SSD.hpp`,
`writeBufferSizePct`); the runs "without the buffer" set its size to 0 in a local copy (the one
line of `SSD`'s constructor that sizes it read from an environment variable), nothing else
changed. The peer seeds from `std::random_device`: each figure is the mean of the runs listed.
"""

from __future__ import annotations

from typing import Any

import pytest
import reclaim

#: ssdiq_plus's setting above, as scripts/ssdiq-side-by-side.py matches it (`geometry`).
SMALL: dict[str, Any] = {
    "segments": 1024,
    "pages_per_segment": 256,
    "logical_pages": 229_376,
    "warmup": "fill+1.142857143x",
    "writes": "2293700",
    "gc": "frontier",
    "policy": "greedy",
}
ZONES_80 = "zones:s=0.8/0.2,f=0.2/0.8"
ZONES_95 = "zones:s=0.95/0.05,f=0.05/0.95"

#: ssdiq_plus `GC=2a-4`, zones 80/20, with its 91-page buffer: 3.364004, 3.3589.
PEER_2A_80_BUFFER = 3.3615
#: The same without the buffer: 3.147107, 3.152228, 3.15146.
PEER_2A_80 = 3.1503
#: ssdiq_plus `GC=2a-4`, zones 95/5, with its buffer: ten runs, none of which finishes. Each stops
#: (`raise(SIGINT)` in `TwoAGC::singleGreedyGroup`, "ERROR in greedy!": a group whose full blocks
#: are all wholly valid) after 24 to 55 of its 100 rows; the last rows' `cumulativeWAF` 2.376 to
#: 2.813. The cumulative WAF of each run at its 24th row (all ten reached it): 2.354269, 2.271657,
#: 2.251194, 2.337628, 2.295828, 2.353410, 2.321725, 2.325958, 2.281963, 2.327486.
PEER_2A_95_BUFFER_24 = 2.3121
#: The same at the 33rd row, of the eight runs that reached it: 2.606062, 2.389173, 2.419322,
#: 2.521863, 2.497201, 2.490960, 2.617810, 2.482218.
PEER_2A_95_BUFFER_33 = 2.5031
#: The peer's rows: a tenth of the logical pages each, ⌊229,376 / 10⌋ (`runBench`).
ROW = 22_937
#: ssdiq_plus `GC=gen`, zones 95/5, without the buffer: 4.707083, 4.729549, 4.680333, 4.739806,
#: 4.851571, 4.644896 (they spread by ±2.2%).
PEER_GEN_95 = 4.7255
#: The same on zones 80/20: 4.310096, 4.311213.
PEER_GEN_80 = 4.3107


def wa_of(**kw: Any) -> float:
    """reclaim's WA on the small setting; under a cache, flash writes over host writes, as the
    peer counts it (the host writes are the measured writes)."""
    config = {**SMALL, **kw}
    r = reclaim.simulate(config)
    host = int(config["writes"]) if "cache" in kw else r.user_writes
    return (r.user_writes + r.gc_writes) / host


def test_2a_writes_an_evicted_page_to_the_evicting_writes_head() -> None:
    # With the peer's buffer the evicted page goes into the head chosen for the host write that
    # evicted it (`SSD::writePage`), which mixes the heads' user blocks: WA rises by 6.7% in
    # the peer (3.1503 -> 3.3615) and reclaim follows it.
    buffered = wa_of(workload=ZONES_80, placement="2a:heads=4", cache=91, seed=1)
    assert buffered == pytest.approx(PEER_2A_80_BUFFER, rel=0.015)
    # The other reading, the cache unseen (each page reaching the store to its own head, timed
    # then), is below the peer by more than 4% (3.1454 here; -6.7% once measured at 16 GiB).
    own = wa_of(workload=ZONES_80, placement="2a:heads=4,evict=own", cache=91, seed=1)
    assert own < PEER_2A_80_BUFFER * 0.96
    # Without a buffer both sides agree (reclaim 3.1478 here; 3.3640 above with it).
    assert wa_of(workload=ZONES_80, placement="2a:heads=4", seed=1) == pytest.approx(PEER_2A_80, rel=0.01)


def test_2a_on_95_5_under_the_buffer_agrees_over_the_peers_rows() -> None:
    # The peer's runs stop partway and its running WA rises along a run (rows 1, 24 and 32 of
    # its ten runs: 1.99, 2.73, 3.29 on average), so its last row's cumulative WAF is not the
    # full run's; reclaim runs all 100 rows (2.953-3.265 over seeds 1-6). Over the rows the
    # peer did write, the two agree: seeds 1-3 give 2.2689, 2.3486, 2.2796 over 24 rows and
    # 2.4369, 2.6529, 2.4327 over 33.
    for rows, peer, rel in ((24, PEER_2A_95_BUFFER_24, 0.02), (33, PEER_2A_95_BUFFER_33, 0.03)):
        runs = (wa_of(workload=ZONES_95, placement="2a:heads=4", cache=91, seed=s, writes=str(rows * ROW)) for s in (1, 2, 3))
        wa = sum(runs) / 3
        assert wa == pytest.approx(peer, rel=rel), rows


def test_2a_evict_is_moot_without_a_cache() -> None:
    # No page is evicted, so the two readings write every page to its own head: the same run.
    small = {"segments": 128, "pages_per_segment": 32, "spare": 0.15, "workload": "hotcold:r=0.9,f=0.1", "writes": "4x", "seed": 3}
    a = reclaim.simulate({**small, "placement": "2a"})
    b = reclaim.simulate({**small, "placement": "2a:evict=own"})
    assert (a.user_writes, a.gc_writes) == (b.user_writes, b.gc_writes)
    assert a.config.placement == "2a:heads=4,clean=2a"
    assert b.config.placement == "2a:heads=4,clean=2a,evict=own"


def test_2a_evict_names_its_values() -> None:
    with pytest.raises(ValueError, match="evict"):
        reclaim.simulate({"segments": 128, "pages_per_segment": 32, "placement": "2a:evict=newest"})


def test_gen_follows_the_peers_heads_on_strong_skew() -> None:
    # A cycle's GC head is its victim compacted in place, of that victim's generation + 1
    # (`compactBlock`); when every relocated page went one generation above the cycle's instead,
    # reclaim was +6% here (4.976-5.120 over seeds 1-2). Seeds 1-3: 4.6447, 4.6437, 4.7574.
    mean = sum(wa_of(workload=ZONES_95, placement="gen", seed=s) for s in (1, 2, 3)) / 3
    assert mean == pytest.approx(PEER_GEN_95, rel=0.02)
    assert wa_of(workload=ZONES_80, placement="gen", seed=1) == pytest.approx(PEER_GEN_80, rel=0.01)
