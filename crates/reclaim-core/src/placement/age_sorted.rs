//! Age-sorted streams: 2^DtgStreamExp destage (user) streams and 2^FscStreamExp FSC (GC)
//! streams, each set fed by a binary decision tree that routes a track by its age.
//!
//! H. E. Butterworth's segment filling (IBM Hursley, 1999), as simulated in L. Stockmeyer,
//! "Simulations of the Age-Threshold and Fitness Free Space Collection Algorithms on a Long
//! Trace", §1 and §2.3 (parameters `DtgStreamExp`, `FscStreamExp`, `DtgSortExp`, `FscSortExp`,
//! `DtgDecay`, `FscDecay`):
//!
//! - A track's **age** is the destage sequence counter less the destage number of the segment it
//!   leaves, when it is rewritten or its segment is collected (computed by the run loop). A track
//!   rewritten while still in an open stream leaves a segment that has no number yet; it is given
//!   the number that segment would take if closed now: the counter for a destage stream (age 0),
//!   the largest number of its contributors for an FSC stream. A first write (a page with no
//!   copy) has age equal to the counter, as if it left a segment numbered 0.
//! - Three conventions of that clock are readings, and each is selectable to measure what it
//!   does: an FSC segment's number is the largest of its contributors' (the report's words;
//!   `fsc_number=min` the smallest); a track rewritten in
//!   an open stream as above (`open_age=closing`) or of age 0 in any stream (`open_age=zero`);
//!   a first write of the counter's age (`first_age=oldest`) or of age 0 (`first_age=zero`).
//!   The report places every track before its warm-up (§2.3), so a first write happens only
//!   while a run fills the store.
//! - Each tree has `StreamExp` levels. A node of the top `SortExp` levels keeps a sort boundary and
//!   sends a track right (the older side) when its age is above the boundary, left otherwise;
//!   the track's age then moves the boundary. The lower levels send a track left or right at
//!   random. The leaf reached names the stream.
//! - How the boundary moves, the report gives in two phrases that pull apart: the node "maintains
//!   a relatively long-term average value of the ages", and the boundaries vary "with the goal
//!   that all streams receive tracks at about the same rate" (§2.3). An average of the ages does
//!   not give equal rates unless the ages are symmetric about their mean: under uniform writes
//!   about 63% of ages fall below the mean, and four levels would give the streams shares from 2%
//!   to 16%. So the default, `split=median`, moves the boundary up or down by a fixed step at each
//!   track (a stochastic-approximation median), which converges to the boundary that sends half
//!   the tracks each way; the step is the decay weight times a long-term average of the ages, so
//!   that it scales with them. `split=mean` is the literal reading: the boundary is the
//!   exponential average of the ages. Both start at the age of the first track through the node.
//! - The report says only that the decays were "fixed at 10" (§2.3). The default reads this as
//!   the weight 2^-10 (`decay_rule=exp2`: avg += (age − avg)/1024), a "relatively long-term
//!   average"; `decay_rule=reciprocal` gives weight 1/10.
//!
//! Whether a rewrite of a track in an open stream re-routes it ("the streams act as a cache",
//! Stockmeyer §2.3) or leaves a hole (Note 2) is the run's `streams` setting.

use rand::Rng;

use super::{Build, Built, Declare};
use super::{AgeClock, FscNumber, Relocation, RelocationRun, Scheme};
use crate::error::{Error, Result};
use crate::spec::{check_range, Args, Family, Info, Need, Param};
use crate::workload::Write;
use crate::rng::SimRng;
use std::fmt;

/// One binary decision tree.
#[derive(Clone, Debug)]
pub struct DecisionTree {
    exp: u32,
    sort: u32,
    weight: f64,
    split: SplitRule,
    /// Per sorting node (heap order, root 1): the long-term average age and, under
    /// `split=median`, the sort boundary; NaN until a track passes.
    nodes: Vec<Node>,
    /// Sorting nodes no track has reached yet. While any remain, `route` checks each node it
    /// passes for its first track; after, it takes a path without the checks (same results).
    fresh: usize,
    /// The weight is a power of two and the processor fuses a multiply and an add: see
    /// [`toward`].
    fused: bool,
}

/// A node's average after a track of age `a` with weight `w`: avg + (a − avg)·w.
///
/// `FUSED` computes it as one fused multiply-add, a shorter dependency chain (a run's tracks
/// pass its root one after another) with the same result when the product is exact and
/// normal: the fused operation rounds the exact sum once, the plain one rounds an exact
/// product (no change) and then the sum. The product is exact when w is a power of two
/// (`decay_rule=exp2` with a whole decay), and normal when a ≥ 1: a − avg is then 0 or at
/// least 2^-53 in size (doubles within 2^-53 of a whole a ≥ 1 are a itself), times w ≥ 2^-968.
/// Tracks of age 0 (whose products can underflow after a long streak of them) take the plain
/// form. [`fuses`] checks the weight and the processor once per tree.
///
/// Everything that calls it with `FUSED` is inlined into the FMA-enabled entry points
/// (`route_fma`, `run_fma`): compiled outside them, `mul_add` would be a library call.
#[allow(clippy::inline_always)] // see above
#[inline(always)]
fn toward<const FUSED: bool>(avg: f64, a: f64, w: f64) -> f64 {
    if FUSED {
        (a - avg).mul_add(w, avg)
    } else {
        avg + (a - avg) * w
    }
}

/// True when [`toward`] may fuse with weight `w`: a power of two from 2^-968 to 1, on a
/// processor with a fused multiply-add instruction (else `mul_add` is a slow library call).
fn fuses(w: f64) -> bool {
    let bits = w.to_bits();
    let exponent = i64::try_from(bits >> 52).unwrap_or(i64::MAX) - 1023;
    let power_of_two = bits & ((1 << 52) - 1) == 0 && (-968..=0).contains(&exponent);
    power_of_two && fma_available()
}

#[cfg(target_arch = "x86_64")]
fn fma_available() -> bool {
    std::arch::is_x86_feature_detected!("fma")
}

#[cfg(target_arch = "aarch64")]
fn fma_available() -> bool {
    true
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn fma_available() -> bool {
    false
}

#[derive(Clone, Copy, Debug)]
struct Node {
    avg: f64,
    boundary: f64,
}

impl DecisionTree {
    /// A tree of `exp` levels whose top `sort` levels sort by age with decay `decay`.
    pub fn new(exp: u32, sort: u32, decay: f64, rule: DecayRule, split: SplitRule) -> Self {
        let weight = match rule {
            DecayRule::Exp2 => (-decay).exp2(),
            DecayRule::Reciprocal => 1.0 / decay,
        };
        let sort = sort.min(exp);
        let nodes = 1usize << sort;
        DecisionTree {
            exp,
            sort,
            weight,
            split,
            nodes: vec![
                Node {
                    avg: f64::NAN,
                    boundary: f64::NAN,
                };
                nodes
            ],
            fresh: nodes - 1,
            fused: fuses(weight),
        }
    }

    /// Leaves (streams) of the tree.
    pub fn leaves(&self) -> usize {
        1usize << self.exp
    }

    /// The leaf a track of age `age` reaches.
    // Out of line: inlined, its two arms make the placement's dispatch too large to inline
    // into the user-write path of every other scheme (FIFO 0.96× when it was).
    #[inline(never)]
    pub fn route(&mut self, age: u64, rng: &mut SimRng) -> usize {
        if self.fused && age > 0 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `fused` is set only on a processor with FMA (`fuses`).
            return unsafe { self.route_fma(age, rng) };
            #[cfg(not(target_arch = "x86_64"))]
            return self.route_with::<true>(age, rng);
        }
        self.route_with::<false>(age, rng)
    }

    /// [`Self::route_with`] fused, compiled for processors with FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "fma")]
    fn route_fma(&mut self, age: u64, rng: &mut SimRng) -> usize {
        self.route_with::<true>(age, rng)
    }

    #[allow(clippy::inline_always)] // into the FMA entry points: see `toward`
    #[inline(always)]
    fn route_with<const FUSED: bool>(&mut self, age: u64, rng: &mut SimRng) -> usize {
        let a = age as f64;
        let mut node = if self.fresh > 0 {
            self.sort_fresh(a)
        } else {
            match self.split {
                SplitRule::Mean => self.sort_by(a, Self::step_mean::<FUSED>),
                SplitRule::Median => self.sort_by(a, Self::step_median::<FUSED>),
            }
        };
        for _ in self.sort..self.exp {
            node = 2 * node + usize::from(rng.random::<bool>());
        }
        node - self.leaves()
    }

    /// The leaves of `n` tracks of the same age `age`, one after the other as [`Self::route`]
    /// would give them, pushed to `out` plus `base`: see [`Self::run_path`]. Trees deeper than
    /// four sorting levels, and trees with a node no track has reached, route track by track.
    pub fn route_run(
        &mut self,
        age: u64,
        n: usize,
        base: usize,
        out: &mut Vec<u32>,
        rng: &mut SimRng,
    ) {
        if self.fresh > 0 || self.sort == 0 || self.sort > 4 {
            out.extend((0..n).map(|_| (base + self.route(age, rng)) as u32));
            return;
        }
        if self.fused && age > 0 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `fused` is set only on a processor with FMA (`fuses`).
            unsafe {
                self.run_fma(age, n, base, out, rng);
            }
            #[cfg(not(target_arch = "x86_64"))]
            self.run_with::<true>(age, n, base, out, rng);
        } else {
            self.run_with::<false>(age, n, base, out, rng);
        }
    }

    /// [`Self::run_with`] fused, compiled for processors with FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "fma")]
    fn run_fma(&mut self, age: u64, n: usize, base: usize, out: &mut Vec<u32>, rng: &mut SimRng) {
        self.run_with::<true>(age, n, base, out, rng);
    }

    #[allow(clippy::inline_always)] // into the FMA entry points: see `toward`
    #[inline(always)]
    fn run_with<const FUSED: bool>(
        &mut self,
        age: u64,
        n: usize,
        base: usize,
        out: &mut Vec<u32>,
        rng: &mut SimRng,
    ) {
        let mean = Self::step_mean::<FUSED>;
        let median = Self::run_median::<FUSED>;
        match (self.split, self.sort) {
            (SplitRule::Mean, 1) => self.run_path::<1>(age, n, base, out, rng, mean),
            (SplitRule::Mean, 2) => self.run_path::<2>(age, n, base, out, rng, mean),
            (SplitRule::Mean, 3) => self.run_path::<3>(age, n, base, out, rng, mean),
            (SplitRule::Mean, 4) => self.run_path::<4>(age, n, base, out, rng, mean),
            (SplitRule::Median, 1) => self.run_path::<1>(age, n, base, out, rng, median),
            (SplitRule::Median, 2) => self.run_path::<2>(age, n, base, out, rng, median),
            (SplitRule::Median, 3) => self.run_path::<3>(age, n, base, out, rng, median),
            (SplitRule::Median, 4) => self.run_path::<4>(age, n, base, out, rng, median),
            _ => unreachable!("trees of one to four sorting levels, checked above"),
        }
    }

    /// [`Self::route_run`] for trees of `S` sorting levels: the node a track passes at each
    /// level is held in registers while the tracks of the run keep passing it (they mostly
    /// take one path, their ages being equal), and goes back to the tree when a track turns
    /// elsewhere at that level or the run ends.
    #[allow(clippy::inline_always)] // into the FMA entry points: see `toward`
    #[inline(always)]
    fn run_path<const S: usize>(
        &mut self,
        age: u64,
        n: usize,
        base: usize,
        out: &mut Vec<u32>,
        rng: &mut SimRng,
        step: impl Fn(&mut Node, f64, f64) -> bool,
    ) {
        let (a, w) = (age as f64, self.weight);
        let leaves = self.leaves();
        let mut path = [0usize; S];
        let mut held = [self.nodes[1]; S];
        path[0] = 1;
        for level in 1..S {
            path[level] = path[level - 1] * 2;
            held[level] = self.nodes[path[level]];
        }
        let random = self.exp - self.sort;
        let nodes = &mut self.nodes;
        out.extend((0..n).map(|_| {
            // Every track passes the root, held at level 0.
            let mut node = 2 + usize::from(step(&mut held[0], a, w));
            for level in 1..S {
                if node != path[level] {
                    nodes[path[level]] = held[level];
                    (path[level], held[level]) = (node, nodes[node]);
                }
                node = 2 * node + usize::from(step(&mut held[level], a, w));
            }
            for _ in 0..random {
                node = 2 * node + usize::from(rng.random::<bool>());
            }
            (base + node - leaves) as u32
        }));
        for level in 0..S {
            self.nodes[path[level]] = held[level];
        }
    }

    /// The sorting levels while some node has seen no track: a node's first track starts its
    /// average and boundary at its age.
    #[cold]
    fn sort_fresh(&mut self, a: f64) -> usize {
        let w = self.weight;
        let mut node = 1usize;
        for _ in 0..self.sort {
            let n = &mut self.nodes[node];
            if n.avg.is_nan() {
                (n.avg, n.boundary) = (a, a);
                self.fresh -= 1;
            }
            let older = match self.split {
                SplitRule::Mean => Self::step_mean::<false>(n, a, w),
                SplitRule::Median => Self::step_median::<false>(n, a, w),
            };
            node = 2 * node + usize::from(older);
        }
        node
    }

    /// The sorting levels for a track of age `a`, each node it passes taking `step`.
    #[allow(clippy::inline_always)] // into the FMA entry points: see `toward`
    #[inline(always)]
    fn sort_by(&mut self, a: f64, step: impl Fn(&mut Node, f64, f64) -> bool) -> usize {
        let w = self.weight;
        let mut node = 1usize;
        for _ in 0..self.sort {
            let older = step(&mut self.nodes[node], a, w);
            node = 2 * node + usize::from(older);
        }
        node
    }

    /// One `split=mean` node passing a track of age `a`: right when the age is above the
    /// node's average, which then moves toward it; true when it goes right.
    #[allow(clippy::inline_always)] // into the FMA entry points: see `toward`
    #[inline(always)]
    fn step_mean<const FUSED: bool>(n: &mut Node, a: f64, w: f64) -> bool {
        let older = a > n.avg;
        n.avg = toward::<FUSED>(n.avg, a, w);
        older
    }

    /// One `split=median` node passing a track of age `a`: right when the age is above the
    /// node's boundary, which moves a step (the weight times the average age) toward it; true
    /// when it goes right.
    #[allow(clippy::inline_always)] // into the FMA entry points: see `toward`
    #[inline(always)]
    fn step_median<const FUSED: bool>(n: &mut Node, a: f64, w: f64) -> bool {
        n.avg = toward::<FUSED>(n.avg, a, w);
        let step = n.avg * w;
        let (older, younger) = (a > n.boundary, a < n.boundary);
        // The boundary moves by +step, -step or +0.0, the move built from the bits of `step`:
        // which way a track goes is a coin toss at every level, and a mispredicted branch per
        // level (the compiler branches on a select of floats) cost more than the arithmetic.
        let sign = u64::from(younger) << 63;
        let moves = u64::from(older | younger).wrapping_neg();
        n.boundary += f64::from_bits((step.to_bits() ^ sign) & moves);
        older
    }

    /// [`Self::step_median`] with branches, for the tracks of a run: their ages are equal, so
    /// a node sends them all one way, or (its boundary having reached their age) alternately
    /// one way and the other, patterns a branch predictor learns; the branch-free form would
    /// pay its extra arithmetic on every track. Same operations, same results.
    #[allow(clippy::inline_always)] // into the FMA entry points: see `toward`
    #[inline(always)]
    fn run_median<const FUSED: bool>(n: &mut Node, a: f64, w: f64) -> bool {
        n.avg = toward::<FUSED>(n.avg, a, w);
        let step = n.avg * w;
        if a > n.boundary {
            n.boundary += step;
            true
        } else {
            if a < n.boundary {
                n.boundary -= step;
            }
            false
        }
    }

    /// Node `node`'s average age and boundary [destage ticks] (tests).
    #[cfg(test)]
    fn node(&self, node: usize) -> (f64, f64) {
        (self.nodes[node].avg, self.nodes[node].boundary)
    }
}

/// Destage streams first (0 .. 2^DtgStreamExp), then FSC streams.
#[derive(Clone, Debug)]
pub struct AgeSorted {
    dtg: DecisionTree,
    fsc: DecisionTree,
    clock: AgeClock,
}

impl AgeSorted {
    /// With the given trees and the destage clock's default conventions.
    pub fn new(dtg: DecisionTree, fsc: DecisionTree) -> Self {
        AgeSorted {
            dtg,
            fsc,
            clock: AgeClock::default(),
        }
    }

    /// Destage streams.
    pub fn destage_streams(&self) -> usize {
        self.dtg.leaves()
    }

    /// FSC streams.
    pub fn fsc_streams(&self) -> usize {
        self.fsc.leaves()
    }
}

impl Scheme for AgeSorted {
    #[inline]
    fn user_stream(&mut self, _write: &Write, age: u64, rng: &mut SimRng) -> usize {
        self.dtg.route(age, rng)
    }

    #[inline]
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        self.dtg.leaves() + self.fsc.route(r.age, r.rng)
    }

    fn age_clock(&self) -> AgeClock {
        self.clock
    }

    /// A victim's pages share its age: the FSC tree routes them one after the other, and the
    /// cleaner relocates them in one loop.
    fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
        let RelocationRun {
            age, pages, rng, ..
        } = run;
        let base = self.dtg.leaves();
        out.clear();
        self.fsc.route_run(age, pages.len(), base, out, rng);
        true
    }
}

/// How a decay parameter weighs a track's age into a sorting node's average.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecayRule {
    /// `exp2`: weight 2^-decay (the default reading of "fixed at 10").
    Exp2,
    /// `reciprocal`: weight 1/decay.
    Reciprocal,
}

impl fmt::Display for DecayRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DecayRule::Exp2 => "exp2",
            DecayRule::Reciprocal => "reciprocal",
        })
    }
}

/// How a sorting node of `age-sorted` moves its boundary (see `placement::age_sorted`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitRule {
    /// `median`: a boundary that sends half the tracks each way (equal stream rates).
    Median,
    /// `mean`: the exponential average of the ages.
    Mean,
}

impl fmt::Display for SplitRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SplitRule::Median => "median",
            SplitRule::Mean => "mean",
        })
    }
}

/// Parameters of `age-sorted` (Stockmeyer §2.3, named after his).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgeSortedSpec {
    /// `DtgStreamExp`: log₂ of the destage streams, 0 ≤ · ≤ 10.
    pub dtg_exp: u32,
    /// `FscStreamExp`: log₂ of the FSC streams, 0 ≤ · ≤ 10.
    pub fsc_exp: u32,
    /// `DtgSortExp`: levels of the destage tree that sort by age, 0 ≤ · ≤ `dtg_exp`.
    pub dtg_sort: u32,
    /// `FscSortExp`: levels of the FSC tree that sort by age, 0 ≤ · ≤ `fsc_exp`.
    pub fsc_sort: u32,
    /// `DtgDecay`, > 0.
    pub dtg_decay: f64,
    /// `FscDecay`, > 0.
    pub fsc_decay: f64,
    /// How a decay becomes a weight.
    pub decay_rule: DecayRule,
    /// How a sorting node moves its boundary.
    pub split: SplitRule,
    /// The destage clock's conventions (`fsc_number`, `open_age`, `first_age`).
    pub clock: AgeClock,
}

impl AgeSortedSpec {
    fn parse(spec: &Args<'_>) -> Result<Self> {
        let exp = |key: &str| -> Result<u32> {
            let range = "a whole number in [0, 10]";
            let e: u32 = spec.num(key, Some(4), range)?;
            if e > 10 {
                return Err(Error::param(&format!("{}.{key}", spec.param), e, range));
            }
            Ok(e)
        };
        let (dtg_exp, fsc_exp) = (exp("dtg_exp")?, exp("fsc_exp")?);
        let sort = |key: &str, max: u32| -> Result<u32> {
            let range = format!("a whole number in [0, {max}] (at most the tree's levels)");
            let e: u32 = spec.num(key, Some(max), &range)?;
            if e > max {
                return Err(Error::param(&format!("{}.{key}", spec.param), e, range));
            }
            Ok(e)
        };
        let decay = |key: &str| -> Result<f64> {
            let d: f64 = spec.num(key, Some(10.0), "a number > 0")?;
            check_range(&format!("{}.{key}", spec.param), d, 0.0, 1e6, true, false)?;
            Ok(d)
        };
        let decay_rule = spec.choice(
            "decay_rule",
            &[("exp2", DecayRule::Exp2), ("reciprocal", DecayRule::Reciprocal)],
            DecayRule::Exp2,
        )?;
        let split = spec.choice(
            "split",
            &[("median", SplitRule::Median), ("mean", SplitRule::Mean)],
            SplitRule::Median,
        )?;
        let clock = AgeClock {
            fsc_number: spec.choice(
                "fsc_number",
                &[("max", FscNumber::Max), ("min", FscNumber::Min)],
                FscNumber::Max,
            )?,
            open_zero: spec.choice("open_age", &[("closing", false), ("zero", true)], false)?,
            first_zero: spec.choice("first_age", &[("oldest", false), ("zero", true)], false)?,
        };
        let a = AgeSortedSpec {
            clock,
            split,
            dtg_exp,
            fsc_exp,
            dtg_sort: sort("dtg_sort", dtg_exp)?,
            fsc_sort: sort("fsc_sort", fsc_exp)?,
            dtg_decay: decay("dtg_decay")?,
            fsc_decay: decay("fsc_decay")?,
            decay_rule,
        };
        if a.decay_rule == DecayRule::Reciprocal && (a.dtg_decay < 1.0 || a.fsc_decay < 1.0) {
            return Err(
                spec.bad("decays ≥ 1 with `decay_rule=reciprocal` (a weight 1/decay of at most 1)")
            );
        }
        Ok(a)
    }
}

impl AgeSortedSpec {
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "age-sorted:dtg_exp={},fsc_exp={},dtg_sort={},fsc_sort={},dtg_decay={},fsc_decay={},decay_rule={},split={}",
            self.dtg_exp, self.fsc_exp, self.dtg_sort, self.fsc_sort, self.dtg_decay, self.fsc_decay, self.decay_rule, self.split
        )?;
        // Named only when not the default, so that the texts of existing runs stay theirs.
        if self.clock.fsc_number != FscNumber::Max {
            write!(f, ",fsc_number={}", self.clock.fsc_number)?;
        }
        if self.clock.open_zero {
            f.write_str(",open_age=zero")?;
        }
        if self.clock.first_zero {
            f.write_str(",first_age=zero")?;
        }
        Ok(())
    }
}

const PARAMS: [Param; 11] = [
    Param {
        key: "dtg_exp",
        values: "E",
        unit: "",
        range: "a whole number in [0, 10]",
        default: Some("4"),
        help: "DtgStreamExp: log₂ of the destage streams.",
    },
    Param {
        key: "fsc_exp",
        values: "E",
        unit: "",
        range: "a whole number in [0, 10]",
        default: Some("4"),
        help: "FscStreamExp: log₂ of the FSC (relocation) streams.",
    },
    Param {
        key: "dtg_sort",
        values: "S",
        unit: "",
        range: "a whole number in [0, dtg_exp]",
        default: Some("dtg_exp"),
        help: "DtgSortExp: levels of the destage tree that sort by age.",
    },
    Param {
        key: "fsc_sort",
        values: "S",
        unit: "",
        range: "a whole number in [0, fsc_exp]",
        default: Some("fsc_exp"),
        help: "FscSortExp: levels of the FSC tree that sort by age.",
    },
    Param {
        key: "dtg_decay",
        values: "D",
        unit: "",
        range: "a number > 0",
        default: Some("10"),
        help: "DtgDecay: how slowly a destage node's average age moves.",
    },
    Param {
        key: "fsc_decay",
        values: "D",
        unit: "",
        range: "a number > 0",
        default: Some("10"),
        help: "FscDecay: how slowly an FSC node's average age moves.",
    },
    Param {
        key: "decay_rule",
        values: "exp2|reciprocal",
        unit: "",
        range: "`exp2` or `reciprocal`",
        default: Some("exp2"),
        help: "A decay d weighs a new age by 2^-d (exp2) or 1/d (reciprocal).",
    },
    Param {
        key: "split",
        values: "median|mean",
        unit: "",
        range: "`median` or `mean`",
        default: Some("median"),
        help: "A node's boundary: the median of recent ages (equal stream rates) or their long-term mean (§2.3's words).",
    },
    Param {
        key: "fsc_number",
        values: "max|min",
        unit: "",
        range: "`max` or `min`",
        default: Some("max"),
        help: "An FSC segment's destage number: the largest of its contributors' (§2.3), or the smallest.",
    },
    Param {
        key: "open_age",
        values: "closing|zero",
        unit: "",
        range: "`closing` or `zero`",
        default: Some("closing"),
        help: "A track rewritten in an open stream: aged as if its segment closed now, or 0.",
    },
    Param {
        key: "first_age",
        values: "oldest|zero",
        unit: "",
        range: "`oldest` or `zero`",
        default: Some("oldest"),
        help: "A first write's age: the destage counter (from a segment numbered 0), or 0.",
    },
];

impl Declare for AgeSorted {
    type Params = AgeSortedSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "age-sorted",
        aliases: &[],
        summary: "Butterworth's destage and FSC streams fed by binary decision trees that sort tracks by age.",
        source: "Stockmeyer §2.3",
        params: &PARAMS,
        needs: &[Need::Ages, Need::DestageNumbers],
    };
    fn parse(args: &Args<'_>) -> Result<AgeSortedSpec> {
        AgeSortedSpec::parse(args)
    }
    fn show(a: &AgeSortedSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        a.write(f)
    }
    fn streams(a: &AgeSortedSpec, _classes: u32) -> u32 {
        (1 << a.dtg_exp) + (1 << a.fsc_exp)
    }
    // Every FSC stream takes relocated pages: a reserve of one per GC stream beyond the first.
    fn reserve(a: &AgeSortedSpec, _classes: u32) -> (u64, u64) {
        ((1u64 << a.fsc_exp) - 1, 1)
    }
    fn build(a: &AgeSortedSpec, b: &Build<'_>) -> Result<Built<Self>> {
        let dtg = DecisionTree::new(a.dtg_exp, a.dtg_sort, a.dtg_decay, a.decay_rule, a.split);
        let fsc = DecisionTree::new(a.fsc_exp, a.fsc_sort, a.fsc_decay, a.decay_rule, a.split);
        let mut scheme = AgeSorted::new(dtg, fsc);
        scheme.clock = a.clock;
        let (d, f) = (scheme.destage_streams(), scheme.fsc_streams());
        let user: Vec<bool> = (0..d).map(|_| true).chain((0..f).map(|_| false)).collect();
        Ok(Built::whole(scheme, user, f as u32, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// One sorting level splits at the running average: with ages 10, 20, 0 and weight 1/2
    /// (decay 1, exp2): 10 starts the average (10, not above: left; avg 10), 20 goes right
    /// (avg 15), 0 goes left (avg 7.5).
    #[test]
    fn a_sorting_node_splits_at_its_running_average() {
        let mut t = DecisionTree::new(1, 1, 1.0, DecayRule::Exp2, SplitRule::Mean);
        let mut rng = SimRng::seed_from_u64(1);
        assert_eq!(t.route(10, &mut rng), 0);
        assert_eq!(t.route(20, &mut rng), 1);
        assert!((t.node(1).0 - 15.0).abs() < 1e-12);
        assert_eq!(t.route(0, &mut rng), 0);
        assert!((t.node(1).0 - 7.5).abs() < 1e-12);
    }

    /// A run of tracks of one age routed together gives the leaves, the node states and the
    /// random draws of routing them one by one, for both splits, trees with random levels, and
    /// runs that start before every node has seen a track.
    #[test]
    fn a_run_routes_as_its_tracks_one_by_one() {
        for split in [SplitRule::Median, SplitRule::Mean] {
            for (exp, sort) in [(4, 4), (5, 2), (3, 1), (6, 3), (7, 6)] {
                let mut one = DecisionTree::new(exp, sort, 3.0, DecayRule::Exp2, split);
                let mut run = one.clone();
                let (mut r1, mut r2) = (SimRng::seed_from_u64(4), SimRng::seed_from_u64(4));
                let mut ages = SimRng::seed_from_u64(5);
                let mut out = Vec::new();
                for _ in 0..2_000 {
                    let (age, n) = (ages.random_range(0..1_000u64), ages.random_range(1..70));
                    let leaves: Vec<u32> = (0..n)
                        .map(|_| (7 + one.route(age, &mut r1)) as u32)
                        .collect();
                    out.clear();
                    run.route_run(age, n, 7, &mut out, &mut r2);
                    assert_eq!(out, leaves);
                }
                for node in 1..1usize << sort {
                    let (a, b) = (one.node(node), run.node(node));
                    assert_eq!(
                        (a.0.to_bits(), a.1.to_bits()),
                        (b.0.to_bits(), b.1.to_bits())
                    );
                }
                assert_eq!(r1.random::<u64>(), r2.random::<u64>());
            }
        }
    }

    /// The fused multiply-add form of the average ([`toward`]) gives the plain form's results
    /// bit for bit: trees of both splits and of weights 2^-10, 2^-3, 2^-1 (fused where the
    /// processor can) against the same trees kept plain, on ages that include 0 (plain even
    /// when fused), long runs of one age and ages far apart, routed one by one and in runs.
    #[test]
    fn the_fused_average_changes_nothing() {
        for split in [SplitRule::Median, SplitRule::Mean] {
            for decay in [10.0, 3.0, 1.0] {
                let mut fused = DecisionTree::new(5, 4, decay, DecayRule::Exp2, split);
                assert_eq!(fused.fused, fma_available());
                let mut plain = fused.clone();
                plain.fused = false;
                let (mut r1, mut r2) = (SimRng::seed_from_u64(8), SimRng::seed_from_u64(8));
                let mut ages = SimRng::seed_from_u64(9);
                let (mut o1, mut o2) = (Vec::new(), Vec::new());
                for i in 0..20_000 {
                    let age = match i % 4 {
                        0 => 0,
                        1 => ages.random_range(0..5u64),
                        2 => ages.random_range(0..100_000u64),
                        _ => 1u64 << ages.random_range(0..40),
                    };
                    if i % 3 == 0 {
                        let n = ages.random_range(1..80);
                        o1.clear();
                        o2.clear();
                        fused.route_run(age, n, 0, &mut o1, &mut r1);
                        plain.route_run(age, n, 0, &mut o2, &mut r2);
                        assert_eq!(o1, o2);
                    } else {
                        assert_eq!(fused.route(age, &mut r1), plain.route(age, &mut r2));
                    }
                }
                for node in 1..16 {
                    let (a, b) = (fused.node(node), plain.node(node));
                    assert_eq!(
                        (a.0.to_bits(), a.1.to_bits()),
                        (b.0.to_bits(), b.1.to_bits())
                    );
                }
            }
        }
        // Weights that are not powers of two, or too small, never fuse.
        for w in [0.1, 0.75, 2f64.powi(-969), 2.0] {
            assert!(!fuses(w), "{w}");
        }
        assert_eq!(fuses(2f64.powi(-968)), fma_available());
    }

    /// `split=median` converges to the boundary that sends half the tracks each way: on ages
    /// drawn from an exponential distribution of mean 100 (median 100·ln 2 = 69.3), whose mean
    /// would send 63% left, a level sends 50% ± 1% left after a run-in.
    #[test]
    fn a_median_split_halves_skewed_ages() {
        let mut t = DecisionTree::new(1, 1, 10.0, DecayRule::Exp2, SplitRule::Median);
        let mut rng = SimRng::seed_from_u64(2);
        let mut age = || (-100.0 * (1.0 - rng.random::<f64>()).ln()) as u64;
        let mut ages: Vec<u64> = (0..200_000).map(|_| age()).collect();
        let mut r = SimRng::seed_from_u64(3);
        let left = ages
            .drain(..)
            .enumerate()
            .filter(|&(i, a)| t.route(a, &mut r) == 0 && i >= 50_000)
            .count();
        let share = left as f64 / 150_000.0;
        assert!((share - 0.5).abs() < 0.01, "left share {share}");
        assert!((t.node(1).1 - 69.3).abs() < 5.0, "boundary {}", t.node(1).1);
    }
}
