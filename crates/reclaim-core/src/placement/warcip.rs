//! WARCIP: user writes clustered online by their rewrite interval, clusters split and merged as
//! the workload moves; relocated pages apart.
//!
//! J. Yang, S. Pei, Q. Yang, "WARCIP: Write Amplification Reduction by Clustering I/O Pages",
//! SYSTOR '19 (a page's rewrite interval, penalised when the cleaner moves it; the nearest of a
//! few cluster centers, each a running mean; periodic split of a busy cluster and merge of an
//! idle one), in the form the artifact of Wang et al. (FAST '22) implements it,
//! `trace_replay/.../placement/Warcip.java`, with at most six open segments:
//!
//! - **Clusters**: cluster 0 takes every relocated page; clusters 1 … k (k ≤ 5, five at first)
//!   take user writes, each with a center (0 at first), a count of pages in its open segment and
//!   a count of writes in the current period. Each cluster has a stream of its own.
//! - **A user write** of a page at trace time t [µs] has interval t − (its last write) + (its
//!   penalty), 0 for a first write; it goes to the cluster of the nearest center, the highest
//!   index among equals, whose center becomes the running mean of its open segment's intervals
//!   (the weight restarts when that segment is sealed). The write sets the page's last write
//!   time and clears its penalty.
//! - **A relocated page** sets its penalty to t − (its last write).
//! - **Every 256 segments sealed from user clusters**: the first cluster that took more than
//!   half of the period's user writes is split, if fewer than six clusters exist (a cluster
//!   inserted before it, its center halfway between its neighbours'); if none is split, the first
//!   cluster with fewer writes than a segment's pages is marked, and is dropped when its open
//!   segment is next sealed. Indices shift on a split or a drop, as the artifact's lists do
//!   (and a mark keeps its index through a split, as the artifact's does).
//!
//! Times are the trace's, as the artifact's (`Simulator.globalTimestampInUs`, the current
//! request's time also for relocations), through [`Scheme::request`].

use std::fmt;

use super::{Build, Built, Declare, Relocation, RelocationRun, Request, Scheme};
use crate::error::Result;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need};
use crate::workload::Write;

/// Streams (the artifact's open segments at most).
const STREAMS: usize = 6;
/// Sealed user segments per period.
const PERIOD: u32 = 256;
/// A page not yet written.
const NEVER: u64 = u64::MAX;

/// A cluster: its stream, center [µs], pages in its open segment, writes in this period.
#[derive(Clone, Copy, Debug)]
struct Cluster {
    stream: u8,
    center: f64,
    pages: u64,
    writes: u64,
}

/// WARCIP's state.
#[derive(Clone, Debug)]
pub struct Warcip {
    /// Pages per segment (the merge threshold).
    pps: u64,
    /// The current request's time [µs].
    now: u64,
    /// Per logical page: its last user write [µs] ([`NEVER`] before the first) and its penalty,
    /// side by side (one cache line read per write, not two).
    page: Vec<[u64; 2]>,
    /// The clusters, cluster 0 the relocated pages'.
    clusters: Vec<Cluster>,
    /// User writes this period, segments sealed from user clusters this period, and the
    /// cluster marked to be dropped.
    writes: u64,
    sealed: u32,
    merge: Option<usize>,
}

impl Warcip {
    /// The scheme over `pages` logical pages, segments of `pps` pages.
    pub fn new(pages: u64, pps: u32) -> Self {
        Warcip {
            pps: u64::from(pps),
            now: 0,
            page: vec![[NEVER, 0]; pages as usize],
            clusters: (0..STREAMS)
                .map(|s| Cluster {
                    stream: s as u8,
                    center: 0.0,
                    pages: 0,
                    writes: 0,
                })
                .collect(),
            writes: 0,
            sealed: 0,
            merge: None,
        }
    }

    /// The period's end: split a busy cluster, or mark an idle one.
    fn split_or_mark(&mut self) {
        let busy = (1..self.clusters.len()).find(|&i| self.clusters[i].writes > self.writes / 2);
        let split = busy.filter(|_| self.clusters.len() < STREAMS);
        if let Some(i) = split {
            let free = (0..STREAMS as u8)
                .find(|s| self.clusters.iter().all(|c| c.stream != *s))
                .expect("fewer clusters than streams");
            // (a + b) / 2 at these magnitudes, as the artifact computes it.
            let center = f64::midpoint(self.clusters[i - 1].center, self.clusters[i].center);
            self.clusters.insert(
                i,
                Cluster {
                    stream: free,
                    center,
                    pages: 0,
                    writes: 0,
                },
            );
        } else if let Some(i) = (1..self.clusters.len()).find(|&i| self.clusters[i].writes < self.pps)
        {
            self.merge.get_or_insert(i);
        }
        self.writes = 0;
        for c in &mut self.clusters {
            c.writes = 0;
        }
    }
}

impl Scheme for Warcip {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        let [last, penalty] = &mut self.page[write.page as usize];
        let interval = match *last {
            NEVER => 0.0,
            l => (self.now - l + *penalty) as f64,
        };
        (*last, *penalty) = (self.now, 0);
        let mut nearest = 1;
        let mut best = f64::MAX;
        for i in (1..self.clusters.len()).rev() {
            let d = (self.clusters[i].center - interval).abs();
            if d < best {
                (nearest, best) = (i, d);
            }
        }
        let c = &mut self.clusters[nearest];
        c.center = (c.center * c.pages as f64 + interval) / (c.pages + 1) as f64;
        c.pages += 1;
        c.writes += 1;
        self.writes += 1;
        usize::from(c.stream)
    }

    fn prefetches_pages(&self) -> bool {
        true
    }

    #[inline]
    fn prefetch_page(&self, page: u32) {
        crate::store::prefetch(&self.page[page as usize]);
    }

    #[inline(never)]
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        let [last, penalty] = &mut self.page[r.page as usize];
        *penalty = self.now - *last;
        usize::from(self.clusters[0].stream)
    }

    /// A victim's pages at once, their times fetched first (a random read each).
    #[inline(never)]
    fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
        let RelocationRun { pages, .. } = run;
        for g in pages {
            crate::store::prefetch(&self.page[g.page as usize]);
        }
        for g in pages {
            let [last, penalty] = &mut self.page[g.page as usize];
            *penalty = self.now - *last;
        }
        out.clear();
        out.resize(pages.len(), u32::from(self.clusters[0].stream));
        true
    }

    #[inline(never)]
    fn sealed(&mut self, stream: usize, _seg: u32) {
        let Some(i) = self.clusters.iter().position(|c| usize::from(c.stream) == stream) else {
            return;
        };
        if i != 0 {
            self.sealed += 1;
        }
        if self.merge == Some(i) {
            self.clusters.remove(i);
            self.merge = None;
        } else {
            self.clusters[i].pages = 0;
        }
        if self.sealed == PERIOD {
            self.sealed = 0;
            self.split_or_mark();
        }
    }

    fn request(&mut self, r: &Request) {
        self.now = r.time;
    }
}

impl Declare for Warcip {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Placement,
        name: "warcip",
        aliases: &[],
        summary: "User writes clustered online by rewrite interval (trace time, penalised by relocation), busy clusters split and idle ones merged every 256 segments; relocated pages apart; at most six streams.",
        source: "Yang, Pei & Yang, SYSTOR '19; SepBIT artifact's Warcip.java",
        params: &[],
        needs: &[Need::PageState, Need::Times],
    };
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show(_p: &(), f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("warcip")
    }
    fn streams(_p: &(), _classes: u32) -> u32 {
        STREAMS as u32
    }
    // A last-write time and a penalty per page.
    fn page_bytes(_p: &()) -> u64 {
        16
    }
    fn build(_p: &(), b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        let user = (0..STREAMS).map(|s| s > 0).collect();
        Ok(Built::whole(Warcip::new(pages, b.pps), user, 1, b))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::placement::Victim;

    fn at(w: &mut Warcip, t: u64) {
        w.request(&Request { time: t, ..Request::at(0, 1) });
    }

    /// The artifact's rules step by step: first writes to the highest cluster among equal
    /// centers, intervals with penalties, running means.
    #[test]
    fn intervals_find_the_nearest_center() {
        let mut w = Warcip::new(10, 4);
        let mut rng = SimRng::seed_from_u64(1);
        let mut user = |w: &mut Warcip, p| w.user_stream(&Write::new(p, 0), 0, &mut rng);
        at(&mut w, 100);
        // A first write: interval 0, every center 0: the highest index, 5.
        assert_eq!(user(&mut w, 1), 5);
        at(&mut w, 400);
        // Interval 300: still nearest 5 (all centers 0, ties to the highest); center 150.
        assert_eq!(user(&mut w, 1), 5);
        assert_eq!(w.clusters[5].center.to_bits(), 150f64.to_bits());
        // A relocation at 500 penalises page 1 by 100; its next write at 600 has interval
        // 200 + 100 = 300, nearest 150 (cluster 5) against 0.
        at(&mut w, 500);
        let victim = Victim::bare(0);
        let r = Relocation {
            page: 1,
            victim: &victim,
            class: 0,
            age: 0,
            rng: &mut SimRng::seed_from_u64(2),
        };
        assert_eq!(w.gc_stream(r), 0);
        at(&mut w, 600);
        assert_eq!(user(&mut w, 1), 5);
        assert_eq!(w.clusters[5].center.to_bits(), 200f64.to_bits());
        // Sealing cluster 5's segment restarts its weight.
        w.sealed(5, 0);
        assert_eq!(w.clusters[5].pages, 0);
    }

    /// A period's end: a cluster with more than half the writes is split when a stream is
    /// free; otherwise the first idle cluster is marked and dropped at its next seal.
    #[test]
    fn busy_clusters_split_and_idle_ones_merge() {
        let mut w = Warcip::new(10, 4);
        // Six clusters: no split; cluster 1 idle (fewer than 4 writes) is marked.
        w.clusters[5].writes = 10;
        w.writes = 10;
        w.split_or_mark();
        assert_eq!(w.merge, Some(1));
        // Cluster 1 (stream 1) seals: dropped; the others shift down.
        w.sealed(1, 0);
        let streams: Vec<u8> = w.clusters.iter().map(|c| c.stream).collect();
        assert_eq!(streams, [0, 2, 3, 4, 5]);
        // Now stream 5's cluster (index 4) takes most writes: split before it on stream 1.
        w.clusters[4].writes = 10;
        w.clusters[3].center = 10.0;
        w.clusters[4].center = 30.0;
        w.writes = 12;
        w.split_or_mark();
        let streams: Vec<u8> = w.clusters.iter().map(|c| c.stream).collect();
        assert_eq!(streams, [0, 2, 3, 4, 1, 5]);
        assert_eq!(w.clusters[4].center.to_bits(), 20f64.to_bits());
    }
}
