//! Generational cleaning: user writes make generation 0; each relocation moves a page one
//! generation up, and a cleaning cycle takes its victims from one generation.
//!
//! SSD-iq's `gen` scheme (Haas, Lee, Bonnet & Leis, PVLDB 18(11), 2025), as the simulator of
//! `LeeBohyun/ssdiq_plus` (after `gabriel-haas/ssdiq`) runs it: `sim/Generational.hpp`
//! (class `GenerationalGC`, `GC=gen` in `sim/sim.cpp`) over `SSD::compactUntilFreeBlock`
//! (`sim/SSD.hpp`):
//!
//! - one user head; its blocks are generation 0 (`gcGeneration`, reset when a block is erased);
//! - a cleaning cycle (`performGC`, when no block is free) starts from the block with the fewest
//!   valid pages of all (`singleGreedy`); its generation g is the cycle's. The cycle's victims
//!   are the blocks of generation g with the fewest valid pages (`singleGreedyGeneration`: full
//!   blocks, not all valid), or, when g has none, of g − 1, g − 2, … 0, then g + 1, g + 2, …
//!   (`recursiveGreedyGeneration`); until one victim is emptied whole;
//! - their valid pages go to generation g's GC head (`gcWriteHeads[g]`) while it has room; a
//!   victim whose pages overflow it is compacted in place and becomes the head
//!   (`SSD::compactUntilFreeBlock`), and `compactBlock` raises that block's own generation: a
//!   victim of generation k makes a head of generation k + 1. Most victims of a g cycle are of
//!   generation g, so its head is of g + 1; after a cycle fell back on another generation's
//!   victim, its pages go to that victim's generation + 1 until the head fills again.
//!
//! Here generation k is group k (stream k): group 0 takes the user writes, group k ≥ 1 the
//! pages relocated into a head of generation k. Choices:
//! - each cycle generation g remembers its head's generation and counts the pages of each
//!   stream's open segment; a relocated page finding that segment full makes its victim's
//!   generation + 1 the head's. The simulator's heads are distinct blocks; here two cycle
//!   generations whose heads are of one generation share its stream's open segment (and a
//!   page the engine writes into another stream's segment, when the pool is empty mid-cycle,
//!   is not counted);
//! - the simulator's generations are unbounded; here there are `generations=G` of them, a
//!   cycle of the last relocating into the last. The default, 64, is beyond what its runs
//!   reach (generation 44 at uniform on 16 GiB, 8 MiB blocks, fill 0.875; 17 and 15 on zones
//!   80/20 and 95/5), so that the last generation is rarely cleaned into itself; a device too
//!   small to keep 64 open segments needs a smaller G (the geometry check says so);
//! - the simulator keeps no free block in reserve (each victim is compacted in place), nor do
//!   these groups ([`Built::keeping`]);
//! - a cycle ends at the next user write (the simulator's ends when a victim is emptied whole,
//!   which is when its one free block is made: the run's trigger stops there too);
//! - the simulator's first cycle of a generation, before that generation has a GC head, takes
//!   block 0 as its head (`std::map::operator[]` gives 0 for a missing key, not −1): here its
//!   first victim becomes its head;
//! - the simulator's device keeps an LRU write buffer of 0.04% of the logical pages
//!   (`SSD::writePage`); here none.

use std::fmt;

use super::two_a::{greedy_groups, synced};
use super::{Build, Built, Declare, Groups, Relocation, Scheme, Victim};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Param};
use crate::workload::Write;

/// Generations, each a group.
#[derive(Clone, Debug)]
pub struct Generational {
    /// G.
    generations: usize,
    /// Pages per segment.
    pps: u32,
    /// The generation of the current cleaning cycle, if one is under way.
    cycle: Option<usize>,
    /// Per cycle generation g: the generation (group) its GC head is in, the generation of the
    /// victim it was compacted from + 1 (`gcWriteHeads[g]`).
    heads: Vec<usize>,
    /// Pages in each stream's open segment; `pps` when it is full or none is open.
    fill: Vec<u32>,
    /// The victim whose pages overflowed its cycle's GC head and took its place, if any.
    switched: Option<u32>,
    /// Scratch: each generation's sealed segments, read once per victim
    /// ([`Groups::sealed_each`]) rather than a pass over the streams per generation asked.
    sealed: Vec<u32>,
}

impl Generational {
    /// `generations` generations on segments of `pps` pages.
    pub fn new(generations: usize, pps: u32) -> Self {
        Generational {
            generations,
            pps,
            cycle: None,
            heads: (0..generations)
                .map(|g| (g + 1).min(generations - 1))
                .collect(),
            fill: vec![pps; generations],
            switched: None,
            sealed: vec![0; generations],
        }
    }

    /// The stream of a page of `victim` relocated by the cycle under way: its GC head's, while
    /// that has room; once it is full, the victim becomes the head (compacted in place), of
    /// the victim's generation + 1, for the rest of its pages and the cycles after.
    fn route(&mut self, victim: &Victim) -> usize {
        let k = usize::from(victim.region);
        let g = self.cycle.unwrap_or(k);
        if self.fill[self.heads[g]] == self.pps && self.switched != Some(victim.seg) {
            self.heads[g] = (k + 1).min(self.generations - 1);
            self.switched = Some(victim.seg);
        }
        let s = self.heads[g];
        self.fill[s] = if self.fill[s] == self.pps {
            1
        } else {
            self.fill[s] + 1
        };
        s
    }
}

impl Scheme for Generational {
    fn user_stream(&mut self, _write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        // A user write ends the cleaning cycle that made room for it.
        self.cycle = None;
        0
    }

    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        self.route(r.victim)
    }

    fn group_to_clean(&mut self, groups: &Groups<'_>) -> usize {
        for (s, fill) in self.fill.iter_mut().enumerate().skip(1) {
            *fill = synced(*fill, &groups.streams[s], self.pps);
        }
        groups.sealed_each(&mut self.sealed);
        let (sealed, pps) = (&self.sealed, self.pps);
        let Some(g) = self.cycle else {
            // `singleGreedy`: the generation of the least valid segment of all (the lowest
            // generation among equals), as `two_a::least_valid` chooses.
            let g = (0..self.generations)
                .filter(|&k| sealed[k] > 0)
                .min_by_key(|&k| (groups.next_valid(k).unwrap_or(pps), k))
                .unwrap_or(0);
            self.cycle = Some(g);
            return g;
        };
        // `recursiveGreedyGeneration`: g, g − 1, … 0, then g + 1, g + 2, … (a candidate not
        // wholly valid: `singleGreedyGeneration`, as `two_a::has_candidate` tells).
        let down = (0..=g).rev();
        let up = g + 1..self.generations;
        down.chain(up)
            .find(|&k| sealed[k] > 0 && groups.next_valid(k).is_none_or(|v| v < pps))
            .or_else(|| (0..self.generations).find(|&k| sealed[k] > 0))
            .unwrap_or(0)
    }
}

const GENERATIONS: &str = "a whole number in [2, 255]";

impl Declare for Generational {
    type Params = u8;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "gen",
        aliases: &["generational"],
        summary: "SSD-iq's generational cleaning: user writes are generation 0, a cycle cleans one generation (from the least valid segment's) and moves its pages one generation up.",
        source: "Haas, Lee, Bonnet & Leis, PVLDB 18(11) 2025; ssdiq_plus sim/Generational.hpp",
        params: &[Param {
            key: "generations",
            values: "G",
            unit: "generations",
            range: GENERATIONS,
            default: Some("64"),
            help: "Generations, each a group and a stream; the last relocates into itself (unbounded in the simulator).",
        }],
        needs: &[],
    };
    fn parse(args: &Args<'_>) -> Result<u8> {
        let g: u8 = args.num("generations", Some(64), GENERATIONS)?;
        if g < 2 {
            return Err(Error::param(&args.key("generations"), g, GENERATIONS));
        }
        Ok(g)
    }
    fn show(g: &u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "gen:generations={g}")
    }
    fn streams(g: &u8, _classes: u32) -> u32 {
        u32::from(*g)
    }
    // None kept: ssdiq_plus compacts each victim in place (`SSD::compactUntilFreeBlock`), so
    // relocating never needs a free block ([`Built::keeping`]).
    fn reserve(_g: &u8, _classes: u32) -> (u64, u64) {
        (0, 1)
    }
    fn build(g: &u8, b: &Build<'_>) -> Result<Built<Self>> {
        let n = usize::from(*g);
        let user = (0..n).map(|k| k == 0).collect();
        Ok(Built::groups(Generational::new(n, b.pps), user, greedy_groups(n), b).keeping(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{PlacementSpec, SimConfig};
    use crate::sim::Simulator;

    /// A cycle's relocated pages go to its GC head while it has room; a victim that overflows
    /// it becomes the head, of the victim's generation + 1 (`compactBlock` increments the
    /// compacted block's `gcGeneration`), the last generation's into itself.
    #[test]
    fn a_full_head_is_replaced_by_the_victim_one_generation_up() {
        let mut gen = Generational::new(4, 8);
        let v = |seg, region| Victim {
            region,
            ..Victim::bare(seg)
        };
        // A cycle of generation 1: no head yet (none open), so its first victim becomes it.
        gen.cycle = Some(1);
        let routed: Vec<usize> = (0..8).map(|_| gen.route(&v(5, 1))).collect();
        assert_eq!(routed, [2; 8]);
        // The head is full; the next victim, of generation 0 (the cycle fell back on it), takes
        // its place: its pages and the cycle's after it go to generation 1, not 2.
        assert_eq!(gen.route(&v(6, 0)), 1);
        assert_eq!(gen.route(&v(6, 0)), 1);
        assert_eq!(gen.heads[1], 1);
        // The head has room for 6 more: a victim of generation 1 fills it, its seventh page
        // finds it full and that victim becomes the head, of generation 2.
        let routed: Vec<usize> = (0..7).map(|_| gen.route(&v(7, 1))).collect();
        assert_eq!(routed, [1, 1, 1, 1, 1, 1, 2]);
        // The last generation compacts into itself.
        gen.cycle = Some(3);
        assert_eq!(gen.route(&v(8, 3)), 3);
    }

    /// Counted on a run from an empty device: the user writes fill only generation 0 and every
    /// relocated page goes to a generation above it, so the pages generation 0's stream took are
    /// the user writes and those of generations 1 … 3 the GC writes, exactly.
    #[test]
    fn relocated_pages_fill_the_generations_above() {
        let c = SimConfig::from_json(
            r#"{"segments": 400, "pages_per_segment": 32, "spare": 0.15,
                "workload": "hotcold:r=0.9,f=0.1", "placement": "gen:generations=4",
                "warmup": "none", "writes": "6x"}"#,
        )
        .unwrap();
        let mut sim = Simulator::new(&c).unwrap();
        while sim.step(1 << 16).unwrap() {}
        let p = sim.placement();
        let taken = |g: usize| {
            let st = &p.streams[g];
            let open = if st.seg == crate::store::NONE {
                0
            } else {
                u64::from(st.next)
            };
            p.seals[g] * 32 + open
        };
        let result = sim.result();
        assert!(p.seals[1] > 0, "{:?}", p.seals);
        assert!(result.gc_writes > 0);
        assert_eq!(taken(0), result.user_writes);
        assert_eq!(taken(1) + taken(2) + taken(3), result.gc_writes);
        let p: PlacementSpec = "generational".parse().unwrap();
        assert_eq!(p.to_string(), "gen:generations=64");
    }
}
