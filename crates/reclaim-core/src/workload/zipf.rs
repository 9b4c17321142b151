//! Zipf(θ) writes over a seeded permutation of the pages, so that popular pages are scattered
//! over the logical space (Lomet & Luo §6: θ = 0.99 ≈ 80-20, θ = 1.35 ≈ 90-10).
//!
//! `zipf-shuffle` is another name for it: SSD-iq's `zipf` pattern (Haas et al., PVLDB 2025;
//! `gabriel-haas/ssdiq`, `shared/PatternGen.hpp`, shuffled by default) draws a rank k in 1..=n
//! with probability k^−θ / Σⱼ j^−θ (`shared/RejectionInversionZipf.hpp`, Hörmann & Derflinger's
//! rejection-inversion, as Apache Commons RNG) and maps k − 1 through a uniform permutation of the
//! pages: the same law as here, where `rand_distr::Zipf` samples the same distribution by another
//! exact rejection method. SSD-iq's `--zipf` is this θ.

use rand::seq::SliceRandom;
use rand_distr::{Distribution, Zipf};

use super::WorkloadSpec;
use super::{Rate, Write, NO_CLASS};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{Entry, Family, Info, Param};

/// Zipf generator.
#[derive(Clone, Debug)]
pub struct ZipfPages {
    dist: Zipf<f64>,
    perm: Vec<u32>,
    theta: f64,
    /// With rates kept ([`Self::keep_rates`]): each page's rank, the rate of each rank (index
    /// rank − 1; a table read in place of a powf and a log2 per write), and the normalizing sum
    /// H = Σₖ k^−θ over the n ranks; empty and 0 otherwise.
    rank_of: Vec<u32>,
    rate_at: Vec<Rate>,
    harmonic: f64,
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
        Ok(ZipfPages {
            dist,
            perm,
            theta,
            rank_of: Vec::new(),
            rate_at: Vec::new(),
            harmonic: 0.0,
        })
    }

    /// Makes writes carry their page's rate (6 bytes per page: its rank, and its rank's rate).
    pub fn keep_rates(&mut self) {
        let n = self.perm.len();
        self.rank_of = vec![0; n];
        for (i, &page) in self.perm.iter().enumerate() {
            self.rank_of[page as usize] = i as u32 + 1;
        }
        // Smallest terms first, for accuracy.
        self.harmonic = (1..=n).rev().map(|k| (k as f64).powf(-self.theta)).sum();
        self.rate_at = (1..=n).map(|k| self.rate_of_rank(k)).collect();
    }

    /// The probability per write of the page of `rank` (1-based): rank^−θ / H.
    #[inline]
    fn rate_of_rank(&self, rank: usize) -> Rate {
        Rate::from_probability((rank as f64).powf(-self.theta) / self.harmonic)
    }

    /// Its pages by rank, the most written first: the page at index i is written with
    /// probability (i + 1)^−θ / Σₖ k^−θ.
    pub fn rate_rank(&self) -> super::RateRank<'_> {
        super::RateRank {
            pages: &self.perm,
            theta: self.theta,
        }
    }

    /// The rate of `page` (unknown unless rates are kept).
    pub fn rate_of(&self, page: u32) -> Rate {
        match self.rank_of.get(page as usize) {
            Some(&rank) => self.rate_at[rank as usize - 1],
            None => Rate::UNKNOWN,
        }
    }

    /// The next page.
    #[inline]
    pub fn next(&self, rng: &mut SimRng) -> u32 {
        let rank = self.dist.sample(rng) as usize; // 1 ..= n
        self.perm[rank - 1]
    }

    /// The next write, with its rate when rates are kept.
    #[inline]
    pub fn next_write(&self, rng: &mut SimRng) -> Write {
        let rank = self.dist.sample(rng) as usize; // 1 ..= n
        let rate = match self.rate_at.get(rank - 1) {
            Some(&rate) => rate,
            None => Rate::UNKNOWN,
        };
        Write {
            page: self.perm[rank - 1],
            class: NO_CLASS,
            rate,
        }
    }
}

/// `zipf:theta=T`.
pub const ENTRY: Entry<WorkloadSpec> = Entry {
    info: Info {
        family: Family::Workload,
        name: "zipf",
        // SSD-iq's `zipf` pattern (its default, shuffled) draws the same law: see
        // `docs/schemes-after-sepbit.md`, "Workloads and trace formats".
        aliases: &["zipf-shuffle"],
        summary: "Zipf(θ) over a seeded permutation of the pages (0.99 ≈ 80-20, 1.35 ≈ 90-10).",
        source: "Lomet & Luo §6",
        params: &[Param {
            key: "theta",
            values: "T",
            unit: "",
            range: "a number > 0",
            default: None,
            help: "Skew θ.",
        }],
        needs: &[],
    },
    parse: |a| {
        Ok(WorkloadSpec::Zipf {
            theta: a.num("theta", None, "a number > 0")?,
        })
    },
};
