//! Double write frontier: user writes to an external frontier (WFE, stream 0), relocated pages
//! to an internal one (WFI, stream 1).
//!
//! B. Van Houdt, "Performance of garbage collection algorithms for flash-based solid state drives
//! with hot/cold data", §2.3. With the `frontier` trigger the run loop reproduces his rules case
//! by case: a victim whose j valid pages fit in the WFI is copied there and the erased victim
//! becomes the next WFE; otherwise the WFI is topped up, sealed, and the erased victim becomes the
//! new WFI with the rest, and the cleaner runs again. Which pages top up the WFI is the one choice
//! this file makes (`arrange`): a uniformly random subset (RND, the model's assumption) or the
//! first written (OLDEST, slot order); his Table 2 has both columns.

use rand::Rng;

use super::{Build, Built, Declare};
use super::{Gathered, Scheme, Stream, Victim, Relocation};
use crate::error::Result;
use crate::spec::{Args, Family, Info, Param};
use crate::store::NONE;
use crate::workload::Write;
use crate::rng::SimRng;

/// Double frontier.
#[derive(Clone, Copy, Debug)]
pub struct Double {
    copy: CopyOrder,
}

impl Double {
    /// With the partial-copy order `copy`.
    pub fn new(copy: CopyOrder) -> Self {
        Double { copy }
    }
}

impl Scheme for Double {
    #[inline]
    fn user_stream(&mut self, _write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        0
    }

    fn one_user_stream(&self) -> Option<usize> {
        Some(0)
    }

    #[inline]
    fn gc_stream(&mut self, _r: Relocation<'_>) -> usize {
        1
    }

    #[inline]
    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        Some(1)
    }

    fn arrange(&mut self, batch: &mut [Gathered], streams: &[Stream], pps: u32, rng: &mut SimRng) {
        if self.copy != CopyOrder::Random {
            return;
        }
        let wfi = streams[1];
        let room = if wfi.seg == NONE {
            0
        } else {
            (pps - wfi.next) as usize
        };
        if batch.len() > room && room > 0 {
            // Van Houdt §2.3 case 2 (RND): a uniformly random `room` of the valid pages go to
            // the WFI; a partial Fisher–Yates shuffle puts them first.
            for i in 0..room {
                let j = rng.random_range(i..batch.len());
                batch.swap(i, j);
            }
        }
    }
}

/// Which of a victim's valid pages go to the internal frontier when they do not all fit
/// (Van Houdt §2.3, footnote 2; his Table 2 columns RND and OLDEST).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyOrder {
    /// A uniformly random subset (the mean-field model's assumption).
    Random,
    /// The first ones written to the victim.
    Oldest,
}

impl Declare for Double {
    type Params = CopyOrder;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "double",
        aliases: &["sepgc", "greedy-s2r"],
        summary: "A user stream and a GC stream (Van Houdt's double write frontier); `sepgc`, the SepBIT artifact's SepGC, and `greedy-s2r`, SSD-iq's (under greedy and the frontier trigger), are `double:copy=oldest`.",
        source: "Van Houdt §2.3",
        params: &[Param {
            key: "copy",
            values: "random|oldest",
            unit: "",
            range: "`random` or `oldest`",
            default: Some("random"),
            help: "Which valid pages of a victim go to the internal frontier when not all fit (footnote 2; Table 2's RND and OLDEST).",
        }],
        needs: &[],
    };
    fn parse(args: &Args<'_>) -> Result<CopyOrder> {
        // SepBIT's artifact (`SepGC.java`) appends a victim's valid pages in slot order, and so
        // does SSD-iq's greedy-s2r (`sim/Greedy.hpp`, `compactUntilFreeBlock` of `sim/SSD.hpp`:
        // `moveValidPagesTo` fills the GC block in slot order, the rest is compacted into the
        // victim, which becomes the GC block, and the next victim follows).
        let default = if args.name == "sepgc" || args.name == "greedy-s2r" {
            CopyOrder::Oldest
        } else {
            CopyOrder::Random
        };
        args.choice(
            "copy",
            &[("random", CopyOrder::Random), ("oldest", CopyOrder::Oldest)],
            default,
        )
    }
    fn show(copy: &CopyOrder, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match copy {
            CopyOrder::Random => f.write_str("double:copy=random"),
            CopyOrder::Oldest => f.write_str("double:copy=oldest"),
        }
    }
    fn streams(_copy: &CopyOrder, _classes: u32) -> u32 {
        2
    }
    fn build(copy: &CopyOrder, b: &Build<'_>) -> Result<Built<Self>> {
        Ok(Built::whole(Double::new(*copy), vec![true, false], 1, b))
    }
}

#[cfg(test)]
mod tests {
    use crate::config::PlacementSpec;

    /// `sepgc`, the SepBIT artifact's SepGC, is the double frontier copying a victim's pages in
    /// slot order; `double` keeps Van Houdt's random subset by default.
    #[test]
    fn sepgc_is_double_copying_in_slot_order() {
        let p: PlacementSpec = "sepgc".parse().unwrap();
        assert_eq!(p.to_string(), "double:copy=oldest");
        let p: PlacementSpec = "sepgc:copy=random".parse().unwrap();
        assert_eq!(p.to_string(), "double:copy=random");
        let p: PlacementSpec = "double".parse().unwrap();
        assert_eq!(p.to_string(), "double:copy=random");
    }
}
