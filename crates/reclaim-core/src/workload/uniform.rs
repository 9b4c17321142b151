//! Uniform random writes: every logical page with probability 1/(logical pages)
//! (Van Houdt §2.1; Lomet & Luo §3).

use rand::Rng;

use super::Rate;
use super::WorkloadSpec;
use crate::rng::SimRng;
use crate::spec::{Entry, Family, Info};

/// Uniform over `[0, n)`.
#[derive(Clone, Copy, Debug)]
pub struct Uniform {
    n: u32,
    /// 1/n, each write's rate.
    rate: Rate,
}

impl Uniform {
    /// Uniform over `n` pages.
    pub fn new(n: u32) -> Self {
        Uniform {
            n,
            rate: Rate::from_probability(1.0 / f64::from(n)),
        }
    }

    /// A page's probability per write, 1/n.
    #[inline]
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// The next page.
    #[inline]
    pub fn next(&self, rng: &mut SimRng) -> u32 {
        rng.random_range(0..self.n)
    }
}

/// `uniform`.
pub const ENTRY: Entry<WorkloadSpec> = Entry {
    info: Info {
        family: Family::Workload,
        name: "uniform",
        aliases: &[],
        summary: "Every logical page equally likely.",
        source: "Van Houdt §2.1; Li et al. §2.2",
        params: &[],
        needs: &[],
    },
    parse: |_| Ok(WorkloadSpec::Uniform),
};
