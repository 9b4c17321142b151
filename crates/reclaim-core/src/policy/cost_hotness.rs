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
//! Σl)/(n·Σf) grows by (b − n)/Σf ≥ 0 per µs, and changes otherwise only when the segment's
//! pages do. The maximum of such lines is a kinetic problem, and the candidates are kept in a
//! kinetic tournament ([`KineticTournament`]; Basch, Guibas & Hershberger, "Data Structures for
//! Mobile Data", SODA '97, §4): a binary tournament over the segment numbers whose every match
//! carries the time before which its two lines cannot turn, and whose every node holds its
//! winner's line, so that a match reads one cache line. A change to a segment (a page
//! invalidated, a seal, a victim leaving) plays at most one match per level, ⌈log₂ segments⌉,
//! and most stop after one or two (the segment loses to the same neighbour as before); a
//! selection at t plays again only the matches whose times passed and reads the root. Memory:
//! 32 bytes per segment (its sums) and 64 per slot of the tournament (the segments rounded
//! up to a power of two), beside 16 bytes per logical page.
//!
//! Below 100,000 segments (`TOURNAMENT_FROM`) the candidates are kept instead in buckets of
//! their score at a reference time ahead ([`KeyBuckets`]), which bound the scores until then
//! from above: a selection scores the members of the highest buckets until one's edge is below
//! the best found. Every segment must be re-keyed whenever t passes the reference, and a
//! selection visits every segment whose bucket may still hold the best (about 2,000 at 100,000
//! segments right after a uniform fill), so the buckets lose to the tournament on large
//! devices; on small ones, where the segments' entries stay in the cache, their O(1) updates
//! win.
//!
//! Either way the choice is the scan's, bit for bit. A bucket's edge bounds its members' scores
//! with a relative margin of 10⁻⁹ for the roundings. A match compares the two lines' values a·t − c
//! at t, each within 2⁻⁴⁹·a·t of the real line, as the scan's score is: values further apart than a
//! margin of 2⁻⁴⁴·(a + a′)·t order the scan's scores alike, and closer ones are scored as the scan
//! scores them and ordered as it orders them (Java's order, then fewest valid, then lowest number).
//! A match's certificate is where the loser's line, raised by the margin, meets the winner's: until
//! then no rounding can turn the computed order. Lines that are the same (equal sums and counts)
//! score the same at every t and never turn; matches too close to call, and every match once n·t
//! may exceed 2⁵² (where n·t − Σl is no longer exact), are played again at the next later time.
//! Sums are kept in `f64`, as the artifact keeps them, exact while a segment's Σl stays below 2⁵³
//! µs (a segment of 128 pages: 2.2 years of trace time).

use std::cmp::Ordering;
use std::fmt;

use super::index::key_buckets::{upper_edge, KeyBuckets};
use super::index::kinetic::KineticTournament;
use super::{Declare, VictimPolicy};
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::placement::sfs::java_order;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need};
use crate::store::{Store, NONE};

/// User writes before a user segment fills at which the buckets' likely victim is prefetched
/// (the engine's lead for the guesses it asks for).
const VICTIM_LEAD: u32 = 3;

/// The relative margin of a match: far above the error of a line's value a·t − c (a few
/// roundings, under 2⁻⁴⁹·a·t), of the scan's score (three roundings of an exact n·t − Σl) and of
/// the certificates' arithmetic.
const MARGIN: f64 = 256.0 * f64::EPSILON;

/// Devices of this many segments and more keep their candidates in the kinetic tournament,
/// smaller ones in buckets of score ([`Buckets`]). Measured with each structure forced (the
/// `simulate` example, uniform writes at spare 0.10, `fill+2x` then 2x, seed 1, two runs, M page
/// writes/s, buckets against tournament): 52.1 and 50.2 against 35.0 and 34.6 at 10,000
/// segments, 34.8 and 30.7 against 27.0 and 26.8 at 30,000, 22.0 and 21.7 against 21.3 and 22.6
/// at 100,000, 17.5 against 19.5 at 150,000 (one run): they cross at about 100,000, and the
/// buckets' selections visit ever more segments beyond.
const TOURNAMENT_FROM: u32 = 100_000;

/// Largest selections scanned in full to check the tournament's choice in debug builds.
const DEBUG_SCAN_SEGMENTS: usize = 1 << 12;

/// A logical page: its user writes so far, the sealed segment whose sums hold it and its last
/// user write [µs]. The segment is [`NONE`] once its copy leaves the sums, and stale once that
/// segment is collected: it counts only while the segment is listed and holds the page's
/// current copy ([`CostHotness::holder`]).
#[derive(Clone, Copy, Debug)]
struct Page {
    writes: u32,
    seg: u32,
    last: u64,
}

/// Σf and Σl of a sealed segment's valid pages, their number (the store's valid count, kept
/// beside them so that scoring reads one line) and whether the segment is listed: sealed, told
/// to the policy and not given up. Aligned so that an entry is in one cache line. The segment's
/// score line is kept where the tournament plays it, in its leaf.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(32))]
struct Sums {
    writes: f64,
    last: f64,
    valid: u32,
    listed: bool,
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

/// The segments' lines, to play the tournament's matches with.
struct Lines<'a> {
    segs: &'a [Sums],
    util: &'a [(f64, f64)],
    /// Times [µs] from which n·t may not be exact ([`CostHotness::exact_until`]).
    exact_until: u64,
}

impl Lines<'_> {
    /// The match of segments `a` and `b`, with lines `la` and `lb`, at `t` [µs], at or after
    /// every page's last write: whether `a`'s score as the scan computes it is the higher in the
    /// scan's order, and the first later time at which the computed order may turn (`u64::MAX`
    /// for never).
    ///
    /// A line's value a·t − c is within 2⁻⁴⁹·a·t of the segment's score, as is the scan's score
    /// (both a few roundings of the same real line, whose value is at most a·t), so two values
    /// further apart than the margin times (a + a′)·t order the scan's scores alike, and only
    /// closer ones (ties among them) are scored as the scan scores them. The same values give
    /// the certificate: where the loser's line, raised by the margin, meets the winner's.
    #[inline]
    fn play(&self, (a, la): (u32, Line), (b, lb): (u32, Line), t: u64) -> (bool, u64) {
        if t >= self.exact_until {
            return self.play_exactly(a, b, t);
        }
        let tf = t as f64;
        let (ya, yb) = (la.a * tf - la.c, lb.a * tf - lb.c);
        let room = MARGIN * (la.a + lb.a) * tf;
        let a_wins = if ya - yb > room {
            true
        } else if yb - ya > room {
            false
        } else {
            return self.play_exactly(a, b, t);
        };
        let (win, lose) = if a_wins { (la, lb) } else { (lb, la) };
        (a_wins, fails(t, win, lose))
    }

    /// [`Self::play`] with both scores as the scan computes them: for a near tie, an empty
    /// segment (whose line is flat at 0: its score is `f64::MAX`), a time past `exact_until` or
    /// sums in passing (a page left, its count not yet fallen).
    #[cold]
    #[inline(never)]
    fn play_exactly(&self, a: u32, b: u32, t: u64) -> (bool, u64) {
        let (sa, sb) = (&self.segs[a as usize], &self.segs[b as usize]);
        let (ua, ub) = (self.util[sa.valid as usize], self.util[sb.valid as usize]);
        let tf = t as f64;
        let (xa, xb) = (score(sa, sa.valid, ua, tf), score(sb, sb.valid, ub, tf));
        let a_wins = match java_order(xa, xb) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => (sa.valid, a) < (sb.valid, b),
        };
        let (sw, xw, sl, xl) = if a_wins {
            (sa, xa, sb, xb)
        } else {
            (sb, xb, sa, xa)
        };
        if (sw.writes, sw.last, sw.valid) == (sl.writes, sl.last, sl.valid) || sw.valid == 0 {
            // The same line scores the same at every t, and no finite line overtakes an empty
            // segment's f64::MAX.
            return (a_wins, u64::MAX);
        }
        if t >= self.exact_until || xw.is_nan() || xl.is_nan() {
            return (a_wins, t.saturating_add(1));
        }
        // The lines of the sums as they are: in passing, the match is played again when the
        // count falls (`on_invalidate`), before any selection.
        let (lw, ll) = (
            Line::of(sw, self.util[sw.valid as usize]),
            Line::of(sl, self.util[sl.valid as usize]),
        );
        (a_wins, fails(t, lw, ll))
    }
}

/// A segment's score line: a·t − c [µs], a = (1 − u)·n/(u·Σf) and c = (1 − u)·Σl/(u·Σf); NaN
/// for an empty segment, whose score is `f64::MAX` ([`Lines::play_exactly`]).
#[derive(Clone, Copy, Debug, Default)]
struct Line {
    a: f64,
    c: f64,
}

impl Line {
    /// The line of a segment with sums `sums` and (u, 1 − u) `util`.
    #[inline]
    fn of(sums: &Sums, (u, free): (f64, f64)) -> Line {
        if u == 0.0 {
            // NaN: compared with nothing, so that the segment is scored as the scan scores it.
            Line {
                a: f64::NAN,
                c: f64::NAN,
            }
        } else {
            let k = free / (u * sums.writes);
            Line {
                a: k * f64::from(sums.valid),
                c: k * sums.last,
            }
        }
    }
}

/// The certificate of a match played at `t` [µs] that line `w` won against line `l` by more
/// than the margin, or by a tie the scan breaks: the first integer time at which the lead, less
/// the margin times the sum of their slopes times t, may be gone; `t + 1` if it may be gone already (or is NaN:
/// sums in passing), `u64::MAX` if the loser does not gain.
#[inline]
fn fails(t: u64, w: Line, l: Line) -> u64 {
    let tf = t as f64;
    let gap = (w.a * tf - w.c) - (l.a * tf - l.c) - MARGIN * (w.a + l.a) * tf;
    let closing = (1.0 + MARGIN) * l.a - (1.0 - MARGIN) * w.a;
    if gap.is_nan() || closing.is_nan() || gap <= 0.0 {
        return t.saturating_add(1);
    }
    if closing <= 0.0 {
        return u64::MAX;
    }
    let after = gap / closing * (1.0 - 1e-9);
    if after >= 1.8e19 {
        u64::MAX
    } else {
        // Truncated toward zero: the integer times before the crossing.
        t.saturating_add((after as u64).max(1))
    }
}

/// Where the candidates are kept: the structure that was the faster at the device's segment
/// count ([`TOURNAMENT_FROM`]); both choose as the scan does.
#[derive(Clone, Debug)]
enum Index {
    Buckets(Buckets),
    Tournament(KineticTournament<Line>),
}

/// The listed segments in buckets of their score at a reference time `t1` ahead of now
/// ([`KeyBuckets`], 1/64 of an octave each, moved as their pages change), which bounds their
/// score at every t ≤ t₁ from above, scores growing with t. A selection at t visits the buckets
/// from the highest down, scoring each member exactly at t as the scan does, and stops at the
/// first bucket whose upper edge is below the best score found: no segment below can reach it.
/// When t passes t₁ every segment is re-keyed at a new t₁; the horizon t₁ − t doubles after a
/// period whose selections visited fewer segments than a re-keying costs and halves otherwise
/// (the farther t₁, the looser the bounds).
#[derive(Clone, Debug)]
struct Buckets {
    keys: KeyBuckets<()>,
    /// The segments indexed.
    listed: u64,
    /// The reference time of the keys [µs], at or after every selection's until the next
    /// re-keying.
    t1: u64,
    /// How far ahead of a re-keying `t1` is set [µs].
    horizon: u64,
    /// Segments visited by the selections since the last re-keying.
    visited: u64,
}

impl Buckets {
    fn new(segments: u32) -> Self {
        Buckets {
            keys: KeyBuckets::new(segments),
            listed: 0,
            t1: 0,
            horizon: 1 << 10,
            visited: 0,
        }
    }

    /// Segment `seg`, with sums `s`, moved to the bucket of its score at `t1`, or dropped if it
    /// is no longer listed.
    #[inline]
    fn update(&mut self, seg: u32, s: &Sums, util: &[(f64, f64)]) {
        let indexed = self.keys.contains(seg);
        if s.listed {
            let key = score(s, s.valid, util[s.valid as usize], self.t1 as f64);
            if indexed {
                self.keys.rekey(seg, key);
            } else {
                self.listed += 1;
                self.keys.insert(seg, key);
            }
        } else if indexed {
            self.listed -= 1;
            self.keys.remove(seg);
        }
    }

    /// Every segment re-keyed at a reference time a horizon after `now` [µs]. The horizon
    /// halves when the period's selections visited more segments than its re-keying costs,
    /// and doubles otherwise.
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, now: u64, segs: &[Sums], util: &[(f64, f64)]) {
        self.horizon = if self.visited > self.listed {
            (self.horizon / 2).max(1)
        } else {
            (self.horizon * 2).min(1 << 40)
        };
        self.visited = 0;
        self.t1 = now.saturating_add(self.horizon);
        let t1 = self.t1 as f64;
        self.keys.rebuild(|seg, ()| {
            let s = &segs[seg as usize];
            score(s, s.valid, util[s.valid as usize], t1)
        });
    }

    /// The candidate of the highest score at `t` [µs] (at most `t1`) of at most `most` valid
    /// pages, and the segments visited to find it: the buckets from the highest down, each
    /// member scored, until a bucket's upper edge is below the best score found.
    fn best(&self, segs: &[Sums], util: &[(f64, f64)], most: u32, t: u64) -> (Option<u32>, u64) {
        let mut best: Option<(f64, u32, u32)> = None;
        let mut visited = 0;
        let mut bucket = self.keys.highest();
        while let Some(b) = bucket {
            // Every key of the bucket, and so every score at t, is below its upper edge; a
            // margin for the roundings of keys and scores (a few units in the last place).
            let edge = upper_edge(b);
            if best.is_some_and(|(top, _, _)| edge + 1e-9 * edge.abs() < top) {
                break;
            }
            let mut seg = self.keys.first(b);
            while seg != NONE {
                visited += 1;
                let s = &segs[seg as usize];
                if s.valid <= most {
                    let worth = score(s, s.valid, util[s.valid as usize], t as f64);
                    let better =
                        best.is_none_or(|(top, fewest, first)| match java_order(worth, top) {
                            Ordering::Greater => true,
                            Ordering::Less => false,
                            Ordering::Equal => (s.valid, seg) < (fewest, first),
                        });
                    if better {
                        best = Some((worth, s.valid, seg));
                    }
                }
                seg = self.keys.after(seg);
            }
            bucket = b
                .checked_sub(1)
                .and_then(|x| self.keys.highest_at_or_below(x));
        }
        (best.map(|(_, _, seg)| seg), visited)
    }
}

/// Cost-hotness over the sealed segments, in buckets of score or a kinetic tournament of their
/// score lines by the device's size (`TOURNAMENT_FROM`).
#[derive(Clone, Debug)]
pub struct CostHotness {
    pages: Vec<Page>,
    /// Each segment's sums.
    segs: Vec<Sums>,
    /// The candidates: in the tournament the listed segments with at most `most` valid pages,
    /// in the buckets every listed segment.
    index: Index,
    /// The slot of the copy the last user write replaces (its sums already left), until it is
    /// invalidated: that invalidation needs no look-up of its page.
    replaced: u32,
    /// The latest time the policy was told of [µs], at or after every page's last write: the
    /// time of the tournament's matches.
    now: u64,
    /// The most valid pages of a candidate, min(b − 1, `Store::victim_valid_bound`), as of the
    /// last selection.
    most: u32,
    /// (u, 1 − u) per valid count ([`utilizations`]).
    util: Vec<(f64, f64)>,
    /// User writes since a user segment was last sealed: a few before the next fills (and the
    /// cleaner runs), the buckets' likely victim has its lines prefetched (the tournament's is
    /// the engine's to prefetch, [`VictimPolicy::likely_victim`]). Where relocated pages share the
    /// user stream (`single`), a user segment fills with fewer user writes and this fires only
    /// during a fill.
    since_seal: u32,
    /// Times [µs] from which b·t may exceed 2⁵², where n·t − Σl is no longer exact and the
    /// margin of a match's certificate no longer bounds the roundings.
    exact_until: u64,
    pps: u32,
}

impl CostHotness {
    /// The policy for `pages` logical pages and `segments` segments of `pps` pages.
    pub fn new(pages: u64, segments: u32, pps: u32) -> Self {
        Self::with_index(pages, segments, pps, segments >= TOURNAMENT_FROM)
    }

    /// The policy with its candidates in the kinetic tournament (`tournament`) or the buckets.
    fn with_index(pages: u64, segments: u32, pps: u32, tournament: bool) -> Self {
        CostHotness {
            pages: vec![
                Page {
                    writes: 0,
                    seg: NONE,
                    last: 0,
                };
                pages as usize
            ],
            segs: vec![Sums::default(); segments as usize],
            index: if tournament {
                Index::Tournament(KineticTournament::new(segments))
            } else {
                Index::Buckets(Buckets::new(segments))
            },
            replaced: NONE,
            now: 0,
            most: pps - 1,
            util: utilizations(pps),
            since_seal: 0,
            exact_until: (1u64 << 52) / u64::from(pps),
            pps,
        }
    }

    /// Segment `seg`'s score at `now` [µs] with `valid` of its pages valid ([`score`]).
    #[inline]
    fn score(&self, seg: u32, valid: u32, now: f64) -> f64 {
        score(
            &self.segs[seg as usize],
            valid,
            self.util[valid as usize],
            now,
        )
    }

    /// The sealed segment whose sums hold page `page` ([`NONE`] for none): the one it names, if
    /// that is listed and holds the page's current copy (a victim's pages keep naming it after
    /// it is chosen, until they are sealed elsewhere: this keeps the choice from visiting them).
    #[inline]
    fn holder(&self, page: u32, store: &Store) -> u32 {
        let seg = self.pages[page as usize].seg;
        let slot = store.page_map[page as usize];
        if seg != NONE
            && slot != NONE
            && store.segment_of(slot) == seg
            && self.segs[seg as usize].listed
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
        let sums = &mut self.segs[seg as usize];
        sums.writes -= f64::from(p.writes);
        sums.last -= p.last as f64;
    }

    /// Segment `seg` re-keyed after its sums, count or listing changed: its matches played
    /// again at `now`, or its bucket moved.
    #[inline]
    fn update(&mut self, seg: u32) {
        let tournament = match self.index {
            Index::Tournament(ref mut tournament) => tournament,
            Index::Buckets(ref mut b) => {
                b.update(seg, &self.segs[seg as usize], &self.util);
                return;
            }
        };
        let s = &self.segs[seg as usize];
        let key =
            (s.listed && s.valid <= self.most).then(|| Line::of(s, self.util[s.valid as usize]));
        if key.is_some() || tournament.contains(seg) {
            let lines = Lines {
                segs: &self.segs,
                util: &self.util,
                exact_until: self.exact_until,
            };
            let now = self.now;
            tournament.set(seg, key, |a, b| lines.play(a, b, now));
        }
    }

    /// Every match played again at `now`, the candidates those with at most `most` valid pages.
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, most: u32) {
        self.most = most;
        let Index::Tournament(ref mut tournament) = self.index else {
            return;
        };
        let lines = Lines {
            segs: &self.segs,
            util: &self.util,
            exact_until: self.exact_until,
        };
        let (segs, util, now) = (&self.segs, &self.util, self.now);
        tournament.rebuild(
            |s| {
                let x = &segs[s as usize];
                (x.listed && x.valid <= most).then(|| Line::of(x, util[x.valid as usize]))
            },
            |a, b| lines.play(a, b, now),
        );
    }

    /// The candidate of the highest score at `t` by a scan of every listed segment: the
    /// artifact's sort, highest first (ties to the fewest valid pages, then the lowest number).
    fn scan(&self, store: &Store, t: u64) -> Option<u32> {
        let most = (self.pps - 1).min(store.victim_valid_bound);
        let mut best: Option<(f64, u32, u32)> = None;
        for (seg, s) in (0..).zip(&self.segs) {
            if !s.listed || s.valid > most {
                continue;
            }
            let worth = self.score(seg, s.valid, t as f64);
            let better = best.is_none_or(|(top, fewest, first)| match java_order(worth, top) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => (s.valid, seg) < (fewest, first),
            });
            if better {
                best = Some((worth, s.valid, seg));
            }
        }
        best.map(|(_, _, seg)| seg)
    }

    /// The cleaner's likely next victim, in the buckets, has its lines prefetched, so that
    /// choosing it finds them in the cache: their best candidate at `t1` (where every key is the
    /// score itself and the first bucket decides). The tournament names its winner to the
    /// engine instead ([`VictimPolicy::likely_victim`]), which asks before a user segment fills
    /// and before each victim of a burst.
    #[inline]
    fn prefetch_likely_victim(&self, store: &Store) {
        let Index::Buckets(b) = &self.index else {
            return;
        };
        let most = (self.pps - 1).min(store.victim_valid_bound);
        if let Some(likely) = b.best(&self.segs, &self.util, most, b.t1).0 {
            store.prefetch_victim(likely);
        }
    }

    /// Drops `seg` from the sealed segments.
    fn unlist(&mut self, seg: u32) {
        if self.segs[seg as usize].listed {
            self.segs[seg as usize].listed = false;
            self.update(seg);
        }
    }
}

impl VictimPolicy for CostHotness {
    // The old copy's segment is re-keyed when the copy is invalidated, next (`on_invalidate`):
    // no selection comes between, and the matches its sums play meanwhile are played again then.
    #[inline]
    fn on_user_write(&mut self, page: u32, now: u64, store: &Store) {
        let seg = self.holder(page, store);
        if seg != NONE {
            self.leave(page, seg);
        }
        self.replaced = store.page_map[page as usize];
        self.now = self.now.max(now);
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
        self.segs[seg as usize] = Sums {
            writes,
            last,
            valid: store.valid[seg as usize],
            listed: true,
        };
        self.update(seg);
    }

    // A user write's old copy left the sums in `on_user_write` (the slot it names in
    // `replaced`); one that went away without a write (a discard, or a write that waits for its
    // slot) leaves them here. Either way the valid count fell. The invalidated slot is the
    // page's current copy, so the page's segment counts if it is this one.
    #[inline]
    fn on_invalidate(&mut self, seg: u32, slot: u32, store: &Store) {
        let listed = self.segs[seg as usize].listed;
        if slot != NONE && std::mem::replace(&mut self.replaced, NONE) != slot {
            let page = store.reverse[slot as usize];
            if self.pages[page as usize].seg == seg && listed {
                self.leave(page, seg);
            }
        }
        if listed {
            self.segs[seg as usize].valid = store.valid[seg as usize];
            self.update(seg);
        }
    }

    #[inline]
    fn prefetch(&self, seg: u32, page: u32) {
        crate::store::prefetch(&self.pages[page as usize]);
        crate::store::prefetch(&self.segs[seg as usize]);
        match &self.index {
            Index::Tournament(tournament) => tournament.prefetch(seg),
            Index::Buckets(b) => b.keys.prefetch(seg),
        }
    }

    /// The tournament's winner as of its last match (a selection may replay a match whose time
    /// passed); the buckets', found by a walk of their highest, is prefetched by the policy
    /// itself once per user segment instead.
    #[inline]
    fn likely_victim(&self, _store: &Store, _rng: &SimRng) -> Option<u32> {
        match &self.index {
            Index::Tournament(tournament) => {
                let seg = tournament.winner();
                (seg != NONE).then_some(seg)
            }
            Index::Buckets(_) => None,
        }
    }

    fn on_remove(&mut self, seg: u32, _store: &Store) {
        self.unlist(seg);
    }

    fn select(&mut self, store: &Store, clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        // Cleaning comes before the next user write's slot: no copy is being replaced.
        self.replaced = NONE;
        let t = clocks.trace_time;
        let most = (self.pps - 1).min(store.victim_valid_bound);
        let seg = match self.index {
            Index::Buckets(ref mut b) => {
                if t > b.t1 {
                    b.rebuild(t, &self.segs, &self.util);
                }
                let (seg, visited) = b.best(&self.segs, &self.util, most, t);
                b.visited += visited;
                seg
            }
            // A clock that went back (held where it went back, so never here in a run): the
            // tournament's matches hold from `now` on only.
            Index::Tournament(_) if t < self.now => self.scan(store, t),
            Index::Tournament(_) => {
                self.now = t;
                if most != self.most {
                    self.rebuild(most);
                }
                let lines = Lines {
                    segs: &self.segs,
                    util: &self.util,
                    exact_until: self.exact_until,
                };
                let Index::Tournament(ref mut tournament) = self.index else {
                    unreachable!("matched above")
                };
                tournament.advance(t, |a, b| lines.play(a, b, t));
                let seg = tournament.winner();
                (seg != NONE).then_some(seg)
            }
        };
        debug_assert!(
            self.segs.len() > DEBUG_SCAN_SEGMENTS || self.scan(store, t) == seg,
            "the choice at {t} is the scan's"
        );
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
    /// it, its candidates in the kinetic tournament (`tournament`) or the buckets.
    fn setup(segments: u32, pages: u64, tournament: bool) -> (Store, CostHotness) {
        let g = Geometry {
            segments,
            pages_per_segment: PPS,
            logical_pages: pages,
        };
        let p = CostHotness::with_index(pages, segments, PPS, tournament);
        (Store::new(&g), p)
    }

    /// The device's size picks the structure: buckets below [`TOURNAMENT_FROM`] segments, the
    /// tournament from there.
    #[test]
    fn the_size_picks_the_index() {
        let g = |segments| Geometry {
            segments,
            pages_per_segment: PPS,
            logical_pages: 16,
        };
        let small = CostHotness::build(&(), &g(TOURNAMENT_FROM - 1));
        let large = CostHotness::build(&(), &g(TOURNAMENT_FROM));
        assert!(matches!(small.index, Index::Buckets(_)));
        assert!(matches!(large.index, Index::Tournament(_)));
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
        turning_order(false);
        turning_order(true);
    }

    fn turning_order(tournament: bool) {
        let (mut store, mut p) = setup(3, 16, tournament);
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
        assert_eq!((p.segs[0].writes, p.segs[0].last), (2.0, 0.0));
        assert_eq!((p.segs[1].writes, p.segs[1].last), (1.0, 90.0));
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
            .filter(|&s| p.segs[s as usize].listed)
            .map(|s| {
                (
                    p.score(s, store.valid[s as usize], t as f64),
                    store.valid[s as usize],
                    s,
                )
            })
            .filter(|&(_, v, _)| v <= most)
            .collect();
        all.sort_by(|a, b| java_order(b.0, a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        all.first().map(|&(_, _, s)| s)
    }

    /// Random writes (90% to a tenth of the pages) and discards over 8, 400 and 3,000 segments, a
    /// victim cleaned by the policy's choice whenever none is free, time moving by 0–2 µs per
    /// write (or 0–1 in ten writes: many pages share a time, scores tie and n·t − Σl is 0) and
    /// now and then by up to 10⁶: after every step each sealed segment's sums are its valid pages'
    /// recounted, the pages of a victim leave its sums before they move, and every victim is the
    /// one a scan of every candidate finds (the tournament's matches stand or fall exactly as the
    /// scan's comparisons do).
    #[test]
    fn the_sums_follow_the_pages() {
        for tournament in [false, true] {
            churn(8, 16, 20_000, 3, 3, u32::MAX, tournament);
            churn(400, 1_200, 100_000, 4, 3, u32::MAX, tournament);
            churn(3_000, 9_000, 60_000, 5, 3, u32::MAX, tournament);
        }
    }

    /// As [`the_sums_follow_the_pages`] with time still for most writes, and with candidates of
    /// at most 2 valid pages (as under `log`'s garbage-proportion threshold).
    #[test]
    fn the_choice_is_the_scans_with_ties_and_a_bound() {
        for tournament in [false, true] {
            churn(300, 900, 80_000, 6, 0, u32::MAX, tournament);
            churn(300, 600, 80_000, 7, 3, 2, tournament);
        }
    }

    /// The same writes, discards and times on both structures, over random configurations
    /// (segments, pages per segment of them, time's step, a valid-count bound): the same
    /// victims, one by one (each the scan's, as [`churn`] checks).
    #[test]
    fn both_indexes_choose_the_same_victims() {
        let mut rng = SimRng::seed_from_u64(11);
        for case in 0..12 {
            let segments = rng.random_range(6..600);
            let pages = segments * rng.random_range(1..4) + rng.random_range(0..segments);
            let tick = rng.random_range(0..5);
            let bound = if rng.random_bool(0.3) { 2 } else { u32::MAX };
            let seed = 100 + case;
            let buckets = churn(segments, pages, 20_000, seed, tick, bound, false);
            let tournament = churn(segments, pages, 20_000, seed, tick, bound, true);
            assert_eq!(
                buckets, tournament,
                "case {case}: {segments} segments, {pages} pages"
            );
        }
    }

    /// `tick` 0: time moves by one µs in ten writes. The victims, in order.
    fn churn(
        segments: u32,
        pages: u32,
        steps: u32,
        seed: u64,
        tick: u64,
        bound: u32,
        tournament: bool,
    ) -> Vec<u32> {
        let (mut store, mut p) = setup(segments, u64::from(pages), tournament);
        store.victim_valid_bound = bound;
        let mut rng = SimRng::seed_from_u64(seed);
        let mut open = store.open().unwrap();
        let (mut next, mut now, mut victims, mut guessed) = (0, 0, Vec::new(), 0);
        let most = |store: &Store| (PPS - 1).min(store.victim_valid_bound);
        for step in 0..steps {
            now += if step % 1_000 == 999 {
                rng.random_range(0..1_000_000)
            } else if tick == 0 {
                u64::from(rng.random_bool(0.1))
            } else {
                rng.random_range(0..tick)
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
                    // The tournament's guess is the choice while no match's time has passed
                    // (and the bound is the one its matches were played with).
                    let guess = match &p.index {
                        Index::Tournament(k) if k.next_failure() > now && p.most == most(&store) => {
                            Some(p.likely_victim(&store, &rng))
                        }
                        _ => None,
                    };
                    let victim = p.select(&store, &clocks, &mut rng).expect("a candidate");
                    assert_eq!(Some(victim), want, "step {step}");
                    if let Some(guess) = guess {
                        assert_eq!(guess, Some(victim), "step {step}");
                        guessed += 1;
                    }
                    victims.push(victim);
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
            for seg in (0..store.valid.len() as u32).filter(|&s| p.segs[s as usize].listed) {
                let (w, l) = recount(&store, &p, seg);
                let sums = p.segs[seg as usize];
                assert_eq!((sums.writes, sums.last), (w, l), "step {step}");
                assert_eq!(sums.valid, store.valid[seg as usize], "step {step}");
            }
        }
        assert!(
            victims.len() > (steps / 20) as usize,
            "{} victims",
            victims.len()
        );
        if tournament {
            assert!(guessed > 0, "no victim guessed");
        }
        victims
    }
}
