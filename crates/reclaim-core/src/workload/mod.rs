//! Workloads: streams of writes. One file per generator.
//!
//! A write is a record, [`Write`]: the page and, where the workload knows it, the page's class,
//! so that a placement that separates classes (an oracle) learns them from the writes and never
//! from the generator.

pub mod sizes;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{check_range, entries, join, parse_entry, string_serde};

/// Synthetic workload (`--workload`).
#[derive(Clone, Debug, PartialEq, Default)]
pub enum WorkloadSpec {
    /// `uniform`: every logical page equally likely.
    #[default]
    Uniform,
    /// `hotcold:r=R,f=F`: a fraction `r` of writes go to a fraction `f` of the pages (Rosenblum;
    /// Van Houdt §2.1).
    HotCold {
        /// Share of writes to hot pages, 0 < r < 1.
        r: f64,
        /// Share of pages that are hot, 0 < f < 1.
        f: f64,
    },
    /// `locality:fa=A,r=R1/R2/…,f=F1/F2/…`: Li et al. §2.2: only a fraction `fa` of the logical
    /// space is written; class i gets a share `r_i` of writes over a share `f_i` of the active pages.
    Locality {
        /// Active share of the logical space, 0 < fa ≤ 1.
        fa: f64,
        /// Write share of each class, each > 0, summing to 1.
        r: Vec<f64>,
        /// Page share of each class (of the active pages), each > 0, summing to 1.
        f: Vec<f64>,
    },
    /// `shifting:r=R,f=F[,period=P]`: hot/cold whose hot window slides one window length every
    /// `P` × logical pages writes, hot pages turning cold over time (Lomet & Luo §6.3).
    Shifting {
        /// Share of writes to the window, 0 < r < 1.
        r: f64,
        /// Share of pages in the window, 0 < f < 1.
        f: f64,
        /// Writes per window length moved [logical capacities], > 0.
        period: f64,
    },
    /// `zipf:theta=T`: Zipf(θ) over a seeded permutation of the pages (Lomet & Luo §6).
    Zipf {
        /// Skew θ > 0 (0.99 ≈ 80-20, 1.35 ≈ 90-10).
        theta: f64,
    },
    /// `zones:s=S1/S2/…,f=F1/F2/…[,shuffle=yes|no]`: SSD-iq's zones (Haas et al., PVLDB 2025):
    /// zone i holds a share `s_i` of the pages and takes a share `f_i` of the writes.
    Zones {
        /// Page share of each zone, each > 0, summing to 1.
        s: Vec<f64>,
        /// Write share of each zone, each ≥ 0, summing to 1.
        f: Vec<f64>,
        /// Whether the zones' pages are scattered by a seeded permutation (SSD-iq's default).
        shuffle: bool,
    },
    /// `trace:PATH`: replay a converted trace (`reclaim trace convert`) or a page-id list.
    Trace {
        /// The trace file.
        path: String,
    },
}

impl FromStr for WorkloadSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let w = match s.trim().strip_prefix("trace:") {
            // The rest is a path, which may itself hold `:` or `,`.
            Some(path) => WorkloadSpec::Trace {
                path: path.to_string(),
            },
            None => parse_entry("workload", s, WORKLOADS)?,
        };
        w.validate()?;
        Ok(w)
    }
}

entries! {
    /// The registry: one line per workload.
    WORKLOADS: WorkloadSpec {
        uniform,
        hot_cold,
        shifting,
        locality,
        zipf,
        zones,
        trace,
    }
}

impl WorkloadSpec {
    /// Checks every parameter's range and the relations between them.
    pub fn validate(&self) -> Result<()> {
        match self {
            WorkloadSpec::Uniform => Ok(()),
            WorkloadSpec::HotCold { r, f } => {
                check_range("workload.r", *r, 0.0, 1.0, true, true)?;
                check_range("workload.f", *f, 0.0, 1.0, true, true)
            }
            WorkloadSpec::Shifting { r, f, period } => {
                check_range("workload.r", *r, 0.0, 1.0, true, true)?;
                check_range("workload.f", *f, 0.0, 1.0, true, true)?;
                check_range("workload.period", *period, 0.0, 1e12, true, false)
            }
            WorkloadSpec::Locality { fa, r, f } => {
                check_range("workload.fa", *fa, 0.0, 1.0, true, false)?;
                if r.len() != f.len() {
                    return Err(Error::param(
                        "workload.r",
                        format!("{} classes", r.len()),
                        format!("as many classes as workload.f ({})", f.len()),
                    ));
                }
                for (name, v) in [("workload.r", r), ("workload.f", f)] {
                    for x in v {
                        check_range(name, *x, 0.0, 1.0, true, false)?;
                    }
                    let sum: f64 = v.iter().sum();
                    if (sum - 1.0).abs() > 1e-6 {
                        return Err(Error::param(
                            name,
                            format!("shares summing to {sum}"),
                            "shares summing to 1",
                        ));
                    }
                }
                Ok(())
            }
            WorkloadSpec::Zipf { theta } => {
                check_range("workload.theta", *theta, 0.0, 100.0, true, false)
            }
            WorkloadSpec::Zones { s, f, .. } => zones::validate(s, f),
            WorkloadSpec::Trace { path } => {
                if path.trim().is_empty() {
                    return Err(Error::param(
                        "workload",
                        "`trace:`",
                        "`trace:PATH` with the path of a converted trace or a page-id list",
                    ));
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for WorkloadSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadSpec::Uniform => write!(f, "uniform"),
            WorkloadSpec::HotCold { r, f: ff } => write!(f, "hotcold:r={r},f={ff}"),
            WorkloadSpec::Shifting { r, f: ff, period } => {
                write!(f, "shifting:r={r},f={ff},period={period}")
            }
            WorkloadSpec::Locality { fa, r, f: ff } => {
                write!(f, "locality:fa={fa},r={},f={}", join(r), join(ff))
            }
            WorkloadSpec::Zipf { theta } => write!(f, "zipf:theta={theta}"),
            WorkloadSpec::Zones { s, f: ff, shuffle } => write!(
                f,
                "zones:s={},f={},shuffle={}",
                join(s),
                join(ff),
                if *shuffle { "yes" } else { "no" }
            ),
            WorkloadSpec::Trace { path } => write!(f, "trace:{path}"),
        }
    }
}
string_serde!(WorkloadSpec);

/// Class of a page whose workload knows no classes.
pub const NO_CLASS: u16 = 0;

/// A page's update rate p, its probability per write, as a 16-bit logarithm: round(−log₂ p ·
/// 1024), so that a write record stays 8 bytes. Resolution 2^(1/1024) − 1 ≈ 0.07% of p, for
/// p from 1 down to 2^−64; [`Rate::UNKNOWN`] where the workload does not know it.
// Transparent: a slice of rates is a slice of their codes ([`Rate::codes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Rate(u16);

impl Rate {
    /// The stored logarithms of `rates` ([`Self::code`]), without a copy.
    pub fn codes(rates: &[Rate]) -> &[u16] {
        // SAFETY: `Rate` is `repr(transparent)` over `u16`: same size, alignment and validity,
        // so the slice reinterpreted has the same length and lifetime.
        unsafe { std::slice::from_raw_parts(rates.as_ptr().cast::<u16>(), rates.len()) }
    }

    /// No rate known.
    pub const UNKNOWN: Rate = Rate(u16::MAX);

    /// The rate of probability `p` per write (0 < p ≤ 1; anything else is unknown).
    pub fn from_probability(p: f64) -> Rate {
        if p > 0.0 && p <= 1.0 {
            Rate((-p.log2() * 1024.0).round().min(65534.0) as u16)
        } else {
            Rate::UNKNOWN
        }
    }

    /// The rate whose stored logarithm is `code` (`u16::MAX`: unknown).
    #[inline]
    pub fn from_code(code: u16) -> Rate {
        Rate(code)
    }

    /// The stored logarithm, round(−log₂ p · 1024) (`u16::MAX` when unknown): larger is rarer.
    #[inline]
    pub fn code(self) -> u16 {
        self.0
    }

    /// The probability per write (0 when unknown).
    #[inline]
    pub fn probability(self) -> f64 {
        if self == Rate::UNKNOWN {
            0.0
        } else {
            (-f64::from(self.0) / 1024.0).exp2()
        }
    }
}

/// One write as the workload issues it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Write {
    /// Logical page.
    pub page: u32,
    /// The page's class: hot/cold 0 hot, 1 cold; locality i for class i + 1 of Li et al. §2.2 and
    /// n for the inactive pages; zones i for zone i; a trace with `trace_classes`, by access count (0 the most
    /// written) and one more for pages the trace never writes; otherwise [`NO_CLASS`].
    pub class: u16,
    /// The page's update rate: its probability per write, where the workload knows it (uniform,
    /// hot/cold, locality; Zipf when asked, [`Workload::keep_rates`]). MDC-opt and
    /// multi-log-opt read it (Lomet & Luo §6.1.3: "the exact page update frequency").
    pub rate: Rate,
}

impl Write {
    /// A write of `page` in `class` whose rate is not known.
    pub fn new(page: u32, class: u16) -> Self {
        Write {
            page,
            class,
            rate: Rate::UNKNOWN,
        }
    }
}

/// Pages and write share of one class of a workload.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ClassShare {
    /// Logical pages in the class.
    pub pages: u64,
    /// Share of the workload's writes that go to the class (0 for pages never written).
    pub write_share: f64,
}

/// A write generator.
#[derive(Clone, Debug)]
pub enum Workload {
    /// See [`uniform::Uniform`].
    Uniform(uniform::Uniform),
    /// See [`hot_cold::HotCold`].
    HotCold(hot_cold::HotCold),
    /// See [`locality::Locality`].
    Locality(locality::Locality),
    /// See [`shifting::Shifting`].
    Shifting(shifting::Shifting),
    /// See [`zipf::ZipfPages`].
    Zipf(zipf::ZipfPages),
    /// See [`zones::Zones`].
    Zones(zones::Zones),
    /// See [`trace::Replay`].
    Trace(trace::Replay),
}

/// A workload's pages ranked by their exact rates, the most written first: the page at index i
/// has weight (i + 1)^−θ, its rate that weight over the sum of all.
#[derive(Clone, Copy, Debug)]
pub struct RateRank<'a> {
    /// The pages, the most written first.
    pub pages: &'a [u32],
    /// The exponent θ of the weights.
    pub theta: f64,
}

impl RateRank<'_> {
    /// The weight of the page at index `i` (not normalized).
    pub fn weight(&self, i: usize) -> f64 {
        ((i + 1) as f64).powf(-self.theta)
    }
}

impl Workload {
    /// The page writes of a trace workload, in replay order.
    pub fn trace_pages(&self) -> Option<&[u32]> {
        match self {
            Workload::Trace(r) => Some(r.pages()),
            _ => None,
        }
    }

    /// The generator of `spec` over `logical_pages` pages; `rng` seeds any permutation it needs;
    /// `trace` holds the page writes of a trace workload.
    /// `thresholds` splits a trace's pages into classes by access count (`trace_classes`).
    pub fn new(
        spec: &WorkloadSpec,
        logical_pages: u64,
        rng: &mut SimRng,
        trace: Option<Arc<Vec<u32>>>,
        thresholds: Option<&[u64]>,
    ) -> Result<Self> {
        let n = logical_pages as u32;
        Ok(match spec {
            WorkloadSpec::Trace { path } => {
                let pages = trace.ok_or_else(|| {
                    Error::param(
                        "workload",
                        format!("`trace:{path}`"),
                        "a trace loaded before the workload is built",
                    )
                })?;
                Workload::Trace(trace::Replay::new(pages, logical_pages, thresholds))
            }
            WorkloadSpec::Uniform => Workload::Uniform(uniform::Uniform::new(n)),
            WorkloadSpec::HotCold { r, f } => Workload::HotCold(hot_cold::HotCold::new(n, *r, *f)?),
            WorkloadSpec::Shifting { r, f, period } => {
                Workload::Shifting(shifting::Shifting::new(n, *r, *f, *period)?)
            }
            WorkloadSpec::Locality { fa, r, f } => {
                Workload::Locality(locality::Locality::new(n, *fa, r, f)?)
            }
            WorkloadSpec::Zipf { theta } => Workload::Zipf(zipf::ZipfPages::new(n, *theta, rng)?),
            WorkloadSpec::Zones { s, f, shuffle } => {
                Workload::Zones(zones::Zones::new(n, s, f, *shuffle, rng)?)
            }
        })
    }

    /// The next write.
    #[inline]
    pub fn next(&mut self, rng: &mut SimRng) -> Write {
        match self {
            Workload::Uniform(w) => Write {
                page: w.next(rng),
                class: NO_CLASS,
                rate: w.rate(),
            },
            Workload::HotCold(w) => w.next(rng),
            Workload::Locality(w) => w.next(rng),
            Workload::Shifting(w) => w.next(rng),
            Workload::Zipf(w) => w.next_write(rng),
            Workload::Zones(w) => w.next(rng),
            Workload::Trace(w) => w.next_write(),
        }
    }

    /// The class of `page` (for writes the workload did not draw: the sequential fill, and the
    /// uniform warm-up of a trace).
    #[inline]
    pub fn class_of(&self, page: u32) -> u16 {
        match self {
            Workload::Uniform(_) | Workload::Zipf(_) => NO_CLASS,
            Workload::HotCold(w) => w.class_of(page),
            Workload::Locality(w) => w.class_of(page),
            Workload::Shifting(w) => w.class_of(page),
            Workload::Zones(w) => w.class_of(page),
            Workload::Trace(w) => w.class_of(page),
        }
    }

    /// Its pages ranked by their own exact rates, where it knows them page by page (a Zipf's
    /// ranks); `None` where the rates are its classes' (or a trace's, unknown ahead).
    pub fn rate_rank(&self) -> Option<RateRank<'_>> {
        match self {
            Workload::Zipf(w) => Some(w.rate_rank()),
            _ => None,
        }
    }

    /// Makes every write carry its page's rate (a Zipf workload computes it only when asked).
    pub fn keep_rates(&mut self) {
        if let Workload::Zipf(w) = self {
            w.keep_rates();
        }
    }

    /// The update rate of `page` (for writes the workload did not draw, as [`Self::class_of`]);
    /// unknown for a trace.
    pub fn rate_of(&self, page: u32) -> Rate {
        match self {
            Workload::Uniform(w) => w.rate(),
            Workload::HotCold(w) => w.rate_of_class(w.class_of(page)),
            Workload::Locality(w) => w.rate_of_class(w.class_of(page)),
            Workload::Shifting(w) => w.rate_of_class(w.class_of(page)),
            Workload::Zipf(w) => w.rate_of(page),
            Workload::Zones(w) => w.rate_of_class(w.class_of(page)),
            Workload::Trace(_) => Rate::UNKNOWN,
        }
    }

    /// Pages and write share of each class, in class order.
    pub fn class_shares(&self, logical_pages: u64) -> Vec<ClassShare> {
        match self {
            Workload::Uniform(_) | Workload::Zipf(_) => vec![ClassShare {
                pages: logical_pages,
                write_share: 1.0,
            }],
            Workload::HotCold(w) => w.class_shares(),
            Workload::Shifting(w) => w.class_shares(),
            Workload::Locality(w) => w.class_shares(logical_pages),
            Workload::Zones(w) => w.class_shares(),
            Workload::Trace(w) => w.class_shares(logical_pages),
        }
    }
}
