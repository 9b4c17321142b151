//! Windowed greedy: greedy among the w sealed segments sealed longest ago.
//!
//! X. Hu, E. Eleftheriou, R. Haas, I. Iliadis, R. Pletka, "Write amplification analysis in
//! flash-based solid state drives", SYSTOR 2009 (cited by Van Houdt [11]). w = 1 is FIFO, w = N
//! is greedy.

use std::collections::VecDeque;

use super::buckets::ValidBuckets;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::config::Tie;
use crate::store::{SegState, Store};
use crate::SimRng;

/// Windowed greedy.
#[derive(Clone, Debug)]
pub struct Windowed {
    /// Sealed segments in seal order, with their seal numbers; an entry whose segment has been
    /// cleaned or removed since is stale, and is dropped when it reaches the window.
    order: VecDeque<(u32, u64)>,
    /// Entries `[0, boundary)` of `order` are in the window or stale.
    boundary: usize,
    window: ValidBuckets,
    w: usize,
    tie: Tie,
}

impl Windowed {
    /// Window of `w` segments over `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32, w: u32, tie: Tie) -> Self {
        Windowed {
            order: VecDeque::with_capacity(segments as usize),
            boundary: 0,
            window: ValidBuckets::ordered(segments, pps, tie),
            w: w as usize,
            tie,
        }
    }

    fn fill_window(&mut self, store: &Store) {
        while self.window.len() < self.w && self.boundary < self.order.len() {
            let (seg, at) = self.order[self.boundary];
            // Entries of segments removed while outside the window are stale: skipped.
            if store.sealed_at[seg as usize] == at && store.state[seg as usize] == SegState::Sealed
            {
                self.window.insert(seg, store.valid[seg as usize]);
            }
            self.boundary += 1;
        }
    }
}

impl VictimPolicy for Windowed {
    fn on_seal(&mut self, seg: u32, _user: bool, store: &Store) {
        self.order.push_back((seg, store.sealed_at[seg as usize]));
        self.fill_window(store);
    }

    #[allow(clippy::inline_always)] // measured; see `Policy::on_invalidate`
    #[inline(always)]
    fn on_invalidate(&mut self, seg: u32, _slot: u32, store: &Store) {
        if self.window.contains(seg) {
            self.window.decrement(seg, store.valid[seg as usize]);
        }
    }

    fn on_remove(&mut self, seg: u32, store: &Store) {
        // Its entry in `order` goes stale: the store will not hold it sealed at that seal number.
        if self.window.contains(seg) {
            self.window.remove(seg, store.valid[seg as usize]);
        }
    }

    fn select(&mut self, store: &Store, _clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        let victim = self.window.pop_min(self.tie, store, rng)?;
        // Drop stale entries (victims already taken) from the front of the window part.
        while self.boundary > 0 {
            let (seg, at) = self.order[0];
            let live =
                seg != victim && self.window.contains(seg) && store.sealed_at[seg as usize] == at;
            if live {
                break;
            }
            self.order.pop_front();
            self.boundary -= 1;
        }
        self.fill_window(store);
        Some(victim)
    }
}
