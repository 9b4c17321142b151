"""The engine's facts (crates/reclaim-core/src/ledger) as the bindings give them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from reclaim import _core


def test_facts_are_listed_with_unit_help_and_extent() -> None:
    facts = {f["name"]: f for f in _core.facts()}
    # The ledgers registered in crates/reclaim-core/src/ledger/mod.rs.
    assert set(facts) == {
        "destage_number", "up2", "sealed_by", "seal_time", "page_class", "page_rate", "page_written", "seal_writes",
    }
    assert facts["up2"]["per"] == "segment" and facts["up2"]["bytes"] == 8
    assert facts["page_class"]["per"] == "page" and facts["page_class"]["bytes"] == 2
    assert all(f["help"] and f["unit"] for f in facts.values())


def test_a_kept_fact_reads_as_an_array_and_an_unkept_one_is_empty() -> None:
    config = {"segments": 16, "pages_per_segment": 4, "logical_pages": 40, "warmup": "none", "writes": "1x"}
    sim = _core.Simulator(json.dumps(config))
    sim.keep_fact("seal_writes")
    sim.step(20)
    # A single frontier with no warm-up seals segment k at user write (k + 1)·b, b = 4, before
    # any cleaning (the Rust test `ledger::seal_writes` checks the same).
    at = sim.fact("seal_writes")
    assert at.dtype == np.uint64
    assert at[:5].tolist() == [4, 8, 12, 16, 20]
    # Greedy on a single frontier reads no destage number: not kept.
    assert sim.fact("destage_number").size == 0
    with pytest.raises(ValueError, match="fact"):
        sim.fact("no-such-fact")
    with pytest.raises(ValueError, match="first write"):
        sim.keep_fact("up2")


def test_mdc_keeps_u_p2_per_segment() -> None:
    config = {"segments": 64, "pages_per_segment": 8, "spare": 0.2, "policy": "mdc", "placement": "sort-buffer", "warmup": "fill", "writes": "1x"}
    sim = _core.Simulator(json.dumps(config))
    while sim.step(10_000):
        pass
    up2 = sim.fact("up2")
    # MDC and the sort buffer declare Need::Up2 (policy/mdc.rs, placement/sort_buffer.rs): one
    # u_p2 per segment, each at most the user-write clock when its segment was sealed (Lomet &
    # Luo §5.2.2: an estimate of a past update time), so at most the writes of the whole run.
    assert up2.dtype == np.float64 and up2.size == 64
    total = sim.progress()[1]
    assert (up2 <= total).all() and (up2 > 0).any()
