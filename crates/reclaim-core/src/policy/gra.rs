//! GRA(d), the Greedy-Random family: uniform among the d sealed segments with the fewest valid
//! pages, random tie-breaking at the boundary.
//!
//! Y. Li, P. P. C. Lee, J. C. S. Lui, Y. Xu, "Impact of Data Locality on Garbage Collection in
//! SSDs: A General Analytical Study", §3.1. d = 1 is GREEDY, d = N is RANDOM. When fewer than d
//! segments are sealed, all of them are the candidates.

use rand::Rng;

use super::index::buckets::{bucket_hooks, ValidBuckets};
use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Param};
use crate::store::Store;

/// GRA(d).
#[derive(Clone, Debug)]
pub struct Gra {
    buckets: ValidBuckets,
    d: u32,
}

impl Gra {
    /// GRA with window `d` over `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32, d: u32) -> Self {
        Gra {
            buckets: ValidBuckets::new(segments, pps),
            d,
        }
    }
}

impl VictimPolicy for Gra {
    bucket_hooks!();

    fn select(&mut self, _store: &Store, _clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        let candidates = (self.d as usize).min(self.buckets.len());
        if candidates == 0 {
            return None;
        }
        // A uniform rank among the d best; within the bucket it falls in, a uniform member. Every
        // candidate is chosen with probability 1/d, and which tied members count as candidates
        // is uniform, as §3.1's random tie-breaking asks.
        let rank = rng.random_range(0..candidates);
        self.buckets.pop_rank(rank, rng)
    }
}

impl Declare for Gra {
    type Params = u32;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "gra",
        aliases: &[],
        summary: "Uniform among the d sealed segments with the fewest valid pages (d = 1 greedy, d = segments random).",
        source: "Li et al. §3.1",
        params: &[Param {
            key: "d",
            values: "D",
            unit: "segments",
            range: "a whole number in [1, segments]",
            default: None,
            help: "Window of the fewest-valid segments drawn from.",
        }],
        needs: &[],
    };
    const DRAWS_AT_RANDOM: bool = true;
    fn parse(args: &Args<'_>) -> Result<u32> {
        args.num("d", None, "a whole number ≥ 1")
    }
    fn show(d: &u32, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gra:d={d}")
    }
    fn build(d: &u32, g: &Geometry) -> Self {
        Gra::new(g.segments, g.pages_per_segment, *d)
    }
}
