//! A stand-in for the "snake" trace of Stockmeyer's report, which is not public: an LRU
//! stack-distance generator calibrated to what the report says of the trace.
//!
//! L. Stockmeyer, "Simulations of the Age-Threshold and Fitness Free Space Collection Algorithms
//! on a Long Trace", §2.1 and §2.3 (`CacheTrkCount`): 36,607 written tracks, about 6.76 million
//! track writes, the first million used as warm-up; over the rest (the working trace) an LRU cache
//! of 1 track has a hit ratio of 0.223 and one of 320 tracks 0.950. An LRU cache of C tracks hits
//! exactly the writes whose stack distance (1 + the number of distinct tracks written since the
//! track's last write) is at most C, so the two ratios are two points of the stack-distance
//! distribution, and the generator draws each write's distance from a distribution through them:
//!
//! - distance 1 with probability `p_repeat` (0.223);
//! - distance 2 … `near` (320) with probability `p_near` − `p_repeat` (0.727), ∝ d^−`alpha`;
//! - a track never written before with probability `tracks` / `writes` (one first write per
//!   track, spread evenly over the run), taken out of the remaining mass 1 − `p_near`;
//! - otherwise a distance from `near` + 1 to the depth of the stack, ∝ d^−`beta`.
//!
//! The two exponents are the generator's own choice: the report gives no more of the
//! distribution. Both default to 1 (a log-uniform distance within each range). A distance deeper
//! than the stack (early on, before the tracks are all written) is taken at the bottom of the
//! stack, which moves the calibrated ratios only during the warm-up. Tracks are numbered in
//! first-write order, as the report renamed them. The stack is an order-statistics tree (a
//! Fenwick tree over write times marking each track's last write): O(log writes) per write.

use rand::{Rng, SeedableRng};

use crate::error::{Error, Result};
use crate::rng::SimRng;

/// Parameters of the stack-distance generator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackModel {
    /// Distinct tracks written, ≥ 1.
    pub tracks: u32,
    /// Track writes, ≥ `tracks`.
    pub writes: u64,
    /// Probability of distance 1 (the hit ratio of a 1-track LRU cache).
    pub p_repeat: f64,
    /// Probability of distance ≤ `near` (the hit ratio of a `near`-track LRU cache).
    pub p_near: f64,
    /// The second calibration point [tracks], ≥ 2.
    pub near: u32,
    /// Exponent of the distances 2 … `near`.
    pub alpha: f64,
    /// Exponent of the distances beyond `near`.
    pub beta: f64,
}

impl StackModel {
    /// The snake trace as Stockmeyer's report describes it (§2.1, §2.3).
    pub fn snake() -> Self {
        StackModel {
            tracks: 36_607,
            writes: 6_760_000,
            p_repeat: 0.223,
            p_near: 0.950,
            near: 320,
            alpha: 1.0,
            beta: 1.0,
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |param: &str, value: String, range: &str| Err(Error::param(param, value, range));
        check_size(self.tracks, self.writes)?;
        if !(0.0..1.0).contains(&self.p_repeat) {
            return bad(
                "p_repeat",
                self.p_repeat.to_string(),
                "a probability in [0, 1)",
            );
        }
        let first = f64::from(self.tracks) / self.writes as f64;
        if !(self.p_near >= self.p_repeat && self.p_near + first <= 1.0) {
            return bad(
                "p_near",
                self.p_near.to_string(),
                "a probability in [p_repeat, 1 − tracks/writes] (first writes need their share)",
            );
        }
        if self.near < 2 {
            return bad("near", self.near.to_string(), "a whole number ≥ 2");
        }
        for (name, x) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(x.is_finite() && x >= 0.0) {
                return bad(name, x.to_string(), "a finite number ≥ 0");
            }
        }
        Ok(())
    }
}

/// A stand-in's size: `tracks` in [1, 2³² − 2), `writes` in [tracks, 2³²].
pub(super) fn check_size(tracks: u32, writes: u64) -> Result<()> {
    if tracks == 0 || tracks >= u32::MAX - 1 {
        return Err(Error::param(
            "tracks",
            tracks.to_string(),
            "a whole number in [1, 2³² − 2)",
        ));
    }
    if writes < u64::from(tracks) || writes > 1 << 32 {
        return Err(Error::param(
            "writes",
            writes.to_string(),
            format!("a whole number in [tracks = {tracks}, 2³²]"),
        ));
    }
    // Checked before anything is allocated: a model's recency structures and the ids (up to 20
    // bytes per write, the file-structured model's), their copy into the trace written (12
    // more), and a few arrays per track (32 bytes).
    let need = 32 * writes + 32 * u64::from(tracks);
    if let Some((have, what)) = crate::limits::available_bytes() {
        if need > have {
            let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
            return Err(Error::param(
                "writes",
                writes.to_string(),
                format!(
                    "a stand-in that fits in memory: it needs about {:.2} GiB and this machine has {:.2} GiB ({what})",
                    gib(need),
                    gib(have)
                ),
            ));
        }
    }
    Ok(())
}

/// A distance in `lo ..= hi` drawn ∝ d^−`exp` (continuous inverse transform, floored).
pub(super) fn power_draw(lo: u64, hi: u64, exp: f64, rng: &mut SimRng) -> u64 {
    let u: f64 = rng.random();
    let (a, b) = (lo as f64, (hi + 1) as f64);
    let x = if (exp - 1.0).abs() < 1e-12 {
        a * (b / a).powf(u)
    } else {
        let e = 1.0 - exp;
        (a.powf(e) + u * (b.powf(e) - a.powf(e))).powf(1.0 / e)
    };
    (x as u64).clamp(lo, hi)
}

/// Marks over write times; finds the k-th mark.
pub(super) struct Fenwick {
    tree: Vec<u32>,
    top: usize,
}

impl Fenwick {
    pub(super) fn new(n: usize) -> Self {
        Fenwick {
            tree: vec![0; n + 1],
            top: (n + 1).next_power_of_two() / 2,
        }
    }

    pub(super) fn add(&mut self, i: usize, delta: i32) {
        let mut i = i + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// The position of the k-th mark (1-based k).
    pub(super) fn kth(&self, mut k: u32) -> usize {
        let mut pos = 0usize;
        let mut step = self.top.max(1);
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && self.tree[next] < k {
                pos = next;
                k -= self.tree[next];
            }
            step /= 2;
        }
        pos
    }
}

/// The track written at each of `model.writes` writes.
pub fn generate(model: &StackModel, seed: u64) -> Result<Vec<u32>> {
    model.check()?;
    let mut rng = SimRng::seed_from_u64(seed);
    let n = model.writes as usize;
    let mut marks = Fenwick::new(n);
    // Track whose last write is at each time (valid where marked).
    let mut owner = vec![0u32; n];
    let mut out = Vec::with_capacity(n);
    let mut written = 0u32;
    let first = f64::from(model.tracks) / model.writes as f64;
    for t in 0..n {
        let u: f64 = rng.random();
        let depth = u64::from(written);
        let track = if written == 0
            || (u >= model.p_near && u < model.p_near + first && written < model.tracks)
            || (written < model.tracks
                && (model.writes - t as u64) <= u64::from(model.tracks - written))
        {
            // A first write: drawn at rate tracks/writes, and forced when the writes left are
            // just enough for the tracks not yet written.
            written += 1;
            written - 1
        } else {
            let d = if u < model.p_repeat {
                1
            } else if u < model.p_near {
                power_draw(2, u64::from(model.near), model.alpha, &mut rng)
            } else if depth > u64::from(model.near) {
                power_draw(u64::from(model.near) + 1, depth, model.beta, &mut rng)
            } else {
                depth
            };
            let d = d.min(depth) as u32;
            let slot = marks.kth(written - d + 1);
            let track = owner[slot];
            marks.add(slot, -1);
            track
        };
        marks.add(t, 1);
        owner[t] = track;
        out.push(track);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{Access, Cache};
    use crate::workload::Write;

    fn hit_ratio(pages: &[u32], capacity: usize) -> f64 {
        let mut cache = Cache::new(capacity);
        let mut hits = 0u64;
        for &page in pages {
            if let Access::Hit = cache.access(Write::new(page, 0)) {
                hits += 1;
            }
        }
        hits as f64 / pages.len() as f64
    }

    /// The stand-in meets the report's figures (§2.1, §2.3): 36,607 tracks, 6.76M writes, and
    /// over the working trace (after the first million) LRU hit ratios of 0.223 with 1 track and
    /// 0.950 with 320, within 0.005, measured with the engine's own write cache.
    #[test]
    fn snake_stand_in_meets_the_reported_hit_ratios() {
        let m = StackModel::snake();
        let pages = generate(&m, 1).unwrap();
        assert_eq!(pages.len(), 6_760_000);
        let distinct = pages.iter().copied().max().unwrap() + 1;
        assert_eq!(distinct, 36_607);
        let working = &pages[1_000_000..];
        let h1 = hit_ratio(working, 1);
        let h320 = hit_ratio(working, 320);
        assert!((h1 - 0.223).abs() < 0.005, "1 track: {h1}");
        assert!((h320 - 0.950).abs() < 0.005, "320 tracks: {h320}");
    }

    /// The order-statistics tree finds the k-th marked time (hand-worked).
    #[test]
    fn kth_mark() {
        let mut f = Fenwick::new(10);
        for i in [1, 4, 5, 9] {
            f.add(i, 1);
        }
        assert_eq!([f.kth(1), f.kth(2), f.kth(3), f.kth(4)], [1, 4, 5, 9]);
        f.add(4, -1);
        assert_eq!(f.kth(2), 5);
    }

    #[test]
    fn bad_parameters_are_named() {
        let m = StackModel {
            p_near: 0.999,
            ..StackModel::snake()
        };
        let e = generate(&m, 1).unwrap_err().to_string();
        assert!(e.contains("p_near") && e.contains("0.999"), "{e}");
    }
}
