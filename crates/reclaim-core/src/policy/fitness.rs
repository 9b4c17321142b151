//! The fitness algorithm: the segment of largest fitness A·(1 − u)²/u.
//!
//! H. E. Butterworth (IBM Hursley, 1999), as simulated in L. Stockmeyer, "Simulations of the
//! Age-Threshold and Fitness Free Space Collection Algorithms on a Long Trace", §1 eq. (1) and
//! §2.3: A is the segment's age (the destage sequence counter now less its destage number), u its
//! utilization (valid pages / pages per segment). Selection = Fitness scores the head of each
//! non-empty bucket and takes the largest ([`super::index::aged_buckets`]); an empty segment (u = 0)
//! scores +∞. With `buckets=exact,sort=tree` the heads are the oldest segment of each valid
//! count, so the choice is the exact maximum over all candidates. An age threshold (Stockmeyer
//! §9's fit-age-nat.10) makes young segments wait as for [`super::age_threshold`]. Ties of equal
//! fitness go to the lower utilization.

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

/// Fitness selection.
#[derive(Clone, Debug)]
pub struct Fitness {
    index: AgedBuckets,
    heads: Vec<(usize, u32)>,
}

/// Eq. (1): fitness of a segment of age `age` with `valid` of `pps` pages valid.
#[inline]
pub fn fitness(age: u64, valid: u32, pps: u32) -> f64 {
    if valid == 0 {
        return f64::INFINITY;
    }
    let u = f64::from(valid) / f64::from(pps);
    age as f64 * (1.0 - u) * (1.0 - u) / u
}

impl Fitness {
    /// Over the given candidate index.
    pub fn new(index: AgedBuckets) -> Self {
        Fitness {
            index,
            heads: Vec::new(),
        }
    }
}

impl VictimPolicy for Fitness {
    aged_hooks!();

    fn select(&mut self, store: &Store, _clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        let mut heads = std::mem::take(&mut self.heads);
        self.index.heads(store, &mut heads);
        let now = self.index.now();
        let mut best: Option<(f64, u32)> = None;
        for &(_, seg) in &heads {
            let s = seg as usize;
            let f = fitness(
                now.saturating_sub(store.facts.dseq()[s]),
                store.valid[s],
                store.pps,
            );
            if best.is_none_or(|(bf, _)| f > bf) {
                best = Some((f, seg));
            }
        }
        self.heads = heads;
        let (_, seg) = best?;
        self.index.take(seg);
        Some(seg)
    }
}

// The brute force computes the very same expression, so the scores must be equal to the bit.

const PARAMS: [Param; 7] = lsa_params("0", "unset: at decides", "tree");

impl Declare for Fitness {
    type Params = LsaSelection;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "fitness",
        aliases: &[],
        summary: "The largest fitness A·(1 − u)²/u, optionally with an age threshold.",
        source: "Butterworth 1999; Stockmeyer §1 eq. 1, §2.3, §9",
        params: &PARAMS,
        needs: &[Need::DestageNumbers],
    };
    fn parse(args: &Args<'_>) -> Result<LsaSelection> {
        LsaSelection::parse(args, Threshold::At(0), BucketOrder::Tree)
    }
    fn show(b: &LsaSelection, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fitness:{b}")
    }
    fn build(b: &LsaSelection, g: &Geometry) -> Self {
        Fitness::new(AgedBuckets::of(b, g))
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;
    use crate::geometry::Geometry;
    use crate::policy::index::aged_buckets::{AgeRule, BucketCount, BucketOrder};
    use rand::{Rng, SeedableRng};

    /// With exact buckets in Tree order, each selection is the argmax of eq. (1) over every
    /// candidate, found by brute force (ties, which random valid counts and ages make rare, are
    /// allowed to go either way).
    #[test]
    fn exact_tree_fitness_is_the_maximum() {
        let (n, pps) = (300u32, 16u32);
        let mut store = Store::new(&Geometry {
            segments: n,
            pages_per_segment: pps,
            logical_pages: 100,
        });
        store.keep_facts(|n| n == crate::spec::Need::DestageNumbers);
        let mut rng = crate::rng::SimRng::seed_from_u64(11);
        let index = AgedBuckets::new(
            n,
            pps,
            BucketCount::Exact,
            BucketOrder::Tree,
            0,
            AgeRule::All,
        );
        let mut policy = Fitness::new(index);
        let mut held = Vec::new();
        for seg in 0..n {
            store.facts.dseq.values[seg as usize] = u64::from(seg);
            store.valid[seg as usize] = rng.random_range(0..=pps);
            policy.on_destage(u64::from(seg) + 1, &store);
            policy.on_seal(seg, true, &store);
            held.push(seg);
        }
        let clocks = Clocks::default();
        for step in 0..200 {
            // Some candidates lose pages between selections.
            for _ in 0..5 {
                let s = held[rng.random_range(0..held.len())] as usize;
                if store.valid[s] > 0 {
                    store.valid[s] -= 1;
                    policy.on_invalidate(s as u32, 0, &store);
                }
            }
            let now = u64::from(n);
            let best = held
                .iter()
                .map(|&s| {
                    fitness(
                        now - store.facts.dseq()[s as usize],
                        store.valid[s as usize],
                        pps,
                    )
                })
                .fold(f64::NEG_INFINITY, f64::max);
            let got = policy.select(&store, &clocks, &mut rng).unwrap();
            let f = fitness(
                now - store.facts.dseq()[got as usize],
                store.valid[got as usize],
                pps,
            );
            assert_eq!(f, best, "step {step}");
            held.retain(|&s| s != got);
        }
    }

    /// Eq. (1) by hand: A = 100, u = 5/20 = 0.25: 100 · 0.75² / 0.25 = 225.
    #[test]
    fn fitness_is_eq_1() {
        assert!((fitness(100, 5, 20) - 225.0).abs() < 1e-12);
        assert_eq!(fitness(3, 0, 20), f64::INFINITY);
        assert_eq!(fitness(100, 20, 20), 0.0);
    }
}
