//! Multi-log: pages separated into logs of like update frequency, each log a stream.
//!
//! R. Stoica, A. Ailamaki, "Improving Flash Write Performance by Using Update Frequency", VLDB
//! 2013, as Lomet & Luo describe and evaluate it (§6.1.3, §6.3, §7.2): "separates pages into
//! multiple logs so that pages within each log have similar update frequencies"; it "initially
//! places all pages into one log and adjusts the number of logs as the system runs". The rules
//! taken here (issue text and Lomet & Luo; every other choice documented in `docs/design.md`):
//!
//! - logs 0 … L − 1, 0 the hottest, each one stream that takes the user writes and the relocated
//!   pages of its log; a log takes a segment only when a page first goes to it (opened lazily);
//! - a first write goes to log 0;
//! - a relocated page moves one log colder (to L − 1 at most): it outlived a cleaning there;
//! - a user write moves its page one log hotter when its observed update distance (user writes
//!   since its last write) is shorter than the log's expected one, else it stays. The expected
//!   distance of a log is the running mean of the distances observed on it, an exponential
//!   average with weight 2^-8 (the description gives no formula);
//! - `freq=exact` (multi-log-opt): a page's log follows its exact rate p (its probability per
//!   write, carried by the write): log = clamp(L/2 − 1 − ⌊log₂(p·n)⌋, 0, L − 1) with n the
//!   logical pages, so that logs are bands of a factor 2 in rate around the uniform rate 1/n
//!   (log L/2 − 1 holds rates in [1/n, 2/n)); relocation keeps a page in its log.
//!
//! The victim is chosen by `policy::multi_log`: the log whose oldest segment is cheapest to
//! clean.

use super::{Build, Built, Declare};
use super::{Scheme, Relocation};
use crate::config::grammar::{Args, Family, Info, Need, Param};
use crate::error::{Error, Result};
use crate::policy::mdc::{FreqSource, FREQ};
use crate::workload::{Rate, Write};
use crate::rng::SimRng;
use std::fmt;

/// Weight of a new observed distance in a log's expected distance.
const WEIGHT: f64 = 1.0 / 256.0;

/// Logs of pages, by observed or exact update frequency.
#[derive(Clone, Debug)]
pub struct MultiLog {
    logs: u8,
    exact: bool,
    /// Logical pages (the uniform rate is 1/n).
    n: f64,
    /// Per logical page: its log.
    page_log: Vec<u8>,
    /// Per logical page: the user-write count at its last write, `u64::MAX` before the first.
    last: Vec<u64>,
    /// User writes routed so far.
    now: u64,
    /// Per log: its expected update distance [user writes], 0 until one is observed.
    expected: Vec<f64>,
}

impl MultiLog {
    /// `logs` logs over `pages` logical pages, by exact rates or observed distances.
    pub fn new(logs: u8, exact: bool, pages: u64) -> Self {
        MultiLog {
            logs,
            exact,
            n: pages as f64,
            page_log: vec![0; pages as usize],
            last: if exact {
                Vec::new()
            } else {
                vec![u64::MAX; pages as usize]
            },
            now: 0,
            expected: vec![0.0; usize::from(logs)],
        }
    }

    /// The log of a page of exact rate `rate` (see the module note).
    fn exact_log(&self, rate: Rate) -> u8 {
        let p = rate.probability();
        if p <= 0.0 {
            return self.logs - 1;
        }
        let band = (p * self.n).log2().floor();
        (f64::from(self.logs / 2) - 1.0 - band).clamp(0.0, f64::from(self.logs - 1)) as u8
    }
}

impl Scheme for MultiLog {
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        let p = write.page as usize;
        let log = if self.exact {
            self.exact_log(write.rate)
        } else {
            let last = std::mem::replace(&mut self.last[p], self.now);
            let log = self.page_log[p];
            if last == u64::MAX {
                0
            } else {
                let seen = (self.now - last) as f64;
                let e = &mut self.expected[usize::from(log)];
                let hotter = *e > 0.0 && seen < *e;
                *e = if *e == 0.0 {
                    seen
                } else {
                    *e + WEIGHT * (seen - *e)
                };
                if hotter {
                    log.saturating_sub(1)
                } else {
                    log
                }
            }
        };
        self.now += 1;
        self.page_log[p] = log;
        usize::from(log)
    }

    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        let p = r.page as usize;
        if !self.exact {
            self.page_log[p] = (self.page_log[p] + 1).min(self.logs - 1);
        }
        usize::from(self.page_log[p])
    }
}

/// The parameters of multi-log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiLogSpec {
    /// Logs at most, 2 ≤ logs ≤ 64.
    pub logs: u8,
    /// Observed update distances, or exact rates.
    pub freq: FreqSource,
}

const PARAMS: [Param; 2] = [
    Param {
        key: "logs",
        values: "L",
        unit: "logs",
        range: "a whole number in [2, 64]",
        default: Some("8"),
        help: "Logs of like update frequency, each a stream.",
    },
    FREQ,
];

impl Declare for MultiLog {
    type Params = MultiLogSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "multi-log",
        aliases: &[],
        summary: "Pages in logs of like update frequency; relocation moves a page one log colder, an early rewrite one hotter.",
        source: "Stoica & Ailamaki, VLDB 2013, as Lomet & Luo §6.1.3 describe it",
        params: &PARAMS,
        needs: &[Need::PageState],
    };
    const SIZES: bool = true;
    fn parse(args: &Args<'_>) -> Result<MultiLogSpec> {
        let logs: u8 = args.num("logs", Some(8), "a whole number in [2, 64]")?;
        if !(2..=64).contains(&logs) {
            return Err(Error::param(
                "placement.logs",
                logs,
                "a whole number in [2, 64]",
            ));
        }
        Ok(MultiLogSpec {
            logs,
            freq: FreqSource::parse(args)?,
        })
    }
    fn show(m: &MultiLogSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "multi-log:logs={},freq={}", m.logs, m.freq)
    }
    fn streams(m: &MultiLogSpec, _classes: u32) -> u32 {
        u32::from(m.logs)
    }
    // Every log takes relocated pages: one GC stream per log.
    fn reserve(m: &MultiLogSpec, _classes: u32) -> (u64, u64) {
        (u64::from(m.logs) - 1, 1)
    }
    fn build(m: &MultiLogSpec, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        let scheme = MultiLog::new(m.logs, m.freq == FreqSource::Exact, pages);
        Ok(Built::whole(
            scheme,
            vec![true; usize::from(m.logs)],
            u32::from(m.logs),
            b,
        ))
    }
    fn freq(m: &MultiLogSpec) -> Option<FreqSource> {
        Some(m.freq)
    }
    // A log per page (1 byte), and its last write (8) when distances are observed.
    fn page_bytes(m: &MultiLogSpec) -> u64 {
        if m.freq == FreqSource::Exact {
            1
        } else {
            9
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::placement::Victim;
    use rand::SeedableRng;

    use super::*;

    /// A first write goes to log 0; relocation moves a page one log colder, down to the last;
    /// a rewrite sooner than its log's expected distance moves it one log hotter.
    #[test]
    fn pages_move_colder_when_relocated_and_hotter_when_rewritten_soon() {
        let mut m = MultiLog::new(3, false, 10);
        let mut rng = SimRng::seed_from_u64(1);
        let victim = Victim {
            seg: 0,
            stamp: 0,
            dseq: 0,
            region: 0,
            up2: 0.0,
        };
        assert_eq!(m.user_stream(&Write::new(4, 0), 0, &mut rng), 0);
        for expect in [1, 2, 2] {
            assert_eq!(m.gc_stream(Relocation { page: 4, victim: &victim, class: 0, age: 0, rng: &mut rng }), expect);
        }
        // Page 5 is rewritten every 8 writes in log 2, so log 2 expects 8; page 4 then comes
        // back after 2 writes and moves to log 1.
        m.page_log[5] = 2;
        for _ in 0..4 {
            m.user_stream(&Write::new(5, 0), 0, &mut rng);
            m.page_log[5] = 2;
            for _ in 0..7 {
                m.user_stream(&Write::new(9, 0), 0, &mut rng);
            }
        }
        m.last[4] = m.now - 2;
        assert_eq!(m.user_stream(&Write::new(4, 0), 0, &mut rng), 1);
    }

    /// multi-log-opt: bands of a factor 2 in rate around the uniform rate, the hottest in log 0.
    #[test]
    fn exact_rates_fall_in_bands_of_two() {
        let m = MultiLog::new(8, true, 1000);
        let log = |p: f64| m.exact_log(Rate::from_probability(p));
        assert_eq!(log(1.01 / 1000.0), 3);
        assert_eq!(log(1.9 / 1000.0), 3);
        assert_eq!(log(2.1 / 1000.0), 2);
        assert_eq!(log(0.6 / 1000.0), 4);
        assert_eq!(log(0.5), 0);
        assert_eq!(log(1e-9), 7);
    }
}
