//! Segments bucketed by a real key, 1/64 of an octave per bucket: O(1) insert, remove and move,
//! and the buckets visited from the highest key down, each non-empty one found through a
//! two-level bitmap. The index behind cost-hotness, whose scores grow with time at bounded
//! rates: a selection visits the buckets of the highest keys and stops where no key below can
//! catch up with the best score found (see `policy::cost_hotness`).

use crate::store::NONE;

/// Key bits below a bucket's: 12 of sign and exponent and 6 of mantissa stay (1/64 octave).
const SHIFT: u32 = 46;
/// Buckets: every value of the top 16 bits of the key's order-preserving image.
const BUCKETS: usize = 1 << (64 - SHIFT);

/// `x`'s image under an order-preserving map of the finite doubles into `u64` (negative values
/// below positive ones, each side in its own order).
#[inline]
fn monotone(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The inverse of [`monotone`].
#[inline]
fn from_monotone(m: u64) -> f64 {
    f64::from_bits(if m >> 63 == 1 { m & !(1 << 63) } else { !m })
}

/// The bucket of key `x`.
#[inline]
pub fn bucket_of(x: f64) -> u32 {
    (monotone(x) >> SHIFT) as u32
}

/// Every key of bucket `b` is below this (+∞ for the last bucket).
#[inline]
pub fn upper_edge(b: u32) -> f64 {
    if b as usize + 1 >= BUCKETS {
        f64::INFINITY
    } else {
        from_monotone(u64::from(b + 1) << SHIFT)
    }
}

/// A segment's entry: its neighbours in its bucket's list, its bucket ([`NONE`] when not
/// indexed) and what its policy keeps of it, together so that a visit reads one entry.
#[derive(Clone, Copy, Debug)]
struct Entry<T> {
    next: u32,
    prev: u32,
    bucket: u32,
    data: T,
}

/// Segments in buckets of keys, each bucket a list linked through the segments' entries, each
/// entry carrying a `T` of its policy's.
#[derive(Clone, Debug)]
pub struct KeyBuckets<T> {
    head: Vec<u32>,
    entries: Vec<Entry<T>>,
    /// One bit per non-empty bucket, and one per non-zero word of those.
    words: Vec<u64>,
    summary: Vec<u64>,
}

impl<T: Copy + Default> KeyBuckets<T> {
    /// An empty index for `segments` segments.
    pub fn new(segments: u32) -> Self {
        KeyBuckets {
            head: vec![NONE; BUCKETS],
            entries: vec![
                Entry {
                    next: NONE,
                    prev: NONE,
                    bucket: NONE,
                    data: T::default(),
                };
                segments as usize
            ],
            words: vec![0; BUCKETS / 64],
            summary: vec![0; BUCKETS / 64 / 64],
        }
    }

    /// What the policy keeps of `seg`.
    #[inline]
    pub fn data(&self, seg: u32) -> &T {
        &self.entries[seg as usize].data
    }

    /// What the policy keeps of `seg`, to change.
    #[inline]
    pub fn data_mut(&mut self, seg: u32) -> &mut T {
        &mut self.entries[seg as usize].data
    }

    /// Whether `seg` is indexed.
    #[inline]
    pub fn contains(&self, seg: u32) -> bool {
        self.entries[seg as usize].bucket != NONE
    }

    /// Brings in `seg`'s entry, which a re-keying reads.
    #[inline]
    pub fn prefetch(&self, seg: u32) {
        crate::store::prefetch(&self.entries[seg as usize]);
    }

    /// Indexes `seg` (not indexed) under `key`.
    #[inline]
    pub fn insert(&mut self, seg: u32, key: f64) {
        let b = bucket_of(key);
        let h = self.head[b as usize];
        let e = &mut self.entries[seg as usize];
        (e.next, e.prev, e.bucket) = (h, NONE, b);
        if h == NONE {
            let w = b as usize / 64;
            self.words[w] |= 1 << (b % 64);
            self.summary[w / 64] |= 1 << (w % 64);
        } else {
            self.entries[h as usize].prev = seg;
        }
        self.head[b as usize] = seg;
    }

    /// Drops `seg` from the index, if there.
    #[inline]
    pub fn remove(&mut self, seg: u32) {
        let entry = &mut self.entries[seg as usize];
        let b = std::mem::replace(&mut entry.bucket, NONE);
        if b == NONE {
            return;
        }
        let (before, after) = (entry.prev, entry.next);
        if before == NONE {
            self.head[b as usize] = after;
            if after == NONE {
                let w = b as usize / 64;
                self.words[w] &= !(1 << (b % 64));
                if self.words[w] == 0 {
                    self.summary[w / 64] &= !(1 << (w % 64));
                }
            }
        } else {
            self.entries[before as usize].next = after;
        }
        if after != NONE {
            self.entries[after as usize].prev = before;
        }
    }

    /// Moves indexed `seg` to the bucket of `key`, if that is another.
    #[inline]
    pub fn rekey(&mut self, seg: u32, key: f64) {
        if self.entries[seg as usize].bucket != bucket_of(key) {
            self.remove(seg);
            self.insert(seg, key);
        }
    }

    /// Every indexed segment moved to the bucket of its new key, `key` of its number and data:
    /// the index emptied and filled again in segment order (no list is walked to unlink a
    /// segment).
    pub fn rebuild(&mut self, mut key: impl FnMut(u32, &T) -> f64) {
        for (w, word) in self.words.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                self.head[w * 64 + bits.trailing_zeros() as usize] = NONE;
                bits &= bits - 1;
            }
        }
        self.summary.fill(0);
        for seg in 0..self.entries.len() as u32 {
            if self.entries[seg as usize].bucket != NONE {
                let k = key(seg, &self.entries[seg as usize].data);
                self.insert(seg, k);
            }
        }
    }

    /// The highest non-empty bucket at or below `b`.
    pub fn highest_at_or_below(&self, b: u32) -> Option<u32> {
        let w = b as usize / 64;
        let below = self.words[w] & (u64::MAX >> (63 - b % 64));
        if below != 0 {
            return Some((w * 64) as u32 + 63 - below.leading_zeros());
        }
        // A lower word with a bit: first in w's summary word, then in the summary words below.
        let mut s = w / 64;
        let mut mask = if w.is_multiple_of(64) {
            0
        } else {
            self.summary[s] & (u64::MAX >> (64 - w % 64))
        };
        loop {
            if mask != 0 {
                let word = s * 64 + 63 - mask.leading_zeros() as usize;
                return Some((word * 64) as u32 + 63 - self.words[word].leading_zeros());
            }
            if s == 0 {
                return None;
            }
            s -= 1;
            mask = self.summary[s];
        }
    }

    /// The highest non-empty bucket.
    #[inline]
    pub fn highest(&self) -> Option<u32> {
        self.highest_at_or_below((BUCKETS - 1) as u32)
    }

    /// The first segment of bucket `b` ([`NONE`] for none).
    #[inline]
    pub fn first(&self, b: u32) -> u32 {
        self.head[b as usize]
    }

    /// The segment after `seg` in its bucket ([`NONE`] for none).
    #[inline]
    pub fn after(&self, seg: u32) -> u32 {
        self.entries[seg as usize].next
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::rng::SimRng;

    /// The buckets keep the keys' order: a key is below its bucket's upper edge and at or above
    /// the one before's; a positive bucket spans 1/64 of an octave ([1, 1.015625)), a negative
    /// one likewise toward zero (−1 is the lowest of its bucket, (−1.015625, −1]).
    #[test]
    fn buckets_follow_the_order_of_keys() {
        let mut rng = SimRng::seed_from_u64(5);
        for _ in 0..100_000 {
            let scale = 10f64.powi(rng.random_range(-12..15));
            let (x, y) = (
                rng.random_range(-1.0..1.0) * scale,
                rng.random_range(-1.0..1.0) * scale,
            );
            if x < y {
                assert!(bucket_of(x) <= bucket_of(y), "{x} {y}");
            }
            let b = bucket_of(x);
            assert!(x < upper_edge(b), "{x}");
            assert!(b == 0 || x >= upper_edge(b - 1), "{x}");
        }
        let edge = |x: f64| upper_edge(bucket_of(x)).to_bits();
        assert_eq!(edge(1.0), 1.015_625f64.to_bits());
        assert_eq!(edge(-1.0), (-(1.0 - f64::EPSILON / 2.0)).to_bits());
        assert_eq!(bucket_of(-1.0), bucket_of(-1.0156));
        assert_eq!(edge(f64::MAX), f64::INFINITY.to_bits());
    }

    /// The segments by bucket, visited from the highest bucket down.
    fn visit(k: &KeyBuckets<f64>) -> Vec<(u32, u32)> {
        let mut got = Vec::new();
        let mut b = k.highest();
        while let Some(bk) = b {
            let mut seg = k.first(bk);
            assert_ne!(seg, NONE, "bucket {bk} marked but empty");
            while seg != NONE {
                got.push((bk, seg));
                seg = k.after(seg);
            }
            b = bk.checked_sub(1).and_then(|x| k.highest_at_or_below(x));
        }
        got.sort_unstable_by(|a, b| b.cmp(a));
        got
    }

    /// Against a sorted list: random inserts, moves and removals, then the buckets visited from
    /// the top give the segments in decreasing key order, bucket by bucket; likewise after a
    /// rebuild with every key changed.
    #[test]
    fn visits_the_buckets_from_the_highest_down() {
        let mut rng = SimRng::seed_from_u64(6);
        let n = 500;
        let mut k = KeyBuckets::<f64>::new(n);
        let mut key = vec![None; n as usize];
        for _ in 0..20_000 {
            let seg = rng.random_range(0..n);
            let x = rng.random_range(-1e6..1e6) * 10f64.powi(rng.random_range(-3..3));
            match (rng.random_range(0..3), key[seg as usize]) {
                (0, Some(_)) => {
                    k.remove(seg);
                    key[seg as usize] = None;
                }
                (_, Some(_)) => {
                    k.rekey(seg, x);
                    key[seg as usize] = Some(x);
                }
                (_, None) => {
                    k.insert(seg, x);
                    key[seg as usize] = Some(x);
                }
            }
            *k.data_mut(seg) = x;
        }
        let want = |key: &[Option<f64>]| {
            let mut w: Vec<(u32, u32)> = (0..n)
                .filter_map(|s| key[s as usize].map(|x| (bucket_of(x), s)))
                .collect();
            w.sort_unstable_by(|a, b| b.cmp(a));
            w
        };
        assert_eq!(visit(&k), want(&key));
        k.rebuild(|_, &x| 3.0 - x * x);
        let moved: Vec<Option<f64>> = key.iter().map(|x| x.map(|x| 3.0 - x * x)).collect();
        assert_eq!(visit(&k), want(&moved));
    }
}
