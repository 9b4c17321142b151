//! SepBIT's trace replay (Wang et al., FAST '22, §5 "Evaluation", and the artifact's
//! `trace_replay`): each volume is a log with no fixed capacity, replayed once from empty and
//! measured from its first write. The cleaner does not run for want of space: after every write
//! request, if the log's garbage proportion exceeds `gp`, one segment is collected, no more.
//!
//! The garbage proportion (GP) is the artifact's: invalid pages of *sealed* segments over all
//! pages written to segments that hold data, open ones included (an invalidation inside an open
//! segment counts from its sealing). A victim must be sealed, hold at least one invalid page, and
//! have a GP of its own of at least `gp` (the artifact sets both thresholds with one flag); when
//! no segment qualifies the trigger passes without cleaning. The policies that choose by valid
//! count exclude the others before choosing, as the artifact does (`Store::victim_valid_bound`):
//! with `greedy` the choice is exactly the artifact's (the segment of highest GP qualifies if any
//! does), and `cost-benefit` (every form) scores only the qualifying segments. The other
//! policies choose among all sealed segments (`docs/traces.md`).
//!
//! The device is only a bound: the log floats near working set / (1 − `gp`) pages, and reclaim
//! allocates `room` times that (plus the open segments); a log that outgrows it stops the run
//! with an error naming `room`. The reported write amplification is the artifact's, cumulative
//! over the whole replay (its first writes included).

use std::fmt;

use super::MethodSpec;
use crate::config::{GcSpec, SimConfig, StreamMode, WarmupSpec};
use crate::error::{Error, Result};
use crate::placement::PlacementSpec;
use crate::spec::{Args, Entry, Family, Info, Param};

/// The parameters of `log`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Log {
    /// Garbage-proportion threshold in (0, 1): the log is cleaned while its GP exceeds it, and
    /// a victim's own GP must reach it (SepBIT's artifact: 0.15 for both).
    pub gp: f64,
    /// Segments allocated, as a multiple (≥ 1.05) of the log's steady size, working set /
    /// (1 − `gp`): a bound, not a capacity (the cleaner never runs for space).
    pub room: f64,
}

impl Default for Log {
    fn default() -> Self {
        Log {
            gp: 0.15,
            room: 2.0,
        }
    }
}

impl Log {
    /// The fraction of the allocated pages the working set takes: (1 − `gp`) / `room`.
    pub fn fill(&self) -> f64 {
        (1.0 - self.gp) / self.room
    }

    /// Whether a sealed segment of `pps` pages holding `valid` may be collected: at least one
    /// invalid page and a garbage proportion of at least `gp`.
    pub fn eligible(&self, valid: u32, pps: u32) -> bool {
        valid < pps && f64::from(pps - valid) / f64::from(pps) >= self.gp
    }

    /// The most valid pages of an eligible segment of `pps` pages ([`Self::eligible`]).
    pub fn most_valid(&self, pps: u32) -> u32 {
        (0..pps).rev().find(|&v| self.eligible(v, pps)).unwrap_or(0)
    }

    /// `log` decides the warm-up (none), the trigger (the garbage proportion) and admission
    /// (every page straight to its stream): the parameters that would change them are refused.
    pub fn check(&self, config: &SimConfig) -> Result<()> {
        let method = MethodSpec::Log(*self);
        let refuse = |key: &str, value: String, why: &str| {
            Err(Error::param(
                key,
                value,
                format!("{why} with `method={method}`"),
            ))
        };
        if let Some(w) = config.warmup.filter(|w| *w != WarmupSpec::NONE) {
            return refuse(
                "warmup",
                w.to_string(),
                "no warm-up: the log is replayed once from empty, as SepBIT's artifact does",
            );
        }
        if config.gc != GcSpec::Frontier {
            return refuse("gc", format!("`{}`", config.gc), "the default trigger: a log is cleaned by its garbage proportion (`gp`), not for space");
        }
        if let Some(c) = config.cache {
            return refuse("cache", c.to_string(), "no write cache");
        }
        if let Some(z) = &config.sizes {
            return refuse("sizes", format!("`{z}`"), "pages of one slot");
        }
        if config.streams != StreamMode::default() {
            return refuse(
                "streams",
                format!("`{}`", config.streams),
                "the default streams",
            );
        }
        let placement = config.placement();
        if matches!(
            placement,
            PlacementSpec::Regions(_) | PlacementSpec::SortBuffer(_)
        ) {
            return refuse("placement", format!("`{placement}`"), "a placement whose pages take their slots as they are written (no regions, no sort buffer)");
        }
        Ok(())
    }
}

impl fmt::Display for Log {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "log:gp={},room={}", self.gp, self.room)
    }
}

fn parse(args: &Args<'_>) -> Result<MethodSpec> {
    let d = Log::default();
    let gp: f64 = args.num("gp", Some(d.gp), "a number in (0, 1)")?;
    if !(gp > 0.0 && gp < 1.0) {
        return Err(Error::param(&args.key("gp"), gp, "a number in (0, 1)"));
    }
    let room: f64 = args.num("room", Some(d.room), "a number in [1.05, 100]")?;
    if !(1.05..=100.0).contains(&room) {
        return Err(Error::param(
            &args.key("room"),
            room,
            "a number in [1.05, 100]",
        ));
    }
    Ok(MethodSpec::Log(Log { gp, room }))
}

/// `log:gp=G,room=R`.
pub const ENTRY: Entry<MethodSpec> = Entry {
    info: Info {
        family: Family::Method,
        name: "log",
        aliases: &[],
        summary: "SepBIT's replay: a log of no fixed capacity, one pass from empty, one segment collected after each write request while the garbage proportion exceeds `gp`.",
        source: "Wang et al. (SepBIT, FAST '22) §5 and its artifact's trace_replay",
        params: &[
            Param {
                key: "gp",
                values: "G",
                unit: "",
                range: "a number in (0, 1)",
                default: Some("0.15"),
                help: "Garbage proportion above which a segment is collected after a request; a victim's own must reach it.",
            },
            Param {
                key: "room",
                values: "R",
                unit: "",
                range: "a number in [1.05, 100]",
                default: Some("2"),
                help: "Segments allocated, as a multiple of working set / (1 − gp): a bound the log must stay under.",
            },
        ],
        needs: &[],
    },
    parse,
};
