//! Preconditioning with the trace itself, reclaim's default for a trace. The device holds the trace's working set (the pages it writes, renamed densely in
//! first-write order) at the configured spare factor; no synthetic data is written. The trace is
//! replayed pass after pass; every pass is measured on its own, and the run ends at the first
//! pass whose write amplification differs from the one before it by at most `tol` (relative):
//! the device is then in the steady state the trace itself leads to.
//!
//! Which pass is reported is a choice the words "replay until the WA settles, then measure"
//! leave open: `measure=settled` (the default) reports the pass that showed the settling, which
//! was replayed on a device already within `tol` of its steady state; `measure=after` replays
//! and measures `writes` more (default one pass) after it, as the words read literally, at one
//! pass's more cost. A run that reaches `max_passes` unsettled reports its last pass and warns.

use std::fmt;

use super::MethodSpec;
use crate::error::{Error, Result};
use crate::spec::{Args, Entry, Family, Info, Param};

/// Which writes `precondition` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Measure {
    /// The first pass whose WA is within the tolerance of the one before.
    #[default]
    Settled,
    /// `writes` more after that pass (default one pass).
    After,
}

/// The parameters of `precondition`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Precondition {
    /// Largest relative change of WA between successive passes that counts as settled, in (0, 1).
    pub tol: f64,
    /// Passes after which the run stops settled or not, ≥ 2.
    pub max_passes: u32,
    /// What is measured.
    pub measure: Measure,
}

impl Default for Precondition {
    fn default() -> Self {
        Precondition {
            tol: 0.01,
            max_passes: 10,
            measure: Measure::Settled,
        }
    }
}

impl Precondition {
    /// Whether a pass of write amplification `wa` after one of `last` is settled.
    pub fn settled(&self, last: f64, wa: f64) -> bool {
        (wa - last).abs() <= self.tol * last
    }
}

impl fmt::Display for Precondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let measure = match self.measure {
            Measure::Settled => "settled",
            Measure::After => "after",
        };
        write!(
            f,
            "precondition:tol={},max_passes={},measure={measure}",
            self.tol, self.max_passes
        )
    }
}

fn parse(args: &Args<'_>) -> Result<MethodSpec> {
    let d = Precondition::default();
    let tol: f64 = args.num("tol", Some(d.tol), "a number in (0, 1)")?;
    if !(tol > 0.0 && tol < 1.0) {
        return Err(Error::param(&args.key("tol"), tol, "a number in (0, 1)"));
    }
    let max_passes: u32 = args.num(
        "max_passes",
        Some(d.max_passes),
        "a whole number in [2, 1000]",
    )?;
    if !(2..=1000).contains(&max_passes) {
        return Err(Error::param(
            &args.key("max_passes"),
            max_passes,
            "a whole number in [2, 1000]",
        ));
    }
    let measure = args.choice(
        "measure",
        &[("settled", Measure::Settled), ("after", Measure::After)],
        d.measure,
    )?;
    Ok(MethodSpec::Precondition(Precondition {
        tol,
        max_passes,
        measure,
    }))
}

/// `precondition:tol=T,max_passes=K,measure=settled|after`.
pub const ENTRY: Entry<MethodSpec> = Entry {
    info: Info {
        family: Family::Method,
        name: "precondition",
        aliases: &[],
        summary: "Device of the trace's working set at the spare; the trace replayed until the WA of successive passes settles. The default for a trace.",
        source: "reclaim (docs/traces.md, Methods)",
        params: &[
            Param {
                key: "tol",
                values: "T",
                unit: "",
                range: "a number in (0, 1)",
                default: Some("0.01"),
                help: "Largest relative change of WA between successive passes that counts as settled.",
            },
            Param {
                key: "max_passes",
                values: "K",
                unit: "passes",
                range: "a whole number in [2, 1000]",
                default: Some("10"),
                help: "Passes after which the run ends, settled or not (unsettled: a warning).",
            },
            Param {
                key: "measure",
                values: "settled|after",
                unit: "",
                range: "`settled` or `after`",
                default: Some("settled"),
                help: "Report the pass that settled, or measure `writes` (one pass) after it.",
            },
        ],
        needs: &[],
    },
    parse,
};
