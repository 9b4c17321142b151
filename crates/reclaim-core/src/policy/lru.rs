//! LRU: the candidate modified longest ago.
//!
//! The selection SepBIT's artifact (Wang et al., FAST '22) ships as `Lru`
//! (`trace_replay/.../selection/Lru.java`): candidates (sealed segments with at least one invalid
//! page, and under `log` at least the garbage-proportion threshold) sorted by their last
//! modification, the time of the last page appended to them. A segment is sealed by the append
//! that fills it, so its last modification is its sealing: the victim is the candidate sealed
//! first. Segments sealed at the same trace time (in one request, or one cleaning) are in seal
//! order here; the artifact keeps them in its list's (Java `HashMap`) order.
//!
//! Unlike `fifo`, a segment that is not a candidate is passed over and keeps its place. The
//! segments are kept in seal order in a list linked through arrays (O(1) to seal and to remove);
//! a selection walks past the non-candidates at the head.

use std::fmt;

use super::{Declare, VictimPolicy};
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info};
use crate::store::{Store, NONE};

/// Sealed segments in seal order.
#[derive(Clone, Debug)]
pub struct Lru {
    /// Per segment, the next and the previous in seal order ([`NONE`] at the ends).
    next: Vec<u32>,
    prev: Vec<u32>,
    head: u32,
    tail: u32,
    pps: u32,
}

impl Lru {
    /// An empty list for `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32) -> Self {
        Lru {
            next: vec![NONE; segments as usize],
            prev: vec![NONE; segments as usize],
            head: NONE,
            tail: NONE,
            pps,
        }
    }

    fn unlink(&mut self, seg: u32) {
        let (p, n) = (self.prev[seg as usize], self.next[seg as usize]);
        if p == NONE {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.next[seg as usize] = NONE;
        self.prev[seg as usize] = NONE;
    }
}

impl VictimPolicy for Lru {
    fn on_seal(&mut self, seg: u32, _user: bool, _store: &Store) {
        self.prev[seg as usize] = self.tail;
        if self.tail == NONE {
            self.head = seg;
        } else {
            self.next[self.tail as usize] = seg;
        }
        self.tail = seg;
    }

    fn on_remove(&mut self, seg: u32, _store: &Store) {
        self.unlink(seg);
    }

    fn select(&mut self, store: &Store, _clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        let most = (self.pps - 1).min(store.victim_valid_bound);
        let mut seg = self.head;
        while seg != NONE && store.valid[seg as usize] > most {
            seg = self.next[seg as usize];
        }
        if seg == NONE {
            return None;
        }
        self.unlink(seg);
        Some(seg)
    }
}

impl Declare for Lru {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Policy,
        name: "lru",
        aliases: &[],
        summary: "The candidate (a sealed segment with an invalid page) modified longest ago: the one sealed first.",
        source: "SepBIT artifact's Lru.java (Wang et al., FAST '22)",
        params: &[],
        needs: &[],
    };
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show((): &(), f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("lru")
    }
    fn build((): &(), g: &Geometry) -> Self {
        Lru::new(g.segments, g.pages_per_segment)
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// Segments 3, 1, 2, 0 sealed in that order; 1 removed, 3 full of valid pages: the first
    /// choice passes over 3 and takes 2, then 0; 3, still full, is never a candidate.
    #[test]
    fn the_first_sealed_candidate() {
        let mut store = Store::new(&Geometry {
            segments: 4,
            pages_per_segment: 4,
            logical_pages: 8,
        });
        store.valid = vec![1, 2, 3, 4];
        let mut l = Lru::new(4, 4);
        for s in [3, 1, 2, 0] {
            l.on_seal(s, true, &store);
        }
        l.on_remove(1, &store);
        let mut rng = SimRng::seed_from_u64(1);
        let clocks = Clocks::default();
        assert_eq!(l.select(&store, &clocks, &mut rng), Some(2));
        // Under `log` with a bound of 0 valid pages, segment 0 (1 valid) is not a candidate.
        store.victim_valid_bound = 0;
        assert_eq!(l.select(&store, &clocks, &mut rng), None);
        store.victim_valid_bound = u32::MAX;
        assert_eq!(l.select(&store, &clocks, &mut rng), Some(0));
        assert_eq!(l.select(&store, &clocks, &mut rng), None);
    }
}
