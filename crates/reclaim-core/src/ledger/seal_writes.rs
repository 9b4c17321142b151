//! Seal writes: the user-write clock when each segment was sealed. A segment's age stamp
//! (`Store::stamp`) is the time of the youngest data it holds, which a segment filled by
//! relocation inherits from its victims; this is when the segment itself was closed, the age
//! Rosenblum & Ousterhout's cost-benefit would read were a segment's age "the time since it was
//! written" taken literally (§3.6), for a scheme that wants both.
//!
//! The worked example of `docs/design.md`, "Facts (ledgers)": one file and one registration line;
//! a scheme keeps it by declaring `Need::Fact("seal_writes")`.

use super::{Fact, FactArray, Ledger, Per, Sealing};
use crate::geometry::Geometry;
use crate::spec::Need;

/// Each segment's seal time on the user-write clock [user writes].
#[derive(Clone, Debug, Default)]
pub struct SealWrites {
    /// Per segment; empty when not kept.
    pub values: Vec<u64>,
}

impl Ledger for SealWrites {
    const FACT: Fact = Fact {
        name: "seal_writes",
        unit: "user writes",
        help: "the user-write clock when each segment was sealed",
        per: Per::Segment,
        need: Need::Fact("seal_writes"),
        bytes: 8,
    };

    fn new(g: &Geometry) -> Self {
        SealWrites {
            values: vec![0; g.segments as usize],
        }
    }

    fn array(&self) -> FactArray<'_> {
        FactArray::U64(&self.values)
    }

    #[inline]
    fn sealed(&mut self, e: &Sealing) {
        if let Some(w) = self.values.get_mut(e.seg as usize) {
            *w = e.clocks.user_writes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SealWrites;
    use crate::config::SimConfig;
    use crate::ledger::{FactArray, Ledger};
    use crate::sim::Simulator;

    /// Under a single frontier of uniform writes with no warm-up, segments fill in order with
    /// one user write a page and nothing is relocated before the first cleaning: segment k
    /// (k = 0, 1, …) is sealed when its b-th page is written, at user-write clock
    /// (k + 1)·b (the clock counts a write before a full segment is sealed, `sim::core`).
    #[test]
    fn seal_writes_are_the_clock_at_each_seal() {
        let c = SimConfig {
            segments: Some(16),
            pages_per_segment: 4,
            logical_pages: Some(40),
            warmup: Some("none".parse().unwrap()),
            writes: Some("1x".parse().unwrap()),
            ..SimConfig::default()
        };
        let mut sim = Simulator::new(&c).unwrap();
        sim.keep_fact(SealWrites::FACT.name).unwrap();
        sim.step(20).unwrap();
        let Some(FactArray::U64(at)) = sim.store().facts.array(SealWrites::FACT.name) else {
            panic!("kept");
        };
        assert_eq!(at[..5], [4, 8, 12, 16, 20]);
        assert!(at[5..].iter().all(|&w| w == 0), "{at:?}");
    }
}
