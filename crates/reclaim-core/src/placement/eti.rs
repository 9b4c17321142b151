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

use std::collections::BTreeMap;
use std::fmt;

use super::{Build, Built, Declare, Relocation, Request, Scheme, Victim};
use crate::config::grammar::{Args, Family, Info, Need};
use crate::error::Result;
use crate::rng::SimRng;
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

/// An extent: its pages and its count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Extent {
    len: u64,
    count: u8,
}

/// ETI's state.
#[derive(Clone, Debug)]
pub struct Eti {
    /// Extents by first page.
    extents: BTreeMap<u64, Extent>,
    /// Requests since the last decay.
    requests: u32,
}

impl Eti {
    /// The table over `pages` logical pages: one cold extent.
    pub fn new(pages: u64) -> Self {
        let mut extents = BTreeMap::new();
        extents.insert(
            0,
            Extent {
                len: pages + MARGIN,
                count: 0,
            },
        );
        Eti {
            extents,
            requests: 0,
        }
    }

    /// The extent holding page `p`: its first page and itself.
    fn holding(&self, p: u64) -> (u64, Extent) {
        let (&off, &e) = self
            .extents
            .range(..=p)
            .next_back()
            .expect("the extents tile the address space from 0");
        (off, e)
    }

    /// Counts halve, and neighbours both hot with equal counts or both cold merge.
    fn decay(&mut self) {
        let mut merged: BTreeMap<u64, Extent> = BTreeMap::new();
        let mut run: Option<(u64, Extent)> = None;
        for (&off, e) in &self.extents {
            let count = e.count / 2;
            run = match run {
                Some((o, mut r))
                    if (r.count >= HOT && r.count == count) || (r.count < HOT && count < HOT) =>
                {
                    r.len += e.len;
                    Some((o, r))
                }
                Some((o, r)) => {
                    merged.insert(o, r);
                    Some((off, Extent { len: e.len, count }))
                }
                None => Some((off, Extent { len: e.len, count })),
            };
        }
        if let Some((o, r)) = run {
            merged.insert(o, r);
        }
        self.extents = merged;
    }
}

impl Scheme for Eti {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        usize::from(self.holding(u64::from(write.page)).1.count < HOT)
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
        let mut off = start;
        while off < end {
            let (at, e) = self.holding(off);
            let next = at + e.len;
            if next <= off {
                // Beyond the table (a page past the logical pages and the margin).
                break;
            }
            let len = end - off;
            let room = self.extents.len() < MAX_EXTENTS;
            let up = Extent {
                count: e.count + 1,
                ..e
            };
            if e.count == SATURATED {
            } else if at == off && len >= e.len {
                self.extents.insert(at, up);
            } else if !room {
            } else if at == off {
                // The request covers the extent's left part.
                self.extents.insert(at, Extent { len, ..up });
                self.extents.insert(at + len, Extent { len: e.len - len, ..e });
            } else if off + len >= next {
                // Its right part.
                self.extents.insert(at, Extent { len: off - at, ..e });
                self.extents.insert(off, Extent { len: next - off, ..up });
            } else {
                // A part inside it.
                self.extents.insert(at, Extent { len: off - at, ..e });
                self.extents.insert(off, Extent { len, ..up });
                self.extents.insert(off + len, Extent { len: next - off - len, ..e });
            }
            off = next;
        }
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
        e.extents.iter().map(|(&o, x)| (o, x.len, x.count)).collect()
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
}
