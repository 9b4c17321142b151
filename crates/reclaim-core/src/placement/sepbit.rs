//! SepBIT: data separated by inferred block invalidation time.
//!
//! Q. Wang, J. Li, P. P. C. Lee, T. Ouyang, C. Shi, L. Huang, "Separating Data via Block
//! Invalidation Time Inference for Write Amplification Reduction in Log-Structured Storage",
//! FAST '22, §3 (the design: a user-written block whose previous write is recent is short-lived;
//! a relocated block's remaining lifespan grows with its age), in the form its artifact
//! implements it, `trace_replay/src/main/java/gcsimulator/placement/SepBIT.java`, with six open
//! segments (classes):
//!
//! - **ℓ**, the average lifespan of short-lived segments: the mean of (time collected − time
//!   opened) over each successive, non-overlapping batch of 16 collected class-0 segments;
//!   +∞ until the first batch. Time is the count of user writes (the artifact's `accessId`).
//! - **User writes** (classes 0 and 1): class 0 if the page was written before and its previous
//!   write is younger than min(ℓ, F), else class 1. F is the size of the artifact's FIFO of recent
//!   writes, which here is only counted: it grows by one per user write, then loses one if it
//!   exceeds min(V, ℓ) (V the valid pages) and a second if it still exceeds ℓ. A page whose
//!   previous write left the FIFO is exactly a page whose previous write is at least F writes old,
//!   so the count decides as the artifact's queue does.
//! - **Relocated pages**: from a class-0 victim to class 2; from any other, by the age of the
//!   page's last user write: class 3 below 4ℓ, 4 below 16ℓ, 5 beyond.
//!
//! The artifact's two ablations are this file's `separate` parameter: `uw` (`UW.java`, user
//! writes separated as above, every relocated page to class 2: three classes) and `gw`
//! (`GW.java`, every user write to class 0, relocated pages by age: class 1 below 4ℓ, 2 below
//! 16ℓ, … 5 beyond 256ℓ, ℓ from the collected class-0 segments as above: six classes).
//!
//! Choices, documented in `docs/design.md`:
//! - V is the number of pages ever written (first writes counted as the scheme sees them). The
//!   artifact's V is its log's blocks less the invalid blocks of sealed segments, so it also counts
//!   stale copies in open segments (at most the open segments' pages); V bounds F only while
//!   ℓ > V, before the first batch.
//! - A segment is "opened" when its stream's previous segment is sealed (the artifact opens the
//!   next segment of a class at that moment), the first segment of each stream at time 0.

use std::fmt;

use super::{Build, Built, Declare, Relocation, RelocationRun, Scheme, Victim};
use crate::error::Result;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::workload::Write;

/// Classes (open segments) of the artifact's configuration.
const CLASSES: usize = 6;
/// Collected class-0 segments per update of ℓ.
const BATCH: u32 = 16;
/// The factor between successive age thresholds of relocated pages (4ℓ, 16ℓ).
const STEP: f64 = 4.0;
/// A page not yet written.
const NEVER: u64 = u64::MAX;

/// Which writes SepBIT separates: both (SepBIT), user writes only (the artifact's UW), or
/// relocated pages only (GW).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Separate {
    /// User writes into classes 0–1, relocated pages into 2–5.
    Both,
    /// User writes into classes 0–1, relocated pages all to class 2.
    User,
    /// User writes all to class 0, relocated pages by age into classes 1–5.
    Gc,
}

impl Separate {
    fn name(self) -> &'static str {
        match self {
            Separate::Both => "both",
            Separate::User => "user",
            Separate::Gc => "gc",
        }
    }

    /// Open segments (classes).
    fn classes(self) -> usize {
        match self {
            Separate::User => 3,
            _ => CLASSES,
        }
    }
}

/// SepBIT's state.
#[derive(Clone, Debug)]
pub struct SepBit {
    /// Which writes are separated.
    separate: Separate,
    /// User writes so far (the artifact's `accessId`, counted before a write is placed).
    now: u64,
    /// Per logical page: the time of its last user write, [`NEVER`] before the first.
    last: Vec<u64>,
    /// Pages written at least once (V).
    written: u64,
    /// The count of the FIFO of recent user writes (F).
    fifo: u64,
    /// ℓ [user writes], +∞ before the first batch.
    ell: f64,
    /// The current batch: lifespans summed and segments counted.
    batch_sum: f64,
    batch_len: u32,
    /// Per stream, when its open segment was opened.
    opened: [u64; CLASSES],
    /// Per segment, the stream that sealed it and when that segment was opened.
    class: Vec<u8>,
    born: Vec<u64>,
}

impl SepBit {
    /// The scheme over `pages` logical pages and `segments` segments.
    pub fn new(pages: u64, segments: u32) -> Self {
        Self::separating(Separate::Both, pages, segments)
    }

    /// The scheme separating `separate` over `pages` logical pages and `segments` segments.
    pub fn separating(separate: Separate, pages: u64, segments: u32) -> Self {
        SepBit {
            separate,
            now: 0,
            last: vec![NEVER; pages as usize],
            written: 0,
            fifo: 0,
            ell: f64::INFINITY,
            batch_sum: 0.0,
            batch_len: 0,
            opened: [0; CLASSES],
            class: vec![0; segments as usize],
            born: vec![0; segments as usize],
        }
    }

    /// ℓ as it stands [user writes]; +∞ before the first batch.
    pub fn ell(&self) -> f64 {
        self.ell
    }

    /// The class of a relocated page from a victim not of class 0, by the age of its last user
    /// write: 3 below 4ℓ, 4 below 16ℓ, 5 beyond (with `separate=gc`, from 1 below 4ℓ).
    #[inline]
    fn by_age(&self, page: u32) -> usize {
        let age = (self.now - self.last[page as usize]) as f64;
        let first = if self.separate == Separate::Gc { 1 } else { 3 };
        let (mut class, mut bound) = (first, self.ell * STEP);
        while age >= bound && class < CLASSES - 1 {
            bound *= STEP;
            class += 1;
        }
        class
    }
}

// Out of line: inlined into the registry's dispatch, these bodies made the run loop's
// user-write path too large to inline for every other scheme (fitness-tree +1% instructions).
impl Scheme for SepBit {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        self.now += 1;
        let last = &mut self.last[write.page as usize];
        // Class 0: written before, and recently (the previous write is still in the FIFO).
        let short = *last != NEVER && ((self.now - *last) as f64) < self.ell.min(self.fifo as f64);
        self.written += u64::from(*last == NEVER);
        *last = self.now;
        // The FIFO takes this write, then sheds at most two of its oldest.
        self.fifo += 1;
        if self.fifo as f64 > (self.written as f64).min(self.ell) {
            self.fifo -= 1;
            if self.fifo as f64 > self.ell {
                self.fifo -= 1;
            }
        }
        // Class 0 for a short-lived write, else class 1.
        usize::from(!short && self.separate != Separate::Gc)
    }

    fn prefetches_pages(&self) -> bool {
        true
    }

    #[inline]
    fn prefetch_page(&self, page: u32) {
        crate::store::prefetch(&self.last[page as usize]);
    }

    #[inline(never)]
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        match self.separate {
            Separate::User => 2,
            Separate::Both if self.class[r.victim.seg as usize] == 0 => 2,
            _ => self.by_age(r.page),
        }
    }

    /// A victim's pages at once: a class-0 victim's all to class 2 without reading their
    /// times, another's by age with every page's time fetched first (a random read each).
    #[inline(never)]
    fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
        let RelocationRun { victim, pages, .. } = run;
        out.clear();
        let class0 = self.class[victim.seg as usize] == 0;
        if self.separate == Separate::User || self.separate == Separate::Both && class0 {
            out.resize(pages.len(), 2);
            return true;
        }
        for g in pages {
            crate::store::prefetch(&self.last[g.page as usize]);
        }
        out.extend(pages.iter().map(|g| self.by_age(g.page) as u32));
        true
    }

    #[inline(never)]
    fn sealed(&mut self, stream: usize, seg: u32) {
        let s = seg as usize;
        self.class[s] = stream as u8;
        self.born[s] = self.opened[stream];
        self.opened[stream] = self.now;
    }

    #[inline(never)]
    fn collected(&mut self, victim: &Victim) {
        let s = victim.seg as usize;
        if self.class[s] != 0 {
            return;
        }
        self.batch_sum += (self.now - self.born[s]) as f64;
        self.batch_len += 1;
        if self.batch_len == BATCH {
            self.ell = self.batch_sum / f64::from(BATCH);
            (self.batch_sum, self.batch_len) = (0.0, 0);
        }
    }
}

impl Declare for SepBit {
    type Params = Separate;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "sepbit",
        aliases: &["uw", "gw"],
        summary: "User writes by their previous write's age against ℓ (the lifespan of short-lived segments), relocated pages by their age in multiples of ℓ; six classes (`uw`, `gw`: the artifact's ablations).",
        source: "Wang et al., FAST '22, §3; SepBIT artifact's SepBIT.java, UW.java, GW.java",
        params: &[Param {
            key: "separate",
            values: "both|user|gc",
            unit: "",
            range: "both, user or gc",
            default: Some("both (uw: user, gw: gc)"),
            help: "both: SepBIT; user: user writes separated, relocated pages in one class (the artifact's UW); gc: user writes in one class, relocated pages by age in five (GW).",
        }],
        needs: &[Need::PageState],
    };
    fn parse(args: &Args<'_>) -> Result<Separate> {
        let default = match args.name {
            "uw" => Separate::User,
            "gw" => Separate::Gc,
            _ => Separate::Both,
        };
        args.choice(
            "separate",
            &[
                ("both", Separate::Both),
                ("user", Separate::User),
                ("gc", Separate::Gc),
            ],
            default,
        )
    }
    fn show(p: &Separate, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match p {
            Separate::Both => f.write_str("sepbit"),
            p => write!(f, "sepbit:separate={}", p.name()),
        }
    }
    fn streams(p: &Separate, _classes: u32) -> u32 {
        p.classes() as u32
    }
    // The classes that take relocated pages, less one.
    fn reserve(p: &Separate, _classes: u32) -> (u64, u64) {
        (Self::gc_classes(*p) - 1, 1)
    }
    // The time of each page's last user write.
    fn page_bytes(_p: &Separate) -> u64 {
        8
    }
    fn build(p: &Separate, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        let users = match p {
            Separate::Gc => 1,
            _ => 2,
        };
        let user = (0..p.classes()).map(|c| c < users).collect();
        let gc = Self::gc_classes(*p) as u32;
        Ok(Built::whole(SepBit::separating(*p, pages, b.segments), user, gc, b))
    }
}

impl SepBit {
    /// Classes that take relocated pages.
    fn gc_classes(p: Separate) -> u64 {
        match p {
            Separate::Both => 4,
            Separate::User => 1,
            Separate::Gc => 5,
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// The artifact's rules step by step on a small example.
    #[test]
    fn classes_follow_the_previous_write_and_the_age() {
        let mut s = SepBit::new(100, 8);
        let mut rng = SimRng::seed_from_u64(1);
        let mut user = |s: &mut SepBit, page| s.user_stream(&Write::new(page, 0), 0, &mut rng);
        // First writes are class 1; with ℓ = +∞ the FIFO holds as many writes as pages written.
        for p in 0..10 {
            assert_eq!(user(&mut s, p), 1);
        }
        assert_eq!(s.fifo, 10);
        // Page 9 was written 1 write ago (< F = 10): class 0; page 0, 11 writes ago: class 1.
        assert_eq!(user(&mut s, 9), 0);
        assert_eq!(user(&mut s, 0), 1);
        assert_eq!(s.fifo, 10);
        // Sixteen class-0 segments opened at 0 and collected at 12 set ℓ = 12.
        s.sealed(0, 3);
        assert_eq!(s.born[3], 0);
        for _ in 0..BATCH {
            s.collected(&Victim::bare(3));
        }
        assert_eq!(s.ell().to_bits(), 12.0f64.to_bits());
        let mut rng = SimRng::seed_from_u64(1);
        let gc = |s: &mut SepBit, page, seg, rng: &mut SimRng| {
            s.gc_stream(Relocation { page, victim: &Victim::bare(seg), class: 0, age: 0, rng })
        };
        // A class-0 victim's pages go to class 2; others by age: < 4ℓ = 48 → 3.
        assert_eq!(gc(&mut s, 5, 3, &mut rng), 2);
        s.sealed(1, 4);
        assert_eq!(gc(&mut s, 5, 4, &mut rng), 3);
        // Age ≥ 4ℓ → 4, ≥ 16ℓ → 5.
        s.now += 48;
        assert_eq!(gc(&mut s, 5, 4, &mut rng), 4);
        s.now += 16 * 12;
        assert_eq!(gc(&mut s, 5, 4, &mut rng), 5);
    }

    #[test]
    fn spec_round_trips() {
        let p: crate::config::PlacementSpec = "sepbit".parse().unwrap();
        assert_eq!(p.to_string(), "sepbit");
        assert_eq!(p.streams(1), 6);
        let p: crate::config::PlacementSpec = "uw".parse().unwrap();
        assert_eq!(p.to_string(), "sepbit:separate=user");
        assert_eq!(p.streams(1), 3);
        let p: crate::config::PlacementSpec = "gw".parse().unwrap();
        assert_eq!(p.to_string(), "sepbit:separate=gc");
        assert_eq!(p.to_string().parse::<crate::config::PlacementSpec>().unwrap(), p);
    }

    /// The ablations: UW keeps the user classes and sends every relocated page to class 2; GW
    /// sends every user write to class 0 and relocated pages by age from class 1.
    #[test]
    fn the_ablations_separate_one_kind_of_write() {
        let mut rng = SimRng::seed_from_u64(1);
        for (separate, user, young, old) in [(Separate::User, [1, 1, 1, 0], 2, 2), (Separate::Gc, [0, 0, 0, 0], 1, 2)] {
            let mut s = SepBit::separating(separate, 100, 8);
            // Pages 5, 6, 7 written first, then 6 again 2 writes later (< F = 3).
            let classes: Vec<usize> = [5, 6, 7, 6]
                .iter()
                .map(|&p| s.user_stream(&Write::new(p, 0), 0, &mut rng))
                .collect();
            assert_eq!(classes, user, "{separate:?}");
            s.sealed(1, 4);
            s.ell = 10.0;
            let mut gc = |s: &mut SepBit| {
                s.gc_stream(Relocation { page: 5, victim: &Victim::bare(4), class: 0, age: 0, rng: &mut rng })
            };
            assert_eq!(gc(&mut s), young);
            // Page 5's age 3 + 40 ≥ 4ℓ (< 16ℓ): one class up from the youngest, where there is one.
            s.now += 40;
            assert_eq!(gc(&mut s), old, "{separate:?}");
        }
    }
}
