//! A trace's read requests: kept in converted traces (layout 3) in trace order among the writes,
//! each at the count of page writes issued before it, its pages as runs of the writes' page ids
//! (the layout and the ids in [`super::convert`]); and the conversion's raw reads before their
//! ids are resolved.

use std::io::Read;

/// The read requests of a trace, each at a point of the page writes, its pages as runs of page
/// ids (see the module's documentation). Per request: `at`, `runs`, `times`, `volumes`; per run:
/// `first`, `pages`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reads {
    /// Page writes issued before each read request (non-decreasing).
    pub at: Vec<u64>,
    /// Runs of each read request (≥ 1); empty when every request is one run.
    pub runs: Vec<u32>,
    /// First page id of each run; [`Reads::UNWRITTEN`] for pages that have no id.
    pub first: Vec<u32>,
    /// Pages of each run (≥ 1).
    pub pages: Vec<u32>,
    /// Seconds since the trace's first request, per read request (empty without times).
    pub times: Vec<f64>,
    /// Volume of each read request, an index into `meta.volumes` (empty: one volume).
    pub volumes: Vec<u32>,
}

impl Reads {
    /// The first id of a run of pages that have no id in the converted trace (never written,
    /// renamed; past their volume's range, ids kept). No page id is `u32::MAX`: ids kept are
    /// below it, and renamed ids number at most `u32::MAX`.
    pub const UNWRITTEN: u32 = u32::MAX;

    /// Read requests.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Runs of read request `k` (requests taken in order: see [`Reads::requests`]).
    #[inline]
    pub fn runs_of(&self, k: usize) -> usize {
        self.runs.get(k).map_or(1, |&n| n as usize)
    }

    /// Each read request's range of runs, in order.
    pub fn requests(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        let mut run = 0;
        (0..self.len()).map(move |k| {
            let r = run..run + self.runs_of(k);
            run = r.end;
            r
        })
    }

    /// Adds a read request: `pages`, each page's id or `None` (no id), made runs of consecutive
    /// ids and of pages without id. A request of no page is not added.
    pub fn push(
        &mut self,
        at: u64,
        time: Option<f64>,
        volume: Option<u32>,
        pages: impl IntoIterator<Item = Option<u32>>,
    ) {
        let before = self.first.len();
        let mut run: Option<(u32, u32)> = None;
        for id in pages {
            let id = id.unwrap_or(Self::UNWRITTEN);
            run = match run {
                Some((f, n)) if f == Self::UNWRITTEN && id == Self::UNWRITTEN => Some((f, n + 1)),
                Some((f, n)) if f != Self::UNWRITTEN && f.checked_add(n) == Some(id) => {
                    Some((f, n + 1))
                }
                Some((f, n)) => {
                    self.first.push(f);
                    self.pages.push(n);
                    Some((id, 1))
                }
                None => Some((id, 1)),
            };
        }
        let Some((f, n)) = run else {
            return;
        };
        self.first.push(f);
        self.pages.push(n);
        let runs = (self.first.len() - before) as u32;
        // The runs per request are stored from the first request of several runs on.
        if runs > 1 || !self.runs.is_empty() {
            self.runs.resize(self.at.len(), 1);
            self.runs.push(runs);
        }
        self.at.push(at);
        if let Some(t) = time {
            self.times.push(t);
        }
        if let Some(v) = volume {
            self.volumes.push(v);
        }
    }

    /// Each run's pages mapped by `id` (`None`: no id), runs formed again; the rest kept.
    #[must_use]
    pub fn map_pages(&self, mut id: impl FnMut(u32) -> Option<u32>) -> Reads {
        let mut out = Reads::default();
        for (k, runs) in self.requests().enumerate() {
            let pages = runs.flat_map(|r| {
                let (f, n) = (self.first[r], self.pages[r]);
                (0..n).map(move |i| (f != Self::UNWRITTEN).then(|| f + i))
            });
            out.push(
                self.at[k],
                self.times.get(k).copied(),
                self.volumes.get(k).copied(),
                pages.map(|p| p.and_then(&mut id)),
            );
        }
        out
    }

    /// Pages over all runs, and those without an id.
    pub fn page_counts(&self) -> (u64, u64) {
        let mut all = 0;
        let mut unwritten = 0;
        for (&f, &n) in self.first.iter().zip(&self.pages) {
            all += u64::from(n);
            if f == Self::UNWRITTEN {
                unwritten += u64::from(n);
            }
        }
        (all, unwritten)
    }
}

/// The read requests of a conversion as read: page writes before each, its volume, its first
/// page (in its volume's addresses) and pages, and its time (NaN without). Spilling, they go to
/// disk as records of 32 bytes in this order.
#[derive(Default)]
pub(super) struct RawReads {
    pub(super) at: Vec<u64>,
    pub(super) volumes: Vec<u32>,
    pub(super) first: Vec<u64>,
    pub(super) pages: Vec<u32>,
    pub(super) times: Vec<f64>,
    /// Reads without a time, over the whole conversion (spilled ones included).
    pub(super) untimed: u64,
}

impl RawReads {
    pub(super) fn push(&mut self, at: u64, volume: u32, first: u64, pages: u32, time: Option<f64>) {
        self.at.push(at);
        self.volumes.push(volume);
        self.first.push(first);
        self.pages.push(pages);
        self.times.push(time.unwrap_or(f64::NAN));
        self.untimed += u64::from(time.is_none());
    }

    /// Empties the arrays (capacity kept); `untimed` counts on.
    pub(super) fn clear(&mut self) {
        self.at.clear();
        self.volumes.clear();
        self.first.clear();
        self.pages.clear();
        self.times.clear();
    }

    /// Each read as a record of 32 bytes (see [`RawReads::read_record`]).
    pub(super) fn records(&self) -> impl Iterator<Item = [u8; 32]> + '_ {
        (0..self.at.len()).map(|k| {
            let mut b = [0u8; 32];
            b[..8].copy_from_slice(&self.at[k].to_le_bytes());
            b[8..12].copy_from_slice(&self.volumes[k].to_le_bytes());
            b[12..20].copy_from_slice(&self.first[k].to_le_bytes());
            b[20..24].copy_from_slice(&self.pages[k].to_le_bytes());
            b[24..].copy_from_slice(&self.times[k].to_le_bytes());
            b
        })
    }

    /// One record of [`RawReads::records`]: (at, volume, first, pages, time).
    pub(super) fn read_record(r: &mut impl Read) -> std::io::Result<(u64, u32, u64, u32, f64)> {
        let mut b = [0u8; 32];
        r.read_exact(&mut b)?;
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        Ok((
            u64_at(0),
            u32_at(8),
            u64_at(12),
            u32_at(20),
            f64::from_bits(u64_at(24)),
        ))
    }
}

/// What the header says of the reads: requests, runs, pages, pages without id, whether timed.
#[derive(Default)]
pub(super) struct ReadCounts {
    pub(super) reads: u64,
    pub(super) runs: u64,
    pub(super) pages: u64,
    pub(super) unwritten: u64,
    pub(super) timed: bool,
}

impl ReadCounts {
    pub(super) fn of(reads: &Reads) -> Self {
        let mut c = ReadCounts::default();
        c.add(reads);
        c.timed = !reads.times.is_empty();
        c
    }

    pub(super) fn add(&mut self, reads: &Reads) {
        let (pages, unwritten) = reads.page_counts();
        self.reads += reads.len() as u64;
        self.runs += reads.first.len() as u64;
        self.pages += pages;
        self.unwritten += unwritten;
    }
}
