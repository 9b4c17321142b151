//! FK, future knowledge: the oracle that knows when each written page will be invalidated, and
//! groups pages by their remaining lifespan.
//!
//! Wang et al., FAST '22 ("Separating Data via Block Invalidation Time Inference"; the
//! ideal placement groups blocks of similar invalidation times; FK is the scheme that knows
//! them), in the form its artifact implements it: the oracle file of
//! `analyze_script/src/annotate_future_knowledge.cc` (each block write's lifespan: the user
//! writes until the same block is written next, none if never) and
//! `trace_replay/.../placement/FK.java`, six open segments (classes):
//!
//! - Time is the user-write count (the artifact's `accessId`); each user write of a page
//!   notes its deadline, the time of the page's next write in the trace (never, if none).
//! - **User writes and relocated pages alike** go to class min(⌊remaining / S⌋, 5), remaining
//!   the deadline less the time now and S the pages per segment: a relocated page is re-binned
//!   by what is left of its lifespan. A page never rewritten goes to class 5.
//!
//! The classes are only as fine as one segment's worth of user writes, capped at five, so FK
//! depends on the segment size and is not a bound on WA: on the artifact's hot/cold trace, with
//! greedy, SepBIT's WA is below it (`../../docs/validation.md`).
//!
//! The trace is read ahead once, when the scheme is built: the next write of each trace write,
//! 4 bytes per trace write, and a deadline per logical page, 8 bytes. It knows the future only
//! of a trace replayed once in order, from its first write: the `log` method.

use std::fmt;

use super::{Build, Built, Declare, Relocation, RelocationRun, Scheme};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need};
use crate::workload::Write;

/// Classes (open segments) of the artifact's configuration.
const CLASSES: usize = 6;
/// No next write.
const NEVER: u32 = u32::MAX;

/// FK's state.
#[derive(Clone, Debug)]
pub struct Fk {
    /// The remaining lifespans from which classes 1 … 5 begin: S, 2S, … 5S (compared, not
    /// divided: a division per write cost more than the rest of the rule).
    bounds: [u64; CLASSES - 1],
    /// User writes so far.
    now: u64,
    /// Per trace write: the index of the same page's next write, [`NEVER`] if none.
    next: Vec<u32>,
    /// Per logical page: the index of its next write in the trace, [`NEVER`] if none (4 bytes,
    /// so that the array a relocation reads stays small).
    deadline: Vec<u32>,
}

impl Fk {
    /// The oracle of `trace` over `pages` logical pages, segments of `pps` pages.
    pub fn new(trace: &[u32], pages: u64, pps: u32) -> Self {
        let mut next = vec![NEVER; trace.len()];
        let mut seen = vec![NEVER; pages as usize];
        for (i, &p) in trace.iter().enumerate().rev() {
            next[i] = seen[p as usize];
            seen[p as usize] = i as u32;
        }
        let s = u64::from(pps);
        Fk {
            bounds: [s, 2 * s, 3 * s, 4 * s, 5 * s],
            now: 0,
            next,
            deadline: vec![NEVER; pages as usize],
        }
    }

    /// The class of a page whose next write is trace write `deadline` (user write
    /// `deadline + 1`), [`NEVER`] for none: min(⌊remaining / S⌋, 5).
    #[inline]
    fn class(&self, deadline: u32) -> usize {
        if deadline == NEVER {
            return CLASSES - 1;
        }
        let remaining = (u64::from(deadline) + 1).saturating_sub(self.now);
        self.bounds.iter().map(|&b| usize::from(remaining >= b)).sum()
    }
}

impl Scheme for Fk {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        // Write i (from 0) is user write i + 1; its next write, user write next + 1.
        let i = self.now as usize;
        self.now += 1;
        let deadline = self.next.get(i).copied().unwrap_or(NEVER);
        self.deadline[write.page as usize] = deadline;
        self.class(deadline)
    }

    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        self.class(self.deadline[r.page as usize])
    }

    #[inline(never)]
    fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
        let RelocationRun { pages, .. } = run;
        out.clear();
        for g in pages {
            crate::store::prefetch(&self.deadline[g.page as usize]);
        }
        out.extend(
            pages
                .iter()
                .map(|g| self.class(self.deadline[g.page as usize]) as u32),
        );
        true
    }
}

impl Declare for Fk {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Placement,
        name: "fk",
        aliases: &[],
        summary: "Future knowledge: user writes and relocated pages by the user writes left until the page is rewritten, in segments' worth, six classes (needs `method=log`).",
        source: "Wang et al., FAST '22 (its oracle FK); SepBIT artifact's FK.java and annotate_future_knowledge.cc",
        params: &[],
        needs: &[Need::PageState],
    };
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show(_p: &(), f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("fk")
    }
    fn streams(_p: &(), _classes: u32) -> u32 {
        CLASSES as u32
    }
    // Every class takes relocated pages.
    fn reserve(_p: &(), _classes: u32) -> (u64, u64) {
        (CLASSES as u64 - 1, 1)
    }
    // A deadline per page (the trace's next-write array is counted with the trace).
    fn page_bytes(_p: &()) -> u64 {
        4
    }
    fn build(_p: &(), b: &Build<'_>) -> Result<Built<Self>> {
        let Some(trace) = b.trace else {
            return Err(Error::param(
                "placement",
                "`fk`",
                "a trace workload: the future-knowledge oracle reads the trace ahead",
            ));
        };
        if trace.len() >= NEVER as usize {
            return Err(Error::param(
                "placement",
                "`fk`",
                format!("a trace of fewer than {NEVER} page writes (this one has {})", trace.len()),
            ));
        }
        let pages = b.classes.iter().map(|c| c.pages).sum();
        Ok(Built::whole(
            Fk::new(trace, pages, b.pps),
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

    /// The artifact's oracle on a small trace: write i's next write, classes by the remaining
    /// user writes in segments of 2 pages.
    #[test]
    fn classes_follow_the_remaining_lifespan() {
        // Page 0 at writes 0, 3, 20; page 1 at 1 only; page 2 at 2 and 7.
        let mut trace = vec![0, 1, 2, 0, 3, 3, 3, 2];
        trace.extend(std::iter::repeat_n(4, 12));
        trace.push(0);
        let mut fk = Fk::new(&trace, 5, 2);
        assert_eq!(fk.next[..4], [3, NEVER, 7, 20]);
        let mut rng = SimRng::seed_from_u64(1);
        let classes: Vec<usize> = trace[..4]
            .iter()
            .map(|&p| fk.user_stream(&Write::new(p, 0), 0, &mut rng))
            .collect();
        // Lifespans 3, ∞, 5, 17: classes ⌊3/2⌋ = 1, 5, ⌊5/2⌋ = 2, min(8, 5) = 5.
        assert_eq!(classes, [1, 5, 2, 5]);
        // A relocation of page 2 after the 4 writes: remaining (7 + 1) − 4 = 4, class 2; of
        // page 1, never rewritten, class 5.
        let victim = Victim::bare(0);
        let r = Relocation {
            page: 2,
            victim: &victim,
            class: 0,
            age: 0,
            rng: &mut rng,
        };
        assert_eq!(fk.gc_stream(r), 2);
        assert_eq!(fk.class(fk.deadline[1]), 5);
    }
}
