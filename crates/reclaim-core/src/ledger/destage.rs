//! Destage sequence numbers: the age clock of Stockmeyer's LSA (§2.3). A segment sealed from a
//! destage (user) stream takes the destage counter; one sealed from an FSC (GC) stream, the
//! largest number among the segments that contributed its pages ("set to the maximum of the
//! destage sequence numbers of the segments that contributed tracks"; the rule is the run's
//! `placement::FscNumber`). Read by the age-ordered policies (`fitness`, the age-sorted buckets),
//! the placements that read ages and the batch sort `sort=dseq`.

use super::{Fact, FactArray, Ledger, Ledgers, Per, Sealing};
use crate::geometry::Geometry;
use crate::spec::Need;

/// Each segment's destage sequence number [destage clock].
#[derive(Clone, Debug, Default)]
pub struct DestageNumbers {
    /// Per segment; empty when not kept.
    pub values: Vec<u64>,
}

impl Ledger for DestageNumbers {
    const FACT: Fact = Fact {
        name: "destage_number",
        unit: "destage sequence number",
        help: "each segment's destage sequence number (Stockmeyer §2.3)",
        per: Per::Segment,
        need: Need::DestageNumbers,
        bytes: 8,
    };

    fn new(g: &Geometry) -> Self {
        DestageNumbers {
            values: vec![0; g.segments as usize],
        }
    }

    fn array(&self) -> FactArray<'_> {
        FactArray::U64(&self.values)
    }

    #[inline]
    fn sealed(&mut self, e: &Sealing) {
        if let Some(d) = self.values.get_mut(e.seg as usize) {
            *d = if e.user {
                e.clocks.destage
            } else {
                e.fsc_number
            };
        }
    }
}

impl Ledgers {
    /// Each segment's destage sequence number ([`DestageNumbers`]; empty when not kept).
    #[inline]
    pub fn dseq(&self) -> &[u64] {
        &self.dseq.values
    }
}
