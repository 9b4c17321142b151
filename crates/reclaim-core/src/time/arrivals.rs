//! When requests arrive (`--arrivals`): at a trace's own times (open loop, `speed` rescaling
//! them), as a Poisson process at a rate, or in a closed loop that keeps `iodepth` requests
//! outstanding (fio's iodepth). Only the closed loop keeps an event queue: the completion times
//! of the requests outstanding.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};

use crate::error::{num, Error, Result};
use crate::rng::SimRng;
use crate::spec::{parse_entry, string_serde, Entry, Family, Info, Param};

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArrivalSpec {
    /// `trace[:speed=X]`: at the trace's own times divided by `speed`.
    Trace {
        /// Time compression, > 0 (2: twice as fast).
        speed: f64,
    },
    /// `poisson:iops=N`: exponential gaps of mean 1/N seconds.
    Poisson {
        /// Requests per second, > 0.
        iops: f64,
    },
    /// `closed:iodepth=N`: a new request as soon as one of the N outstanding completes.
    Closed {
        /// Requests outstanding, ≥ 1.
        iodepth: u32,
    },
}

impl Default for ArrivalSpec {
    fn default() -> Self {
        ArrivalSpec::Closed { iodepth: 1 }
    }
}

/// The fastest a trace may be replayed: its clock counts microseconds and the device's
/// nanoseconds, so `speed` above 1,000 would give requests 1 µs apart less than a nanosecond.
pub const MAX_SPEED: f64 = 1000.0;

const TRACE: Info = Info {
    family: Family::Arrivals,
    name: "trace",
    aliases: &[],
    summary: "Open loop at the trace's own request times (divided by speed).",
    source: "the trace's timestamps (MQSim's and FEMU's trace replay)",
    params: &[Param {
        key: "speed",
        values: "X",
        unit: "",
        range: "a number in (0, 1000]",
        default: Some("1"),
        help: "Time compression: 2 replays twice as fast.",
    }],
    needs: &[],
};

const POISSON: Info = Info {
    family: Family::Arrivals,
    name: "poisson",
    aliases: &[],
    summary: "Open loop, exponential gaps at a mean rate.",
    source: "MQSim's synthetic flows (their Bandwidth tag; exponential inter-arrival times)",
    params: &[Param {
        key: "iops",
        values: "N",
        unit: "requests/s",
        range: "a number in (0, 1e9]",
        default: None,
        help: "Mean arrival rate.",
    }],
    needs: &[],
};

const CLOSED: Info = Info {
    family: Family::Arrivals,
    name: "closed",
    aliases: &[],
    summary: "Closed loop: iodepth requests outstanding, a new one as each completes.",
    source: "fio's iodepth; MQSim's QUEUE_DEPTH flows",
    params: &[Param {
        key: "iodepth",
        values: "N",
        unit: "requests",
        range: "a whole number in [1, 65536]",
        default: Some("1"),
        help: "Requests outstanding.",
    }],
    needs: &[],
};

/// The registry.
pub const ARRIVALS: &[Entry<ArrivalSpec>] = &[
    Entry {
        info: TRACE,
        parse: |a| {
            let speed = a.num("speed", Some(1.0), "a number in (0, 1000]")?;
            crate::spec::check_range(&a.key("speed"), speed, 0.0, MAX_SPEED, true, false)?;
            Ok(ArrivalSpec::Trace { speed })
        },
    },
    Entry {
        info: POISSON,
        parse: |a| {
            let iops = a.num("iops", None, "a number in (0, 1e9]")?;
            crate::spec::check_range(&a.key("iops"), iops, 0.0, 1e9, true, false)?;
            Ok(ArrivalSpec::Poisson { iops })
        },
    },
    Entry {
        info: CLOSED,
        parse: |a| {
            let iodepth: u32 = a.num("iodepth", Some(1), "a whole number in [1, 65536]")?;
            if !(1..=65_536).contains(&iodepth) {
                return Err(Error::param(
                    &a.key("iodepth"),
                    iodepth,
                    "a whole number in [1, 65536]",
                ));
            }
            Ok(ArrivalSpec::Closed { iodepth })
        },
    },
];

impl FromStr for ArrivalSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        parse_entry("arrivals", s, ARRIVALS)
    }
}

impl fmt::Display for ArrivalSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArrivalSpec::Trace { speed } if speed.to_bits() == 1f64.to_bits() => {
                f.write_str("trace")
            }
            ArrivalSpec::Trace { speed } => write!(f, "trace:speed={}", num(*speed)),
            ArrivalSpec::Poisson { iops } => write!(f, "poisson:iops={}", num(*iops)),
            ArrivalSpec::Closed { iodepth } => write!(f, "closed:iodepth={iodepth}"),
        }
    }
}

string_serde!(ArrivalSpec);

/// The arrival process of a run in progress.
pub(crate) enum Arrivals {
    /// Nanoseconds per trace microsecond.
    Trace { ns_per_us: f64 },
    Poisson {
        /// Mean gap [ns].
        gap: f64,
        /// The last arrival [ns], kept fractional so that rounding does not bias the rate.
        at: f64,
        rng: SimRng,
    },
    Closed {
        depth: usize,
        /// Completion times of the requests outstanding [ns].
        outstanding: BinaryHeap<Reverse<u64>>,
        /// The last issue time [ns].
        at: u64,
    },
}

impl Arrivals {
    /// The process of `spec`; Poisson draws from its own generator, seeded from the run's
    /// seed, so that the cleaner's draws are those of the same run without time.
    pub(crate) fn new(spec: ArrivalSpec, seed: u64) -> Self {
        match spec {
            ArrivalSpec::Trace { speed } => Arrivals::Trace {
                ns_per_us: 1e3 / speed,
            },
            ArrivalSpec::Poisson { iops } => Arrivals::Poisson {
                gap: 1e9 / iops,
                at: 0.0,
                rng: SimRng::seed_from_u64(seed ^ 0x7469_6d65_6172_7276),
            },
            ArrivalSpec::Closed { iodepth } => Arrivals::Closed {
                depth: iodepth as usize,
                outstanding: BinaryHeap::with_capacity(iodepth as usize + 1),
                at: 0,
            },
        }
    }

    /// The next request's issue time [ns]; `trace_us`: its time on the trace's clock [µs since
    /// the measured phase began].
    pub(crate) fn next(&mut self, trace_us: u64) -> u64 {
        match self {
            Arrivals::Trace { ns_per_us } => (trace_us as f64 * *ns_per_us).round() as u64,
            Arrivals::Poisson { gap, at, rng } => {
                // Inverse transform: −ln(1 − u) × mean, u uniform in [0, 1).
                let u: f64 = rng.random();
                *at += -(1.0 - u).ln() * *gap;
                at.round() as u64
            }
            Arrivals::Closed {
                depth,
                outstanding,
                at,
            } => {
                if outstanding.len() >= *depth {
                    let Reverse(t) = outstanding.pop().expect("a full queue");
                    *at = (*at).max(t);
                }
                *at
            }
        }
    }

    /// A request issued by [`Self::next`] completes at `t` [ns].
    pub(crate) fn completed(&mut self, t: u64) {
        if let Arrivals::Closed { outstanding, .. } = self {
            outstanding.push(Reverse(t));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_print_and_check_ranges() {
        for s in [
            "trace",
            "trace:speed=2",
            "poisson:iops=50000",
            "closed:iodepth=32",
        ] {
            assert_eq!(s.parse::<ArrivalSpec>().unwrap().to_string(), s);
        }
        let e = |s: &str| s.parse::<ArrivalSpec>().unwrap_err().to_string();
        assert!(e("poisson").contains("`iops=`"));
        assert!(e("closed:iodepth=0").contains("`arrivals.iodepth`: 0"));
        assert!(e("trace:speed=5000").contains("(0, 1000]"));
    }

    #[test]
    fn poisson_gaps_have_the_asked_mean() {
        // The mean of 200,000 exponential gaps of mean 10 µs is 10 µs within 1% (5 standard
        // errors: 10 µs / sqrt(200,000) × 5 = 0.11 µs).
        let mut a = Arrivals::new(ArrivalSpec::Poisson { iops: 100_000.0 }, 7);
        let mut last = 0;
        for _ in 0..200_000 {
            last = a.next(0);
        }
        let mean = last as f64 / 200_000.0;
        assert!((mean - 10_000.0).abs() < 110.0, "{mean}");
    }

    #[test]
    fn a_closed_loop_issues_as_the_earliest_outstanding_completes() {
        let mut a = Arrivals::new(ArrivalSpec::Closed { iodepth: 2 }, 1);
        assert_eq!(a.next(0), 0);
        a.completed(50);
        assert_eq!(a.next(0), 0);
        a.completed(30);
        assert_eq!(a.next(0), 30);
        a.completed(100);
        assert_eq!(a.next(0), 50);
    }
}
