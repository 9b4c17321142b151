//! An LRU write cache in front of the store.
//!
//! Stockmeyer, "Simulations of the Age-Threshold and Fitness Free Space Collection Algorithms on
//! a Long Trace", §2.3 (`CacheTrkCount`): "an LRU cache placed in front of the LSA"; with one page
//! it filters out consecutive writes to the same page (§2.1). Also an SSD's DRAM write buffer. A
//! write to a cached page is absorbed (a hit) and makes the page the most recently used; a write
//! to any other page enters the cache, and once the cache is full it evicts the least recently
//! used page, whose write is the one the store sees. Pages still in the cache when the run ends
//! are not written to the store.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::workload::Write;

/// Multiplicative hashing of a page id (the keys are plain integers; `SipHash` would cost more
/// than the rest of a cache access).
#[derive(Default)]
struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
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
    index: HashMap<u32, u32, BuildHasherDefault<PageHasher>>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
}

impl Cache {
    /// An empty cache of `capacity` ≥ 1 pages.
    pub fn new(capacity: usize) -> Self {
        assert!(capacity >= 1, "the cache size is validated to be ≥ 1");
        let reserve = capacity.min(1 << 20);
        Cache {
            capacity,
            nodes: Vec::with_capacity(reserve),
            index: HashMap::with_capacity_and_hasher(reserve, BuildHasherDefault::default()),
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
        self.index.contains_key(&page)
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

    /// A write through the cache.
    pub fn access(&mut self, write: Write) -> Access {
        if let Some(&i) = self.index.get(&write.page) {
            // The newest record replaces the cached one (its class may differ).
            self.nodes[i as usize].write = write;
            if self.head != i {
                self.unlink(i);
                self.push_front(i);
            }
            return Access::Hit;
        }
        if self.nodes.len() < self.capacity {
            let i = self.nodes.len() as u32;
            self.nodes.push(Node {
                write,
                prev: END,
                next: END,
            });
            self.index.insert(write.page, i);
            self.push_front(i);
            return Access::Miss(None);
        }
        let i = self.tail;
        let evicted = self.nodes[i as usize].write;
        self.index.remove(&evicted.page);
        self.unlink(i);
        self.nodes[i as usize].write = write;
        self.index.insert(write.page, i);
        self.push_front(i);
        Access::Miss(Some(evicted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(page: u32) -> Write {
        Write { page, class: 0 }
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
