//! The run loop: user writes, frontiers, the cleaner.
//!
//! A user write appends the page to the user frontier, then invalidates its old copy (Van Houdt
//! §2.3: "first writes the new content … and afterwards invalidates"). When a frontier is full
//! it is sealed and a new one is opened at once, which is when the cleaner may run.
//!
//! Cleaning one victim: the victim's valid pages are read into a buffer, the victim is erased
//! into the free pool, and the buffered pages are appended to the GC frontier (the user frontier
//! when there is one frontier), opening segments from the pool as it fills. Erasing before
//! rewriting is Van Houdt's "copies all the valid pages … to the RAM, erases the block and
//! copies the valid pages back"; it also means relocation can never run short of segments.
//! With the `frontier` trigger and two frontiers this reproduces his double write frontier
//! case by case: pages that fit go to the internal frontier and the erased victim becomes the
//! external one; otherwise the internal frontier is topped up, sealed, the erased victim becomes
//! the new internal frontier with the rest, and the cleaner runs again.

use std::time::Instant;

use rand::{Rng, SeedableRng};

use std::sync::Arc;

use crate::config::{CopyOrder, FrontierSpec, GcSpec, SimConfig, WorkloadSpec};
use crate::trace::convert::{self, ConvertOptions};
use crate::trace::Format;
use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::metrics::{Metrics, SimResult};
use crate::policy::{Policy, VictimPolicy};
use crate::store::{prefetch, Store, NONE};
use crate::workload::Workload;
use crate::SimRng;

/// Pages drawn ahead of the user writes (see `workload_writes`).
const AHEAD: usize = 8;

/// An open segment being filled.
#[derive(Clone, Copy, Debug)]
struct Frontier {
    seg: u32,
    next: u32,
    stamp: u64,
}

impl Frontier {
    const CLOSED: Frontier = Frontier { seg: NONE, next: 0, stamp: 0 };
}

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Sequential fill: the next page to write.
    Fill(u64),
    /// Warm-up workload writes left.
    Warmup(u64),
    /// Trace-prefix writes left (replayed, not measured).
    Prefix(u64),
    /// Measured writes left.
    Measure(u64),
    /// Finished.
    Done,
}

/// A simulation in progress.
pub struct Simulator {
    config: SimConfig,
    geometry: Geometry,
    store: Store,
    policy: Policy,
    workload: Workload,
    /// The workload's own generator, so that drawing pages ahead does not reorder the draws of
    /// the cleaner (which uses `rng`).
    workload_rng: SimRng,
    /// Pages drawn ahead of the writes, in order.
    ahead: std::collections::VecDeque<u32>,
    /// The warm-up's generator when it differs from the workload (uniform, for traces).
    warm_workload: Option<Workload>,
    rng: SimRng,
    frontiers: [Frontier; 2],
    /// Index of the GC frontier: 0 (shared with user writes) or 1.
    gc_frontier: usize,
    copy: CopyOrder,
    gc: GcSpec,
    buffer: Vec<u32>,
    /// User writes so far, warm-up included (the age clock).
    clock: u64,
    /// Victims cleaned since the last user write.
    streak: u64,
    streak_limit: u64,
    metrics: Metrics,
    phase: Phase,
    warmup_writes: u64,
    /// Trace writes replayed unmeasured after the uniform warm-up.
    prefix_writes: u64,
    measured_writes: u64,
    window: u64,
    window_left: u64,
    seconds: f64,
}

impl Simulator {
    /// A simulator for a validated configuration.
    pub fn new(config: &SimConfig) -> Result<Self> {
        config.validate()?;
        let trace = match &config.workload {
            WorkloadSpec::Trace { path } => {
                let path = std::path::Path::new(path);
                Some(convert::load(path, Some(Format::Pages), ConvertOptions::default())?)
            }
            _ => None,
        };
        let geometry = config.geometry_with(trace.as_ref().map(|t| t.meta.address_pages))?;
        let mut rng = SimRng::seed_from_u64(config.seed);
        let trace_writes = trace.as_ref().map(|t| t.pages.len() as u64);
        if trace_writes == Some(0) {
            return Err(Error::param("workload", config.workload.to_string(), "a trace with at least one page write"));
        }
        let pages = trace.map(|t| Arc::new(t.pages));
        let workload = Workload::new(&config.workload, geometry.logical_pages, &mut rng, pages.clone())?;
        // Warm-up writes follow the run's workload, except for a trace, whose warm-up is uniform
        // over the whole logical space (DESIGN "Workloads"; Li et al. §6.1, Stockmeyer §2.1).
        let warm_workload = match pages {
            Some(_) => Some(Workload::new(&WorkloadSpec::Uniform, geometry.logical_pages, &mut rng, None)?),
            None => None,
        };
        let (gc_frontier, copy) = match config.frontier {
            FrontierSpec::Single => (0, CopyOrder::Oldest),
            FrontierSpec::Double { copy } => (1, copy),
        };
        let victims = match config.gc {
            GcSpec::Batch { victims, .. } => u64::from(victims),
            _ => 1,
        };
        let logical = geometry.logical_pages;
        // A trace prefix replayed as warm-up is taken out of the measured writes.
        let prefix = trace_writes.map_or(0, |n| (config.warmup.trace_share * n as f64).round() as u64);
        let measured_writes = config.measured_writes(logical, trace_writes)?.saturating_sub(prefix);
        let warmup_writes = (config.warmup.multiple * logical as f64).round() as u64;
        // Default window: one pass of a trace, else the logical capacity.
        let window = config.window.or(trace_writes).unwrap_or(logical).max(1);
        let phase = if config.warmup.fill {
            Phase::Fill(0)
        } else if warmup_writes > 0 {
            Phase::Warmup(warmup_writes)
        } else if prefix > 0 {
            Phase::Prefix(prefix)
        } else {
            Phase::Measure(measured_writes)
        };
        let mut sim = Simulator {
            store: Store::new(&geometry),
            policy: Policy::new(&config.policy, geometry.segments, geometry.pages_per_segment),
            metrics: Metrics::new(geometry.segments, geometry.pages_per_segment),
            workload,
            workload_rng: SimRng::seed_from_u64(config.seed ^ 0x9E37_79B9_7F4A_7C15),
            ahead: std::collections::VecDeque::with_capacity(AHEAD),
            warm_workload,
            rng,
            frontiers: [Frontier::CLOSED; 2],
            gc_frontier,
            copy,
            gc: config.gc,
            buffer: Vec::with_capacity(geometry.pages_per_segment as usize),
            clock: 0,
            streak: 0,
            streak_limit: 2 * u64::from(geometry.segments) + victims,
            phase,
            warmup_writes,
            prefix_writes: prefix,
            measured_writes,
            window,
            window_left: window,
            seconds: 0.0,
            config: config.clone(),
            geometry,
        };
        if let Phase::Measure(_) = sim.phase {
            sim.metrics.start(&sim.store.erase_count, window);
        }
        Ok(sim)
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The store, for inspection.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// User writes done and to do over the whole run (fill, warm-up and measured phase).
    pub fn progress(&self) -> (u64, u64) {
        let fill = if self.config.warmup.fill { self.geometry.logical_pages } else { 0 };
        (self.clock, fill + self.warmup_writes + self.prefix_writes + self.measured_writes)
    }

    /// Runs to the end and returns the result.
    pub fn run(mut self) -> Result<SimResult> {
        while self.step(u64::MAX)? {}
        Ok(self.result())
    }

    /// Performs up to `budget` user writes; returns whether writes remain.
    pub fn step(&mut self, mut budget: u64) -> Result<bool> {
        while budget > 0 {
            match self.phase {
                Phase::Fill(next) => {
                    let n = budget.min(self.geometry.logical_pages - next);
                    for page in next..next + n {
                        self.user_write(page as u32)?;
                    }
                    budget -= n;
                    let next = next + n;
                    if next == self.geometry.logical_pages {
                        self.phase = Phase::Warmup(self.warmup_writes);
                    } else {
                        self.phase = Phase::Fill(next);
                    }
                }
                Phase::Warmup(left) => {
                    if left == 0 {
                        self.phase = Phase::Prefix(self.prefix_writes);
                        continue;
                    }
                    let n = budget.min(left);
                    if let Some(mut w) = self.warm_workload.take() {
                        let r = (0..n).try_for_each(|_| {
                            let page = w.next(&mut self.rng);
                            self.user_write(page)
                        });
                        self.warm_workload = Some(w);
                        r?;
                    } else {
                        self.workload_writes(n)?;
                    }
                    budget -= n;
                    self.phase = Phase::Warmup(left - n);
                }
                Phase::Prefix(left) => {
                    if left == 0 {
                        self.phase = Phase::Measure(self.measured_writes);
                        self.metrics.start(&self.store.erase_count, self.window);
                        continue;
                    }
                    let n = budget.min(left);
                    self.workload_writes(n)?;
                    budget -= n;
                    self.phase = Phase::Prefix(left - n);
                }
                Phase::Measure(left) => {
                    if left == 0 {
                        if self.window_left < self.window {
                            self.metrics.close_window();
                        }
                        self.phase = Phase::Done;
                        continue;
                    }
                    let n = budget.min(left).min(self.window_left);
                    let t = Instant::now();
                    self.workload_writes(n)?;
                    self.seconds += t.elapsed().as_secs_f64();
                    budget -= n;
                    self.window_left -= n;
                    if self.window_left == 0 {
                        self.metrics.close_window();
                        self.window_left = self.window;
                    }
                    self.phase = Phase::Measure(left - n);
                }
                Phase::Done => return Ok(false),
            }
        }
        Ok(self.phase != Phase::Done)
    }

    /// The result of the measured phase so far.
    pub fn result(&self) -> SimResult {
        self.metrics.result(
            &self.store.erase_count,
            self.geometry.pages_per_segment,
            self.geometry.logical_pages,
            self.seconds,
            &self.config,
        )
    }

    fn workload_writes(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            // Pages are drawn a few writes ahead and their page-map entries prefetched: the
            // page-map lookup is the hot loop's main cache miss.
            while self.ahead.len() < AHEAD {
                let p = self.workload.next(&mut self.workload_rng);
                prefetch(&self.store.page_map[p as usize]);
                self.ahead.push_back(p);
            }
            // Second stage: a page whose page-map entry has arrived by now has its old slot's
            // reverse-map entry, its segment's valid count and the policy's index entry
            // prefetched: the other misses of a user write (the invalidation).
            let slot = self.store.page_map[self.ahead[AHEAD / 2] as usize];
            if slot != NONE {
                prefetch(&self.store.reverse[slot as usize]);
                let seg = self.store.segment_of(slot);
                prefetch(&self.store.valid[seg as usize]);
                self.policy.prefetch(seg);
            }
            let page = self.ahead.pop_front().expect("filled above");
            self.user_write(page)?;
        }
        Ok(())
    }

    /// One user write of logical page `page`.
    #[inline]
    pub fn user_write(&mut self, page: u32) -> Result<()> {
        if self.frontiers[0].seg == NONE {
            self.open_user()?;
        }
        let pps = self.store.pps;
        let f = &mut self.frontiers[0];
        let slot = f.seg * pps + f.next;
        f.next += 1;
        f.stamp = self.clock;
        let full = f.next == pps;
        let old = self.store.page_map[page as usize];
        self.store.place(page, slot);
        if old != NONE {
            let (seg, sealed) = self.store.invalidate(old);
            if sealed {
                self.policy.on_invalidate(seg, &self.store);
            }
        }
        self.clock += 1;
        self.metrics.counters.user_writes += 1;
        self.streak = 0;
        if full {
            self.seal(0);
            self.open_user()?;
        }
        Ok(())
    }

    fn seal(&mut self, f: usize) {
        let fr = std::mem::replace(&mut self.frontiers[f], Frontier::CLOSED);
        self.store.seal(fr.seg, fr.stamp);
        self.policy.on_seal(fr.seg, &self.store);
    }

    /// Opens the user frontier, cleaning as the trigger demands.
    fn open_user(&mut self) -> Result<()> {
        loop {
            while self.frontiers[0].seg == NONE {
                if self.store.free.is_empty() {
                    // `frontier` trigger: a frontier needs a segment and none is free.
                    self.clean_one()?;
                } else {
                    let seg = self.store.open().expect("pool is not empty");
                    self.frontiers[0] = Frontier { seg, next: 0, stamp: 0 };
                }
            }
            match self.gc {
                GcSpec::Frontier => {}
                GcSpec::OneFree => {
                    while self.store.free.is_empty() {
                        self.clean_one()?;
                    }
                }
                GcSpec::Batch { low, victims } => {
                    if self.store.free.len() < low as usize {
                        for _ in 0..victims {
                            if self.store.sealed.is_empty() {
                                break;
                            }
                            self.clean_one()?;
                        }
                    }
                }
            }
            // Relocation into a shared frontier may have filled and sealed it.
            if self.frontiers[0].seg != NONE {
                return Ok(());
            }
        }
    }

    /// Cleans one victim.
    fn clean_one(&mut self) -> Result<()> {
        self.streak += 1;
        if self.streak > self.streak_limit {
            return Err(Error::NoProgress {
                victims: self.streak,
                logical_pages: self.geometry.logical_pages,
                segments: self.geometry.segments,
                pages_per_segment: self.geometry.pages_per_segment,
            });
        }
        for (acc, n) in self.metrics.segment_hist.iter_mut().zip(&self.store.sealed_hist) {
            *acc += n;
        }
        let victim = self.policy.select(&self.store, self.clock, &mut self.rng).ok_or(Error::NoVictim {
            free: self.store.free.len(),
            open: self.frontiers.iter().filter(|f| f.seg != NONE).count(),
        })?;
        let valid = self.store.valid[victim as usize];
        let stamp = self.store.stamp[victim as usize];
        let c = &mut self.metrics.counters;
        c.collected += 1;
        c.erases += 1;
        c.gc_writes += u64::from(valid);
        if valid == 0 {
            c.emptied += 1;
        }
        self.metrics.victim_hist[valid as usize] += 1;

        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        self.store.erase_into(victim, &mut buffer);
        let g = self.gc_frontier;
        if g == 1 && self.copy == CopyOrder::Random {
            let f = self.frontiers[g];
            let room = if f.seg == NONE { 0 } else { (self.store.pps - f.next) as usize };
            if buffer.len() > room && room > 0 {
                // Van Houdt §2.3 case 2 (RND): a uniformly random `room` of the valid pages go
                // to the internal frontier; a partial Fisher–Yates shuffle puts them first.
                for i in 0..room {
                    let j = self.rng.random_range(i..buffer.len());
                    buffer.swap(i, j);
                }
            }
        }
        // `erase_into` prefetched the page-map entries of every page in the buffer.
        for &page in &buffer {
            self.append_gc(page, stamp);
        }
        self.buffer = buffer;
        Ok(())
    }

    /// Appends a relocated page to the GC frontier.
    #[inline]
    fn append_gc(&mut self, page: u32, stamp: u64) {
        let g = self.gc_frontier;
        if self.frontiers[g].seg == NONE {
            // The victim was erased before relocation began, so the pool is never empty here.
            let seg = self.store.open().expect("the erased victim is in the pool");
            self.frontiers[g] = Frontier { seg, next: 0, stamp: 0 };
        }
        let pps = self.store.pps;
        let f = &mut self.frontiers[g];
        let slot = f.seg * pps + f.next;
        f.next += 1;
        f.stamp = f.stamp.max(stamp);
        let full = f.next == pps;
        self.store.place(page, slot);
        if full {
            self.seal(g);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Amount, PolicySpec, WarmupSpec};

    fn small(policy: &str, frontier: &str, gc: &str) -> SimConfig {
        SimConfig {
            segments: Some(64),
            pages_per_segment: 8,
            spare: Some(0.2),
            policy: policy.parse().unwrap(),
            frontier: frontier.parse().unwrap(),
            gc: gc.parse().unwrap(),
            warmup: WarmupSpec { fill: true, multiple: 2.0, trace_share: 0.0 },
            writes: Some(Amount::Multiple(5.0)),
            ..SimConfig::default()
        }
    }

    #[test]
    fn every_policy_keeps_the_invariants() {
        for policy in ["fifo", "greedy", "greedy:tie=random", "random", "d-choices:d=3", "gra:d=4", "windowed:w=8", "cost-benefit"] {
            for frontier in ["single", "double:copy=random", "double:copy=oldest"] {
                for gc in ["frontier", "one-free", "batch:low=4,victims=3"] {
                    let mut sim = Simulator::new(&small(policy, frontier, gc)).unwrap();
                    while sim.step(97).unwrap() {
                        sim.store().check().unwrap_or_else(|e| panic!("{policy} {frontier} {gc}: {e}"));
                    }
                    let r = sim.result();
                    assert!(r.wa >= 1.0, "{policy} {frontier} {gc}: wa {}", r.wa);
                    assert_eq!(r.user_writes, 5 * sim.geometry().logical_pages);
                }
            }
        }
    }

    #[test]
    fn same_seed_same_result() {
        let c = small("d-choices:d=3", "double:copy=random", "frontier");
        let a = Simulator::new(&c).unwrap().run().unwrap();
        let b = Simulator::new(&c).unwrap().run().unwrap();
        assert_eq!((a.gc_writes, a.erase_counts), (b.gc_writes, b.erase_counts));
    }

    #[test]
    fn step_sizes_do_not_change_the_result() {
        let c = small("greedy", "single", "frontier");
        let whole = Simulator::new(&c).unwrap().run().unwrap();
        let mut sim = Simulator::new(&c).unwrap();
        while sim.step(37).unwrap() {}
        let stepped = sim.result();
        assert_eq!((whole.gc_writes, whole.erase_counts), (stepped.gc_writes, stepped.erase_counts));
    }

    #[test]
    fn too_little_spare_is_an_error_not_a_hang() {
        let c = SimConfig {
            segments: Some(8),
            pages_per_segment: 4,
            logical_pages: Some(24),
            policy: PolicySpec::Fifo,
            ..SimConfig::default()
        };
        // 8 segments − 1 frontier − 1 = 6 segments of 4 pages: 24 pages fit, but FIFO must
        // then find a segment with an invalid page every time — it does, since only 24 of 28
        // slots outside the frontier are valid.
        let r = Simulator::new(&c).unwrap().run().unwrap();
        assert!(r.wa > 1.0);
        let c = SimConfig { logical_pages: Some(25), ..c };
        let e = Simulator::new(&c).err().unwrap().to_string();
        assert!(e.contains("at most 24 logical pages"), "{e}");
    }
}
