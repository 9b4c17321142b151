//! How long a run is: the warm-up before measurement and the measured user writes.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::spec::string_serde;

/// A number of user writes: a multiple of the logical capacity (`20x`) or a count (`5000000`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// Multiple of `logical_pages`.
    Multiple(f64),
    /// Exact count of user writes.
    Count(u64),
    /// Passes over a trace (`2p`).
    Passes(f64),
}

impl Amount {
    /// The count of writes for a geometry with `logical_pages`.
    pub fn writes(self, logical_pages: u64) -> u64 {
        match self {
            // Passes are resolved against the trace in `SimConfig::measured_writes`.
            Amount::Multiple(k) | Amount::Passes(k) => (k * logical_pages as f64).round() as u64,
            Amount::Count(n) => n,
        }
    }

    /// A number of writes given to `param`.
    pub fn parse(param: &str, s: &str) -> Result<Self> {
        let s = s.trim();
        let bad = || {
            Error::param(
                param,
                format!("`{s}`"),
                "a multiple of the logical capacity such as `20x`, passes over a trace such as `2p`, or a count such as `5000000` or `5e6`",
            )
        };
        if let Some(k) = s.strip_suffix('p') {
            let k: f64 = k.trim().parse().map_err(|_| bad())?;
            if !(k.is_finite() && k > 0.0) {
                return Err(bad());
            }
            return Ok(Amount::Passes(k));
        }
        if let Some(k) = s.strip_suffix('x') {
            let k: f64 = k.trim().parse().map_err(|_| bad())?;
            if !(k.is_finite() && k >= 0.0) {
                return Err(bad());
            }
            return Ok(Amount::Multiple(k));
        }
        if let Ok(n) = s.parse::<u64>() {
            return Ok(Amount::Count(n));
        }
        let f: f64 = s.parse().map_err(|_| bad())?;
        if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 {
            Ok(Amount::Count(f as u64))
        } else {
            Err(bad())
        }
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Amount::Multiple(k) => write!(f, "{k}x"),
            Amount::Count(n) => write!(f, "{n}"),
            Amount::Passes(k) => write!(f, "{k}p"),
        }
    }
}

impl FromStr for Amount {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Amount::parse("writes", s)
    }
}
string_serde!(Amount);

/// Warm-up before measurement (`--warmup`): `fill+10x`, `fill`, `10x`, `none`, and for a trace
/// workload a trace prefix, `fill+10x+20%`.
///
/// `fill` writes every logical page once in order (Stockmeyer §2.1's sequential placement; it
/// also keeps Li et al.'s inactive pages in blocks of their own). `Kx` then issues K × logical
/// capacity writes *drawn from the run's workload*, so that the measured phase starts near the
/// steady state of that workload (Van Houdt §3.2 discards a warm-up period of the same chain);
/// with a trace workload these writes are uniform over the whole logical space (Li et al. §6.1,
/// Stockmeyer §2.1). `P%` then replays the first P% of the trace's page writes as warm-up and
/// measures the rest (Stockmeyer §2.1–2.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarmupSpec {
    /// Sequential fill first.
    pub fill: bool,
    /// Then this many multiples of the logical capacity of workload writes.
    pub multiple: f64,
    /// Then this share of the trace (0 ≤ share < 1) replayed unmeasured.
    pub trace_share: f64,
}

impl WarmupSpec {
    /// No warm-up at all (`none`).
    pub const NONE: WarmupSpec = WarmupSpec {
        fill: false,
        multiple: 0.0,
        trace_share: 0.0,
    };
}

impl Default for WarmupSpec {
    fn default() -> Self {
        WarmupSpec {
            fill: true,
            multiple: 10.0,
            trace_share: 0.0,
        }
    }
}

impl FromStr for WarmupSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let text = s.trim();
        let bad = || {
            Error::param(
                "warmup",
                format!("`{text}`"),
                "`fill+Kx`, `fill`, `Kx`, `none`, optionally `+P%` of a trace (K ≥ 0, 0 ≤ P < 100)",
            )
        };
        let mut w = WarmupSpec {
            fill: false,
            multiple: 0.0,
            trace_share: 0.0,
        };
        if text == "none" {
            return Ok(w);
        }
        for part in text.split('+').map(str::trim) {
            if part == "fill" {
                w.fill = true;
            } else if let Some(k) = part.strip_suffix('x') {
                w.multiple = k.parse().map_err(|_| bad())?;
                if !(w.multiple.is_finite() && w.multiple >= 0.0) {
                    return Err(bad());
                }
            } else if let Some(p) = part.strip_suffix('%') {
                let p: f64 = p.parse().map_err(|_| bad())?;
                if !(0.0..100.0).contains(&p) {
                    return Err(bad());
                }
                w.trace_share = p / 100.0;
            } else {
                return Err(bad());
            }
        }
        Ok(w)
    }
}

impl fmt::Display for WarmupSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.multiple;
        match (self.fill, m > 0.0) {
            (false, false) => write!(f, "none")?,
            (true, false) => write!(f, "fill")?,
            (true, true) => write!(f, "fill+{m}x")?,
            (false, true) => write!(f, "{m}x")?,
        }
        if self.trace_share > 0.0 {
            // The share is kept as a fraction; as a percentage it is rounded to 10 decimals so
            // that `14.7929%` reads back as written, not as 14.792900000000001%.
            let percent = (self.trace_share * 100.0 * 1e10).round() / 1e10;
            write!(f, "+{percent}%")?;
        }
        Ok(())
    }
}
string_serde!(WarmupSpec);
