//! Greedy cleaning: the sealed segment with the fewest valid pages.
//!
//! Exact, with O(1) work per invalidation (segments bucketed by valid count, see
//! [`super::index::buckets`]). Ties are broken by a selectable rule, because the rule can move the write
//! amplification by up to about 1%: `random` (the default: Li et al. §3.1's "random
//! tie-breaking", O(1)) or `oldest` (the segment sealed first among the tied ones, the order Li
//! et al. §3.1 use to approximate greedy; it scans the tied segments, which under uniform writes
//! costs about a quarter of the engine's speed), or `fifo` (the one that entered the bucket of its
//! valid count first, by sealing or by losing a page: each bucket a FIFO queue, Stockmeyer §2.3's
//! Sorting = Fifo; `oldest` is his Sorting = Tree with age read as seal order). Van Houdt §1; Li
//! et al. §3.1 (GRA with d = 1).

use super::index::buckets::{bucket_hooks, ValidBuckets};
use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Param};
use crate::store::Store;
use std::fmt;

/// Exact greedy.
#[derive(Clone, Debug)]
pub struct Greedy {
    buckets: ValidBuckets,
    tie: Tie,
}

impl Greedy {
    /// Greedy over `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32, tie: Tie) -> Self {
        Greedy {
            buckets: ValidBuckets::ordered(segments, pps, tie),
            tie,
        }
    }
}

impl VictimPolicy for Greedy {
    bucket_hooks!();

    #[inline]
    fn likely_victim(&self, _store: &Store, rng: &SimRng) -> Option<u32> {
        match self.tie {
            Tie::Random => self.buckets.peek_min(&mut rng.clone()),
            Tie::Oldest | Tie::Fifo => None,
        }
    }

    fn select(&mut self, store: &Store, _clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        self.buckets.pop_min(self.tie, store, rng)
    }

    fn next_valid(&self, _store: &Store) -> Option<u32> {
        self.buckets.min_valid()
    }

    fn with_valid(&self, valid: u32) -> Option<&[u32]> {
        Some(self.buckets.with_valid(valid))
    }
}

/// How ties between equally good victims are broken (greedy and windowed greedy): the order kept
/// inside a bucket of equal valid counts. The default is `random`, Li et al.'s rule (§3.1) and
/// O(1); `oldest` and `fifo` scan the tied segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tie {
    /// The segment sealed first among the tied ones: the bucket kept sorted by age, oldest at
    /// the head (Stockmeyer §2.3's Sorting = Tree, with age read as seal order).
    Oldest,
    /// The segment that entered the bucket first, by sealing or by losing a page: each bucket a
    /// FIFO queue (Stockmeyer §2.3's Sorting = Fifo).
    Fifo,
    /// Uniformly at random among the tied ones.
    Random,
}

impl Tie {
    /// The `tie=` argument, random when absent.
    pub fn parse(args: &Args<'_>) -> Result<Self> {
        args.choice(
            "tie",
            &[
                ("random", Tie::Random),
                ("oldest", Tie::Oldest),
                ("fifo", Tie::Fifo),
            ],
            Tie::Random,
        )
    }
}

/// The `tie=` parameter of greedy and windowed greedy.
pub const TIE: Param = Param {
    key: "tie",
    values: "random|oldest|fifo",
    unit: "",
    range: "`random`, `oldest` or `fifo`",
    default: Some("random"),
    help: "Order among segments with equally few valid pages: random (Li et al. §3.1), oldest sealed, or first in (Stockmeyer §2.3).",
};

impl fmt::Display for Tie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tie::Oldest => "oldest",
            Tie::Fifo => "fifo",
            Tie::Random => "random",
        })
    }
}

impl Declare for Greedy {
    type Params = Tie;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "greedy",
        aliases: &[],
        summary: "The sealed segment with the fewest valid pages.",
        source: "Van Houdt §1; Li et al. §3.1 (GRA with d = 1)",
        params: &[TIE],
        needs: &[],
    };
    fn parse(args: &Args<'_>) -> Result<Tie> {
        Tie::parse(args)
    }
    fn show(tie: &Tie, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "greedy:tie={tie}")
    }
    fn build(tie: &Tie, g: &Geometry) -> Self {
        Greedy::new(g.segments, g.pages_per_segment, *tie)
    }
}
