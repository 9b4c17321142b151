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

use super::{Gathered, Scheme, Victim};
use crate::config::{DecayRule, SplitRule};
use crate::workload::Write;
use crate::SimRng;

/// Fractional bits of a node's fixed-point ages: 1/2^24 of a destage tick.
const FRAC: u32 = 24;
/// Ages beyond this many ticks (2^38, far beyond any run) are taken as this.
const AGE_CAP: u64 = (1 << (62 - FRAC)) - 1;
/// Fractional bits of a weight.
const WEIGHT_FRAC: u32 = 40;
/// A node no track has reached yet.
const UNSET: i64 = i64::MIN;

/// An age [destage ticks] in fixed point.
#[inline]
fn fixed(age: u64) -> i64 {
    age.min(AGE_CAP).cast_signed() << FRAC
}

/// A decay's weight in fixed point: `x · weight` is `(x · mul) >> 40`, or `x >> shift` when the
/// weight is a power of two (the same value, computed faster).
#[derive(Clone, Copy, Debug)]
enum Weight {
    Shift(u32),
    Mul(i64),
}

impl Weight {
    fn new(w: f64) -> Self {
        let mul = (w * (1u64 << WEIGHT_FRAC) as f64).round() as i64;
        if mul > 0 && (mul as u64).is_power_of_two() {
            Weight::Shift(WEIGHT_FRAC - mul.trailing_zeros())
        } else {
            Weight::Mul(mul)
        }
    }

    /// `x · weight`, rounded toward −∞.
    #[inline]
    fn of(self, x: i64) -> i64 {
        match self {
            Weight::Shift(s) => x >> s,
            Weight::Mul(m) => ((i128::from(x) * i128::from(m)) >> WEIGHT_FRAC) as i64,
        }
    }
}

/// One binary decision tree.
///
/// Nodes keep their averages and boundaries in fixed point (see `FRAC`), so that the default
/// weight 2^-10 is an exact shift and a node's comparisons are integer ones; the report does
/// not say how its program rounded. Against floating point the rounding moves no result beyond
/// run-to-run noise (bench geometry, fitness-tree: WA 5.350 against 5.345).
#[derive(Clone, Debug)]
pub struct DecisionTree {
    exp: u32,
    sort: u32,
    weight: Weight,
    split: SplitRule,
    /// Per sorting node (heap order, root 1): the long-term average age and, under
    /// `split=median`, the sort boundary; `UNSET` until a track passes.
    nodes: Vec<Node>,
    /// Sorting nodes no track has reached yet. While any remain, `route` checks each node it
    /// passes for its first track; after, it takes a path without the checks (same results).
    fresh: usize,
    /// Scratch for [`Self::route_run`]: pages in node order, one level's right-goers, groups.
    order: Vec<u32>,
    right: Vec<u32>,
    groups: Vec<(usize, usize, usize)>,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    avg: i64,
    boundary: i64,
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
            weight: Weight::new(weight),
            split,
            nodes: vec![
                Node {
                    avg: UNSET,
                    boundary: UNSET,
                };
                nodes
            ],
            fresh: nodes - 1,
            order: Vec::new(),
            right: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// Leaves (streams) of the tree.
    pub fn leaves(&self) -> usize {
        1usize << self.exp
    }

    /// The leaf a track of age `age` reaches.
    #[inline]
    pub fn route(&mut self, age: u64, rng: &mut SimRng) -> usize {
        let a = fixed(age);
        let mut node = if self.fresh > 0 {
            self.sort_fresh(a)
        } else {
            match (self.split, self.weight) {
                (SplitRule::Mean, w) => self.sort_mean(a, w),
                // The default weight gets its own copy of the loop, the shift inlined.
                (SplitRule::Median, Weight::Shift(s)) => self.sort_median(a, Weight::Shift(s)),
                (SplitRule::Median, w) => self.sort_median(a, w),
            }
        };
        for _ in self.sort..self.exp {
            node = 2 * node + usize::from(rng.random::<bool>());
        }
        node - self.leaves()
    }

    /// The leaves of `n` tracks of the same age `age` routed one after the other, into `out`:
    /// what `n` calls of [`Self::route`] give, computed level by level. A node's state depends
    /// only on the tracks that reach it, in their order, so each node can take its tracks in
    /// one pass with its state held in registers. The random lower levels draw for each track
    /// in turn, after its sorting levels, as `route` does.
    // Once per victim; out of line keeps its loops' state in registers.
    #[inline(never)]
    pub fn route_run(&mut self, age: u64, n: usize, out: &mut Vec<u32>, rng: &mut SimRng) {
        out.clear();
        if self.fresh > 0 || n < 2 {
            out.extend((0..n).map(|_| self.route(age, rng) as u32));
            return;
        }
        let a = fixed(age);
        out.resize(n, 0);
        let mut order = std::mem::take(&mut self.order);
        let mut right = std::mem::take(&mut self.right);
        let mut groups = std::mem::take(&mut self.groups);
        order.clear();
        order.extend(0..n as u32);
        groups.clear();
        groups.push((1, 0, n));
        for _ in 0..self.sort {
            for g in 0..groups.len() {
                let (node, start, end) = groups[g];
                let left = match (self.split, self.weight) {
                    (SplitRule::Mean, w) => self.split_group(
                        node,
                        a,
                        w,
                        &mut order[start..end],
                        &mut right,
                        Self::step_mean,
                    ),
                    (SplitRule::Median, Weight::Shift(s)) => self.split_group(
                        node,
                        a,
                        Weight::Shift(s),
                        &mut order[start..end],
                        &mut right,
                        Self::step_median,
                    ),
                    (SplitRule::Median, w) => self.split_group(
                        node,
                        a,
                        w,
                        &mut order[start..end],
                        &mut right,
                        Self::step_median,
                    ),
                };
                // The left child's tracks stay in place; the right child's follow them.
                groups[g] = (2 * node, start, start + left);
                groups.push((2 * node + 1, start + left, end));
            }
            groups.retain(|&(_, s, e)| e > s);
        }
        for &(node, start, end) in &groups {
            for &i in &order[start..end] {
                out[i as usize] = node as u32;
            }
        }
        let (levels, leaves) = (self.exp - self.sort, self.leaves() as u32);
        for leaf in out.iter_mut() {
            let mut node = *leaf;
            for _ in 0..levels {
                node = 2 * node + u32::from(rng.random::<bool>());
            }
            *leaf = node - leaves;
        }
        (self.order, self.right, self.groups) = (order, right, groups);
    }

    /// Passes the tracks `tracks` (all of fixed-point age `a`) through node `node` in order with
    /// `step`; leaves the left-goers first in `tracks`, in order, then the right-goers, and
    /// returns how many went left. Tracks of one age mostly all go the way the first went (a
    /// boundary moves by a small step per track), so that prefix is stepped without moving
    /// any track.
    #[inline]
    fn split_group(
        &mut self,
        node: usize,
        a: i64,
        w: Weight,
        tracks: &mut [u32],
        right: &mut Vec<u32>,
        step: fn(&mut Node, i64, Weight) -> bool,
    ) -> usize {
        let n = tracks.len();
        let mut st = self.nodes[node];
        let first = step(&mut st, a, w);
        let mut k = 1; // tracks stepped the way the first went
        let mut turned = false;
        while k < n {
            if step(&mut st, a, w) != first {
                turned = true;
                break;
            }
            k += 1;
        }
        if !turned {
            self.nodes[node] = st;
            return if first { 0 } else { n };
        }
        // Tracks 0..k went `first`, track k the other way (already stepped); the rest in turn.
        right.clear();
        let mut left = if first {
            right.extend_from_slice(&tracks[..k]);
            tracks[0] = tracks[k];
            1
        } else {
            right.push(tracks[k]);
            k
        };
        for j in k + 1..n {
            let track = tracks[j];
            if step(&mut st, a, w) {
                right.push(track);
            } else {
                tracks[left] = track;
                left += 1;
            }
        }
        tracks[left..].copy_from_slice(right);
        self.nodes[node] = st;
        left
    }

    /// The sorting levels while some node has seen no track: a node's first track starts its
    /// average and boundary at its age.
    #[cold]
    fn sort_fresh(&mut self, a: i64) -> usize {
        let w = self.weight;
        let mut node = 1usize;
        for _ in 0..self.sort {
            let n = &mut self.nodes[node];
            if n.avg == UNSET {
                (n.avg, n.boundary) = (a, a);
                self.fresh -= 1;
            }
            let older = match self.split {
                SplitRule::Mean => Self::step_mean(n, a, w),
                SplitRule::Median => Self::step_median(n, a, w),
            };
            node = 2 * node + usize::from(older);
        }
        node
    }

    #[inline]
    fn sort_mean(&mut self, a: i64, w: Weight) -> usize {
        let mut node = 1usize;
        for _ in 0..self.sort {
            let older = Self::step_mean(&mut self.nodes[node], a, w);
            node = 2 * node + usize::from(older);
        }
        node
    }

    #[inline]
    fn sort_median(&mut self, a: i64, w: Weight) -> usize {
        let mut node = 1usize;
        for _ in 0..self.sort {
            let older = Self::step_median(&mut self.nodes[node], a, w);
            node = 2 * node + usize::from(older);
        }
        node
    }

    /// One `split=mean` node passing a track of age `a`: right when the age is above the
    /// node's average, which then moves toward it; true when it goes right.
    #[inline]
    fn step_mean(n: &mut Node, a: i64, w: Weight) -> bool {
        let older = a > n.avg;
        n.avg += w.of(a - n.avg);
        older
    }

    /// One `split=median` node passing a track of age `a`: right when the age is above the
    /// node's boundary, which moves a step (the weight times the average age) toward it; true
    /// when it goes right.
    #[inline]
    fn step_median(n: &mut Node, a: i64, w: Weight) -> bool {
        n.avg += w.of(a - n.avg);
        let step = w.of(n.avg);
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
        let n = self.nodes[node];
        let unit = f64::from(1u32 << FRAC);
        (n.avg as f64 / unit, n.boundary as f64 / unit)
    }
}

/// Destage streams first (0 .. 2^DtgStreamExp), then FSC streams.
#[derive(Clone, Debug)]
pub struct AgeSorted {
    dtg: DecisionTree,
    fsc: DecisionTree,
}

impl AgeSorted {
    /// With the given trees.
    pub fn new(dtg: DecisionTree, fsc: DecisionTree) -> Self {
        AgeSorted { dtg, fsc }
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
    fn gc_stream(
        &mut self,
        _page: &Gathered,
        _victim: &Victim,
        _class: u16,
        age: u64,
        rng: &mut SimRng,
    ) -> usize {
        self.dtg.leaves() + self.fsc.route(age, rng)
    }

    /// A victim's pages share its age: the FSC tree routes them as a run.
    fn gc_streams(
        &mut self,
        _victim: &Victim,
        age: u64,
        n: usize,
        out: &mut Vec<u32>,
        rng: &mut SimRng,
    ) -> bool {
        self.fsc.route_run(age, n, out, rng);
        let base = self.dtg.leaves() as u32;
        for s in out.iter_mut() {
            *s += base;
        }
        true
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

    /// Routing a run of tracks of one age gives what routing them one by one gives, leaf for
    /// leaf and node for node, for every split, weight and number of random levels.
    #[test]
    fn a_run_routes_as_its_tracks_one_by_one() {
        let mut rng = SimRng::seed_from_u64(7);
        let mut split_runs = 0;
        for (sort, decay, rule, split) in [
            (4, 10.0, DecayRule::Exp2, SplitRule::Median),
            (4, 2.0, DecayRule::Exp2, SplitRule::Mean),
            (2, 10.0, DecayRule::Reciprocal, SplitRule::Median),
            (3, 3.0, DecayRule::Reciprocal, SplitRule::Mean),
        ] {
            let mut one = DecisionTree::new(4, sort, decay, rule, split);
            // Run-in with varied ages so that boundaries sit among the ages below.
            for _ in 0..5_000 {
                let age = rng.random_range(0..1_000);
                one.route(age, &mut rng);
            }
            let mut run = one.clone();
            let (mut r1, mut r2) = (SimRng::seed_from_u64(8), SimRng::seed_from_u64(8));
            let mut out = Vec::new();
            for (age, n) in [(500, 64), (20, 3), (999, 40), (480, 17), (0, 2)] {
                let want: Vec<u32> = (0..n).map(|_| one.route(age, &mut r1) as u32).collect();
                run.route_run(age, n, &mut out, &mut r2);
                assert_eq!(out, want, "sort {sort}, {split:?}, age {age}");
                split_runs += usize::from(out.iter().any(|&l| l != out[0]));
                for (x, y) in one.nodes.iter().zip(&run.nodes) {
                    assert_eq!((x.avg, x.boundary), (y.avg, y.boundary));
                }
            }
        }
        // Runs that a node splits (the case the level-by-level order must get right) occur.
        assert!(split_runs >= 4, "{split_runs} runs split");
    }

    /// The weight 2^-10 is a shift, and a multiply by the same weight gives the same values
    /// (both round toward −∞); 1/10 is within one fixed-point unit of the real product.
    #[test]
    fn weights_apply_in_fixed_point() {
        let s = Weight::new((-10f64).exp2());
        assert!(matches!(s, Weight::Shift(10)));
        let m = Weight::Mul(1 << (WEIGHT_FRAC - 10));
        let t = Weight::new(0.1);
        for x in [
            -5_000_000i64,
            -1025,
            -1,
            0,
            1,
            1023,
            1024,
            123_456_789,
            1 << 61,
        ] {
            assert_eq!(s.of(x), m.of(x));
            assert!((t.of(x) as f64 - x as f64 * 0.1).abs() <= 1.0 + x.abs() as f64 * 1e-12);
        }
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
