//! Trace-driven methods: how a trace is replayed to measure a device (`--method`). One file per
//! method, each declaring itself; the run plan (`sim::plan`) carries them out. The registry at the
//! end of this file collects them, one line each.
//!
//! A method decides three things the configuration's other parameters leave open for a trace: how
//! the device is sized (from the trace's address space or its working set), what brings it to a
//! steady state before the measurement (a uniform warm-up, a prefix of the trace, the trace
//! itself), and how much is measured (see `docs/traces.md`, "Methods").

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::spec::{entries, parse_entry, string_serde};

pub use log::Log;
pub use precondition::{Measure, Precondition};

/// How a trace is replayed (`--method`); with a trace workload the default is
/// [`MethodSpec::Precondition`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MethodSpec {
    /// `li`: Li et al. §6.1. The device holds the trace's address space (largest page + 1), a
    /// uniform warm-up (`warmup`, default `fill+10x`) fills it, the trace is replayed once.
    Li,
    /// `stockmeyer:prefix=N`: Stockmeyer §2.1–2.3. A uniform warm-up (`warmup`, default
    /// `fill+10x`), then the trace's first `prefix` writes unmeasured, then the rest measured
    /// (or whole passes, `writes=Np`, §8).
    Stockmeyer {
        /// Trace writes replayed unmeasured after the uniform warm-up (the report: the first
        /// million); `warmup`'s `+P%` overrides it.
        prefix: u64,
    },
    /// `precondition:tol=T,max_passes=K,measure=settled|after`: the device is sized from the
    /// trace's working set and the spare; the trace itself preconditions it, pass after pass,
    /// until the write amplification of a pass differs from the last one's by at most `tol`.
    Precondition(Precondition),
    /// `log:gp=G,room=R`: SepBIT's replay. A log of no fixed capacity (sized from the trace's
    /// working set), replayed once from empty and measured throughout; after every write
    /// request one segment is collected if the garbage proportion exceeds `gp`.
    Log(Log),
}

impl Default for MethodSpec {
    fn default() -> Self {
        MethodSpec::Precondition(Precondition::default())
    }
}

impl MethodSpec {
    /// The method's name.
    pub fn name(&self) -> &'static str {
        match self {
            MethodSpec::Li => "li",
            MethodSpec::Stockmeyer { .. } => "stockmeyer",
            MethodSpec::Precondition(_) => "precondition",
            MethodSpec::Log(_) => "log",
        }
    }

    /// Whether the device is sized from the trace's working set (the pages it writes, renamed
    /// densely) rather than its address space.
    pub fn sizes_from_working_set(&self) -> bool {
        matches!(self, MethodSpec::Precondition(_) | MethodSpec::Log(_))
    }
}

impl FromStr for MethodSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        parse_entry("method", s, METHODS)
    }
}

impl fmt::Display for MethodSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MethodSpec::Li => f.write_str("li"),
            MethodSpec::Stockmeyer { prefix } => write!(f, "stockmeyer:prefix={prefix}"),
            MethodSpec::Precondition(p) => p.fmt(f),
            MethodSpec::Log(l) => l.fmt(f),
        }
    }
}
string_serde!(MethodSpec);

entries! {
    /// Every trace-driven method, one line each.
    METHODS: MethodSpec {
        precondition,
        li,
        stockmeyer,
        log,
    }
}
