//! Windowed greedy: greedy among the w sealed segments sealed longest ago.
//!
//! X. Hu, E. Eleftheriou, R. Haas, I. Iliadis, R. Pletka, "Write amplification analysis in
//! flash-based solid state drives", SYSTOR 2009 (cited by Van Houdt [11]). w = 1 is FIFO, w = N
//! is greedy.

use std::collections::VecDeque;

use super::greedy::Tie;
use super::greedy::TIE;
use super::index::buckets::ValidBuckets;
use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Param};
use crate::store::{SegState, Store};

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
            // The next sealed segment in seal order takes its place (its own entry lies before
            // the boundary, so it cannot come back). Without this a window emptied by removals
            // had no victim to give while sealed segments waited behind it.
            self.fill_window(store);
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

/// The parameters of windowed greedy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowedSpec {
    /// Window size, 1 ≤ w ≤ segments.
    pub w: u32,
    /// Tie rule inside the window.
    pub tie: Tie,
}

impl Declare for Windowed {
    type Params = WindowedSpec;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "windowed",
        aliases: &[],
        summary:
            "Greedy among the w segments sealed longest ago (w = 1 FIFO, w = segments greedy).",
        source: "Hu et al., SYSTOR 2009 (cited by Van Houdt)",
        params: &[
            Param {
                key: "w",
                values: "W",
                unit: "segments",
                range: "a whole number in [1, segments]",
                default: None,
                help: "Window: the oldest sealed segments considered.",
            },
            TIE,
        ],
        needs: &[],
    };
    fn parse(args: &Args<'_>) -> Result<WindowedSpec> {
        Ok(WindowedSpec {
            w: args.num("w", None, "a whole number ≥ 1")?,
            tie: Tie::parse(args)?,
        })
    }
    fn show(p: &WindowedSpec, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "windowed:w={},tie={}", p.w, p.tie)
    }
    fn build(p: &WindowedSpec, g: &Geometry) -> Self {
        Windowed::new(g.segments, g.pages_per_segment, p.w, p.tie)
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::geometry::Geometry;

    /// Hu et al.'s window holds the w segments sealed longest ago: when one of them empties by
    /// itself and leaves (`free_empty`), the next in seal order takes its place. Segments 0, 1, 2
    /// sealed in that order with 3, 1, 2 valid pages of 4; w = 1 holds segment 0; segment 0
    /// leaves, so the window holds segment 1, and the choices are 1 then 2.
    #[test]
    fn a_segment_leaving_the_window_is_replaced_in_seal_order() {
        let g = Geometry {
            segments: 4,
            pages_per_segment: 4,
            logical_pages: 8,
        };
        let mut store = Store::new(&g);
        let mut w = Windowed::new(4, 4, 1, Tie::Fifo);
        for (seg, valid) in [(0, 3), (1, 1), (2, 2)] {
            store.state[seg] = SegState::Sealed;
            store.sealed_at[seg] = seg as u64 + 1;
            store.valid[seg] = valid;
            w.on_seal(seg as u32, true, &store);
        }
        w.on_remove(0, &store);
        store.state[0] = SegState::Free;
        let clocks = Clocks::default();
        let mut rng = SimRng::seed_from_u64(1);
        assert_eq!(w.select(&store, &clocks, &mut rng), Some(1));
        store.state[1] = SegState::Free;
        assert_eq!(w.select(&store, &clocks, &mut rng), Some(2));
    }
}
