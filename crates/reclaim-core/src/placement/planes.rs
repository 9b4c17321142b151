//! Per-plane allocation: the device's planes each a region with its own blocks, its own free
//! pool, its own write frontier and its own cleaning; user writes dealt to the planes in turn,
//! relocated pages kept in their victim's plane.
//!
//! This is `MQSim`'s page-level FTL (Tavakkol et al., FAST '18; `CMU-SAFARI/MQSim`,
//! `src/ssd/Address_Mapping_Unit_Page_Level.cpp` and `GC_and_WL_Unit_Page_Level.cpp`): each
//! plane keeps its free blocks and a write frontier, and its garbage collection moves a
//! victim's valid pages within the plane. `MQSim` deals a write to a plane by its address bits
//! (the `CWDP` order: channel, then way, then die, then plane); dealing them in turn spreads
//! them the same way on average without tying a page to one plane. With a `device` of
//! `unit=plane` each region is one plane of the geometry, numbered channel first.

use super::{Build, Built, Declare};
use super::{Relocation, Scheme, Victim};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Param};
use crate::workload::Write;

/// One stream per plane; user writes in turn, relocated pages in their victim's plane.
#[derive(Clone, Copy, Debug)]
pub struct Planes {
    /// Planes.
    n: u16,
    /// The plane the next user write goes to.
    next: u16,
}

impl Scheme for Planes {
    #[inline]
    fn user_stream(&mut self, _write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        let p = self.next;
        self.next = if p + 1 == self.n { 0 } else { p + 1 };
        usize::from(p)
    }

    #[inline]
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        usize::from(r.victim.region)
    }

    #[inline]
    fn victim_stream(&self, victim: &Victim) -> Option<usize> {
        Some(usize::from(victim.region))
    }
}

/// Equal quotas of `segments` over `n` planes (the first `segments mod n` one more).
pub fn quotas(segments: u32, n: u32) -> Vec<u32> {
    (0..n)
        .map(|p| segments / n + u32::from(p < segments % n))
        .collect()
}

impl Declare for Planes {
    type Params = u32;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "planes",
        aliases: &[],
        summary: "MQSim's per-plane allocation: each plane a region with its own blocks, frontier and cleaning; user writes dealt in turn.",
        source: "Tavakkol et al., FAST '18 (MQSim), page-level FTL",
        params: &[Param {
            key: "n",
            values: "N",
            unit: "planes",
            range: "a whole number in [1, 65536]",
            default: None,
            help: "Planes (regions), each with an equal share of the segments.",
        }],
        needs: &[],
    };
    fn parse(args: &Args<'_>) -> Result<u32> {
        let n: u32 = args.num("n", None, "a whole number in [1, 65536]")?;
        if !(1..=65_536).contains(&n) {
            return Err(Error::param(&args.key("n"), n, "a whole number in [1, 65536]"));
        }
        Ok(n)
    }
    fn show(n: &u32, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "planes:n={n}")
    }
    fn streams(n: &u32, _classes: u32) -> u32 {
        *n
    }
    // The trigger keeps its free segments in each plane.
    fn reserve(n: &u32, _classes: u32) -> (u64, u64) {
        (0, u64::from(*n))
    }
    fn build(n: &u32, b: &Build<'_>) -> Result<Built<Self>> {
        // Each plane holds about its share of the data (writes are dealt in turn), plus its open
        // segment, the trigger's free segments and one to clean into.
        let logical: u64 = b.classes.iter().map(|c| c.pages).sum();
        let data = logical.div_ceil(u64::from(*n)).div_ceil(u64::from(b.pps));
        let need = data + 2 + u64::from(b.min_free);
        let smallest = u64::from(b.segments / n);
        if smallest < need {
            return Err(Error::param(
                "placement.n",
                n,
                format!(
                    "fewer planes, more segments or more spare: a plane of {smallest} segments cannot hold its share of the data ({data} segments), an open segment, {} kept free and one to clean into",
                    b.min_free
                ),
            ));
        }
        let scheme = Planes {
            n: *n as u16,
            next: 0,
        };
        Ok(Built::per_region(scheme, quotas(b.segments, *n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_writes_go_to_the_planes_in_turn_and_quotas_add_up() {
        let mut p = Planes { n: 3, next: 0 };
        let mut rng = <SimRng as rand::SeedableRng>::seed_from_u64(1);
        let w = Write::new(0, 0);
        let order: Vec<usize> = (0..7).map(|_| p.user_stream(&w, 0, &mut rng)).collect();
        assert_eq!(order, [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(quotas(10, 4), [3, 3, 2, 2]);
    }
}
