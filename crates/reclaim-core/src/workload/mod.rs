//! Workloads: streams of logical page ids to write. One file per generator.

pub mod hot_cold;
pub mod locality;
pub mod trace;
pub mod uniform;
pub mod zipf;

use std::sync::Arc;

use crate::config::WorkloadSpec;
use crate::error::{Error, Result};
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
    /// See [`trace::Replay`].
    Trace(trace::Replay),
}

impl Workload {
    /// The generator of `spec` over `logical_pages` pages; `rng` seeds any permutation it needs;
    /// `trace` holds the page writes of a trace workload.
    pub fn new(spec: &WorkloadSpec, logical_pages: u64, rng: &mut SimRng, trace: Option<Arc<Vec<u32>>>) -> Result<Self> {
        let n = logical_pages as u32;
        Ok(match spec {
            WorkloadSpec::Trace { path } => Workload::Trace(trace::Replay::new(trace.ok_or_else(|| {
                Error::param("workload", format!("`trace:{path}`"), "a trace loaded before the workload is built")
            })?)),
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
            Workload::Trace(w) => w.next_page(),
        }
    }
}
