//! Zipf(θ) writes over a seeded permutation of the pages, so that popular pages are scattered
//! over the logical space (Lomet & Luo §6: θ = 0.99 ≈ 80-20, θ = 1.35 ≈ 90-10).

use rand::seq::SliceRandom;
use rand_distr::{Distribution, Zipf};

use crate::error::{Error, Result};
use crate::SimRng;

/// Zipf generator.
#[derive(Clone, Debug)]
pub struct ZipfPages {
    dist: Zipf<f64>,
    perm: Vec<u32>,
}

impl ZipfPages {
    /// Zipf(θ) over `n` pages, the rank-to-page permutation drawn from `rng`.
    pub fn new(n: u32, theta: f64, rng: &mut SimRng) -> Result<Self> {
        let dist = Zipf::new(f64::from(n), theta).map_err(|e| {
            Error::param(
                "workload.theta",
                theta,
                format!("a valid Zipf exponent ({e})"),
            )
        })?;
        let mut perm: Vec<u32> = (0..n).collect();
        perm.shuffle(rng);
        Ok(ZipfPages { dist, perm })
    }

    /// The next page.
    #[inline]
    pub fn next(&self, rng: &mut SimRng) -> u32 {
        let rank = self.dist.sample(rng) as usize; // 1 ..= n
        self.perm[rank - 1]
    }
}
