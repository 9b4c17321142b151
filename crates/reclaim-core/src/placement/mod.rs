//! Placement: which open segment (stream) each written page goes to. One file per scheme, each
//! citing its source.
//!
//! A placement owns the streams (the open segments being filled) and the regions (segments owned
//! by a class, each with its own quota and cleaning). It answers, for each user write and for
//! each relocated page, which stream the page goes to; it may also arrange a gathered batch of
//! relocated pages before they are routed (Van Houdt's random partial copy). The run loop
//! (`sim`) does the appending, sealing, opening and cleaning, the same for every scheme.
//!
//! Adding a scheme: a file here with a type implementing [`Scheme`], a variant of
//! [`PlacementSpec`] parsed in `config`, and one arm in [`Placement::new`] and in `dispatch!`.

pub mod age_sorted;
pub mod double;
pub mod multi_log;
pub mod oracle;
pub mod regions;
pub mod single;
pub mod sort_buffer;

use crate::config::PlacementSpec;
use crate::error::Result;
use crate::store::NONE;
use crate::workload::{ClassShare, Write};
use crate::SimRng;

/// An open segment being filled, or a stream waiting for one (`seg == NONE`).
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    /// The open segment, or `NONE`.
    pub seg: u32,
    /// Next free offset in `seg`.
    pub next: u32,
    /// Age stamp of the youngest data written to `seg` [user-write clock].
    pub stamp: u64,
    /// Largest destage sequence number among the victims whose pages `seg` received
    /// (Stockmeyer §2.3); used when a GC stream's segment is sealed.
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

/// A live page gathered from a victim, to be rewritten.
#[derive(Clone, Copy, Debug)]
pub struct Gathered {
    /// Logical page.
    pub page: u32,
    /// Index of its victim in the batch.
    pub victim: u32,
}

/// What a scheme decides.
pub trait Scheme {
    /// The stream of a user write; `age` is the age of the copy it replaces on the destage
    /// clock where the placement reads ages ([`Placement::needs_ages`]), else 0.
    fn user_stream(&mut self, write: &Write, age: u64, rng: &mut SimRng) -> usize;
    /// The stream of a relocated page; `class` is the page's class where the placement keeps
    /// classes per page ([`Placement::needs_page_class`]), else 0; `age` is its victim's age on
    /// the destage clock where the placement reads ages, else 0.
    fn gc_stream(
        &mut self,
        page: &Gathered,
        victim: &Victim,
        class: u16,
        age: u64,
        rng: &mut SimRng,
    ) -> usize;
    /// The streams of `n` relocated pages of `victim`, in order, into `out`, when the scheme
    /// routes a victim's pages together with the same result as page by page (`age` as for
    /// [`Self::gc_stream`]); false to be asked page by page.
    fn gc_streams(
        &mut self,
        _victim: &Victim,
        _age: u64,
        _n: usize,
        _out: &mut Vec<u32>,
        _rng: &mut SimRng,
    ) -> bool {
        false
    }
    /// The stream of every relocated page of `victim`, when it does not depend on the page;
    /// `None` makes the cleaner ask [`Self::gc_stream`] page by page.
    fn victim_stream(&self, _victim: &Victim) -> Option<usize> {
        None
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
}

/// Every scheme, dispatched statically (one predictable branch per call).
#[derive(Clone, Debug)]
pub enum Schemes {
    /// See [`single::Single`].
    Single(single::Single),
    /// See [`double::Double`].
    Double(double::Double),
    /// See [`oracle::Oracle`].
    Oracle(oracle::Oracle),
    /// See [`regions::Regions`].
    Regions(regions::Regions),
    /// See [`age_sorted::AgeSorted`].
    AgeSorted(Box<age_sorted::AgeSorted>),
    /// See [`sort_buffer::SortBuffered`].
    SortBuffered(sort_buffer::SortBuffered),
    /// See [`multi_log::MultiLog`].
    MultiLog(Box<multi_log::MultiLog>),
}

macro_rules! dispatch {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            Schemes::Single($s) => $e,
            Schemes::Double($s) => $e,
            Schemes::Oracle($s) => $e,
            Schemes::Regions($s) => $e,
            Schemes::AgeSorted($s) => $e,
            Schemes::SortBuffered($s) => $e,
            Schemes::MultiLog($s) => $e,
        }
    };
}

impl Scheme for Schemes {
    #[inline]
    fn user_stream(&mut self, write: &Write, age: u64, rng: &mut SimRng) -> usize {
        dispatch!(self, s => s.user_stream(write, age, rng))
    }
    #[inline]
    fn gc_stream(
        &mut self,
        page: &Gathered,
        victim: &Victim,
        class: u16,
        age: u64,
        rng: &mut SimRng,
    ) -> usize {
        dispatch!(self, s => s.gc_stream(page, victim, class, age, rng))
    }
    #[inline]
    fn gc_streams(
        &mut self,
        victim: &Victim,
        age: u64,
        n: usize,
        out: &mut Vec<u32>,
        rng: &mut SimRng,
    ) -> bool {
        dispatch!(self, s => s.gc_streams(victim, age, n, out, rng))
    }
    #[inline]
    fn victim_stream(&self, victim: &Victim) -> Option<usize> {
        dispatch!(self, s => s.victim_stream(victim))
    }
    #[inline]
    fn arrange(&mut self, batch: &mut [Gathered], streams: &[Stream], pps: u32, rng: &mut SimRng) {
        dispatch!(self, s => s.arrange(batch, streams, pps, rng));
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
    /// Per stream, the pages waiting for slots, oldest first (`streams = cache`: a stream takes
    /// a segment only when a segment's worth has gathered); empty when pages take their slots as
    /// they are written.
    pub pending: Vec<Vec<u32>>,
    /// Segments sealed from each stream since the start of the run.
    pub seals: Vec<u64>,
    /// The sort buffer of user writes (`sort-buffer`).
    pub buffer: Option<sort_buffer::SortBuffer>,
}

impl Placement {
    /// The placement of `spec` on `segments` segments of `pps` pages, for a workload whose
    /// classes have `classes` pages and write shares.
    /// `min_free` is the number of free segments the trigger keeps (in each region).
    #[allow(clippy::too_many_lines)] // one arm per scheme, each a few lines
    pub fn new(
        spec: &PlacementSpec,
        segments: u32,
        pps: u32,
        classes: &[ClassShare],
        min_free: u32,
    ) -> Result<Self> {
        let whole = |gc_streams| {
            vec![Region {
                quota: segments,
                gc_streams,
            }]
        };
        let mut placement = match spec {
            PlacementSpec::Single => Placement {
                scheme: Schemes::Single(single::Single),
                streams: vec![Stream::closed(true, 0)],
                regions: whole(1),
                pending: Vec::new(),
                seals: Vec::new(),
                buffer: None,
            },
            PlacementSpec::Double { copy } => Placement {
                scheme: Schemes::Double(double::Double::new(*copy)),
                streams: vec![Stream::closed(true, 0), Stream::closed(false, 0)],
                regions: whole(1),
                pending: Vec::new(),
                seals: Vec::new(),
                buffer: None,
            },
            PlacementSpec::Oracle => Placement {
                scheme: Schemes::Oracle(oracle::Oracle),
                streams: (0..classes.len())
                    .map(|_| Stream::closed(true, 0))
                    .collect(),
                regions: whole(classes.len() as u32),
                pending: Vec::new(),
                seals: Vec::new(),
                buffer: None,
            },
            PlacementSpec::AgeSorted(a) => {
                let dtg = age_sorted::DecisionTree::new(
                    a.dtg_exp,
                    a.dtg_sort,
                    a.dtg_decay,
                    a.decay_rule,
                    a.split,
                );
                let fsc = age_sorted::DecisionTree::new(
                    a.fsc_exp,
                    a.fsc_sort,
                    a.fsc_decay,
                    a.decay_rule,
                    a.split,
                );
                let scheme = age_sorted::AgeSorted::new(dtg, fsc);
                let (d, f) = (scheme.destage_streams(), scheme.fsc_streams());
                Placement {
                    scheme: Schemes::AgeSorted(Box::new(scheme)),
                    streams: (0..d)
                        .map(|_| Stream::closed(true, 0))
                        .chain((0..f).map(|_| Stream::closed(false, 0)))
                        .collect(),
                    regions: whole(f as u32),
                    pending: Vec::new(),
                    seals: Vec::new(),
                    buffer: None,
                }
            }
            PlacementSpec::Regions { spare } => {
                let quotas = regions::quotas(spare, segments, pps, classes, min_free)?;
                Placement {
                    scheme: Schemes::Regions(regions::Regions),
                    streams: (0..classes.len())
                        .map(|c| Stream::closed(true, c as u16))
                        .collect(),
                    regions: quotas
                        .into_iter()
                        .map(|quota| Region {
                            quota,
                            gc_streams: 1,
                        })
                        .collect(),
                    pending: Vec::new(),
                    seals: Vec::new(),
                    buffer: None,
                }
            }
            PlacementSpec::MultiLog { logs, freq } => Placement {
                scheme: Schemes::MultiLog(Box::new(multi_log::MultiLog::new(
                    *logs,
                    *freq == crate::config::FreqSource::Exact,
                    classes.iter().map(|c| c.pages).sum(),
                ))),
                streams: (0..*logs).map(|_| Stream::closed(true, 0)).collect(),
                regions: whole(u32::from(*logs)),
                pending: Vec::new(),
                seals: Vec::new(),
                buffer: None,
            },
            PlacementSpec::SortBuffer(b) => Placement {
                scheme: Schemes::SortBuffered(sort_buffer::SortBuffered),
                streams: vec![Stream::closed(true, 0), Stream::closed(false, 0)],
                regions: whole(1),
                pending: Vec::new(),
                seals: Vec::new(),
                buffer: Some(sort_buffer::SortBuffer::new(b, pps)),
            },
        };
        placement.seals = vec![0; placement.streams.len()];
        Ok(placement)
    }

    /// Whether the scheme routes pages by their age on the destage clock (which then keeps a
    /// destage number per segment).
    pub fn needs_ages(&self) -> bool {
        matches!(self.scheme, Schemes::AgeSorted(_))
    }

    /// Whether relocation needs each page's class (kept per page, from its last user write).
    pub fn needs_page_class(&self) -> bool {
        matches!(self.scheme, Schemes::Oracle(_))
    }
}
