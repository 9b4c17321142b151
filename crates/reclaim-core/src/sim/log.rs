//! The `log` method's replay and trigger (`method::log`, SepBIT's artifact): the trace's write
//! requests one after another, and after each one segment collected if the log's garbage
//! proportion exceeds the threshold and some sealed segment qualifies as a victim.

use std::sync::Arc;

use super::{Engine, Simulator};
use crate::error::{Error, Result};
use crate::method::Log;
use crate::metrics::LogReport;
use crate::placement::{Request, Scheme};
use crate::store::NONE;

/// Where the replay is among the trace's write requests, and the count the garbage proportion
/// needs.
#[derive(Clone, Debug)]
pub(super) struct LogTrigger {
    rule: Log,
    /// Page writes of each write request of one pass (none empty).
    requests: Arc<Vec<u32>>,
    /// The current request.
    at: usize,
    /// Its pages still to write.
    left: u32,
    /// Pages holding data: written, and neither trimmed since nor rewritten (then counted once).
    live: u64,
    /// Triggers (garbage proportion above the threshold after a request).
    triggers: u64,
    /// Triggers at which no sealed segment qualified, so nothing was collected.
    passed: u64,
    /// Most segments holding data (sealed or open) after a request.
    peak: u64,
}

impl LogTrigger {
    /// The trigger of `rule` over the write requests of a pass, `requests` pages each (a
    /// request of no page writes nothing and is left out).
    pub(super) fn new(rule: Log, requests: &[u32]) -> Self {
        let requests: Vec<u32> = requests.iter().copied().filter(|&n| n > 0).collect();
        let left = requests.first().copied().unwrap_or(u32::MAX);
        LogTrigger {
            rule,
            requests: Arc::new(requests),
            at: 0,
            left,
            live: 0,
            triggers: 0,
            passed: 0,
            peak: 0,
        }
    }

    /// One page of the current request written; whether it was the request's last.
    #[inline]
    fn page_done(&mut self) -> bool {
        self.left -= 1;
        if self.left > 0 {
            return false;
        }
        self.at += 1;
        if self.at == self.requests.len() {
            self.at = 0;
        }
        self.left = self.requests[self.at];
        true
    }

    /// A page holding data lost it to a discard.
    pub(super) fn trimmed(&mut self) {
        self.live -= 1;
    }

    /// What the replay did, for the result.
    pub(super) fn report(&self) -> LogReport {
        LogReport {
            triggers: self.triggers,
            passed: self.passed,
            peak_segments: self.peak,
        }
    }

    /// The stop when the log needs a segment and none of the `segments` allocated is free.
    pub(super) fn outgrown(&self, segments: u32, pps: u32) -> Error {
        Error::param(
            "method.room",
            self.rule.room,
            format!(
                "a larger `room`: the log outgrew the {segments} segments of {pps} pages allocated for it ({} pages holding data); a log floats near working set / (1 − gp) pages unless its write requests invalidate faster than one segment collected per request frees",
                self.live
            ),
        )
    }
}

impl Simulator {
    /// `n` trace writes under `log`: as [`Self::workload_writes`], with the trigger after each
    /// write request.
    pub(super) fn log_writes(&mut self, n: u64) -> Result<()> {
        if let (Some(batch), super::plan::NOT_DRAWN) = (
            self.engine.dev.placement.scheme.batch(),
            self.source.ahead_at,
        ) {
            return self.log_writes_batched(n, batch);
        }
        self.source.prime(&self.engine.dev.store.page_map);
        let prefetch_pages = self.engine.dev.placement.prefetch_pages;
        for _ in 0..n {
            let w = self.next_drawn::<true>(prefetch_pages);
            self.log_write(w)?;
        }
        Ok(())
    }

    /// One trace write under `log`: written, the log's live pages counted, and the trigger run
    /// when it ends its request.
    #[inline]
    fn log_write(&mut self, w: crate::workload::Write) -> Result<()> {
        let new = self.engine.dev.store.page_map[w.page as usize] == NONE;
        self.engine.user_write(w)?;
        let log = self.engine.cleaning.log.as_mut().expect("the log method");
        log.live += u64::from(new);
        if log.page_done() {
            self.engine.log_request_done()?;
        }
        Ok(())
    }
}

impl Simulator {
    /// [`Self::log_writes`] for a placement written outside the engine that classifies user
    /// writes in batches (see `Simulator::batched_writes`): up to `batch` writes drawn and
    /// classified at once, then written one by one, the trace's clock ticking and the trigger
    /// running after each request as they are.
    #[cold]
    #[inline(never)]
    fn log_writes_batched(&mut self, n: u64, batch: usize) -> Result<()> {
        self.in_batches(n, batch, Self::log_write)
    }
}

impl Engine {
    /// A write request of `pages` pages from `first` begins, at the trace clock's time: the
    /// ledgers and the scheme are told (only a scheme that declares `Need::Times` has the clock that counts
    /// requests out).
    #[inline(never)]
    pub(super) fn request(&mut self, first: u32, pages: u32) {
        let request = Request {
            first,
            pages,
            time: self.dev.clocks.trace_time,
            held: self.held(),
        };
        self.dev.store.facts.request(first, pages, request.time);
        self.dev.placement.scheme.request(&request);
    }

    /// A write request is done: if the garbage proportion exceeds the threshold, collect one
    /// qualifying segment (the artifact's `GCScheduler.schedule`, one operation, no loop).
    fn log_request_done(&mut self) -> Result<()> {
        let gp = self.garbage_proportion();
        let store = &self.dev.store;
        let in_use = u64::from(self.geometry.segments) - store.free.len() as u64;
        let log = self.cleaning.log.as_mut().expect("the log method");
        log.peak = log.peak.max(in_use);
        if gp <= log.rule.gp {
            return Ok(());
        }
        log.triggers += 1;
        let rule = log.rule;
        let pps = store.pps;
        // Some sealed segment qualifies (`Log::eligible`); greedy then chooses one of those.
        // (Eligibility falls as the valid count rises: only the low bins need looking at.)
        let qualifies = store
            .sealed_hist
            .iter()
            .enumerate()
            .take_while(|&(valid, _)| rule.eligible(valid as u32, pps))
            .any(|(_, &count)| count > 0);
        if !qualifies {
            log.passed += 1;
            return Ok(());
        }
        self.clean(0, 1, false)
    }

    /// Pages written to the open segments, and those of them still valid.
    fn open_pages(&self) -> (u64, u64) {
        let store = &self.dev.store;
        let (mut pages, mut valid) = (0u64, 0u64);
        for f in self.dev.placement.streams.iter().filter(|f| f.seg != NONE) {
            pages += u64::from(f.next);
            valid += u64::from(store.valid[f.seg as usize]);
        }
        (pages, valid)
    }

    /// Under `log`, the pages the log holds as the artifact counts them: pages holding data,
    /// and stale copies in open segments ([`crate::placement::Request::held`]).
    pub(super) fn held(&self) -> Option<u64> {
        let live = self.cleaning.log.as_ref()?.live;
        let (open_pages, open_valid) = self.open_pages();
        Some(live - open_valid + open_pages)
    }

    /// The log's garbage proportion as the artifact counts it: invalid pages of sealed
    /// segments over the pages written to every segment holding data, open ones included.
    fn garbage_proportion(&self) -> f64 {
        let store = &self.dev.store;
        let pps = u64::from(store.pps);
        let (open_pages, open_valid) = self.open_pages();
        let live = self.cleaning.log.as_ref().map_or(0, |l| l.live);
        let sealed = store.sealed.len() as u64 * pps;
        let invalid = sealed - (live - open_valid);
        let pages = sealed + open_pages;
        if pages == 0 {
            0.0
        } else {
            invalid as f64 / pages as f64
        }
    }
}
