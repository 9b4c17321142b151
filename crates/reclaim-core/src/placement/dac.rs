//! DAC, dynamic data clustering: pages climb a temperature level on each user write and fall one
//! on each relocation, and each level is a stream.
//!
//! M.-L. Chiang, P. C. H. Lee, R.-C. Chang, "Using data clustering to improve cleaning
//! performance for flash memory", Software: Practice and Experience 29(3), 1999 (the DAC
//! scheme: a flash divided into regions of increasing temperature, data promoted to a hotter
//! region when written and demoted to a colder one when the cleaner moves it), in the form the
//! artifact of Wang et al. (FAST '22, "Separating Data via Block Invalidation Time Inference")
//! implements it, `trace_replay/.../placement/DAC.java`, which compares against it:
//!
//! - levels 0 … L − 1 (L = 6 in the artifact), one stream each taking user writes and relocated
//!   pages of its level;
//! - a page's first user write puts it at level 0; each later user write moves it up one level,
//!   to L − 1 at most;
//! - each relocation moves it down one level, to 0 at least, and it is written to the stream of
//!   its new level.
//!
//! A page's level is one byte per logical page, kept here and allocated only when DAC is chosen.

use std::fmt;

use super::{Build, Built, Declare, Scheme, Relocation};
use crate::error::{Error, Result};
use crate::spec::{Args, Family, Info, Need, Param};
use crate::workload::Write;
use crate::rng::SimRng;

/// A page not yet written.
const UNWRITTEN: u8 = u8::MAX;

/// Pages by temperature level.
#[derive(Clone, Debug)]
pub struct Dac {
    /// The highest level, L − 1.
    top: u8,
    /// Per logical page: its level, [`UNWRITTEN`] before its first write.
    level: Vec<u8>,
}

impl Dac {
    /// `levels` levels over `pages` logical pages.
    pub fn new(levels: u8, pages: u64) -> Self {
        Dac {
            top: levels - 1,
            level: vec![UNWRITTEN; pages as usize],
        }
    }
}

impl Scheme for Dac {
    #[inline]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        let l = &mut self.level[write.page as usize];
        *l = match *l {
            UNWRITTEN => 0,
            l if l < self.top => l + 1,
            l => l,
        };
        usize::from(*l)
    }

    #[inline]
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        let l = &mut self.level[r.page as usize];
        // A relocated page was written, so it has a level.
        *l = l.saturating_sub(1);
        usize::from(*l)
    }
}

/// The parameters of DAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DacSpec {
    /// Temperature levels L, 2 ≤ L ≤ 64.
    pub levels: u8,
}

const LEVELS: &str = "a whole number in [2, 64]";

impl Declare for Dac {
    type Params = DacSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "dac",
        aliases: &[],
        summary: "Pages climb one temperature level on each user write and fall one on each relocation; one stream per level.",
        source: "Chiang, Lee & Chang, SP&E 1999; SepBIT artifact's DAC.java",
        params: &[Param {
            key: "levels",
            values: "L",
            unit: "levels",
            range: LEVELS,
            default: Some("6"),
            help: "Temperature levels, each a stream (6 in the SepBIT artifact).",
        }],
        needs: &[Need::PageState],
    };
    const SIZES: bool = true;
    fn parse(args: &Args<'_>) -> Result<DacSpec> {
        let levels: u8 = args.num("levels", Some(6), LEVELS)?;
        if !(2..=64).contains(&levels) {
            return Err(Error::param(&args.key("levels"), levels, LEVELS));
        }
        Ok(DacSpec { levels })
    }
    fn show(d: &DacSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dac:levels={}", d.levels)
    }
    fn streams(d: &DacSpec, _classes: u32) -> u32 {
        u32::from(d.levels)
    }
    // Every level takes relocated pages: one GC stream per level.
    fn reserve(d: &DacSpec, _classes: u32) -> (u64, u64) {
        (u64::from(d.levels) - 1, 1)
    }
    // A level per page.
    fn page_bytes(_d: &DacSpec) -> u64 {
        1
    }
    fn build(d: &DacSpec, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        let n = usize::from(d.levels);
        Ok(Built::whole(
            Dac::new(d.levels, pages),
            vec![true; n],
            u32::from(d.levels),
            b,
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::placement::Victim;
    use rand::SeedableRng;

    use super::*;
    use crate::config::SimConfig;
    use crate::sim::Simulator;

    fn write(page: u32) -> Write {
        Write::new(page, 0)
    }

    /// The artifact's rule, step by step: first write level 0, each user write one up to L − 1,
    /// each relocation one down to 0.
    #[test]
    fn levels_climb_on_writes_and_fall_on_relocation() {
        let mut d = Dac::new(3, 4);
        let mut rng = SimRng::seed_from_u64(1);
        let victim = Victim {
            seg: 0,
            stamp: 0,
            dseq: 0,
            region: 0,
            up2: 0.0,
        };
        let ups: Vec<usize> = (0..5).map(|_| d.user_stream(&write(2), 0, &mut rng)).collect();
        assert_eq!(ups, [0, 1, 2, 2, 2]);
        let downs: Vec<usize> = (0..4)
            .map(|_| d.gc_stream(Relocation { page: 2, victim: &victim, class: 0, age: 0, rng: &mut rng }))
            .collect();
        assert_eq!(downs, [1, 0, 0, 0]);
        assert_eq!(d.user_stream(&write(2), 0, &mut rng), 1);
        // Another page's first write is level 0, whatever page 2's level.
        assert_eq!(d.user_stream(&write(3), 0, &mut rng), 0);
    }

    #[test]
    fn spec_round_trips_and_levels_are_checked() {
        let p: crate::config::PlacementSpec = "dac".parse().unwrap();
        assert_eq!(p.to_string(), "dac:levels=6");
        assert_eq!(p.streams(1), 6);
        let p: crate::config::PlacementSpec = "dac:levels=3".parse().unwrap();
        assert_eq!(p.to_string().parse::<crate::config::PlacementSpec>().unwrap(), p);
        let e = "dac:levels=1".parse::<crate::config::PlacementSpec>().unwrap_err();
        assert!(e.to_string().contains("placement.levels"), "{e}");
    }

    /// Chiang et al.'s claim (§5, against no clustering): separating pages by how often they are
    /// rewritten lowers the cleaning cost. Hot/cold 90/10 at spare 0.1 under greedy: DAC's WA is
    /// below one stream's.
    #[test]
    fn dac_separates_hot_from_cold() {
        let wa = |placement: &str| {
            let config = SimConfig::from_json(&format!(
                r#"{{"segments": 1000, "pages_per_segment": 64, "spare": 0.1,
                    "workload": "hotcold:r=0.9,f=0.1", "placement": "{placement}",
                    "warmup": "fill+4x", "writes": "4x"}}"#
            ))
            .unwrap();
            Simulator::new(&config).unwrap().run().unwrap().wa
        };
        let (single, dac) = (wa("single"), wa("dac"));
        assert!(dac < single, "dac {dac} single {single}");
    }
}
