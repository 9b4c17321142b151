//! Cleaner triggers: when the cleaner runs and when it stops (`--gc`). One file per trigger,
//! each declaring itself (its parameters, source and parse); the run loop (`sim`) carries them
//! out. The registry at the end of this file collects them, one line each.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::spec::{entries, parse_entry, string_serde};

/// When the cleaner runs and when it stops (`--gc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GcSpec {
    /// `frontier`: the cleaner runs when a frontier needs a segment and none is free; it cleans
    /// one victim, whose valid pages go through a buffer into the GC frontier (so the erased
    /// victim itself becomes that frontier). No free segment is kept: all `segments` hold data.
    /// This is Van Houdt's single and double write frontier exactly (§2.3).
    #[default]
    Frontier,
    /// `one-free`: after a frontier is opened, if no free segment is left, clean one victim
    /// (Li et al. §2.1: "GC is triggered only when the SSD no longer contains any clean physical
    /// block after the write frontier is allocated, and GC stops when at least one clean block is
    /// reclaimed"). One segment is always kept free, so one segment fewer holds data.
    OneFree,
    /// `batch:low=L,victims=V`: after a frontier is opened, if fewer than `low` segments are
    /// free, clean `victims` victims (Lomet & Luo §6: 32 and 64); with `until=low`, cycles
    /// repeat until `low` are free (MiDAS-Simulation's `GC`).
    Batch {
        /// Trigger level [free segments], ≥ 1.
        low: u32,
        /// Victims per cleaning cycle, ≥ 1.
        victims: u32,
        /// One cycle per opened frontier, or cycles until `low` segments are free.
        until: Until,
        /// Whether each victim is relocated before the next is chosen, or all are gathered first.
        gather: Gather,
        /// Order in which a gathered batch's pages are rewritten (with `gather=all`).
        sort: SortKey,
    },
    /// `max-empty:k=K`: when a stream needs a segment and none is free, clean until K segments
    /// are free, then write (Stockmeyer §2.3's `MaxEmpty`; he fixes K = 1).
    MaxEmpty {
        /// Free segments to produce before writing resumes, ≥ 1.
        k: u32,
    },
}

/// When a batch trigger's cleaning stops (`batch:…,until=cycle|low`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Until {
    /// After one cycle of `victims` victims, however many segments are then free (Lomet & Luo
    /// §6): relocation into newly opened segments can leave fewer than `low` free.
    #[default]
    Cycle,
    /// Cycles repeat until at least `low` segments are free: MiDAS-Simulation's `GC`
    /// (`ssdsimul.cpp`, `while (fbqueue.size() < FREENUM)` after every user write).
    Low,
}

/// How a batch of victims is cleaned (`batch:…,gather=each|all`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Gather {
    /// Each victim is chosen, erased and its pages rewritten before the next is chosen.
    #[default]
    Each,
    /// All victims are chosen and erased, their live pages gathered, optionally sorted, then
    /// rewritten (Lomet & Luo §5.3, §6.1.1).
    All,
}

/// Key by which a gathered batch is sorted before it is rewritten (`batch:…,sort=KEY`), oldest
/// first, ties in gathering order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Gathering order: victim by victim, slot order within a victim.
    #[default]
    None,
    /// The age stamp of the page's victim [user writes].
    Stamp,
    /// The destage sequence number of the page's victim (Stockmeyer §2.3).
    Dseq,
    /// The page's last user write [user writes].
    Written,
    /// The u_p2 of the page's victim, oldest first (Lomet & Luo §5.3; with `mdc:freq=exact`,
    /// the equivalent key of the exact rate, see `policy::mdc`).
    Up2,
}

impl SortKey {
    /// Its name in `batch:…,sort=KEY`.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::None => "none",
            SortKey::Stamp => "stamp",
            SortKey::Dseq => "dseq",
            SortKey::Written => "written",
            SortKey::Up2 => "up2",
        }
    }
}

impl GcSpec {
    /// Free segments the trigger keeps (besides the open frontiers).
    pub fn min_free(self) -> u32 {
        match self {
            GcSpec::Frontier => 0,
            GcSpec::OneFree => 1,
            GcSpec::Batch { low, .. } => low,
            GcSpec::MaxEmpty { k } => k,
        }
    }
}

impl FromStr for GcSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        parse_entry("gc", s, TRIGGERS)
    }
}

impl fmt::Display for GcSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GcSpec::Frontier => f.write_str("frontier"),
            GcSpec::OneFree => f.write_str("one-free"),
            GcSpec::Batch {
                low,
                victims,
                until,
                gather,
                sort,
            } => batch::show(f, (low, victims, until), gather, sort),
            GcSpec::MaxEmpty { k } => write!(f, "max-empty:k={k}"),
        }
    }
}
string_serde!(GcSpec);

entries! {
    /// The registry: one line per trigger.
    TRIGGERS: GcSpec {
        frontier,
        one_free,
        batch,
        max_empty,
    }
}
