//! ETI, extent-based temperature identification: write counts kept per extent of the address
//! space, extents split where requests fall and merged as counts decay; hot user writes,
//! cold user writes and relocated pages in three classes.
//!
//! M. Shafaei, P. Desnoyers, J. Fitzpatrick, "Write Amplification Reduction in Flash-Based SSDs
//! Through Extent-Based Temperature Identification", HotStorage '16 (an extent table of bounded
//! size whose extents split to follow the written ranges and merge after their counts are
//! halved), in the form the artifact of Wang et al. (FAST '22) implements it,
//! `trace_replay/.../placement/ETI.java`:
//!
//! - **Extents** tile the address space (the logical pages and 1,024 more, as the artifact's
//!   table), each with a count that saturates at 15; at most 1,024 extents.
//! - **A write request** of pages [a, a + n): every 4,096 requests first, each count halves and
//!   neighbours merge (both hot with equal counts, or both cold; the merged extent keeps the
//!   first one's count). Then, for each extent the request touches, from the one holding a:
//!   one at 15 is passed over; one the request covers from its start to its end (or beyond)
//!   counts one more; one covered in part is split, the covered part counting one more, only
//!   while the table has room (else nothing changes).
//! - **User writes**: class 0 if the page's extent counts 4 or more (hot), else class 1.
//!   **Relocated pages**: class 2.

use std::fmt;

use super::{Build, Built, Declare, Relocation, Request, Scheme, Victim};
use crate::error::Result;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need};
use crate::workload::Write;

/// Classes: hot user writes, cold user writes, relocated pages.
const CLASSES: usize = 3;
/// Most extents in the table.
const MAX_EXTENTS: usize = 1024;
/// Write requests between decays.
const DECAY: u32 = 4096;
/// The count from which an extent is hot.
const HOT: u8 = 4;
/// The largest count.
const SATURATED: u8 = 15;
/// Pages the table covers beyond the logical pages (the artifact's margin).
const MARGIN: u64 = 1024;

/// ETI's state: the extent table as two sorted arrays (at most 1,024 entries, so that a
/// binary search and an insertion's move of a few kilobytes cost less than a tree's nodes).
#[derive(Clone, Debug)]
pub struct Eti {
    /// The extents' first pages, ascending, then the table's end: extent i is
    /// [starts[i], starts[i + 1]).
    starts: Vec<u64>,
    /// The extents' counts.
    counts: Vec<u8>,
    /// The extent found last (a request's pages are classed right after it is counted).
    last: usize,
    /// Requests since the last decay.
    requests: u32,
}

impl Eti {
    /// The table over `pages` logical pages: one cold extent.
    pub fn new(pages: u64) -> Self {
        let mut starts = Vec::with_capacity(MAX_EXTENTS + 1);
        starts.extend([0, pages + MARGIN]);
        let mut counts = Vec::with_capacity(MAX_EXTENTS);
        counts.push(0);
        Eti {
            starts,
            counts,
            last: 0,
            requests: 0,
        }
    }

    /// The index of the extent holding page `p`, `None` beyond the table.
    #[inline]
    fn holding(&mut self, p: u64) -> Option<usize> {
        let i = self.last;
        if self.starts[i] <= p && p < self.starts[i + 1] {
            return Some(i);
        }
        if p >= *self.starts.last().expect("the table has an end") {
            return None;
        }
        // The last start at or below p (the first is 0).
        let i = self.starts.partition_point(|&s| s <= p) - 1;
        self.last = i;
        Some(i)
    }

    /// Counts halve, and neighbours both hot with equal counts or both cold merge (the merged
    /// extent keeps the first one's count).
    fn decay(&mut self) {
        let n = self.counts.len();
        let mut kept = 0;
        for i in 0..n {
            let count = self.counts[i] / 2;
            if i > 0 {
                let r = self.counts[kept - 1];
                if (r >= HOT && r == count) || (r < HOT && count < HOT) {
                    continue;
                }
            }
            self.starts[kept] = self.starts[i];
            self.counts[kept] = count;
            kept += 1;
        }
        self.starts[kept] = self.starts[n];
        self.starts.truncate(kept + 1);
        self.counts.truncate(kept);
        self.last = 0;
    }

    /// Extent `i` split at page `at` (inside it), both parts with its count.
    #[inline]
    fn split(&mut self, i: usize, at: u64) {
        self.starts.insert(i + 1, at);
        self.counts.insert(i + 1, self.counts[i]);
    }
}

impl Scheme for Eti {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        // A page beyond the table (none of the logical pages is) takes the last extent's count.
        let i = self
            .holding(u64::from(write.page))
            .unwrap_or(self.counts.len() - 1);
        usize::from(self.counts[i] < HOT)
    }

    fn gc_stream(&mut self, _r: Relocation<'_>) -> usize {
        2
    }

    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        Some(2)
    }

    #[inline(never)]
    fn request(&mut self, r: &Request) {
        self.requests += 1;
        if self.requests >= DECAY {
            self.decay();
            self.requests = 0;
        }
        let (start, end) = (u64::from(r.first), u64::from(r.first) + u64::from(r.pages));
        let Some(mut i) = self.holding(start) else {
            // Beyond the table (a page past the logical pages and the margin).
            return;
        };
        let first = i;
        let mut off = start;
        loop {
            let (at, next) = (self.starts[i], self.starts[i + 1]);
            let room = self.counts.len() < MAX_EXTENTS;
            if self.counts[i] == SATURATED {
            } else if at == off && end >= next {
                self.counts[i] += 1;
            } else if !room {
            } else if at == off {
                // The request covers the extent's left part.
                self.split(i, end);
                self.counts[i] += 1;
                i += 1;
            } else if end >= next {
                // Its right part.
                self.split(i, off);
                i += 1;
                self.counts[i] += 1;
            } else {
                // A part inside it.
                self.split(i, off);
                self.split(i + 1, end);
                self.counts[i + 1] += 1;
                i += 2;
            }
            off = next;
            i += 1;
            if off >= end || i == self.counts.len() {
                break;
            }
        }
        // The request's first page is classed next: the piece holding it.
        self.last = first + usize::from(self.starts[first + 1] <= start);
    }
}

impl Declare for Eti {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Placement,
        name: "eti",
        aliases: &[],
        summary: "User writes hot or cold by the write count of their extent in a table of at most 1,024 extents that split and merge; relocated pages apart; three classes.",
        source: "Shafaei, Desnoyers & Fitzpatrick, HotStorage '16; SepBIT artifact's ETI.java",
        params: &[],
        needs: &[Need::Times],
    };
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show(_p: &(), f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("eti")
    }
    fn streams(_p: &(), _classes: u32) -> u32 {
        CLASSES as u32
    }
    fn build(_p: &(), b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        Ok(Built::whole(Eti::new(pages), vec![true, true, false], 1, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(e: &Eti) -> Vec<(u64, u64, u8)> {
        (0..e.counts.len())
            .map(|i| (e.starts[i], e.starts[i + 1] - e.starts[i], e.counts[i]))
            .collect()
    }

    /// The artifact's cases step by step on a table of 100 pages (and the margin).
    #[test]
    fn extents_split_count_and_merge() {
        let mut e = Eti::new(100);
        let end = 100 + MARGIN;
        // A request inside the one extent splits it in three.
        e.request(&Request::at(10, 5));
        assert_eq!(table(&e), [(0, 10, 0), (10, 5, 1), (15, end - 15, 0)]);
        // One covering [10, 15) exactly counts it; one from 12 to 20 splits [10, 15) at 12
        // (its right part counted) and then covers [15, 20) as the left part of the last.
        e.request(&Request::at(10, 5));
        e.request(&Request::at(12, 8));
        assert_eq!(
            table(&e),
            [(0, 10, 0), (10, 2, 2), (12, 3, 3), (15, 5, 1), (20, end - 20, 0)]
        );
        // Class by count: 3 is cold.
        let mut rng = <SimRng as rand::SeedableRng>::seed_from_u64(1);
        assert_eq!(e.user_stream(&Write::new(13, 0), 0, &mut rng), 1);
        e.request(&Request::at(12, 3));
        assert_eq!(e.user_stream(&Write::new(13, 0), 0, &mut rng), 0);
        // Decay halves (4 → 2, 2 → 1, 1 → 0) and merges the cold neighbours into one.
        e.decay();
        assert_eq!(table(&e), [(0, end, 0)]);
    }

    /// Counts saturate at 15, and decay merges hot neighbours of equal counts only.
    #[test]
    fn counts_saturate_and_hot_extents_merge_when_equal() {
        let mut e = Eti::new(100);
        for _ in 0..20 {
            e.request(&Request::at(0, 10));
        }
        for _ in 0..8 {
            e.request(&Request::at(10, 10));
        }
        for _ in 0..8 {
            e.request(&Request::at(20, 10));
        }
        assert_eq!(table(&e)[..3], [(0, 10, 15), (10, 10, 8), (20, 10, 8)]);
        e.decay();
        assert_eq!(table(&e)[..2], [(0, 10, 7), (10, 20, 4)]);
    }

    /// The table against a tree of extents kept as the artifact keeps them (a sorted map
    /// from first page to length and count), after every request of a random sequence that
    /// splits, saturates, fills the table and decays.
    #[test]
    fn the_arrays_keep_the_same_table_as_a_tree() {
        use rand::Rng;
        use std::collections::BTreeMap;

        fn tree_request(t: &mut BTreeMap<u64, (u64, u8)>, start: u64, end: u64) {
            let mut off = start;
            while off < end {
                let (&at, &(len, count)) = t.range(..=off).next_back().unwrap();
                let next = at + len;
                if next <= off {
                    break;
                }
                let room = t.len() < MAX_EXTENTS;
                if count == SATURATED {
                } else if at == off && end >= next {
                    t.insert(at, (len, count + 1));
                } else if !room {
                } else if at == off {
                    t.insert(at, (end - at, count + 1));
                    t.insert(end, (next - end, count));
                } else if end >= next {
                    t.insert(at, (off - at, count));
                    t.insert(off, (next - off, count + 1));
                } else {
                    t.insert(at, (off - at, count));
                    t.insert(off, (end - off, count + 1));
                    t.insert(end, (next - end, count));
                }
                off = next;
            }
        }
        fn tree_decay(t: &BTreeMap<u64, (u64, u8)>) -> BTreeMap<u64, (u64, u8)> {
            let mut out: BTreeMap<u64, (u64, u8)> = BTreeMap::new();
            let mut run: Option<(u64, u64, u8)> = None;
            for (&o, &(len, c)) in t {
                let c = c / 2;
                run = match run {
                    Some((ro, rl, rc)) if (rc >= HOT && rc == c) || (rc < HOT && c < HOT) => {
                        Some((ro, rl + len, rc))
                    }
                    Some((ro, rl, rc)) => {
                        out.insert(ro, (rl, rc));
                        Some((o, len, c))
                    }
                    None => Some((o, len, c)),
                };
            }
            let (ro, rl, rc) = run.unwrap();
            out.insert(ro, (rl, rc));
            out
        }

        let pages = 5_000u64;
        let mut e = Eti::new(pages);
        let mut t = BTreeMap::from([(0u64, (pages + MARGIN, 0u8))]);
        let mut rng = <SimRng as rand::SeedableRng>::seed_from_u64(7);
        let mut full = false;
        for step in 0..30_000u32 {
            // Narrow hot ranges and wide ones, some running past the table's end.
            let first = if rng.random_bool(0.7) {
                rng.random_range(0..200)
            } else {
                rng.random_range(0..pages + 2 * MARGIN)
            };
            let len = if rng.random_bool(0.8) { 1 } else { rng.random_range(1..64) };
            e.request(&Request::at(first as u32, len as u32));
            if (step + 1) % DECAY == 0 {
                t = tree_decay(&t);
            }
            tree_request(&mut t, first, first + len);
            full |= t.len() >= MAX_EXTENTS;
            let want: Vec<_> = t.iter().map(|(&o, &(l, c))| (o, l, c)).collect();
            assert_eq!(table(&e), want, "after request {step}");
            let page = rng.random_range(0..pages);
            let count = t.range(..=page).next_back().unwrap().1 .1;
            assert_eq!(
                e.user_stream(&Write::new(page as u32, 0), 0, &mut rng),
                usize::from(count < HOT)
            );
        }
        assert!(full, "the sequence fills the table");
    }
}
