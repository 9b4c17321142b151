//! The sort buffer of MDC: user writes gather in a buffer of K segments' worth of pages, each
//! with its u_p2, and when it is full they are sorted by u_p2 and written out segment by segment,
//! so that pages of like update frequency share segments. Relocated pages go to one GC stream
//! (the cleaner sorts a batch by its victims' u_p2, `gc=batch:…,sort=up2`).
//!
//! D. Lomet, C. Luo, "Efficiently Reclaiming Space in a Log Structured Store", §5.2.2 (u_p2 of
//! user writes), §5.3 (sorting user and GC writes), §6.2.1 (Figure 4: buffers of 1 … 64
//! segments; MDC-no-sep-user writes the buffer unsorted).
//!
//! Choices the paper leaves open, each documented in `docs/design.md`:
//! - a first write gets "the oldest value of u_p2 in the batch": the smallest u_p2 among the
//!   buffer's pages that have a history when it is written out; 0, the start of time, when none
//!   has (the sequential fill);
//! - a page rewritten while still in the buffer: by default its earlier copy stays in the buffer,
//!   dead, and takes an invalid slot (`rewrite=hole`: every user write costs a page frame, as
//!   eq. 1–2 count); `rewrite=absorb` drops it from the buffer. Its new u_p2 is computed from the
//!   buffered copy's, as from a segment's;
//! - a segment's u_p2 is the mean of its live pages' (§5.2.2 says so for relocation; user
//!   segments are filled the same way);
//! - the sort is stable (equal keys keep their arrival order) and ascending: oldest u_p2 first.

use super::{Build, Built, Declare};
use super::{Scheme, Victim, Relocation};
use crate::error::{Error, Result};
use crate::policy::mdc::key;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::store::NONE;
use crate::workload::{Rate, Write};
use crate::rng::SimRng;
use std::fmt;

/// Stream of user writes (written from the buffer).
pub const USER: usize = 0;
/// Stream of relocated pages.
pub const GC: usize = 1;

/// A key not yet known: a first write, given the batch's oldest u_p2 when the buffer is written.
pub const FIRST: f64 = f64::NAN;

/// The scheme: user writes to [`USER`], relocated pages to [`GC`].
#[derive(Clone, Copy, Debug)]
pub struct SortBuffered;

impl Scheme for SortBuffered {
    #[inline]
    fn user_stream(&mut self, _write: &Write, _age: u64, _rng: &mut SimRng) -> usize {
        USER
    }
    #[inline]
    fn gc_stream(&mut self, _r: Relocation<'_>) -> usize {
        GC
    }
    #[inline]
    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        Some(GC)
    }
}

/// The buffer: pages in arrival order with their keys (u_p2, or [`FIRST`]); a dead entry's page
/// is `NONE` (`rewrite=hole`).
#[derive(Clone, Debug)]
pub struct SortBuffer {
    /// Pages the buffer holds when full: K × pages per segment.
    pub capacity: usize,
    /// Whether it is sorted before it is written.
    pub sort: bool,
    /// What a rewrite of a buffered page does.
    pub rewrite: Rewrite,
    /// Buffered pages (`NONE` for a dead copy).
    pub pages: Vec<u32>,
    /// Their keys.
    pub keys: Vec<f64>,
    /// With page sizes, each entry's size [slots] (a dead entry keeps its page's); else empty.
    sizes: Vec<u16>,
    /// With page sizes, the slots the entries take.
    held: usize,
    /// Scratch: (key, page, size) in the order written.
    order: Vec<(f64, u32, u16)>,
    /// Scratch for the sort: (ordered key bits, position), its radix sort's second buffer, and
    /// the order being built.
    ranked: Vec<(u64, u32)>,
    ranked_tmp: Vec<(u64, u32)>,
    scratch: Vec<(f64, u32, u16)>,
}

/// Sorts `v` by key, stably (so, its positions being distinct and increasing, as
/// `sort_unstable` orders the pairs): least significant byte first, eight passes of a counting
/// sort, each skipped when every key has the same byte there (u_p2 keys of one batch share
/// their high bytes). A comparison sort of a buffer's random keys mispredicts about half its
/// branches; this has none that depend on the keys. Short inputs take `sort_unstable`.
pub(crate) fn radix_sort(v: &mut Vec<(u64, u32)>, tmp: &mut Vec<(u64, u32)>) {
    let n = v.len();
    if n < 256 {
        v.sort_unstable();
        return;
    }
    let mut counts = [[0u32; 256]; 8];
    for &(k, _) in v.iter() {
        for (d, c) in counts.iter_mut().enumerate() {
            c[((k >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    tmp.clear();
    tmp.resize(n, (0, 0));
    for (d, c) in counts.iter().enumerate() {
        if c.iter().any(|&m| m as usize == n) {
            continue;
        }
        let mut at = [0u32; 256];
        let mut sum = 0;
        for (a, &m) in at.iter_mut().zip(c) {
            *a = sum;
            sum += m;
        }
        for &e in v.iter() {
            let b = ((e.0 >> (8 * d)) & 0xff) as usize;
            tmp[at[b] as usize] = e;
            at[b] += 1;
        }
        std::mem::swap(v, tmp);
    }
}

impl SortBuffer {
    /// An empty buffer of `spec.segments` segments of `pps` pages.
    pub fn new(spec: &SortBufferSpec, pps: u32) -> Self {
        let capacity = spec.segments as usize * pps as usize;
        SortBuffer {
            capacity,
            sort: spec.sort,
            rewrite: spec.rewrite,
            pages: Vec::with_capacity(capacity),
            keys: Vec::with_capacity(capacity),
            sizes: Vec::new(),
            held: 0,
            order: Vec::with_capacity(capacity),
            ranked: Vec::with_capacity(capacity),
            ranked_tmp: Vec::with_capacity(capacity),
            scratch: Vec::with_capacity(capacity),
        }
    }

    /// With page sizes: the entry just pushed takes `size` slots.
    pub fn push_size(&mut self, size: u16) {
        self.sizes.push(size);
        self.held += usize::from(size);
    }

    /// Takes entry `i` out: dead in place (`hole`), or removed with the last entry moved into
    /// its place (`absorb`); returns the page moved, whose buffer position is now `i`.
    pub fn drop_entry(&mut self, i: usize) -> Option<u32> {
        match self.rewrite {
            Rewrite::Hole => {
                self.pages[i] = NONE;
                None
            }
            Rewrite::Absorb => {
                self.pages.swap_remove(i);
                self.keys.swap_remove(i);
                if !self.sizes.is_empty() {
                    self.held -= usize::from(self.sizes.swap_remove(i));
                }
                self.pages.get(i).copied()
            }
        }
    }

    /// Whether a batch is ready: K segments' worth of pages, or with page sizes of slots.
    #[inline]
    pub fn is_full(&self) -> bool {
        if self.sizes.is_empty() {
            self.pages.len() == self.capacity
        } else {
            self.held >= self.capacity
        }
    }

    /// Empties the buffer into the order its pages are written, as (key, page, size [slots]):
    /// first writes take the oldest key of the batch, then the batch is sorted by key (stable)
    /// if the buffer sorts. Dead entries stay in place (as `NONE`) and take their slots.
    pub fn drain(&mut self) -> &[(f64, u32, u16)] {
        let oldest = self.oldest();
        self.order.clear();
        let key_of = |k: f64| if k.is_nan() { oldest } else { k };
        if self.sizes.is_empty() {
            self.order.extend(
                self.keys
                    .iter()
                    .zip(&self.pages)
                    .map(|(&k, &p)| (key_of(k), p, 1)),
            );
        } else {
            self.order.extend(
                self.keys
                    .iter()
                    .zip(&self.pages)
                    .zip(&self.sizes)
                    .map(|((&k, &p), &z)| (key_of(k), p, z)),
            );
        }
        if self.sort {
            // A stable sort by key: by (key as ordered bits, position), unstable on integers.
            self.ranked.clear();
            self.ranked.extend(
                self.order
                    .iter()
                    .enumerate()
                    .map(|(i, &(k, _, _))| (key(k), i as u32)),
            );
            radix_sort(&mut self.ranked, &mut self.ranked_tmp);
            self.scratch.clear();
            let order = &self.order;
            self.scratch
                .extend(self.ranked.iter().map(|&(_, i)| order[i as usize]));
            std::mem::swap(&mut self.order, &mut self.scratch);
        }
        self.pages.clear();
        self.keys.clear();
        self.sizes.clear();
        self.held = 0;
        &self.order
    }

    /// The oldest key of a live entry other than a first write, 0 when there is none.
    fn oldest(&self) -> f64 {
        let oldest = self
            .pages
            .iter()
            .zip(&self.keys)
            .filter(|(&p, k)| p != NONE && !k.is_nan())
            .map(|(_, &k)| k)
            .fold(f64::INFINITY, f64::min);
        if oldest.is_finite() {
            oldest
        } else {
            0.0
        }
    }
}

/// What a rewrite of a page still in the sort buffer does (`sort-buffer:rewrite=…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rewrite {
    /// `hole`: the earlier copy stays in the buffer, dead, and takes an invalid slot when the
    /// buffer is written out: every user write costs a page frame, as Lomet & Luo's eq. 1–2
    /// count it.
    #[default]
    Hole,
    /// `absorb`: the earlier copy leaves the buffer (an in-memory buffer absorbing rewrites).
    Absorb,
}

/// Parameters of the `sort-buffer` placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortBufferSpec {
    /// Buffer size [segments], ≥ 1 (Lomet & Luo §6.2.1, Figure 4: 1 … 64; 16 is near-optimal).
    pub segments: u32,
    /// Whether the buffer is sorted by u_p2 before it is written (`false`: arrival order,
    /// MDC-no-sep-user of §6.2.1).
    pub sort: bool,
    /// What a rewrite of a buffered page does.
    pub rewrite: Rewrite,
}

impl SortBufferSpec {
    fn parse(spec: &Args<'_>) -> Result<Self> {
        let segments: u32 = spec.num("segments", Some(16), "a whole number ≥ 1")?;
        if segments == 0 {
            return Err(Error::param(
                "placement.segments",
                segments,
                "a whole number ≥ 1",
            ));
        }
        let sort = match spec.get("sort") {
            None | Some("up2") => true,
            Some("none") => false,
            Some(v) => {
                return Err(Error::param(
                    "placement.sort",
                    format!("`{v}`"),
                    "`up2` or `none`",
                ))
            }
        };
        let rewrite = match spec.get("rewrite") {
            None | Some("hole") => Rewrite::Hole,
            Some("absorb") => Rewrite::Absorb,
            Some(v) => {
                return Err(Error::param(
                    "placement.rewrite",
                    format!("`{v}`"),
                    "`hole` or `absorb`",
                ))
            }
        };
        Ok(SortBufferSpec {
            segments,
            sort,
            rewrite,
        })
    }
}

impl SortBufferSpec {
    fn write(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sort-buffer:segments={},sort={},rewrite={}",
            self.segments,
            if self.sort { "up2" } else { "none" },
            match self.rewrite {
                Rewrite::Hole => "hole",
                Rewrite::Absorb => "absorb",
            }
        )
    }
}

const PARAMS: [Param; 3] = [
    Param {
        key: "segments",
        values: "K",
        unit: "segments",
        range: "a whole number ≥ 1",
        default: Some("16"),
        help: "Buffer size (Lomet & Luo §6.2.1, Figure 4: 1 … 64; 16 is near-optimal).",
    },
    Param {
        key: "sort",
        values: "up2|none",
        unit: "",
        range: "`up2` or `none`",
        default: Some("up2"),
        help: "Sort the buffer by u_p2 before it is written, or keep arrival order (MDC-no-sep-user, §6.2.1).",
    },
    Param {
        key: "rewrite",
        values: "hole|absorb",
        unit: "",
        range: "`hole` or `absorb`",
        default: Some("hole"),
        help: "A rewrite of a buffered page leaves a dead copy that takes a slot (eq. 1–2), or removes it.",
    },
];

impl Declare for SortBuffered {
    type Params = SortBufferSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "sort-buffer",
        aliases: &[],
        summary: "User writes gather in a buffer, written out sorted by u_p2 when full; relocated pages go to a GC stream.",
        source: "Lomet & Luo §5.3",
        params: &PARAMS,
        needs: &[Need::Up2],
    };
    const SIZES: bool = true;
    fn parse(args: &Args<'_>) -> Result<SortBufferSpec> {
        SortBufferSpec::parse(args)
    }
    fn show(b: &SortBufferSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        b.write(f)
    }
    fn streams(_b: &SortBufferSpec, _classes: u32) -> u32 {
        2
    }
    fn build(spec: &SortBufferSpec, b: &Build<'_>) -> Result<Built<Self>> {
        let mut built = Built::whole(SortBuffered, vec![true, false], 1, b);
        built.buffer = Some(SortBuffer::new(spec, b.pps));
        Ok(built)
    }
}

/// MDC-opt's key of a page of update rate `rate` (probability per write): −2/rate, in place of
/// u_p2 with u_now taken as 0 (see `policy::mdc`), by which MDC-opt sorts and averages where u_p2 would be used.
#[inline]
pub fn exact_key(rate: Rate) -> f64 {
    EXACT_KEYS[usize::from(rate.code())]
}

/// [`exact_key`] of every code, computed once: a table read in place of an exp2 for each
/// relocated page and each buffered write (512 KiB, of which a workload reads the entries of
/// its few rates).
static EXACT_KEYS: std::sync::LazyLock<Box<[f64]>> = std::sync::LazyLock::new(|| {
    (0..=u16::MAX)
        .map(|c| -2.0 / Rate::from_code(c).probability())
        .collect()
});

/// A rank that orders pages as [`exact_key`] does, ties included, without its exp2: the key
/// −2 · 2^(code/1024) falls strictly as the rate's stored logarithm [`Rate::code`] grows (and
/// the unknown rate, the largest code, has key −∞), so ascending key is descending code.
#[inline]
pub fn exact_rank(rate: Rate) -> u64 {
    u64::from(u16::MAX - rate.code())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `exact_rank` orders every pair of rates as `exact_key` does: the key is strictly
    /// monotone over all 65,536 codes (checked between neighbours, so for every pair).
    #[test]
    fn exact_rank_orders_as_exact_key() {
        let rates: Vec<Rate> = (0..=u16::MAX)
            .map(|c| {
                if c == u16::MAX {
                    Rate::UNKNOWN
                } else {
                    Rate::from_probability((-f64::from(c) / 1024.0).exp2())
                }
            })
            .collect();
        for (c, r) in rates.iter().enumerate() {
            assert_eq!(usize::from(r.code()), c);
        }
        for w in rates.windows(2) {
            assert_eq!(
                exact_key(w[0]).total_cmp(&exact_key(w[1])),
                exact_rank(w[0]).cmp(&exact_rank(w[1]))
            );
            assert_eq!(
                exact_rank(w[0]).cmp(&exact_rank(w[1])),
                std::cmp::Ordering::Greater
            );
        }
        assert_eq!(exact_key(Rate::UNKNOWN).to_bits(), f64::NEG_INFINITY.to_bits());
        // The table holds −2/p for every code: 2^(c/1024) exactly at whole powers of two.
        assert_eq!(exact_key(rates[0]).to_bits(), (-2.0f64).to_bits());
        assert_eq!(exact_key(rates[1024]).to_bits(), (-4.0f64).to_bits());
        assert_eq!(exact_key(rates[10 * 1024]).to_bits(), (-2048.0f64).to_bits());
        for r in &rates {
            assert_eq!(exact_key(*r).to_bits(), (-2.0 / r.probability()).to_bits());
        }
    }

    /// The radix sort orders as `sort_unstable` does, on keys that share high bytes (as a
    /// batch's u_p2 do), on keys with ties, and on short and empty inputs.
    #[test]
    fn radix_sort_orders_as_the_standard_sort() {
        use rand::{Rng, SeedableRng};
        let mut rng = crate::rng::SimRng::seed_from_u64(3);
        let mut tmp = Vec::new();
        for (n, spread) in [
            (0, 1u64),
            (5, 10),
            (255, 1 << 40),
            (1024, 1 << 20),
            (4096, 7),
            (3000, u64::MAX),
        ] {
            let base = rng.random::<u64>() & 0xffff_0000_0000_0000;
            let mut v: Vec<(u64, u32)> = (0..n)
                .map(|i| {
                    (
                        base | (rng.random::<u64>() % spread.max(1)) & 0x0000_ffff_ffff_ffff,
                        i,
                    )
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_unstable();
            radix_sort(&mut v, &mut tmp);
            assert_eq!(v, expected, "n = {n}");
        }
    }

    fn buffer(sort: bool, rewrite: Rewrite) -> SortBuffer {
        SortBuffer::new(
            &SortBufferSpec {
                segments: 1,
                sort,
                rewrite,
            },
            4,
        )
    }

    /// §5.2.2: a first write takes the oldest u_p2 of its batch; §5.3: the batch is written
    /// sorted by u_p2, ties in arrival order; dead copies keep their places.
    #[test]
    fn first_writes_take_the_batch_s_oldest_key_and_the_batch_is_sorted() {
        let mut b = buffer(true, Rewrite::Hole);
        b.pages.extend([10, 11, 12, 13]);
        b.keys.extend([50.0, FIRST, 20.0, 50.0]);
        b.drop_entry(3);
        assert_eq!(
            b.drain(),
            &[(20.0, 11, 1), (20.0, 12, 1), (50.0, 10, 1), (50.0, NONE, 1)]
        );
        let mut b = buffer(false, Rewrite::Absorb);
        b.pages.extend([10, 11, 12, 13]);
        b.keys.extend([50.0, FIRST, 20.0, 5.0]);
        assert_eq!(b.drop_entry(0), Some(13));
        assert_eq!(b.drain(), &[(5.0, 13, 1), (5.0, 11, 1), (20.0, 12, 1)]);
        // A batch of first writes only (the fill) starts at time 0.
        let mut b = buffer(true, Rewrite::Hole);
        b.pages.extend([1, 2]);
        b.keys.extend([FIRST, FIRST]);
        assert_eq!(b.drain(), &[(0.0, 1, 1), (0.0, 2, 1)]);
    }
}
