//! u_p2: the estimated update time of a segment's pages' penultimate update (Lomet & Luo §5.2.2),
//! set when the segment is sealed to the mean of its pages' keys, the user-write clock when it
//! has none. Read by MDC's priority `((B−A)/A)² / (C·(u_now − u_p2))` (§4–5, `policy::mdc`), the
//! sort buffer and the batch sort `sort=up2`.
//!
//! The pages' keys gather in the stream filling the segment (`placement::Stream::add_key`) and
//! reach this ledger as [`Sealing::mean_up2`].

use super::{Fact, FactArray, Ledger, Ledgers, Per, Sealing};
use crate::geometry::Geometry;
use crate::spec::Need;

/// Each segment's u_p2 [user writes].
#[derive(Clone, Debug, Default)]
pub struct Up2 {
    /// Per segment; empty when not kept.
    pub values: Vec<f64>,
}

impl Ledger for Up2 {
    const FACT: Fact = Fact {
        name: "up2",
        unit: "user writes",
        help: "each segment's u_p2, its pages' estimated penultimate update (Lomet & Luo §5.2.2)",
        per: Per::Segment,
        need: Need::Up2,
        bytes: 8,
    };

    fn new(g: &Geometry) -> Self {
        Up2 {
            values: vec![0.0; g.segments as usize],
        }
    }

    fn array(&self) -> FactArray<'_> {
        FactArray::F64(&self.values)
    }

    #[inline]
    fn sealed(&mut self, e: &Sealing) {
        if let Some(u) = self.values.get_mut(e.seg as usize) {
            *u = e.mean_up2.unwrap_or(e.clocks.user_writes as f64);
        }
    }
}

impl Ledgers {
    /// Each segment's u_p2 ([`Up2`]; empty when not kept).
    #[inline]
    pub fn up2(&self) -> &[f64] {
        &self.up2.values
    }

    /// Whether u_p2 is kept.
    #[inline]
    pub fn keeps_up2(&self) -> bool {
        !self.up2.values.is_empty()
    }
}
