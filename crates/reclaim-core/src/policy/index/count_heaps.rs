//! An index of sealed segments by valid count, each count's segments in a min-heap of a key that
//! the policy chooses: the exact index behind the policies whose score is a function of the valid
//! count and one per-segment quantity, monotone in that quantity (cost-benefit: the age stamp;
//! MDC: u_p2). Among segments of one valid count the smallest key scores best, so a selection
//! scores only the b + 1 heap tops: O(b) per victim and O(log n) per invalidation, instead of
//! O(segments) per victim.
//!
//! Heaps are kept lazily: a segment's entries carry the version it had when pushed, and an entry
//! whose version is no longer its segment's is stale and dropped when it reaches the top (or when
//! the stale entries outnumber the live ones). Ties of equal key go to the lower segment number.

use super::min_heap::MinHeap;
use crate::store::Store;

/// Heap entry: key, segment, and the segment's version when it was pushed.
type Entry = (u64, u32, u64);

/// Sealed segments by valid count, smallest key on top of each count's heap.
#[derive(Clone, Debug)]
pub struct CountHeaps {
    /// Per valid count v = 0..=b, the indexed segments with that count.
    heaps: Vec<MinHeap<Entry>>,
    /// Live (non-stale) entries per heap, to bound the stale ones.
    live: Vec<usize>,
    /// Per segment: the version of its one live entry; bumped whenever the segment moves or
    /// leaves the index, which makes its older entries stale (64 bits: never wraps).
    version: Vec<u64>,
}

impl CountHeaps {
    /// An empty index for `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32) -> Self {
        CountHeaps {
            heaps: vec![MinHeap::default(); pps as usize + 1],
            live: vec![0; pps as usize + 1],
            version: vec![0; segments as usize],
        }
    }

    /// Valid counts indexed: b + 1.
    pub fn counts(&self) -> usize {
        self.heaps.len()
    }

    /// Indexes `seg`, which has `valid` valid pages, under `key`.
    pub fn push(&mut self, seg: u32, valid: u32, key: u64) {
        let s = seg as usize;
        self.version[s] += 1;
        let v = valid as usize;
        self.live[v] += 1;
        self.heaps[v].push((key, seg, self.version[s]));
        // Stale entries are at most the live ones plus a constant: rebuild when past that.
        if self.heaps[v].len() > 2 * self.live[v] + 64 {
            let version = &self.version;
            self.heaps[v].retain(|(_, g, ver)| version[*g as usize] == *ver);
        }
    }

    /// Takes `seg`, whose live entry is in heap `valid`, out of the index.
    pub fn unindex(&mut self, seg: u32, valid: u32) {
        self.live[valid as usize] -= 1;
        self.version[seg as usize] += 1;
    }

    /// `seg`, indexed under `key`, lost a valid page (`store.valid` is already the new count):
    /// it moves to the heap below.
    #[inline]
    pub fn lost_page(&mut self, seg: u32, store: &Store, key: u64) {
        let valid = store.valid[seg as usize];
        self.unindex(seg, valid + 1);
        self.push(seg, valid, key);
    }

    /// The live top of heap `v` as (key, segment), dropping stale entries above it.
    pub fn top(&mut self, v: usize) -> Option<(u64, u32)> {
        while let Some(&(key, seg, ver)) = self.heaps[v].peek() {
            if self.version[seg as usize] == ver {
                return Some((key, seg));
            }
            self.heaps[v].pop();
        }
        None
    }
}

/// A random exercise of a policy over this index, for the policies' tests: 40 segments of 8
/// pages under 200 logical pages, 20,000 steps of seals (a segment filled with fresh pages, then
/// rewrites, `label` setting what the policy keys on and returning the seal stamp),
/// invalidations, and one to three selections in a row when fewer than 4 segments are free, each
/// checked by `check` (the store, the victim, the clock) before the victim is erased. Returns
/// the selections made.
#[cfg(test)]
pub(crate) fn exercise<P: crate::policy::VictimPolicy>(
    policy: &mut P,
    store: &mut Store,
    seed: u64,
    mut label: impl FnMut(&mut Store, u32, u64, &mut crate::rng::SimRng) -> u64,
    mut check: impl FnMut(&Store, u32, u64),
) -> usize {
    use rand::{Rng, SeedableRng};

    use crate::clocks::Clocks;
    use crate::store::NONE;

    let pps = store.pps;
    let mut rng = crate::rng::SimRng::seed_from_u64(seed);
    let mut next_page = 0u32;
    let mut buffer = Vec::new();
    let mut selections = 0;
    for now in 1..20_000u64 {
        match rng.random_range(0..10) {
            0..=1 => {
                let Some(seg) = store.open() else { continue };
                for i in 0..pps {
                    let page = if next_page < 200 {
                        next_page += 1;
                        next_page - 1
                    } else {
                        rng.random_range(0..200)
                    };
                    let old = store.page_map[page as usize];
                    store.place::<false>(page, seg * pps + i);
                    if old != NONE {
                        let (s, sealed, _) = store.invalidate::<false>(old);
                        if sealed {
                            policy.on_invalidate(s, old, store);
                        }
                    }
                }
                // A segment that invalidated its own page while open is still sealed whole.
                let stamp = label(store, seg, now, &mut rng);
                store.seal(seg, stamp);
                policy.on_seal(seg, true, store);
            }
            2 if store.free.len() < 4 => {
                let clocks = Clocks {
                    user_writes: now,
                    trace_time: now,
                    ..Clocks::default()
                };
                // One to three victims in a row at one clock, as a cleaning batch chooses them.
                for _ in 0..rng.random_range(1..=3) {
                    let Some(victim) = policy.select(store, &clocks, &mut rng) else {
                        break;
                    };
                    assert_eq!(store.state[victim as usize], crate::store::SegState::Sealed);
                    check(store, victim, now);
                    buffer.clear();
                    store.erase_into(victim, &mut buffer);
                    for &p in &buffer {
                        store.page_map[p as usize] = NONE;
                    }
                    selections += 1;
                }
            }
            _ => {}
        }
        store.check().unwrap();
    }
    selections
}
