//! SFR (sequentiality, frequency, recency): user writes by the decayed write count of their
//! chunk, a sequential request kept with the one before it; relocated pages apart.
//!
//! J. Yang, R. Pandurangan, C. Choi, V. Balakrishnan, "AutoStream: Automatic Stream Management
//! for Multi-streamed SSDs", SYSTOR '17 (its SFR algorithm: per-chunk write counts that
//! decay with time, a stream by the count's logarithm, a request continuing the previous one
//! in the previous one's stream), in the form the artifact of Wang et al. (FAST '22) implements
//! it, `trace_replay/.../placement/SFR.java`, with six open segments (classes):
//!
//! - **Chunks** of 512 pages (2 MiB of 4 KiB pages). Each write request, for every chunk it
//!   touches: count ← ⌊count / 2^⌊Δ/P⌋⌋ + 1, Δ the user writes since the chunk's last update and
//!   P = 16,384 (64 MiB of writes); the exponent is a whole number, so a count halves in steps.
//!   The clock is the user writes before the request (the artifact's `accessId`).
//! - **User writes**: a request that starts where the previous one ended is sequential, and
//!   every page of it goes to the class last given; otherwise each page goes to class
//!   min(⌊ln count⌋, 4) of its chunk, which becomes the class last given. The first request is
//!   sequential if it starts at page 0 (the artifact's previous end starts at 0).
//! - **Relocated pages** go to class 5.
//!
//! On the artifact's hot/cold trace every chunk's count stays above e⁴ between decays, so SFR
//! puts all user writes after the sequential fill in one class, and the fill in another whose
//! segments hold the fill alone: its WA is SepGC's to the last digit (`docs/validation.md`).

use std::fmt;

use super::{ln_class, Build, Built, Declare, Relocation, Request, Scheme, Victim};
use crate::error::{Error, Result};
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::workload::Write;

/// Classes (open segments) of the artifact's configuration.
const CLASSES: usize = 6;
/// The class of relocated pages.
const GC: usize = CLASSES - 1;

/// The parameters of SFR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SfrSpec {
    /// Pages per chunk, ≥ 1.
    pub chunk: u32,
    /// The decay period P [user writes], ≥ 1.
    pub period: u64,
}

/// SFR's state.
#[derive(Clone, Debug)]
pub struct Sfr {
    spec: SfrSpec,
    /// User writes so far.
    now: u64,
    /// Per chunk: its decayed count and its last update [user writes].
    count: Vec<u64>,
    updated: Vec<u64>,
    /// Where the previous request ended, whether the current one continues it, and the class
    /// last given.
    prev_end: u64,
    sequential: bool,
    last_class: u8,
}

impl Sfr {
    /// The scheme over `pages` logical pages.
    pub fn new(spec: &SfrSpec, pages: u64) -> Self {
        let chunks = pages.div_ceil(u64::from(spec.chunk)).max(1) as usize;
        Sfr {
            spec: *spec,
            now: 0,
            count: vec![0; chunks],
            updated: vec![0; chunks],
            prev_end: 0,
            sequential: false,
            last_class: 0,
        }
    }
}

impl Scheme for Sfr {
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        self.now += 1;
        if !self.sequential {
            let c = (write.page / self.spec.chunk) as usize;
            self.last_class = ln_class(self.count[c]);
        }
        usize::from(self.last_class)
    }

    fn gc_stream(&mut self, _r: Relocation<'_>) -> usize {
        GC
    }

    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        Some(GC)
    }

    #[inline(never)]
    fn request(&mut self, r: &Request) {
        let start = u64::from(r.first);
        let end = start + u64::from(r.pages.max(1));
        self.sequential = start == self.prev_end;
        self.prev_end = end;
        let chunk = u64::from(self.spec.chunk);
        let last = ((end - 1) / chunk).min(self.count.len() as u64 - 1) as usize;
        for c in (start / chunk) as usize..=last {
            // A chunk not yet counted starts at 0, updated now.
            let halvings = if self.count[c] == 0 {
                0
            } else {
                (self.now - self.updated[c]) / self.spec.period
            };
            let kept = if halvings >= 64 {
                0
            } else {
                self.count[c] >> halvings
            };
            self.count[c] = kept + 1;
            self.updated[c] = self.now;
        }
    }
}

const CHUNK: &str = "a whole number of pages in [1, 2^31]";
const PERIOD: &str = "a whole number of user writes in [1, 2^53]";

impl Declare for Sfr {
    type Params = SfrSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "sfr",
        aliases: &[],
        summary: "User writes by their chunk's decayed write count, class ⌊ln count⌋, a sequential request kept in the previous one's class; relocated pages apart.",
        source: "Yang et al. (AutoStream), SYSTOR '17; SepBIT artifact's SFR.java",
        params: &[
            Param {
                key: "chunk",
                values: "N",
                unit: "pages",
                range: CHUNK,
                default: Some("512"),
                help: "Pages per chunk (512: 2 MiB of 4 KiB pages, the artifact's).",
            },
            Param {
                key: "period",
                values: "P",
                unit: "user writes",
                range: PERIOD,
                default: Some("16384"),
                help: "A count halves once per P user writes since its chunk's last update (whole periods only, as the artifact).",
            },
        ],
        needs: &[Need::PageState, Need::Times],
    };
    fn parse(args: &Args<'_>) -> Result<SfrSpec> {
        let chunk: u32 = args.num("chunk", Some(512), CHUNK)?;
        if !(1..=1 << 31).contains(&chunk) {
            return Err(Error::param(&args.key("chunk"), chunk, CHUNK));
        }
        let period: u64 = args.num("period", Some(16_384), PERIOD)?;
        if !(1..=1 << 53).contains(&period) {
            return Err(Error::param(&args.key("period"), period, PERIOD));
        }
        Ok(SfrSpec { chunk, period })
    }
    fn show(p: &SfrSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sfr:chunk={},period={}", p.chunk, p.period)
    }
    fn streams(_p: &SfrSpec, _classes: u32) -> u32 {
        CLASSES as u32
    }
    // A count and a time per chunk.
    fn page_bytes(p: &SfrSpec) -> u64 {
        16u64.div_ceil(u64::from(p.chunk))
    }
    fn build(p: &SfrSpec, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        let user = (0..CLASSES).map(|c| c < GC).collect();
        Ok(Built::whole(Sfr::new(p, pages), user, 1, b))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// The artifact's rules step by step: counts per chunk touched, whole-period halving, and a
    /// sequential request kept in the class last given.
    #[test]
    fn counts_decay_in_whole_periods_and_sequential_requests_follow() {
        let spec = SfrSpec {
            chunk: 4,
            period: 10,
        };
        let mut s = Sfr::new(&spec, 64);
        let mut rng = SimRng::seed_from_u64(1);
        let mut write = |s: &mut Sfr, first: u32, pages: u32| -> Vec<usize> {
            s.request(&Request::at(first, pages));
            (first..first + pages)
                .map(|p| s.user_stream(&Write::new(p, 0), 0, &mut rng))
                .collect()
        };
        // Page 0 first: sequential (the previous end starts at 0), class 0.
        assert_eq!(write(&mut s, 0, 1), [0]);
        // Chunk 2 written 8 times, one page each, not sequential: counts 1 … 8, classes
        // ⌊ln n⌋ = 0, 0, 1, 1, 1, 1, 1, 2.
        let classes: Vec<usize> = (0..8).map(|_| write(&mut s, 9, 1)[0]).collect();
        assert_eq!(classes, [0, 0, 1, 1, 1, 1, 1, 2]);
        // A request continuing the last one (9 + 1 = 10) keeps class 2 whatever its chunk.
        assert_eq!(write(&mut s, 10, 3), [2, 2, 2]);
        // Chunk 2's count is 9, last updated at 9 user writes; 21 user writes later (two whole
        // periods of 10, not 2.1) it halves twice to 2, then counts this request: 3.
        assert_eq!((s.count[2], s.updated[2]), (9, 9));
        for _ in 0..18 {
            write(&mut s, 40, 1);
        }
        assert_eq!(s.now - s.updated[2], 21);
        write(&mut s, 8, 1);
        assert_eq!(s.count[2], 9 / 4 + 1);
    }

    #[test]
    fn spec_round_trips_and_is_checked() {
        let p: crate::config::PlacementSpec = "sfr".parse().unwrap();
        assert_eq!(p.to_string(), "sfr:chunk=512,period=16384");
        let e = "sfr:period=0".parse::<crate::config::PlacementSpec>().unwrap_err();
        assert!(e.to_string().contains("placement.period"), "{e}");
    }
}
