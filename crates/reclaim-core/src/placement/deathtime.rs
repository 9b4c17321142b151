//! Deathtime: pages grouped by an estimate of when each will next be overwritten (its death
//! time), from the history of its last writes; victims by least valid pages or by the earliest
//! estimated death time of a segment.
//!
//! `sim/Deathtime.hpp` of `LeeBohyun/ssdiq_plus` (class `DTE`, `GC=deathtime-edt` or
//! `deathtime-greedy`). Its `#include` and its branch are commented out of `sim/sim.cpp`, and
//! the header cannot run as it stands: its list of full blocks (`fullBlocks`), the only
//! candidates of `performGC`, is never filled, so no block is ever cleaned, and its block
//! estimate (`updateBlockDeathTime`) sums the estimates of every page with a history, not of
//! the block's pages. It is built here from the header's evident design:
//!
//! - each page keeps the times of its last 8 user writes (`maxHistorySize`), on the user-write
//!   clock (the header reads the wall clock in milliseconds, at which a run's writes mostly
//!   share one value); its death time is its last write plus the mean interval between the
//!   kept writes, or the last write alone with fewer than two (`estimateDeathTime`);
//! - written pages, user and relocated alike (a victim's pages join the same buffer,
//!   `performGC`), are sorted by death time in buffers of one segment's worth and split into 4
//!   groups of equal size, the earliest first (`flushPages`, `groupCount` = 4), each group its
//!   stream. The engine writes a page as it comes, so a page's group is its place among the
//!   quartiles of the previous buffer's death times, counted from the time of writing (the
//!   header sorts one buffer's absolute times, written at nearly the same moment); user writes
//!   and relocated pages of a group go to two streams (groups g and 4 + g here: the header's
//!   blocks take both), so that a victim's pages, spread over the 4 groups, have the engine's
//!   reserve of one free segment per GC stream;
//! - the header clears the history of every page it flushes, which would leave each estimate
//!   its write's own time: here the history is kept (the header's 8 entries would be pointless
//!   otherwise);
//! - victims (`selectVictimBlock`): `victim=greedy`, the least valid segment of all; `victim=edt`,
//!   the sealed segment with the earliest mean death time of the pages written to it (fixed
//!   when it is sealed), among those not wholly valid (one that is would free nothing).

use std::fmt;

use super::two_a::{greedy_groups, least_valid};
use super::{Build, Built, Declare, Groups, Relocation, Scheme};
use crate::error::Result;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::store::SegState;
use crate::workload::Write;

/// Write times kept per page (`maxHistorySize`).
const HISTORY: usize = 8;
/// Groups (`groupCount`).
const GROUPS: usize = 4;

/// A page's last write times, oldest first.
#[derive(Clone, Copy, Debug, Default)]
struct History {
    at: [u64; HISTORY],
    n: u8,
}

impl History {
    fn push(&mut self, now: u64) {
        if usize::from(self.n) == HISTORY {
            self.at.copy_within(1.., 0);
            self.at[HISTORY - 1] = now;
        } else {
            self.at[usize::from(self.n)] = now;
            self.n += 1;
        }
    }

    /// `estimateDeathTime`: the last write plus the mean interval of the kept ones.
    fn death(&self) -> u64 {
        let n = usize::from(self.n);
        let last = self.at[n - 1];
        if n < 2 {
            return last;
        }
        last + (last - self.at[0]) / (n as u64 - 1)
    }
}

/// How deathtime chooses its victims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeathVictim {
    /// `greedy`: the least valid segment.
    Greedy,
    /// `edt`: the earliest estimated death time.
    Edt,
}

/// Deathtime's state.
#[derive(Clone, Debug)]
pub struct Deathtime {
    victim: DeathVictim,
    /// User writes so far.
    now: u64,
    /// Per logical page: its history (none for a page never written).
    history: Vec<History>,
    /// Pages per segment: a buffer's worth.
    pps: usize,
    /// The current buffer's death times, counted from when each page was written.
    window: Vec<i64>,
    /// The quartile bounds of the previous buffer (empty before the first is full).
    bounds: Vec<i64>,
    /// Per stream: the sum of the death times of the pages written to its open segment, and
    /// their number.
    open: [(u128, u64); 2 * GROUPS],
    /// Per segment: the mean death time of its pages, set when it is sealed.
    seg_death: Vec<u64>,
}

impl Deathtime {
    /// Deathtime over `pages` logical pages on `segments` segments of `pps` pages.
    pub fn new(victim: DeathVictim, pages: u64, segments: u32, pps: u32) -> Self {
        Deathtime {
            victim,
            now: 0,
            history: vec![History::default(); pages as usize],
            pps: pps as usize,
            window: Vec::with_capacity(pps as usize),
            bounds: Vec::new(),
            open: [(0, 0); 2 * GROUPS],
            seg_death: vec![0; segments as usize],
        }
    }

    /// The group of a page of death time `death`, and the buffer's bookkeeping; its stream is
    /// the group's user stream, or with `gc` its GC stream.
    fn place(&mut self, death: u64, gc: bool) -> usize {
        let rel = death.cast_signed() - self.now.cast_signed();
        let g = self.bounds.iter().filter(|&&b| rel >= b).count();
        self.window.push(rel);
        if self.window.len() == self.pps {
            // `flushPages`: sorted, split in groups of ⌈n/4⌉.
            self.window.sort_unstable();
            let size = self.pps.div_ceil(GROUPS);
            self.bounds = (1..GROUPS)
                .filter_map(|k| self.window.get(k * size).copied())
                .collect();
            self.window.clear();
        }
        let s = if gc { GROUPS + g } else { g };
        self.open[s].0 += u128::from(death);
        self.open[s].1 += 1;
        s
    }
}

impl Scheme for Deathtime {
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        let h = &mut self.history[write.page as usize];
        h.push(self.now);
        let death = h.death();
        let s = self.place(death, false);
        self.now += 1;
        s
    }

    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        let h = self.history[r.page as usize];
        let death = if h.n == 0 { self.now } else { h.death() };
        self.place(death, true)
    }

    fn sealed(&mut self, stream: usize, seg: u32) {
        let (sum, n) = self.open[stream];
        self.seg_death[seg as usize] = if n == 0 {
            0
        } else {
            (sum / u128::from(n)) as u64
        };
        self.open[stream] = (0, 0);
    }

    fn segment_to_clean(&mut self, groups: &Groups<'_>) -> Option<u32> {
        if self.victim != DeathVictim::Edt {
            return None;
        }
        let store = groups.store();
        // A wholly valid segment would free nothing: not a candidate.
        (store.state.iter().enumerate())
            .filter(|&(seg, s)| *s == SegState::Sealed && store.valid[seg] < store.pps)
            .min_by_key(|&(seg, _)| (self.seg_death[seg], seg))
            .map(|(seg, _)| seg as u32)
    }

    fn group_to_clean(&mut self, groups: &Groups<'_>) -> usize {
        least_valid(groups, 0..2 * GROUPS).unwrap_or(0)
    }
}

impl Declare for Deathtime {
    type Params = DeathVictim;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "deathtime",
        aliases: &[],
        summary: "Pages in 4 groups by estimated death time (last write + mean interval of the last 8), victims least valid or earliest death time (ssdiq_plus's Deathtime.hpp, not run by its simulator).",
        source: "ssdiq_plus sim/Deathtime.hpp (class DTE)",
        params: &[Param {
            key: "victim",
            values: "greedy|edt",
            unit: "",
            range: "`greedy` or `edt`",
            default: Some("greedy"),
            help: "Victims: the least valid segment, or the earliest mean estimated death time (`deathtime-edt`).",
        }],
        needs: &[Need::PageState],
    };
    fn parse(args: &Args<'_>) -> Result<DeathVictim> {
        args.choice(
            "victim",
            &[("greedy", DeathVictim::Greedy), ("edt", DeathVictim::Edt)],
            DeathVictim::Greedy,
        )
    }
    fn show(v: &DeathVictim, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match v {
            DeathVictim::Greedy => "deathtime:victim=greedy",
            DeathVictim::Edt => "deathtime:victim=edt",
        })
    }
    fn streams(_v: &DeathVictim, _classes: u32) -> u32 {
        2 * GROUPS as u32
    }
    // Groups: one free segment per GC stream beyond the first, one pool.
    fn reserve(_v: &DeathVictim, _classes: u32) -> (u64, u64) {
        (2 * GROUPS as u64 - 1, 1)
    }
    // A history of 8 write times per page.
    fn page_bytes(_v: &DeathVictim) -> u64 {
        std::mem::size_of::<History>() as u64
    }
    fn build(v: &DeathVictim, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        Ok(Built::groups(
            Deathtime::new(*v, pages, b.segments, b.pps),
            (0..2 * GROUPS).map(|g| g < GROUPS).collect(),
            greedy_groups(2 * GROUPS),
            b,
        ))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::config::{PlacementSpec, SimConfig};
    use crate::sim::Simulator;

    /// `estimateDeathTime`: writes at 0, 4, 10: the last, 10, plus the mean interval 5; after
    /// 9 more writes 10 apart (times 20 … 100) the 8 kept span 30 … 100, death 100 + 10.
    #[test]
    fn death_is_the_last_write_plus_the_mean_interval() {
        let mut h = History::default();
        h.push(0);
        assert_eq!(h.death(), 0);
        h.push(4);
        h.push(10);
        assert_eq!(h.death(), 15);
        for t in (20..=100).step_by(10) {
            h.push(t);
        }
        assert_eq!(h.n, 8);
        assert_eq!(h.at[0], 30);
        assert_eq!(h.death(), 110);
    }

    /// A buffer of 8 pages whose death times are 7, 6, … 0 writes away, sorted and split in
    /// groups of ⌈8/4⌉ = 2: the next pages are placed by its bounds 2, 4, 6 (a page on a bound
    /// goes above it); a first write, whose death is now, to the first group.
    #[test]
    fn pages_go_by_the_quartiles_of_the_last_buffer() {
        let mut d = Deathtime::new(DeathVictim::Greedy, 1000, 10, 8);
        for death in (0..8).rev() {
            d.place(death, false);
        }
        assert_eq!(d.bounds, [2, 4, 6]);
        assert!(d.window.is_empty());
        assert_eq!(
            [d.place(1, false), d.place(2, false), d.place(5, false)],
            [0, 1, 2]
        );
        // A relocated page goes to its group's GC stream.
        assert_eq!(d.place(7, true), 4 + 3);
        let mut rng = SimRng::seed_from_u64(1);
        assert_eq!(d.user_stream(&Write::new(999, 0), 0, &mut rng), 0);
    }

    #[test]
    fn runs_with_both_victims() {
        for spec in ["deathtime", "deathtime:victim=edt"] {
            let p: PlacementSpec = spec.parse().unwrap();
            assert_eq!(p.to_string().parse::<PlacementSpec>().unwrap(), p);
            let c = SimConfig::from_json(&format!(
                r#"{{"segments": 300, "pages_per_segment": 16, "spare": 0.15,
                    "workload": "hotcold:r=0.9,f=0.1", "placement": "{spec}",
                    "warmup": "fill+2x", "writes": "2x"}}"#
            ))
            .unwrap();
            let r = Simulator::new(&c).unwrap().run().unwrap();
            assert!(r.wa >= 1.0 && r.gc_writes > 0, "{spec}: {}", r.wa);
        }
    }
}
