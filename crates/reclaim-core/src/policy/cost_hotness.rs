//! Cost-hotness: the largest (1 − u)/(u·H), H the segment's hotness.
//!
//! C. Min, K. Kim, H. Cho, S.-W. Lee, Y. I. Eom, "SFS: Random Write Considered Harmful in Solid
//! State Drives", FAST '12, §4.4: a segment's cleaning score is the free space it gives over the
//! cost of cleaning it times its hotness, (1 − u)/(2u·H), so that cold segments are cleaned at
//! a higher utilization than hot ones, whose pages will die anyway; H is the mean of its live
//! blocks' hotness, write count over age (§4.2), taken as Σf / (n·t − Σl) over its n valid
//! pages of write counts f and last user writes l at time t. In the form of SepBIT's artifact
//! (Wang et al., FAST '22, `trace_replay/.../selection/CostHotness.java`), which drops the
//! constant 2 (it does not change the order):
//!
//! - u = 1 − GP, GP the segment's invalid pages over its pages; an empty segment scores
//!   `f64::MAX`. Candidates as for every selection of the artifact: sealed segments with an
//!   invalid page, and under `log` at least the garbage-proportion threshold
//!   ([`Store::victim_valid_bound`]).
//! - A page's f counts its user writes (the first makes it 1), l is the trace time of the last
//!   [µs, [`Clocks::trace_time`]; one µs per write without a trace]; a relocation changes
//!   neither. A segment's sums are over the pages it holds valid, each with the f and l it had
//!   when written there.
//! - The candidates are sorted by score, highest first, Java's `Double.compareTo` order (NaN
//!   above everything), and the first taken. Equal scores go to the fewest valid pages, then the
//!   lowest segment number (the artifact keeps its list's, Java `HashMap`, order).
//!
//! The artifact keeps the sums (`SegmentMeta.totalWriteCount`, `totalLastModifiedTime`) only in
//! its SFS placement (`SFS.java`, `postAppend` and `invalidate`): under any other placement they
//! stay 0, every candidate's hotness is 0/(n·t) = 0 and its score +∞, and it takes the first
//! candidate of its list. Here the policy keeps them itself, under every placement, as the paper
//! defines the score; with `sfs` the two agree.
//!
//! The score of a segment changes with time as well as with its pages (two segments' order can
//! turn as t grows), but only upward and linearly: with u = n/b, score(t) = (b − n)(n·t −
//! Σl)/(n·Σf) grows by (b − n)/Σf ≥ 0 per µs. The segments are kept in buckets of their score at
//! a reference time t₁ ahead of now ([`KeyBuckets`], 1/16 of an octave each, moved as their
//! pages change), which bounds their score at every t ≤ t₁ from above; a selection at t visits
//! the buckets from the highest down, scoring each member exactly at t, and stops at the first
//! bucket whose upper edge is below the best score found: no segment below can reach it. The
//! choice is the scan's over every candidate, exactly. When t passes t₁, every segment is
//! re-keyed at a new t₁; the horizon t₁ − t doubles after a period whose selections visited few
//! segments and halves when one visits many (the farther t₁, the looser the bounds). Sums are
//! kept in `f64`, as the artifact keeps them, exact while a segment's Σl stays below 2⁵³ µs (a
//! segment of 128 pages: 2.2 years of trace time).

use std::cmp::Ordering;
use std::fmt;

use super::index::key_buckets::{upper_edge, KeyBuckets};
use super::{Declare, VictimPolicy};
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::placement::sfs::java_order;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need};
use crate::store::{Store, NONE};

/// User writes before a user segment fills at which the likely victim is prefetched (the
/// engine's lead for its own guess).
const VICTIM_LEAD: u32 = 3;

/// A logical page: its user writes so far, the sealed segment whose sums hold it and its last
/// user write [µs]. The segment is [`NONE`] once its copy leaves the sums, and stale once that
/// segment is collected: it counts only while the segment is indexed and holds the page's
/// current copy ([`CostHotness::holder`]).
#[derive(Clone, Copy, Debug)]
struct Page {
    writes: u32,
    seg: u32,
    last: u64,
}

/// Σf and Σl of a sealed segment's valid pages, and their number (the store's valid count, kept
/// beside them so that scoring reads one line).
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    writes: f64,
    last: f64,
    valid: u32,
}

/// u = 1 − GP and 1 − u for each valid count of a segment of `pps` pages, GP = (pps − valid)/pps,
/// each the very double the artifact computes (a table saves a division per score).
fn utilizations(pps: u32) -> Vec<(f64, f64)> {
    (0..=pps)
        .map(|valid| {
            let gp = f64::from(pps - valid) / f64::from(pps);
            let u = 1.0 - gp;
            (u, 1.0 - u)
        })
        .collect()
}

/// A segment's score at `now` [µs] with sums `sums` and (u, 1 − u) `util` (its valid count's
/// entry of [`utilizations`]), as the artifact computes it: (1 − u)/(u·H), H = Σf/(n·now −
/// Σl); `f64::MAX` for an empty segment.
#[inline]
fn score(sums: &Sums, valid: u32, (u, free): (f64, f64), now: f64) -> f64 {
    if u == 0.0 {
        return f64::MAX;
    }
    let hot = sums.writes / (f64::from(valid) * now - sums.last);
    free / (u * hot)
}

/// Cost-hotness over the sealed segments, bucketed by their score at a reference time.
#[derive(Clone, Debug)]
pub struct CostHotness {
    pages: Vec<Page>,
    /// The sealed segments the policy was told of and has not given up, each indexed.
    listed: u64,
    /// Those segments by their score at `t1`, each with its sums.
    index: KeyBuckets<Sums>,
    /// The slot of the copy the last user write replaces (its sums already left), until it is
    /// invalidated: that invalidation needs no look-up of its page.
    replaced: u32,
    /// The reference time of the keys [µs], at or after every selection's until the next
    /// re-keying.
    t1: u64,
    /// (u, 1 − u) per valid count ([`utilizations`]).
    util: Vec<(f64, f64)>,
    /// User writes since a user segment was last sealed: a few before the next fills (and the
    /// cleaner runs), the likely victim's lines are prefetched. Where relocated pages share the
    /// user stream (`single`), a user segment fills with fewer user writes and this fires only
    /// during a fill (measured: its effect on the bench row is within ±1%).
    since_seal: u32,
    /// How far ahead of a re-keying `t1` is set [µs].
    horizon: u64,
    /// Selections since the last re-keying, and the segments they visited.
    selections: u64,
    visited: u64,
    pps: u32,
}

impl CostHotness {
    /// The policy for `pages` logical pages and `segments` segments of `pps` pages.
    pub fn new(pages: u64, segments: u32, pps: u32) -> Self {
        CostHotness {
            pages: vec![
                Page {
                    writes: 0,
                    seg: NONE,
                    last: 0,
                };
                pages as usize
            ],
            listed: 0,
            index: KeyBuckets::new(segments),
            replaced: NONE,
            t1: 0,
            util: utilizations(pps),
            since_seal: 0,
            horizon: 1 << 10,
            selections: 0,
            visited: 0,
            pps,
        }
    }

    /// Segment `seg`'s score at `now` [µs] with `valid` of its pages valid ([`score`]).
    #[inline]
    fn score(&self, seg: u32, valid: u32, now: f64) -> f64 {
        score(self.index.data(seg), valid, self.util[valid as usize], now)
    }

    /// The sealed segment whose sums hold page `page` ([`NONE`] for none): the one it names, if
    /// that is indexed and holds the page's current copy (a victim's pages keep naming it after
    /// it is chosen, until they are sealed elsewhere: this keeps the choice from visiting them).
    #[inline]
    fn holder(&self, page: u32, store: &Store) -> u32 {
        let seg = self.pages[page as usize].seg;
        let slot = store.page_map[page as usize];
        if seg != NONE && slot != NONE && store.segment_of(slot) == seg && self.index.contains(seg)
        {
            seg
        } else {
            NONE
        }
    }

    /// Takes page `page`'s copy out of sealed segment `seg`'s sums, which hold it.
    #[inline]
    fn leave(&mut self, page: u32, seg: u32) {
        let p = &mut self.pages[page as usize];
        p.seg = NONE;
        let sums = self.index.data_mut(seg);
        sums.writes -= f64::from(p.writes);
        sums.last -= p.last as f64;
    }

    /// Moves sealed `seg` to the bucket of its score at `t1` with `valid` valid pages.
    #[inline]
    fn rekey(&mut self, seg: u32, valid: u32) {
        self.index.data_mut(seg).valid = valid;
        let key = self.score(seg, valid, self.t1 as f64);
        self.index.rekey(seg, key);
    }

    /// Every segment re-keyed at a reference time a horizon after `now`. The horizon halves
    /// when the period's selections visited more segments than its re-keying costs per
    /// selection (the bounds were loose), and doubles otherwise.
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, now: u64, store: &Store) {
        let rekeying = self.listed;
        self.horizon = if self.visited > rekeying {
            (self.horizon / 2).max(1)
        } else {
            (self.horizon * 2).min(1 << 40)
        };
        (self.selections, self.visited) = (0, 0);
        self.t1 = now.saturating_add(self.horizon);
        let (util, t1) = (&self.util, self.t1 as f64);
        debug_assert!((0..store.valid.len() as u32)
            .filter(|&s| self.index.contains(s))
            .all(|s| self.index.data(s).valid == store.valid[s as usize]));
        self.index.rebuild(|sums| score(sums, sums.valid, util[sums.valid as usize], t1));
    }

    /// The candidate of the highest score at `t` (at most `t1`), and the segments visited to
    /// find it: the buckets from the highest down, each member scored, until a bucket's upper
    /// edge is below the best score found.
    fn best(&self, store: &Store, t: u64) -> (Option<u32>, usize) {
        let most = (self.pps - 1).min(store.victim_valid_bound);
        let mut best: Option<(f64, u32, u32)> = None;
        let mut visited = 0usize;
        let mut bucket = self.index.highest();
        while let Some(b) = bucket {
            // Every key of the bucket, and so every score at t, is below its upper edge; a
            // margin for the roundings of keys and scores (a few units in the last place).
            let edge = upper_edge(b);
            if best.is_some_and(|(top, _, _)| edge + 1e-9 * edge.abs() < top) {
                break;
            }
            let mut seg = self.index.first(b);
            while seg != NONE {
                visited += 1;
                let valid = self.index.data(seg).valid;
                if valid <= most {
                    let worth = self.score(seg, valid, t as f64);
                    let better = best.is_none_or(|(top, fewest, first)| {
                        match java_order(worth, top) {
                            Ordering::Greater => true,
                            Ordering::Less => false,
                            Ordering::Equal => (valid, seg) < (fewest, first),
                        }
                    });
                    if better {
                        best = Some((worth, valid, seg));
                    }
                }
                seg = self.index.after(seg);
            }
            bucket = b.checked_sub(1).and_then(|x| self.index.highest_at_or_below(x));
        }
        (best.map(|(_, _, seg)| seg), visited)
    }

    /// The cleaner's likely next victim, the best candidate at `t1` (where every key is the
    /// score itself and the first bucket decides), has its lines prefetched, so that choosing it
    /// finds them in the cache. The policy's own guess, not the engine's
    /// (`VictimPolicy::likely_victim`): with this one in the registry's dispatch the other
    /// policies' guesses compiled to more instructions (greedy +0.65%, cachegrind).
    #[cold]
    #[inline(never)]
    fn prefetch_likely_victim(&self, store: &Store) {
        if let (Some(seg), _) = self.best(store, self.t1) {
            store.prefetch_victim(seg);
        }
    }

    /// Drops `seg` from the sealed segments.
    fn unlist(&mut self, seg: u32) {
        if self.index.contains(seg) {
            self.listed -= 1;
            self.index.remove(seg);
        }
    }
}

impl VictimPolicy for CostHotness {
    // The old copy's segment is re-keyed when the copy is invalidated, next (`on_invalidate`):
    // no selection comes between.
    #[inline]
    fn on_user_write(&mut self, page: u32, now: u64, store: &Store) {
        let seg = self.holder(page, store);
        if seg != NONE {
            self.leave(page, seg);
        }
        self.replaced = store.page_map[page as usize];
        let p = &mut self.pages[page as usize];
        p.writes += 1;
        p.last = now;
        self.since_seal += 1;
        if self.since_seal + VICTIM_LEAD == self.pps {
            self.prefetch_likely_victim(store);
        }
    }

    fn on_seal(&mut self, seg: u32, user: bool, store: &Store) {
        if user {
            self.since_seal = 0;
        }
        let s = seg as usize;
        let (mut writes, mut last) = (0.0, 0.0);
        let first = seg * store.pps;
        for slot in first..first + store.pps {
            if let Some(page) = store.page_at(slot) {
                let p = &mut self.pages[page as usize];
                p.seg = seg;
                writes += f64::from(p.writes);
                last += p.last as f64;
            }
        }
        let valid = store.valid[s];
        *self.index.data_mut(seg) = Sums {
            writes,
            last,
            valid,
        };
        self.listed += 1;
        let key = self.score(seg, valid, self.t1 as f64);
        self.index.insert(seg, key);
    }

    // A user write's old copy left the sums in `on_user_write` (the slot it names in
    // `replaced`); one that went away without a write (a discard, or a write that waits for its
    // slot) leaves them here. Either way the
    // valid count fell. The invalidated slot is the page's current copy, so the page's segment
    // counts if it is this one.
    #[inline]
    fn on_invalidate(&mut self, seg: u32, slot: u32, store: &Store) {
        if slot != NONE && std::mem::replace(&mut self.replaced, NONE) != slot {
            let page = store.reverse[slot as usize];
            if self.pages[page as usize].seg == seg && self.index.contains(seg) {
                self.leave(page, seg);
            }
        }
        if self.index.contains(seg) {
            self.rekey(seg, store.valid[seg as usize]);
        }
    }

    #[inline]
    fn prefetch(&self, seg: u32, page: u32) {
        crate::store::prefetch(&self.pages[page as usize]);
        self.index.prefetch(seg);
    }

    fn on_remove(&mut self, seg: u32, _store: &Store) {
        self.unlist(seg);
    }

    fn select(&mut self, store: &Store, clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        // Cleaning comes before the next user write's slot: no copy is being replaced.
        self.replaced = NONE;
        let t = clocks.trace_time;
        if t > self.t1 {
            self.rebuild(t, store);
        }
        let (seg, visited) = self.best(store, t);
        self.selections += 1;
        self.visited += visited as u64;
        let seg = seg?;
        self.unlist(seg);
        // Its valid pages move next, and are summed where they are sealed.
        let first = seg * store.pps;
        for slot in first..first + store.pps {
            if let Some(page) = store.page_at(slot) {
                crate::store::prefetch(&self.pages[page as usize]);
            }
        }
        Some(seg)
    }
}

impl Declare for CostHotness {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Policy,
        name: "cost-hotness",
        aliases: &[],
        summary: "The largest (1 − u)/(u·H), H the segment's hotness: its valid pages' writes over their ages since their last writes (trace time), Σf/(n·t − Σl).",
        source: "Min et al., FAST '12, §4.4; SepBIT artifact's CostHotness.java",
        params: &[],
        needs: &[Need::PageState, Need::Times],
    };
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show((): &(), f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cost-hotness")
    }
    fn build((): &(), g: &Geometry) -> Self {
        CostHotness::new(g.logical_pages, g.segments, g.pages_per_segment)
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    const PPS: u32 = 4;

    /// A store of `segments` segments of 4 pages and `pages` logical pages, and the policy over
    /// it.
    fn setup(segments: u32, pages: u64) -> (Store, CostHotness) {
        let g = Geometry {
            segments,
            pages_per_segment: PPS,
            logical_pages: pages,
        };
        (Store::new(&g), CostHotness::build(&(), &g))
    }

    /// A user write of `page` at `now` into `slot`, as the engine orders it: the policy told,
    /// the page placed, its old copy invalidated (the policy told where its segment is sealed).
    fn write(store: &mut Store, p: &mut CostHotness, page: u32, slot: u32, now: u64) {
        p.on_user_write(page, now, store);
        let old = store.page_map[page as usize];
        store.place::<false>(page, slot);
        if old != NONE {
            let (seg, sealed, _) = store.invalidate::<false>(old);
            if sealed {
                p.on_invalidate(seg, old, store);
            }
        }
    }

    fn seal(store: &mut Store, p: &mut CostHotness, seg: u32) {
        store.seal(seg, 0);
        p.on_seal(seg, true, store);
    }

    /// Σf and Σl of `seg` recounted from its valid pages.
    fn recount(store: &Store, p: &CostHotness, seg: u32) -> (f64, f64) {
        let first = seg * PPS;
        (first..first + PPS)
            .filter_map(|slot| store.page_at(slot))
            .fold((0.0, 0.0), |(w, l), page| {
                let q = p.pages[page as usize];
                (w + f64::from(q.writes), l + q.last as f64)
            })
    }

    /// Segment 0 keeps pages 0, 1 (one write each, at 0) of 4; segment 1 keeps page 7 (one
    /// write, at 90) of 4. Scores (1 − u)/(u·H): segment 0, u = 1/2, H = 2/(2t − 0): t;
    /// segment 1, u = 1/4, H = 1/(t − 90): 3(t − 90). Segment 0 is chosen at t = 100 (100
    /// against 30), segment 1 at t = 200 (330 against 200): the order turns with time, at 135.
    #[test]
    fn the_score_is_the_papers_and_its_order_turns_with_time() {
        let (mut store, mut p) = setup(3, 16);
        let (s0, s1) = (store.open().unwrap(), store.open().unwrap());
        for page in 0..4 {
            write(&mut store, &mut p, page, s0 * PPS + page, 0);
        }
        seal(&mut store, &mut p, s0);
        for (i, page) in [4, 5, 6, 7].into_iter().enumerate() {
            write(&mut store, &mut p, page, s1 * PPS + i as u32, 90);
        }
        seal(&mut store, &mut p, s1);
        let s2 = store.open().unwrap();
        // Pages 2, 3 of segment 0 and 4, 5, 6 of segment 1 rewritten into segment 2 at 95.
        for (i, page) in [2, 3, 4, 5].into_iter().enumerate() {
            write(&mut store, &mut p, page, s2 * PPS + i as u32, 95);
        }
        let s3 = store.open();
        assert_eq!(s3, None, "three segments");
        // Page 6's copy is discarded (a trim): it leaves segment 1's sums by `on_invalidate`.
        let slot6 = store.page_map[6];
        let (seg, sealed, _) = store.invalidate::<false>(slot6);
        assert!(sealed);
        p.on_invalidate(seg, slot6, &store);
        assert_eq!((p.index.data(0).writes, p.index.data(0).last), (2.0, 0.0));
        assert_eq!((p.index.data(1).writes, p.index.data(1).last), (1.0, 90.0));
        assert_eq!(p.score(s0, 2, 100.0).to_bits(), 100f64.to_bits());
        assert_eq!(p.score(s1, 1, 100.0).to_bits(), 30f64.to_bits());
        let mut rng = SimRng::seed_from_u64(1);
        let at = |t: u64| Clocks {
            trace_time: t,
            ..Clocks::default()
        };
        let mut early = p.clone();
        assert_eq!(early.select(&store, &at(100), &mut rng), Some(s0));
        assert_eq!(early.select(&store, &at(100), &mut rng), Some(s1));
        assert_eq!(early.select(&store, &at(100), &mut rng), None);
        assert_eq!(p.select(&store, &at(200), &mut rng), Some(s1));
        // Under `log` with a bound of 1 valid page, segment 0 (2 valid) is not a candidate.
        store.victim_valid_bound = 1;
        assert_eq!(p.select(&store, &at(200), &mut rng), None);
    }

    /// The candidate of the highest score at `t` by a scan of every sealed segment (ties to the
    /// fewest valid pages, then the lowest number).
    fn scan(store: &Store, p: &CostHotness, t: u64) -> Option<u32> {
        let most = (PPS - 1).min(store.victim_valid_bound);
        let mut all: Vec<(f64, u32, u32)> = (0..store.valid.len() as u32)
            .filter(|&s| p.index.contains(s))
            .map(|s| (p.score(s, store.valid[s as usize], t as f64), store.valid[s as usize], s))
            .filter(|&(_, v, _)| v <= most)
            .collect();
        all.sort_by(|a, b| java_order(b.0, a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        all.first().map(|&(_, _, s)| s)
    }

    /// Random writes (90% to a tenth of the pages) and discards over 8 and 400 segments, a victim cleaned by the policy's choice
    /// whenever none is free, time moving by 0–2 µs per write and now and then by up to 10⁶:
    /// after every step each sealed segment's sums are its valid pages' recounted, the pages of
    /// a victim leave its sums before they move, and every victim is the one a scan of every
    /// candidate finds.
    #[test]
    fn the_sums_follow_the_pages() {
        churn(8, 16, 20_000, 3);
        churn(400, 1_200, 100_000, 4);
    }

    fn churn(segments: u32, pages: u32, steps: u32, seed: u64) {
        let (mut store, mut p) = setup(segments, u64::from(pages));
        let mut rng = SimRng::seed_from_u64(seed);
        let mut open = store.open().unwrap();
        let (mut next, mut now, mut victims) = (0, 0, 0);
        for step in 0..steps {
            now += if step % 1_000 == 999 {
                rng.random_range(0..1_000_000)
            } else {
                rng.random_range(0..3)
            };
            // 90% of the writes to a tenth of the pages.
            let page = if rng.random_bool(0.9) {
                rng.random_range(0..pages.div_ceil(10))
            } else {
                rng.random_range(0..pages)
            };
            if step % 7 == 3 && store.page_map[page as usize] != NONE {
                let slot = store.page_map[page as usize];
                store.page_map[page as usize] = NONE;
                let (seg, sealed, _) = store.invalidate::<false>(slot);
                if sealed {
                    p.on_invalidate(seg, slot, &store);
                }
            } else {
                write(&mut store, &mut p, page, open * PPS + next, now);
                next += 1;
            }
            if next == PPS {
                seal(&mut store, &mut p, open);
                next = 0;
                if store.free.is_empty() {
                    // Relocation keeps f and l: the moved pages join the sums of the segment
                    // they go to when it is sealed.
                    let clocks = Clocks {
                        trace_time: now,
                        ..Clocks::default()
                    };
                    let want = scan(&store, &p, now);
                    let victim = p.select(&store, &clocks, &mut rng).expect("a candidate");
                    assert_eq!(Some(victim), want, "step {step}");
                    victims += 1;
                    let mut moved = Vec::new();
                    store.erase_into(victim, &mut moved);
                    assert!(moved.len() < PPS as usize);
                    open = store.open().unwrap();
                    for &page in &moved {
                        store.place::<false>(page, open * PPS + next);
                        next += 1;
                    }
                } else {
                    open = store.open().unwrap();
                }
            }
            for seg in (0..store.valid.len() as u32).filter(|&s| p.index.contains(s)) {
                let (w, l) = recount(&store, &p, seg);
                let sums = p.index.data(seg);
                assert_eq!((sums.writes, sums.last), (w, l), "step {step}");
                assert_eq!(sums.valid, store.valid[seg as usize], "step {step}");
            }
        }
        assert!(victims > steps / 20, "{victims} victims");
    }
}
