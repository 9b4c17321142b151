//! d-choices cleaning: the fewest valid pages among d sealed segments drawn uniformly *with
//! replacement*.
//!
//! B. Van Houdt, "Performance of garbage collection algorithms for flash-based solid state
//! drives with hot/cold data", §2.2, eq. 3: `p_j` = (Σ_{ℓ≥j} `m_ℓ)^d` − (Σ_{ℓ>j} `m_ℓ)^d`.
//! Among drawn segments with equal counts the first drawn wins; the model depends on counts only.

use rand::Rng;

use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::store::Store;
use crate::SimRng;

/// d-choices.
#[derive(Clone, Copy, Debug)]
pub struct DChoices {
    d: u32,
}

impl DChoices {
    /// d draws per selection, d ≥ 1.
    pub fn new(d: u32) -> Self {
        DChoices { d }
    }
}

impl VictimPolicy for DChoices {
    fn select(&mut self, store: &Store, _clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        let n = store.sealed.len();
        if n == 0 {
            return None;
        }
        let mut best = store.sealed.get(rng.random_range(0..n));
        let mut best_valid = store.valid[best as usize];
        for _ in 1..self.d {
            let s = store.sealed.get(rng.random_range(0..n));
            let v = store.valid[s as usize];
            if v < best_valid {
                best = s;
                best_valid = v;
            }
        }
        Some(best)
    }
}
