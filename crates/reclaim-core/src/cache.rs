//! An LRU write cache in front of the store.
//!
//! Stockmeyer, "Simulations of the Age-Threshold and Fitness Free Space Collection Algorithms on
//! a Long Trace", §2.3 (`CacheTrkCount`): "an LRU cache placed in front of the LSA"; with one page
//! it filters out consecutive writes to the same page (§2.1). Also an SSD's DRAM write buffer. A
//! write to a cached page is absorbed (a hit) and makes the page the most recently used; a write
//! to any other page enters the cache, and once the cache is full it evicts the least recently
//! used page, whose write is the one the store sees. Pages still in the cache when the run ends
//! are not written to the store.

use crate::metrics::Counters;
use crate::workload::Write;

/// Page → node index of the cached pages: open addressing with linear probing at a load of at
/// most one quarter (one half once it grows past 2^20 pages), and backward-shift deletion (no
/// tombstones, so probes stay short however many pages pass through). A general-purpose map
/// costs more than the rest of a cache access; at a load of one third instead of one sixth, a
/// 320-page cache's probe lengths vary enough to cost the whole run 4–8% in mispredicted
/// branches.
#[derive(Clone, Debug)]
struct Index {
    /// (page, node); `page == FREE` for an empty slot.
    slots: Vec<(u32, u32)>,
    /// `slots.len() − 1`, a power of two less one.
    mask: usize,
    /// log2 `slots.len()`.
    bits: u32,
    /// Pages held.
    len: usize,
}

/// An empty slot (no page has this id: it is the page map's "no slot" mark).
const FREE: u32 = u32::MAX;

impl Index {
    /// Room for `pages` at a load of at most one quarter (at most 2^20 pages set aside up front;
    /// it doubles when half full).
    fn new(pages: usize) -> Self {
        Self::with_slots((4 * pages.min(1 << 20)).next_power_of_two().max(2))
    }

    /// Empty, with `len` slots (a power of two).
    fn with_slots(len: usize) -> Self {
        Index {
            slots: vec![(FREE, 0); len],
            mask: len - 1,
            bits: len.trailing_zeros(),
            len: 0,
        }
    }

    /// Twice the slots, every entry placed again.
    #[cold]
    fn grow(&mut self) {
        let old = std::mem::replace(self, Self::with_slots(2 * self.slots.len()));
        for (page, node) in old.slots {
            if page != FREE {
                self.insert(page, node);
            }
        }
    }

    /// The slot a page's probe starts at (Fibonacci hashing).
    #[inline]
    fn home(&self, page: u32) -> usize {
        (u64::from(page).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    /// The slot holding `page`, or the empty slot where it would go.
    #[inline]
    fn probe(&self, page: u32) -> usize {
        let mut i = self.home(page);
        loop {
            let k = self.slots[i].0;
            if k == page || k == FREE {
                return i;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The node of `page`, or the empty slot where it would go.
    #[inline]
    fn find(&self, page: u32) -> Result<u32, usize> {
        let i = self.probe(page);
        let (k, v) = self.slots[i];
        if k == page {
            Ok(v)
        } else {
            Err(i)
        }
    }

    /// Puts `page` (not held) in `slot`, the empty slot [`Self::find`] gave for it with the
    /// index unchanged since: a miss probes once, not twice.
    #[inline]
    fn put(&mut self, slot: usize, page: u32, node: u32) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.insert(page, node);
        } else {
            debug_assert_eq!(self.slots[slot].0, FREE);
            self.slots[slot] = (page, node);
            self.len += 1;
        }
    }

    #[inline]
    fn get(&self, page: u32) -> Option<u32> {
        let (k, v) = self.slots[self.probe(page)];
        (k == page).then_some(v)
    }

    #[inline]
    fn insert(&mut self, page: u32, node: u32) {
        debug_assert_ne!(page, FREE);
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let i = self.probe(page);
        if self.slots[i].0 == FREE {
            self.len += 1;
        }
        self.slots[i] = (page, node);
    }

    /// Removes `page` (cached): later entries of its probe run move back over the hole, so
    /// that every entry stays reachable from its home slot.
    #[inline]
    fn remove(&mut self, page: u32) {
        let mut hole = self.probe(page);
        debug_assert_eq!(self.slots[hole].0, page);
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let k = self.slots[j].0;
            if k == FREE {
                break;
            }
            // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
            let h = self.home(k);
            let stays = if hole <= j {
                hole < h && h <= j
            } else {
                hole < h || h <= j
            };
            if !stays {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
        }
        self.slots[hole].0 = FREE;
        self.len -= 1;
    }
}

const END: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    write: Write,
    /// Toward the most recently used.
    prev: u32,
    /// Toward the least recently used.
    next: u32,
}

/// What a write did in the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The page was cached: the write is absorbed.
    Hit,
    /// The page was not cached; it is now, and the evicted write, if any, goes to the store.
    Miss(Option<Write>),
}

/// LRU cache of `capacity` pages.
#[derive(Clone, Debug)]
pub struct Cache {
    capacity: usize,
    nodes: Vec<Node>,
    index: Index,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
}

impl Cache {
    /// An empty cache of `capacity` ≥ 1 pages.
    pub fn new(capacity: usize) -> Self {
        assert!(capacity >= 1, "the cache size is validated to be ≥ 1");
        Cache {
            capacity,
            nodes: Vec::with_capacity(capacity.min(1 << 20)),
            index: Index::new(capacity),
            head: END,
            tail: END,
        }
    }

    /// Pages cached.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// True when `page` is cached.
    pub fn contains(&self, page: u32) -> bool {
        self.index.get(page).is_some()
    }

    fn unlink(&mut self, i: u32) {
        let Node { prev, next, .. } = self.nodes[i as usize];
        if prev == END {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == END {
            self.tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
    }

    fn push_front(&mut self, i: u32) {
        self.nodes[i as usize].prev = END;
        self.nodes[i as usize].next = self.head;
        if self.head != END {
            self.nodes[self.head as usize].prev = i;
        }
        self.head = i;
        if self.tail == END {
            self.tail = i;
        }
    }

    /// The pages `near`-th and `far`-th (`near` < `far`) from the least recently used one:
    /// those that misses will evict next, unless hits move them first. For prefetching.
    #[inline]
    pub fn lru_pages(&self, near: usize, far: usize) -> (Option<u32>, Option<u32>) {
        if self.nodes.len() < self.capacity {
            // Nothing is evicted until the cache is full.
            return (None, None);
        }
        let mut i = self.tail;
        let mut found = (None, None);
        for k in 0..=far {
            if i == END {
                break;
            }
            let node = &self.nodes[i as usize];
            if k == near {
                found.0 = Some(node.write.page);
            }
            if k == far {
                found.1 = Some(node.write.page);
            }
            i = node.prev;
        }
        found
    }

    /// A write through the cache, counted in `counters` as a hit or a miss: the write the
    /// store sees, that of the page a miss evicts, if any.
    #[inline]
    pub fn pass(&mut self, write: Write, counters: &mut Counters) -> Option<Write> {
        match self.access(write) {
            Access::Hit => {
                counters.cache_hits += 1;
                None
            }
            Access::Miss(evicted) => {
                counters.cache_misses += 1;
                evicted
            }
        }
    }

    /// A write through the cache.
    pub fn access(&mut self, write: Write) -> Access {
        let slot = match self.index.find(write.page) {
            Ok(i) => {
                // The newest record replaces the cached one (its class may differ).
                self.nodes[i as usize].write = write;
                if self.head != i {
                    self.unlink(i);
                    self.push_front(i);
                }
                return Access::Hit;
            }
            Err(slot) => slot,
        };
        if self.nodes.len() < self.capacity {
            let i = self.nodes.len() as u32;
            self.nodes.push(Node {
                write,
                prev: END,
                next: END,
            });
            self.index.put(slot, write.page, i);
            self.push_front(i);
            return Access::Miss(None);
        }
        // The new page goes into the slot found for it before the evicted page leaves: the
        // removal's backward shift then moves it like any other entry.
        let i = self.tail;
        let evicted = self.nodes[i as usize].write;
        self.index.put(slot, write.page, i);
        self.index.remove(evicted.page);
        self.unlink(i);
        self.nodes[i as usize].write = write;
        self.push_front(i);
        Access::Miss(Some(evicted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(page: u32) -> Write {
        Write::new(page, 0)
    }

    #[test]
    fn hits_and_evictions_follow_lru_order() {
        // Capacity 3 over the sequence 1 2 3 1 4 2 5 1 1 3, worked by hand:
        //  1 m [1]  2 m [2 1]  3 m [3 2 1]  1 h [1 3 2]  4 m evict 2 [4 1 3]
        //  2 m evict 3 [2 4 1]  5 m evict 1 [5 2 4]  1 m evict 4 [1 5 2]  1 h [1 5 2]
        //  3 m evict 2 [3 1 5]: 2 hits in 10, evictions 2 3 1 4 2.
        let mut c = Cache::new(3);
        let mut hits = 0;
        let mut evicted = Vec::new();
        for p in [1, 2, 3, 1, 4, 2, 5, 1, 1, 3] {
            match c.access(w(p)) {
                Access::Hit => hits += 1,
                Access::Miss(Some(e)) => evicted.push(e.page),
                Access::Miss(None) => {}
            }
        }
        assert_eq!(hits, 2);
        assert_eq!(evicted, vec![2, 3, 1, 4, 2]);
        assert_eq!(c.len(), 3);
        assert!(c.contains(3) && c.contains(1) && c.contains(5) && !c.contains(2));
    }

    /// The pages named for prefetching are those the next misses evict, in LRU order.
    #[test]
    fn lru_pages_name_the_next_evictions() {
        let mut c = Cache::new(3);
        c.access(w(1));
        c.access(w(2));
        assert_eq!(
            c.lru_pages(0, 1),
            (None, None),
            "nothing is evicted before the cache fills"
        );
        c.access(w(3));
        c.access(w(1)); // [1 3 2]: 2, then 3, then 1 go next
        assert_eq!(c.lru_pages(0, 2), (Some(2), Some(1)));
        assert_eq!(c.lru_pages(1, 5), (Some(3), None));
        assert_eq!(c.access(w(4)), Access::Miss(Some(w(2))));
        assert_eq!(c.access(w(5)), Access::Miss(Some(w(3))));
    }

    /// The index agrees with a standard map through a long random mix of inserts and removals
    /// over a small key space (long probe runs, wrap-around, backward shifts) and through growth.
    #[test]
    fn the_index_agrees_with_a_map() {
        use rand::{Rng, SeedableRng};
        use std::collections::HashMap;
        let mut rng = crate::rng::SimRng::seed_from_u64(5);
        for start in [4, 64] {
            let mut index = Index::new(start);
            let mut model: HashMap<u32, u32> = HashMap::new();
            for step in 0..200_000u32 {
                let page = rng.random_range(0..300);
                let limit = if step < 100_000 { 40 } else { 250 };
                if model.contains_key(&page) && (model.len() >= limit || rng.random::<bool>()) {
                    index.remove(page);
                    model.remove(&page);
                } else if model.len() < limit {
                    index.insert(page, step);
                    model.insert(page, step);
                }
                if step % 997 == 0 {
                    for p in 0..300 {
                        assert_eq!(
                            index.get(p),
                            model.get(&p).copied(),
                            "page {p} at step {step}"
                        );
                    }
                }
            }
            assert_eq!(index.len, model.len());
            assert!(index.slots.len() >= 2 * model.len());
        }
    }

    #[test]
    fn one_page_filters_repeats() {
        // Stockmeyer §2.1: a one-track cache absorbs consecutive writes to the same track.
        let mut c = Cache::new(1);
        let seq = [7, 7, 7, 8, 8, 7, 9, 9, 9, 9];
        let hits = seq
            .iter()
            .filter(|&&p| c.access(w(p)) == Access::Hit)
            .count();
        assert_eq!(hits, 6);
    }
}
