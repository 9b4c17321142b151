//! FIFO (age-based) cleaning: the segment sealed first is cleaned first.
//!
//! Lomet & Luo, "Efficiently Reclaiming Space in a Log Structured Store", §3 (age-based cleaning,
//! analysed by eq. 3–4); Van Houdt §1 ("selects the blocks in a cyclic manner").

use std::collections::VecDeque;

use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::config::grammar::{Args, Family, Info};
use crate::error::Result;
use crate::geometry::Geometry;
use crate::store::Store;
use crate::rng::SimRng;

/// Sealed segments in seal order.
#[derive(Clone, Debug)]
pub struct Fifo {
    queue: VecDeque<u32>,
    /// Per segment, entries of it in `queue` that are stale (it was removed, not selected);
    /// they lie before any live entry of the same segment.
    stale: Vec<u32>,
}

impl Fifo {
    /// An empty queue for `segments` segments.
    pub fn new(segments: u32) -> Self {
        Fifo {
            queue: VecDeque::with_capacity(segments as usize),
            stale: vec![0; segments as usize],
        }
    }
}

impl VictimPolicy for Fifo {
    fn on_seal(&mut self, seg: u32, _user: bool, _store: &Store) {
        self.queue.push_back(seg);
    }

    fn on_remove(&mut self, seg: u32, _store: &Store) {
        self.stale[seg as usize] += 1;
    }

    fn select(&mut self, _store: &Store, _clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        loop {
            let seg = self.queue.pop_front()?;
            let stale = &mut self.stale[seg as usize];
            if *stale == 0 {
                return Some(seg);
            }
            *stale -= 1;
        }
    }
}

impl Declare for Fifo {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Policy,
        name: "fifo",
        aliases: &["age"],
        summary: "The oldest sealed segment first.",
        source: "Lomet & Luo §3 (age-based cleaning, eq. 3–4); Van Houdt §1",
        params: &[],
        needs: &[],
    };
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show((): &(), f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fifo")
    }
    fn build((): &(), g: &Geometry) -> Self {
        Fifo::new(g.segments)
    }
}
