//! Placement: which open segment (stream) each written page goes to. One file per scheme, each
//! citing its source.
//!
//! A placement owns the streams (the open segments being filled) and the regions (segments owned
//! by a class, each with its own quota and cleaning). It answers, for each user write and for
//! each relocated page, which stream the page goes to; it may also arrange a gathered batch of
//! relocated pages before they are routed (Van Houdt's random partial copy). The run loop
//! (`sim`) does the appending, sealing, opening and cleaning, the same for every scheme.
//!
//! Adding a scheme: a file here with a type implementing [`Scheme`] and [`Declare`], and one line
//! in the registry at the end of this file (`docs/design.md`, "Adding a placement").

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::policy::mdc::FreqSource;
use crate::policy::{Policy, PolicySpec, VictimPolicy};
use crate::rng::SimRng;
use crate::spec::{string_serde, usages, Args, Family, Info, Need};
use crate::store::{SegState, Store, NONE};
use crate::workload::{ClassShare, Rate, RateRank, Write};

/// An open segment being filled, or a stream waiting for one (`seg == NONE`).
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    /// The open segment, or `NONE`.
    pub seg: u32,
    /// Next free offset in `seg`.
    pub next: u32,
    /// Age stamp of the youngest data written to `seg` [user-write clock].
    pub stamp: u64,
    /// The destage sequence numbers of the victims whose pages `seg` received, gathered by the
    /// run's [`FscNumber`] (Stockmeyer §2.3: their largest; 0 before any); read by
    /// [`Self::fsc_number`].
    pub dseq: u64,
    /// A user (destage) stream: sealing one of its segments ticks the destage clock.
    pub user: bool,
    /// The region that owns the stream's segments.
    pub region: u16,
    /// Sum of the u_p2 of the live pages written to `seg` (where u_p2 is kept).
    pub up2_sum: f64,
    /// Pages counted in `up2_sum`.
    pub up2_pages: u32,
}

impl Stream {
    /// A stream of `region` with no open segment.
    pub fn closed(user: bool, region: u16) -> Self {
        Stream {
            seg: NONE,
            next: 0,
            stamp: 0,
            dseq: 0,
            user,
            region,
            up2_sum: 0.0,
            up2_pages: 0,
        }
    }

    /// Relocated `pages` of `victim` join the segment's mean u_p2 (Lomet & Luo §5.2.2: a
    /// relocated page keeps its victim's u_p2; MDC-opt's page, its own exact `rate`'s key,
    /// where rates are kept).
    #[cold]
    #[inline(never)]
    pub fn key_pages(&mut self, pages: &[Gathered], victim: &Victim, rate: &[Rate]) {
        self.up2_sum += if rate.is_empty() {
            victim.up2 * pages.len() as f64
        } else {
            pages
                .iter()
                .map(|g| sort_buffer::exact_key(rate[g.page as usize]))
                .sum::<f64>()
        };
        self.up2_pages += pages.len() as u32;
    }

    /// Pages of a victim whose [`FscNumber::key`] is `key` join the segment.
    #[inline]
    pub fn contribute(&mut self, key: u64) {
        self.dseq = self.dseq.max(key);
    }

    /// The destage number the segment takes when sealed from an FSC stream under `rule` (0
    /// before any relocated page).
    #[inline]
    pub fn fsc_number(&self, rule: FscNumber) -> u64 {
        if self.dseq == 0 {
            0
        } else {
            self.dseq ^ rule.mask()
        }
    }

    /// A page of u_p2 `key` joins the segment's mean.
    #[inline]
    pub fn add_key(&mut self, key: f64) {
        self.up2_sum += key;
        self.up2_pages += 1;
    }

    /// The mean u_p2 of the pages written to the segment so far; `None` before the first.
    #[inline]
    pub fn mean_up2(&self) -> Option<f64> {
        (self.up2_pages > 0).then(|| self.up2_sum / f64::from(self.up2_pages))
    }
}

/// The destage number of a segment closed from an FSC stream, from those of the victims that
/// contributed its pages. Stockmeyer §2.3: "set to the maximum of the destage sequence numbers
/// of the segments that contributed tracks"; the other extreme is there to measure what that
/// choice does (`age-sorted:fsc_number=min`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FscNumber {
    /// `max`: the largest (the report's rule).
    #[default]
    Max,
    /// `min`: the smallest.
    Min,
}

impl FscNumber {
    /// The exclusive or a destage number is taken with: 0 for `max`, all ones for `min`. The
    /// smallest of some numbers is the complement of the largest of their complements, so both
    /// rules gather a stream's number with one `max` ([`Stream::contribute`]), and it stays 0
    /// until the first contributor.
    #[inline]
    fn mask(self) -> u64 {
        match self {
            FscNumber::Max => 0,
            FscNumber::Min => u64::MAX,
        }
    }

    /// A victim's destage number as [`Stream::contribute`] takes it (computed once per
    /// victim: the default costs what it did before there was a choice).
    #[inline]
    pub fn key(self, dseq: u64) -> u64 {
        dseq ^ self.mask()
    }
}

impl fmt::Display for FscNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FscNumber::Max => "max",
            FscNumber::Min => "min",
        })
    }
}

/// How the destage clock gives ages where Stockmeyer §2.3 leaves a choice; only a placement
/// that reads ages ([`Need::Ages`]) chooses other than the default (`age-sorted`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgeClock {
    /// An FSC segment's destage number.
    pub fsc_number: FscNumber,
    /// A track rewritten in an open stream has age 0 whatever the stream (else the age it
    /// would have were its segment closed now: 0 in a destage stream, the counter less the
    /// contributors' number in an FSC stream).
    pub open_zero: bool,
    /// A first write (no copy) has age 0 (else the counter: as if it left a segment numbered 0).
    pub first_zero: bool,
}

/// A region: segments owned by one class (or the whole device), with a quota of segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Segments the region may own (open, sealed, or free and set aside for it).
    pub quota: u32,
    /// Streams of the region that may receive relocated pages.
    pub gc_streams: u32,
}

/// A victim of the current cleaning batch.
#[derive(Clone, Copy, Debug)]
pub struct Victim {
    /// The segment (already erased).
    pub seg: u32,
    /// Its age stamp [user-write clock].
    pub stamp: u64,
    /// Its destage sequence number (0 when the clock's per-segment numbers are not kept).
    pub dseq: u64,
    /// Its region.
    pub region: u16,
    /// Its u_p2 (0 when not kept).
    pub up2: f64,
}

/// The smallest count of each class 1, 2, 3, 4 on AutoStream's logarithmic scale: ⌊ln n⌋ ≥ q
/// from n ≥ ⌈e^q⌉ (integers, so that no rounding of a logarithm moves a boundary).
const LN_CLASS_FROM: [u64; 4] = [3, 8, 21, 55];

/// min(⌊ln n⌋, 4) for a count n ≥ 1 (0 for 0): the class of a chunk's write count in
/// AutoStream's MultiQueue and SFR (`multi_queue`, `sfr`).
#[inline]
pub fn ln_class(count: u64) -> u8 {
    LN_CLASS_FROM.iter().take_while(|&&t| count >= t).count() as u8
}

impl Victim {
    /// Segment `seg` as a victim with no stamp, number or u_p2, region 0 (for tests of schemes).
    #[cfg(test)]
    pub fn bare(seg: u32) -> Self {
        Victim {
            seg,
            stamp: 0,
            dseq: 0,
            region: 0,
            up2: 0.0,
        }
    }

    /// Sealed segment `seg` of region `region` as a victim, read before it is erased.
    pub fn of(seg: u32, region: u16, store: &Store) -> Self {
        let s = seg as usize;
        Victim {
            seg,
            stamp: store.stamp[s],
            dseq: store.facts.dseq().get(s).copied().unwrap_or(0),
            region,
            up2: store.facts.up2().get(s).copied().unwrap_or(0.0),
        }
    }
}

/// A write request as a scheme that declares [`Need::Times`] is told of it, before its pages
/// are written. Without trace times (a trace of page ids) requests are 1 µs apart; without
/// requests (a synthetic workload) each write is a request of one page, 1 µs after the last.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// Its first page.
    pub first: u32,
    /// Its page writes (≥ 1).
    pub pages: u32,
    /// Its time [µs since the trace's first request].
    pub time: u64,
    /// Under the `log` method, the pages the log holds as SepBIT's artifact counts them
    /// (`Log.getnValidBlocks`): pages holding data, and stale copies still in open segments
    /// (an invalidation there counts from the segment's sealing).
    pub held: Option<u64>,
}

impl Request {
    /// A request of `pages` pages from `first` at time 0, outside the `log` method.
    pub fn at(first: u32, pages: u32) -> Self {
        Request {
            first,
            pages,
            time: 0,
            held: None,
        }
    }
}

/// A live page gathered from a victim, to be rewritten.
#[derive(Clone, Copy, Debug)]
pub struct Gathered {
    /// Logical page.
    pub page: u32,
    /// Index of its victim in the batch.
    pub victim: u32,
}

/// A relocated page, as the cleaner asks a scheme for its stream.
pub struct Relocation<'a> {
    /// The logical page.
    pub page: u32,
    /// Its victim.
    pub victim: &'a Victim,
    /// The page's class where the placement keeps classes per page
    /// ([`Placement::needs_page_class`]), else 0.
    pub class: u16,
    /// Its victim's age on the destage clock where the placement reads ages, else 0.
    pub age: u64,
    /// The run's generator.
    pub rng: &'a mut SimRng,
}

/// A run of relocated pages of one victim, as the cleaner asks a scheme for their streams
/// together ([`Scheme::gc_streams`]).
pub struct RelocationRun<'a> {
    /// Their victim.
    pub victim: &'a Victim,
    /// The victim's age on the destage clock where the placement reads ages, else 0.
    pub age: u64,
    /// The pages, in the order they are routed.
    pub pages: &'a [Gathered],
    /// The run's generator.
    pub rng: &'a mut SimRng,
}

/// What a scheme decides.
pub trait Scheme {
    /// The stream of a user write; `age` is the age of the copy it replaces on the destage
    /// clock where the placement reads ages ([`Placement::needs_ages`]), else 0.
    fn user_stream(&mut self, write: &Write, age: u64, rng: &mut SimRng) -> usize;
    /// The stream of every user write, when the scheme sends them all to one stream without
    /// reading the write, an age or the generator: the run loop then asks no more.
    fn one_user_stream(&self) -> Option<usize> {
        None
    }
    /// The stream of a relocated page.
    fn gc_stream(&mut self, r: Relocation<'_>) -> usize;
    /// The streams of a run of relocated pages of one victim, in order, into `out`, when the
    /// scheme routes a victim's pages together with the same result as page by page; false to
    /// be asked page by page.
    fn gc_streams(&mut self, _run: RelocationRun<'_>, _out: &mut Vec<u32>) -> bool {
        false
    }
    /// The stream of every relocated page of `victim`, when it does not depend on the page;
    /// `None` makes the cleaner ask [`Self::gc_stream`] page by page.
    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        None
    }
    /// Stream `stream` sealed segment `seg` (for a scheme that remembers its segments).
    fn sealed(&mut self, _stream: usize, _seg: u32) {}
    /// Segment `seg` was sealed and `store` holds its pages (for a scheme that keeps sums over
    /// a segment's pages; called after [`Self::sealed`]).
    fn sealed_pages(&mut self, _seg: u32, _store: &Store) {}
    /// `victim` was chosen and is being collected, before its pages are routed.
    fn collected(&mut self, _victim: &Victim) {}
    /// A write request begins, before any of its pages is written (the artifact's
    /// `addRequest`). Asked only of a scheme that declares [`Need::Times`].
    fn request(&mut self, _request: &Request) {}
    /// A user write of `page` is a few writes away: a hint to bring the per-page state
    /// [`Self::user_stream`] will read into the cache. Asked only of a scheme whose
    /// [`Self::prefetches_pages`] is true; no effect on results.
    fn prefetch_page(&self, _page: u32) {}
    /// Whether [`Self::prefetch_page`] does anything, read once when the placement is built:
    /// the write loop asks nothing of the others (an empty call per user write was 1.0–1.3% of
    /// the instructions of DAC's, MultiQueue's, SFR's and FK's bench rows).
    fn prefetches_pages(&self) -> bool {
        false
    }
    /// The destage clock's conventions the scheme chooses.
    fn age_clock(&self) -> AgeClock {
        AgeClock::default()
    }
    /// Reorders a gathered batch before it is routed; `streams` as they are now.
    fn arrange(
        &mut self,
        _batch: &mut [Gathered],
        _streams: &[Stream],
        _pps: u32,
        _rng: &mut SimRng,
    ) {
    }
    /// The sealed segment to clean next, when the scheme names it itself (a scan of its own
    /// list, as 2R-FIFO's); `None` leaves the choice to [`Self::group_to_clean`]. Asked before
    /// each victim, only of a scheme built with groups ([`Built::groups`]).
    fn segment_to_clean(&mut self, _groups: &Groups<'_>) -> Option<u32> {
        None
    }
    /// The group whose victim policy chooses the next victim: one with a sealed segment. Asked
    /// before each victim (after [`Self::segment_to_clean`]), only of a scheme built with
    /// groups ([`Built::groups`]).
    fn group_to_clean(&mut self, _groups: &Groups<'_>) -> usize {
        0
    }
    /// The scheme's own record of the run, if it keeps one (the result's `scheme_log`).
    fn log(&self) -> Vec<crate::metrics::SchemeRow> {
        Vec::new()
    }
}

/// The groups of a scheme built with [`Built::groups`], as the cleaner shows them to it before
/// each victim.
pub struct Groups<'a> {
    /// Segments owned (open or sealed) per group.
    pub(crate) owned: &'a [u32],
    /// The group of each segment.
    pub(crate) group: &'a [u16],
    /// Each group's victim policy.
    pub(crate) policies: &'a [Policy],
    /// The streams, stream g filling group g.
    pub(crate) streams: &'a [Stream],
    pub(crate) store: &'a Store,
}

impl Groups<'_> {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.owned.len()
    }

    /// Whether there are no groups (never, for a built scheme).
    pub fn is_empty(&self) -> bool {
        self.owned.is_empty()
    }

    /// Segments of group `g`, open or sealed.
    pub fn owned(&self, g: usize) -> u32 {
        self.owned[g]
    }

    /// Sealed segments of group `g`: its candidates.
    pub fn sealed(&self, g: usize) -> u32 {
        let open = (self.streams.iter())
            .filter(|st| usize::from(st.region) == g && st.seg != NONE)
            .count() as u32;
        self.owned[g] - open
    }

    /// Sealed segments of every group at once, `out[g]` for each group g below `out.len()`:
    /// one pass over the streams, where [`Self::sealed`] makes one per group (a scheme that
    /// reads every group's count per victim made 13 passes over 13 streams).
    pub fn sealed_each(&self, out: &mut [u32]) {
        let n = out.len().min(self.owned.len());
        out[..n].copy_from_slice(&self.owned[..n]);
        for st in self.streams {
            let g = usize::from(st.region);
            if g < n && st.seg != NONE {
                out[g] -= 1;
            }
        }
    }

    /// The group of segment `seg` (open or sealed).
    pub fn group_of(&self, seg: u32) -> usize {
        usize::from(self.group[seg as usize])
    }

    /// Valid pages of the segment group `g`'s policy would choose next: known for `greedy`
    /// (the fewest of the group) and `fifo` (its oldest), `None` when the group has no sealed
    /// segment or its policy cannot tell without drawing.
    pub fn next_valid(&self, g: usize) -> Option<u32> {
        self.policies[g].next_valid(self.store)
    }

    /// Group `g`'s sealed segments with `valid` valid pages, in no particular order, where its
    /// policy keeps them by valid count (`greedy`); `None` where it does not.
    pub fn with_valid(&self, g: usize, valid: u32) -> Option<&[u32]> {
        self.policies[g].with_valid(valid)
    }

    /// Free segments of the shared pool.
    pub fn free(&self) -> usize {
        self.store.free.len()
    }

    /// The store: each segment's valid count, state, stamps.
    pub fn store(&self) -> &Store {
        self.store
    }
}

/// A placement: its scheme, its streams and its regions.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The scheme.
    pub scheme: Schemes,
    /// The streams, indexed as the scheme answers.
    pub streams: Vec<Stream>,
    /// The regions; one region holding the whole device for every scheme but `regions`.
    pub regions: Vec<Region>,
    /// Segments sealed from each stream since the start of the run.
    pub seals: Vec<u64>,
    /// Whether the scheme reads ages ([`Need::Ages`]), read once here: a user write asks.
    ages: bool,
    /// [`Scheme::one_user_stream`], read once here: a user write asks (a byte, so that the
    /// placement's layout stays as it was without it).
    pub one_user: Option<u8>,
    /// [`Scheme::age_clock`], read once here.
    pub clock: AgeClock,
    /// [`Scheme::prefetches_pages`], read once here: the prefetching of a coming user write
    /// asks.
    pub prefetch_pages: bool,
    /// Whether the regions are groups ([`Built::groups`]): they share the free pool and the
    /// scheme chooses which is cleaned.
    pub groups: bool,
    /// Free segments the groups keep out of use in the pool they share ([`Built::keeping`]).
    pub kept: u32,
    /// The victim policy of each region where it is not the run's (empty: the run's in all).
    pub policies: Vec<Option<PolicySpec>>,
}

/// What a placement is built on.
#[derive(Clone, Copy, Debug)]
pub struct Build<'a> {
    /// Segments of the device.
    pub segments: u32,
    /// Pages per segment.
    pub pps: u32,
    /// The workload's classes: pages and write share of each.
    pub classes: &'a [ClassShare],
    /// Free segments the trigger keeps (in each region).
    pub min_free: u32,
    /// A trace workload's page writes, in replay order (for the future-knowledge oracle).
    pub trace: Option<&'a [u32]>,
    /// The workload's pages ranked by their own exact rates, where it knows them (a Zipf's).
    pub ranked: Option<RateRank<'a>>,
}

/// What a workload tells of its pages ahead: a trace's page writes in replay order, and its
/// pages ranked by their own exact rates where it knows them ([`Build::trace`], [`Build::ranked`]).
pub type Known<'a> = (Option<&'a [u32]>, Option<RateRank<'a>>);

/// A scheme as built, with its streams and regions.
#[derive(Clone, Debug)]
pub struct Built<S> {
    /// The scheme.
    pub scheme: S,
    /// Its streams, indexed as it answers.
    pub streams: Vec<Stream>,
    /// Its regions.
    pub regions: Vec<Region>,
    /// Its sort buffer of user writes, if it has one.
    pub buffer: Option<sort_buffer::SortBuffer>,
    /// The victim policy of each region where it is not the run's (empty: the run's in all).
    pub policies: Vec<Option<PolicySpec>>,
    /// Whether the regions are groups sharing the free pool ([`Self::groups`]).
    pub groups: bool,
    /// Free segments the groups keep out of use in their pool ([`Self::keeping`]).
    pub kept: u32,
}

impl<S> Built<S> {
    /// `scheme` with one stream per region, user and GC writes alike, each region of its quota
    /// in `quotas` (stream `r` in region `r`).
    pub fn per_region(scheme: S, quotas: Vec<u32>) -> Self {
        Built {
            scheme,
            streams: (0..quotas.len())
                .map(|r| Stream::closed(true, r as u16))
                .collect(),
            regions: quotas
                .into_iter()
                .map(|quota| Region {
                    quota,
                    gc_streams: 1,
                })
                .collect(),
            buffer: None,
            policies: Vec::new(),
            groups: false,
            kept: 0,
        }
    }

    /// `scheme` with one stream per entry of `user` (true: a user stream) in one region holding
    /// the whole device, `gc_streams` of whose streams take relocated pages.
    pub fn whole(scheme: S, user: Vec<bool>, gc_streams: u32, b: &Build<'_>) -> Self {
        Built {
            scheme,
            streams: user.into_iter().map(|u| Stream::closed(u, 0)).collect(),
            regions: vec![Region {
                quota: b.segments,
                gc_streams,
            }],
            buffer: None,
            policies: Vec::new(),
            groups: false,
            kept: 0,
        }
    }

    /// `scheme` with groups: one stream per entry of `user` (true: it takes user writes; every
    /// stream may take relocated pages), stream g filling group g. The groups share the free
    /// pool, so that the trigger fires on the pool as in a single log; group g's sealed
    /// segments are the candidates of its own instance of `policies[g]` (`None`: the run's
    /// policy), and the scheme names the group each victim comes from
    /// ([`Scheme::group_to_clean`]) or the victim itself ([`Scheme::segment_to_clean`]). The
    /// scheme's [`Declare::reserve`] is then `(groups − 1, 1)`: one free segment kept per GC
    /// stream beyond the first, in the one pool, unless it keeps another count ([`Self::keeping`]).
    pub fn groups(
        scheme: S,
        user: Vec<bool>,
        policies: Vec<Option<PolicySpec>>,
        b: &Build<'_>,
    ) -> Self {
        assert_eq!(user.len(), policies.len(), "one policy per group");
        let groups = user.len();
        let region = Region {
            quota: b.segments,
            gc_streams: 1,
        };
        Built {
            scheme,
            regions: vec![region; user.len()],
            streams: (user.into_iter().enumerate())
                .map(|(g, u)| Stream::closed(u, g as u16))
                .collect(),
            buffer: None,
            policies,
            groups: true,
            kept: (groups - 1) as u32,
        }
    }

    /// The scheme apart from the rest of what was built.
    pub fn parts(self) -> (S, Built<()>) {
        let rest = Built {
            scheme: (),
            streams: self.streams,
            regions: self.regions,
            buffer: self.buffer,
            policies: self.policies,
            groups: self.groups,
            kept: self.kept,
        };
        (self.scheme, rest)
    }

    /// The groups keeping `segments` free segments out of use rather than one per GC stream
    /// beyond the first: 0 for a scheme whose simulator compacts each victim in place and so
    /// never needs a free segment to relocate into (SSD-iq's `SSD::compactUntilFreeBlock`).
    /// With none kept, a GC stream that overflows takes the segment its victim freed, and when
    /// the pool is empty mid-cycle, another group's open segment (`open_gc`). The scheme's
    /// [`Declare::reserve`] must say the same.
    #[must_use]
    pub fn keeping(mut self, segments: u32) -> Self {
        debug_assert!(self.groups, "only groups choose their reserve");
        self.kept = segments;
        self
    }
}

/// What a placement declares in its own file, and how it is built from its parameters.
pub trait Declare: Scheme + Sized {
    /// Its parsed parameters (`()` for none).
    type Params: Clone + fmt::Debug + PartialEq;
    /// Its name, parameters, source and needs.
    const INFO: Info;
    /// Whether pages of several sizes may go through it: its streams give pages their slots as
    /// they arrive, one after another.
    const SIZES: bool = false;
    /// Its parameters from a spec string whose keys are already checked against [`Self::INFO`].
    fn parse(args: &Args<'_>) -> Result<Self::Params>;
    /// Its canonical spec string, which names runs and results: it must not change.
    fn show(params: &Self::Params, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Its open streams for a workload of `classes` classes.
    fn streams(params: &Self::Params, classes: u32) -> u32;
    /// Segments it keeps empty beyond its open streams: a reserve of one per GC stream beyond
    /// the first (so that relocating one victim never runs short, DESIGN "Placement schemes"),
    /// and the number of regions, each of which keeps the trigger's free segments.
    fn reserve(_params: &Self::Params, _classes: u32) -> (u64, u64) {
        (0, 1)
    }
    /// The scheme, its streams and its regions.
    fn build(params: &Self::Params, build: &Build<'_>) -> Result<Built<Self>>;
    /// Where its update frequencies come from, if it reads them.
    fn freq(_params: &Self::Params) -> Option<FreqSource> {
        None
    }
    /// Bytes it keeps per logical page (a level, a last-write time …), for the memory check
    /// before a run allocates anything.
    fn page_bytes(_params: &Self::Params) -> u64 {
        0
    }
}

/// Writes the registry: [`PlacementSpec`] (a parsed `--placement`), [`Schemes`] (the schemes,
/// dispatched statically: one predictable branch per call) and [`PLACEMENTS`].
macro_rules! registry {
    ($($v:ident($m:ident::$t:ident),)*) => {
        $(pub mod $m;)*
        pub mod outside;

        /// Placement scheme (`--placement`): a registered placement and its parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub enum PlacementSpec {
            $(#[doc = concat!("See [`", stringify!($m::$t), "`].")] $v(<$m::$t as Declare>::Params),)*
            /// A placement written outside the engine, named `MODULE:CLASS[:…]` ([`crate::outside`]).
            Outside(crate::outside::OutsideSpec),
        }

        /// Every scheme, dispatched statically; each boxed, so that the placement stays a few
        /// words beside the run's other hot state whatever a scheme keeps.
        #[derive(Clone, Debug)]
        pub enum Schemes {
            $(#[doc = concat!("See [`", stringify!($m::$t), "`].")] $v(Box<$m::$t>),)*
            /// See [`outside::OutsideScheme`].
            Outside(Box<outside::OutsideScheme>),
        }

        /// Every placement's declaration, in registration order.
        pub const PLACEMENTS: &[&Info] = &[$(&<$m::$t as Declare>::INFO,)*];

        /// The names of the placements pages of several sizes may go through.
        pub fn admitting_sizes() -> Vec<&'static str> {
            let mut names = Vec::new();
            $(if <$m::$t as Declare>::SIZES {
                names.push(<$m::$t as Declare>::INFO.name);
            })*
            names
        }

        impl PlacementSpec {
            /// What the placement declares of itself.
            pub fn info(&self) -> &'static Info {
                match self {
                    $(PlacementSpec::$v(_) => &<$m::$t as Declare>::INFO,)*
                    PlacementSpec::Outside(_) => &outside::INFO,
                }
            }

            /// Open streams for a workload of `classes` classes.
            pub fn streams(&self, classes: u32) -> u32 {
                match self {
                    $(PlacementSpec::$v(p) => <$m::$t as Declare>::streams(p, classes),)*
                    PlacementSpec::Outside(o) => outside::streams(o.factory.shape()),
                }
            }

            /// The GC-stream reserve and the regions (see [`Declare::reserve`]).
            pub fn reserve(&self, classes: u32) -> (u64, u64) {
                match self {
                    $(PlacementSpec::$v(p) => <$m::$t as Declare>::reserve(p, classes),)*
                    PlacementSpec::Outside(o) => (u64::from(o.factory.shape().gc_streams.max(1) - 1), 1),
                }
            }

            /// Whether pages of several sizes may go through the placement.
            pub fn admits_sizes(&self) -> bool {
                match self {
                    $(PlacementSpec::$v(_) => <$m::$t as Declare>::SIZES,)*
                    PlacementSpec::Outside(_) => false,
                }
            }

            /// Bytes the placement keeps per logical page.
            pub fn page_bytes(&self) -> u64 {
                match self {
                    $(PlacementSpec::$v(p) => <$m::$t as Declare>::page_bytes(p),)*
                    PlacementSpec::Outside(_) => 0,
                }
            }

            /// Where the placement's update frequencies come from, if it reads them.
            pub fn freq(&self) -> Option<FreqSource> {
                match self {
                    $(PlacementSpec::$v(p) => <$m::$t as Declare>::freq(p),)*
                    PlacementSpec::Outside(_) => None,
                }
            }
        }

        impl FromStr for PlacementSpec {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                if crate::outside::names_outside(s, |n| PLACEMENTS.iter().any(|i| i.answers(n))) {
                    return Ok(PlacementSpec::Outside(crate::outside::resolve(Family::Placement, s)?));
                }
                let args = Args::parse("placement", s)?;
                $(
                    if <$m::$t as Declare>::INFO.answers(args.name) {
                        args.check(&<$m::$t as Declare>::INFO)?;
                        return Ok(PlacementSpec::$v(<$m::$t as Declare>::parse(&args)?));
                    }
                )*
                Err(args.bad(&usages(PLACEMENTS.iter().copied())))
            }
        }

        impl fmt::Display for PlacementSpec {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(PlacementSpec::$v(p) => <$m::$t as Declare>::show(p, f),)*
                    PlacementSpec::Outside(o) => f.write_str(&o.text),
                }
            }
        }

        impl Placement {
            /// The placement of `spec` on `segments` segments of `pps` pages, for a workload
            /// whose classes have `classes` pages and write shares. `min_free` is the number of
            /// free segments the trigger keeps (in each region); `trace`, a trace workload's page
            /// writes; `ranked`, the workload's pages ranked by their own rates where it knows
            /// them. Beside it, the sort buffer its user writes wait in, if it has one (the
            /// run's admission owns it).
            pub fn new(
                spec: &PlacementSpec,
                (segments, pps): (u32, u32),
                classes: &[ClassShare],
                min_free: u32,
                (trace, ranked): Known<'_>,
            ) -> Result<(Self, Option<sort_buffer::SortBuffer>)> {
                let b = Build { segments, pps, classes, min_free, trace, ranked };
                let (scheme, built) = match spec {
                    $(PlacementSpec::$v(p) => {
                        let (scheme, rest) = <$m::$t as Declare>::build(p, &b)?.parts();
                        (Schemes::$v(Box::new(scheme)), rest)
                    })*
                    PlacementSpec::Outside(o) => {
                        let (scheme, rest) = outside::build(o, &b)?.parts();
                        (Schemes::Outside(Box::new(scheme)), rest)
                    }
                };
                let placement = Placement {
                    ages: scheme.info().needs(Need::Ages),
                    prefetch_pages: scheme.prefetches_pages(),
                    one_user: scheme.one_user_stream().and_then(|s| u8::try_from(s).ok()),
                    clock: scheme.age_clock(),
                    scheme,
                    seals: vec![0; built.streams.len()],
                    streams: built.streams,
                    regions: built.regions,
                    groups: built.groups,
                    kept: built.kept,
                    policies: built.policies,
                };
                Ok((placement, built.buffer))
            }
        }

        impl Schemes {
            /// What the scheme declares of itself.
            pub fn info(&self) -> &'static Info {
                match self {
                    $(Schemes::$v(_) => &<$m::$t as Declare>::INFO,)*
                    Schemes::Outside(_) => &outside::INFO,
                }
            }
        }

        impl Scheme for Schemes {
            #[inline]
            fn user_stream(&mut self, write: &Write, age: u64, rng: &mut SimRng) -> usize {
                match self {
                    $(Schemes::$v(s) => s.user_stream(write, age, rng),)*
                    Schemes::Outside(s) => s.user_stream(write, age, rng),
                }
            }
            fn one_user_stream(&self) -> Option<usize> {
                match self {
                    $(Schemes::$v(s) => s.one_user_stream(),)*
                    Schemes::Outside(s) => s.one_user_stream(),
                }
            }
            #[inline]
            fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
                match self {
                    $(Schemes::$v(s) => s.gc_stream(r),)*
                    Schemes::Outside(s) => s.gc_stream(r),
                }
            }
            #[inline]
            fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
                match self {
                    $(Schemes::$v(s) => s.gc_streams(run, out),)*
                    Schemes::Outside(s) => s.gc_streams(run, out),
                }
            }
            #[inline]
            fn victim_stream(&self, victim: &Victim) -> Option<usize> {
                match self {
                    $(Schemes::$v(s) => s.victim_stream(victim),)*
                    Schemes::Outside(s) => s.victim_stream(victim),
                }
            }
            #[inline]
            fn sealed(&mut self, stream: usize, seg: u32) {
                match self {
                    $(Schemes::$v(s) => s.sealed(stream, seg),)*
                    Schemes::Outside(s) => s.sealed(stream, seg),
                }
            }
            #[inline]
            fn sealed_pages(&mut self, seg: u32, store: &Store) {
                match self {
                    $(Schemes::$v(s) => s.sealed_pages(seg, store),)*
                    Schemes::Outside(s) => s.sealed_pages(seg, store),
                }
            }
            #[inline]
            fn collected(&mut self, victim: &Victim) {
                match self {
                    $(Schemes::$v(s) => s.collected(victim),)*
                    Schemes::Outside(s) => s.collected(victim),
                }
            }
            #[inline]
            fn request(&mut self, request: &Request) {
                match self {
                    $(Schemes::$v(s) => s.request(request),)*
                    Schemes::Outside(s) => s.request(request),
                }
            }
            #[inline]
            fn prefetch_page(&self, page: u32) {
                match self {
                    $(Schemes::$v(s) => s.prefetch_page(page),)*
                    Schemes::Outside(s) => s.prefetch_page(page),
                }
            }
            fn prefetches_pages(&self) -> bool {
                match self {
                    $(Schemes::$v(s) => s.prefetches_pages(),)*
                    Schemes::Outside(s) => s.prefetches_pages(),
                }
            }
            fn age_clock(&self) -> AgeClock {
                match self {
                    $(Schemes::$v(s) => s.age_clock(),)*
                    Schemes::Outside(s) => s.age_clock(),
                }
            }
            #[inline]
            fn arrange(
                &mut self,
                batch: &mut [Gathered],
                streams: &[Stream],
                pps: u32,
                rng: &mut SimRng,
            ) {
                match self {
                    $(Schemes::$v(s) => s.arrange(batch, streams, pps, rng),)*
                    Schemes::Outside(s) => s.arrange(batch, streams, pps, rng),
                }
            }
            fn segment_to_clean(&mut self, groups: &Groups<'_>) -> Option<u32> {
                match self {
                    $(Schemes::$v(s) => s.segment_to_clean(groups),)*
                    Schemes::Outside(s) => s.segment_to_clean(groups),
                }
            }
            fn group_to_clean(&mut self, groups: &Groups<'_>) -> usize {
                match self {
                    $(Schemes::$v(s) => s.group_to_clean(groups),)*
                    Schemes::Outside(s) => s.group_to_clean(groups),
                }
            }
            fn log(&self) -> Vec<crate::metrics::SchemeRow> {
                match self {
                    $(Schemes::$v(s) => s.log(),)*
                    Schemes::Outside(s) => s.log(),
                }
            }
        }
    };
}

impl Schemes {
    /// For a placement written outside the engine, the user writes it classifies at once where
    /// the run loop draws them ahead ([`outside::OutsideScheme::classify_ahead`]).
    pub fn batch(&self) -> Option<usize> {
        match self {
            Schemes::Outside(s) => Some(s.batch()),
            _ => None,
        }
    }

    /// Classifies the user writes of `pages`, drawn ahead (a placement written outside the
    /// engine; nothing for the others).
    pub fn classify_ahead(&mut self, pages: &[u32], rng: &mut SimRng) {
        if let Schemes::Outside(s) = self {
            s.classify_ahead(pages, rng);
        }
    }

    /// What a placement written outside the engine raised or returned wrongly, taken once.
    pub fn take_failure(&mut self) -> Option<Error> {
        match self {
            Schemes::Outside(s) => s.take_failure(),
            _ => None,
        }
    }
}

impl PlacementSpec {
    /// Whether the placement needs the workload's classes.
    pub fn needs_classes(&self) -> bool {
        self.info().needs(Need::Classes)
    }
}

impl Placement {
    /// Whether the scheme routes pages by their age on the destage clock (which then keeps a
    /// destage number per segment).
    #[inline]
    pub fn needs_ages(&self) -> bool {
        self.ages
    }

    /// Whether relocation needs each page's class (kept per page, from its last user write).
    pub fn needs_page_class(&self) -> bool {
        self.scheme.info().needs(Need::PageClass)
    }

    /// Free segments region `r` keeps for relocation: one per GC stream beyond the first.
    #[inline]
    pub fn reserve(&self, r: usize) -> usize {
        if self.groups {
            // Groups share the pool: one kept per GC stream beyond the first in all, unless
            // the scheme keeps another count (`Built::keeping`).
            return self.kept as usize;
        }
        self.regions[r].gc_streams.saturating_sub(1) as usize
    }

    /// The GC streams of relocated `pages`, all of `victim` (of age `age` where the scheme
    /// reads ages), into `out`: as a run where the scheme can, else page by page, each page
    /// with its `class` where classes are kept per page.
    pub fn route(
        &mut self,
        (pages, victim, age): (&[Gathered], &Victim, u64),
        class: &[u16],
        rng: &mut SimRng,
        out: &mut Vec<u32>,
    ) {
        if pages.len() > 1 {
            let run = RelocationRun {
                victim,
                age,
                pages,
                rng,
            };
            if self.scheme.gc_streams(run, out) {
                return;
            }
        }
        out.clear();
        for g in pages {
            let class = class.get(g.page as usize).copied().unwrap_or(0);
            let page = g.page;
            let r = Relocation {
                page,
                victim,
                class,
                age,
                rng,
            };
            out.push(self.scheme.gc_stream(r) as u32);
        }
    }

    /// Streams that hold an open segment.
    pub fn open_streams(&self) -> usize {
        self.streams.iter().filter(|f| f.seg != NONE).count()
    }

    /// The stream whose open segment is `seg`.
    pub fn stream_of(&self, seg: u32) -> &Stream {
        self.streams
            .iter()
            .find(|st| st.seg == seg)
            .expect("an open segment belongs to a stream")
    }

    /// The age on the destage clock, now `now`, of the copy of a page at `old` that a write
    /// replaces (Stockmeyer §2.3; see `age_sorted` for a copy in an open stream and a first
    /// write, and [`AgeClock`] for the conventions): a sealed segment's age; 0 in a user stream;
    /// a GC stream's, from its contributors' destage numbers. Page-map entries from `base` up name a page
    /// waiting in stream (entry − base) / pages per segment.
    // Once per user write where ages are read; measured: inlined, it pushed its caller out of
    // line.
    #[inline(never)]
    pub fn age_of(&self, store: &Store, base: u32, now: u64, old: u32) -> u64 {
        // The copy of nearly every rewrite is in a sealed segment; the rest, apart.
        if old < base {
            let seg = store.segment_of(old) as usize;
            if store.state[seg] == SegState::Sealed {
                return now.saturating_sub(store.facts.dseq()[seg]);
            }
        }
        self.age_of_unsealed(store, base, now, old)
    }

    /// [`Self::age_of`] a first write, or a copy in an open stream or waiting for a slot.
    #[cold]
    #[inline(never)]
    fn age_of_unsealed(&self, store: &Store, base: u32, now: u64, old: u32) -> u64 {
        if old == NONE {
            return if self.clock.first_zero { 0 } else { now };
        }
        let st = if old >= base {
            &self.streams[((old - base) / store.pps) as usize]
        } else {
            self.stream_of(store.segment_of(old))
        };
        if st.user || self.clock.open_zero {
            0
        } else {
            now.saturating_sub(st.fsc_number(self.clock.fsc_number))
        }
    }

    /// The u_p2 of the segment holding `slot`: its own when sealed; while open, the mean of the
    /// pages written to it so far (0 before the first).
    pub fn up2_of_slot(&self, store: &Store, slot: u32) -> f64 {
        let seg = store.segment_of(slot);
        if store.state[seg as usize] == SegState::Sealed {
            return store.facts.up2()[seg as usize];
        }
        self.stream_of(seg).mean_up2().unwrap_or(0.0)
    }

    /// Checks that the streams hold exactly the open segments.
    pub fn check(&self, store: &Store) -> std::result::Result<(), String> {
        let open = store.state.iter().filter(|s| **s == SegState::Open).count();
        let streams = self.open_streams();
        if open != streams {
            return Err(format!(
                "{open} open segments but {streams} streams hold one"
            ));
        }
        Ok(())
    }
}

string_serde!(PlacementSpec);

// The registry: one line per placement.
/// Desnoyer's closed form as `MiDAS`'s model evaluates it, the `midas` placement's own.
pub mod midas_desnoyer;
/// `MiDAS`'s hot filter, the `midas` placement's own.
pub mod midas_hot;
/// `MiDAS`'s model (UID, MCAM, GCS), the `midas` placement's own.
pub mod midas_model;
/// The `midas` placement's parameters and declaration.
pub mod midas_spec;
/// What the two 2R placements share.
pub mod two_r;

registry! {
    Single(single::Single),
    Double(double::Double),
    Oracle(oracle::Oracle),
    Regions(regions::Regions),
    AgeSorted(age_sorted::AgeSorted),
    SortBuffer(sort_buffer::SortBuffered),
    MultiLog(multi_log::MultiLog),
    Dac(dac::Dac),
    SepBit(sepbit::SepBit),
    MultiQueue(multi_queue::MultiQueue),
    Sfr(sfr::Sfr),
    Fadac(fadac::Fadac),
    Eti(eti::Eti),
    Fk(fk::Fk),
    Warcip(warcip::Warcip),
    Sfs(sfs::Sfs),
    Planes(planes::Planes),
    TwoRGreedy(two_r_greedy::TwoRGreedy),
    TwoRFifo(two_r_fifo::TwoRFifo),
    TwoA(two_a::TwoA),
    Generational(generational::Generational),
    Opt(opt::Opt),
    Deathtime(deathtime::Deathtime),
    Midas(midas::Midas),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Geometry;

    /// Victims numbered 7, 10, 0 and 5: the largest 7 after the first, then 10; the smallest 7,
    /// then 0 (a victim numbered 0 counts); 0 before any.
    #[test]
    fn an_fsc_segment_numbered_from_its_contributors() {
        for (rule, first, all) in [(FscNumber::Max, 7, 10), (FscNumber::Min, 7, 0)] {
            let mut st = Stream::closed(false, 0);
            assert_eq!(st.fsc_number(rule), 0, "{rule}");
            st.contribute(rule.key(7));
            assert_eq!(st.fsc_number(rule), first, "{rule}");
            for d in [10, 0, 5] {
                st.contribute(rule.key(d));
            }
            assert_eq!(st.fsc_number(rule), all, "{rule}");
        }
    }

    /// The ages the destage clock gives, counter 9: a first write 9 (`first_age=oldest`) or 0;
    /// a copy in the open destage stream 0; a copy in the open FSC stream, whose contributors
    /// are numbered 5 and 2, 9 − 5 = 4 (`max`), 9 − 2 = 7 (`min`), or 0 (`open_age=zero`); a
    /// copy in a sealed segment numbered 3, 6 in every case.
    #[test]
    fn ages_of_first_writes_and_open_streams() {
        let g = Geometry {
            segments: 8,
            pages_per_segment: 4,
            logical_pages: 8,
        };
        for (spec, first, fsc) in [
            ("age-sorted:dtg_exp=0,fsc_exp=0", 9, 4),
            ("age-sorted:dtg_exp=0,fsc_exp=0,fsc_number=min", 9, 7),
            (
                "age-sorted:dtg_exp=0,fsc_exp=0,first_age=zero,open_age=zero",
                0,
                0,
            ),
        ] {
            let mut store = Store::new(&g);
            store.keep_facts(|n| n == crate::spec::Need::DestageNumbers);
            let spec: PlacementSpec = spec.parse().unwrap();
            let (mut p, _) = Placement::new(&spec, (8, 4), &[], 1, (None, None)).unwrap();
            let (user, gc, sealed) = (
                store.open().unwrap(),
                store.open().unwrap(),
                store.open().unwrap(),
            );
            p.streams[0].seg = user;
            p.streams[1].seg = gc;
            let rule = p.clock.fsc_number;
            p.streams[1].contribute(rule.key(5));
            p.streams[1].contribute(rule.key(2));
            store.seal(sealed, 0);
            store.facts.dseq.values[sealed as usize] = 3;
            let base = u32::MAX / 2;
            let age = |slot: u32| p.age_of(&store, base, 9, slot);
            assert_eq!(age(NONE), first, "{spec}");
            assert_eq!(age(user * 4), 0, "{spec}");
            assert_eq!(age(gc * 4 + 1), fsc, "{spec}");
            assert_eq!(age(sealed * 4 + 2), 6, "{spec}");
        }
    }
}
