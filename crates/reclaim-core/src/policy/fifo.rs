//! FIFO (age-based) cleaning: the segment sealed first is cleaned first.
//!
//! Lomet & Luo, "Efficiently Reclaiming Space in a Log Structured Store", §3 (age-based cleaning,
//! analysed by eq. 3–4); Van Houdt §1 ("selects the blocks in a cyclic manner").

use std::collections::VecDeque;

use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info};
use crate::store::Store;

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

    fn next_valid(&self, store: &Store) -> Option<u32> {
        // The first entry that is not stale: a segment's stale entries are its first ones, so
        // an entry is live once as many of the segment's entries as it has stale have passed.
        let mut passed: Vec<(u32, u32)> = Vec::new();
        for &seg in &self.queue {
            let stale = self.stale[seg as usize];
            if stale == 0 {
                return Some(store.valid[seg as usize]);
            }
            let i = (passed.iter().position(|&(s, _)| s == seg)).unwrap_or_else(|| {
                passed.push((seg, 0));
                passed.len() - 1
            });
            if passed[i].1 >= stale {
                return Some(store.valid[seg as usize]);
            }
            passed[i].1 += 1;
        }
        None
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Geometry;
    use rand::SeedableRng;

    /// `next_valid` reads the segment `select` would return, past stale entries: 0 is sealed,
    /// removed and sealed again (its first entry stale), 1 after it; the oldest live entry is
    /// 0's second, then 1.
    #[test]
    fn next_valid_skips_stale_entries_as_select_does() {
        let g = Geometry {
            segments: 3,
            pages_per_segment: 4,
            logical_pages: 4,
        };
        let mut store = Store::new(&g);
        store.valid[0] = 2;
        store.valid[1] = 3;
        let mut f = Fifo::new(3);
        f.on_seal(0, true, &store);
        f.on_remove(0, &store);
        f.on_seal(1, true, &store);
        f.on_seal(0, true, &store);
        assert_eq!(f.next_valid(&store), Some(3));
        let (clocks, mut rng) = (Clocks::default(), SimRng::seed_from_u64(0));
        assert_eq!(f.select(&store, &clocks, &mut rng), Some(1));
        assert_eq!(f.next_valid(&store), Some(2));
        assert_eq!(f.select(&store, &clocks, &mut rng), Some(0));
        assert_eq!(f.next_valid(&store), None);
    }
}
