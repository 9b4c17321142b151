//! Sealed segments bucketed by valid-page count: O(1) insert, remove and move, and the
//! least-valid non-empty bucket in O(b) at worst (usually O(1) from a kept lower bound).
//! The index behind exact greedy, GRA(d) and windowed greedy.

use rand::Rng;

use crate::policy::greedy::Tie;
use crate::store::{Store, NONE};

/// The [`crate::policy::VictimPolicy`] hooks of a policy whose candidates are a [`ValidBuckets`]
/// field `buckets` (greedy, GRA): seals, invalidations, removals and prefetches go to the index.
macro_rules! bucket_hooks {
    () => {
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
        fn prefetch(&self, seg: u32, _page: u32) {
            self.buckets.prefetch(seg);
        }

        #[inline]
        fn prefetch_entry(&self, seg: u32, store: &Store) {
            self.buckets.prefetch_entry(seg, store.valid[seg as usize]);
        }
    };
}
pub(crate) use bucket_hooks;

/// Buckets of segments by valid count.
#[derive(Clone, Debug)]
pub struct ValidBuckets {
    buckets: Vec<Vec<u32>>,
    pos: Vec<u32>,
    /// No non-empty bucket below this index.
    low: usize,
    len: usize,
    /// Per segment, when it entered its bucket (empty unless arrival order is kept).
    entered: Vec<u64>,
    arrivals: u64,
}

impl ValidBuckets {
    /// Empty buckets for `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32) -> Self {
        ValidBuckets {
            buckets: vec![Vec::new(); pps as usize + 1],
            pos: crate::memory::filled(segments as usize, NONE),
            low: 0,
            len: 0,
            entered: Vec::new(),
            arrivals: 0,
        }
    }

    /// Empty buckets that keep what `tie` needs to break ties.
    pub fn ordered(segments: u32, pps: u32, tie: Tie) -> Self {
        let mut b = Self::new(segments, pps);
        if tie == Tie::Fifo {
            b.keep_arrival_order();
        }
        b
    }

    /// Keeps the order in which segments enter their buckets, for [`Tie::Fifo`] (8 bytes per
    /// segment).
    pub fn keep_arrival_order(&mut self) {
        self.entered = vec![0; self.pos.len()];
    }

    /// Number of segments held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Segments held with `valid` valid pages.
    pub fn bucket_len(&self, valid: usize) -> usize {
        self.buckets.get(valid).map_or(0, Vec::len)
    }

    /// True when no segment is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when `seg` is held.
    #[inline]
    pub fn contains(&self, seg: u32) -> bool {
        self.pos[seg as usize] != NONE
    }

    /// Brings `seg`'s position entry into the cache ahead of a [`Self::decrement`].
    #[inline]
    pub fn prefetch(&self, seg: u32) {
        crate::store::prefetch(&self.pos[seg as usize]);
    }

    /// Brings in what a [`Self::decrement`] of `seg`, now with `valid` valid pages, touches
    /// besides its position: its slot in its bucket and the position entry of the bucket's last
    /// segment, which moves into that slot. Reads `seg`'s position, which [`Self::prefetch`]
    /// brought in a write or two before.
    #[inline]
    pub fn prefetch_entry(&self, seg: u32, valid: u32) {
        let i = self.pos[seg as usize];
        if i == NONE {
            return;
        }
        if let Some(b) = self.buckets.get(valid as usize) {
            if let Some(x) = b.get(i as usize) {
                crate::store::prefetch(x);
            }
            if let Some(&last) = b.last() {
                crate::store::prefetch(&self.pos[last as usize]);
            }
        }
    }

    /// Adds `seg` with `valid` valid pages.
    #[inline]
    pub fn insert(&mut self, seg: u32, valid: u32) {
        let b = &mut self.buckets[valid as usize];
        self.pos[seg as usize] = b.len() as u32;
        b.push(seg);
        if !self.entered.is_empty() {
            self.entered[seg as usize] = self.arrivals;
            self.arrivals += 1;
        }
        self.low = self.low.min(valid as usize);
        self.len += 1;
    }

    /// Removes `seg`, which is in bucket `valid`.
    #[inline]
    pub fn remove(&mut self, seg: u32, valid: u32) {
        let i = self.pos[seg as usize] as usize;
        let b = &mut self.buckets[valid as usize];
        let last = *b.last().expect("segment is in its bucket");
        b[i] = last;
        self.pos[last as usize] = i as u32;
        b.pop();
        self.pos[seg as usize] = NONE;
        self.len -= 1;
    }

    /// `seg` lost one valid page (it had `valid + 1`).
    #[inline]
    pub fn decrement(&mut self, seg: u32, valid: u32) {
        self.remove(seg, valid + 1);
        self.insert(seg, valid);
    }

    fn lowest(&mut self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        while self.buckets[self.low].is_empty() {
            self.low += 1;
        }
        Some(self.low)
    }

    /// The segments held with `valid` valid pages, in no particular order.
    pub fn with_valid(&self, valid: u32) -> &[u32] {
        self.buckets.get(valid as usize).map_or(&[], Vec::as_slice)
    }

    /// The fewest valid pages of a segment held, if any.
    pub fn min_valid(&self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        (self.low..self.buckets.len())
            .find(|&v| !self.buckets[v].is_empty())
            .map(|v| v as u32)
    }

    /// The segment [`Self::pop_min`] with [`Tie::Random`] would take out, drawing from `rng`
    /// as it would, without taking it out.
    #[inline]
    pub fn peek_min<R: Rng>(&self, rng: &mut R) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let b = self.buckets[self.low..].iter().find(|b| !b.is_empty())?;
        Some(b[rng.random_range(0..b.len())])
    }

    /// Takes out a segment with the fewest valid pages, ties broken by `tie`.
    pub fn pop_min<R: Rng>(&mut self, tie: Tie, store: &Store, rng: &mut R) -> Option<u32> {
        let v = self.lowest()?;
        let b = &self.buckets[v];
        let seg = match tie {
            Tie::Random => b[rng.random_range(0..b.len())],
            // The bucket is scanned: it holds only the segments tied at the minimum, which is a
            // thin tail of the distribution in steady state.
            Tie::Oldest => *b
                .iter()
                .min_by_key(|&&s| store.sealed_at[s as usize])
                .expect("non-empty"),
            Tie::Fifo => {
                assert!(
                    !self.entered.is_empty(),
                    "arrival order is kept for `tie=fifo`"
                );
                *b.iter()
                    .min_by_key(|&&s| self.entered[s as usize])
                    .expect("non-empty")
            }
        };
        self.remove(seg, v as u32);
        Some(seg)
    }

    /// Takes out the segment of rank `rank` (0-based) in increasing valid count, choosing
    /// uniformly among the segments of the bucket that rank falls in (random tie-breaking).
    pub fn pop_rank<R: Rng>(&mut self, rank: usize, rng: &mut R) -> Option<u32> {
        let mut v = self.lowest()?;
        let mut below = 0usize;
        loop {
            let n = self.buckets[v].len();
            if rank < below + n {
                let seg = self.buckets[v][rng.random_range(0..n)];
                self.remove(seg, v as u32);
                return Some(seg);
            }
            below += n;
            v += 1;
            if v >= self.buckets.len() {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Geometry;
    use rand::SeedableRng;

    /// Stockmeyer §2.3's Sorting = Fifo: a segment joins the tail of its bucket when it enters
    /// it, by sealing or by losing a page. Hand-worked: 0 (1 valid), 1 (2 valid), 2 (1 valid)
    /// sealed in that order; 1 then loses a page and joins bucket 1 behind 0 and 2.
    #[test]
    fn fifo_ties_follow_arrival_in_the_bucket() {
        let store = Store::new(&Geometry {
            segments: 4,
            pages_per_segment: 4,
            logical_pages: 8,
        });
        let mut rng = crate::rng::SimRng::seed_from_u64(1);
        let mut b = ValidBuckets::ordered(4, 4, Tie::Fifo);
        b.insert(0, 1);
        b.insert(1, 2);
        b.insert(2, 1);
        b.decrement(1, 1);
        let order: Vec<u32> = (0..3)
            .map(|_| b.pop_min(Tie::Fifo, &store, &mut rng).unwrap())
            .collect();
        assert_eq!(order, [0, 2, 1]);
        assert!(b.is_empty());
    }

    /// `min_valid` is the bucket `pop_min` takes from: 3 then 5 valid after 3's segment goes.
    #[test]
    fn min_valid_is_the_lowest_held_bucket() {
        let mut b = ValidBuckets::new(4, 8);
        assert_eq!(b.min_valid(), None);
        b.insert(0, 5);
        b.insert(1, 3);
        assert_eq!(b.min_valid(), Some(3));
        b.remove(1, 3);
        assert_eq!(b.min_valid(), Some(5));
    }
}
