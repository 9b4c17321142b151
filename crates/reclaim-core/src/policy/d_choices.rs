//! d-choices cleaning: the fewest valid pages among d sealed segments drawn uniformly *with
//! replacement*.
//!
//! B. Van Houdt, "Performance of garbage collection algorithms for flash-based solid state
//! drives with hot/cold data", §2.2, eq. 3: `p_j` = (Σ_{ℓ≥j} `m_ℓ)^d` − (Σ_{ℓ>j} `m_ℓ)^d`.
//! Among drawn segments with equal counts the first drawn wins; the model depends on counts only.
//!
//! `greedy-k:k=K` is the same policy: SSD-iq's k-greedy (Haas et al., PVLDB 18(11) 2025,
//! `gabriel-haas/ssdiq`, `sim/Greedy.hpp`, `performGC` with k > 0, named `greedy-kK` in
//! `sim/sim.cpp`) draws k blocks uniformly with replacement (`rndBlockDist` over every block)
//! and keeps the first of the fewest valid pages (a strict `<`). It draws over all blocks, but
//! it cleans only when no block is free and the one being written is full, so every block is
//! then sealed: under the `frontier` trigger the draws are the same.

use rand::Rng;

use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::store::Store;

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

impl Declare for DChoices {
    type Params = u32;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "d-choices",
        aliases: &["greedy-k"],
        summary: "The fewest valid pages among d sealed segments drawn uniformly with replacement; `greedy-k:k=K` (SSD-iq's k-greedy) is `d-choices:d=K`.",
        source: "Van Houdt §2.2, eq. 3",
        params: &[Param {
            key: "d",
            values: "D",
            unit: "segments",
            range: "a whole number in [1, segments]",
            default: None,
            help: "Segments drawn, with replacement.",
        }, Param {
            key: "k",
            values: "K",
            unit: "segments",
            range: "a whole number in [1, segments]",
            default: Some("d"),
            help: "The same as d, as SSD-iq's greedy-k names it.",
        }],
        needs: &[Need::SealedSet],
    };
    const DRAWS_AT_RANDOM: bool = true;
    fn parse(args: &Args<'_>) -> Result<u32> {
        const RANGE: &str = "a whole number ≥ 1";
        match (args.get("d"), args.get("k")) {
            (Some(_), Some(_)) => Err(args.bad("one of `d=` and `k=` (the same count), not both")),
            (None, Some(_)) => args.num("k", None, RANGE),
            _ => args.num("d", None, RANGE),
        }
    }
    fn show(d: &u32, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "d-choices:d={d}")
    }
    fn build(d: &u32, _g: &Geometry) -> Self {
        DChoices::new(*d)
    }
}
