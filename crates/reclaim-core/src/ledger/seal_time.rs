//! Seal times: the trace time of each segment's sealing, its last append (SepBIT's artifact's
//! `timestampModifiedInUs`, Wang et al. FAST '22), which SepBIT's cost-benefit form reads as a
//! segment's age (`policy::cost_benefit`, `form=sepbit`). Kept for a scheme that reads trace
//! times (`Need::Times`), which also has the trace's clock ticked.

use super::{Fact, FactArray, Ledger, Ledgers, Per, Sealing};
use crate::geometry::Geometry;
use crate::spec::Need;

/// Each segment's seal time [µs, trace time].
#[derive(Clone, Debug, Default)]
pub struct SealTime {
    /// Per segment; empty when not kept.
    pub values: Vec<u64>,
}

impl Ledger for SealTime {
    const FACT: Fact = Fact {
        name: "seal_time",
        unit: "µs",
        help: "the trace time at which each segment was sealed",
        per: Per::Segment,
        need: Need::Times,
        bytes: 8,
    };

    fn new(g: &Geometry) -> Self {
        SealTime {
            values: vec![0; g.segments as usize],
        }
    }

    fn array(&self) -> FactArray<'_> {
        FactArray::U64(&self.values)
    }

    #[inline]
    fn sealed(&mut self, e: &Sealing) {
        if let Some(t) = self.values.get_mut(e.seg as usize) {
            *t = e.clocks.trace_time;
        }
    }
}

impl Ledgers {
    /// Each segment's seal time ([`SealTime`]; empty when not kept).
    #[inline]
    pub fn seal_time(&self) -> &[u64] {
        &self.seal_time.values
    }
}
