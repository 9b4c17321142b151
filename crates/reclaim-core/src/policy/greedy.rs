//! Greedy cleaning: the sealed segment with the fewest valid pages.
//!
//! Exact, with O(1) work per invalidation (segments bucketed by valid count, see
//! [`super::buckets`]). Ties are broken by a selectable rule, because the rule can move the write
//! amplification by up to about 1%: `random` (the default: Li et al. §3.1's "random
//! tie-breaking", O(1)) or `oldest` (the segment sealed first among the tied ones, the order Li
//! et al. §3.1 use to approximate greedy; it scans the tied segments, which under uniform writes
//! costs about a quarter of the engine's speed), or `fifo` (the one that entered the bucket of its
//! valid count first, by sealing or by losing a page: each bucket a FIFO queue, Stockmeyer §2.3's
//! Sorting = Fifo; `oldest` is his Sorting = Tree with age read as seal order). Van Houdt §1; Li
//! et al. §3.1 (GRA with d = 1).

use super::buckets::ValidBuckets;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::config::Tie;
use crate::store::Store;
use crate::SimRng;

/// Exact greedy.
#[derive(Clone, Debug)]
pub struct Greedy {
    buckets: ValidBuckets,
    tie: Tie,
}

impl Greedy {
    /// Greedy over `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32, tie: Tie) -> Self {
        Greedy {
            buckets: ValidBuckets::ordered(segments, pps, tie),
            tie,
        }
    }
}

impl VictimPolicy for Greedy {
    #[inline]
    fn on_seal(&mut self, seg: u32, _user: bool, store: &Store) {
        self.buckets.insert(seg, store.valid[seg as usize]);
    }

    #[allow(clippy::inline_always)] // measured; see `Policy::on_invalidate`
    #[inline(always)]
    fn on_invalidate(&mut self, seg: u32, _slot: u32, store: &Store) {
        self.buckets.decrement(seg, store.valid[seg as usize]);
    }

    fn on_remove(&mut self, seg: u32, store: &Store) {
        self.buckets.remove(seg, store.valid[seg as usize]);
    }

    #[inline]
    fn prefetch(&self, seg: u32) {
        self.buckets.prefetch(seg);
    }

    #[inline]
    fn prefetch_entry(&self, seg: u32, store: &Store) {
        self.buckets.prefetch_entry(seg, store.valid[seg as usize]);
    }

    #[inline]
    fn likely_victim(&self, _store: &Store, rng: &SimRng) -> Option<u32> {
        match self.tie {
            Tie::Random => self.buckets.peek_min(&mut rng.clone()),
            Tie::Oldest | Tie::Fifo => None,
        }
    }

    fn select(&mut self, store: &Store, _clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        self.buckets.pop_min(self.tie, store, rng)
    }
}
