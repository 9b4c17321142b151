//! Minimum declining cost (MDC): clean first the segment whose cleaning cost would decline least
//! by waiting.
//!
//! D. Lomet, C. Luo, "Efficiently Reclaiming Space in a Log Structured Store", §4–5. The cost of
//! cleaning declines as a segment's pages are updated; by the Maximality Lemma (§4.1) the total
//! cost is least when segments are cleaned in increasing order of their rate of decline, which
//! §5.1.3 reduces to the priority
//!
//! ```text
//!     ((B − A) / A)² / (C · (u_now − u_p2))        smallest cleaned first
//! ```
//!
//! with B the segment's size, A its available (free) space, C its pages with current state, u_now
//! the update count (§4.2: time is counted in updates) and u_p2 the segment's estimate of the time
//! of its pages' penultimate update (§4.3: `U_pf = 2/(u_now − u_p2)`). With pages of one size and v
//! of b pages valid: A = b − v, B − A = C = v. An empty segment (C = 0) costs nothing and is
//! cleaned first; a full one (A = 0) yields no space and comes last.
//!
//! u_p2 is kept per segment by the `up2` ledger (`ledger::up2`) and set when the segment is sealed: the placement
//! (`placement::sort_buffer`) and the cleaner carry it forward as §5.2.2 says — a relocated page
//! keeps its victim's u_p2 and a segment takes the mean of its pages'; a rewritten page gets
//! `old + ½·(u_now − old)`, where old is the u_p2 of the segment that held its previous copy; a
//! first write gets the oldest u_p2 of its buffer's batch. A segment's u_p2 is not changed by
//! later updates of its pages (§5.2.1 updates only A and C).
//!
//! **MDC-opt** (`freq=exact`, §6.1.3): the estimate is replaced by the page's exact update rate
//! p (its probability per write, carried by the write). A page's key is then −2/p, and the
//! priority is computed with u_now = 0, so that u_now − u_p2 = 2/p, the exact expected time of
//! two updates, in place of its estimate; keys are averaged and sorted exactly as u_p2 is.
//!
//! **Pages of variable size** (§4.4): C no longer follows from A, and the paper's general form
//! multiplies §4.2's (1 − E) by `Δ_E = ((B − A)/C)/B`, the mean size of the current pages over B.
//! §4.2 derives (1 − E) as "the number of current pages times U_pf", which is C, not (1 − E), once
//! sizes differ: `C·Δ_E = (B − A)/B`, and the priority becomes `(B − A)/(A²·(u_now − u_p2))`, larger
//! than the paper's by the factor C/(B − A). `decline=paper` (the default) keeps §5.1.3's form,
//! `decline=pages` the other ([`declining_cost_per_page`]); with one size both give the same
//! order. Measured (1,250 segments of 512 slots, sizes 1–8, sort buffer, 20× writes): the readings
//! differ by 0.05–1.0% in WA, `pages` the lower, and under uniform updates MDC-opt with `pages` is
//! greedy's order (§4.5) within 0.02% where `paper` is 0.2% above it (docs/design.md).
//!
//! Exact selection: for one valid count the priority is smallest for the smallest u_p2, so the
//! segments are kept in a [`CountHeaps`] keyed by u_p2 and a selection scores the b + 1 tops.
//! Ties of equal priority go to the fewest valid pages, then the oldest u_p2, then the lowest
//! segment number.

use super::index::count_heaps::CountHeaps;
use super::Declare;
use super::VictimPolicy;
use crate::clocks::Clocks;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::store::Store;
use std::fmt;

/// MDC's priority ((B − A)/A)² / (C·d) (§5.1.3), smallest cleaned first: `b` the segment's size
/// and `a` its available space (the same unit), `c` its current pages and `d` = u_now − u_p2
/// [updates]. 0 for an empty segment, infinite when no space can be gained or no time has passed.
#[inline]
#[allow(clippy::many_single_char_names)] // the paper's B, A, C and the interval d
pub fn declining_cost(b: f64, a: f64, c: f64, d: f64) -> f64 {
    if c == 0.0 {
        return 0.0;
    }
    if a <= 0.0 || d <= 0.0 {
        return f64::INFINITY;
    }
    let r = (b - a) / a;
    r * r / (c * d)
}

/// MDC's priority read per page (`decline=pages`, see the module's comment): the segment's update
/// rate as its current pages `c` times U_pf, so (B − A)/(A²·d), smallest cleaned first. 0 for a
/// segment without current pages (what is left is the tail no page fitted in), infinite when no
/// space can be gained or no time has passed.
#[inline]
#[allow(clippy::many_single_char_names)] // the paper's B, A, C and the interval d
pub fn declining_cost_per_page(b: f64, a: f64, c: f64, d: f64) -> f64 {
    if c == 0.0 || a <= 0.0 || d <= 0.0 {
        return declining_cost(b, a, c, d); // the same 0 and ∞
    }
    (b - a) / (a * a * d)
}

/// The sealed segment of least priority `cost(B, A, C, u_now − u_p2)` with its valid count, the
/// ties as in the indexed choice: fewest valid, then oldest u_p2, then lowest number.
#[inline(always)]
#[allow(clippy::inline_always)] // one copy per reading, each with its priority inlined
fn scan_sized(
    store: &Store,
    now: f64,
    cost: impl Fn(f64, f64, f64, f64) -> f64,
) -> Option<(u32, u32)> {
    let b = f64::from(store.pps);
    let mut best: Option<(f64, u32, f64, u32)> = None;
    for &seg in store.sealed.as_slice() {
        let s = seg as usize;
        let valid = store.valid[s];
        let up2 = store.facts.up2()[s];
        let p = cost(
            b,
            b - f64::from(valid),
            f64::from(store.pages_in(seg)),
            now - up2,
        );
        let better = best.is_none_or(|(top, v, u, g)| {
            p.total_cmp(&top)
                .then(valid.cmp(&v))
                .then(up2.total_cmp(&u))
                .then(seg.cmp(&g))
                .is_lt()
        });
        if better {
            best = Some((p, valid, up2, seg));
        }
    }
    best.map(|(_, valid, _, seg)| (valid, seg))
}

/// A u_p2 as a heap key: the order of `f64::total_cmp` as unsigned integers.
#[inline]
pub(crate) fn key(up2: f64) -> u64 {
    let bits = up2.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The u_p2 of a heap key.
#[inline]
fn up2(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    })
}

/// MDC over sealed segments indexed by valid count, oldest u_p2 on top.
#[derive(Clone, Debug)]
pub struct Mdc {
    index: CountHeaps,
    freq: FreqSource,
    /// Read only when pages vary in size: with one size the per-count order is both readings'.
    decline: Decline,
    /// ((B − A)/A)² for each valid count v of a segment of b pages (A = b − v), as
    /// [`declining_cost`] computes it: a choice then divides once per count, not twice.
    squared: Vec<f64>,
    /// Per valid count: the priority and segment of its heap's top, as last scored.
    tops: Vec<Option<(f64, u32)>>,
    /// Whether `tops` still holds for every count but `last` at update count `scored_at`:
    /// nothing was sealed, invalidated or removed since, only victims chosen. The victims of a
    /// batch are chosen one after another with nothing in between (Lomet & Luo's 64 a cycle),
    /// and each changes one heap, so all but the first choice rescore one count, not b + 1.
    fresh: bool,
    scored_at: u64,
    /// The valid count of the last victim, whose heap's top changed.
    last: usize,
}

impl Mdc {
    /// An empty index for `segments` segments of `pps` pages.
    pub fn new(segments: u32, pps: u32, freq: FreqSource, decline: Decline) -> Self {
        let b = f64::from(pps);
        Mdc {
            index: CountHeaps::new(segments, pps),
            freq,
            decline,
            tops: vec![None; pps as usize + 1],
            fresh: false,
            scored_at: 0,
            last: 0,
            squared: (0..=pps)
                .map(|v| {
                    let a = b - f64::from(v);
                    let r = (b - a) / a;
                    r * r
                })
                .collect(),
        }
    }

    /// The priority of a segment with `valid` of `b` pages valid and u_p2 `up2`, at update
    /// count `now`: [`declining_cost`], bit for bit.
    #[inline]
    fn priority(&self, valid: u32, b: u32, up2: f64, now: u64) -> f64 {
        let now = match self.freq {
            FreqSource::Estimate => now as f64,
            FreqSource::Exact => 0.0,
        };
        let d = now - up2;
        if valid == 0 {
            0.0
        } else if valid >= b || d <= 0.0 {
            f64::INFINITY
        } else {
            self.squared[valid as usize] / (f64::from(valid) * d)
        }
    }
}

impl Mdc {
    /// The choice with page sizes (§4.4): A = B − valid slots and C the segment's pages, which
    /// no longer follows from its valid count, so every sealed segment is scored (O(segments)
    /// per choice; the ties as in the indexed choice).
    #[cold]
    #[inline(never)]
    fn select_sized(&mut self, store: &Store, clocks: &Clocks) -> Option<u32> {
        let now = match self.freq {
            FreqSource::Estimate => clocks.user_writes as f64,
            FreqSource::Exact => 0.0,
        };
        // One loop per reading, each with its priority inlined (through a function pointer the
        // scan ran 9% slower).
        let best = match self.decline {
            Decline::Paper => scan_sized(store, now, declining_cost),
            Decline::Pages => scan_sized(store, now, declining_cost_per_page),
        };
        let (valid, seg) = best?;
        self.fresh = false;
        self.index.unindex(seg, valid);
        Some(seg)
    }

    /// The priority and segment of count `v`'s top at update count `now`, if it has one.
    #[inline]
    fn score(&mut self, v: usize, store: &Store, now: u64) -> Option<(f64, u32)> {
        let (k, seg) = self.index.top(v)?;
        Some((self.priority(v as u32, store.pps, up2(k), now), seg))
    }
}

impl VictimPolicy for Mdc {
    #[inline]
    fn on_seal(&mut self, seg: u32, _user: bool, store: &Store) {
        let s = seg as usize;
        self.fresh = false;
        self.index
            .push(seg, store.valid[s], key(store.facts.up2()[s]));
    }

    #[allow(clippy::inline_always)] // measured; see `Policy::on_invalidate`
    #[inline(always)]
    fn on_invalidate(&mut self, seg: u32, _slot: u32, store: &Store) {
        self.fresh = false;
        self.index
            .lost_page(seg, store, key(store.facts.up2()[seg as usize]));
    }

    fn on_remove(&mut self, seg: u32, store: &Store) {
        self.fresh = false;
        self.index.unindex(seg, store.valid[seg as usize]);
    }

    fn select(&mut self, store: &Store, clocks: &Clocks, _rng: &mut SimRng) -> Option<u32> {
        if store.sized() {
            return self.select_sized(store, clocks);
        }
        let now = clocks.user_writes;
        if self.fresh && self.scored_at == now {
            self.tops[self.last] = self.score(self.last, store, now);
        } else {
            for v in 0..self.index.counts() {
                self.tops[v] = self.score(v, store, now);
            }
            (self.fresh, self.scored_at) = (true, now);
        }
        let mut best: Option<(f64, u32, u32)> = None;
        for (v, top) in self.tops.iter().enumerate() {
            if let &Some((p, seg)) = top {
                if best.is_none_or(|(top, _, _)| p < top) {
                    best = Some((p, seg, v as u32));
                }
            }
        }
        let (_, seg, valid) = best?;
        self.index.unindex(seg, valid);
        self.last = valid as usize;
        Some(seg)
    }
}

/// How MDC's cost decline counts a segment's pages when they vary in size (`mdc:decline=…`,
/// Lomet & Luo §4.2–4.4). The two agree, priority for priority, when every page has one size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Decline {
    /// `paper`: §4.4's general form as §5.1.3 simplifies it, `((B − A)/A)² / (C·(u_now − u_p2))`:
    /// §4.2's (1 − E) times `Δ_E = ((B − A)/C)/B`, the mean size of the segment's current pages.
    #[default]
    Paper,
    /// `pages`: §4.2's words, "the update frequency per segment is the number of current pages
    /// times `U_pf`", with the same `Δ_E`: `C·U_pf·Δ_E = U_pf·(B − A)/B`, so that the priority is
    /// `(B − A) / (A²·(u_now − u_p2))`. The paper's form multiplies by (1 − E), which already
    /// counts the current pages by their size, and then by `Δ_E`, whose 1/C counts them again.
    Pages,
}

impl fmt::Display for Decline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decline::Paper => "paper",
            Decline::Pages => "pages",
        })
    }
}

/// Where MDC's update frequency of a page comes from (`mdc:freq=…`, and the keys by which the
/// sort buffer and a cleaning batch are sorted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FreqSource {
    /// `estimate`: u_p2, the estimated time of a page's penultimate update, carried forward as
    /// Lomet & Luo §5.2.2 says.
    #[default]
    Estimate,
    /// `exact`: the update rate each write carries from the workload (MDC-opt, multi-log-opt;
    /// §6.1.3).
    Exact,
}

impl fmt::Display for FreqSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FreqSource::Estimate => "estimate",
            FreqSource::Exact => "exact",
        })
    }
}

/// The parameters of MDC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MdcSpec {
    /// Where the update frequency comes from.
    pub freq: FreqSource,
    /// How a segment's decline counts its pages when pages vary in size.
    pub decline: Decline,
}

/// The `freq=` parameter of MDC and multi-log.
pub const FREQ: Param = Param {
    key: "freq",
    values: "estimate|exact",
    unit: "",
    range: "`estimate` or `exact`",
    default: Some("estimate"),
    help: "Update frequencies estimated from update times (u_p2), or each write's exact rate (the -opt variants, §6.1.3).",
};

impl FreqSource {
    /// The `freq=` argument, `estimate` when absent.
    pub fn parse(args: &Args<'_>) -> Result<Self> {
        args.choice(
            "freq",
            &[
                ("estimate", FreqSource::Estimate),
                ("exact", FreqSource::Exact),
            ],
            FreqSource::Estimate,
        )
    }
}

impl Declare for Mdc {
    type Params = MdcSpec;
    const INFO: Info = Info {
        family: Family::Policy,
        name: "mdc",
        aliases: &[],
        summary: "Minimum declining cost ((B − A)/A)²/(C·(u_now − u_p2)), with the sort-buffer placement (or oracle with freq=exact).",
        source: "Lomet & Luo §4–5; MDC-opt §6.1.3",
        params: &[
            FREQ,
            Param {
                key: "decline",
                values: "paper|pages",
                unit: "",
                range: "`paper` or `pages`",
                default: Some("paper"),
                help: "With page sizes: §4.4's general form (paper), or §4.2's words (pages).",
            },
        ],
        needs: &[Need::SealedSet, Need::Up2],
    };
    fn parse(args: &Args<'_>) -> Result<MdcSpec> {
        Ok(MdcSpec {
            freq: FreqSource::parse(args)?,
            decline: args.choice(
                "decline",
                &[("paper", Decline::Paper), ("pages", Decline::Pages)],
                Decline::Paper,
            )?,
        })
    }
    fn show(p: &MdcSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The default reading is left out, so that the names of earlier runs stay theirs.
        match p.decline {
            Decline::Paper => write!(f, "mdc:freq={}", p.freq),
            Decline::Pages => write!(f, "mdc:freq={},decline=pages", p.freq),
        }
    }
    fn build(p: &MdcSpec, g: &Geometry) -> Self {
        Mdc::new(g.segments, g.pages_per_segment, p.freq, p.decline)
    }
    fn freq(p: &MdcSpec) -> Option<FreqSource> {
        Some(p.freq)
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::super::index::count_heaps::exercise;
    use super::*;
    use crate::geometry::Geometry;

    /// §5.1.3 against §4.4's untransformed decline `2(1 − E)/E² · 2/(u_now − u_p2) · ((B − A)/C)/B`
    /// with E = A/B: the two differ by the constant factor 4 (the 2 and the 2 dropped in §5.1.3),
    /// whatever the segment.
    #[test]
    fn the_transformed_priority_is_the_declining_cost_up_to_a_constant() {
        let b = 4096.0;
        for (a, c, d) in [(1024.0, 6.0, 100.0), (3000.0, 2.0, 7.5), (10.0, 30.0, 1e6)] {
            let e: f64 = a / b;
            let decline = 2.0 * (1.0 - e) / (e * e) * (2.0 / d) * ((b - a) / c) / b;
            let ratio = decline / declining_cost(b, a, c, d);
            assert!((ratio - 4.0).abs() < 1e-12, "{ratio}");
        }
        assert_eq!(declining_cost(b, b, 0.0, 5.0).to_bits(), 0f64.to_bits());
        assert!(declining_cost(b, 0.0, 8.0, 5.0).is_infinite());
    }

    /// `decline=pages` against §4.2 with the segment's update rate `C·U_pf`: −d(Cost)/du =
    /// 2/E² · C·(2/d) · ((B − A)/C)/B, the per-page priority times the constant 4·B (§5.1.3
    /// drops the same 2 and 2, and B is the segment's size); it is the paper's form times
    /// C/(B − A), so with pages of one size s (B − A = s·C) the two differ by the constant s and
    /// order segments alike.
    #[test]
    fn the_per_page_priority_counts_the_segments_pages_once() {
        let b = 4096.0;
        for (a, c, d) in [(1024.0, 6.0, 100.0), (3000.0, 2.0, 7.5), (10.0, 30.0, 1e6)] {
            let e: f64 = a / b;
            let decline = 2.0 / (e * e) * c * (2.0 / d) * ((b - a) / c) / b;
            let ratio = decline / declining_cost_per_page(b, a, c, d);
            assert!((ratio / (4.0 * b) - 1.0).abs() < 1e-12, "{ratio}");
            let paper = declining_cost(b, a, c, d);
            assert!(
                (declining_cost_per_page(b, a, c, d) / paper / (c / (b - a)) - 1.0).abs() < 1e-12
            );
        }
        assert_eq!(
            declining_cost_per_page(b, 100.0, 0.0, 5.0).to_bits(),
            0f64.to_bits()
        );
        assert!(declining_cost_per_page(b, 0.0, 8.0, 5.0).is_infinite());
        assert!(declining_cost_per_page(b, 8.0, 8.0, 0.0).is_infinite());
        // One size s = 4 slots: B − A = 4·C; the orders over (A, d) agree.
        let segs: Vec<(f64, f64)> = (1..128)
            .flat_map(|c| {
                [
                    (b - 4.0 * f64::from(c), 50.0),
                    (b - 4.0 * f64::from(c), 3e3),
                ]
            })
            .collect();
        let order = |f: fn(f64, f64, f64, f64) -> f64| {
            let mut i: Vec<usize> = (0..segs.len()).collect();
            i.sort_by(|&x, &y| {
                let (ax, dx) = segs[x];
                let (ay, dy) = segs[y];
                f(b, ax, (b - ax) / 4.0, dx).total_cmp(&f(b, ay, (b - ay) / 4.0, dy))
            });
            i
        };
        assert_eq!(order(declining_cost), order(declining_cost_per_page));
    }

    /// §4.5: under uniform updates (one u_p2 for all), MDC orders segments as greedy does.
    #[test]
    fn with_one_update_frequency_the_order_is_greedys() {
        let p: Vec<f64> = (0..=64)
            .map(|v| declining_cost(64.0, f64::from(64 - v), f64::from(v), 1000.0))
            .collect();
        assert!(p.windows(2).all(|w| w[0] < w[1]), "{p:?}");
    }

    /// The tabled priority is §5.1.3's formula, bit for bit, at every valid count.
    #[test]
    fn the_tabled_priority_is_declining_cost() {
        for b in [1u32, 8, 64, 512] {
            let m = Mdc::new(4, b, FreqSource::Estimate, Decline::Paper);
            for v in 0..=b {
                for (up2, now) in [(0.0, 1000u64), (999.5, 1000), (1000.0, 1000), (-3.25, 7)] {
                    let want = declining_cost(
                        f64::from(b),
                        f64::from(b - v),
                        f64::from(v),
                        now as f64 - up2,
                    );
                    assert_eq!(
                        m.priority(v, b, up2, now).to_bits(),
                        want.to_bits(),
                        "b {b} v {v} up2 {up2}"
                    );
                }
            }
        }
    }

    #[test]
    fn keys_order_as_the_numbers() {
        let xs = [-1e9, -2.5, -0.0, 0.0, 1e-300, 3.0, 7.25e12];
        for w in xs.windows(2) {
            assert!(key(w[0]) <= key(w[1]), "{w:?}");
        }
        for x in xs {
            assert_eq!(up2(key(x)).to_bits(), x.to_bits());
        }
    }

    /// The indexed choice against a scan of every sealed segment, under random seals (with
    /// random u_p2), invalidations and selections.
    #[test]
    fn the_indexed_choice_has_the_least_priority_of_any_sealed_segment() {
        let g = Geometry {
            segments: 40,
            pages_per_segment: 8,
            logical_pages: 200,
        };
        let mut store = Store::new(&g);
        store.keep_facts(|n| n == crate::spec::Need::Up2);
        let mut policy = Mdc::new(
            g.segments,
            g.pages_per_segment,
            FreqSource::Estimate,
            Decline::Paper,
        );
        let scorer = policy.clone();
        let priority =
            |st: &Store, s: usize, now| scorer.priority(st.valid[s], 8, st.facts.up2()[s], now);
        let selections = exercise(
            &mut policy,
            &mut store,
            11,
            |st, seg, now, rng| {
                st.facts.up2.values[seg as usize] = rng.random_range(0.0..now as f64);
                now
            },
            |st, victim, now| {
                let best = st
                    .sealed
                    .as_slice()
                    .iter()
                    .map(|&s| priority(st, s as usize, now))
                    .fold(f64::INFINITY, f64::min);
                let got = priority(st, victim as usize, now);
                assert_eq!(got.to_bits(), best.to_bits(), "now {now}");
            },
        );
        assert!(selections > 500, "{selections} selections checked");
    }
}
