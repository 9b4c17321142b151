//! What `2r-greedy` and `2r-fifo` share: their two groups and where a cleaning's relocated
//! pages go.
//!
//! SSD-iq's simulator (`gabriel-haas/ssdiq`, `sim/TwoR.hpp` with `compactUntilFreeBlock` of
//! `sim/SSD.hpp`) cleans in calls: it takes victims until their invalid pages add up to one
//! segment's worth, then packs their V valid pages into the victims themselves, each compacted
//! and filled from the one before it. ⌊V / b⌋ victims end full and join the cold region; the
//! rest of the pages, V mod b, end in one partly filled victim, which goes to the free list and
//! is topped up by user writes, so that they end in the normal region; the other victims are
//! erased. [`Rest::Normal`] routes a call's pages that way: the first ⌊V / b⌋ · b to the cold
//! group, the last V mod b to the normal group's open segment, among the user writes (a call's
//! pages are routed victim by victim before its end is known, so only the last victim's can
//! go to the normal group). [`Rest::Cold`], the default, sends every relocated page to the
//! cold group, as the paper describes 2R's migration: measured against SSD-iq's simulator on
//! hot/cold 90/10 (`docs/schemes-after-sepbit.md`), it is the closer of the two.

use std::fmt;

use crate::config::grammar::{Args, Param};
use crate::error::Result;

/// The normal group: user writes.
pub const NORMAL: usize = 0;
/// The cold group: relocated pages.
pub const COLD: usize = 1;

/// Victims whose quotas are kept, at most (see [`Packing::collected`]).
const MAX_QUOTAS: usize = 4096;

/// Where the pages of a cleaning call that fill no whole segment go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rest {
    /// To the normal group, among user writes, as SSD-iq's packing leaves them.
    Normal,
    /// To the cold group with the others (the default).
    Cold,
}

impl fmt::Display for Rest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rest::Normal => "normal",
            Rest::Cold => "cold",
        })
    }
}

/// The `rest=` parameter of both 2R placements.
pub const REST: Param = Param {
    key: "rest",
    values: "normal|cold",
    unit: "",
    range: "`normal` or `cold`",
    default: Some("cold"),
    help: "A cleaning's relocated pages beyond whole segments: to the cold group with the others, or to the normal group among user writes (where SSD-iq's packing leaves them).",
};

impl Rest {
    /// The `rest=` argument, `cold` when absent.
    pub fn parse(args: &Args<'_>) -> Result<Self> {
        args.choice(
            "rest",
            &[("cold", Rest::Cold), ("normal", Rest::Normal)],
            Rest::Cold,
        )
    }
}

/// A cleaning call's relocated pages, routed as SSD-iq packs them.
#[derive(Clone, Debug)]
pub struct Packing {
    rest: Rest,
    pps: u64,
    /// Valid pages of the call's victims so far, and how many of them went to the cold group.
    valid: u64,
    cold: u64,
    /// The next victim's valid pages and whether it ends its call, told before it is collected.
    next: Option<(u32, bool)>,
    /// Per victim collected and not yet routed: its segment and the pages of it still to go to
    /// the cold group.
    quotas: Vec<(u32, u32)>,
}

impl Packing {
    /// Routing under `rest` for segments of `pps` pages.
    pub fn new(rest: Rest, pps: u32) -> Self {
        Packing {
            rest,
            pps: u64::from(pps),
            valid: 0,
            cold: 0,
            next: None,
            quotas: Vec::new(),
        }
    }

    /// The next victim holds `valid` pages and ends its call if `last`.
    pub fn chosen(&mut self, valid: u32, last: bool) {
        self.next = Some((valid, last));
    }

    /// The victim told of by [`Self::chosen`] is segment `seg`.
    pub fn collected(&mut self, seg: u32) {
        let Some((valid, last)) = self.next.take() else {
            return;
        };
        let v = u64::from(valid);
        self.valid += v;
        let quota = if last && self.rest == Rest::Normal {
            let whole = self.valid / self.pps * self.pps;
            whole.saturating_sub(self.cold).min(v)
        } else {
            v
        };
        self.cold += quota;
        if last {
            self.valid = 0;
            self.cold = 0;
        }
        // A victim with no valid page is never routed: its entry goes when the segment is
        // collected again.
        self.quotas.retain(|&(s, _)| s != seg);
        if self.quotas.len() >= MAX_QUOTAS {
            // Entries of victims routed page by page (one page each) are never taken out; a
            // cleaning batch holds far fewer victims than this.
            self.quotas.drain(..MAX_QUOTAS / 2);
        }
        self.quotas.push((seg, quota as u32));
    }

    /// The group of the next relocated page of victim `seg`, in the order the cleaner routes
    /// them: cold while its quota lasts, then normal.
    pub fn stream(&mut self, seg: u32) -> usize {
        let Some(i) = self.quotas.iter().position(|&(s, _)| s == seg) else {
            return COLD;
        };
        let q = &mut self.quotas[i].1;
        if *q > 0 {
            *q -= 1;
            COLD
        } else {
            NORMAL
        }
    }

    /// The groups of `pages` relocated pages of victim `seg`, into `out`; the victim is done.
    pub fn streams(&mut self, seg: u32, pages: usize, out: &mut Vec<u32>) {
        out.clear();
        let i = self.quotas.iter().position(|&(s, _)| s == seg);
        let quota = i.map_or(pages, |i| self.quotas.swap_remove(i).1 as usize);
        let cold = quota.min(pages);
        out.extend(std::iter::repeat_n(COLD as u32, cold));
        out.extend(std::iter::repeat_n(NORMAL as u32, pages - cold));
    }
}

/// The routing both 2R schemes share, written into their `impl Scheme`: user writes to the
/// normal group, relocated pages where the scheme's `packing` sends each victim's, and the
/// packing told of each collected victim.
macro_rules! two_r_routing {
    () => {
        #[inline]
        fn user_stream(&mut self, _write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
            NORMAL
        }

        fn one_user_stream(&self) -> Option<usize> {
            Some(NORMAL)
        }

        #[inline]
        fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
            self.packing.stream(r.victim.seg)
        }

        fn gc_streams(
            &mut self,
            victim: &Victim,
            _age: u64,
            pages: &[Gathered],
            out: &mut Vec<u32>,
            _rng: &mut SimRng,
        ) -> bool {
            self.packing.streams(victim.seg, pages.len(), out);
            true
        }

        fn collected(&mut self, victim: &Victim) {
            self.packing.collected(victim.seg);
        }
    };
}
pub(crate) use two_r_routing;

#[cfg(test)]
mod tests {
    use super::*;

    /// A call whose victims hold 60, 65 and 70 valid pages of 100 (195 in all): SSD-iq packs
    /// them into one full victim (cold) and one holding 95 (normal). Here the first two
    /// victims' pages are routed before the call's end is known, so they go cold (125), and
    /// the last one's quota is ⌊195 / 100⌋ · 100 − 125 < 0: none of its 70 goes cold. A call
    /// of one victim of 30 pages is all rest (normal); one of 80 then 40 (120 in all) sends 80
    /// and then 100 − 80 = 20 of the last victim's pages cold, its other 20 normal.
    #[test]
    fn a_calls_rest_goes_to_the_normal_group() {
        let mut p = Packing::new(Rest::Normal, 100);
        let mut out = Vec::new();
        for (seg, valid, last) in [(1, 60, false), (2, 65, false), (3, 70, true)] {
            p.chosen(valid, last);
            p.collected(seg);
            p.streams(seg, valid as usize, &mut out);
            let cold = out.iter().filter(|&&s| s == COLD as u32).count();
            let expected = if last { 0 } else { valid as usize };
            assert_eq!(cold, expected, "victim {seg}");
        }
        p.chosen(30, true);
        p.collected(4);
        p.streams(4, 30, &mut out);
        assert!(out.iter().all(|&s| s == NORMAL as u32));
        p.chosen(80, false);
        p.collected(5);
        p.streams(5, 80, &mut out);
        p.chosen(40, true);
        p.collected(6);
        p.streams(6, 40, &mut out);
        assert_eq!(out.iter().filter(|&&s| s == COLD as u32).count(), 20);
    }

    #[test]
    fn rest_cold_sends_everything_cold() {
        let mut p = Packing::new(Rest::Cold, 100);
        let mut out = Vec::new();
        p.chosen(30, true);
        p.collected(4);
        assert_eq!(p.stream(4), COLD);
        p.streams(4, 29, &mut out);
        assert!(out.iter().all(|&s| s == COLD as u32));
    }
}
