//! Time under cleaning (`--device`): the store's segments laid on a flash geometry, every flash
//! operation the engine decides (host reads and programs, relocation reads and programs,
//! erases) put on per-die timelines, requests arriving from a trace's clock, a Poisson process
//! or a closed loop, and what a request waits measured: latency distributions (`HdrHistogram`),
//! throughput and how busy the dies are, and with what.
//!
//! Without a device nothing here runs: the engine records no operation and a run is the run
//! without time, bit for bit.

pub mod arrivals;
pub mod flash;
pub mod spec;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hdrhistogram::Histogram;
use serde::Serialize;

pub use arrivals::ArrivalSpec;
pub use flash::{Flash, Op};
pub use spec::DeviceSpec;

use arrivals::Arrivals;

/// A latency distribution's summary [µs].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Requests measured.
    pub count: u64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// 99.99th percentile.
    pub p9999: f64,
    /// Largest.
    pub max: f64,
}

impl Latency {
    fn of(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Latency::default();
        }
        let us = |ns: u64| ns as f64 / 1e3;
        Latency {
            count: h.len(),
            mean: h.mean() / 1e3,
            p50: us(h.value_at_quantile(0.5)),
            p90: us(h.value_at_quantile(0.9)),
            p99: us(h.value_at_quantile(0.99)),
            p999: us(h.value_at_quantile(0.999)),
            p9999: us(h.value_at_quantile(0.9999)),
            max: us(h.max()),
        }
    }
}

/// What one window of the measured phase did on the clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TimeWindow {
    /// Requests completed in the window.
    pub requests: u64,
    /// From the window's first arrival to its last completion [µs].
    pub span_us: f64,
    /// Requests per second.
    pub iops: f64,
    /// User bytes moved per second [MB/s, 10⁶ bytes].
    pub mb_per_s: f64,
    /// Read latency [µs]: mean and 99th percentile.
    pub read_mean: f64,
    /// See `read_mean`.
    pub read_p99: f64,
    /// Write latency [µs]: mean and 99th percentile.
    pub write_mean: f64,
    /// See `write_mean`.
    pub write_p99: f64,
    /// Share of the dies' time spent on flash operations.
    pub die_busy: f64,
}

/// A timed run's measured phase on the clock (DESIGN "Time (the device model)").
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TimeReport {
    /// The device, as its spec.
    pub device: String,
    /// The arrival process, as its spec.
    pub arrivals: String,
    /// Dies in all.
    pub dies: u32,
    /// Read requests and write requests measured (`reads` and `writes` name parameters).
    pub read_requests: u64,
    /// See `read_requests`.
    pub write_requests: u64,
    /// Pages read and written by the host.
    pub read_pages: u64,
    /// See `read_pages`.
    pub write_pages: u64,
    /// From the first arrival to the last completion [µs].
    pub span_us: f64,
    /// Requests per second over the span.
    pub iops: f64,
    /// Read requests per second.
    pub read_iops: f64,
    /// Write requests per second.
    pub write_iops: f64,
    /// User pages moved per second × page size [MB/s, 10⁶ bytes].
    pub mb_per_s: f64,
    /// Read latency: arrival to completion [µs].
    pub read_latency: Latency,
    /// Write latency: arrival to completion (to buffering with a write buffer) [µs].
    pub write_latency: Latency,
    /// Mean share of the span the dies spend on flash operations.
    pub die_busy: f64,
    /// The busiest die's share.
    pub die_busy_max: f64,
    /// Share of the dies' flash time spent on cleaning (relocation reads and programs, erases).
    pub gc_busy: f64,
    /// Each die's busy share.
    pub die_shares: Vec<f64>,
    /// Per window of page writes (reads when every request reads).
    pub windows: Vec<TimeWindow>,
    /// Read latency distribution: (latency [µs], cumulative share) pairs for a CDF.
    pub read_cdf: Vec<(f64, f64)>,
    /// Write latency distribution, as `read_cdf`.
    pub write_cdf: Vec<(f64, f64)>,
}

/// Quantiles at which a CDF is sampled: fine in the body, then each nine of the tail.
fn cdf(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    let mut qs: Vec<f64> = (1..100).map(|i| f64::from(i) / 100.0).collect();
    qs.extend([0.995, 0.999, 0.9995, 0.9999, 0.99999, 1.0]);
    qs.iter()
        .map(|&q| (h.value_at_quantile(q) as f64 / 1e3, q))
        .collect()
}

fn histogram() -> Histogram<u64> {
    // Three significant digits: a percentile within 0.1% of the value it stands for; from 1 ns
    // to an hour, a longer wait counted as an hour (`saturating_record`).
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds")
}

/// One window's tallies.
#[derive(Clone)]
struct Tally {
    reads: Histogram<u64>,
    writes: Histogram<u64>,
    first: Option<u64>,
    last: u64,
    pages: u64,
    work: u64,
}

impl Tally {
    fn new() -> Self {
        Tally {
            reads: histogram(),
            writes: histogram(),
            first: None,
            last: 0,
            pages: 0,
            work: 0,
        }
    }

    fn add(&mut self, read: bool, arrival: u64, done: u64, pages: u32) {
        let h = if read {
            &mut self.reads
        } else {
            &mut self.writes
        };
        h.saturating_record(done - arrival);
        self.note(arrival, done, pages);
    }

    /// The span and pages of a request, its latency recorded elsewhere.
    fn note(&mut self, arrival: u64, done: u64, pages: u32) {
        self.first = Some(self.first.map_or(arrival, |f| f.min(arrival)));
        self.last = self.last.max(done);
        self.pages += u64::from(pages);
    }

    /// Adds the latencies of `w` (same bounds: never fails).
    fn merge(&mut self, w: &Tally) {
        self.reads
            .add(&w.reads)
            .expect("histograms of the same bounds");
        self.writes
            .add(&w.writes)
            .expect("histograms of the same bounds");
    }

    fn span_ns(&self) -> u64 {
        self.first.map_or(0, |f| self.last.saturating_sub(f))
    }
}

/// A timed run in progress: the device, the arrival process and the tallies.
pub struct Timing {
    spec: DeviceSpec,
    arrivals_spec: ArrivalSpec,
    /// The timelines.
    pub flash: Flash,
    arrivals: Arrivals,
    /// The trace time of the measured phase's first request [µs].
    trace_base: Option<u64>,
    /// Program completions of pages in the write buffer [ns].
    buffered: BinaryHeap<Reverse<u64>>,
    whole: Tally,
    window: Tally,
    windows: Vec<TimeWindow>,
    read_pages: u64,
    write_pages: u64,
}

impl Timing {
    /// A run on `spec` with `arrivals`, Poisson gaps seeded from `seed`.
    pub fn new(spec: &DeviceSpec, arrivals: ArrivalSpec, seed: u64) -> Self {
        Timing {
            spec: spec.clone(),
            arrivals_spec: arrivals,
            flash: Flash::new(spec),
            arrivals: Arrivals::new(arrivals, seed),
            trace_base: None,
            buffered: BinaryHeap::new(),
            whole: Tally::new(),
            window: Tally::new(),
            windows: Vec::new(),
            read_pages: 0,
            write_pages: 0,
        }
    }

    /// The device.
    pub fn spec(&self) -> &DeviceSpec {
        &self.spec
    }

    /// The next request's arrival [ns]; `trace_us`: its time on the trace's clock.
    pub fn arrive(&mut self, trace_us: u64) -> u64 {
        let base = *self.trace_base.get_or_insert(trace_us);
        self.arrivals.next(trace_us.saturating_sub(base))
    }

    /// Puts the engine's recorded operations `ops` on the clock, issued at `t`, and empties it.
    pub fn clean(&mut self, t: u64, ops: &mut Vec<Op>) {
        if !ops.is_empty() {
            if self.spec.clean != spec::Clean::Free {
                self.flash.clean(t, ops);
            }
            ops.clear();
        }
    }

    /// Starts the tallies afresh (a new measured stretch); the timelines go on.
    pub fn restart(&mut self) {
        self.whole = Tally::new();
        self.window = Tally::new();
        self.windows.clear();
        self.read_pages = 0;
        self.write_pages = 0;
        self.flash.reset_work();
    }

    /// A host page program at segment offset `off`, issued at `t`: when the host sees it
    /// done (its program's end, or with a write buffer the time it is buffered).
    pub fn program(&mut self, t: u64, off: u32, region: u16) -> u64 {
        let die = self.flash.die_in(off, region);
        if self.spec.buffer == 0 {
            return self.flash.program(t, die, false);
        }
        while self.buffered.peek().is_some_and(|Reverse(d)| *d <= t) {
            self.buffered.pop();
        }
        let mut at = t;
        if self.buffered.len() >= self.spec.buffer as usize {
            let Reverse(free) = self.buffered.pop().expect("a full buffer");
            at = at.max(free);
        }
        let done = self.flash.program(at, die, false);
        self.buffered.push(Reverse(done));
        at
    }

    /// A host page read issued at `t` of a page at offset `off` of a segment of region
    /// `region` (`None`: a page without data, read as `unwritten` says, by its number `page`).
    pub fn read(&mut self, t: u64, at: Option<(u32, u16)>, page: u32) -> u64 {
        match (at, self.spec.unwritten) {
            (Some((off, region)), _) => self.flash.read(t, self.flash.die_in(off, region), false),
            (None, spec::Unwritten::Read) => {
                let die = page as usize % self.flash.dies();
                self.flash.read(t, die, false)
            }
            (None, spec::Unwritten::Skip) => t,
        }
    }

    /// A request that arrived at `arrival` completed at `done`.
    pub fn complete(&mut self, read: bool, arrival: u64, done: u64, pages: u32) {
        self.arrivals.completed(done);
        if read {
            self.read_pages += u64::from(pages);
        } else {
            self.write_pages += u64::from(pages);
        }
        // Latencies go to the window's histograms only, added to the whole run's when the
        // window closes: one record per request.
        self.whole.note(arrival, done, pages);
        self.window.add(read, arrival, done, pages);
    }

    /// Whether background cleaning may run before a request arriving at `t`: every die idle.
    pub fn idle_before(&self, t: u64) -> Option<u64> {
        let idle = self.flash.all_idle_at();
        (self.spec.clean == spec::Clean::Background && idle < t).then_some(idle)
    }

    /// Ends the current window.
    pub fn close_window(&mut self) {
        let w = std::mem::replace(&mut self.window, Tally::new());
        self.whole.merge(&w);
        let closed = self.window_of(&w);
        self.windows.push(closed);
        self.window.work = self.flash.work.iter().sum();
    }

    /// What window `w` did.
    fn window_of(&self, w: &Tally) -> TimeWindow {
        let span = w.span_ns() as f64;
        let work: u64 = self.flash.work.iter().sum();
        let dies = self.flash.dies() as f64;
        let done = (w.reads.len() + w.writes.len()) as f64;
        let per_s = |x: f64| if span > 0.0 { x / span * 1e9 } else { 0.0 };
        TimeWindow {
            requests: done as u64,
            span_us: span / 1e3,
            iops: per_s(done),
            mb_per_s: per_s(w.pages as f64 * f64::from(self.spec.page_size)) / 1e6,
            read_mean: Latency::of(&w.reads).mean,
            read_p99: Latency::of(&w.reads).p99,
            write_mean: Latency::of(&w.writes).mean,
            write_p99: Latency::of(&w.writes).p99,
            die_busy: if span > 0.0 {
                (work - w.work) as f64 / (span * dies)
            } else {
                0.0
            },
        }
    }

    /// The closed windows and the one under way, if it has requests.
    fn windows_so_far(&self) -> Vec<TimeWindow> {
        let mut all = self.windows.clone();
        if self.window.first.is_some() {
            all.push(self.window_of(&self.window));
        }
        all
    }

    /// The report of the measured phase so far.
    pub fn report(&self) -> TimeReport {
        let mut whole = self.whole.clone();
        whole.merge(&self.window);
        let w = &whole;
        let span = w.span_ns() as f64;
        let per_s = |x: f64| if span > 0.0 { x / span * 1e9 } else { 0.0 };
        let shares: Vec<f64> = self
            .flash
            .work
            .iter()
            .map(|&b| if span > 0.0 { b as f64 / span } else { 0.0 })
            .collect();
        let work: u64 = self.flash.work.iter().sum();
        let gc: u64 = self.flash.gc_work.iter().sum();
        let (reads, writes) = (w.reads.len(), w.writes.len());
        TimeReport {
            device: self.spec.to_string(),
            arrivals: self.arrivals_spec.to_string(),
            dies: self.spec.total_dies(),
            read_requests: reads,
            write_requests: writes,
            read_pages: self.read_pages,
            write_pages: self.write_pages,
            span_us: span / 1e3,
            iops: per_s((reads + writes) as f64),
            read_iops: per_s(reads as f64),
            write_iops: per_s(writes as f64),
            mb_per_s: per_s(w.pages as f64 * f64::from(self.spec.page_size)) / 1e6,
            read_latency: Latency::of(&w.reads),
            write_latency: Latency::of(&w.writes),
            die_busy: shares.iter().sum::<f64>() / shares.len().max(1) as f64,
            die_busy_max: shares.iter().copied().fold(0.0, f64::max),
            gc_busy: if work > 0 {
                gc as f64 / work as f64
            } else {
                0.0
            },
            die_shares: shares,
            windows: self.windows_so_far(),
            read_cdf: cdf(&w.reads),
            write_cdf: cdf(&w.writes),
        }
    }
}
