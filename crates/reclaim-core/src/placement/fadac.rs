//! FADaC, fading-average data classification: each page's write count against a fading
//! average of the write rate, classes a decade apart.
//!
//! K. Kremer, A. Brinkmann, "FADaC: A Self-Adapting Data Classifier for Flash Memory", SYSTOR
//! '19 (a page's write count compared with a fading average that follows the workload; classes
//! by orders of magnitude above it), in the form the artifact of Wang et al. (FAST '22)
//! implements it, `trace_replay/.../placement/FADaC.java`, with six open segments (classes):
//!
//! - **Counts**: a user write adds one to its page's count; a relocation takes one off (not
//!   below 0).
//! - **Fading average** A, updated at every write request of n pages: A ← A + n/V − A/V, V the
//!   pages holding data (skipped while V = 0).
//! - **Class**, the same rule for user writes and relocated pages, after the count is updated:
//!   the smallest L with count ≤ A·10^L, at most 5; with A = 0, class 0.
//!
//! V (`valid=artifact`, the default) is the artifact's under the `log` method: its log's pages less the invalid pages of sealed
//! segments, which counts stale copies in open segments too ([`Request::held`]); elsewhere, the
//! pages written at least once. The difference matters more than its size suggests: on a trace
//! of single-page requests A stays within a few units in the last place of 1, on one side or
//! the other as the rounding of n/V and A/V falls, and a page written once is class 0 or 1 as
//! A ≥ 1 or not (on the artifact's hot/cold trace, WA 3.689 with the artifact's V, 3.630 with
//! the pages written; `docs/validation.md`). `valid=written` takes the pages written everywhere.

use std::fmt;

use super::{Build, Built, Declare, Relocation, Request, Scheme};
use crate::error::Result;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::workload::Write;

/// Classes (open segments) of the artifact's configuration.
const CLASSES: usize = 6;
/// A page not yet written.
const NEVER: u32 = u32::MAX;

/// The pages FADaC's fading average divides by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Valid {
    /// Under `log`, the artifact's count ([`Request::held`]); elsewhere the pages written.
    Artifact,
    /// The pages written at least once.
    Written,
}

/// FADaC's state.
#[derive(Clone, Debug)]
pub struct Fadac {
    /// Which V the average divides by.
    valid: Valid,
    /// Per logical page: its count, [`NEVER`] before its first write.
    count: Vec<u32>,
    /// Pages written at least once (V).
    written: u64,
    /// The fading average A.
    average: f64,
}

impl Fadac {
    /// The scheme over `pages` logical pages.
    pub fn new(pages: u64) -> Self {
        Self::dividing(Valid::Artifact, pages)
    }

    /// The scheme over `pages` logical pages, its average divided by `valid`.
    pub fn dividing(valid: Valid, pages: u64) -> Self {
        Fadac {
            valid,
            count: vec![NEVER; pages as usize],
            written: 0,
            average: 0.0,
        }
    }

    /// The class of a page of write count `count`: the smallest L ≤ 5 with count ≤ A·10^L.
    #[inline]
    fn class(&self, count: u32) -> usize {
        if self.average == 0.0 {
            return 0;
        }
        let (mut bound, mut class) = (self.average, 0);
        while f64::from(count) > bound && class < CLASSES - 1 {
            bound *= 10.0;
            class += 1;
        }
        class
    }
}

impl Scheme for Fadac {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        let c = &mut self.count[write.page as usize];
        if *c == NEVER {
            *c = 0;
            self.written += 1;
        }
        *c += 1;
        let c = *c;
        self.class(c)
    }

    fn prefetches_pages(&self) -> bool {
        true
    }

    #[inline]
    fn prefetch_page(&self, page: u32) {
        crate::store::prefetch(&self.count[page as usize]);
    }

    #[inline(never)]
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        let c = &mut self.count[r.page as usize];
        *c = c.saturating_sub(1);
        let c = *c;
        self.class(c)
    }

    #[inline(never)]
    fn request(&mut self, r: &Request) {
        let v = match self.valid {
            Valid::Artifact => r.held.unwrap_or(self.written),
            Valid::Written => self.written,
        };
        if v == 0 {
            return;
        }
        let v = v as f64;
        self.average = self.average + f64::from(r.pages) / v - self.average / v;
    }
}

impl Declare for Fadac {
    type Params = Valid;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "fadac",
        aliases: &[],
        summary: "Pages by their write count (up on a user write, down on a relocation) against a fading average of the write rate, classes a decade apart; six classes.",
        source: "Kremer & Brinkmann, SYSTOR '19; SepBIT artifact's FADaC.java",
        params: &[Param {
            key: "valid",
            values: "artifact|written",
            unit: "",
            range: "artifact or written",
            default: Some("artifact"),
            help: "The pages the fading average divides by: the artifact's count under the log method (valid pages and stale copies in open segments), or the pages written.",
        }],
        needs: &[Need::PageState, Need::Times],
    };
    fn parse(args: &Args<'_>) -> Result<Valid> {
        args.choice(
            "valid",
            &[("artifact", Valid::Artifact), ("written", Valid::Written)],
            Valid::Artifact,
        )
    }
    fn show(p: &Valid, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match p {
            Valid::Artifact => f.write_str("fadac"),
            Valid::Written => f.write_str("fadac:valid=written"),
        }
    }
    fn streams(_p: &Valid, _classes: u32) -> u32 {
        CLASSES as u32
    }
    // Every class takes relocated pages.
    fn reserve(_p: &Valid, _classes: u32) -> (u64, u64) {
        (CLASSES as u64 - 1, 1)
    }
    // A count per page.
    fn page_bytes(_p: &Valid) -> u64 {
        4
    }
    fn build(p: &Valid, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        Ok(Built::whole(
            Fadac::dividing(*p, pages),
            vec![true; CLASSES],
            CLASSES as u32,
            b,
        ))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::placement::Victim;

    /// The artifact's rules step by step.
    #[test]
    fn counts_against_the_fading_average() {
        let mut f = Fadac::new(10);
        let mut rng = SimRng::seed_from_u64(1);
        // No page written: the average stays 0 and every class is 0.
        f.request(&Request::at(0, 1));
        assert_eq!(f.user_stream(&Write::new(0, 0), 0, &mut rng), 0);
        assert_eq!(f.average.to_bits(), 0.0f64.to_bits());
        // V = 1: A ← 0 + 2/1 − 0 = 2. Page 0's count 2 ≤ 2: class 0; page 1's first write, 1.
        f.request(&Request::at(0, 2));
        assert_eq!(f.user_stream(&Write::new(0, 0), 0, &mut rng), 0);
        assert_eq!(f.user_stream(&Write::new(1, 0), 0, &mut rng), 0);
        // V = 2: A ← 2 + 1/2 − 2/2 = 1.5. Page 0's count 3 > 1.5, ≤ 15: class 1.
        f.request(&Request::at(0, 1));
        assert_eq!(f.average.to_bits(), 1.5f64.to_bits());
        assert_eq!(f.user_stream(&Write::new(0, 0), 0, &mut rng), 1);
        // 14 more writes: count 17 > 15, ≤ 150: class 2; a relocation takes it to 16: still 2.
        for _ in 0..13 {
            f.user_stream(&Write::new(0, 0), 0, &mut rng);
        }
        assert_eq!(f.user_stream(&Write::new(0, 0), 0, &mut rng), 2);
        let victim = Victim::bare(0);
        let r = Relocation {
            page: 0,
            victim: &victim,
            class: 0,
            age: 0,
            rng: &mut rng,
        };
        assert_eq!(f.gc_stream(r), 2);
        assert_eq!(f.count[0], 16);
    }
}
