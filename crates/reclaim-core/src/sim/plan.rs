//! The run plan: its phases (fill, warm-up, trace prefix, measurement), stepping through them in
//! budgets of writes, and the workload's writes drawn ahead.

use std::time::Instant;

use super::{Plan, Simulator};
use crate::config::FreqSource;
use crate::config::{Amount, SimConfig};
use crate::error::Result;
use crate::geometry::Geometry;
use crate::limits;
use crate::metrics::SimResult;
use crate::store::prefetch;
use crate::workload::{Rate, Write};

/// Writes drawn ahead of the user writes (see `workload_writes`).
pub(super) const AHEAD: usize = 8;

/// `ahead_at` before the first workload write.
pub(super) const NOT_DRAWN: usize = usize::MAX;

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

impl Phase {
    /// The first phase of a run: the fill, else the first phase with writes to do.
    pub(super) fn first(fill: bool, warmup: u64, prefix: u64, measured: u64) -> Self {
        if fill {
            Phase::Fill(0)
        } else if warmup > 0 {
            Phase::Warmup(warmup)
        } else if prefix > 0 {
            Phase::Prefix(prefix)
        } else {
            Phase::Measure(measured)
        }
    }
}

impl Plan {
    /// The plan of a run on `geometry` (a trace's page writes, `trace_writes`), its lengths
    /// checked against the counters' range.
    pub(super) fn of(
        config: &SimConfig,
        geometry: &Geometry,
        trace_writes: Option<u64>,
    ) -> Result<Self> {
        let logical = geometry.logical_pages;
        // A trace prefix replayed as warm-up is taken out of the measured writes.
        let prefix =
            trace_writes.map_or(0, |n| (config.warmup.trace_share * n as f64).round() as u64);
        let measured_writes = config
            .measured_writes(logical, trace_writes)?
            .saturating_sub(prefix);
        let warmup = (config.warmup.multiple * logical as f64).round();
        let fill = if config.warmup.fill {
            logical as f64
        } else {
            0.0
        };
        let measured = match config.writes {
            Some(Amount::Multiple(k)) => k * logical as f64,
            _ => measured_writes as f64,
        };
        limits::check_writes(geometry, warmup + fill + prefix as f64, measured)?;
        let warmup_writes = warmup as u64;
        // Default window: one pass of a trace, else the logical capacity.
        let window = config.window.or(trace_writes).unwrap_or(logical).max(1);
        Ok(Plan {
            phase: Phase::first(config.warmup.fill, warmup_writes, prefix, measured_writes),
            warmup_writes,
            prefix_writes: prefix,
            measured_writes,
            window,
            window_left: window,
            seconds: 0.0,
            issued: 0,
        })
    }
}

impl Simulator {
    /// Runs to the end and returns the result.
    pub fn run(mut self) -> Result<SimResult> {
        while self.step(u64::MAX)? {}
        Ok(self.result())
    }

    /// Performs up to `budget` workload writes; returns whether writes remain.
    pub fn step(&mut self, mut budget: u64) -> Result<bool> {
        while budget > 0 {
            match self.plan.phase {
                Phase::Fill(next) => {
                    let n = budget.min(self.geometry.logical_pages - next);
                    // The fill places the data (Stockmeyer §2.3: "all tracks are placed into
                    // segments in sequential order"); it does not pass the write cache.
                    for page in next..next + n {
                        let page = page as u32;
                        self.store_write(Write {
                            page,
                            class: self.source.workload.class_of(page),
                            rate: if self.freq == FreqSource::Exact {
                                self.source.workload.rate_of(page)
                            } else {
                                Rate::UNKNOWN
                            },
                        })?;
                    }
                    self.plan.issued += n;
                    budget -= n;
                    let next = next + n;
                    if next == self.geometry.logical_pages {
                        self.plan.phase = Phase::Warmup(self.plan.warmup_writes);
                    } else {
                        self.plan.phase = Phase::Fill(next);
                    }
                }
                Phase::Warmup(left) => {
                    if left == 0 {
                        self.plan.phase = Phase::Prefix(self.plan.prefix_writes);
                        continue;
                    }
                    let n = budget.min(left);
                    if let Some(mut w) = self.source.warm_workload.take() {
                        let r = (0..n).try_for_each(|_| {
                            let page = w.next(&mut self.rng).page;
                            let class = self.source.workload.class_of(page);
                            if self
                                .source
                                .warm_skips
                                .get(usize::from(class))
                                .copied()
                                .unwrap_or(false)
                            {
                                return Ok(());
                            }
                            self.user_write(Write::new(page, class))
                        });
                        self.source.warm_workload = Some(w);
                        r?;
                    } else {
                        self.workload_writes(n)?;
                    }
                    self.plan.issued += n;
                    budget -= n;
                    self.plan.phase = Phase::Warmup(left - n);
                }
                Phase::Prefix(left) => {
                    if left == 0 {
                        self.plan.phase = Phase::Measure(self.plan.measured_writes);
                        self.metrics
                            .start(&self.store.erase_count, self.plan.window);
                        continue;
                    }
                    let n = budget.min(left);
                    self.workload_writes(n)?;
                    self.plan.issued += n;
                    budget -= n;
                    self.plan.phase = Phase::Prefix(left - n);
                }
                Phase::Measure(left) => {
                    if left == 0 {
                        if self.plan.window_left < self.plan.window {
                            self.metrics.close_window();
                        }
                        self.plan.phase = Phase::Done;
                        continue;
                    }
                    let n = budget.min(left).min(self.plan.window_left);
                    let t = Instant::now();
                    self.workload_writes(n)?;
                    self.plan.seconds += t.elapsed().as_secs_f64();
                    self.plan.issued += n;
                    budget -= n;
                    self.plan.window_left -= n;
                    if self.plan.window_left == 0 {
                        self.metrics.close_window();
                        self.plan.window_left = self.plan.window;
                    }
                    self.plan.phase = Phase::Measure(left - n);
                }
                Phase::Done => return Ok(false),
            }
        }
        Ok(self.plan.phase != Phase::Done)
    }

    /// The result of the measured phase so far.
    pub fn result(&self) -> SimResult {
        let mean_size = self
            .config
            .sizes
            .as_ref()
            .map_or(1.0, crate::config::SizeSpec::mean);
        self.metrics.result(
            &self.store.erase_count,
            &self.geometry,
            mean_size,
            self.plan.seconds,
            &self.config,
        )
    }

    pub(super) fn workload_writes(&mut self, n: u64) -> Result<()> {
        if self.cache.is_some() {
            return self.workload_writes_cached(n);
        }
        // Writes are drawn a few ahead and their pages' page-map entries prefetched: the
        // page-map lookup is the hot loop's main cache miss.
        if self.source.ahead_at == NOT_DRAWN {
            for k in 0..AHEAD {
                let w = self.source.workload.next(&mut self.source.workload_rng);
                prefetch(&self.store.page_map[w.page as usize]);
                self.source.ahead[k] = w;
            }
            self.source.ahead_at = 0;
        }
        for _ in 0..n {
            // The oldest write is taken and the next drawn into its place, the newest.
            let i = self.source.ahead_at;
            let w = self.source.ahead[i];
            let next = self.source.workload.next(&mut self.source.workload_rng);
            prefetch(&self.store.page_map[next.page as usize]);
            self.source.ahead[i] = next;
            self.source.ahead_at = (i + 1) % AHEAD;
            // Second stage: a page whose page-map entry has arrived by now.
            self.prefetch_old_copy(self.source.ahead[(i + AHEAD / 2) % AHEAD].page, false);
            // Third stage: the policy's entries found through what the second brought.
            self.prefetch_index_entry(self.source.ahead[(i + AHEAD / 4) % AHEAD].page);
            self.user_write(w)?;
        }
        Ok(())
    }

    /// [`Self::workload_writes`] through a write cache. The pages that reach the store are the
    /// cache's least recently used, which its misses evict in that order; their page-map
    /// entries are prefetched one and two evictions ahead (a write through a cache, hits and
    /// then a destage with its cleaning, takes longer than the few writes of lead the plain
    /// loop needs), then their old copies' entries as in the plain loop, with the destage
    /// number where the placement reads ages.
    pub(super) fn workload_writes_cached(&mut self, n: u64) -> Result<()> {
        let ages = !self.store.dseq.is_empty();
        for _ in 0..n {
            let w = self.source.workload.next(&mut self.source.workload_rng);
            let (near, far) = self
                .cache
                .as_ref()
                .expect("called with a cache")
                .lru_pages(1, 2);
            if let Some(page) = far {
                prefetch(&self.store.page_map[page as usize]);
            }
            if let Some(page) = near {
                self.prefetch_old_copy(page, ages);
            }
            self.user_write(w)?;
        }
        Ok(())
    }
}
