//! The run plan: its phases (fill, warm-up, trace prefix, measurement), stepping through them in
//! budgets of writes, and the workload's writes drawn ahead.

use std::time::Instant;

use super::{Plan, Simulator, Source};
use crate::config::FreqSource;
use crate::config::{Amount, Measure, MethodSpec, Precondition, SimConfig, WarmupSpec};
use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::limits;
use crate::metrics::{MethodReport, Metrics, SimResult};
use crate::placement::Scheme as _;
use crate::rng::SimRng;
use crate::store::prefetch;
use crate::workload::{Rate, Write};

/// Writes drawn ahead of the user writes (see `workload_writes`).
pub(super) const AHEAD: usize = 16;

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
    /// The plan of a run on `geometry` (a trace's page writes, `trace`), its lengths checked
    /// against the counters' range, with the warnings its method earns on this trace.
    pub(super) fn of(
        config: &SimConfig,
        geometry: &Geometry,
        trace: Option<TraceFacts>,
    ) -> Result<Self> {
        let logical = geometry.logical_pages;
        let trace_writes = trace.map(|t| t.writes);
        let method = config.method();
        let warm = config.warmup();
        // A trace prefix replayed as warm-up is taken out of the measured writes.
        let prefix = match (trace_writes, method) {
            (Some(n), _) if warm.trace_share > 0.0 => (warm.trace_share * n as f64).round() as u64,
            (Some(n), Some(MethodSpec::Stockmeyer { prefix })) => {
                if prefix >= n {
                    return Err(Error::param(
                        "method.prefix",
                        prefix,
                        format!("fewer trace writes than the trace's {n} (Stockmeyer's one million is for a trace of 6.76 million)"),
                    ));
                }
                prefix
            }
            _ => 0,
        };
        let measured_writes = config
            .measured_writes(logical, trace_writes)?
            .saturating_sub(prefix);
        let warmup = (warm.multiple * logical as f64).round();
        let fill = if warm.fill { logical as f64 } else { 0.0 };
        let mut measured = match config.writes {
            Some(Amount::Multiple(k)) => k * logical as f64,
            _ => measured_writes as f64,
        };
        let settle = match (method, trace_writes) {
            (Some(MethodSpec::Precondition(rule)), Some(pass)) => {
                let after = if rule.measure == Measure::After {
                    measured_writes
                } else {
                    0
                };
                measured = pass as f64 * f64::from(rule.max_passes) + after as f64;
                Some(Settle {
                    rule,
                    pass,
                    after,
                    wa: Vec::new(),
                    settled: false,
                    finished: false,
                })
            }
            _ => None,
        };
        limits::check_writes(geometry, warmup + fill + prefix as f64, measured)?;
        let warmup_writes = warmup as u64;
        // Default window: one pass of a trace, else the logical capacity.
        let window = config.window.or(trace_writes).unwrap_or(logical).max(1);
        let (report, warnings) = match (method, trace) {
            (Some(m), Some(t)) => {
                let report = MethodReport {
                    method: crate::error::compact_numbers(&m.to_string()),
                    trace_writes: t.writes,
                    working_set: t.working_set,
                    passes: 0.0,
                    pass_wa: Vec::new(),
                    settled: None,
                    log: None,
                    asked_spare: asked_spare(config),
                    spare_as_asked: asked_spare(config).map(|a| {
                        (simulated_spare(config, geometry) - a).abs() <= SPARE_TOLERANCE * a
                    }),
                };
                let replayed = if settle.is_some() {
                    None
                } else {
                    Some((prefix + measured_writes) as f64 / t.writes as f64)
                };
                let mut warned = warnings(t, &warm, logical, replayed);
                warned.extend(spare_warning(config, geometry, t));
                warned.extend(clock_warning(config, t));
                (Some(report), warned)
            }
            _ => (None, Vec::new()),
        };
        Ok(Plan {
            phase: Phase::first(warm.fill, warmup_writes, prefix, measured_writes),
            warmup_writes,
            prefix_writes: prefix,
            measured_writes,
            window,
            window_left: window,
            seconds: 0.0,
            issued: 0,
            extended: 0,
            synthetic: fill as u64 + warmup_writes,
            settle,
            method: report,
            warnings,
            measure_starts: 0,
            precision: config.precision,
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
                    self.measure_starts += 1;
                    metrics.start(erase_counts, self.window);
                }
                Phase::Prefix(left) => return Some(Work::Prefix(budget.min(left))),
                Phase::Measure(0) => {
                    if self.window_left < self.window {
                        metrics.close_window();
                    }
                    self.phase = Phase::Done;
                    if let Some(more) = self.settle.as_mut().and_then(|s| s.pass_done(metrics)) {
                        // Every pass is measured on its own: the next starts afresh.
                        self.extended += more;
                        self.phase = Phase::Measure(more);
                        self.window_left = self.window;
                        self.seconds = 0.0;
                        self.measure_starts += 1;
                        metrics.start(erase_counts, self.window);
                    } else if let Some(s) = &self.settle {
                        if !s.settled {
                            self.warnings.push(format!(
                                "the write amplification had not settled after {} passes (last two: {:.4}, {:.4}; tolerance {}): the result is not a steady state; raise `max_passes` or `tol`",
                                s.wa.len(),
                                s.wa[s.wa.len().saturating_sub(2)],
                                s.wa[s.wa.len() - 1],
                                s.rule.tol
                            ));
                        }
                    }
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
                    if self.precision.is_some_and(|p| metrics.precise_enough(&p)) {
                        // Known well enough: the measured phase ends with this batch.
                        return self.stopped(n);
                    }
                }
                Phase::Measure(left - n)
            }
            Phase::Done => Phase::Done,
        };
        n
    }

    /// The measured phase ended by `precision` after a piece of `n` writes: the writes it
    /// will not do leave the plan (and the progress's total).
    fn stopped(&mut self, n: u64) -> u64 {
        if let Phase::Measure(left) = self.phase {
            self.measured_writes -= left - n;
        }
        self.phase = Phase::Measure(0);
        n
    }

    /// Workload writes done and to do over the whole run (the fill of `fill` pages, warm-up,
    /// prefix and measured phase).
    pub(super) fn progress(&self, fill: u64) -> (u64, u64) {
        // While `precondition` has not settled, one more pass is counted as to do.
        let undecided = self
            .settle
            .as_ref()
            .map_or(0, |s| if s.settled { 0 } else { s.pass });
        let total = fill
            + self.warmup_writes
            + self.prefix_writes
            + self.measured_writes
            + self.extended
            + undecided;
        (self.issued, total.max(self.issued))
    }

    /// What the trace and its method were, with the passes replayed (for the result).
    pub(super) fn method_report(&self) -> Option<MethodReport> {
        let mut r = self.method.clone()?;
        let replayed = self.issued.saturating_sub(self.fill_and_warmup());
        r.passes = replayed as f64 / r.trace_writes as f64;
        if let Some(s) = &self.settle {
            r.pass_wa.clone_from(&s.wa);
            r.settled = Some(s.settled);
        }
        Some(r)
    }

    /// The warnings so far.
    pub(super) fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn fill_and_warmup(&self) -> u64 {
        self.synthetic
    }
}

/// What the run plan needs to know of a trace.
#[derive(Clone, Copy, Debug)]
pub(super) struct TraceFacts {
    /// Page writes of one pass.
    pub writes: u64,
    /// Pages written at least once.
    pub working_set: u64,
    /// Pages of the trace's address space as replayed (the working set when renamed densely).
    pub address_pages: u64,
    /// Where the trace's clock goes backwards, when a scheme reads it.
    pub steps_back: crate::workload::trace::StepsBack,
    /// Pages written exactly once per pass.
    pub written_once: u64,
}

/// `precondition`'s passes: each measured on its own, until the WA of one is within the
/// tolerance of the one before (`method::precondition`).
#[derive(Clone, Debug)]
pub(super) struct Settle {
    rule: Precondition,
    /// Page writes of a pass.
    pass: u64,
    /// Writes measured after the settled pass (`measure=after`), else 0.
    after: u64,
    /// WA of each whole pass replayed.
    wa: Vec<f64>,
    /// Whether a pass settled.
    settled: bool,
    /// Whether the writes after the settled pass are under way (`measure=after`).
    finished: bool,
}

impl Settle {
    /// A measured stretch is over: the writes of the next one, or `None` when the run is done.
    fn pass_done(&mut self, metrics: &Metrics) -> Option<u64> {
        if self.finished {
            return None;
        }
        let wa = metrics.measured_wa();
        let last = self.wa.last().copied();
        self.wa.push(wa);
        if last.is_some_and(|l| self.rule.settled(l, wa)) {
            self.settled = true;
            self.finished = true;
            return (self.after > 0).then_some(self.after);
        }
        if self.wa.len() >= self.rule.max_passes as usize {
            self.finished = true;
            return None;
        }
        Some(self.pass)
    }
}

/// Where a trace-driven method is likely to mislead on this trace (`docs/traces.md`):
/// a warm-up of synthetic data over a device the trace touches less than half of, and a trace
/// replayed in a loop (`replayed` passes; `None`: `precondition`, which always loops) when most
/// of its pages are written once per pass.
fn warnings(t: TraceFacts, warm: &WarmupSpec, logical: u64, replayed: Option<f64>) -> Vec<String> {
    let mut out = Vec::new();
    if (warm.fill || warm.multiple > 0.0) && 2 * t.working_set < logical {
        out.push(format!(
            "the warm-up `{warm}` writes all {logical} logical pages, but the trace writes only {} of them ({:.1}%): most of the device holds data the trace never rewrites, which decides the result; `method=precondition` sizes the device from the trace's working set",
            t.working_set,
            100.0 * t.working_set as f64 / logical as f64
        ));
    }
    let looped = replayed.is_none_or(|k| k > 1.0 + 1e-9);
    if looped && 2 * t.written_once > t.working_set {
        let how = replayed.map_or_else(
            || "pass after pass".to_string(),
            |k| format!("{k:.2} times"),
        );
        out.push(format!(
            "the trace is replayed {how} and {:.1}% of the pages it writes are written once per pass: looped, each of them is rewritten exactly one pass later, a lifetime the loop makes and the trace does not have",
            100.0 * t.written_once as f64 / t.working_set as f64
        ));
    }
    out
}

/// A trace whose clock goes backwards, for the schemes that read it: one line with how many
/// requests, the first and the largest step back (`workload::trace::StepsBack`).
fn clock_warning(config: &SimConfig, t: TraceFacts) -> Option<String> {
    if t.steps_back.count == 0 {
        return None;
    }
    let back = t.steps_back;
    let placement = config.placement();
    let readers: Vec<String> = [
        config
            .policy
            .needs(crate::spec::Need::Times)
            .then(|| format!("`{}`", config.policy)),
        placement
            .info()
            .needs(crate::spec::Need::Times)
            .then(|| format!("`{placement}`")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let largest = if back.largest >= 1e-3 {
        format!("{:.3}", back.largest)
    } else {
        format!("{:.3e}", back.largest)
    };
    Some(format!(
        "the trace's clock goes backwards at {} of its requests (the first at request {}, the largest step {largest} s back): each time is held at the latest before it for the schemes that read it ({})",
        back.count,
        back.first,
        readers.join(", ")
    ))
}

/// Largest relative difference between the simulated and the asked spare factor that goes
/// without a word: greedy's WA under uniform writes varies about as 1 / spare (Van Houdt's
/// single-frontier model), so a spare 2% off moves the WA by about 2%.
pub const SPARE_TOLERANCE: f64 = 0.02;

/// The spare factor a configuration asks for on a trace, when it asks for one: `spare`, 1 −
/// `fill`, or the default 0.1; none with `logical_pages` or a log (which has no capacity).
pub fn asked_spare(config: &SimConfig) -> Option<f64> {
    if config.logical_pages.is_some() || matches!(config.method(), Some(MethodSpec::Log(_))) {
        return None;
    }
    let asked = config.spare.or(config.fill.map(|f| 1.0 - f)).unwrap_or(0.1);
    // 1 − 0.8 is 0.19999999999999996 in binary: the spare asked is 0.2.
    Some((asked * 1e12).round() / 1e12)
}

/// The spare factor of `geometry`, 1 − logical / physical (in slots with page sizes), as the
/// result reports it (`SimResult::simulated_spare`).
fn simulated_spare(config: &SimConfig, geometry: &Geometry) -> f64 {
    let mean = config
        .sizes
        .as_ref()
        .map_or(1.0, crate::config::SizeSpec::mean);
    1.0 - geometry.logical_pages as f64 * mean / geometry.physical_pages() as f64
}

/// A device sized from a small trace cannot always hold the asked spare: its segments are whole
/// and the frontiers and free segments the trigger keeps must fit (`config::geometry`). One line
/// saying what was simulated instead, and why, when it is off by more than [`SPARE_TOLERANCE`];
/// also when a warm-up's device had to grow past the trace's pages for the same reason.
fn spare_warning(config: &SimConfig, geometry: &Geometry, t: TraceFacts) -> Option<String> {
    let asked = asked_spare(config)?;
    let mean = config
        .sizes
        .as_ref()
        .map_or(1.0, crate::config::SizeSpec::mean);
    let simulated = simulated_spare(config, geometry);
    let pps = geometry.pages_per_segment;
    let kept = config.kept_segments();
    if (simulated - asked).abs() > SPARE_TOLERANCE * asked {
        let (segments, pages) = (geometry.segments, geometry.logical_pages);
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        let what = format!(
            "{segments} segments of {pps} page{} for {pages} page{}",
            plural(u64::from(pps)),
            plural(pages)
        );
        let rounded = (pages as f64 * mean / (1.0 - asked) / f64::from(pps)).round() as u32;
        let why = if config.segments.is_some() {
            "`segments` fixes the device and the trace's pages are its data; omit `segments` to size it from the trace".to_string()
        } else if segments == 4 && rounded < 4 {
            "a device has at least 4 segments, and these pages fill a small part of 4".to_string()
        } else if segments > rounded.max(4) {
            format!("the {kept} segments kept open or free (frontiers, the trigger's free segments) leave too little room at the asked spare; smaller segments (`pages_per_segment`) come nearer")
        } else {
            "the trace's pages fill whole segments; smaller segments (`pages_per_segment`) come nearer".to_string()
        };
        return Some(format!(
            "spare {simulated:.4} simulated where {asked} was asked ({what}): {why}"
        ));
    }
    if config.segments.is_none() && !config.writes_only_trace() {
        let need = t.address_pages.max(config.logical_pages.unwrap_or(0));
        let exact = (need as f64 * mean / (1.0 - asked) / f64::from(pps)).ceil() as u32;
        if geometry.segments > exact.max(4) {
            return Some(format!(
                "the device has {} segments where the trace's pages need {} at spare {asked}: {kept} segments are kept open or free, so the warm-up's data fills {} logical pages the trace never writes",
                geometry.segments,
                exact.max(4),
                geometry.logical_pages.saturating_sub(need)
            ));
        }
    }
    None
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
    pub(super) fn prime(&mut self, page_map: &[u32]) {
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
    pub(super) fn draw(&mut self, page_map: &[u32]) -> (Write, u32, u32) {
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
        let logical = self.engine.geometry.logical_pages;
        while budget > 0 {
            let metrics = &mut self.engine.dev.metrics;
            let Some(work) =
                self.plan
                    .next(budget, logical, metrics, &self.engine.dev.store.erase_count)
            else {
                return Ok(false);
            };
            match work {
                // The fill places the data (Stockmeyer §2.3: "all tracks are placed into
                // segments in sequential order"); it does not pass the write cache.
                Work::Fill { from, n } => (from..from + n).try_for_each(|page| {
                    self.engine
                        .store_write(self.source.fill_write(page as u32, self.engine.freq))
                })?,
                Work::Warmup(n) if self.source.warm_workload.is_some() => {
                    for _ in 0..n {
                        if let Some(w) = self.source.warm_write(&mut self.engine.rng) {
                            self.engine.user_write(w)?;
                        }
                    }
                }
                Work::Warmup(n) => self.workload_writes(n)?,
                Work::Prefix(n) => self.trace_writes(n)?,
                Work::Measure(n) => {
                    let t = Instant::now();
                    self.trace_writes(n)?;
                    self.plan.seconds += t.elapsed().as_secs_f64();
                    if let (Some(timed), true) = (&mut self.timed, self.plan.window_left == n) {
                        timed.timing.close_window();
                    }
                }
            }
            if let Some(e) = self.engine.dev.outside_failure() {
                return Err(e);
            }
            budget -= self.plan.done(work, logical, &mut self.engine.dev.metrics);
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
        let mut r = self.engine.dev.metrics.result(
            &self.engine.dev.store.erase_count,
            &self.engine.geometry,
            mean_size,
            self.plan.seconds,
            &self.config,
        );
        r.method = self.plan.method_report();
        if let (Some(m), Some(log)) = (r.method.as_mut(), &self.engine.cleaning.log) {
            m.log = Some(log.report());
        }
        r.warnings = self.plan.warnings().to_vec();
        r.time = self.timed.as_ref().map(|t| t.timing.report());
        r.scheme_log = self.engine.dev.placement.scheme.log();
        r
    }

    /// `n` workload writes, drawn ahead so that their page-map entries, their old copies'
    /// entries and the policy's index entries are prefetched in three stages.
    pub(super) fn workload_writes(&mut self, n: u64) -> Result<()> {
        if let (None, Some(batch), NOT_DRAWN) = (
            &self.engine.cache,
            self.engine.dev.placement.scheme.batch(),
            self.source.ahead_at,
        ) {
            return self.batched_writes(n, batch);
        }
        if self.engine.cache.is_some() {
            self.workload_writes_cached(n)
        } else {
            match (
                self.source.clock.is_some(),
                self.engine.dev.placement.prefetch_pages,
            ) {
                (true, true) => self.drawn_writes::<true, true>(n),
                (true, false) => self.drawn_writes::<true, false>(n),
                (false, true) => self.drawn_writes::<false, true>(n),
                (false, false) => self.drawn_writes::<false, false>(n),
            }
        }
    }

    /// [`Self::workload_writes`] without a cache; `TIMED`: the trace's clock ticks with each
    /// write, `PAGE`: the placement prefetches its per-page state (constants, so that a run without them
    /// pays nothing for them).
    fn drawn_writes<const TIMED: bool, const PAGE: bool>(&mut self, n: u64) -> Result<()> {
        self.source.prime(&self.engine.dev.store.page_map);
        for _ in 0..n {
            let w = self.next_drawn::<TIMED>(PAGE);
            self.engine.user_write(w)?;
        }
        Ok(())
    }

    /// The next write drawn ahead (the source primed), the trace's clock ticked with it where
    /// `TIMED`, and the later stages of prefetching for the writes behind it: the loops of
    /// [`Self::drawn_writes`] and `log_writes`; `prefetch_pages`: the placement's per-page state
    /// too ([`Placement::prefetch_pages`]). Always inlined: it is their body.
    ///
    /// [`Placement::prefetch_pages`]: crate::placement::Placement::prefetch_pages
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn next_drawn<const TIMED: bool>(&mut self, prefetch_pages: bool) -> Write {
        let (w, half, quarter) = self.source.draw(&self.engine.dev.store.page_map);
        if let (true, Some(c)) = (TIMED, &mut self.source.clock) {
            let starts = c.starts();
            self.engine.dev.clocks.trace_time = c.tick();
            if let Some(pages) = starts {
                self.engine.request(w.page, pages);
            }
        }
        // Second stage: a page whose page-map entry has arrived by now; third: the policy's
        // entries found through what the second brought.
        self.engine.dev.prefetch_old_copy(half, false);
        self.engine.dev.prefetch_index_entry(quarter);
        if prefetch_pages {
            self.engine.dev.placement.scheme.prefetch_page(half);
        }
        w
    }

    /// [`Self::workload_writes`] for a placement written outside the engine that classifies
    /// user writes in batches: up to `batch` writes drawn, classified at once, then written one
    /// by one (the trace's clock ticking with each as it is written). The draws are those of
    /// the other loops, in the same order, without their prefetching.
    #[cold]
    #[inline(never)]
    fn batched_writes(&mut self, n: u64, batch: usize) -> Result<()> {
        self.in_batches(n, batch, |sim, w| sim.engine.user_write(w))
    }

    /// `n` workload writes in batches of up to `batch`, each batch drawn and classified at once
    /// ([`Self::draw_classified`]), then each write given to `write` after the trace's clock
    /// ticks with it; a failure of the placement stops the run after its batch.
    pub(super) fn in_batches(
        &mut self,
        n: u64,
        batch: usize,
        mut write: impl FnMut(&mut Self, Write) -> Result<()>,
    ) -> Result<()> {
        let mut writes = Vec::with_capacity(batch);
        let mut left = n;
        while left > 0 {
            let k = usize::try_from(left).unwrap_or(batch).min(batch);
            self.draw_classified(k, &mut writes);
            for &w in &writes {
                self.tick(w);
                write(self, w)?;
            }
            if let Some(e) = self.engine.dev.placement.scheme.take_failure() {
                return Err(e);
            }
            left -= k as u64;
        }
        Ok(())
    }

    /// The next `k` workload writes into `writes`, classified at once by the placement written
    /// outside the engine ([`Self::batched_writes`]).
    pub(super) fn draw_classified(&mut self, k: usize, writes: &mut Vec<Write>) {
        writes.clear();
        writes.extend((0..k).map(|_| self.source.workload.next(&mut self.source.workload_rng)));
        let pages: Vec<u32> = writes.iter().map(|w| w.page).collect();
        (self.engine.dev.placement.scheme).classify_ahead(&pages, &mut self.engine.rng);
    }

    /// The trace's clock ticked with write `w`, a request starting with it told to the scheme.
    pub(super) fn tick(&mut self, w: Write) {
        if let Some(c) = &mut self.source.clock {
            let starts = c.starts();
            self.engine.dev.clocks.trace_time = c.tick();
            if let Some(pages) = starts {
                self.engine.request(w.page, pages);
            }
        }
    }

    /// [`Self::workload_writes`] through a write cache. The pages that reach the store are the
    /// cache's least recently used, which its misses evict in that order; their page-map
    /// entries are prefetched one and two evictions ahead (a write through a cache, hits and
    /// then a destage with its cleaning, takes longer than the few writes of lead the plain
    /// loop needs), then their old copies' entries as in the plain loop, with the destage
    /// number where the placement reads ages.
    pub(super) fn workload_writes_cached(&mut self, n: u64) -> Result<()> {
        let ages = !self.engine.dev.store.facts.dseq().is_empty();
        for _ in 0..n {
            let w = self.source.workload.next(&mut self.source.workload_rng);
            if let Some(c) = &mut self.source.clock {
                let starts = c.starts();
                self.engine.dev.clocks.trace_time = c.tick();
                if let Some(pages) = starts {
                    self.engine.request(w.page, pages);
                }
            }
            let cache = self.engine.cache.as_ref().expect("called with a cache");
            self.engine.dev.prefetch_evictions(cache, ages);
            self.engine.user_write(w)?;
        }
        Ok(())
    }
}
