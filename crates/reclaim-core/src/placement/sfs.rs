//! SFS: pages grouped by hotness, segments quantized into groups of like hotness.
//!
//! C. Min, K. Kim, H. Cho, S.-W. Lee, Y. I. Eom, "SFS: Random Write Considered Harmful in Solid
//! State Drives", FAST '12, §4.2–4.3 (a block's hotness is its write count over its age, a
//! segment's the mean of its live blocks'; the groups' hotness bounds found by iterative
//! segment quantization, a one-dimensional k-means over the segments' hotness; a written block
//! goes to the group of the nearest center), in the form the artifact of Wang et al. (FAST '22)
//! implements it, `trace_replay/.../placement/SFS.java`, with six groups:
//!
//! - **A page's hotness** at a user write: its writes so far over the time since its last write,
//!   f/(t − l) [writes per µs] with l its last write, then f grows by one and l becomes t; a
//!   first write has hotness `f64::MAX` (the artifact's `Double.MAX_VALUE`). A relocated
//!   page's: f/(t − l) with neither changed.
//! - **A segment's hotness**: Σf / (n·t − Σl) over its n valid pages (each page counted with
//!   the f and l it had when written there; a page rewritten elsewhere leaves the sums). An emptied segment's is 0/0, NaN, and takes part as the artifact's does.
//! - **Quantization**, after every collected segment chosen and before its pages move, over every
//!   sealed segment, the victim included: with six or fewer, the centers are their hotness in
//!   turn (repeated); otherwise three rounds from the current centers (0 at first), each segment
//!   to the nearest center (the lowest index among equals, NaN to the first), each center the
//!   mean of its group (0 for an empty one). The centers are then sorted, hottest first, NaN
//!   above everything as Java's `Double.compareTo` orders it.
//! - **A written page** (user or relocated) goes to the group of the nearest center, the highest
//!   index among equals; a first write (hotness `f64::MAX`, as far from every center as can be)
//!   and a page whose every distance is NaN or infinite stay in group 0.
//!
//! **Re-quantizing less often** (`sfs:requantize=S`, not the artifact's): quantization costs
//! a pass over every sealed segment per collected one, O(segments) where a collection
//! otherwise costs O(pages per segment); with S > 0 the centers are re-computed (as above)
//! only after S·(sealed segments) collections since the last time, an amortized cost of
//! three rounds over 1/S segments per collection whatever the device's size, and between
//! times pages go to the groups of centers found earlier. S = 0, the default, is the artifact's
//! every collection. What it changes in WA is measured in `docs/validation.md`.
//!
//! Times are the trace's (`Simulator.globalTimestampInUs`, the current request's time also for
//! relocations), through [`Scheme::request`]. A segment's sums are taken over its pages when it
//! is sealed ([`Scheme::sealed_pages`]) and follow its pages' rewrites from then on. Where
//! several victims are gathered before any is routed (cleaning in batches; not under `log`,
//! which collects one at a time as the artifact does), each victim's quantization sees the
//! segments sealed before the batch.

use std::cmp::Ordering;
use std::fmt;

use super::{Build, Built, Declare, Relocation, RelocationRun, Request, Scheme, Victim};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::store::{Store, NONE};
use crate::workload::Write;

/// Groups (the artifact's open segments).
const GROUPS: usize = 6;
/// Rounds of quantization per collected segment.
const ROUNDS: usize = 3;
/// The valid values of `requantize`.
const REQUANTIZE: &str = "a number in [0, 1)";

/// A page: the sealed segment holding its copy ([`NONE`] while the copy is in an open segment
/// or before its first write) and that segment's epoch when it was sealed, its writes so far and
/// its last user write [µs].
#[derive(Clone, Copy, Debug)]
struct Page {
    seg: u32,
    epoch: u32,
    writes: u32,
    last: u64,
}

/// A segment: the sums over its valid pages while sealed, its valid pages, its place in the
/// sealed list, and its epoch (one more at every sealing and collection, so that a page whose
/// copy went away unseen, trimmed, is not taken out of a later filling's sums).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    writes: f64,
    last: f64,
    valid: u32,
    sealed_at: u32,
    epoch: u32,
}

impl Slot {
    /// Σf / (n·t − Σl) over the n valid pages, as the artifact computes it.
    #[inline]
    fn hotness(&self, now: f64) -> f64 {
        self.writes / (f64::from(self.valid) * now - self.last)
    }
}

/// Java's `Double.compareTo`: NaN above +∞ (and equal to itself), −0 below +0.
pub(crate) fn java_order(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.total_cmp(&b),
    }
}

/// SFS's state.
#[derive(Clone, Debug)]
pub struct Sfs {
    /// The current request's time [µs].
    now: u64,
    pages: Vec<Page>,
    segments: Vec<Slot>,
    /// The sealed segments.
    sealed: Vec<u32>,
    /// The group centers, hottest first after each quantization [writes per µs].
    centers: [f64; GROUPS],
    /// Scratch: the sealed segments' hotness, and each one's group.
    hot: Vec<f64>,
    group: Vec<u8>,
    /// Re-quantize after this share of the sealed segments has been collected (0: after each).
    requantize: f64,
    /// Segments collected since the last quantization.
    since: u64,
}

impl Sfs {
    /// The scheme over `pages` logical pages and `segments` segments, re-quantizing after
    /// `requantize` of the sealed segments are collected (0: after every one, the artifact).
    pub fn new(pages: u64, segments: u32, requantize: f64) -> Self {
        Sfs {
            now: 0,
            pages: vec![
                Page {
                    seg: NONE,
                    epoch: 0,
                    writes: 0,
                    last: 0,
                };
                pages as usize
            ],
            segments: vec![Slot::default(); segments as usize],
            sealed: Vec::new(),
            centers: [0.0; GROUPS],
            hot: Vec::new(),
            group: Vec::new(),
            requantize,
            since: 0,
        }
    }

    /// The group of the center nearest `hot`, the highest index among equals (the artifact
    /// scans from the last center down with a strict `<`, from `Double.MAX_VALUE`).
    #[inline]
    fn nearest(&self, hot: f64) -> usize {
        let (mut best, mut min) = (0, f64::MAX);
        for i in (0..GROUPS).rev() {
            let d = (self.centers[i] - hot).abs();
            if d < min {
                (best, min) = (i, d);
            }
        }
        best
    }

    /// A relocated page's group.
    #[inline]
    fn relocate(&mut self, page: u32) -> usize {
        let p = &mut self.pages[page as usize];
        p.seg = NONE;
        let hot = f64::from(p.writes) / (self.now - p.last) as f64;
        self.nearest(hot)
    }

    /// The artifact's `segmentQuantization`, over the sealed segments now.
    #[cold]
    #[inline(never)]
    fn quantize(&mut self) {
        let now = self.now as f64;
        let n = self.sealed.len();
        self.hot.clear();
        self.hot
            .extend(self.sealed.iter().map(|&s| self.segments[s as usize].hotness(now)));
        if n == 0 {
            return;
        }
        if n <= GROUPS {
            for i in 0..GROUPS {
                self.centers[i] = self.hot[i % n];
            }
        } else {
            self.group.resize(n, 0);
            for _ in 0..ROUNDS {
                let mut sum = [0.0f64; GROUPS];
                let mut count = [0u32; GROUPS];
                for (h, g) in self.hot.iter().zip(&mut self.group) {
                    let (mut best, mut min) = (0, f64::MAX);
                    for (i, c) in self.centers.iter().enumerate() {
                        let d = (h - c).abs();
                        if d < min {
                            (best, min) = (i, d);
                        }
                    }
                    *g = best as u8;
                }
                // The artifact sums each group in its list's order: a group's values in turn.
                for (h, &g) in self.hot.iter().zip(&self.group) {
                    sum[usize::from(g)] += h;
                    count[usize::from(g)] += 1;
                }
                for i in 0..GROUPS {
                    self.centers[i] = if count[i] == 0 {
                        0.0
                    } else {
                        sum[i] / f64::from(count[i])
                    };
                }
            }
        }
        self.centers.sort_by(|a, b| java_order(*b, *a));
    }
}

impl Scheme for Sfs {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        let page = &mut self.pages[write.page as usize];
        if page.seg != NONE {
            let s = &mut self.segments[page.seg as usize];
            if s.epoch == page.epoch {
                s.writes -= f64::from(page.writes);
                s.last -= page.last as f64;
                s.valid -= 1;
            }
            page.seg = NONE;
        }
        let hot = if page.writes == 0 {
            f64::MAX
        } else {
            f64::from(page.writes) / (self.now - page.last) as f64
        };
        page.writes += 1;
        page.last = self.now;
        self.nearest(hot)
    }

    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        self.relocate(r.page)
    }

    #[inline(never)]
    fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
        let RelocationRun { pages, .. } = run;
        for g in pages {
            crate::store::prefetch(&self.pages[g.page as usize]);
        }
        out.clear();
        for g in pages {
            out.push(self.relocate(g.page) as u32);
        }
        true
    }

    fn sealed_pages(&mut self, seg: u32, store: &Store) {
        let sg = &mut self.segments[seg as usize];
        sg.epoch = sg.epoch.wrapping_add(1);
        (sg.writes, sg.last, sg.valid) = (0.0, 0.0, 0);
        let first = seg * store.pps;
        for slot in first..first + store.pps {
            if let Some(p) = store.page_at(slot) {
                let page = &mut self.pages[p as usize];
                (page.seg, page.epoch) = (seg, sg.epoch);
                sg.writes += f64::from(page.writes);
                sg.last += page.last as f64;
                sg.valid += 1;
            }
        }
        sg.sealed_at = self.sealed.len() as u32;
        self.sealed.push(seg);
    }

    #[inline(never)]
    fn collected(&mut self, victim: &Victim) {
        self.since += 1;
        if self.since as f64 >= self.requantize * self.sealed.len() as f64 {
            self.quantize();
            self.since = 0;
        }
        let sg = &mut self.segments[victim.seg as usize];
        sg.epoch = sg.epoch.wrapping_add(1);
        let at = sg.sealed_at as usize;
        self.sealed.swap_remove(at);
        if let Some(&moved) = self.sealed.get(at) {
            self.segments[moved as usize].sealed_at = at as u32;
        }
    }

    fn request(&mut self, r: &Request) {
        self.now = r.time;
    }

    fn prefetches_pages(&self) -> bool {
        true
    }

    #[inline]
    fn prefetch_page(&self, page: u32) {
        crate::store::prefetch(&self.pages[page as usize]);
    }
}

impl Declare for Sfs {
    type Params = f64;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "sfs",
        aliases: &[],
        summary: "Pages by hotness (writes over age, trace time) to the nearest of six group centers, re-quantized by three rounds of k-means over the sealed segments' hotness after every collected segment.",
        source: "Min et al., FAST '12, §4.2–4.3; SepBIT artifact's SFS.java",
        params: &[Param {
            key: "requantize",
            values: "S",
            unit: "",
            range: REQUANTIZE,
            default: Some("0"),
            help: "Re-quantize after this share of the sealed segments is collected: 0, after every collected segment (the artifact's; O(segments) each); S > 0 bounds the cost per collection, 3/S segments visited, at a change in WA.",
        }],
        needs: &[Need::PageState, Need::Times],
    };
    fn parse(args: &Args<'_>) -> Result<f64> {
        let share: f64 = args.num("requantize", Some(0.0), REQUANTIZE)?;
        if !(0.0..1.0).contains(&share) {
            return Err(Error::param(&args.key("requantize"), share, REQUANTIZE));
        }
        Ok(share)
    }
    fn show(share: &f64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *share == 0.0 {
            f.write_str("sfs")
        } else {
            write!(f, "sfs:requantize={share}")
        }
    }
    fn streams(_p: &f64, _classes: u32) -> u32 {
        GROUPS as u32
    }
    // Every group takes relocated pages.
    fn reserve(_p: &f64, _classes: u32) -> (u64, u64) {
        (GROUPS as u64 - 1, 1)
    }
    // A page's sealed segment and its epoch, write count and last write time.
    fn page_bytes(_p: &f64) -> u64 {
        24
    }
    fn build(share: &f64, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        Ok(Built::whole(
            Sfs::new(pages, b.segments, *share),
            vec![true; GROUPS],
            GROUPS as u32,
            b,
        ))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn at(s: &mut Sfs, t: u64) {
        s.request(&Request {
            time: t,
            ..Request::at(0, 1)
        });
    }

    /// Before any quantization every center is 0: a first write stays in group 0, a rewrite
    /// (equally far from every center) goes to the highest, 5; a sealed segment's sums are its
    /// valid pages' and follow their rewrites.
    #[test]
    fn first_writes_go_to_group_0_and_sums_follow_the_pages() {
        use crate::geometry::Geometry;
        let mut s = Sfs::new(8, 4, 0.0);
        let mut rng = SimRng::seed_from_u64(1);
        at(&mut s, 10);
        assert_eq!(s.user_stream(&Write::new(1, 0), 0, &mut rng), 0);
        at(&mut s, 30);
        assert_eq!(s.user_stream(&Write::new(1, 0), 0, &mut rng), 5);
        assert_eq!(s.user_stream(&Write::new(2, 0), 0, &mut rng), 0);
        // Pages 1 (2 writes, last at 30) and 2 (1 write, at 30) sealed in segment 3 of 2 pages.
        let mut store = Store::new(&Geometry {
            segments: 4,
            pages_per_segment: 2,
            logical_pages: 8,
        });
        let seg = loop {
            let seg = store.open().unwrap();
            if seg == 3 {
                break seg;
            }
        };
        store.place::<false>(1, 6);
        store.place::<false>(2, 7);
        s.sealed_pages(seg, &store);
        let g = s.segments[3];
        assert_eq!((g.valid, g.writes, g.last), (2, 3.0, 60.0));
        // At 40, hotness 3 / (2·40 − 60) = 0.15.
        at(&mut s, 40);
        assert_eq!(g.hotness(40.0).to_bits(), 0.15f64.to_bits());
        // Page 1 rewritten: segment 3 keeps page 2 alone.
        s.user_stream(&Write::new(1, 0), 0, &mut rng);
        let g = s.segments[3];
        assert_eq!((g.valid, g.writes, g.last), (1, 1.0, 30.0));
        // Collected, then page 2 (its copy gone unseen) rewritten: the segment's next filling
        // is not touched.
        s.collected(&Victim::bare(3));
        s.segments[3].valid = 5;
        s.user_stream(&Write::new(2, 0), 0, &mut rng);
        assert_eq!(s.segments[3].valid, 5);
    }

    /// Quantization on hand-made segments: three rounds of k-means from centers 0 split the
    /// hotness values into groups, then the centers are sorted hottest first; with six or fewer
    /// segments each center is one segment's hotness in turn.
    #[test]
    fn quantization_is_three_rounds_of_k_means() {
        let mut s = Sfs::new(0, 0, 0.0);
        s.now = 100;
        // Hotness Σf / (n·t − Σt_last) = w / (100 − l) with one valid page.
        let seg = |w: f64, l: f64| Slot {
            writes: w,
            last: l,
            valid: 1,
            ..Slot::default()
        };
        // Hotness 0.5, 0.25, 1/3 … as three segments: centers repeat them in turn.
        for (w, l) in [(1.0, 98.0), (1.0, 96.0), (2.0, 94.0)] {
            s.segments.push(seg(w, l));
            s.sealed.push((s.segments.len() - 1) as u32);
        }
        s.quantize();
        assert_eq!(bits(&s.centers), bits(&[0.5, 0.5, 1.0 / 3.0, 1.0 / 3.0, 0.25, 0.25]));
        // Eight segments of hotness 8, 8, 4, 4, 2, 1, 0.5, 0.5 (w / (100 − 99)), centers 0.
        // Round 1: all equally far from every center, all to group 0 (center 3.5). Round 2: 8,
        // 8, 4, 4, 2 stay (5.2), 1, 0.5, 0.5 go to group 1 (the first 0; 2/3). Round 3: 2 is
        // nearer 2/3 than 5.2: {8, 8, 4, 4} (6) and {2, 1, 0.5, 0.5} (1).
        s.segments.clear();
        s.sealed.clear();
        s.centers = [0.0; GROUPS];
        for w in [8.0, 8.0, 4.0, 4.0, 2.0, 1.0, 0.5, 0.5] {
            s.segments.push(seg(w, 99.0));
            s.sealed.push((s.segments.len() - 1) as u32);
        }
        s.quantize();
        assert_eq!(bits(&s.centers), bits(&[6.0, 1.0, 0.0, 0.0, 0.0, 0.0]));
        // From those centers the groups stay (0.5 is as far from 1 as from 0: the lower index,
        // group 1): a fixed point.
        s.quantize();
        assert_eq!(bits(&s.centers), bits(&[6.0, 1.0, 0.0, 0.0, 0.0, 0.0]));
    }

    /// `requantize=S`: the centers are re-computed once S·(sealed segments) collections have
    /// passed since the last time (S = 0.25 over 8 sealed segments: at the 2nd collection, when
    /// 7 are left, 2 ≥ 1.75, then at the 4th, 2 ≥ 1.25), and stay between; S = 0 re-computes
    /// at every one.
    #[test]
    fn requantize_spaces_the_quantizations_by_a_share_of_the_sealed_segments() {
        let run = |share: f64| {
            let mut s = Sfs::new(0, 0, share);
            s.now = 100;
            for w in [8.0, 8.0, 4.0, 4.0, 2.0, 1.0, 0.5, 0.5] {
                s.segments.push(Slot {
                    writes: w,
                    last: 99.0,
                    valid: 1,
                    sealed_at: s.sealed.len() as u32,
                    ..Slot::default()
                });
                s.sealed.push((s.segments.len() - 1) as u32);
            }
            let mut centers = vec![bits(&s.centers)];
            let mut since = Vec::new();
            for seg in 0..4 {
                s.collected(&Victim {
                    seg,
                    stamp: 0,
                    dseq: 0,
                    region: 0,
                    up2: 0.0,
                });
                centers.push(bits(&s.centers));
                since.push(s.since);
            }
            (centers, since)
        };
        let (c, since) = run(0.25);
        assert_eq!(since, [1, 0, 1, 0]);
        let zero = bits(&[0.0; GROUPS]);
        assert_eq!(c[1], zero, "no quantization at the 1st collection");
        assert_ne!(c[2], zero, "a quantization at the 2nd");
        assert_eq!(c[3], c[2], "none at the 3rd");
        // Every collection: the 1st already quantizes.
        let (every, since) = run(0.0);
        assert_eq!(since, [0, 0, 0, 0]);
        assert_ne!(every[1], zero);
    }

    /// NaN (an emptied segment's hotness) sorts above everything, as Java orders doubles.
    #[test]
    fn nan_sorts_first_hottest_first() {
        let mut c = [1.0, f64::NAN, f64::INFINITY, 0.0, -0.0, 2.0];
        c.sort_by(|a, b| java_order(*b, *a));
        assert!(c[0].is_nan());
        assert_eq!(bits(&c[1..5]), bits(&[f64::INFINITY, 2.0, 1.0, 0.0]));
        assert!(c[5] == 0.0 && c[5].is_sign_negative());
    }
}
