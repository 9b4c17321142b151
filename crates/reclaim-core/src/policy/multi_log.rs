//! Multi-log's cleaning: the oldest segment of the log from which space costs least to take.
//!
//! R. Stoica, A. Ailamaki, "Improving Flash Write Performance by Using Update Frequency", VLDB
//! 2013, as Lomet & Luo describe it: "the victim's log is chosen by the smallest marginal cost,
//! and within a log the oldest segment is cleaned; one segment per cleaning" (§6.1.3; §7.2 adds
//! that the original chooses among the writing log and its two neighbours; here all logs).
//!
//! The marginal cost, which the description does not spell out, is read through Lomet & Luo's
//! own analysis (§2.2, §3.2): a log l holds D(l) valid pages in S(l) pages of sealed segments, so
//! its fill factor is F(l) = D(l)/S(l), and with its oldest segment cleaned first under updates
//! uniform within the log, its segments are cleaned at the emptiness E of eq. 4,
//! E = 1 − exp(−E/F(l)). Each of its updates then costs g(F(l)) = (1 − E)/E relocations, and
//! the log's share of the cost is w(l)·g(F(l)), w(l) its share of the updates. Cleaning log l
//! gives its freed space to the others; the log from which space is taken at least cost is the
//! one with the smallest w(l)·g′(F(l))·D(l)/S(l)² (the derivative of its cost with respect to its
//! space). w(l) is counted from the invalidations in the log's sealed segments (the updates of
//! its pages), as an exponential average of weight 2^-12 per invalidation. Ties go to the hotter
//! log; a log with no invalid page in its sealed segments is passed over (one whose oldest segment
//! is full but which has space elsewhere is cleaned on, its cleaning going round the log). A segment's log is the stream that sealed it (the `sealed_by` ledger).

use std::collections::VecDeque;

use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need};
use crate::store::{SegState, Store, NONE};

/// Weight of one invalidation in the logs' update shares.
const WEIGHT: f64 = 1.0 / 4096.0;

/// The emptiness at cleaning of age-based cleaning at fill factor `f` (Lomet & Luo eq. 4), by
/// Newton's method from E = 1 (which converges to the non-zero root).
fn emptiness(f: f64) -> f64 {
    let mut e = 1.0f64;
    for _ in 0..60 {
        let x = (-e / f).exp();
        let next = e - (e - 1.0 + x) / (1.0 - x / f);
        if (next - e).abs() < 1e-13 {
            return next;
        }
        e = next;
    }
    e
}

/// Relocations per update of a log at fill factor `f`: (1 − E)/E.
fn cost(f: f64) -> f64 {
    let e = emptiness(f);
    (1.0 - e) / e
}

/// One log: its sealed segments oldest first, its valid pages and its update share.
#[derive(Clone, Debug, Default)]
struct Log {
    /// (segment, its seal number) in seal order; an entry is stale when the segment is no
    /// longer sealed with that number (cleaned, or freed when it emptied).
    queue: VecDeque<(u32, u64)>,
    /// Sealed segments.
    segments: u64,
    /// Valid pages in them.
    valid: u64,
    /// Exponential average of the share of invalidations that fall in this log.
    share: f64,
}

/// Multi-log's victim selection.
#[derive(Clone, Debug, Default)]
pub struct MultiLogCleaning {
    /// Grown as logs are first sealed from.
    logs: Vec<Log>,
}

impl MultiLogCleaning {
    /// The oldest live segment of log `l`, dropping stale entries.
    fn head(&mut self, l: usize, store: &Store) -> Option<u32> {
        while let Some(&(seg, seq)) = self.logs[l].queue.front() {
            let s = seg as usize;
            if store.state[s] == SegState::Sealed && store.sealed_at[s] == seq {
                return Some(seg);
            }
            self.logs[l].queue.pop_front();
        }
        None
    }

    /// The cost of taking space from `log`: w·g′(F)·D/S², with S in pages.
    fn marginal(log: &Log, pps: u32) -> f64 {
        let space = (log.segments * u64::from(pps)) as f64;
        let f = (log.valid as f64 / space).clamp(1e-6, 1.0 - 1e-6);
        let h = 1e-4 * f.min(1.0 - f);
        let slope = (cost(f + h) - cost(f - h)) / (2.0 * h);
        log.share * slope * log.valid as f64 / (space * space)
    }

    fn log_of(store: &Store, seg: u32) -> usize {
        usize::from(store.facts.sealed_by()[seg as usize])
    }
}

impl VictimPolicy for MultiLogCleaning {
    fn on_seal(&mut self, seg: u32, _user: bool, store: &Store) {
        let s = seg as usize;
        let l = Self::log_of(store, seg);
        if l >= self.logs.len() {
            self.logs.resize(l + 1, Log::default());
        }
        let log = &mut self.logs[l];
        log.queue.push_back((seg, store.sealed_at[s]));
        log.segments += 1;
        log.valid += u64::from(store.valid[s]);
    }

    fn on_invalidate(&mut self, seg: u32, slot: u32, store: &Store) {
        let l = Self::log_of(store, seg);
        self.logs[l].valid -= 1;
        if slot == NONE {
            // A further slot of a page with a size: one update, counted once.
            return;
        }
        for (i, log) in self.logs.iter_mut().enumerate() {
            let hit = if i == l { 1.0 } else { 0.0 };
            log.share += WEIGHT * (hit - log.share);
        }
    }

    fn on_remove(&mut self, seg: u32, store: &Store) {
        let log = &mut self.logs[Self::log_of(store, seg)];
        log.segments -= 1;
        log.valid -= u64::from(store.valid[seg as usize]);
    }

    fn select(&mut self, store: &Store, _clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        let mut best: Option<(f64, usize, u32)> = None;
        for l in 0..self.logs.len() {
            if let Some(seg) = self.head(l, store) {
                // A log without an invalid page anywhere has nothing to give. One with some,
                // even behind a full oldest segment, gives it as its cleaning goes round.
                let log = &self.logs[l];
                let m = if log.valid >= log.segments * u64::from(store.pps) {
                    f64::INFINITY
                } else {
                    Self::marginal(log, store.pps)
                };
                if best.is_none_or(|(c, _, _)| m < c) {
                    best = Some((m, l, seg));
                }
            }
        }
        let (_, l, seg) = best?;
        let log = &mut self.logs[l];
        log.queue.pop_front();
        log.segments -= 1;
        log.valid -= u64::from(store.valid[seg as usize]);
        Some(seg)
    }
}

impl Declare for MultiLogCleaning {
    type Params = ();
    const INFO: Info = Info {
        family: Family::Policy,
        name: "multi-log",
        aliases: &[],
        summary: "The oldest segment of the log whose space is cheapest to take; with the multi-log placement.",
        source: "Stoica & Ailamaki, VLDB 2013, as Lomet & Luo §6.1.3 describe it",
        params: &[],
        needs: &[Need::SealedBy],
    };
    fn parse(_args: &Args<'_>) -> Result<()> {
        Ok(())
    }
    fn show((): &(), f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("multi-log")
    }
    fn build((): &(), _g: &Geometry) -> Self {
        MultiLogCleaning::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq. 4 at F = 0.8: E = 0.3714 (Lomet & Luo Table 1's analysis, `docs/validation.md`).
    #[test]
    fn emptiness_is_eq_4() {
        assert!(
            (emptiness(0.8) - 0.371_4).abs() < 1e-4,
            "{}",
            emptiness(0.8)
        );
        assert!(
            (emptiness(0.5) - 0.796_8).abs() < 1e-4,
            "{}",
            emptiness(0.5)
        );
    }
}
