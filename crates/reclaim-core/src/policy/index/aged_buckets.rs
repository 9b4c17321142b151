//! The candidate index of Stockmeyer's simulator (§2.3, after Menon & Stockmeyer): sealed
//! segments wait until their age exceeds the age threshold AT, then join a bucket by utilization,
//! kept in Fifo or Tree order; a selection looks only at the head of each bucket. Shared by
//! [`super::super::age_threshold`] (the head of the lowest non-empty bucket) and [`super::super::fitness`] (the
//! head of largest fitness).
//!
//! L. Stockmeyer, "Simulations of the Age-Threshold and Fitness Free Space Collection Algorithms
//! on a Long Trace", IBM Research Report, §2.3 (parameters `CdmBucketCount`, `Sorting`,
//! `Threshold`) and Note 1 (all-age and TW-age versions).
//!
//! - **Age** of a segment: the destage sequence counter now less the segment's destage sequence
//!   number (the `destage_number` ledger, `ledger::destage`, kept whenever one of these policies runs). A segment is a candidate
//!   once its age exceeds AT; before that it waits, in a queue ordered by destage number, and is
//!   moved to its bucket when the counter ticks past it (all-age), or, in the TW-age version,
//!   only segments sealed from a destage (user) stream wait.
//! - **Buckets**: `CdmBucketCount` = B buckets split utilization [0, 1] into equal sub-ranges;
//!   a segment with v of b pages valid is in bucket ⌊v·B/b⌋, the full segment in the last one.
//!   `exact` keeps one bucket per valid count (b + 1), which makes the heads exact: Tree order
//!   then gives the exact versions of greedy (oldest among the least valid) and of fitness
//!   (among segments of equal utilization the oldest has the largest fitness).
//! - **Order** inside a bucket: Fifo, a queue a segment joins at the tail when it enters the
//!   bucket (becoming a candidate, or losing a page that takes it below the bucket's range;
//!   a page lost within the range leaves it in place); Tree, sorted by age, oldest at the head
//!   (ties of equal destage number in the order they entered). The report says only "each
//!   bucket is maintained as a FIFO queue"; whether a segment that loses a page but stays in its
//!   bucket keeps its place is a reading, so `requeue=every` selects the other: every lost page
//!   sends the segment to the back of its (possibly new) bucket (Tree: behind the segments of
//!   equal age).
//! - **Ties** in Tree order: segments of equal age are common (an FSC segment takes the largest
//!   destage number of its contributors, so the segments cleaned from one set of victims share
//!   it). The report does not say how a bucket sorted by age orders them; the default,
//!   `ties=first`, puts the first to enter at the head (a search tree that inserts an equal key
//!   to the right), `ties=last` the last (one that inserts it to the left).
//!
//! One choice the report does not spell out: when the cleaner needs a victim and every sealed
//! segment is still younger than AT (a threshold larger than the store's free space allows),
//! the oldest waiting segment becomes a candidate at once, so that a run never stalls; the report
//! keeps AT below that level (NAT ≤ 0.175 at ASU 0.8, §5).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::store::{Store, NONE};
use std::fmt;

use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::spec::{check_range, Args, Param};

/// The [`super::super::VictimPolicy`] hooks of a policy whose candidates are an [`AgedBuckets`] field
/// `index`: every one is forwarded, only `select` differs.
macro_rules! aged_hooks {
    () => {
        fn on_destage(&mut self, now: u64, store: &Store) {
            self.index.on_destage(now, store);
        }

        fn on_seal(&mut self, seg: u32, user: bool, store: &Store) {
            self.index.on_seal(seg, user, store);
        }

        #[allow(clippy::inline_always)] // measured; see `Policy::on_invalidate`
        #[inline(always)]
        fn on_invalidate(&mut self, seg: u32, _slot: u32, store: &Store) {
            self.index.on_invalidate(seg, store);
        }

        fn on_remove(&mut self, seg: u32, _store: &Store) {
            self.index.on_remove(seg);
        }
    };
}
pub(crate) use aged_hooks;

/// `where_` of a segment that is waiting for its age to exceed AT.
const WAITING: u32 = NONE - 1;

/// Tree-order heap entry: destage number, entry number, segment.
type TreeEntry = Reverse<(u64, u64, u32)>;

/// Sealed segments: waiting, or in a utilization bucket.
#[derive(Clone, Debug)]
pub struct AgedBuckets {
    /// Bucket of each valid count 0..=b.
    bucket_of: Vec<u32>,
    order: BucketOrder,
    threshold: u64,
    tw_age: bool,
    /// `requeue=every`: a candidate that loses a page re-enters its bucket.
    requeue_every: bool,
    /// `ties=last`: a candidate's entry number is the complement of the count of entries, so
    /// that in Tree order the latest entry leads its equals (else the earliest). A flag, not
    /// a mask: eight more bytes here make every policy larger, and indexing the policies
    /// costs an instruction more (measured).
    ties_last: bool,
    /// The destage sequence counter, as last told.
    now: u64,
    /// Per segment: its bucket, [`WAITING`], or `NONE` when not a candidate.
    where_: Vec<u32>,
    /// Per segment: its entry number (Tree order ties, and staleness of heap entries).
    entry: Vec<u64>,
    entries: u64,
    /// Segments waiting, youngest destage number last; an entry is stale when its entry number
    /// is no longer its segment's.
    waiting: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// Fifo order: per bucket head and tail, per segment next and previous (`NONE` ends).
    head: Vec<u32>,
    tail: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Tree order: per bucket a min-heap of (destage number, entry); stale entries dropped lazily.
    trees: Vec<BinaryHeap<TreeEntry>>,
    /// Segments per bucket.
    count: Vec<usize>,
    /// No non-empty bucket below this index.
    low: usize,
    candidates: usize,
}

impl AgedBuckets {
    /// An empty index for `segments` segments of `pps` pages.
    pub fn new(
        segments: u32,
        pps: u32,
        buckets: BucketCount,
        order: BucketOrder,
        threshold: u64,
        age: AgeRule,
    ) -> Self {
        let bucket_of: Vec<u32> = match buckets {
            BucketCount::Exact => (0..=pps).collect(),
            BucketCount::Count(b) => (0..=pps)
                .map(|v| {
                    ((u64::from(v) * u64::from(b)) / u64::from(pps)).min(u64::from(b) - 1) as u32
                })
                .collect(),
        };
        let nb = bucket_of[pps as usize] as usize + 1;
        let n = segments as usize;
        let fifo = order == BucketOrder::Fifo;
        AgedBuckets {
            bucket_of,
            order,
            threshold,
            tw_age: age == AgeRule::Tw,
            requeue_every: false,
            ties_last: false,
            now: 0,
            where_: vec![NONE; n],
            entry: vec![0; n],
            entries: 0,
            waiting: BinaryHeap::new(),
            head: vec![NONE; if fifo { nb } else { 0 }],
            tail: vec![NONE; if fifo { nb } else { 0 }],
            next: vec![NONE; if fifo { n } else { 0 }],
            prev: vec![NONE; if fifo { n } else { 0 }],
            trees: vec![BinaryHeap::new(); if fifo { 0 } else { nb }],
            count: vec![0; nb],
            low: nb,
            candidates: 0,
        }
    }

    /// The age threshold AT [destage sequence numbers].
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// The destage counter as last told.
    pub fn now(&self) -> u64 {
        self.now
    }

    fn age_exceeds(&self, dseq: u64) -> bool {
        self.now.saturating_sub(dseq) > self.threshold
    }

    fn enter(&mut self, seg: u32, store: &Store) {
        let s = seg as usize;
        let b = self.bucket_of[store.valid[s] as usize];
        self.entries += 1;
        let e = if self.ties_last {
            !self.entries
        } else {
            self.entries
        };
        self.entry[s] = e;
        self.where_[s] = b;
        let bi = b as usize;
        match self.order {
            BucketOrder::Fifo => {
                self.next[s] = NONE;
                self.prev[s] = self.tail[bi];
                if self.tail[bi] == NONE {
                    self.head[bi] = seg;
                } else {
                    self.next[self.tail[bi] as usize] = seg;
                }
                self.tail[bi] = seg;
            }
            BucketOrder::Tree => {
                self.trees[bi].push(Reverse((store.facts.dseq()[s], e, seg)));
                if self.trees[bi].len() > 2 * self.count[bi] + 64 {
                    self.compact(bi);
                }
            }
        }
        self.count[bi] += 1;
        self.candidates += 1;
        self.low = self.low.min(bi);
    }

    /// Drops the stale entries of tree `b`.
    fn compact(&mut self, b: usize) {
        let (where_, entry) = (&self.where_, &self.entry);
        let live = std::mem::take(&mut self.trees[b])
            .into_vec()
            .into_iter()
            .filter(|Reverse((_, e, s))| {
                where_[*s as usize] == b as u32 && entry[*s as usize] == *e
            })
            .collect::<Vec<_>>();
        self.trees[b] = BinaryHeap::from(live);
    }

    fn leave(&mut self, seg: u32) {
        let s = seg as usize;
        let b = self.where_[s] as usize;
        if self.order == BucketOrder::Fifo {
            let (p, n) = (self.prev[s], self.next[s]);
            if p == NONE {
                self.head[b] = n;
            } else {
                self.next[p as usize] = n;
            }
            if n == NONE {
                self.tail[b] = p;
            } else {
                self.prev[n as usize] = p;
            }
        }
        // Tree order: the heap entry goes stale (its segment's `where_` or entry changes).
        self.where_[s] = NONE;
        self.count[b] -= 1;
        self.candidates -= 1;
    }

    /// The destage counter ticked to `now`: segments whose age now exceeds AT become candidates.
    pub fn on_destage(&mut self, now: u64, store: &Store) {
        self.now = now;
        while let Some(&Reverse((dseq, e, seg))) = self.waiting.peek() {
            if !self.age_exceeds(dseq) {
                break;
            }
            self.waiting.pop();
            let s = seg as usize;
            if self.where_[s] == WAITING && self.entry[s] == e {
                self.where_[s] = NONE;
                self.enter(seg, store);
            }
        }
    }

    /// `seg` was sealed, from a user (destage) stream or not.
    pub fn on_seal(&mut self, seg: u32, user: bool, store: &Store) {
        let s = seg as usize;
        let dseq = store.facts.dseq()[s];
        if (self.tw_age && !user) || self.age_exceeds(dseq) {
            self.enter(seg, store);
        } else {
            self.entries += 1;
            self.entry[s] = self.entries;
            self.where_[s] = WAITING;
            self.waiting.push(Reverse((dseq, self.entries, seg)));
        }
    }

    /// `seg` lost a valid page: it moves to the tail of a lower bucket when its utilization
    /// leaves its bucket's range (with `requeue=every`, to the tail of its bucket in any case).
    #[inline]
    pub fn on_invalidate(&mut self, seg: u32, store: &Store) {
        let s = seg as usize;
        let w = self.where_[s];
        if w >= WAITING {
            return;
        }
        if self.bucket_of[store.valid[s] as usize] != w || self.requeue_every {
            self.leave(seg);
            self.enter(seg, store);
        }
    }

    /// `seg` leaves the candidates (it emptied and was freed).
    pub fn on_remove(&mut self, seg: u32) {
        let s = seg as usize;
        match self.where_[s] {
            NONE => {}
            WAITING => self.where_[s] = NONE,
            _ => self.leave(seg),
        }
    }

    /// The head of bucket `b` (non-empty).
    fn head_of(&mut self, b: usize) -> u32 {
        match self.order {
            BucketOrder::Fifo => self.head[b],
            BucketOrder::Tree => loop {
                let &Reverse((_, e, seg)) = self.trees[b].peek().expect("a non-empty bucket");
                if self.where_[seg as usize] == b as u32 && self.entry[seg as usize] == e {
                    return seg;
                }
                self.trees[b].pop();
            },
        }
    }

    /// Makes the oldest waiting segment a candidate, when there is none (see the module note).
    fn ensure_candidate(&mut self, store: &Store) -> bool {
        while self.candidates == 0 {
            let Some(Reverse((_, e, seg))) = self.waiting.pop() else {
                return false;
            };
            let s = seg as usize;
            if self.where_[s] == WAITING && self.entry[s] == e {
                self.where_[s] = NONE;
                self.enter(seg, store);
            }
        }
        true
    }

    /// The heads of the non-empty buckets, lowest utilization first, as `(bucket, segment)`;
    /// empty when no segment is held at all.
    pub fn heads(&mut self, store: &Store, out: &mut Vec<(usize, u32)>) {
        out.clear();
        if !self.ensure_candidate(store) {
            return;
        }
        for b in self.low..self.count.len() {
            if self.count[b] > 0 {
                let seg = self.head_of(b);
                out.push((b, seg));
            }
        }
    }

    /// The head of the lowest non-empty bucket.
    pub fn lowest_head(&mut self, store: &Store) -> Option<u32> {
        if !self.ensure_candidate(store) {
            return None;
        }
        while self.count[self.low] == 0 {
            self.low += 1;
        }
        Some(self.head_of(self.low))
    }

    /// Takes `seg`, a candidate, out as the victim.
    pub fn take(&mut self, seg: u32) {
        self.leave(seg);
    }
}

/// Number of utilization buckets of Stockmeyer's selection (`CdmBucketCount`, §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BucketCount {
    /// `exact`: one bucket per valid count, so that bucket heads are exact.
    Exact,
    /// `B` buckets of equal utilization range, 1 ≤ B ≤ 65,536 (the report uses 10).
    Count(u32),
}

impl fmt::Display for BucketCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BucketCount::Exact => f.write_str("exact"),
            BucketCount::Count(b) => write!(f, "{b}"),
        }
    }
}

/// Order inside a bucket (Stockmeyer §2.3's `Sorting`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BucketOrder {
    /// `fifo`: a queue a segment joins when it enters the bucket.
    Fifo,
    /// `tree`: sorted by age, the oldest at the head.
    Tree,
}

impl fmt::Display for BucketOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BucketOrder::Fifo => "fifo",
            BucketOrder::Tree => "tree",
        })
    }
}

/// Which sealed segments must wait for the age threshold (Stockmeyer Note 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgeRule {
    /// `all`: every sealed segment (the all-age version, Stockmeyer's simulator).
    All,
    /// `tw`: only segments sealed from a destage (user) stream (the TW-age version).
    Tw,
}

impl fmt::Display for AgeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AgeRule::All => "all",
            AgeRule::Tw => "tw",
        })
    }
}

/// The age threshold AT [destage sequence numbers].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    /// `at=N`: N segments closed from a destage stream.
    At(u64),
    /// `nat=X`: the normalized threshold, AT = round(X · segments), 0 ≤ X ≤ 1.
    Nat(f64),
    /// `nat=heuristic`: NAT = 0.5·(1 − ASU), ASU = logical pages / physical pages (Menon &
    /// Stockmeyer §18; Stockmeyer §3's age-thr-nat.10 at ASU 0.8).
    Heuristic,
}

impl Threshold {
    /// AT on a geometry.
    pub fn resolve(&self, g: &Geometry) -> u64 {
        let nat = match *self {
            Threshold::At(n) => return n,
            Threshold::Nat(x) => x,
            Threshold::Heuristic => {
                0.5 * (1.0 - g.logical_pages as f64 / g.physical_pages() as f64)
            }
        };
        (nat * f64::from(g.segments)).round().max(0.0) as u64
    }
}

impl fmt::Display for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Threshold::At(n) => write!(f, "at={n}"),
            Threshold::Nat(x) => write!(f, "nat={x}"),
            Threshold::Heuristic => f.write_str("nat=heuristic"),
        }
    }
}

/// The selection parameters shared by `age-threshold` and `fitness` (Stockmeyer §2.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LsaSelection {
    /// Age threshold.
    pub threshold: Threshold,
    /// `CdmBucketCount`.
    pub buckets: BucketCount,
    /// `Sorting`.
    pub sort: BucketOrder,
    /// All-age or TW-age.
    pub age: AgeRule,
    /// When a candidate re-enters its bucket.
    pub requeue: Requeue,
    /// Tree order among segments of equal age.
    pub ties: Ties,
}

/// Which of the segments of equal age is at the head of a Tree-ordered bucket (see the module
/// note).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    /// `first`: the first to enter the bucket.
    First,
    /// `last`: the last to enter it.
    Last,
}

impl fmt::Display for Ties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ties::First => "first",
            Ties::Last => "last",
        })
    }
}

/// When a candidate that loses a page goes to the back of a bucket (see the module note).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requeue {
    /// `bucket`: only when it leaves its bucket's range.
    Bucket,
    /// `every`: at every page it loses.
    Every,
}

impl fmt::Display for Requeue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Requeue::Bucket => "bucket",
            Requeue::Every => "every",
        })
    }
}

impl LsaSelection {
    /// The selection of `age-threshold` or `fitness`, with that policy's defaults.
    pub fn parse(spec: &Args<'_>, threshold: Threshold, sort: BucketOrder) -> Result<Self> {
        let threshold = match (spec.get("at"), spec.get("nat")) {
            (Some(_), Some(_)) => {
                return Err(spec.bad("one of `at=N` and `nat=X`, not both"));
            }
            (Some(_), None) => Threshold::At(spec.num("at", None, "a whole number ≥ 0")?),
            (None, Some("heuristic")) => Threshold::Heuristic,
            (None, Some(_)) => {
                let x: f64 = spec.num("nat", None, "a number in [0, 1] or `heuristic`")?;
                check_range(&format!("{}.nat", spec.param), x, 0.0, 1.0, false, false)?;
                Threshold::Nat(x)
            }
            (None, None) => threshold,
        };
        let buckets = match spec.get("buckets") {
            None | Some("exact") => BucketCount::Exact,
            Some(_) => {
                let range = "a whole number in [1, 65536] or `exact`";
                let b: u32 = spec.num("buckets", None, range)?;
                if !(1..=65_536).contains(&b) {
                    return Err(Error::param(&format!("{}.buckets", spec.param), b, range));
                }
                BucketCount::Count(b)
            }
        };
        let sort = spec.choice(
            "sort",
            &[("fifo", BucketOrder::Fifo), ("tree", BucketOrder::Tree)],
            sort,
        )?;
        let age = spec.choice(
            "age",
            &[("all", AgeRule::All), ("tw", AgeRule::Tw)],
            AgeRule::All,
        )?;
        let requeue = spec.choice(
            "requeue",
            &[("bucket", Requeue::Bucket), ("every", Requeue::Every)],
            Requeue::Bucket,
        )?;
        let ties = spec.choice(
            "ties",
            &[("first", Ties::First), ("last", Ties::Last)],
            Ties::First,
        )?;
        if ties == Ties::Last && sort != BucketOrder::Tree {
            return Err(spec.bad(
                "`ties=last` with `sort=tree` (it orders segments of equal age in Tree buckets)",
            ));
        }
        Ok(LsaSelection {
            threshold,
            buckets,
            sort,
            age,
            requeue,
            ties,
        })
    }
}

impl fmt::Display for LsaSelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{},buckets={},sort={},age={}",
            self.threshold, self.buckets, self.sort, self.age
        )?;
        // Named only when it is not the default, so that the texts of existing runs stay theirs.
        if self.requeue == Requeue::Every {
            f.write_str(",requeue=every")?;
        }
        if self.ties == Ties::Last {
            f.write_str(",ties=last")?;
        }
        Ok(())
    }
}

/// The parameters of Stockmeyer's selection shared by `age-threshold` and `fitness`, with a
/// policy's defaults of `at`, `nat` (at most one of which is given) and `sort`.
pub const fn lsa_params(
    at_default: &'static str,
    nat_default: &'static str,
    sort_default: &'static str,
) -> [Param; 7] {
    [
        Param {
            key: "at",
            values: "N",
            unit: "destage sequence numbers",
            range: "a whole number ≥ 0",
            default: Some(at_default),
            help: "Age threshold AT: segments closed from a destage stream since a segment's own.",
        },
        Param {
            key: "nat",
            values: "X|heuristic",
            unit: "",
            range: "a number in [0, 1] or `heuristic`",
            default: Some(nat_default),
            help: "Normalized threshold NAT = AT / segments; heuristic: 0.5·(1 − ASU) (Menon & Stockmeyer §18).",
        },
        Param {
            key: "buckets",
            values: "B|exact",
            unit: "buckets",
            range: "a whole number in [1, 65536] or `exact`",
            default: Some("exact"),
            help: "CdmBucketCount: utilization buckets (the report uses 10); exact: one per valid count.",
        },
        Param {
            key: "sort",
            values: "fifo|tree",
            unit: "",
            range: "`fifo` or `tree`",
            default: Some(sort_default),
            help: "Order inside a bucket: arrival (Fifo) or age (Tree), Stockmeyer §2.3.",
        },
        Param {
            key: "age",
            values: "all|tw",
            unit: "",
            range: "`all` or `tw`",
            default: Some("all"),
            help: "Which segments wait for the threshold: all (all-age) or those of destage streams (TW-age), Note 1.",
        },
        Param {
            key: "requeue",
            values: "bucket|every",
            unit: "",
            range: "`bucket` or `every`",
            default: Some("bucket"),
            help: "A candidate that loses a page goes to the back of a bucket only when it changes bucket, or every time (a reading of §2.3's FIFO queue).",
        },
        Param {
            key: "ties",
            values: "first|last",
            unit: "",
            range: "`first` or `last`",
            default: Some("first"),
            help: "Tree order among segments of equal age: the first to enter the bucket at its head, or the last.",
        },
    ]
}

impl AgedBuckets {
    /// The index of a selection for a store of `geometry`.
    pub fn of(b: &LsaSelection, geometry: &Geometry) -> Self {
        let mut index = AgedBuckets::new(
            geometry.segments,
            geometry.pages_per_segment,
            b.buckets,
            b.sort,
            b.threshold.resolve(geometry),
            b.age,
        );
        index.requeue_every = b.requeue == Requeue::Every;
        index.ties_last = b.ties == Ties::Last;
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Geometry;

    fn store(segments: u32, pps: u32) -> Store {
        let mut s = Store::new(&Geometry {
            segments,
            pages_per_segment: pps,
            logical_pages: u64::from(segments * pps / 2),
        });
        s.keep_facts(|n| n == crate::spec::Need::DestageNumbers);
        s
    }

    /// `CdmBucketCount` = 10 over 20 pages: valid counts 0–1 in bucket 0, 2–3 in bucket 1, …,
    /// 18–20 in bucket 9 (utilization 0.9 ≤ u ≤ 1).
    #[test]
    fn ten_buckets_split_utilization_evenly() {
        let b = AgedBuckets::new(
            4,
            20,
            BucketCount::Count(10),
            BucketOrder::Fifo,
            0,
            AgeRule::All,
        );
        assert_eq!(&b.bucket_of[..4], &[0, 0, 1, 1]);
        assert_eq!(&b.bucket_of[18..], &[9, 9, 9]);
    }

    /// A segment younger than AT waits; it becomes a candidate when the counter passes
    /// dseq + AT. Hand-worked: AT = 2, segment sealed with dseq 5 when the counter is 6 (age 1):
    /// waiting at counters 6 and 7 (ages 1, 2), a candidate at 8 (age 3 > 2).
    #[test]
    fn segments_wait_until_their_age_exceeds_the_threshold() {
        let mut st = store(4, 4);
        let mut b = AgedBuckets::new(4, 4, BucketCount::Exact, BucketOrder::Fifo, 2, AgeRule::All);
        st.facts.dseq.values[1] = 5;
        st.valid[1] = 2;
        b.on_destage(6, &st);
        b.on_seal(1, true, &st);
        assert_eq!(b.candidates, 0);
        b.on_destage(7, &st);
        assert_eq!(b.candidates, 0);
        b.on_destage(8, &st);
        assert_eq!(b.lowest_head(&st), Some(1));
        // TW-age: a segment sealed from an FSC stream is a candidate at once.
        let mut tw = AgedBuckets::new(4, 4, BucketCount::Exact, BucketOrder::Fifo, 2, AgeRule::Tw);
        tw.on_destage(6, &st);
        tw.on_seal(1, false, &st);
        assert_eq!(tw.lowest_head(&st), Some(1));
    }

    /// Fifo keeps entry order in a bucket and moves a segment only when it leaves the bucket's
    /// range; Tree keeps the oldest (smallest destage number) at the head.
    #[test]
    fn fifo_and_tree_heads() {
        let mut st = store(4, 20);
        for (seg, (dseq, valid)) in [(9, 19), (3, 18), (7, 11)].into_iter().enumerate() {
            st.facts.dseq.values[seg] = dseq;
            st.valid[seg] = valid;
        }
        let mut heads = Vec::new();
        for order in [BucketOrder::Fifo, BucketOrder::Tree] {
            let mut b = AgedBuckets::new(4, 20, BucketCount::Count(10), order, 0, AgeRule::All);
            b.on_destage(10, &st);
            for seg in 0..3 {
                b.on_seal(seg, true, &st);
            }
            // Segment 0 loses a page: 19 → 18 stays in bucket 9 (and in place).
            st.valid[0] = 18;
            b.on_invalidate(0, &st);
            b.heads(&st, &mut heads);
            let expect = match order {
                BucketOrder::Fifo => [(5, 2), (9, 0)],
                BucketOrder::Tree => [(5, 2), (9, 1)],
            };
            assert_eq!(heads, expect, "{order:?}");
            st.valid[0] = 19;
        }
    }

    /// `requeue=every`: segment 0 (the Fifo head of bucket 9, 19 of 20 valid) loses a page and
    /// stays in bucket 9, but goes behind segment 1, which entered the bucket after it.
    #[test]
    fn requeue_every_sends_a_segment_that_lost_a_page_to_the_back() {
        let mut st = store(4, 20);
        for (seg, valid) in [19, 18].into_iter().enumerate() {
            st.facts.dseq.values[seg] = 1;
            st.valid[seg] = valid;
        }
        let mut heads = Vec::new();
        for (requeue, head) in [(Requeue::Bucket, 0), (Requeue::Every, 1)] {
            let selection = LsaSelection {
                threshold: Threshold::At(0),
                buckets: BucketCount::Count(10),
                sort: BucketOrder::Fifo,
                age: AgeRule::All,
                requeue,
                ties: Ties::First,
            };
            let geometry = Geometry {
                segments: 4,
                pages_per_segment: 20,
                logical_pages: 40,
            };
            let mut b = AgedBuckets::of(&selection, &geometry);
            b.on_destage(10, &st);
            b.on_seal(0, true, &st);
            b.on_seal(1, true, &st);
            st.valid[0] = 18;
            b.on_invalidate(0, &st);
            b.heads(&st, &mut heads);
            assert_eq!(heads, [(9, head)], "{requeue}");
            st.valid[0] = 19;
        }
    }

    /// Tree order with ties: segments 0, 1 and 2 of bucket 9 share destage number 4 (entered in
    /// that order), segment 3 is older (3). The oldest leads either way; once it is gone,
    /// `ties=first` gives the first of them to enter, `ties=last` the last — also after a
    /// compaction of the heap (stale entries of a segment that moved out and back in).
    #[test]
    fn tree_ties_first_or_last() {
        let mut st = store(4, 20);
        for (seg, dseq) in [4, 4, 4, 3].into_iter().enumerate() {
            st.facts.dseq.values[seg] = dseq;
            st.valid[seg] = 19;
        }
        let geometry = Geometry {
            segments: 4,
            pages_per_segment: 20,
            logical_pages: 40,
        };
        let mut heads = Vec::new();
        for (ties, tie, expect) in [(Ties::First, 0, 0), (Ties::Last, 2, 1)] {
            let selection = LsaSelection {
                threshold: Threshold::At(0),
                buckets: BucketCount::Count(10),
                sort: BucketOrder::Tree,
                age: AgeRule::All,
                requeue: Requeue::Bucket,
                ties,
            };
            let mut b = AgedBuckets::of(&selection, &geometry);
            b.on_destage(10, &st);
            for seg in 0..4 {
                b.on_seal(seg, true, &st);
            }
            b.heads(&st, &mut heads);
            assert_eq!(heads, [(9, 3)], "{ties}");
            b.on_remove(3);
            b.heads(&st, &mut heads);
            assert_eq!(heads, [(9, tie)], "{ties}");
            // Many stale entries for segment 1 (in and out of bucket 8), then a compaction.
            for _ in 0..100 {
                st.valid[1] = 17;
                b.on_invalidate(1, &st);
                st.valid[1] = 19;
                b.on_remove(1);
                b.on_seal(1, true, &st);
            }
            b.heads(&st, &mut heads);
            // Segment 1 re-entered last: under `last` it now leads the tie.
            assert_eq!(heads, [(9, expect)], "{ties}");
        }
    }
}
