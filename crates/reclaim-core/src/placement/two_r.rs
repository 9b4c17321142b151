//! What `2r-greedy` and `2r-fifo` share: their groups and where a cleaning's relocated pages
//! go.
//!
//! SSD-iq's simulator (`gabriel-haas/ssdiq`, `sim/TwoR.hpp` with `compactUntilFreeBlock` of
//! `sim/SSD.hpp`) cleans in calls: when a user block fills and no block is free, it chooses a
//! call's victims all at once (until their invalid pages add up to one segment's worth), then
//! packs their valid pages into the victims themselves: from the last victim back, each is
//! compacted and filled with the first pages of the one listed before it ([`chain`]). Victims
//! that end full join the cold region; one left partly filled goes to the free list, behind the
//! erased one, and is topped up by user writes, so that its pages end in the normal region.
//!
//! Here three groups of the engine: normal (user writes), cold, and rest, a part of the normal
//! region that holds what a call's packing leaves partly filled. A call's victims are planned
//! when it starts, as SSD-iq chooses them, and [`Packing`] routes each victim's pages as the
//! packing leaves them (`rest=normal`, the default): its first pages to the cold group as many
//! as end in full victims, the others to the rest group. The victims are collected last first,
//! so that the cold pages come first and each fills the segment freed before it; the cold
//! stream thus ends each call on a segment's boundary, as SSD-iq's cold region holds only whole
//! blocks (a call whose victims lost pages before they were collected may end off it: the next
//! call's cold pages are then fewer by what the cold stream holds). User writes top up the rest
//! group's open segment to one page short of full, and then go to the normal group. Relocated
//! pages going to a stream that takes no user write until the call is over, the cleaning goes on
//! until the call's first victim (the last collected) frees the segment the user writes take
//! next, as SSD-iq's does. `rest=cold` sends every relocated page to the cold group, as the
//! paper describes 2R's migration.
//!
//! What differs from SSD-iq, measured on one write sequence fed to both (`scripts/ssdiq-trace-
//! side-by-side.py`, docs/schemes-after-sepbit.md): SSD-iq's user writes fill the erased victim
//! first and top up the partly filled one after, here the other way round (the engine opens a
//! user stream's next segment as soon as it fills, which would clean while the partly filled
//! one had room); the rest group's last page waits for the next call's rest (a page in all);
//! and where a call's pages for the rest group fill its segment and leave a segment free before
//! the last victim, the engine's cleaning stops there and the call's other victims wait for the
//! next.

use std::collections::VecDeque;
use std::fmt;

use super::Groups;
use crate::error::Result;
use crate::spec::{Args, Param};
use crate::store::SegState;

/// The normal group: user writes.
pub const NORMAL: usize = 0;
/// The cold group: relocated pages.
pub const COLD: usize = 1;
/// The rest group: relocated pages that end in no full victim, topped up by user writes; part
/// of the normal region.
pub const REST: usize = 2;

/// The region (normal or cold) of group `g`.
pub fn region(g: usize) -> usize {
    if g == COLD {
        COLD
    } else {
        NORMAL
    }
}

/// The least valid count among the next victims of the groups of region `r`.
pub fn region_best(groups: &Groups<'_>, r: usize) -> Option<u32> {
    if r == COLD {
        return groups.next_valid(COLD);
    }
    match (groups.next_valid(NORMAL), groups.next_valid(REST)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The group of region `r` whose policy's next victim is the emptier.
pub fn region_group(groups: &Groups<'_>, r: usize) -> usize {
    if r == COLD {
        return COLD;
    }
    match (groups.next_valid(NORMAL), groups.next_valid(REST)) {
        (Some(a), Some(b)) if b < a => REST,
        (None, Some(_)) => REST,
        _ => NORMAL,
    }
}
/// Victims whose quotas are kept, at most (see [`Packing::next`]).
const MAX_QUOTAS: usize = 4096;

/// Where the pages of a cleaning call that fill no whole segment go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rest {
    /// To the normal region's rest group, topped up by user writes, as SSD-iq's packing leaves
    /// them (the default).
    Normal,
    /// To the cold group with the others, as the paper describes 2R's migration.
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
pub const REST_PARAM: Param = Param {
    key: "rest",
    values: "normal|cold",
    unit: "",
    range: "`normal` or `cold`",
    default: Some("normal"),
    help: "A cleaning call's relocated pages that fill no whole segment: to the normal region, topped up by user writes (where SSD-iq's packing leaves them), or to the cold group with the others (the paper's migration).",
};

impl Rest {
    /// The `rest=` argument, `normal` when absent.
    pub fn parse(args: &Args<'_>) -> Result<Self> {
        args.choice(
            "rest",
            &[("normal", Rest::Normal), ("cold", Rest::Cold)],
            Rest::Normal,
        )
    }
}

/// The pages of each of a call's victims (valid counts `valid`, in the order SSD-iq lists
/// them) that SSD-iq's `compactUntilFreeBlock(std::vector<BID>)` leaves in full victims, which
/// join the cold region, into `cold`. From the last victim back, each is compacted and filled
/// with the first pages (in slot order) of the one listed before it; a victim that ends full
/// is cold, one that does not goes to the free list and is topped up by user writes. A victim's
/// pages moved on come first in slot order, so its cold pages are always its first ones.
pub fn chain(valid: &[u32], pps: u32, cold: &mut Vec<u32>) {
    let k = valid.len();
    cold.clear();
    cold.resize(k, 0);
    if k == 0 {
        return;
    }
    // moved[i]: pages of victim i that end in victim i + 1; fill[j]: pages victim j ends with.
    let mut moved = vec![0u32; k];
    let mut fill = vec![0u32; k];
    fill[k - 1] = valid[k - 1].min(pps);
    for i in (0..k - 1).rev() {
        let m = valid[i].min(pps - fill[i + 1]);
        moved[i] = m;
        fill[i + 1] += m;
        fill[i] = valid[i] - m;
    }
    for i in 0..k {
        let own = valid[i] - moved[i];
        let onward = if i + 1 < k && fill[i + 1] == pps {
            moved[i]
        } else {
            0
        };
        cold[i] = onward + if fill[i] == pps { own } else { 0 };
    }
}

/// A cleaning call's relocated pages, routed as SSD-iq packs them: the call's victims are
/// planned when it starts, and each victim's first pages go to the cold group as many as the
/// packing leaves in full victims, the others to the rest group (`rest=normal`); or all to
/// the cold group (`rest=cold`).
#[derive(Clone, Debug)]
pub struct Packing {
    rest: Rest,
    pps: u32,
    /// The call's victims not yet collected, in order, with the pages of each to go cold.
    plan: VecDeque<(u32, u32)>,
    /// Victims collected and not yet routed, with the pages of each still to go cold.
    quotas: Vec<(u32, u32)>,
    valid: Vec<u32>,
    cold: Vec<u32>,
    /// Pages in the rest group's open segment, as routed here (0: none, or full).
    rest_fill: u32,
}

impl Packing {
    /// Routing under `rest` for segments of `pps` pages.
    pub fn new(rest: Rest, pps: u32) -> Self {
        Packing {
            rest,
            pps,
            plan: VecDeque::new(),
            quotas: Vec::new(),
            valid: Vec::new(),
            cold: Vec::new(),
            rest_fill: 0,
        }
    }

    /// Whether the call in progress has victims still to be collected.
    pub fn calling(&self) -> bool {
        !self.plan.is_empty()
    }

    /// A call of `victims` (segment, valid pages), in SSD-iq's order, while the cold group's
    /// open segment holds `cold_open` pages: the cold pages of the call are fewer by those
    /// (taken from its first victims, collected last, whose pages then go to the rest group),
    /// so that the cold stream ends the call on a segment's boundary. The victims are handed
    /// out last first ([`Self::next`]).
    pub fn plan(&mut self, victims: &[(u32, u32)], cold_open: u32) {
        self.valid.clear();
        self.valid
            .extend(victims.iter().map(|&(_, v)| v.min(self.pps)));
        match self.rest {
            Rest::Normal => {
                chain(&self.valid, self.pps, &mut self.cold);
                let total: u32 = self.cold.iter().sum();
                let mut cut = if total >= cold_open { cold_open } else { 0 };
                for c in &mut self.cold {
                    let d = cut.min(*c);
                    *c -= d;
                    cut -= d;
                }
            }
            Rest::Cold => {
                self.cold.clear();
                self.cold.extend_from_slice(&self.valid);
            }
        }
        self.plan.clear();
        self.plan
            .extend((victims.iter().zip(&self.cold).rev()).map(|(&(s, _), &c)| (s, c)));
    }

    /// The next victim of the call, if any of its victims is still sealed (`state`).
    pub fn next(&mut self, state: &[SegState]) -> Option<u32> {
        while let Some((seg, cold)) = self.plan.pop_front() {
            if state[seg as usize] != SegState::Sealed {
                continue;
            }
            self.quotas.retain(|&(s, _)| s != seg);
            if self.quotas.len() >= MAX_QUOTAS {
                // Entries of victims routed page by page are never taken out; a call holds
                // far fewer victims than this.
                self.quotas.drain(..MAX_QUOTAS / 2);
            }
            self.quotas.push((seg, cold));
            return Some(seg);
        }
        None
    }

    /// Ends the call: victims not yet collected are not.
    pub fn clear(&mut self) {
        self.plan.clear();
    }

    /// The group of a page of a victim outside any plan.
    fn unplanned(&self) -> usize {
        match self.rest {
            Rest::Normal => REST,
            Rest::Cold => COLD,
        }
    }

    /// The group of the next user write: the rest group's open segment while it has more than
    /// one free slot (its last slot is left to the next call's rest: a user write filling it
    /// would have the engine open its next segment at once), else the normal group.
    pub fn user(&mut self) -> usize {
        if self.rest_fill > 0 && self.rest_fill + 1 < self.pps {
            self.rest_fill += 1;
            REST
        } else {
            NORMAL
        }
    }

    /// The rest group's open segment holds `pages` (0: it has none): read from the streams at
    /// each call, so that a page the engine put elsewhere cannot skew the count.
    pub fn rest_open(&mut self, pages: u32) {
        self.rest_fill = pages % self.pps;
    }

    fn add_rest(&mut self, pages: usize) {
        self.rest_fill = ((self.rest_fill as usize + pages) % self.pps as usize) as u32;
    }

    /// The group of the next relocated page of victim `seg`, in the order the cleaner routes
    /// them: cold while its quota lasts, then normal.
    pub fn stream(&mut self, seg: u32) -> usize {
        let Some(i) = self.quotas.iter().position(|&(s, _)| s == seg) else {
            let g = self.unplanned();
            if g == REST {
                self.add_rest(1);
            }
            return g;
        };
        let q = &mut self.quotas[i].1;
        if *q > 0 {
            *q -= 1;
            COLD
        } else {
            self.add_rest(1);
            REST
        }
    }

    /// The groups of `pages` relocated pages of victim `seg`, into `out`; the victim is done.
    pub fn streams(&mut self, seg: u32, pages: usize, out: &mut Vec<u32>) {
        out.clear();
        let i = self.quotas.iter().position(|&(s, _)| s == seg);
        let cold = match i {
            Some(i) => (self.quotas.swap_remove(i).1 as usize).min(pages),
            None if self.rest == Rest::Cold => pages,
            None => 0,
        };
        out.extend(std::iter::repeat_n(COLD as u32, cold));
        out.extend(std::iter::repeat_n(REST as u32, pages - cold));
        self.add_rest(pages - cold);
    }
}

/// The routing both 2R schemes share, written into their `impl Scheme`: user writes and
/// relocated pages where the scheme's `packing` sends them.
macro_rules! two_r_routing {
    () => {
        #[inline]
        fn user_stream(&mut self, _write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
            self.packing.user()
        }

        #[inline]
        fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
            self.packing.stream(r.victim.seg)
        }

        fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
            let RelocationRun { victim, pages, .. } = run;
            self.packing.streams(victim.seg, pages.len(), out);
            true
        }
    };
}
pub(crate) use two_r_routing;

#[cfg(test)]
mod tests {
    use super::*;

    fn chained(valid: &[u32], pps: u32) -> Vec<u32> {
        let mut cold = Vec::new();
        chain(valid, pps, &mut cold);
        cold
    }

    /// Counts worked through `SSD::compactUntilFreeBlock(std::vector<BID>)` by hand. Victims
    /// of 24 and 25 valid pages of 64: the second, compacted, takes all 24 of the first and
    /// ends with 49 (partly filled: normal). Victims of 35, 36, 40 (a call of the 90/10 trace
    /// in docs/validation.md, where SSD-iq's run printed these counts): the last, compacted
    /// (40), takes the second's first 24 pages and is full (cold); the second keeps 12 and takes
    /// the first's 35, 47 in all (normal). 60, 65, 70 of 100: 70 + 30 full, 35 + 60 = 95 not.
    /// 50, 50, 5 of 64 (an order only 2R-FIFO's scan gives): the last ends with 55 and the second
    /// with 50, neither full, so nothing goes cold although the 105 pages would fill one.
    #[test]
    fn the_packing_chain_as_ssdiq_compacts() {
        assert_eq!(chained(&[24, 25], 64), [0, 0]);
        assert_eq!(chained(&[35, 36, 40], 64), [0, 24, 40]);
        assert_eq!(chained(&[60, 65, 70], 100), [0, 30, 70]);
        assert_eq!(chained(&[50, 50, 5], 64), [0, 0, 0]);
        assert_eq!(chained(&[4, 6, 8], 10), [0, 2, 8]);
        assert_eq!(chained(&[0], 10), [0]);
    }

    /// The plan of victims 1, 2, 3 of 35, 36, 40 valid pages of 64 (cold 0, 24, 40): handed out
    /// last first; victim 2's first 24 pages go cold and its other 12 normal. With 10 pages in
    /// the cold group's open segment, the call's 64 cold pages become 54, ten fewer taken from
    /// the first victims with any (victim 2: 14 cold, 22 normal), so that 10 + 54 fill the
    /// segment. Under `rest=cold` every page goes cold.
    #[test]
    fn a_plan_routes_cold_pages_first_and_ends_on_a_boundary() {
        let state = [SegState::Sealed; 4];
        let victims = [(1, 35), (2, 36), (3, 40)];
        let mut out = Vec::new();
        let cold = |out: &[u32]| out.iter().filter(|&&s| s == COLD as u32).count();
        for (open, expected) in [(0, [40, 24, 0]), (10, [40, 14, 0])] {
            let mut p = Packing::new(Rest::Normal, 64);
            p.plan(&victims, open);
            for (&(seg, valid), want) in victims.iter().rev().zip(expected) {
                assert!(p.calling());
                assert_eq!(p.next(&state), Some(seg));
                p.streams(seg, valid as usize, &mut out);
                assert_eq!(cold(&out), want, "victim {seg}, cold stream holding {open}");
                // Cold pages first, in slot order.
                assert!(out[..want].iter().all(|&s| s == COLD as u32));
            }
            assert!(!p.calling());
            assert_eq!(p.next(&state), None);
        }
        let mut p = Packing::new(Rest::Cold, 64);
        p.plan(&victims, 0);
        assert_eq!(p.next(&state), Some(3));
        assert_eq!(p.stream(3), COLD);
        p.streams(3, 39, &mut out);
        assert_eq!(cold(&out), 39);
        // A victim outside any plan: its pages go where `rest` sends them.
        p.streams(0, 5, &mut out);
        assert_eq!(cold(&out), 5);
        let mut q = Packing::new(Rest::Normal, 64);
        q.streams(0, 5, &mut out);
        assert_eq!(cold(&out), 0);
    }

    /// User writes top up the rest group's segment to one page short of full, then go to the
    /// normal group: the plan above leaves 12 + 35 = 47 pages there (segments of 64), so 16
    /// user writes go to the rest group, and the next to the normal one.
    #[test]
    fn user_writes_top_up_the_rest_segment_but_its_last_page() {
        let mut p = Packing::new(Rest::Normal, 64);
        let state = [SegState::Sealed; 4];
        let valid = [0, 35, 36, 40];
        p.plan(&[(1, 35), (2, 36), (3, 40)], 0);
        let mut out = Vec::new();
        while let Some(seg) = p.next(&state) {
            p.streams(seg, valid[seg as usize], &mut out);
        }
        let to_rest = (0..20).take_while(|_| p.user() == REST).count();
        assert_eq!(to_rest, 16);
        assert_eq!(p.user(), NORMAL);
    }

    /// A planned victim no longer sealed (emptied and freed by the engine) is passed over.
    #[test]
    fn a_victim_freed_meanwhile_is_skipped() {
        let mut p = Packing::new(Rest::Normal, 10);
        p.plan(&[(0, 4), (1, 6), (2, 8)], 0);
        let mut state = [SegState::Sealed; 3];
        state[1] = SegState::Free;
        assert_eq!(p.next(&state), Some(2));
        assert_eq!(p.next(&state), Some(0));
        assert_eq!(p.next(&state), None);
    }
}
