//! Each page's last user write on the user-write clock, for the batch sort `sort=written`
//! (relocated pages ordered by when they were last written, oldest first).

use super::{Fact, FactArray, Ledger, Ledgers, Per};
use crate::geometry::Geometry;
use crate::spec::Need;
use crate::workload::Write;

/// Each logical page's last user write [user writes].
#[derive(Clone, Debug, Default)]
pub struct PageWritten {
    /// Per logical page; empty when not kept.
    pub values: Vec<u64>,
}

impl Ledger for PageWritten {
    const FACT: Fact = Fact {
        name: "page_written",
        unit: "user writes",
        help: "the user-write clock at each page's last user write",
        per: Per::Page,
        need: Need::PageWritten,
        bytes: 8,
    };

    fn new(g: &Geometry) -> Self {
        PageWritten {
            values: vec![0; g.logical_pages as usize],
        }
    }

    fn array(&self) -> FactArray<'_> {
        FactArray::U64(&self.values)
    }

    const USER_WRITES: bool = true;

    #[inline]
    fn user_write(&mut self, write: Write, now: u64) {
        if let Some(w) = self.values.get_mut(write.page as usize) {
            *w = now;
        }
    }
}

impl Ledgers {
    /// Each logical page's last user write ([`PageWritten`]; empty when not kept).
    #[inline]
    pub fn page_written(&self) -> &[u64] {
        &self.page_written.values
    }
}
