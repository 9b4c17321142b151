//! Random cleaning: a sealed segment drawn uniformly.
//!
//! Van Houdt [20] (class C, d-choices with d = 1); Li et al. §3.1 (GRA with d = N, "RANDOM").

use rand::Rng;

use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::store::Store;
use crate::SimRng;

/// Uniform over sealed segments.
#[derive(Clone, Copy, Debug)]
pub struct RandomPolicy;

impl VictimPolicy for RandomPolicy {
    fn select(&mut self, store: &Store, _clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        let n = store.sealed.len();
        (n > 0).then(|| store.sealed.get(rng.random_range(0..n)))
    }
}
