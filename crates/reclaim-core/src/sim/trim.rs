//! A trace's discards (TRIM): at their places among the trace's writes, each takes its pages'
//! data away, so that the cleaner never copies them (DESIGN "Placement schemes": "a trim
//! invalidates"). Pages written again later are written as new.

use super::admission::Way;
use super::{Engine, Simulator};
use crate::error::Result;
use crate::store::NONE;
use crate::trace::convert::Trims;

/// The discards of one pass of a trace, and where the replay is in the pass.
#[derive(Clone, Debug)]
pub(super) struct TrimSchedule {
    trims: Trims,
    /// Page writes of a pass.
    pass: u64,
    /// Trace writes issued in this pass.
    pos: u64,
    /// The next range to apply.
    next: usize,
}

impl TrimSchedule {
    /// The schedule of `trims` over passes of `pass` page writes; `None` without discards.
    pub(super) fn new(trims: Trims, pass: u64) -> Option<Self> {
        (!trims.is_empty()).then_some(TrimSchedule {
            trims,
            pass,
            pos: 0,
            next: 0,
        })
    }

    /// The next range due now (at the replay's place in the pass), taken.
    fn due(&mut self) -> Option<(u32, u32)> {
        let k = self.next;
        (self.trims.at.get(k) == Some(&self.pos)).then(|| {
            self.next += 1;
            (self.trims.first[k], self.trims.pages[k])
        })
    }

    /// Trace writes before the next range or the pass's end.
    fn writes_to_next(&self) -> u64 {
        self.trims.at.get(self.next).map_or(self.pass, |&a| a) - self.pos
    }
}

impl Simulator {
    /// `n` writes of the trace, its discards applied at their places: the writes between two
    /// discards go through [`Self::workload_writes`] whole, so that a trace without discards,
    /// or a run with `trim = false`, takes the same path as before.
    pub(super) fn trace_writes(&mut self, mut n: u64) -> Result<()> {
        if self.source.trims.is_none() {
            return self.replay_writes(n);
        }
        loop {
            while let Some((first, pages)) = self.source.trims.as_mut().and_then(TrimSchedule::due)
            {
                for page in first..first + pages {
                    self.engine.trim_page(page);
                }
            }
            if n == 0 {
                return Ok(());
            }
            let s = self.source.trims.as_mut().expect("a schedule");
            if s.pos == s.pass {
                (s.pos, s.next) = (0, 0);
                continue;
            }
            let k = n.min(s.writes_to_next());
            s.pos += k;
            n -= k;
            self.replay_writes(k)?;
        }
    }

    /// `n` trace writes between discards, request by request under `log`.
    #[inline]
    fn replay_writes(&mut self, n: u64) -> Result<()> {
        if self.on_clock() {
            self.timed_writes(n)
        } else if self.engine.cleaning.log.is_some() {
            self.log_writes(n)
        } else {
            self.workload_writes(n)
        }
    }
}

impl Engine {
    /// Takes `page`'s data away: its copy in a segment is invalidated (told to the policy like a
    /// rewrite's old copy), or its waiting copy taken out of its stream or the sort buffer.
    fn trim_page(&mut self, page: u32) {
        let old = self.dev.store.page_map[page as usize];
        if old == NONE {
            return;
        }
        if old >= self.admission.base {
            match self.admission.way {
                Way::CacheStreams => self.admission.unpend(old, &mut self.dev.store),
                Way::SortBuffer => self.admission.unbuffer(old, &mut self.dev.store),
                Way::Direct { .. } => unreachable!("the direct way holds no waiting pages"),
            }
        } else if self.dev.store.sized() {
            self.dev.invalidate::<true>(old);
        } else {
            self.dev.invalidate::<false>(old);
        }
        self.dev.store.page_map[page as usize] = NONE;
        self.dev.metrics.counters.trimmed += 1;
        if let Some(log) = &mut self.cleaning.log {
            log.trimmed();
        }
    }
}
