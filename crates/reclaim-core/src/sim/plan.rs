//! The run plan: its phases (fill, warm-up, trace prefix, measurement), stepping through them in
//! budgets of writes, and the workload's writes drawn ahead.

use std::time::Instant;

use super::{Plan, Simulator, Source};
use crate::config::FreqSource;
use crate::config::{Amount, SimConfig};
use crate::error::Result;
use crate::geometry::Geometry;
use crate::limits;
use crate::metrics::{Metrics, SimResult};
use crate::rng::SimRng;
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

/// A piece of a run's work: workload writes of one phase.
#[derive(Clone, Copy, Debug)]
pub(super) enum Work {
    /// The fill's next `n` pages from `from`.
    Fill { from: u64, n: u64 },
    /// `n` warm-up writes.
    Warmup(u64),
    /// `n` trace-prefix writes.
    Prefix(u64),
    /// `n` measured writes, inside one window.
    Measure(u64),
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

    /// The next piece of work of at most `budget` writes (> 0), passing the phases that are
    /// over: the measurement starts after the last unmeasured write and its last, partial
    /// window is closed after the last measured one. `None` when the run is done.
    pub(super) fn next(
        &mut self,
        budget: u64,
        logical: u64,
        metrics: &mut Metrics,
        erase_counts: &[u32],
    ) -> Option<Work> {
        loop {
            match self.phase {
                Phase::Fill(from) => {
                    return Some(Work::Fill {
                        from,
                        n: budget.min(logical - from),
                    })
                }
                Phase::Warmup(0) => self.phase = Phase::Prefix(self.prefix_writes),
                Phase::Warmup(left) => return Some(Work::Warmup(budget.min(left))),
                Phase::Prefix(0) => {
                    self.phase = Phase::Measure(self.measured_writes);
                    metrics.start(erase_counts, self.window);
                }
                Phase::Prefix(left) => return Some(Work::Prefix(budget.min(left))),
                Phase::Measure(0) => {
                    if self.window_left < self.window {
                        metrics.close_window();
                    }
                    self.phase = Phase::Done;
                }
                Phase::Measure(left) => {
                    return Some(Work::Measure(budget.min(left).min(self.window_left)))
                }
                Phase::Done => return None,
            }
        }
    }

    /// `work` is done: the phase and the window advance (a full window is closed); returns
    /// its writes.
    pub(super) fn done(&mut self, work: Work, logical: u64, metrics: &mut Metrics) -> u64 {
        let n = match work {
            Work::Fill { n, .. } | Work::Warmup(n) | Work::Prefix(n) | Work::Measure(n) => n,
        };
        self.issued += n;
        self.phase = match self.phase {
            Phase::Fill(from) if from + n == logical => Phase::Warmup(self.warmup_writes),
            Phase::Fill(from) => Phase::Fill(from + n),
            Phase::Warmup(left) => Phase::Warmup(left - n),
            Phase::Prefix(left) => Phase::Prefix(left - n),
            Phase::Measure(left) => {
                self.window_left -= n;
                if self.window_left == 0 {
                    metrics.close_window();
                    self.window_left = self.window;
                }
                Phase::Measure(left - n)
            }
            Phase::Done => Phase::Done,
        };
        n
    }

    /// Workload writes done and to do over the whole run (the fill of `fill` pages, warm-up,
    /// prefix and measured phase).
    pub(super) fn progress(&self, fill: u64) -> (u64, u64) {
        let total = fill + self.warmup_writes + self.prefix_writes + self.measured_writes;
        (self.issued, total)
    }
}

impl Source {
    /// The fill's write of `page`, with its class and, with `freq=exact`, its rate.
    fn fill_write(&self, page: u32, freq: FreqSource) -> Write {
        Write {
            page,
            class: self.workload.class_of(page),
            rate: if freq == FreqSource::Exact {
                self.workload.rate_of(page)
            } else {
                Rate::UNKNOWN
            },
        }
    }

    /// A write of the trace's uniform warm-up, drawn with the run's `rng`; `None` for a page
    /// the warm-up leaves alone (under `regions`, of a class the trace never writes).
    fn warm_write(&mut self, rng: &mut SimRng) -> Option<Write> {
        let warm = self.warm_workload.as_mut().expect("a warm-up workload");
        let page = warm.next(rng).page;
        let class = self.workload.class_of(page);
        let skip = self.warm_skips.get(usize::from(class)).copied();
        (!skip.unwrap_or(false)).then(|| Write::new(page, class))
    }

    /// Draws the first [`AHEAD`] writes, their page-map entries prefetched, before the first
    /// workload write.
    fn prime(&mut self, page_map: &[u32]) {
        if self.ahead_at == NOT_DRAWN {
            for k in 0..AHEAD {
                let w = self.workload.next(&mut self.workload_rng);
                prefetch(&page_map[w.page as usize]);
                self.ahead[k] = w;
            }
            self.ahead_at = 0;
        }
    }

    /// The next workload write: the oldest drawn ahead, the next drawn into its place with its
    /// page-map entry prefetched (the hot loop's main cache miss); with the pages of the writes
    /// half and a quarter of [`AHEAD`] ahead of it, for the next stages of prefetching.
    #[inline]
    fn draw(&mut self, page_map: &[u32]) -> (Write, u32, u32) {
        let i = self.ahead_at;
        let w = self.ahead[i];
        let next = self.workload.next(&mut self.workload_rng);
        prefetch(&page_map[next.page as usize]);
        self.ahead[i] = next;
        self.ahead_at = (i + 1) % AHEAD;
        let half = self.ahead[(i + AHEAD / 2) % AHEAD].page;
        let quarter = self.ahead[(i + AHEAD / 4) % AHEAD].page;
        (w, half, quarter)
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
        let logical = self.geometry.logical_pages;
        while budget > 0 {
            let metrics = &mut self.dev.metrics;
            let Some(work) = self
                .plan
                .next(budget, logical, metrics, &self.dev.store.erase_count)
            else {
                return Ok(false);
            };
            match work {
                // The fill places the data (Stockmeyer §2.3: "all tracks are placed into
                // segments in sequential order"); it does not pass the write cache.
                Work::Fill { from, n } => (from..from + n).try_for_each(|page| {
                    self.store_write(self.source.fill_write(page as u32, self.freq))
                })?,
                Work::Warmup(n) if self.source.warm_workload.is_some() => {
                    for _ in 0..n {
                        if let Some(w) = self.source.warm_write(&mut self.rng) {
                            self.user_write(w)?;
                        }
                    }
                }
                Work::Warmup(n) | Work::Prefix(n) => self.workload_writes(n)?,
                Work::Measure(n) => {
                    let t = Instant::now();
                    self.workload_writes(n)?;
                    self.plan.seconds += t.elapsed().as_secs_f64();
                }
            }
            budget -= self.plan.done(work, logical, &mut self.dev.metrics);
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
        self.dev.metrics.result(
            &self.dev.store.erase_count,
            &self.geometry,
            mean_size,
            self.plan.seconds,
            &self.config,
        )
    }

    /// `n` workload writes, drawn ahead so that their page-map entries, their old copies'
    /// entries and the policy's index entries are prefetched in three stages.
    pub(super) fn workload_writes(&mut self, n: u64) -> Result<()> {
        if self.cache.is_some() {
            return self.workload_writes_cached(n);
        }
        self.source.prime(&self.dev.store.page_map);
        for _ in 0..n {
            let (w, half, quarter) = self.source.draw(&self.dev.store.page_map);
            // Second stage: a page whose page-map entry has arrived by now; third: the
            // policy's entries found through what the second brought.
            self.dev.prefetch_old_copy(half, false);
            self.dev.prefetch_index_entry(quarter);
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
        let ages = !self.dev.store.dseq.is_empty();
        for _ in 0..n {
            let w = self.source.workload.next(&mut self.source.workload_rng);
            let cache = self.cache.as_ref().expect("called with a cache");
            self.dev.prefetch_evictions(cache, ages);
            self.user_write(w)?;
        }
        Ok(())
    }
}
