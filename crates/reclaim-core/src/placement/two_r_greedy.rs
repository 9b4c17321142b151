//! 2R-greedy: two regions, normal (user writes) and cold (relocated pages), each cleaned by
//! greedy, the region of each cleaning chosen by comparing their best victims.
//!
//! S.-W. Lee, H. An, S. Lee, "2R: Efficiently Isolating Cold Pages in Flash Storages", PVLDB
//! 13(11), 2020 (the basic version of 2R), as SSD-iq's simulator runs it: G. Haas, B. Lee,
//! P. Bonnet, V. Leis, PVLDB 18(11), 2025, repository `gabriel-haas/ssdiq`, `sim/TwoR.hpp`,
//! `garbageCollect2RGreedy`, `selectVictimBlocksGreedy` and `garbageCollectColdRegion` (the same
//! code in `LeeBohyun/ssdiq_plus`, `sim/TwoR.hpp`, which differs only in names and an unused
//! field). Two groups of the engine ([`Built::groups`]): group 0, normal, takes the user
//! writes; group 1, cold, every relocated page, whichever region its victim came from.
//!
//! Which region is cleaned (`garbageCollectColdRegion`), with I the invalid pages of a region's
//! sealed segments summed and b the pages per segment:
//! - cold if the cold region's I ≥ b and either the normal region's I < b or the normal
//!   region's least-valid segment holds at least as many valid pages as the cold region's (a tie
//!   goes to cold);
//! - normal otherwise.
//!
//! SSD-iq gathers victims from the chosen region, fewest valid first, until their invalid pages
//! add up to b (one segment's worth), then packs their valid pages into as few of them as
//! possible. Here the run's trigger decides how many victims a cleaning takes, and the scheme
//! keeps SSD-iq's gathering as its own tally: a region once chosen gives the next victims until
//! their invalid pages reach b (or it has no sealed segment left), and only then is the rule
//! above applied again. With the default `frontier` trigger each cleaning takes victims one at a
//! time until a segment is free, which is SSD-iq's "until one zone's worth of invalid pages".
//!
//! Where the relocated pages go: SSD-iq packs a call's pages into its victims, the full ones
//! joining the cold region and the rest topped up by user writes; `rest=normal` routes them
//! likewise; `rest=cold`, the default, sends all to the cold group, which measured closer to
//! SSD-iq's WA (see [`super::two_r`]). Ties among equally empty segments of a region:
//! SSD-iq's `std::min_element` over the region's list in insertion order takes the one that
//! joined first, which is greedy's `tie=oldest` (sealed first), the default here.

use std::fmt;

use super::two_r::{two_r_routing, Packing, Rest, COLD, NORMAL, REST};
use super::{Build, Built, Declare, Gathered, Groups, Relocation, Scheme, Victim};
use crate::config::grammar::{Args, Family, Info, Param};
use crate::error::Result;
use crate::policy::greedy::{Tie, TIE};
use crate::policy::PolicySpec;
use crate::rng::SimRng;
use crate::store::SegState;
use crate::workload::Write;

/// The parameters of 2R-greedy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwoRGreedySpec {
    /// Order among a region's equally empty segments.
    pub tie: Tie,
    /// Where a call's pages beyond whole segments go.
    pub rest: Rest,
}

/// 2R-greedy.
#[derive(Clone, Debug)]
pub struct TwoRGreedy {
    /// Where relocated pages go.
    packing: Packing,
    /// The region of the gathering in progress and the invalid pages its victims have given;
    /// `None` between gatherings.
    gathering: Option<(usize, u64)>,
    /// Victims taken from each region.
    pub victims: [u64; 2],
}

impl TwoRGreedy {
    /// A scheme with no gathering in progress, relocating by `rest` for segments of `pps`
    /// pages.
    pub fn new(rest: Rest, pps: u32) -> Self {
        TwoRGreedy {
            packing: Packing::new(rest, pps),
            gathering: None,
            victims: [0; 2],
        }
    }

    /// The region SSD-iq's `garbageCollectColdRegion` cleans now, or the other one when that
    /// one has no sealed segment.
    pub fn choose(groups: &Groups<'_>) -> usize {
        let b = groups.store().pps;
        let [normal, cold] = invalid_pages(groups, u64::from(b));
        let pps = u64::from(b);
        let g = if cold < pps {
            NORMAL
        } else if normal < pps {
            COLD
        } else {
            match (groups.next_valid(NORMAL), groups.next_valid(COLD)) {
                (Some(n), Some(c)) if n < c => NORMAL,
                (Some(_), None) => NORMAL,
                _ => COLD,
            }
        };
        // A region whose best segment is full (or that has none) gives no room: the other
        // one, where its best has an invalid page (SSD-iq would stop on its `ensure`).
        let room = |g: usize| groups.next_valid(g).is_some_and(|v| v < b);
        if (!room(g) && room(1 - g)) || groups.sealed(g) == 0 {
            1 - g
        } else {
            g
        }
    }
}

/// Invalid pages of each region's sealed segments, counted until both reach `enough` (all the
/// rule asks beyond that is whether each does).
fn invalid_pages(groups: &Groups<'_>, enough: u64) -> [u64; 2] {
    let store = groups.store();
    let mut total = [0u64; 2];
    for (seg, state) in store.state.iter().enumerate() {
        if *state != SegState::Sealed {
            continue;
        }
        let g = groups.group_of(seg as u32).min(COLD);
        total[g] += u64::from(store.pps - store.valid[seg].min(store.pps));
        if total[NORMAL] >= enough && total[COLD] >= enough {
            break;
        }
    }
    total
}

impl Scheme for TwoRGreedy {
    two_r_routing!();

    fn group_to_clean(&mut self, groups: &Groups<'_>) -> usize {
        let pps = groups.store().pps;
        let g = match self.gathering {
            // A gathering goes on while its region's best segment has an invalid page.
            Some((g, _)) if groups.next_valid(g).is_some_and(|v| v < pps) => g,
            _ => {
                let g = Self::choose(groups);
                self.gathering = Some((g, 0));
                g
            }
        };
        let valid = groups.next_valid(g).unwrap_or(0).min(pps);
        let taken = self.gathering.map_or(0, |(_, t)| t) + u64::from(pps - valid);
        let last = taken >= u64::from(pps);
        self.gathering = (!last).then_some((g, taken));
        self.packing.chosen(valid, last);
        self.victims[g] += 1;
        g
    }
}

impl Declare for TwoRGreedy {
    type Params = TwoRGreedySpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "2r-greedy",
        aliases: &[],
        summary: "Two regions, normal (user writes) and cold (relocated pages), each greedy; the cold one cleaned when its least-valid segment is no fuller than the normal one's.",
        source: "Lee, An & Lee, PVLDB 13(11) 2020; SSD-iq's sim/TwoR.hpp (Haas et al., PVLDB 18(11) 2025)",
        params: &[
            Param {
                default: Some("oldest"),
                help: "Order among a region's equally empty segments: oldest sealed (SSD-iq's list order), random, or first in.",
                ..TIE
            },
            REST,
        ],
        needs: &[],
    };
    fn parse(args: &Args<'_>) -> Result<TwoRGreedySpec> {
        let tie = args.choice(
            "tie",
            &[
                ("oldest", Tie::Oldest),
                ("random", Tie::Random),
                ("fifo", Tie::Fifo),
            ],
            Tie::Oldest,
        )?;
        Ok(TwoRGreedySpec {
            tie,
            rest: Rest::parse(args)?,
        })
    }
    fn show(p: &TwoRGreedySpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "2r-greedy:tie={},rest={}", p.tie, p.rest)
    }
    fn streams(_p: &TwoRGreedySpec, _classes: u32) -> u32 {
        2
    }
    // Two GC streams in one pool: one segment kept for the second.
    fn reserve(_p: &TwoRGreedySpec, _classes: u32) -> (u64, u64) {
        (1, 1)
    }
    fn build(p: &TwoRGreedySpec, b: &Build<'_>) -> Result<Built<Self>> {
        let greedy: PolicySpec = format!("greedy:tie={}", p.tie).parse()?;
        Ok(Built::groups(
            TwoRGreedy::new(p.rest, b.pps),
            vec![true, false],
            vec![Some(greedy.clone()), Some(greedy)],
            b,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{PlacementSpec, SimConfig};
    use crate::sim::Simulator;

    fn config(placement: &str, policy: &str, workload: &str) -> SimConfig {
        SimConfig::from_json(&format!(
            r#"{{"segments": 1000, "pages_per_segment": 64, "spare": 0.1,
                "workload": "{workload}", "placement": "{placement}", "policy": "{policy}",
                "warmup": "fill+4x", "writes": "4x", "seed": 7}}"#
        ))
        .unwrap()
    }

    #[test]
    fn spec_round_trips() {
        let p: PlacementSpec = "2r-greedy".parse().unwrap();
        assert_eq!(p.to_string(), "2r-greedy:tie=oldest,rest=cold");
        assert_eq!(p.to_string().parse::<PlacementSpec>().unwrap(), p);
        assert_eq!(p.streams(1), 2);
        let e = "2r-greedy:tie=newest".parse::<PlacementSpec>().unwrap_err();
        assert!(e.to_string().contains("placement.tie"), "{e}");
    }

    /// Relocated pages go where the packing says, counted from the start (no warm-up): with
    /// `rest=cold` the cold stream's pages (sealed segments and the open one) are exactly the
    /// run's relocations and the normal stream's its user writes; with `rest=normal` the two
    /// streams still hold every page written, and the relocated pages beyond whole segments
    /// are among the user writes.
    #[test]
    fn relocated_pages_land_in_the_cold_group() {
        for rest in ["cold", "normal"] {
            let c = SimConfig::from_json(&format!(
                r#"{{"segments": 500, "pages_per_segment": 32, "spare": 0.15,
                    "workload": "hotcold:r=0.9,f=0.1", "placement": "2r-greedy:rest={rest}",
                    "warmup": "none", "writes": "8x", "seed": 3}}"#
            ))
            .unwrap();
            let mut sim = Simulator::new(&c).unwrap();
            while sim.step(u64::MAX).unwrap() {}
            let r = sim.result();
            let p = sim.placement();
            let pages = |s: usize| p.seals[s] * 32 + u64::from(p.streams[s].next);
            assert!(r.gc_writes > 0);
            assert_eq!(pages(NORMAL) + pages(COLD), r.user_writes + r.gc_writes);
            if rest == "cold" {
                assert_eq!(pages(COLD), r.gc_writes);
            } else {
                assert!(pages(COLD) < r.gc_writes, "{} {}", pages(COLD), r.gc_writes);
            }
        }
    }

    /// The paper's claim (its abstract: 1R-greedy mixes cold pages with the others and
    /// relocates them again and again, 2R isolates them, and 2R-FIFO improves on 2R-greedy): on
    /// hot/cold 90/10 at spare 0.1 (1,000 segments of 64 pages, 4x measured, seed 7) this
    /// engine measured WA 5.877 for greedy in one log, 5.267 for 2R-greedy (−10.4%) and 2.990
    /// for 2R-FIFO; asserted with part of those margins.
    #[test]
    fn below_greedy_on_hot_cold() {
        let wa = |placement: &str| {
            let c = config(placement, "greedy", "hotcold:r=0.9,f=0.1");
            Simulator::new(&c).unwrap().run().unwrap().wa
        };
        let (greedy, two_r, fifo) = (wa("single"), wa("2r-greedy"), wa("2r-fifo"));
        assert!(two_r < greedy * 0.95, "2r-greedy {two_r} greedy {greedy}");
        assert!(fifo < two_r * 0.8, "2r-fifo {fifo} 2r-greedy {two_r}");
    }
}
