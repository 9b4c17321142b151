//! Metrics, with the names used everywhere (Rust, Python, JSON, database columns).
//!
//! Counters are kept cumulative over the whole run; the measured phase is reported as the
//! difference from a snapshot taken when it starts, so the hot loop never tests the phase.

use serde::Serialize;

use crate::config::SimConfig;
use crate::geometry::Geometry;
use crate::interval::{Interval, Metric};

/// Cumulative counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// User (external) page writes U.
    pub user_writes: u64,
    /// GC page writes G (valid pages relocated).
    pub gc_writes: u64,
    /// Segment erases.
    pub erases: u64,
    /// Victims cleaned, including those found empty.
    pub collected: u64,
    /// Victims that had no valid page left.
    pub emptied: u64,
    /// Writes absorbed by the write cache.
    pub cache_hits: u64,
    /// Writes that missed the write cache.
    pub cache_misses: u64,
    /// Pages a trace's discards (TRIM) took data from.
    pub trimmed: u64,
}

impl Counters {
    fn minus(&self, base: &Counters) -> Counters {
        Counters {
            user_writes: self.user_writes - base.user_writes,
            gc_writes: self.gc_writes - base.gc_writes,
            erases: self.erases - base.erases,
            collected: self.collected - base.collected,
            emptied: self.emptied - base.emptied,
            cache_hits: self.cache_hits - base.cache_hits,
            cache_misses: self.cache_misses - base.cache_misses,
            trimmed: self.trimmed - base.trimmed,
        }
    }

    /// Hits over all writes through the cache; NaN without a cache.
    fn hit_ratio(&self) -> f64 {
        let n = self.cache_hits + self.cache_misses;
        if n == 0 {
            f64::NAN
        } else {
            self.cache_hits as f64 / n as f64
        }
    }
}

/// Everything measured during a run.
#[derive(Clone, Debug)]
pub struct Metrics {
    /// Cumulative counters.
    pub counters: Counters,
    /// Victims by valid-page count, cumulative.
    pub victim_hist: Vec<u64>,
    /// Sealed segments by valid-page count, summed over cleaning epochs (just before each
    /// victim is chosen, as Van Houdt observes his chain), cumulative.
    pub segment_hist: Vec<u64>,
    base: Counters,
    base_victim_hist: Vec<u64>,
    base_segment_hist: Vec<u64>,
    base_erase_counts: Vec<u32>,
    series_base: Counters,
    series: Series,
    /// Pages per segment (Stockmeyer's `SegTrkCount`), for the per-window work.
    pps: u32,
}

/// Per-window time series of the measured phase.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Series {
    /// Window length [user writes].
    pub window: u64,
    /// User writes in each window (the last window may be partial).
    pub user_writes: Vec<u64>,
    /// GC writes in each window.
    pub gc_writes: Vec<u64>,
    /// Erases in each window.
    pub erases: Vec<u64>,
    /// Write amplification (U + G) / U of each window.
    pub wa: Vec<f64>,
    /// Write-cache hit ratio of each window (empty without a cache).
    pub cache_hit_ratio: Vec<f64>,
    /// Segments collected in each window, empty ones included (Stockmeyer's `CltdCount` per
    /// quarter of a pass, §8).
    pub collected: Vec<u64>,
    /// Segments collected empty in each window (`EmptyCount`).
    pub emptied: Vec<u64>,
    /// GCU of each window: its GC writes over its collected segments' capacity (NaN when none
    /// was collected).
    pub gcu: Vec<f64>,
    /// `WorkRdLive` of each window (Stockmeyer §2.2).
    pub work_rd_live: Vec<f64>,
    /// `WorkRdAll` of each window (Stockmeyer §2.2).
    pub work_rd_all: Vec<f64>,
}

/// How a trace was replayed (`method`), what it is, and how the replay went.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MethodReport {
    /// The method in force, in canonical form.
    pub method: String,
    /// Page writes of one pass of the trace.
    pub trace_writes: u64,
    /// Pages the trace writes at least once.
    pub working_set: u64,
    /// Passes of the trace replayed in all (prefix and measured writes) [passes].
    pub passes: f64,
    /// `precondition`: the WA of each whole pass replayed, the measured one last (with
    /// `measure=settled`).
    pub pass_wa: Vec<f64>,
    /// `precondition`: whether the WA of a pass came within the tolerance of the one before.
    pub settled: Option<bool>,
    /// `log`: how its trigger went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<LogReport>,
    /// The spare factor the configuration asked for (none with `logical_pages` or a log).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked_spare: Option<f64>,
    /// Whether `simulated_spare` is within 2% (relative) of `asked_spare`: a small trace may
    /// not fill whole segments at the asked spare (`sim::plan::SPARE_TOLERANCE`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spare_as_asked: Option<bool>,
}

/// How the `log` method's trigger went (`method::log`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LogReport {
    /// Write requests after which the garbage proportion exceeded the threshold (the
    /// artifact's `nGC`).
    pub triggers: u64,
    /// Of those, the ones at which no sealed segment qualified as a victim.
    pub passed: u64,
    /// Most segments holding data after a request: the log's largest size [segments].
    pub peak_segments: u64,
}

/// A line of a placement's own record of a run (`MiDAS`'s progress lines and model runs, as
/// its simulator prints them), from the start of the run (warm-up included).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SchemeRow {
    /// User writes so far.
    pub user_writes: u64,
    /// What the line records (`window`, `model`, `apply`, `merge` for `MiDAS`).
    pub kind: &'static str,
    /// A WAF: measured over the line's window, or predicted.
    pub waf: f64,
    /// The run's WAF so far.
    pub total_waf: f64,
    /// Groups (streams of the scheme's own numbering).
    pub groups: u32,
    /// Segments per group: held, or proposed.
    pub sizes: Vec<u32>,
    /// Valid ratio of each group's victims: measured, or predicted.
    pub valid: Vec<f64>,
}

/// The result of a run: the measured phase only.
#[derive(Clone, Debug, Serialize)]
pub struct SimResult {
    /// User writes U.
    pub user_writes: u64,
    /// GC writes G.
    pub gc_writes: u64,
    /// Segment erases.
    pub erases: u64,
    /// Write amplification (U + G) / U (Van Houdt eq. 4; Li et al.).
    pub wa: f64,
    /// G / U (Lomet & Luo's Wamp; Li et al.'s normalized cleaning cost).
    pub wamp: f64,
    /// G (Li et al. eq. 1).
    pub cleaning_cost: u64,
    /// Mean empty fraction of a victim (Lomet & Luo's E).
    pub emptiness_at_clean: f64,
    /// Mean utilization of collected segments, empty ones counted at 0 (Stockmeyer §2.2).
    pub gcu: f64,
    /// Segments collected, empty ones included (Stockmeyer's `CltdCount`).
    pub collected: u64,
    /// Segments collected with no valid page (Stockmeyer's `EmptyCount`).
    pub emptied: u64,
    /// 2 × `SegTrkCount` × GCU × `CltdCount` (Stockmeyer §2.2).
    pub work_rd_live: f64,
    /// `SegTrkCount` × GCU × `CltdCount` + `SegTrkCount` × (`CltdCount` − `EmptyCount`) (Stockmeyer §2.2).
    pub work_rd_all: f64,
    /// (Σnᵢ)² / (N·Σnᵢ²) over the erases of the measured phase (Li et al. §6.3); 1 is even wear.
    pub wear_leveling_index: f64,
    /// Erases per segment in the measured phase.
    pub erase_counts: Vec<u32>,
    /// Victims by valid-page count (b + 1 bins).
    pub victim_valid_histogram: Vec<u64>,
    /// Sealed segments with j valid pages, counted at every cleaning epoch and summed over the
    /// epochs of the measured phase (b + 1 bins); divided by its sum, the distribution of valid
    /// pages over sealed segments averaged over epochs (Van Houdt Fig. 3).
    pub segment_valid_histogram: Vec<u64>,
    /// Share of the workload's writes absorbed by the write cache (Stockmeyer §2.3's hit ratio);
    /// NaN without a cache. With a cache, `user_writes` counts the writes that reach the store.
    pub cache_hit_ratio: f64,
    /// Per-window time series.
    pub series: Series,
    /// Physical segments N as simulated (derived from a trace's pages when not given).
    pub simulated_segments: u32,
    /// Pages (slots, with sizes) per segment b as simulated.
    pub simulated_pages_per_segment: u32,
    /// Logical pages as simulated (the configuration's `logical_pages` is what was asked, if anything).
    pub simulated_logical_pages: u64,
    /// Spare factor as simulated, 1 − logical / physical (in slots with page sizes: logical pages
    /// times their mean size).
    pub simulated_spare: f64,
    /// Wall-clock seconds of the measured phase.
    pub seconds: f64,
    /// User writes per second in the measured phase.
    pub user_writes_per_second: f64,
    /// User + GC page writes per second in the measured phase.
    pub page_writes_per_second: f64,
    /// The full configuration.
    pub config: SimConfig,
    /// Pages holding data that a trace's discards (TRIM) invalidated, measured phase.
    pub trimmed: u64,
    /// How the trace was replayed; `None` for a generated workload.
    pub method: Option<MethodReport>,
    /// Where the run's method is likely to mislead, in words (also printed on stderr).
    pub warnings: Vec<String>,
    /// A timed run's measured phase on the clock (`--device`); `None` without a device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<crate::time::TimeReport>,
    /// The placement's own record of the run, where it keeps one (`MiDAS`'s per-epoch lines);
    /// empty for the others.
    pub scheme_log: Vec<SchemeRow>,
    /// The 95% interval by batch means ([`crate::interval`]) of `precision`'s metric, else of
    /// `wa`; `None` with fewer than 20 whole windows measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
}

/// GCU, `WorkRdLive` and `WorkRdAll` of counters taken over some span (Stockmeyer §2.2):
/// GCU = G / (`CltdCount` × `SegTrkCount`), an empty collection counting as utilization 0;
/// `WorkRdLive` = 2 × `SegTrkCount` × GCU × `CltdCount`;
/// `WorkRdAll` = `SegTrkCount` × GCU × `CltdCount` + `SegTrkCount` × (`CltdCount` − `EmptyCount`).
fn stockmeyer_work(c: &Counters, pps: u32) -> (f64, f64, f64) {
    let b = f64::from(pps);
    let n = c.collected as f64;
    let gcu = if c.collected > 0 {
        c.gc_writes as f64 / (n * b)
    } else {
        f64::NAN
    };
    // With nothing collected, no work was done (GCU alone is undefined).
    let (live, all) = if c.collected > 0 {
        (
            2.0 * b * gcu * n,
            b * gcu * n + b * (c.collected - c.emptied) as f64,
        )
    } else {
        (0.0, 0.0)
    };
    (gcu, live, all)
}

impl Metrics {
    /// Empty metrics for `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32) -> Self {
        let bins = pps as usize + 1;
        Metrics {
            counters: Counters::default(),
            victim_hist: vec![0; bins],
            segment_hist: vec![0; bins],
            base: Counters::default(),
            base_victim_hist: vec![0; bins],
            base_segment_hist: vec![0; bins],
            base_erase_counts: vec![0; segments as usize],
            series_base: Counters::default(),
            series: Series::default(),
            pps,
        }
    }

    /// Counts a victim collected with `valid` valid slots, `tail` of them a tail no page fitted
    /// in (counted as held, not written): one erase, `valid − tail` GC writes.
    #[inline]
    pub fn count_victim(&mut self, valid: u32, tail: u32) {
        let c = &mut self.counters;
        c.collected += 1;
        c.erases += 1;
        c.gc_writes += u64::from(valid - tail);
        if valid == 0 {
            c.emptied += 1;
        }
        self.victim_hist[valid as usize] += 1;
    }

    /// Adds the sealed segments' valid-count histogram at a cleaning epoch (just before a
    /// victim is chosen).
    #[inline]
    pub fn count_epoch(&mut self, sealed_hist: &[u64]) {
        for (acc, n) in self.segment_hist.iter_mut().zip(sealed_hist) {
            *acc += n;
        }
    }

    /// Starts the measured phase.
    pub fn start(&mut self, erase_counts: &[u32], window: u64) {
        self.base = self.counters.clone();
        self.series_base = self.counters.clone();
        self.base_victim_hist.clone_from(&self.victim_hist);
        self.base_segment_hist.clone_from(&self.segment_hist);
        self.base_erase_counts = erase_counts.to_vec();
        self.series = Series {
            window,
            ..Series::default()
        };
    }

    /// Closes a time-series window.
    pub fn close_window(&mut self) {
        let d = self.counters.minus(&self.series_base);
        if d.user_writes == 0 && d.cache_hits == 0 {
            return;
        }
        if d.cache_hits + d.cache_misses > 0 {
            self.series.cache_hit_ratio.push(d.hit_ratio());
        }
        self.series.user_writes.push(d.user_writes);
        self.series.gc_writes.push(d.gc_writes);
        self.series.erases.push(d.erases);
        self.series
            .wa
            .push((d.user_writes + d.gc_writes) as f64 / d.user_writes as f64);
        let (gcu, live, all) = stockmeyer_work(&d, self.pps);
        self.series.collected.push(d.collected);
        self.series.emptied.push(d.emptied);
        self.series.gcu.push(gcu);
        self.series.work_rd_live.push(live);
        self.series.work_rd_all.push(all);
        self.series_base = self.counters.clone();
    }

    /// The result of the measured phase.
    pub fn result(
        &self,
        erase_counts: &[u32],
        geometry: &Geometry,
        mean_size: f64,
        seconds: f64,
        config: &SimConfig,
    ) -> SimResult {
        let c = self.counters.minus(&self.base);
        let u = c.user_writes as f64;
        let g = c.gc_writes as f64;
        let pps = geometry.pages_per_segment;
        let (gcu, work_rd_live, work_rd_all) = stockmeyer_work(&c, pps);
        let erase_counts: Vec<u32> = erase_counts
            .iter()
            .zip(&self.base_erase_counts)
            .map(|(a, z)| a - z)
            .collect();
        let sum: f64 = erase_counts.iter().map(|&n| f64::from(n)).sum();
        let sum_sq: f64 = erase_counts
            .iter()
            .map(|&n| f64::from(n) * f64::from(n))
            .sum();
        let wli = if sum_sq > 0.0 {
            sum * sum / (erase_counts.len() as f64 * sum_sq)
        } else {
            f64::NAN
        };
        let diff =
            |a: &[u64], z: &[u64]| -> Vec<u64> { a.iter().zip(z).map(|(x, y)| x - y).collect() };
        let rate = |n: f64| if seconds > 0.0 { n / seconds } else { f64::NAN };
        SimResult {
            user_writes: c.user_writes,
            gc_writes: c.gc_writes,
            erases: c.erases,
            wa: (u + g) / u,
            wamp: g / u,
            cleaning_cost: c.gc_writes,
            emptiness_at_clean: 1.0 - gcu,
            gcu,
            collected: c.collected,
            emptied: c.emptied,
            work_rd_live,
            work_rd_all,
            wear_leveling_index: wli,
            cache_hit_ratio: c.hit_ratio(),
            erase_counts,
            victim_valid_histogram: diff(&self.victim_hist, &self.base_victim_hist),
            segment_valid_histogram: diff(&self.segment_hist, &self.base_segment_hist),
            series: self.series.clone(),
            simulated_segments: geometry.segments,
            simulated_pages_per_segment: pps,
            simulated_logical_pages: geometry.logical_pages,
            simulated_spare: 1.0
                - geometry.logical_pages as f64 * mean_size / geometry.physical_pages() as f64,
            seconds,
            user_writes_per_second: rate(u),
            page_writes_per_second: rate(u + g),
            config: config.clone(),
            trimmed: c.trimmed,
            method: None,
            warnings: Vec::new(),
            scheme_log: Vec::new(),
            time: None,
            interval: config.precision.map_or_else(
                || self.interval(Metric::Wa),
                |p| {
                    self.interval(p.metric).map(|mut iv| {
                        iv.reached = Some(p.met(&iv));
                        iv
                    })
                },
            ),
        }
    }

    /// The interval of `metric` over the measured phase's whole windows so far.
    pub fn interval(&self, metric: Metric) -> Option<Interval> {
        crate::interval::interval(&self.series, self.pps, metric)
    }

    /// Whether the windows closed so far end a batch whose interval meets `precision`
    /// (the stopping rule, [`crate::interval`]).
    pub fn precise_enough(&self, precision: &crate::interval::Precision) -> bool {
        crate::interval::at_batch_end(self.series.wa.len())
            && self
                .interval(precision.metric)
                .is_some_and(|iv| precision.met(&iv))
    }

    /// The write amplification of the measured writes so far (NaN before the first).
    pub fn measured_wa(&self) -> f64 {
        let c = self.counters.minus(&self.base);
        (c.user_writes + c.gc_writes) as f64 / c.user_writes as f64
    }
}
