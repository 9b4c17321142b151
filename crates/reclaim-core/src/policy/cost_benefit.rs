//! Cost-benefit cleaning: the largest (1 − u)·age / (1 + u).
//!
//! M. Rosenblum, J. K. Ousterhout, "The Design and Implementation of a Log-Structured File
//! System", ACM TOCS 10(1), 1992, §3.6 (cited by Van Houdt [19] and Lomet & Luo). u is the
//! segment's valid fraction; age is the user-write clock now less the segment's stamp, the time
//! its youngest data was written (a relocated page keeps its victim's stamp). Exact: every
//! sealed segment is scored at each selection, O(segments).

use super::VictimPolicy;
use crate::store::Store;
use crate::SimRng;

/// Cost-benefit.
#[derive(Clone, Copy, Debug)]
pub struct CostBenefit;

impl VictimPolicy for CostBenefit {
    fn select(&mut self, store: &Store, now: u64, _rng: &mut SimRng) -> Option<u32> {
        let b = f64::from(store.pps);
        let mut best: Option<(f64, u32)> = None;
        for &seg in store.sealed.as_slice() {
            let i = seg as usize;
            let u = f64::from(store.valid[i]) / b;
            let age = now.saturating_sub(store.stamp[i]) as f64;
            let benefit = (1.0 - u) * age / (1.0 + u);
            if best.is_none_or(|(top, _)| benefit > top) {
                best = Some((benefit, seg));
            }
        }
        best.map(|(_, seg)| seg)
    }
}
