//! Random greedy: the fewest valid pages among a random sample of the candidates.
//!
//! The selection SepBIT's artifact (Wang et al., FAST '22) ships as `RandomGreedy`
//! (`trace_replay/.../selection/RandomGreedy.java`): of the n candidates (sealed segments with at
//! least one invalid page, and under `log` at least the garbage-proportion threshold), draw
//! k = max(⌈share·n⌉, 2) without replacement (share = 20%, the artifact's `RANDOM_PERCENTAGE`;
//! all of them when k ≥ n) and take the one with the fewest valid pages.
//!
//! Drawn exactly, without drawing the sample: the best rank R (0-based, in increasing valid
//! count) among k of n drawn without replacement has P(R ≥ r) = C(n − r, k)/C(n, k), a product
//! of r factors (n − k − j)/(n − j), which a uniform draw inverts in about n/k steps; the victim
//! is then a segment of the bucket that rank falls in, uniformly among its members. The artifact
//! takes, among the sampled members of that bucket, the first in its list's (Java `HashMap`)
//! order, an order unrelated to the data: uniform here, as reclaim breaks greedy's ties.

use std::fmt;

use rand::Rng;

use super::index::buckets::{bucket_hooks, ValidBuckets};
use super::{Declare, VictimPolicy};
use crate::clocks::Clocks;
use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Param};
use crate::store::Store;

/// Random greedy.
#[derive(Clone, Debug)]
pub struct RandomGreedy {
    buckets: ValidBuckets,
    share: f64,
    pps: u32,
}

impl RandomGreedy {
    /// Candidates with at most `most` valid pages (fewer than a segment's, and no more than the
    /// store's bound).
    fn candidates(&self, most: u32) -> usize {
        (0..=most as usize).map(|v| self.buckets.bucket_len(v)).sum()
    }

    /// The best rank among `k` of `n` drawn without replacement, for a uniform `u` in [0, 1).
    fn best_rank(n: usize, k: usize, u: f64) -> usize {
        let mut beyond = 1.0;
        for r in 0..n {
            // P(R ≥ r + 1) = P(R ≥ r)·(n − k − r)/(n − r).
            beyond *= (n - k).saturating_sub(r) as f64 / (n - r) as f64;
            if beyond <= u {
                return r;
            }
        }
        n - 1
    }
}

impl VictimPolicy for RandomGreedy {
    bucket_hooks!();

    fn select(&mut self, store: &Store, _clocks: &Clocks, rng: &mut SimRng) -> Option<u32> {
        let most = (self.pps - 1).min(store.victim_valid_bound);
        let n = self.candidates(most);
        if n == 0 {
            return None;
        }
        // As the artifact computes it: max(ceil(0.01 · 20 · n), 2).
        let k = ((self.share * n as f64).ceil() as usize).max(2);
        let rank = if k >= n {
            0
        } else {
            Self::best_rank(n, k, rng.random::<f64>())
        };
        self.buckets.pop_rank(rank, rng)
    }
}

impl Declare for RandomGreedy {
    type Params = f64;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "random-greedy",
        aliases: &[],
        summary: "The fewest valid pages among a random sample of the candidates (a share of them, at least 2).",
        source: "SepBIT artifact's RandomGreedy.java (Wang et al., FAST '22)",
        params: &[Param {
            key: "share",
            values: "S",
            unit: "",
            range: "a number in (0, 1]",
            default: Some("0.2"),
            help: "The share of the candidates sampled (at least 2 of them).",
        }],
        needs: &[],
    };
    const DRAWS_AT_RANDOM: bool = true;
    fn parse(args: &Args<'_>) -> Result<f64> {
        let share: f64 = args.num("share", Some(0.2), "a number in (0, 1]")?;
        if !(share > 0.0 && share <= 1.0) {
            return Err(Error::param("policy.share", share, "a number in (0, 1]"));
        }
        Ok(share)
    }
    fn show(share: &f64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "random-greedy:share={share}")
    }
    fn build(share: &f64, g: &Geometry) -> Self {
        RandomGreedy {
            buckets: ValidBuckets::new(g.segments, g.pages_per_segment),
            share: *share,
            pps: g.pages_per_segment,
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// The best rank's distribution against its closed form C(n − r − 1, k − 1)/C(n, k), for
    /// n = 10, k = 3: 200,000 draws, each probability within 0.005.
    #[test]
    fn the_best_rank_of_a_sample_without_replacement() {
        let (n, k) = (10usize, 3usize);
        let choose = |a: usize, b: usize| -> f64 {
            if b > a {
                return 0.0;
            }
            (0..b).map(|i| (a - i) as f64 / (b - i) as f64).product()
        };
        let mut rng = SimRng::seed_from_u64(7);
        let mut seen = [0u32; 10];
        let draws = 200_000;
        for _ in 0..draws {
            seen[RandomGreedy::best_rank(n, k, rng.random::<f64>())] += 1;
        }
        for (r, &s) in seen.iter().enumerate() {
            let p = choose(n - r - 1, k - 1) / choose(n, k);
            let got = f64::from(s) / f64::from(draws);
            assert!((got - p).abs() < 0.005, "rank {r}: {got} against {p}");
        }
    }

    /// Against the artifact's own procedure (sample k of the candidates, keep the fewest valid
    /// pages) on buckets of 3, 2 and 5 segments with 1, 2 and 4 valid pages (and 4 full ones,
    /// not candidates): the victim's valid count has the same distribution (200,000 draws each,
    /// within 0.005).
    #[test]
    fn the_same_victims_as_sampling_the_candidates() {
        let counts = [(1u32, 3), (2, 2), (4, 5), (8, 4)];
        let mut ours = [0u32; 9];
        let mut theirs = [0u32; 9];
        let mut rng = SimRng::seed_from_u64(9);
        let store = Store::new(&Geometry {
            segments: 14,
            pages_per_segment: 8,
            logical_pages: 8,
        });
        let all: Vec<u32> = counts
            .iter()
            .flat_map(|&(v, m)| std::iter::repeat_n(v, m))
            .collect();
        let draws = 200_000;
        for _ in 0..draws {
            let mut p = RandomGreedy::build(
                &0.2,
                &Geometry {
                    segments: 14,
                    pages_per_segment: 8,
                    logical_pages: 8,
                },
            );
            for (seg, &v) in all.iter().enumerate() {
                p.buckets.insert(seg as u32, v);
            }
            let seg = p.select(&store, &Clocks::default(), &mut rng).unwrap();
            ours[all[seg as usize] as usize] += 1;
            // The artifact: 10 candidates, k = max(⌈2⌉, 2) = 2 drawn, the fewest valid.
            let cand: Vec<u32> = all.iter().copied().filter(|&v| v < 8).collect();
            let a = rng.random_range(0..cand.len());
            let mut b = rng.random_range(0..cand.len() - 1);
            if b >= a {
                b += 1;
            }
            theirs[cand[a].min(cand[b]) as usize] += 1;
        }
        for v in 0..9 {
            let (o, t) = (f64::from(ours[v]), f64::from(theirs[v]));
            assert!(
                (o - t).abs() / f64::from(draws) < 0.005,
                "{v} valid: {o} against {t}"
            );
        }
        assert_eq!(ours[8], 0);
    }
}
