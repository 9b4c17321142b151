//! 2R-FIFO: two regions, normal (user writes) and cold (relocated pages), cleaned together by a
//! scan of one FIFO of sealed segments that takes those below a utilisation threshold, the
//! threshold rising each time the scan wraps.
//!
//! S.-W. Lee, H. An, S. Lee, "2R: Efficiently Isolating Cold Pages in Flash Storages", PVLDB
//! 13(11), 2020 (the optimised version of 2R), as SSD-iq's simulator runs it: G. Haas, B. Lee,
//! P. Bonnet, V. Leis, PVLDB 18(11), 2025, repository `gabriel-haas/ssdiq`, `sim/TwoR.hpp`,
//! `garbageCollect2RFIFO` and `selectVictimBlocksFIFO` (the same code in `LeeBohyun/ssdiq_plus`,
//! `sim/TwoR.hpp`). Three groups of the engine ([`Built::groups`]): normal (group 0, user
//! writes), cold (group 1) and rest (group 2, the relocated pages SSD-iq's packing leaves in a
//! partly filled victim, topped up by user writes; see [`super::two_r`]); the scheme names each
//! victim itself ([`Scheme::segment_to_clean`]) from its own list.
//!
//! The list and the scan, as `TwoR.hpp` keeps them:
//! - every sealed segment joins the back of one FIFO, user and relocated alike (SSD-iq inserts a
//!   compacted block after `curColdBlkPtr`, which is always the list's end, so at the back too);
//! - a cleaning ("call") first moves an exhausted scan back to the front, then fixes the scan
//!   depth D = ⌊`depth` × list length⌋; it walks the list from where the last call stopped,
//!   taking each segment whose valid fraction is below the threshold U, until the victims'
//!   invalid pages add up to one segment's worth; after D steps since the last wrap (a count
//!   kept across calls, a `static` in the code) it goes back to the front and U rises by 0.05
//!   (the second-chance scan). Victims stay in the list, skipped but counted as steps, until
//!   the call has its victims, and then leave it;
//! - U starts at `util` (0.5). After each call the code sets it to 0.7, not back to 0.5
//!   (`BLK_UTIL = 0.7;` at the end of `selectVictimBlocksFIFO`): `reset=code`, the default,
//!   does that; `reset=paper` sets it back to `util`, the threshold every cleaning starts from.
//!
//! A call's scan runs whole when the run's trigger first asks for a victim after the last call
//! ended (with the default `frontier` trigger and no free segment kept, [`Built::keeping`],
//! when a user segment fills and none is free, as SSD-iq's), and its victims are then handed
//! out one at a time. A scan that reaches the list's end short of a segment's worth (where
//! SSD-iq prints "cur victim blocks not enough" and its packing fails) keeps what it found; one
//! that finds nothing leaves the victim to greedy, in the group whose best segment is emptier.
//! Relocated pages: `rest=normal` (the default) as SSD-iq's packing leaves them, those of full
//! victims to the cold group and the rest to the rest group, topped up by user writes;
//! `rest=cold` all to the cold group (see [`super::two_r`], which also says what still differs
//! from SSD-iq). On one write sequence fed to both (1,000 segments of 64 pages, fill 0.9,
//! `scripts/ssdiq-trace-side-by-side.py`): within 0.6% on uniform, zones 80/20, 90/10, 95/5
//! and Zipf 1.0.

use std::fmt;

use super::two_r::{two_r_routing, Packing, Rest, COLD, NORMAL, REST, REST_PARAM};
use super::{Build, Built, Declare, Groups, Relocation, RelocationRun, Scheme};
use crate::error::{Error, Result};
use crate::policy::PolicySpec;
use crate::rng::SimRng;
use crate::spec::{check_range, Args, Family, Info, Param};
use crate::store::{SegState, NONE};
use crate::workload::Write;

/// The threshold after a call under `reset=code` (`TwoR.hpp`: `BLK_UTIL = 0.7;`).
const CODE_RESET: f64 = 0.7;
/// The threshold's rise at each wrap of the scan (`BLK_UTIL += 0.05;`).
const RISE: f64 = 0.05;

/// Where the threshold goes after a cleaning call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reset {
    /// To 0.7, as SSD-iq's code does.
    Code,
    /// Back to its starting value.
    Paper,
}

impl fmt::Display for Reset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reset::Code => "code",
            Reset::Paper => "paper",
        })
    }
}

/// The parameters of 2R-FIFO.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoRFifoSpec {
    /// The utilisation threshold a scan starts from [fraction of a segment's pages], in (0, 1].
    pub util: f64,
    /// The scan depth before a wrap [fraction of the list], in (0, 1].
    pub depth: f64,
    /// The threshold after a call.
    pub reset: Reset,
    /// Where a call's pages beyond whole segments go.
    pub rest: Rest,
}

impl Default for TwoRFifoSpec {
    fn default() -> Self {
        TwoRFifoSpec {
            util: 0.5,
            depth: 0.7,
            reset: Reset::Code,
            rest: Rest::Normal,
        }
    }
}

/// A segment's place in the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    Out,
    In,
    /// A victim of the call in progress, still in the list.
    Victim,
}

/// 2R-FIFO.
#[derive(Clone, Debug)]
pub struct TwoRFifo {
    spec: TwoRFifoSpec,
    /// Where relocated pages go.
    packing: Packing,
    next: Vec<u32>,
    prev: Vec<u32>,
    mark: Vec<Mark>,
    head: u32,
    tail: u32,
    len: usize,
    /// The scan's position (`curScan`); `NONE` is the list's end.
    cursor: u32,
    /// Steps since the scan last went back to the front (`stepsSinceReset`).
    steps: usize,
    /// The utilisation threshold (`BLK_UTIL`).
    pub util: f64,
    /// The victims of the last call planned (segment, valid pages), in the order taken.
    victims: Vec<(u32, u32)>,
}

impl TwoRFifo {
    /// The scheme over `segments` segments of `pps` pages, its list empty.
    pub fn new(spec: TwoRFifoSpec, segments: u32, pps: u32) -> Self {
        let n = segments as usize;
        TwoRFifo {
            spec,
            packing: Packing::new(spec.rest, pps),
            next: vec![NONE; n],
            prev: vec![NONE; n],
            mark: vec![Mark::Out; n],
            head: NONE,
            tail: NONE,
            len: 0,
            cursor: NONE,
            steps: 0,
            util: spec.util,
            victims: Vec::new(),
        }
    }

    /// The list, front to back.
    pub fn list(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len);
        let mut s = self.head;
        while s != NONE {
            out.push(s);
            s = self.next[s as usize];
        }
        out
    }

    fn push_back(&mut self, seg: u32) {
        let s = seg as usize;
        self.prev[s] = self.tail;
        self.next[s] = NONE;
        if self.tail == NONE {
            self.head = seg;
        } else {
            self.next[self.tail as usize] = seg;
        }
        self.tail = seg;
        self.mark[s] = Mark::In;
        self.len += 1;
    }

    /// Takes `seg` out of the list; a scan standing on it moves to the next (`curScan =
    /// fifoList.erase(it)`).
    fn unlink(&mut self, seg: u32) {
        let s = seg as usize;
        let (p, n) = (self.prev[s], self.next[s]);
        if self.cursor == seg {
            self.cursor = n;
        }
        if p == NONE {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.mark[s] = Mark::Out;
        self.len -= 1;
    }

    /// The victims of a call, as SSD-iq's `selectVictimBlocksFIFO` scans for them over a store
    /// whose segments hold `valid` pages of `pps` and are in `state`, into `self.victims`
    /// (segment, valid pages) in the order taken; empty when the scan finds none before the
    /// list's end.
    pub fn scan(&mut self, valid: &[u32], state: &[SegState], pps: u32) -> &[(u32, u32)] {
        self.victims.clear();
        if self.cursor == NONE {
            self.cursor = self.head;
            self.steps = 0;
        }
        let depth = (self.spec.depth * self.len as f64) as usize;
        let mut gathered = 0u64;
        // Once the threshold passes 1 every listed segment qualifies, so a few passes more
        // than it takes to get there find one if any is left (SSD-iq would loop forever).
        let mut budget = (self.len + 1) * 32;
        while gathered < u64::from(pps) && self.cursor != NONE && budget > 0 {
            budget -= 1;
            let seg = self.cursor;
            let s = seg as usize;
            if self.mark[s] == Mark::In && state[s] != SegState::Sealed {
                // Emptied by itself and freed by the engine (`free_empty`): not a candidate.
                self.unlink(seg);
                continue;
            }
            let v = valid[s].min(pps);
            // A full segment gives no room: SSD-iq takes one once the threshold passes 1, and
            // its packing puts it back whole; here it is passed over, so that a call always
            // makes progress.
            if self.mark[s] == Mark::In && v < pps && f64::from(v) / f64::from(pps) < self.util {
                self.mark[s] = Mark::Victim;
                self.victims.push((seg, v));
                gathered += u64::from(pps - v);
            }
            self.cursor = self.next[s];
            self.steps += 1;
            if self.steps >= depth {
                self.cursor = self.head;
                self.steps = 0;
                self.util += RISE;
            }
        }
        self.util = match self.spec.reset {
            Reset::Code => CODE_RESET,
            Reset::Paper => self.spec.util,
        };
        // The victims leave the list (SSD-iq erases each after packing them).
        for i in 0..self.victims.len() {
            let seg = self.victims[i].0;
            self.unlink(seg);
        }
        &self.victims
    }
}

impl Scheme for TwoRFifo {
    two_r_routing!();

    fn sealed(&mut self, _stream: usize, seg: u32) {
        if self.mark[seg as usize] != Mark::Out {
            // A victim of the call in progress (or a segment freed by itself), sealed again:
            // its old entry goes, as SSD-iq's `std::find` erases the first of its two.
            self.unlink(seg);
        }
        self.push_back(seg);
    }

    fn segment_to_clean(&mut self, groups: &Groups<'_>) -> Option<u32> {
        if !self.packing.calling() {
            let store = groups.store();
            self.scan(&store.valid, &store.state, store.pps);
            if self.victims.is_empty() {
                return None;
            }
            let open = |g: usize| groups.streams[g].next * u32::from(groups.streams[g].seg != NONE);
            let cold_open = open(COLD);
            self.packing.rest_open(open(REST));
            self.packing.plan(&self.victims, cold_open);
        }
        self.packing.next(&groups.store().state)
    }

    fn group_to_clean(&mut self, groups: &Groups<'_>) -> usize {
        // Only when the scan found nothing: the group whose best segment is emptier, its
        // victim a call of its own.
        self.packing.clear();
        (0..3)
            .filter_map(|g| groups.next_valid(g).map(|v| (v, g)))
            .min()
            .map_or(NORMAL, |(_, g)| g)
    }
}

const FRACTION: &str = "a number in (0, 1]";

impl Declare for TwoRFifo {
    type Params = TwoRFifoSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "2r-fifo",
        aliases: &[],
        summary: "Two regions, normal (user writes) and cold (relocated pages), cleaned by a scan of one FIFO of sealed segments for those below a threshold that rises as the scan wraps.",
        source: "Lee, An & Lee, PVLDB 13(11) 2020; SSD-iq's sim/TwoR.hpp (Haas et al., PVLDB 18(11) 2025)",
        params: &[
            Param {
                key: "util",
                values: "U",
                unit: "fraction of a segment",
                range: FRACTION,
                default: Some("0.5"),
                help: "Utilisation threshold a scan starts from (BLK_UTIL); +0.05 at each wrap.",
            },
            Param {
                key: "depth",
                values: "D",
                unit: "fraction of the list",
                range: FRACTION,
                default: Some("0.7"),
                help: "Steps before the scan wraps to the front (FIFO_SCAN_DEPTH).",
            },
            Param {
                key: "reset",
                values: "code|paper",
                unit: "",
                range: "`code` or `paper`",
                default: Some("code"),
                help: "Threshold after a cleaning: 0.7 as SSD-iq's code sets it, or back to util.",
            },
            REST_PARAM,
        ],
        needs: &[],
    };
    fn parse(args: &Args<'_>) -> Result<TwoRFifoSpec> {
        let d = TwoRFifoSpec::default();
        let util: f64 = args.num("util", Some(d.util), FRACTION)?;
        check_range(&args.key("util"), util, 0.0, 1.0, true, false)?;
        let depth: f64 = args.num("depth", Some(d.depth), FRACTION)?;
        check_range(&args.key("depth"), depth, 0.0, 1.0, true, false)?;
        let reset = args.choice(
            "reset",
            &[("code", Reset::Code), ("paper", Reset::Paper)],
            Reset::Code,
        )?;
        Ok(TwoRFifoSpec {
            util,
            depth,
            reset,
            rest: Rest::parse(args)?,
        })
    }
    fn show(p: &TwoRFifoSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "2r-fifo:util={},depth={},reset={},rest={}",
            p.util, p.depth, p.reset, p.rest
        )
    }
    fn streams(_p: &TwoRFifoSpec, _classes: u32) -> u32 {
        3
    }
    // None kept: SSD-iq compacts each victim in place (`SSD::compactUntilFreeBlock`), so a
    // call never needs a free block ([`Built::keeping`]).
    fn reserve(_p: &TwoRFifoSpec, _classes: u32) -> (u64, u64) {
        (0, 1)
    }
    fn build(p: &TwoRFifoSpec, b: &Build<'_>) -> Result<Built<Self>> {
        if b.pps == 0 {
            return Err(Error::param("pages_per_segment", 0, "at least 1"));
        }
        let greedy: PolicySpec = "greedy".parse()?;
        Ok(Built::groups(
            TwoRFifo::new(*p, b.segments, b.pps),
            vec![true, false, true],
            vec![Some(greedy.clone()), Some(greedy.clone()), Some(greedy)],
            b,
        )
        .keeping(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{PlacementSpec, SimConfig};
    use crate::sim::Simulator;

    #[test]
    fn spec_round_trips_and_ranges_are_checked() {
        let p: PlacementSpec = "2r-fifo".parse().unwrap();
        assert_eq!(
            p.to_string(),
            "2r-fifo:util=0.5,depth=0.7,reset=code,rest=normal"
        );
        assert_eq!(p.to_string().parse::<PlacementSpec>().unwrap(), p);
        let q: PlacementSpec = "2r-fifo:reset=paper,util=0.4".parse().unwrap();
        assert_eq!(
            q.to_string(),
            "2r-fifo:util=0.4,depth=0.7,reset=paper,rest=normal"
        );
        let e = "2r-fifo:depth=0".parse::<PlacementSpec>().unwrap_err();
        assert!(e.to_string().contains("placement.depth"), "{e}");
        let e = "2r-fifo:reset=doc".parse::<PlacementSpec>().unwrap_err();
        assert!(e.to_string().contains("placement.reset"), "{e}");
    }

    /// A hand-built list of 10 sealed segments of 10 pages, every one 60% valid but segment 8
    /// (50%) and segment 9 (40%). From U = 0.5 with depth ⌊0.7 × 10⌋ = 7: segments 0–6 are
    /// passed, the scan wraps at the 7th step (U = 0.55), passes 0–6 again and wraps (U = 0.5 +
    /// 0.05 + 0.05, which in binary floating point is 0.6000000000000001, just above 0.6: the
    /// comparison SSD-iq's code makes), then takes segment 0 (0.6 < U), 1 and 2: their 12
    /// invalid pages reach one segment's worth. Segments 8 and 9 lie beyond the depth and are
    /// never reached. Under `reset=code` the next call starts from 0.7, under `reset=paper`
    /// from 0.5.
    #[test]
    fn the_threshold_rises_as_the_scan_wraps() {
        for (reset, after) in [(Reset::Code, 0.7), (Reset::Paper, 0.5)] {
            let spec = TwoRFifoSpec {
                reset,
                ..TwoRFifoSpec::default()
            };
            let mut t = TwoRFifo::new(spec, 10, 10);
            for seg in 0..10 {
                t.sealed(0, seg);
            }
            let mut valid = vec![6u32; 10];
            valid[8] = 5;
            valid[9] = 4;
            let state = vec![SegState::Sealed; 10];
            const { assert!(0.5 + RISE + RISE > 0.6) };
            assert_eq!(t.scan(&valid, &state, 10), [(0, 6), (1, 6), (2, 6)]);
            // The call has its 12 invalid pages: victims out of the list, threshold reset.
            assert_eq!(t.list(), [3, 4, 5, 6, 7, 8, 9]);
            assert!((t.util - after).abs() < 1e-12, "{reset}: {}", t.util);
        }
    }

    /// Victims stay in the list, skipped, until the call has them all; a victim sealed again
    /// (reused by the engine) goes to the back. Depth 1 over 4 segments of 10 pages holding 1,
    /// 9, 5, 9: segment 0 is taken (9 invalid pages), 1, 2 (0.5 is not below 0.5) and 3 are
    /// passed, the scan wraps (U = 0.55), skips the victim 0 and takes segment 2 (14 in all).
    #[test]
    fn victims_leave_the_list_when_the_call_ends() {
        let spec = TwoRFifoSpec {
            depth: 1.0,
            ..TwoRFifoSpec::default()
        };
        let mut t = TwoRFifo::new(spec, 4, 10);
        for seg in 0..4 {
            t.sealed(0, seg);
        }
        let valid = [1, 9, 5, 9];
        let state = [SegState::Sealed; 4];
        assert_eq!(t.scan(&valid, &state, 10), [(0, 1), (2, 5)]);
        assert_eq!(t.list(), [1, 3]);
        t.sealed(1, 0);
        assert_eq!(t.list(), [1, 3, 0]);
    }

    /// Relocated pages go where the packing says, counted from the start (no warm-up): with
    /// `rest=cold` the cold stream's pages (sealed segments and the open one) are exactly the
    /// run's relocations; with `rest=normal` the three streams still hold every page written,
    /// and the relocated pages beyond whole segments are in the rest group's.
    #[test]
    fn relocated_pages_land_in_the_cold_group() {
        for rest in ["cold", "normal"] {
            let c = SimConfig::from_json(&format!(
                r#"{{"segments": 500, "pages_per_segment": 32, "spare": 0.15,
                    "workload": "hotcold:r=0.9,f=0.1", "placement": "2r-fifo:rest={rest}",
                    "warmup": "none", "writes": "8x", "seed": 3}}"#
            ))
            .unwrap();
            let mut sim = Simulator::new(&c).unwrap();
            while sim.step(u64::MAX).unwrap() {}
            let r = sim.result();
            let p = sim.placement();
            let pages = |s: usize| p.seals[s] * 32 + u64::from(p.streams[s].next);
            assert!(r.gc_writes > 0);
            let all = pages(NORMAL) + pages(COLD) + pages(REST);
            assert_eq!(all, r.user_writes + r.gc_writes);
            if rest == "cold" {
                assert_eq!(pages(COLD), r.gc_writes);
            } else {
                assert!(pages(COLD) < r.gc_writes, "{} {}", pages(COLD), r.gc_writes);
            }
        }
    }
}
