//! Random cleaning: a sealed segment drawn uniformly.
//!
//! Van Houdt [20] (class C, d-choices with d = 1); Li et al. §3.1 (GRA with d = N, "RANDOM").

use rand::Rng;

use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need};
use crate::store::Store;

/// Uniform over sealed segments.
#[derive(Clone, Copy, Debug)]
pub struct RandomPolicy;

impl VictimPolicy for RandomPolicy {
    fn select(&mut self, store: &Store, _clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        let n = store.sealed.len();
        (n > 0).then(|| store.sealed.get(rng.random_range(0..n)))
    }
}

impl Declare for RandomPolicy {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Policy,
        name: "random",
        aliases: &[],
        summary: "A sealed segment drawn uniformly.",
        source: "Van Houdt (d-choices with d = 1); Li et al. §3.1 (GRA with d = N)",
        params: &[],
        needs: &[Need::SealedSet],
    };
    const DRAWS_AT_RANDOM: bool = true;
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show((): &(), f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("random")
    }
    fn build((): &(), _g: &Geometry) -> Self {
        RandomPolicy
    }
}
