//! Each page's class from its last user write, for the placements that route a relocated page
//! by its class (the oracle grouping of Li et al. §4, MDC-opt's and multi-log-opt's classes): a
//! relocated page has no write record of its own, so its class is the one it was last written
//! with (DESIGN: "an oracle gets its class from the write, never from the generator").

use super::{Fact, FactArray, Ledger, Ledgers, Per};
use crate::geometry::Geometry;
use crate::spec::Need;
use crate::workload::Write;

/// Each logical page's class.
#[derive(Clone, Debug, Default)]
pub struct PageClass {
    /// Per logical page; empty when not kept.
    pub values: Vec<u16>,
}

impl Ledger for PageClass {
    const FACT: Fact = Fact {
        name: "page_class",
        unit: "class",
        help: "each page's class, from its last user write",
        per: Per::Page,
        need: Need::PageClass,
        bytes: 2,
    };

    fn new(g: &Geometry) -> Self {
        PageClass {
            values: vec![0; g.logical_pages as usize],
        }
    }

    fn array(&self) -> FactArray<'_> {
        FactArray::U16(&self.values)
    }

    const USER_WRITES: bool = true;

    #[inline]
    fn user_write(&mut self, write: Write, _now: u64) {
        if let Some(c) = self.values.get_mut(write.page as usize) {
            *c = write.class;
        }
    }
}

impl Ledgers {
    /// Each logical page's class ([`PageClass`]; empty when not kept).
    #[inline]
    pub fn page_class(&self) -> &[u16] {
        &self.page_class.values
    }
}
