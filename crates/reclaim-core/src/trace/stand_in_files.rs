//! A second stand-in for Stockmeyer's "snake" trace: a generative model with file structure, in
//! place of [`super::stand_in`]'s pure stack-distance model.
//!
//! L. Stockmeyer, "Simulations of the Age-Threshold and Fitness Free Space Collection Algorithms
//! on a Long Trace", §2.1: the snake is one volume of a file server, 36,607 written tracks and
//! about 6.76 million track writes, some of its tracks written once and never again ("frozen"
//! data, §7). What the stack-distance model lacks, measured on it (`docs/validation.md`, "The
//! stand-in"): persistent skew and tracks that die together. This model builds both from files:
//!
//! - the tracks are cut into files of heavy-tailed size: ⌊`size_min` · U^(−1/`size_tail`)⌋
//!   tracks, at most `size_max`;
//! - a share `frozen` of the files is written once, when it is born, and never again; the others
//!   have persistent popularity weights U^(−1/`skew`) (Pareto of exponent `skew`: the smaller,
//!   the hotter the hot set);
//! - the files are born in a random order at the rate that spreads their first writes over the
//!   whole trace (one track of first writes per `writes / tracks` writes), each written whole;
//! - every other write event picks a file: with probability `p_stack` one of the recently written
//!   files, at recency depth d ∝ 1/d in 1 … `depth` (short-range rewriting over a stack of files:
//!   what sets the 320-track hit ratio), else a born file by popularity;
//! - the picked file is written whole with probability `p_whole`, else a run of it: a random
//!   start and a geometric length of mean `run` tracks, cut at the file's end;
//! - after each track write, the same track is written again with probability `p_repeat`
//!   (consecutive repeats: what sets the 1-track hit ratio);
//! - drift: with probability `drift` per event, two files swap their popularity.
//!
//! The model stops at `writes` track writes; tracks are renumbered in first-write order, as the
//! report renamed them. Its parameters are not the report's: they are chosen by
//! `scripts/calibrate_stand_in.py`, which reads only results the report gives without age sorting
//! (`docs/validation.md`).

use rand::{Rng, SeedableRng};

use crate::error::{Error, Result};
use crate::rng::SimRng;

use super::stand_in::Fenwick;

/// Parameters of the file-structured generator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FileModel {
    /// Distinct tracks written, ≥ 1.
    pub tracks: u32,
    /// Track writes, ≥ `tracks`.
    pub writes: u64,
    /// Smallest file [tracks], ≥ 1.
    pub size_min: f64,
    /// Tail exponent of file sizes, > 0.
    pub size_tail: f64,
    /// Largest file [tracks], ≥ 1.
    pub size_max: u32,
    /// Share of files written once, in [0, 1).
    pub frozen: f64,
    /// Pareto exponent of the other files' popularity, > 0.
    pub skew: f64,
    /// Probability that an event rewrites a recently written file, in [0, 1].
    pub p_stack: f64,
    /// Deepest recency rank such a rewrite reaches [files], ≥ 1.
    pub depth: u32,
    /// Probability that a picked file is written whole, in [0, 1].
    pub p_whole: f64,
    /// Mean length of a partial run [tracks], ≥ 1.
    pub run: f64,
    /// Probability that a track write is repeated at once, in [0, 1).
    pub p_repeat: f64,
    /// Probability per event that two files swap popularity, in [0, 1].
    pub drift: f64,
}

impl FileModel {
    /// The snake's size with plain values of the model's own parameters (the calibrated ones are
    /// `python/reclaim/reproduce/data/stand_in_files.json`, chosen by
    /// `scripts/calibrate_stand_in.py`).
    pub fn example() -> Self {
        FileModel {
            tracks: 36_607,
            writes: 6_760_000,
            size_min: 1.0,
            size_tail: 1.2,
            size_max: 2_000,
            frozen: 0.3,
            skew: 1.0,
            p_stack: 0.7,
            depth: 64,
            p_whole: 0.5,
            run: 4.0,
            p_repeat: 0.15,
            drift: 0.0,
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |param: &str, value: String, range: &str| Err(Error::param(param, value, range));
        super::stand_in::check_size(self.tracks, self.writes)?;
        if !(self.size_min.is_finite() && self.size_min >= 1.0) {
            return bad("size_min", self.size_min.to_string(), "a number ≥ 1");
        }
        if self.size_max == 0 {
            return bad("size_max", "0".into(), "a whole number ≥ 1");
        }
        for (name, x) in [("size_tail", self.size_tail), ("skew", self.skew)] {
            if !(x.is_finite() && x > 0.0) {
                return bad(name, x.to_string(), "a finite number > 0");
            }
        }
        for (name, x, top) in [
            ("frozen", self.frozen, false),
            ("p_repeat", self.p_repeat, false),
            ("p_stack", self.p_stack, true),
            ("p_whole", self.p_whole, true),
            ("drift", self.drift, true),
        ] {
            let ok = if top {
                (0.0..=1.0).contains(&x)
            } else {
                (0.0..1.0).contains(&x)
            };
            if !ok {
                return bad(
                    name,
                    x.to_string(),
                    if top {
                        "a probability in [0, 1]"
                    } else {
                        "a probability in [0, 1)"
                    },
                );
            }
        }
        if self.depth == 0 {
            return bad("depth", "0".into(), "a whole number ≥ 1");
        }
        if !(self.run.is_finite() && self.run >= 1.0) {
            return bad("run", self.run.to_string(), "a number ≥ 1");
        }
        Ok(())
    }
}

/// Walker's alias table over weights, for O(1) draws.
struct Alias {
    prob: Vec<f64>,
    alias: Vec<u32>,
}

impl Alias {
    fn new(weights: &[f64]) -> Self {
        let n = weights.len();
        let total: f64 = weights.iter().sum();
        let mut prob: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
        let mut alias = vec![0u32; n];
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| prob[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            alias[s] = l as u32;
            prob[l] -= 1.0 - prob[s];
            if prob[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        for i in large.into_iter().chain(small) {
            prob[i] = 1.0;
        }
        Alias { prob, alias }
    }

    fn draw(&self, rng: &mut SimRng) -> usize {
        let i = rng.random_range(0..self.prob.len());
        if rng.random::<f64>() < self.prob[i] {
            i
        } else {
            self.alias[i] as usize
        }
    }
}

/// The files: consecutive track ranges, which are frozen, and their popularity.
struct Files {
    /// First track of each file, and one past the last track at the end.
    start: Vec<u32>,
    frozen: Vec<bool>,
    table: Alias,
    /// Popularity slot → file; drift swaps files between slots.
    of_slot: Vec<u32>,
    /// Slots of files that are not frozen.
    warm_slots: Vec<u32>,
}

impl Files {
    fn new(model: &FileModel, rng: &mut SimRng) -> Self {
        let mut start = Vec::new();
        let mut track = 0u32;
        while track < model.tracks {
            let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
            let size = (model.size_min * u.powf(-1.0 / model.size_tail)).floor();
            let size = (size.min(f64::from(model.size_max)) as u32).clamp(1, model.tracks - track);
            start.push(track);
            track += size;
        }
        start.push(model.tracks);
        let count = start.len() - 1;
        // At least one file (the first) is not frozen, so that there is always one to rewrite.
        let frozen: Vec<bool> = (0..count)
            .map(|f| f > 0 && rng.random::<f64>() < model.frozen)
            .collect();
        let weights: Vec<f64> = (0..count)
            .map(|f| {
                if frozen[f] {
                    0.0
                } else {
                    rng.random::<f64>()
                        .max(f64::MIN_POSITIVE)
                        .powf(-1.0 / model.skew)
                }
            })
            .collect();
        Files {
            table: Alias::new(&weights),
            of_slot: (0..count as u32).collect(),
            warm_slots: (0..count as u32).filter(|&f| !frozen[f as usize]).collect(),
            start,
            frozen,
        }
    }

    fn count(&self) -> usize {
        self.start.len() - 1
    }

    fn len(&self, f: usize) -> u32 {
        self.start[f + 1] - self.start[f]
    }

    /// A file by popularity among the born ones (an unborn draw is drawn again, a few times).
    fn popular(&self, born: &[bool], rng: &mut SimRng) -> Option<usize> {
        (0..16)
            .map(|_| self.of_slot[self.table.draw(rng)] as usize)
            .find(|&f| born[f])
    }

    /// Drift: two warm files swap their popularity.
    fn drift(&mut self, rng: &mut SimRng) {
        if self.warm_slots.len() > 1 {
            let a = self.warm_slots[rng.random_range(0..self.warm_slots.len())] as usize;
            let b = self.warm_slots[rng.random_range(0..self.warm_slots.len())] as usize;
            self.of_slot.swap(a, b);
        }
    }

    /// The tracks a write of file `f` covers: whole, or a run of geometric length of mean `run`.
    fn span(&self, f: usize, whole: bool, run: f64, rng: &mut SimRng) -> (u32, u32) {
        if whole {
            return (self.start[f], self.start[f + 1]);
        }
        let first = self.start[f] + rng.random_range(0..self.len(f));
        let q = 1.0 / run;
        let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        let k = 1 + (u.ln() / (1.0 - q).max(f64::MIN_POSITIVE).ln()).floor() as u32;
        (first, first.saturating_add(k).min(self.start[f + 1]))
    }
}

/// Which file was written when: an order-statistics tree over event times, for recency ranks.
struct Recency {
    marks: Fenwick,
    /// File written at each event time (valid where marked).
    owner: Vec<u32>,
    /// Each file's last event, `usize::MAX` before its first.
    last: Vec<usize>,
    /// Files in the stack.
    live: u32,
}

impl Recency {
    /// The file of recency rank `d` (1: the most recent).
    fn at(&self, d: u32) -> usize {
        self.owner[self.marks.kth(self.live - d + 1)] as usize
    }

    fn touch(&mut self, f: usize, event: usize) {
        if self.last[f] == usize::MAX {
            self.live += 1;
        } else {
            self.marks.add(self.last[f], -1);
        }
        self.marks.add(event, 1);
        self.owner[event] = f as u32;
        self.last[f] = event;
    }
}

/// The track written at each of `model.writes` writes, renumbered in first-write order.
pub fn generate(model: &FileModel, seed: u64) -> Result<Vec<u32>> {
    model.check()?;
    let mut rng = SimRng::seed_from_u64(seed);
    let mut files = Files::new(model, &mut rng);
    let count = files.count();
    // Birth order: a random permutation.
    let mut order: Vec<u32> = (0..count as u32).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let mut born = vec![false; count];
    let mut written = vec![false; count];
    let (mut next_birth, mut born_tracks) = (0usize, 0u64);
    // Frozen files stay out of the stack: they are written once.
    let events = usize::try_from(model.writes)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let mut stack = Recency {
        marks: Fenwick::new(events),
        owner: vec![0; events],
        last: vec![usize::MAX; count],
        live: 0,
    };
    let total = usize::try_from(model.writes).unwrap_or(usize::MAX);
    let mut out: Vec<u32> = Vec::with_capacity(total);
    let first_rate = f64::from(model.tracks) / model.writes as f64;
    for event in 0..events {
        if out.len() >= total {
            break;
        }
        let done = out.len() as u64;
        // A birth when first writes fall behind their even spread (or must all fit in the rest).
        let behind = (born_tracks as f64) < first_rate * done as f64 + 1.0;
        let must = u64::from(model.tracks) - born_tracks >= model.writes - done;
        let file = if next_birth < count && (behind || must || stack.live == 0) {
            let f = order[next_birth] as usize;
            next_birth += 1;
            born[f] = true;
            born_tracks += u64::from(files.len(f));
            f
        } else if rng.random::<f64>() < model.p_stack {
            let deepest = u64::from(model.depth.min(stack.live));
            stack.at(super::stand_in::power_draw(1, deepest, 1.0, &mut rng) as u32)
        } else {
            files
                .popular(&born, &mut rng)
                .unwrap_or_else(|| stack.at(1))
        };
        if model.drift > 0.0 && rng.random::<f64>() < model.drift {
            files.drift(&mut rng);
        }
        // A first write covers the whole file.
        let whole = !written[file] || rng.random::<f64>() < model.p_whole;
        let (lo, hi) = files.span(file, whole, model.run, &mut rng);
        for track in lo..hi {
            out.push(track);
            while out.len() < total && rng.random::<f64>() < model.p_repeat {
                out.push(track);
            }
            if out.len() >= total {
                break;
            }
        }
        written[file] = true;
        if !files.frozen[file] {
            stack.touch(file, event);
        }
    }
    // Tracks in first-write order.
    let mut rename = vec![u32::MAX; model.tracks as usize];
    let mut next = 0u32;
    for p in &mut out {
        let r = &mut rename[*p as usize];
        if *r == u32::MAX {
            *r = next;
            next += 1;
        }
        *p = *r;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every track is written, the trace has its length, and the ids are in first-write order.
    #[test]
    fn every_track_written_in_first_write_order() {
        let m = FileModel {
            tracks: 2_000,
            writes: 60_000,
            ..FileModel::example()
        };
        let pages = generate(&m, 3).unwrap();
        assert_eq!(pages.len(), 60_000);
        let mut seen = 0u32;
        for &p in &pages {
            assert!(p <= seen, "{p} before {seen}");
            if p == seen {
                seen += 1;
            }
        }
        assert_eq!(seen, 2_000);
    }

    /// Frozen files are written once: with files of one track and every file frozen but the
    /// first (which the model keeps warm), 499 of 500 tracks are written exactly once and the
    /// other takes the remaining 4,501 writes.
    #[test]
    fn frozen_files_are_written_once() {
        let m = FileModel {
            tracks: 500,
            writes: 5_000,
            size_max: 1,
            frozen: 0.999_999,
            p_repeat: 0.0,
            ..FileModel::example()
        };
        let pages = generate(&m, 1).unwrap();
        let mut count = vec![0u32; 500];
        for &p in &pages {
            count[p as usize] += 1;
        }
        assert_eq!(count.iter().filter(|&&c| c == 1).count(), 499);
        assert_eq!(count.iter().copied().max(), Some(4_501));
    }

    /// Alias draws follow the weights (1 : 3 within 2% over 200,000 draws).
    #[test]
    fn alias_draws_follow_weights() {
        let t = Alias::new(&[1.0, 3.0]);
        let mut rng = SimRng::seed_from_u64(7);
        let ones = (0..200_000).filter(|_| t.draw(&mut rng) == 1).count();
        assert!((ones as f64 / 200_000.0 - 0.75).abs() < 0.02, "{ones}");
    }

    #[test]
    fn bad_parameters_are_named() {
        let m = FileModel {
            skew: 0.0,
            ..FileModel::example()
        };
        let e = generate(&m, 1).unwrap_err().to_string();
        assert!(e.contains("skew") && e.contains('0'), "{e}");
    }
}
