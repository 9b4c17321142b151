//! The measured phase of a timed run (`--device`): each request given its arrival time, its
//! pages' flash operations put on the device's timelines together with the cleaning it
//! triggers, and its completion tallied (`crate::time`).
//!
//! A write request's pages pass through the engine exactly as in a run without time; what the
//! engine decided while placing them (relocation reads and programs, erases) is put on the
//! clock at the request's arrival, ahead of the request's own programs, so that the write waits
//! for the cleaning it caused on every die it touches, and later requests wait behind it where
//! they share a die. Reads take a flash read on the die that holds their page.

use rand::{Rng, SeedableRng};

use super::{Phase, Simulator, Way};
use crate::config::SimConfig;
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::store::NONE;
use crate::time::{ArrivalSpec, Timing};
use crate::workload::trace::ReadSchedule;
use crate::workload::Workload;

/// A timed run's state beside the engine.
pub(super) struct Timed {
    pub(super) timing: Timing,
    /// Share of requests that read.
    share: f64,
    /// The law reads are drawn from (the workload's own, with its own generator).
    reads: Option<Workload>,
    rng: SimRng,
    /// Measured phases seen (a `precondition` pass starts the tallies afresh).
    starts: u32,
    /// A trace's reads, in trace order among its writes.
    pub(super) trace_reads: Option<ReadSchedule>,
    /// Trace page writes issued since the replay began (prefix and earlier passes included);
    /// `None` until the measured phase's first.
    trace_writes: Option<u64>,
    /// The write request under way: its arrival and its pages' latest completion so far [ns],
    /// its pages still to write and its pages in all.
    current: Option<(u64, u64, u32, u32)>,
}

impl Timed {
    pub(super) fn new(timing: Timing, share: f64, reads: Option<Workload>, seed: u64) -> Self {
        Timed {
            timing,
            share,
            reads,
            rng: SimRng::seed_from_u64(seed ^ 0x7265_6164_7321_0001),
            starts: 0,
            current: None,
            trace_reads: None,
            trace_writes: None,
        }
    }

    /// Whether every request reads.
    pub(super) fn reads_only(&self) -> bool {
        self.share >= 1.0
    }
}

impl super::Device {
    /// Where slot `slot` is for the clock: its offset in its segment and the segment's region;
    /// `None` for no slot.
    fn place_of(&self, slot: u32) -> Option<(u32, u16)> {
        (slot != NONE).then(|| {
            let pps = self.store.pps;
            (slot % pps, self.region_of(slot / pps) as u16)
        })
    }
}

impl super::Engine {
    /// Background cleaning: one victim cleaned when the device's one region has fewer than
    /// `high` free segments beyond its reserve and a sealed segment to clean; whether it freed
    /// room. A placement of several regions is cleaned only as its trigger asks.
    pub(super) fn clean_ahead(&mut self, high: usize) -> Result<bool> {
        if self.dev.placement.regions.len() != 1 || self.dev.store.sealed.is_empty() {
            return Ok(false);
        }
        let before = self.dev.free(0);
        if before >= high + self.dev.reserve(0) {
            return Ok(false);
        }
        self.clean(0, 1, false)?;
        let freed = self.dev.free(0) > before;
        if freed {
            self.cleaning.streak = 0;
        }
        Ok(freed)
    }
}

/// The clock of a configuration with a device (`None` without one): what the device model
/// cannot time is an error that says why, and so is an open loop over a trace without times.
pub(super) fn on_device(
    config: &SimConfig,
    way: Way,
    read_law: Option<Workload>,
    timestamps: bool,
) -> Result<Option<Box<Timed>>> {
    let Some(device) = &config.device else {
        return Ok(None);
    };
    if way == Way::CacheStreams {
        return Err(Error::param(
            "streams",
            "`cache` with a `device`",
            "`hole` (the device model times each page where the engine places it; pages waiting in a stream have no place yet)",
        ));
    }
    if way != (Way::Direct { sized: false }) {
        return Err(Error::param(
            "placement",
            format!("`{}` with a `device`", config.placement()),
            "a placement whose writes take their slots at once (no sort buffer, no cache streams): the device model times each page where the engine places it",
        ));
    }
    let arrivals = config.arrivals.unwrap_or_default();
    if let ArrivalSpec::Trace { .. } = arrivals {
        if !timestamps {
            let what = if config.is_trace() {
                format!("`{}`, whose trace has no request times", config.workload)
            } else {
                format!(
                    "a generated workload (`{}`), which has no times",
                    config.workload
                )
            };
            return Err(Error::param(
                "arrivals",
                format!("`{arrivals}` over {what}"),
                "`closed:iodepth=N` (a closed loop) or `poisson:iops=N` (open loop at a rate)",
            ));
        }
    }
    let share = config.reads.unwrap_or(0.0);
    let timing = Timing::new(device, arrivals, config.seed);
    Ok(Some(Box::new(Timed::new(
        timing,
        share,
        read_law,
        config.seed,
    ))))
}

impl Simulator {
    /// `n` measured page writes (reads, when every request reads) on the clock.
    pub(super) fn timed_writes(&mut self, n: u64) -> Result<()> {
        let mut timed = self.timed.take().expect("a timed run");
        if timed.starts != self.plan.measure_starts {
            timed.starts = self.plan.measure_starts;
            timed.timing.restart();
        }
        if self.engine.dev.ops.is_none() {
            self.engine.dev.ops = Some(Vec::with_capacity(4096));
        }
        let result = self.timed_requests(&mut timed, n);
        self.timed = Some(timed);
        result
    }

    fn timed_requests(&mut self, timed: &mut Timed, n: u64) -> Result<()> {
        if timed.reads_only() {
            for _ in 0..n {
                self.timed_read(timed);
            }
            return Ok(());
        }
        self.source.prime(&self.engine.dev.store.page_map);
        if let (Some(schedule), None) = (timed.trace_reads.as_mut(), timed.trace_writes) {
            // The reads of the unmeasured writes before are passed over.
            let issued = self.plan.issued - self.plan.synthetic;
            timed.trace_writes = Some(issued);
            if issued > 0 {
                schedule.skip(issued - 1);
            }
        }
        for _ in 0..n {
            if let Some(issued) = timed.trace_writes {
                self.timed_trace_reads(timed, issued);
                timed.trace_writes = Some(issued + 1);
            }
            // Reads come between write requests: a geometric number of them before each.
            if timed.current.is_none() {
                while timed.share > 0.0 && timed.rng.random::<f64>() < timed.share {
                    self.timed_read(timed);
                }
            }
            self.timed_write(timed)?;
        }
        Ok(())
    }

    /// Background cleaning before a request arriving at `t`, while the dies are idle and the
    /// free pool is under its mark.
    fn clean_ahead(&mut self, timed: &mut Timed, t: u64) -> Result<()> {
        let high = match timed.timing.spec().high {
            0 => self.engine.cleaning.gc.min_free() as usize + 2,
            h => h as usize,
        };
        while let Some(idle) = timed.timing.idle_before(t) {
            if !self.engine.clean_ahead(high)? {
                break;
            }
            let ops = self.engine.dev.ops.as_mut().expect("recording");
            timed.timing.clean(idle, ops);
        }
        Ok(())
    }

    /// The trace's reads due before the page write that follows `issued` trace page writes,
    /// each a request of its pages, read where they are now.
    fn timed_trace_reads(&mut self, timed: &mut Timed, issued: u64) {
        let schedule = timed.trace_reads.as_mut().expect("a schedule");
        while let Some(request) = schedule.due(issued) {
            let trace_us = request.time_us.unwrap_or(self.engine.dev.clocks.trace_time);
            let t = timed.timing.arrive(trace_us);
            let mut done = t;
            for (i, page) in schedule.pages(&request).enumerate() {
                let slot = page.map_or(NONE, |p| {
                    self.engine
                        .dev
                        .store
                        .page_map
                        .get(p as usize)
                        .copied()
                        .unwrap_or(NONE)
                });
                let at = self.engine.dev.place_of(slot);
                // A page without data is read, with `unwritten=read`, on the die its number
                // (or, without an id, its place in the request) maps to.
                let number = page.unwrap_or(i as u32);
                done = done.max(timed.timing.read(t, at, number));
            }
            timed.timing.complete(true, t, done, request.pages);
        }
    }

    /// One read request of one page drawn by the read law.
    fn timed_read(&mut self, timed: &mut Timed) {
        let t = timed.timing.arrive(self.engine.dev.clocks.trace_time);
        let workload = timed.reads.as_mut().expect("a read law");
        let page = workload.next(&mut timed.rng).page;
        let at = self
            .engine
            .dev
            .place_of(self.engine.dev.store.page_map[page as usize]);
        let done = timed.timing.read(t, at, page);
        timed.timing.complete(true, t, done, 1);
    }

    /// One page write, which begins a write request when none is under way (a trace's request
    /// of several pages, else one page), and completes it with its last page.
    fn timed_write(&mut self, timed: &mut Timed) -> Result<()> {
        let (w, _, _) = self.source.draw(&self.engine.dev.store.page_map);
        let mut pages = 1;
        if let Some(c) = &mut self.source.clock {
            let starts = c.starts();
            self.engine.dev.clocks.trace_time = c.tick();
            if let Some(p) = starts {
                pages = p;
                self.engine.request(w.page, p);
            }
        }
        let (arrival, done, left, total) = if let Some(r) = timed.current {
            r
        } else {
            let t = timed.timing.arrive(self.engine.dev.clocks.trace_time);
            self.clean_ahead(timed, t)?;
            (t, t, pages, pages)
        };
        self.engine.user_write(w)?;
        let ops = self.engine.dev.ops.as_mut().expect("recording");
        timed.timing.clean(arrival, ops);
        let slot = self.engine.dev.store.page_map[w.page as usize];
        let (off, region) = self.engine.dev.place_of(slot).expect("a page just written");
        let done = done.max(timed.timing.program(arrival, off, region));
        timed.current = if left > 1 {
            Some((arrival, done, left - 1, total))
        } else {
            timed.timing.complete(false, arrival, done, total);
            None
        };
        Ok(())
    }

    /// Whether the measured phase runs on the clock.
    pub(super) fn on_clock(&self) -> bool {
        self.timed.is_some() && matches!(self.plan.phase, Phase::Measure(_))
    }
}
