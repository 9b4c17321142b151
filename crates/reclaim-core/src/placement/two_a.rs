//! 2a: SSD-iq's write groups by a page's recent update interval, each group cleaned in its own
//! right, and the group to clean chosen so that each group's fill level approaches the one the 2a
//! closed form gives it.
//!
//! Haas, Lee, Bonnet & Leis, "SSD-iq", PVLDB 18(11), 2025, as the simulator of
//! `LeeBohyun/ssdiq_plus` (after `gabriel-haas/ssdiq`) runs it: `sim/TwoAGC.hpp` (class
//! `TwoAGC`), its closed form `sim/TwoAFormula.hpp` (`newOptWA`), chosen in `sim/sim.cpp` as
//! `GC=2a-N` (N write heads) or `GC=tt-N` (the same with `justTTno2a`):
//!
//! - **Write heads.** Each page keeps its last three user-write times (the write count); its
//!   interval is (now − the oldest of them) / their number (`averageTimestampInterval`, in single
//!   precision). A first write goes to head N/2; a later one to the first head i whose
//!   percentile bound is at least its interval (head 0 the shortest intervals), head N − 1
//!   beyond the last. The N − 1 bounds are the 1/N … (N − 1)/N quantiles of the intervals of
//!   10,000 pages drawn uniformly (with replacement; pages never written skipped; each interval
//!   truncated to a whole number), drawn again when more than 10 segments' worth of user writes
//!   have passed since the last draw, at the next rewrite that asks.
//! - **Relocation.** A relocated page goes to the GC head of the group its interval names now
//!   (`gcDestinationFun`): each group has a user head and a GC head, here groups g and N + g.
//! - **Which group is cleaned** (`performGC`), once per cleaning cycle (the simulator cleans in a
//!   cycle until one block is free, every victim from one group): when more than 10 segments'
//!   worth of user writes have passed since the last update, the heads' user writes since then
//!   (an idle head counted 0.01) give, by the 2a closed form, each group's share of the spare and
//!   the expected WA; group g's target fill is (F/N) / (F/N + `share_g`·(1 − F)), F the fill level
//!   (logical / physical pages). Unless the expected WA ×1.01 reaches greedy's approximation
//!   1/(2(1 − F)) (`justDoGreedy`), the group cleaned is the one whose fill level (valid pages
//!   over its segments, open ones included) is farthest below its target, among those holding
//!   more than half of their even share (1/(2N)) of the segments; otherwise, and before the first
//!   update, the group of the segment with the fewest valid pages. Within the group, its user
//!   and GC segments are one set: the victim is the one of the two groups' choices with fewer
//!   valid pages.
//! - **`tt`** (`clean=greedy`, the simulator's `tt-N`): the same heads, never the 2a choice: each
//!   cycle cleans the group of the segment with the fewest valid pages.
//!
//! Choices and differences, each documented in `docs/schemes-after-sepbit.md`:
//! - the simulator's device (`SSD.hpp`, `SSD::writePage`) keeps an LRU write buffer of 0.04%
//!   of the logical pages, reclaim's `--cache`. `TwoAGC::writePage` chooses the head, keeps the
//!   time and counts the head's write for every host write, absorbed by the buffer or not, and
//!   the page the buffer evicts is written into the block of the head chosen for the incoming
//!   one. Here each host write is announced (`Need::Times`: a workload without times is a
//!   request per write, told before the cache) and taken into the times and counts, and an
//!   evicted page goes to the evicting write's head (`evict=incoming`, the default). With
//!   `evict=own` the cache is not seen: a page reaching the store chooses its own head and is
//!   timed and counted then. Without a cache the two are the same, and so is a write not
//!   announced (the fill, a trace's request of several pages): its own head;
//! - a victim's pages whose group's GC head is full stay in the victim, which is compacted in
//!   place and becomes the GC head of the first group found full (`SSD::moveValidPagesTo`,
//!   `compactUntilFreeBlock`): pages of several heads in one group's block. Here each GC
//!   stream counts the pages of its open segment (from empty, as the simulator's GC heads
//!   start), and such pages go to that first full group's stream, which takes the victim's
//!   segment (a page the engine writes into another stream's segment, when the pool is empty
//!   mid-cycle, is not counted);
//! - the simulator's generator is seeded from `std::random_device`; here the run's.

use std::fmt;

use super::{Build, Built, Declare, Groups, Relocation, Request, Scheme};
use crate::error::{Error, Result};
use crate::policy::PolicySpec;
use crate::rng::SimRng;
use crate::spec::{Args, Family, Info, Need, Param};
use crate::store::SegState;
use crate::workload::Write;
use rand::Rng;

/// Pages drawn for the percentile bounds (`sampleSize`).
const SAMPLE: usize = 10_000;
/// User writes between two updates, in segments' worth (`10*ssd.pagesPerZone`).
const PERIOD_SEGMENTS: u64 = 10;
/// Write times kept per page (`maxTimestamps` − 1: the list is cut when it reaches 4).
const KEPT: usize = 3;

/// Greedy's WA at fill level `f`, as `TwoAFormula.hpp` approximates it: 1 / (2(1 − f)).
pub(crate) fn greedy_approx_wa(f: f64) -> f64 {
    1.0 / (2.0 * (1.0 - f))
}

/// `calc2aSolution`: the first of two neighbours' share of their spare, r its share of their
/// writes: (r − √(r(1 − r))) / (2r − 1), ½ at r = ½.
pub(crate) fn split(r: f64) -> f64 {
    if (2.0 * r - 1.0).abs() < 1e-15 {
        return 0.5;
    }
    let val = r * (1.0 - r);
    if val < 0.0 {
        return 0.0;
    }
    (r - val.sqrt()) / (2.0 * r - 1.0)
}

/// `compute_a`: Πq / (1 + `Σ_i Π_{j ≥ i} q_j`).
fn compute_a(q: &[f64]) -> f64 {
    let num: f64 = q.iter().product();
    let denom = 1.0
        + (0..q.len())
            .map(|i| q[i..].iter().product::<f64>())
            .sum::<f64>();
    num / denom
}

/// `newOptWA`: each of `writes.len()` groups of equal size its share of the spare, and the WA,
/// Σ wᵢ · [`greedy_approx_wa`](fᵢ), at fill level `fill`, for relative write counts `writes`
/// (each > 0).
pub(crate) fn new_opt_wa(fill: f64, writes: &[f64]) -> (Vec<f64>, f64) {
    let total: f64 = writes.iter().sum();
    let wf: Vec<f64> = writes.iter().map(|w| w / total).collect();
    let q: Vec<f64> = (wf.windows(2))
        .map(|w| split(w[0] / (w[0] + w[1])))
        .filter(|x| (1.0 - x).abs() > 1e-15)
        .map(|x| x / (1.0 - x))
        .collect();
    let mut shares = Vec::with_capacity(wf.len());
    if q.is_empty() {
        shares.push(1.0);
    } else {
        shares.push(compute_a(&q));
        for (i, &qi) in q.iter().enumerate() {
            shares.push(if qi.abs() < 1e-15 {
                0.0
            } else {
                shares[i] / qi
            });
        }
    }
    let n = wf.len() as f64;
    let mut wa = 0.0;
    for (w, s) in wf.iter().zip(&shares) {
        let sf = fill / n;
        let denom = sf + (1.0 - fill) * s;
        if denom.abs() >= 1e-15 {
            wa += w * greedy_approx_wa(sf / denom);
        }
    }
    (shares, wa)
}

/// The fill level each of `shares.len()` groups of equal size should have at fill level
/// `fill`, given its share of the spare: (F/n) / (F/n + share·(1 − F)).
pub(crate) fn target_fills(fill: f64, shares: &[f64]) -> Vec<f64> {
    let data = fill / shares.len() as f64;
    shares
        .iter()
        .map(|s| data / (data + s * (1.0 - fill)))
        .collect()
}

/// The fill levels of `n` groups (segments of reclaim group g count for group `of(g)`): valid
/// pages and segments of each (open ones included), and the device's segments.
pub(crate) fn group_fills(
    groups: &Groups<'_>,
    n: usize,
    of: impl Fn(usize) -> usize,
) -> Vec<(u64, u64)> {
    let store = groups.store();
    let mut out = vec![(0u64, 0u64); n];
    for (seg, state) in store.state.iter().enumerate() {
        if *state == SegState::Free {
            continue;
        }
        let g = of(groups.group_of(seg as u32));
        out[g].0 += u64::from(store.valid[seg]);
        out[g].1 += 1;
    }
    out
}

/// The group farthest below its target fill (`TwoAGC::performGC`): the largest positive target
/// − fill among the groups holding more than half their even share of the `segments`, and
/// with a candidate (`can`); `None` if none.
pub(crate) fn farthest_below(
    fills: &[(u64, u64)],
    targets: &[f64],
    segments: u64,
    pps: u64,
    can: impl Fn(usize) -> bool,
) -> Option<usize> {
    let n = fills.len() as f64;
    let mut best = None;
    let mut max_diff = 0.0;
    for (g, &(valid, segs)) in fills.iter().enumerate() {
        if segs == 0 {
            continue;
        }
        let fill = valid as f64 / (segs * pps) as f64;
        let diff = targets[g] - fill;
        let size = segs as f64 / segments as f64;
        if diff > max_diff && size > (1.0 / n) / 2.0 && can(g) {
            max_diff = diff;
            best = Some(g);
        }
    }
    best
}

/// The reclaim group among `members` with a sealed segment whose next victim has the fewest
/// valid pages (a policy that cannot tell counts as a full segment), the first on a tie; `None`
/// when none has a sealed segment.
pub(crate) fn least_valid(
    groups: &Groups<'_>,
    members: impl Iterator<Item = usize>,
) -> Option<usize> {
    let pps = groups.store().pps;
    members
        .filter(|&g| groups.sealed(g) > 0)
        .min_by_key(|&g| (groups.next_valid(g).unwrap_or(pps), g))
}

/// Whether reclaim group `g` has a candidate that is not wholly valid (the simulator's victims
/// are never wholly valid; a policy that cannot tell counts any sealed segment).
pub(crate) fn has_candidate(groups: &Groups<'_>, g: usize) -> bool {
    groups.sealed(g) > 0 && groups.next_valid(g).is_none_or(|v| v < groups.store().pps)
}

/// The victim policy of each of `n` groups: greedy, as the simulator's `singleGreedyGroup` and
/// `singleGreedyGeneration` choose within a group, whatever the run's `--policy`.
pub(crate) fn greedy_groups(n: usize) -> Vec<Option<PolicySpec>> {
    vec![Some(PolicySpec::default()); n]
}

/// The pages of `stream`'s open segment as the engine holds it, for a scheme that counts them
/// as `counted` (the engine may give a stream another's segment when the pool is empty
/// mid-cycle): a stream with none open counts as full once it has had one.
pub(crate) fn synced(counted: u32, stream: &super::Stream, pps: u32) -> u32 {
    if stream.seg != crate::store::NONE {
        stream.next
    } else if counted == 0 {
        0
    } else {
        pps
    }
}

/// How 2a chooses the group cleaned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clean {
    /// `2a`: the group farthest below its target fill (the simulator's `2a-N`).
    TwoA,
    /// `greedy`: the group of the segment with the fewest valid pages (`tt-N`).
    Greedy,
}

/// How 2a sees a write cache's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evict {
    /// Every host write chooses a head and is timed and counted; an evicted page goes to the
    /// head chosen for the host write that evicted it (the simulator's `SSD::writePage`).
    Incoming,
    /// The cache is not seen: a page reaching the store chooses its own head and is timed and
    /// counted then.
    Own,
}

/// The parameters of 2a.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwoASpec {
    /// Write heads N, 2 ≤ N ≤ 32.
    pub heads: u8,
    /// How the group cleaned is chosen.
    pub clean: Clean,
    /// Which head an evicted page goes to, under a write cache.
    pub evict: Evict,
}

/// A page's last user-write times, newest first.
#[derive(Clone, Copy, Debug, Default)]
struct Times {
    at: [u64; KEPT],
    n: u8,
}

impl Times {
    /// `averageTimestampInterval`: (now − the oldest kept) / their number, in single precision.
    #[inline]
    fn interval(&self, now: u64) -> f32 {
        let oldest = self.at[usize::from(self.n) - 1];
        now.saturating_sub(oldest) as f32 / f32::from(self.n)
    }

    fn push(&mut self, now: u64) {
        self.at.copy_within(0..KEPT - 1, 1);
        self.at[0] = now;
        self.n = (self.n + 1).min(KEPT as u8);
    }
}

/// 2a's state.
#[derive(Clone, Debug)]
pub struct TwoA {
    heads: usize,
    clean: Clean,
    evict: Evict,
    /// Host writes announced (each page and its time) and not yet taken into the heads'
    /// counts and the pages' times: those a write cache absorbed, and the one whose page, or
    /// the page it evicted, is being written.
    announced: Vec<(u32, u64)>,
    /// Fill level F: logical / physical pages.
    fill: f64,
    /// User writes between updates: 10 segments' worth.
    period: u64,
    /// User writes so far (`currentTime`).
    now: u64,
    /// Per logical page: its last user-write times.
    times: Vec<Times>,
    /// The percentile bounds of the intervals (N − 1 of them once drawn).
    bounds: Vec<f32>,
    /// When the bounds were last drawn.
    bounds_at: u64,
    /// Each head's user writes since the last update of the targets.
    head_writes: Vec<u64>,
    /// When the targets were last updated.
    targets_at: u64,
    /// Each group's target fill (empty before the first update).
    targets: Vec<f64>,
    /// Whether the 2a formula expects no gain over greedy (`justDoGreedy`).
    just_greedy: bool,
    /// The group (0 … N − 1) of the current cleaning cycle, if one is under way.
    cycle: Option<usize>,
    /// Scratch for the drawn intervals.
    sample: Vec<u64>,
    /// Pages per segment.
    pps: u32,
    /// Pages in each GC stream's open segment (the simulator's GC heads start empty).
    gc_fill: Vec<u32>,
    /// The victim being relocated, and the first group whose GC head it found full.
    overflow: (u32, Option<usize>),
}

impl TwoA {
    /// 2a with `heads` heads over `pages` logical pages on `segments` segments of `pps` pages.
    pub fn new(spec: TwoASpec, pages: u64, segments: u32, pps: u32) -> Self {
        let heads = usize::from(spec.heads);
        TwoA {
            heads,
            clean: spec.clean,
            evict: spec.evict,
            announced: Vec::new(),
            fill: pages as f64 / (u64::from(segments) * u64::from(pps)) as f64,
            period: PERIOD_SEGMENTS * u64::from(pps),
            now: 0,
            times: vec![Times::default(); pages as usize],
            bounds: Vec::new(),
            bounds_at: 0,
            head_writes: vec![0; heads],
            targets_at: 0,
            targets: Vec::new(),
            just_greedy: true,
            cycle: None,
            sample: Vec::with_capacity(SAMPLE),
            pps,
            gc_fill: vec![0; heads],
            overflow: (u32::MAX, None),
        }
    }

    /// `chooseWriteHead`: the head of `page` now.
    fn head(&mut self, page: u32, rng: &mut SimRng) -> usize {
        self.head_at(page, self.now, rng)
    }

    /// `chooseWriteHead` at user write `now`.
    fn head_at(&mut self, page: u32, now: u64, rng: &mut SimRng) -> usize {
        let t = self.times[page as usize];
        if t.n == 0 {
            return self.heads / 2;
        }
        let interval = t.interval(now);
        if self.bounds_at + self.period < now {
            self.draw_bounds(now, rng);
        }
        self.bounds.iter().take_while(|&&b| interval > b).count()
    }

    /// A host write of `page` at user write `now` (`TwoAGC::writePage` before the device's
    /// write buffer): its head, its time kept, the head's writes counted.
    fn host_write(&mut self, page: u32, now: u64, rng: &mut SimRng) -> usize {
        let head = self.head_at(page, now, rng);
        self.times[page as usize].push(now);
        self.head_writes[head] += 1;
        head
    }

    /// The N − 1 quantiles of the intervals of [`SAMPLE`] pages drawn uniformly.
    fn draw_bounds(&mut self, now: u64, rng: &mut SimRng) {
        self.bounds_at = now;
        self.sample.clear();
        let pages = self.times.len();
        for _ in 0..SAMPLE {
            let t = self.times[rng.random_range(0..pages)];
            if t.n > 0 {
                // Kept as whole numbers, as the simulator's `std::vector<uint64_t>` keeps them.
                self.sample.push(t.interval(now) as u64);
            }
        }
        if self.sample.is_empty() {
            return;
        }
        self.sample.sort_unstable();
        let len = self.sample.len();
        self.bounds.clear();
        for i in 0..self.heads - 1 {
            let pos = ((i + 1) as f32 / self.heads as f32 * len as f32) as usize;
            self.bounds.push(self.sample[pos.min(len - 1)] as f32);
        }
    }

    /// Updates the targets from the heads' user writes since the last update.
    fn update_targets(&mut self) {
        self.targets_at = self.now;
        let writes: Vec<f64> = (self.head_writes.iter())
            .map(|&c| if c > 0 { c as f64 } else { 0.01 })
            .collect();
        self.head_writes.fill(0);
        let (shares, expected) = new_opt_wa(self.fill, &writes);
        self.targets = target_fills(self.fill, &shares);
        self.just_greedy = expected * 1.01 >= greedy_approx_wa(self.fill);
    }

    /// The group (0 … N − 1) a new cleaning cycle cleans.
    fn cycle_group(&mut self, groups: &Groups<'_>) -> usize {
        if self.targets_at + self.period < self.now {
            self.update_targets();
        }
        let n = self.heads;
        let has = |g: usize| has_candidate(groups, g) || has_candidate(groups, n + g);
        if self.clean == Clean::TwoA && !self.just_greedy && self.targets.len() == n {
            let fills = group_fills(groups, n, |g| g % n);
            let segments = groups.store().state.len() as u64;
            let pps = u64::from(groups.store().pps);
            if let Some(g) = farthest_below(&fills, &self.targets, segments, pps, has) {
                return g;
            }
        }
        least_valid(groups, 0..2 * n).map_or(0, |g| g % n)
    }
}

impl Scheme for TwoA {
    fn request(&mut self, request: &Request) {
        // One page a request (a workload without times, or a trace's one-page requests): a
        // host write, announced before a write cache may absorb it or write another page.
        if request.pages == 1 && self.evict == Evict::Incoming {
            self.announced.push((request.first, self.now));
            self.now += 1;
        }
    }

    fn user_stream(&mut self, write: &Write, _age: u64, rng: &mut SimRng) -> usize {
        // A user write ends the cleaning cycle that made room for it.
        self.cycle = None;
        if self.announced.is_empty() {
            // Not announced (the fill, a request of several pages): a host write of its own.
            let head = self.host_write(write.page, self.now, rng);
            self.now += 1;
            return head;
        }
        // The host writes a cache absorbed since the last, in order, then the one writing
        // now: its head takes the page written, its own or the one it evicted.
        let mut announced = std::mem::take(&mut self.announced);
        let mut head = 0;
        for &(page, now) in &announced {
            head = self.host_write(page, now, rng);
        }
        announced.clear();
        self.announced = announced;
        head
    }

    // `SSD::moveValidPagesTo` with a destination function: a page whose group's GC head is
    // full stays in its victim, which is compacted in place and becomes the GC head of the
    // first group found full; here those pages go to that group's GC stream, whose next
    // segment is the victim's.
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        let h = self.head(r.page, r.rng);
        if self.overflow.0 != r.victim.seg {
            self.overflow = (r.victim.seg, None);
        }
        if self.gc_fill[h] < self.pps {
            self.gc_fill[h] += 1;
            return self.heads + h;
        }
        let f = *self.overflow.1.get_or_insert(h);
        if self.gc_fill[f] == self.pps {
            self.gc_fill[f] = 0;
        }
        self.gc_fill[f] += 1;
        self.heads + f
    }

    fn group_to_clean(&mut self, groups: &Groups<'_>) -> usize {
        let n = self.heads;
        for (h, fill) in self.gc_fill.iter_mut().enumerate() {
            *fill = synced(*fill, &groups.streams[n + h], self.pps);
        }
        // The cycle's group while it has a victim not wholly valid; else a new cycle.
        let within = |g: usize| {
            least_valid(
                groups,
                [g, n + g].into_iter().filter(|&k| has_candidate(groups, k)),
            )
        };
        if let Some(r) = self.cycle.and_then(within) {
            return r;
        }
        let g = self.cycle_group(groups);
        self.cycle = Some(g);
        within(g)
            .or_else(|| least_valid(groups, 0..2 * n))
            .unwrap_or(0)
    }
}

const HEADS: &str = "a whole number in [2, 32]";

impl Declare for TwoA {
    type Params = TwoASpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "2a",
        aliases: &["tt"],
        summary: "SSD-iq's write heads by a page's recent update interval (percentiles of a sample), a user and a GC head per group, the group cleaned chosen by the 2a closed form's target fills; `tt` is `2a:clean=greedy`.",
        source: "Haas, Lee, Bonnet & Leis, PVLDB 18(11) 2025; ssdiq_plus sim/TwoAGC.hpp, TwoAFormula.hpp",
        params: &[
            Param {
                key: "heads",
                values: "N",
                unit: "groups",
                range: HEADS,
                default: Some("4"),
                help: "Write heads N (the simulator's `2a-N`), each a group with a user and a GC stream.",
            },
            Param {
                key: "clean",
                values: "2a|greedy",
                unit: "",
                range: "`2a` or `greedy`",
                default: Some("2a"),
                help: "The group cleaned: farthest below its 2a target fill, or the least valid segment's (`tt-N`, the default under the name `tt`).",
            },
            Param {
                key: "evict",
                values: "incoming|own",
                unit: "",
                range: "`incoming` or `own`",
                default: Some("incoming"),
                help: "Under a write cache (`--cache`): every host write timed and an evicted page written to the evicting write's head (the simulator's write buffer), or only the pages reaching the store, each to its own head.",
            },
        ],
        needs: &[Need::PageState, Need::Times],
    };
    fn parse(args: &Args<'_>) -> Result<TwoASpec> {
        let heads: u8 = args.num("heads", Some(4), HEADS)?;
        if !(2..=32).contains(&heads) {
            return Err(Error::param(&args.key("heads"), heads, HEADS));
        }
        let default = if args.name == "tt" {
            Clean::Greedy
        } else {
            Clean::TwoA
        };
        let clean = args.choice(
            "clean",
            &[("2a", Clean::TwoA), ("greedy", Clean::Greedy)],
            default,
        )?;
        let evict = args.choice(
            "evict",
            &[("incoming", Evict::Incoming), ("own", Evict::Own)],
            Evict::Incoming,
        )?;
        Ok(TwoASpec {
            heads,
            clean,
            evict,
        })
    }
    fn show(p: &TwoASpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let clean = match p.clean {
            Clean::TwoA => "2a",
            Clean::Greedy => "greedy",
        };
        write!(f, "2a:heads={},clean={clean}", p.heads)?;
        // Shown only when not the default, so that the names of earlier runs stay.
        if p.evict == Evict::Own {
            write!(f, ",evict=own")?;
        }
        Ok(())
    }
    fn streams(p: &TwoASpec, _classes: u32) -> u32 {
        2 * u32::from(p.heads)
    }
    // None kept: ssdiq_plus compacts each victim in place (`SSD::compactUntilFreeBlock`), so
    // relocating never needs a free block ([`Built::keeping`]).
    fn reserve(_p: &TwoASpec, _classes: u32) -> (u64, u64) {
        (0, 1)
    }
    // Three write times and their count per page.
    fn page_bytes(_p: &TwoASpec) -> u64 {
        std::mem::size_of::<Times>() as u64
    }
    fn build(p: &TwoASpec, b: &Build<'_>) -> Result<Built<Self>> {
        let pages = b.classes.iter().map(|c| c.pages).sum();
        let n = usize::from(p.heads);
        let user = (0..2 * n).map(|g| g < n).collect();
        Ok(Built::groups(
            TwoA::new(*p, pages, b.segments, b.pps),
            user,
            greedy_groups(2 * n),
            b,
        )
        .keeping(0))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::config::PlacementSpec;
    use crate::placement::Victim;

    /// `newOptWA` as `TwoAFormula.hpp` computes it, by hand: two groups taking 80% and 20% of
    /// the writes at F = 0.9 share the spare √0.8 : √0.2 = 2/3 : 1/3, fills 27/31 and 27/29,
    /// WA 0.8·31/8 + 0.2·29/4 = 3.1 + 1.45 = 4.55.
    #[test]
    fn the_closed_form_by_hand() {
        let (shares, wa) = new_opt_wa(0.9, &[80.0, 20.0]);
        assert!((shares[0] - 2.0 / 3.0).abs() < 1e-12, "{shares:?}");
        assert!((shares[1] - 1.0 / 3.0).abs() < 1e-12, "{shares:?}");
        assert!((wa - 4.55).abs() < 1e-12, "{wa}");
        let t = target_fills(0.9, &shares);
        assert!((t[0] - 27.0 / 31.0).abs() < 1e-12, "{t:?}");
        // The simulator's own `newOptWA` on (0.70, 0.15, 0.1, 0.05) at F = 0.9, compiled and
        // run here: 3.999836167254.
        let (_, wa) = new_opt_wa(0.9, &[0.70, 0.15, 0.1, 0.05]);
        assert!((wa - 3.999_836_167_254).abs() < 1e-9, "{wa}");
        // Equal writes: equal shares, greedy's approximation 1/(2·0.125) = 4.
        let (shares, wa) = new_opt_wa(0.875, &[1.0; 4]);
        assert!(
            shares.iter().all(|s| (s - 0.25).abs() < 1e-12),
            "{shares:?}"
        );
        assert!((wa - 4.0).abs() < 1e-12, "{wa}");
    }

    /// Heads by interval: a first write to head N/2; after the bounds are drawn, the pages
    /// rewritten every write go to head 0 and those rewritten rarely to the last.
    #[test]
    fn heads_follow_the_update_interval() {
        let spec = TwoASpec {
            heads: 4,
            clean: Clean::TwoA,
            evict: Evict::Incoming,
        };
        let mut t = TwoA::new(spec, 100, 20, 8);
        let mut rng = SimRng::seed_from_u64(1);
        let w = |p| Write::new(p, 0);
        // Pages 0..100 written once each (the first to head N/2 = 2), then pages 0 and 1
        // alternately 200 times.
        for p in 0..100 {
            let head = t.user_stream(&w(p), 0, &mut rng);
            assert_eq!(head, 2, "page {p}");
        }
        for i in 0..200 {
            t.user_stream(&w(i % 2), 0, &mut rng);
        }
        assert_eq!(t.bounds.len(), 3);
        // Page 0's interval is 2 (written every other write): the first head.
        assert_eq!(t.user_stream(&w(0), 0, &mut rng), 0);
        // Page 2, written once 299 writes ago: beyond the 3/4 quantile of the intervals (about
        // 300 − 27 at the latest draw), the last head.
        assert_eq!(t.user_stream(&w(2), 0, &mut rng), 3);
    }

    /// `moveValidPagesTo` with a destination function: a page whose group's GC head is full
    /// stays in the victim, which becomes the GC head of the first group found full, so pages
    /// of another head whose GC head is full go there too.
    #[test]
    fn pages_overflowing_a_full_gc_head_stay_with_the_first_full_group() {
        let spec = TwoASpec {
            heads: 2,
            clean: Clean::TwoA,
            evict: Evict::Incoming,
        };
        let mut t = TwoA::new(spec, 10, 20, 4);
        let mut rng = SimRng::seed_from_u64(1);
        // Page 0 written once: head 0 (no bounds drawn yet); page 5 never written: head N/2 = 1.
        t.user_stream(&Write::new(0, 0), 0, &mut rng);
        let mut route = |t: &mut TwoA, page, seg| {
            let victim = Victim::bare(seg);
            let r = Relocation {
                page,
                victim: &victim,
                class: 0,
                age: 0,
                rng: &mut rng,
            };
            t.gc_stream(r)
        };
        // GC heads start empty: each page to its own head's GC stream (N + head).
        assert_eq!(route(&mut t, 5, 7), 3);
        assert_eq!(route(&mut t, 0, 7), 2);
        // Both GC heads full: the first page found full names the group (1), and page 0, of
        // head 0, follows it into group 1's stream, whose next segment is the victim's.
        t.gc_fill = vec![4, 4];
        assert_eq!(route(&mut t, 5, 8), 3);
        assert_eq!(route(&mut t, 0, 8), 3);
        assert_eq!(t.gc_fill, [4, 2]);
        // The next victim: head 0's GC head is still full, so this victim becomes it; head 1's
        // has room.
        assert_eq!(route(&mut t, 0, 9), 2);
        assert_eq!(route(&mut t, 5, 9), 3);
        assert_eq!(t.gc_fill, [1, 3]);
    }

    #[test]
    fn spec_round_trips_and_tt_cleans_greedily() {
        let p: PlacementSpec = "2a".parse().unwrap();
        assert_eq!(p.to_string(), "2a:heads=4,clean=2a");
        assert_eq!(p.streams(1), 8);
        assert_eq!(p.reserve(1), (0, 1), "compacted in place: no reserve");
        let p: PlacementSpec = "tt:heads=3".parse().unwrap();
        assert_eq!(p.to_string(), "2a:heads=3,clean=greedy");
        assert_eq!(p.to_string().parse::<PlacementSpec>().unwrap(), p);
        let e = "2a:heads=1".parse::<PlacementSpec>().unwrap_err();
        assert!(e.to_string().contains("placement.heads"), "{e}");
    }
}
