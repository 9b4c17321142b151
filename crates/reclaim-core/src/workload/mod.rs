//! Workloads: streams of logical page ids to write. One file per generator.

pub mod hot_cold;
pub mod locality;
pub mod uniform;
pub mod zipf;

use crate::config::WorkloadSpec;
use crate::error::Result;
use crate::SimRng;

/// A page-id generator.
#[derive(Clone, Debug)]
pub enum Workload {
    /// See [`uniform::Uniform`].
    Uniform(uniform::Uniform),
    /// See [`hot_cold::HotCold`].
    HotCold(hot_cold::HotCold),
    /// See [`locality::Locality`].
    Locality(locality::Locality),
    /// See [`zipf::ZipfPages`].
    Zipf(zipf::ZipfPages),
}

impl Workload {
    /// The generator of `spec` over `logical_pages` pages; `rng` seeds any permutation it needs.
    pub fn new(spec: &WorkloadSpec, logical_pages: u64, rng: &mut SimRng) -> Result<Self> {
        let n = logical_pages as u32;
        Ok(match spec {
            WorkloadSpec::Uniform => Workload::Uniform(uniform::Uniform::new(n)),
            WorkloadSpec::HotCold { r, f } => Workload::HotCold(hot_cold::HotCold::new(n, *r, *f)?),
            WorkloadSpec::Locality { fa, r, f } => Workload::Locality(locality::Locality::new(n, *fa, r, f)?),
            WorkloadSpec::Zipf { theta } => Workload::Zipf(zipf::ZipfPages::new(n, *theta, rng)?),
        })
    }

    /// The next page to write.
    #[inline]
    pub fn next(&mut self, rng: &mut SimRng) -> u32 {
        match self {
            Workload::Uniform(w) => w.next(rng),
            Workload::HotCold(w) => w.next(rng),
            Workload::Locality(w) => w.next(rng),
            Workload::Zipf(w) => w.next(rng),
        }
    }
}
