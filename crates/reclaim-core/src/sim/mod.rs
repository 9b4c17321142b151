//! The run loop: user writes, streams, the cleaner. Placement decisions live in `placement/`.
//!
//! A user write passes the write cache, if any (a hit absorbs it; a miss may evict another page,
//! whose write is the one the store sees), then is appended to the stream its placement names,
//! and then its old copy is invalidated (Van Houdt §2.3: "first writes the new content … and
//! afterwards invalidates"). When a stream's segment is full it is sealed and a new one opened at
//! once, which is when the cleaner may run (the trigger, `--gc`).
//!
//! A cleaning cycle works on one region: it chooses victims one at a time with the region's
//! victim policy, erasing each into the free pool as it is chosen and gathering its live pages
//! with their origin; then the gathered pages may be sorted by a key, the placement may arrange
//! them, and each is routed through the placement to a stream. Erasing before rewriting is Van
//! Houdt's "copies all the valid pages … to the RAM, erases the block and copies the valid pages
//! back", and means relocation into one GC stream can never run short of segments; with several
//! GC streams in a region one free segment per GC stream beyond the first is kept in reserve.

use crate::cache::Cache;
use crate::clocks::Clocks;
use crate::config::{FreqSource, SimConfig};
use crate::geometry::Geometry;
use crate::placement::Placement;
use crate::rng::SimRng;
use crate::store::Store;
use crate::workload::{Workload, Write};

mod admission;
mod cleaning;
mod core;
mod device;
mod log;
mod ownership;
mod plan;
mod prefetch;
mod setup;
#[cfg(test)]
mod tests;
mod timed;
mod trim;

pub use admission::{Admission, Way};
use cleaning::Cleaning;
use device::Device;
use ownership::Ownership;
pub use plan::Phase;
use plan::AHEAD;
pub use setup::{class_shares, region_quotas};

/// A simulation in progress: its configuration, the engine that writes and cleans, where the
/// writes come from and where the run is.
pub struct Simulator {
    config: SimConfig,
    /// The write path and the cleaner (and the geometry).
    engine: Engine,
    /// Where the user writes come from.
    source: Source,
    /// Where the run is and how far it goes.
    plan: Plan,
    /// With a device, the clock and its tallies.
    timed: Option<Box<timed::Timed>>,
}

/// The write path and the cleaner: what a user write and a cleaning cycle need (`core`,
/// `admission`), without the run's plan or its source of writes.
struct Engine {
    geometry: Geometry,
    /// The segments, the streams filling them and what keeps them.
    dev: Device,
    /// How written pages get their slots, and the pages that wait.
    admission: Admission,
    /// Who hears of a user write.
    user_writes: UserWrites,
    /// Where update frequencies come from, where u_p2 is kept.
    freq: FreqSource,
    cache: Option<Cache>,
    rng: SimRng,
    /// The cleaner's trigger, its batch and its progress check.
    cleaning: Cleaning,
}

/// Who hears of a user write beyond the store's page map.
#[derive(Clone, Copy, Debug)]
struct UserWrites {
    /// Whether anything does: a ledger ([`crate::ledger::Ledger::user_write`]), the u_p2 of the
    /// stream it goes to, or the policy (`note_user_write`).
    on: bool,
    /// Whether the victim policy hears of user writes (it keeps per-page state,
    /// `Need::PageState`; one region).
    policy: bool,
}

/// Where the user writes come from.
struct Source {
    workload: Workload,
    /// The workload's own generator, so that drawing writes ahead does not reorder the draws of
    /// the cleaner (which uses the run's).
    workload_rng: SimRng,
    /// Writes drawn ahead of the user writes: a ring whose oldest is at `ahead_at`.
    ahead: [Write; AHEAD],
    /// Index of the oldest write drawn ahead; `NOT_DRAWN` before the first workload write.
    ahead_at: usize,
    /// The warm-up's generator when it differs from the workload (uniform, for traces).
    warm_workload: Option<Workload>,
    /// Per class, whether the trace's uniform warm-up leaves its pages alone: under `regions`,
    /// the classes the trace never writes (Li et al. §4: region n + 1 "never gets accessed").
    warm_skips: Vec<bool>,
    /// A trace's discards, at their places among its writes (`trim`).
    trims: Option<trim::TrimSchedule>,
    /// The trace's clock, ticked once per trace write consumed (where a scheme reads times).
    clock: Option<crate::workload::trace::TraceClock>,
}

/// Where the run is and how far it goes.
struct Plan {
    phase: Phase,
    warmup_writes: u64,
    /// Trace writes replayed unmeasured after the uniform warm-up.
    prefix_writes: u64,
    measured_writes: u64,
    window: u64,
    window_left: u64,
    seconds: f64,
    /// Workload writes issued (fill included): the run's progress.
    issued: u64,
    /// Measured writes added to the plan as passes of `precondition` (the progress's total).
    extended: u64,
    /// Writes of the fill and the uniform warm-up (synthetic, before any trace write).
    synthetic: u64,
    /// `precondition`'s passes and their steady-state test.
    settle: Option<plan::Settle>,
    /// What the trace and its method are (for the result).
    method: Option<crate::metrics::MethodReport>,
    /// Where the method is likely to mislead on this trace, said once each.
    warnings: Vec<String>,
    /// Measured phases begun (each `precondition` pass begins one).
    measure_starts: u32,
    /// The interval that ends the measured phase early (`precision`).
    precision: Option<crate::interval::Precision>,
}

impl Simulator {
    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.engine.geometry
    }

    /// The store, for inspection.
    pub fn store(&self) -> &Store {
        &self.engine.dev.store
    }

    /// Keeps the fact named `name` ([`crate::ledger::FACTS`]) beside those the run's schemes
    /// declare, for a reader outside the registry (a scheme written in Python). Called before
    /// the first write, which it must see.
    ///
    /// # Errors
    /// An unknown name, or a call after the first write.
    pub fn keep_fact(&mut self, name: &str) -> crate::Result<()> {
        let names = || {
            let names: Vec<&str> = crate::ledger::FACTS.iter().map(|f| f.name).collect();
            names.join(", ")
        };
        if self.engine.dev.clocks.user_writes > 0 || self.plan.issued > 0 {
            return Err(crate::Error::param(
                "fact",
                name,
                "a fact kept before the first write",
            ));
        }
        let g = self.engine.geometry;
        if !self.engine.dev.store.facts.keep(&g, name) {
            return Err(crate::Error::param("fact", name, names()));
        }
        self.engine.user_writes.on |= self.engine.dev.store.facts.hear_user_writes();
        Ok(())
    }

    /// How written pages get their slots, and the pages that wait, for inspection.
    pub fn admission(&self) -> &Admission {
        &self.engine.admission
    }

    /// The placement (streams and regions), for inspection.
    pub fn placement(&self) -> &Placement {
        &self.engine.dev.placement
    }

    /// The clocks.
    pub fn clocks(&self) -> Clocks {
        self.engine.dev.clocks
    }

    /// Checks the engine's invariants: the store's ([`Store::check`]), that the streams hold
    /// exactly the open segments, that every page waiting for slots maps to its place, and
    /// that with regions each owns exactly its segments, within quota. The property tests call
    /// it after every step.
    pub fn check(&self) -> std::result::Result<(), String> {
        self.engine.dev.check()?;
        self.engine.admission.check(&self.engine.dev.store)
    }

    /// The write cache, if any.
    pub fn cache(&self) -> Option<&Cache> {
        self.engine.cache.as_ref()
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.plan.phase
    }

    /// The warnings known so far: those of the method on this trace are known before the first
    /// write, so that a caller can show them before a long run (`Plan::of`).
    pub fn warnings(&self) -> &[String] {
        self.plan.warnings()
    }

    /// Workload writes done and to do over the whole run (fill, warm-up and measured phase).
    pub fn progress(&self) -> (u64, u64) {
        let fill = u64::from(self.config.warmup().fill) * self.engine.geometry.logical_pages;
        self.plan.progress(fill)
    }
}
