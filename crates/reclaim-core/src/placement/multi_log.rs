//! Multi-log: pages separated into logs of like update frequency, each log a stream.
//!
//! R. Stoica, A. Ailamaki, "Improving Flash Write Performance by Using Update Frequency", VLDB
//! 2013, as Lomet & Luo describe and evaluate it (§6.1.3, §6.3, §7.2): "separates pages into
//! multiple logs so that pages within each log have similar update frequencies"; it "initially
//! places all pages into one log and adjusts the number of logs as the system runs". The rules
//! taken here (issue text and Lomet & Luo; every other choice documented in `docs/design.md`):
//!
//! - logs 0 … L − 1, 0 the hottest, each one stream that takes the user writes and the relocated
//!   pages of its log; a log takes a segment only when a page first goes to it (opened lazily);
//! - a first write goes to log 0;
//! - a relocated page moves one log colder (to L − 1 at most): it outlived a cleaning there;
//! - a user write moves its page one log hotter when its observed update distance (user writes
//!   since its last write) is shorter than the log's expected one, else it stays. The expected
//!   distance of a log is the running mean of the distances observed on it, an exponential
//!   average with weight 2^-8 (the description gives no formula);
//! - `freq=exact` (multi-log-opt): a page's log follows its exact rate p (its probability per
//!   write, carried by the write): log = clamp(L/2 − 1 − ⌊log₂(p·n)⌋, 0, L − 1) with n the
//!   logical pages, so that logs are bands of a factor 2 in rate around the uniform rate 1/n
//!   (log L/2 − 1 holds rates in [1/n, 2/n)); relocation keeps a page in its log.
//!
//! The victim is chosen by `policy::multi_log`: the log whose oldest segment is cheapest to
//! clean.
//!
//! `form=sepbit` is the reading of the same paper in the artifact of Wang et al. (FAST '22),
//! `trace_replay/.../placement/MultiLog.java`, measured there with greedy selection ([`Levels`]):
//!
//! - levels 0 … L − 1 (L = 6, the artifact's open segments), level 0 the hottest, each one stream
//!   for user writes and relocated pages; a first write goes to level 0;
//! - a user write of a page at level ℓ > 0 moves it to ℓ − 1 with probability (E − d)/E where it
//!   is positive: d is its update distance (user writes since its last, this one included) and
//!   E = V·(1 − I/C)/2, with V the valid pages at level ℓ (the replaced copy already out), C the
//!   pages of the level's collected segments and I the invalid ones among them (NaN, so no move,
//!   before the level's first collection);
//! - a relocated page moves one level colder; from the coldest level in use it does so, opening a
//!   new level, only while that level holds at least a segment's pages (its victim's own pages
//!   already out of the count, those relocated before it back in).
//!
//! The draw is the run's generator; the artifact's is an unseeded `java.util.Random`, so its
//! figures move from run to run (+0.22% between two runs of its trace, `docs/validation.md`).

use super::{Build, Built, Declare, Victim};
use super::{Relocation, RelocationRun, Scheme};
use crate::error::{Error, Result};
use crate::policy::mdc::{FreqSource, FREQ};
use crate::spec::{Args, Family, Info, Need, Param};
use crate::workload::{Rate, Write};
use crate::rng::SimRng;
use std::fmt;

/// Weight of a new observed distance in a log's expected distance.
const WEIGHT: f64 = 1.0 / 256.0;

/// Logs of pages, by observed or exact update frequency.
#[derive(Clone, Debug)]
pub struct MultiLog {
    /// The artifact's form (`form=sepbit`), else `None`.
    levels: Option<Levels>,
    logs: u8,
    exact: bool,
    /// Logical pages (the uniform rate is 1/n).
    n: f64,
    /// Per logical page: its log.
    page_log: Vec<u8>,
    /// Per logical page: the user-write count at its last write, `u64::MAX` before the first.
    last: Vec<u64>,
    /// User writes routed so far.
    now: u64,
    /// Per log: its expected update distance [user writes], 0 until one is observed.
    expected: Vec<f64>,
}

impl MultiLog {
    /// `logs` logs over `pages` logical pages, by exact rates or observed distances.
    pub fn new(logs: u8, exact: bool, pages: u64) -> Self {
        MultiLog {
            levels: None,
            logs,
            exact,
            n: pages as f64,
            page_log: vec![0; pages as usize],
            last: if exact {
                Vec::new()
            } else {
                vec![u64::MAX; pages as usize]
            },
            now: 0,
            expected: vec![0.0; usize::from(logs)],
        }
    }

    /// The log of a page of exact rate `rate` (see the module note).
    fn exact_log(&self, rate: Rate) -> u8 {
        let p = rate.probability();
        if p <= 0.0 {
            return self.logs - 1;
        }
        let band = (p * self.n).log2().floor();
        (f64::from(self.logs / 2) - 1.0 - band).clamp(0.0, f64::from(self.logs - 1)) as u8
    }
}

impl Scheme for MultiLog {
    // Out of line: the placement enum's dispatch stays small enough to inline into the write path.
    #[inline(never)]
    fn user_stream(&mut self, write: &Write, _age: u64, rng: &mut SimRng) -> usize {
        if let Some(l) = &mut self.levels {
            return l.user(write.page, rng);
        }
        let p = write.page as usize;
        let log = if self.exact {
            self.exact_log(write.rate)
        } else {
            let last = std::mem::replace(&mut self.last[p], self.now);
            let log = self.page_log[p];
            if last == u64::MAX {
                0
            } else {
                let seen = (self.now - last) as f64;
                let e = &mut self.expected[usize::from(log)];
                let hotter = *e > 0.0 && seen < *e;
                *e = if *e == 0.0 {
                    seen
                } else {
                    *e + WEIGHT * (seen - *e)
                };
                if hotter {
                    log.saturating_sub(1)
                } else {
                    log
                }
            }
        };
        self.now += 1;
        self.page_log[p] = log;
        usize::from(log)
    }

    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        if let Some(l) = &mut self.levels {
            // Asked page by page only of a victim of one page (`gc_streams` takes the others).
            l.take(r.victim, 1);
            return l.relocate(r.page);
        }
        let p = r.page as usize;
        if !self.exact {
            self.page_log[p] = (self.page_log[p] + 1).min(self.logs - 1);
        }
        usize::from(self.page_log[p])
    }

    fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
        let RelocationRun { victim, pages, .. } = run;
        let Some(l) = &mut self.levels else {
            return false;
        };
        l.take(victim, pages.len() as u32);
        // The pages' levels are random reads: all on their way before the first is needed.
        for g in pages {
            crate::store::prefetch(&l.page[g.page as usize]);
        }
        out.clear();
        out.extend(pages.iter().map(|g| l.relocate(g.page) as u32));
        true
    }

    fn sealed(&mut self, stream: usize, seg: u32) {
        if let Some(l) = &mut self.levels {
            l.level_of_segment[seg as usize] = stream as u8;
        }
    }

    fn collected(&mut self, victim: &Victim) {
        if let Some(l) = &mut self.levels {
            l.collected(victim);
        }
    }
}

/// Never written (the artifact's missing key).
const NEVER: u64 = u64::MAX;

/// The artifact's MultiLog (`form=sepbit`; see the module note).
#[derive(Clone, Debug)]
pub struct Levels {
    /// Levels at most.
    top: u8,
    /// Pages per segment.
    pps: u64,
    /// Pages per segment, to compare with a count of valid pages.
    full: i64,
    /// Per page: its level, and its last user write on [`Self::now`] ([`NEVER`] before the
    /// first).
    page: Vec<(u8, u64)>,
    /// User writes so far (the artifact's `accessId`).
    now: u64,
    /// The coldest level opened so far.
    max: u8,
    /// Per level: valid pages (V), pages of collected segments (C), invalid ones among them (I).
    valid: Vec<i64>,
    collected: Vec<u64>,
    invalid: Vec<u64>,
    /// Per segment of the device: the level of the stream that sealed it.
    level_of_segment: Vec<u8>,
}

impl Levels {
    /// `top` levels over `pages` pages and `segments` segments of `pps` pages.
    pub fn new(top: u8, pages: u64, segments: u32, pps: u32) -> Self {
        let t = usize::from(top);
        Levels {
            top,
            pps: u64::from(pps),
            full: i64::from(pps),
            page: vec![(0, NEVER); pages as usize],
            now: 0,
            max: 0,
            valid: vec![0; t],
            collected: vec![0; t],
            invalid: vec![0; t],
            level_of_segment: vec![0; segments as usize],
        }
    }

    /// A user write of `page`: its level, possibly one hotter.
    fn user(&mut self, page: u32, rng: &mut SimRng) -> usize {
        use rand::Rng;
        self.now += 1;
        let (level, last) = &mut self.page[page as usize];
        let mut l = *level;
        if *last != NEVER {
            let lv = usize::from(l);
            self.valid[lv] -= 1;
            let d = (self.now - *last) as f64;
            let kept = 1.0 - self.invalid[lv] as f64 / self.collected[lv] as f64;
            let expected = self.valid[lv] as f64 * kept / 2.0;
            let p = (expected - d) / expected;
            if p > 0.0 && l > 0 && rng.random::<f64>() < p {
                l -= 1;
            }
        }
        *last = self.now;
        *level = l;
        self.valid[usize::from(l)] += 1;
        usize::from(l)
    }

    /// `victim` is collected: its segment's pages count as collected and invalid until its
    /// valid ones are taken out ([`Self::take`]).
    fn collected(&mut self, victim: &Victim) {
        let l = usize::from(self.level_of_segment[victim.seg as usize]);
        self.collected[l] += self.pps;
        self.invalid[l] += self.pps;
    }

    /// `valid` pages of `victim` are about to be relocated.
    fn take(&mut self, victim: &Victim, valid: u32) {
        let l = usize::from(self.level_of_segment[victim.seg as usize]);
        self.invalid[l] -= u64::from(valid);
        self.valid[l] -= i64::from(valid);
    }

    /// A relocated page: one level colder.
    fn relocate(&mut self, page: u32) -> usize {
        let level = &mut self.page[page as usize].0;
        if *level < self.max {
            *level += 1;
        } else if self.max + 1 < self.top && self.valid[usize::from(*level)] >= self.full {
            *level += 1;
            self.max += 1;
        }
        self.valid[usize::from(*level)] += 1;
        usize::from(*level)
    }
}

/// The parameters of multi-log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiLogSpec {
    /// Logs at most, 2 ≤ logs ≤ 64.
    pub logs: u8,
    /// Observed update distances, or exact rates.
    pub freq: FreqSource,
    /// The artifact's form of SepBIT (`form=sepbit`) rather than Lomet & Luo's description.
    pub sepbit: bool,
}

const PARAMS: [Param; 3] = [
    Param {
        key: "logs",
        values: "L",
        unit: "logs",
        range: "a whole number in [2, 64]",
        default: Some("8 (form=sepbit: 6)"),
        help: "Logs of like update frequency, each a stream.",
    },
    FREQ,
    Param {
        key: "form",
        values: "lomet-luo|sepbit",
        unit: "",
        range: "`lomet-luo` or `sepbit`",
        default: Some("lomet-luo"),
        help: "As Lomet & Luo §6.1.3 describe it, or as SepBIT's artifact implements it (levels, a probabilistic move hotter, a new level opened only behind a full one).",
    },
];

impl Declare for MultiLog {
    type Params = MultiLogSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "multi-log",
        aliases: &[],
        summary: "Pages in logs of like update frequency; relocation moves a page one log colder, an early rewrite one hotter.",
        source: "Stoica & Ailamaki, VLDB 2013, as Lomet & Luo §6.1.3 describe it",
        params: &PARAMS,
        needs: &[Need::PageState],
    };
    const SIZES: bool = true;
    fn parse(args: &Args<'_>) -> Result<MultiLogSpec> {
        let sepbit = args.choice("form", &[("lomet-luo", false), ("sepbit", true)], false)?;
        let default = if sepbit { 6 } else { 8 };
        let logs: u8 = args.num("logs", Some(default), "a whole number in [2, 64]")?;
        if !(2..=64).contains(&logs) {
            return Err(Error::param(
                "placement.logs",
                logs,
                "a whole number in [2, 64]",
            ));
        }
        let freq = FreqSource::parse(args)?;
        if sepbit && freq == FreqSource::Exact {
            return Err(Error::param(
                "placement.freq",
                "exact",
                "`estimate` with form=sepbit (the artifact's levels follow observed distances)",
            ));
        }
        Ok(MultiLogSpec { logs, freq, sepbit })
    }
    fn show(m: &MultiLogSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (m.sepbit, m.logs) {
            (false, _) => write!(f, "multi-log:logs={},freq={}", m.logs, m.freq),
            (true, 6) => f.write_str("multi-log:form=sepbit"),
            (true, logs) => write!(f, "multi-log:form=sepbit,logs={logs}"),
        }
    }
    fn streams(m: &MultiLogSpec, _classes: u32) -> u32 {
        u32::from(m.logs)
    }
    // Every log takes relocated pages: one GC stream per log.
    fn reserve(m: &MultiLogSpec, _classes: u32) -> (u64, u64) {
        (u64::from(m.logs) - 1, 1)
    }
    fn build(m: &MultiLogSpec, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        let mut scheme = MultiLog::new(m.logs, m.freq == FreqSource::Exact, pages);
        if m.sepbit {
            // The levels keep their own per-page state: the description's is not allocated.
            scheme = MultiLog::new(m.logs, true, 0);
            scheme.levels = Some(Levels::new(m.logs, pages, b.segments, b.pps));
        }
        Ok(Built::whole(
            scheme,
            vec![true; usize::from(m.logs)],
            u32::from(m.logs),
            b,
        ))
    }
    // The artifact's levels read no update frequency (so the run keeps none for them).
    fn freq(m: &MultiLogSpec) -> Option<FreqSource> {
        (!m.sepbit).then_some(m.freq)
    }
    // A log per page (1 byte), and its last write (8) when distances are observed (form=sepbit:
    // a level and a last write, 16 with alignment).
    fn page_bytes(m: &MultiLogSpec) -> u64 {
        if m.sepbit {
            16
        } else if m.freq == FreqSource::Exact {
            1
        } else {
            9
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::placement::Victim;
    use rand::SeedableRng;

    use super::*;

    /// A first write goes to log 0; relocation moves a page one log colder, down to the last;
    /// a rewrite sooner than its log's expected distance moves it one log hotter.
    #[test]
    fn pages_move_colder_when_relocated_and_hotter_when_rewritten_soon() {
        let mut m = MultiLog::new(3, false, 10);
        let mut rng = SimRng::seed_from_u64(1);
        let victim = Victim {
            seg: 0,
            stamp: 0,
            dseq: 0,
            region: 0,
            up2: 0.0,
        };
        assert_eq!(m.user_stream(&Write::new(4, 0), 0, &mut rng), 0);
        for expect in [1, 2, 2] {
            assert_eq!(m.gc_stream(Relocation { page: 4, victim: &victim, class: 0, age: 0, rng: &mut rng }), expect);
        }
        // Page 5 is rewritten every 8 writes in log 2, so log 2 expects 8; page 4 then comes
        // back after 2 writes and moves to log 1.
        m.page_log[5] = 2;
        for _ in 0..4 {
            m.user_stream(&Write::new(5, 0), 0, &mut rng);
            m.page_log[5] = 2;
            for _ in 0..7 {
                m.user_stream(&Write::new(9, 0), 0, &mut rng);
            }
        }
        m.last[4] = m.now - 2;
        assert_eq!(m.user_stream(&Write::new(4, 0), 0, &mut rng), 1);
    }

    /// multi-log-opt: bands of a factor 2 in rate around the uniform rate, the hottest in log 0.
    #[test]
    fn exact_rates_fall_in_bands_of_two() {
        let m = MultiLog::new(8, true, 1000);
        let log = |p: f64| m.exact_log(Rate::from_probability(p));
        assert_eq!(log(1.01 / 1000.0), 3);
        assert_eq!(log(1.9 / 1000.0), 3);
        assert_eq!(log(2.1 / 1000.0), 2);
        assert_eq!(log(0.6 / 1000.0), 4);
        assert_eq!(log(0.5), 0);
        assert_eq!(log(1e-9), 7);
    }

    /// The artifact's levels: a relocated page stays at the coldest level until that level
    /// holds a segment's pages, then opens the next; no move hotter before the level's first
    /// collection (E is NaN), none when the distance is at least E, and a move with probability
    /// (E − d)/E otherwise (the share over 20,000 draws within 0.02 of it).
    #[test]
    fn the_artifacts_levels() {
        let mut l = Levels::new(6, 40, 8, 4);
        let mut rng = SimRng::seed_from_u64(3);
        for p in 0..6 {
            assert_eq!(l.user(p, &mut rng), 0);
        }
        let victim = Victim::bare(0);
        l.collected(&victim);
        l.take(&victim, 2);
        // Level 0 holds 6 − 2 = 4 ≥ 4: the first relocated page opens level 1, the next follows it.
        assert_eq!((l.relocate(0), l.relocate(1)), (1, 1));
        assert_eq!((l.max, l.valid[0], l.valid[1]), (1, 4, 2));
        assert_eq!((l.collected[0], l.invalid[0]), (4, 2));
        // Level 1 has no collection yet: a rewrite of page 0 stays there.
        assert_eq!(l.user(0, &mut rng), 1);
        // Level 1 collected with half its pages invalid: E = V·(1 − 1/2)/2.
        l.level_of_segment[1] = 1;
        l.collected(&Victim::bare(1));
        l.take(&Victim::bare(1), 2);
        l.valid[1] = 41;
        // V = 40 once page 0's copy is out: E = 10; d = 1 (rewritten at once): p = 0.9.
        let mut moved = 0;
        for _ in 0..20_000 {
            l.page[0] = (1, l.now);
            l.valid[1] = 41;
            moved += usize::from(l.user(0, &mut rng) == 0);
        }
        assert!((moved as f64 / 20_000.0 - 0.9).abs() < 0.02, "{moved}");
        // d = 10 = E: never.
        l.page[0] = (1, l.now - 9);
        l.valid[1] = 41;
        assert_eq!(l.user(0, &mut rng), 1);
    }
}
