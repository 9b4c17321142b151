//! The stream that sealed each segment: under `multi-log` (Stoica & Ailamaki), the log a segment
//! belongs to, which the `multi-log` policy cleans log by log.

use super::{Fact, FactArray, Ledger, Ledgers, Per, Sealing};
use crate::geometry::Geometry;
use crate::spec::Need;

/// Each segment's sealing stream.
#[derive(Clone, Debug, Default)]
pub struct SealedBy {
    /// Per segment; empty when not kept.
    pub values: Vec<u16>,
}

impl Ledger for SealedBy {
    const FACT: Fact = Fact {
        name: "sealed_by",
        unit: "stream",
        help: "the stream that sealed each segment (its log, under multi-log)",
        per: Per::Segment,
        need: Need::SealedBy,
        bytes: 2,
    };

    fn new(g: &Geometry) -> Self {
        SealedBy {
            values: vec![0; g.segments as usize],
        }
    }

    fn array(&self) -> FactArray<'_> {
        FactArray::U16(&self.values)
    }

    #[inline]
    fn sealed(&mut self, e: &Sealing) {
        if let Some(b) = self.values.get_mut(e.seg as usize) {
            *b = e.stream;
        }
    }
}

impl Ledgers {
    /// Each segment's sealing stream ([`SealedBy`]; empty when not kept).
    #[inline]
    pub fn sealed_by(&self) -> &[u16] {
        &self.sealed_by.values
    }
}
