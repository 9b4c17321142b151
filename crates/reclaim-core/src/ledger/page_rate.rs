//! Each page's update rate from its last user write, where the workload knows it (`freq=exact`):
//! MDC-opt keys a relocated page by its own exact rate (Lomet & Luo §6.1.3: "the exact page
//! update frequency"), and the batch sort `sort=up2` orders pages by it.

use super::{Fact, FactArray, Ledger, Ledgers, Per};
use crate::geometry::Geometry;
use crate::spec::Need;
use crate::workload::{Rate, Write};

/// Each logical page's rate.
#[derive(Clone, Debug, Default)]
pub struct PageRate {
    /// Per logical page; empty when not kept.
    pub values: Vec<Rate>,
}

impl Ledger for PageRate {
    const FACT: Fact = Fact {
        name: "page_rate",
        unit: "round(-log2 p * 1024)",
        help: "each page's update rate from its last user write (65535: unknown)",
        per: Per::Page,
        need: Need::PageRate,
        bytes: 2,
    };

    fn new(g: &Geometry) -> Self {
        PageRate {
            values: vec![Rate::UNKNOWN; g.logical_pages as usize],
        }
    }

    fn array(&self) -> FactArray<'_> {
        FactArray::U16(Rate::codes(&self.values))
    }

    const USER_WRITES: bool = true;

    #[inline]
    fn user_write(&mut self, write: Write, _now: u64) {
        if let Some(r) = self.values.get_mut(write.page as usize) {
            *r = write.rate;
        }
    }
}

impl Ledgers {
    /// Each logical page's rate ([`PageRate`]; empty when not kept).
    #[inline]
    pub fn page_rate(&self) -> &[Rate] {
        &self.page_rate.values
    }
}
