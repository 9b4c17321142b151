//! The age-threshold algorithm: greedy among the segments older than the age threshold AT.
//!
//! J. Menon and L. Stockmeyer, "An age-threshold algorithm for garbage collection in
//! log-structured arrays and file systems" (IBM RJ 10120, 1998), as simulated in L. Stockmeyer,
//! "Simulations of the Age-Threshold and Fitness Free Space Collection Algorithms on a Long
//! Trace", §1 and §2.3: a sealed segment may not be collected until its age, counted in segments
//! closed from a destage stream, exceeds AT; among those that may, Selection = Greedy takes the
//! head of the lowest-utilization non-empty bucket ([`super::index::aged_buckets`]). AT is given, or as
//! the normalized age threshold NAT = AT / segments, or by the heuristic NAT = 0.5·(1 − ASU)
//! (Menon & Stockmeyer §18, Stockmeyer §3). With `buckets=exact` and AT = 0 this is exact greedy
//! with Fifo (or, with `sort=tree`, oldest-first) ties.

use super::index::aged_buckets::{aged_hooks, AgedBuckets};
use super::index::aged_buckets::{lsa_params, BucketOrder, LsaSelection, Threshold};
use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::store::Store;

/// Age-threshold selection.
#[derive(Clone, Debug)]
pub struct AgeThreshold {
    index: AgedBuckets,
}

impl AgeThreshold {
    /// Over the given candidate index.
    pub fn new(index: AgedBuckets) -> Self {
        AgeThreshold { index }
    }
}

impl VictimPolicy for AgeThreshold {
    aged_hooks!();

    fn select(&mut self, store: &Store, _clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        let seg = self.index.lowest_head(store)?;
        self.index.take(seg);
        Some(seg)
    }
}

const PARAMS: [Param; 7] = lsa_params("unset: nat decides", "heuristic", "fifo");

impl Declare for AgeThreshold {
    type Params = LsaSelection;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "age-threshold",
        aliases: &[],
        summary: "Greedy among the segments older than the age threshold AT.",
        source: "Menon & Stockmeyer 1998; Stockmeyer §1, §2.3",
        params: &PARAMS,
        needs: &[Need::DestageNumbers],
    };
    fn parse(args: &Args<'_>) -> Result<LsaSelection> {
        LsaSelection::parse(args, Threshold::Heuristic, BucketOrder::Fifo)
    }
    fn show(b: &LsaSelection, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "age-threshold:{b}")
    }
    fn build(b: &LsaSelection, g: &Geometry) -> Self {
        AgeThreshold::new(AgedBuckets::of(b, g))
    }
}
