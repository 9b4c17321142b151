//! Conversion of a text trace to pages, and the compact binary trace file.
//!
//! Binary layout (little endian), written once and replayed at memory speed:
//!
//! ```text
//! b"RCLMTRC1"                      magic, 8 bytes
//! u64 header_len                   length of the JSON header
//! header                           JSON: TraceMeta
//! u32 pages[pages_written]         page ids of the writes, in order
//! u32 request_pages[writes]        pages of each write request (request boundaries)
//! f64 times[writes]                seconds since the first request, if has_times
//! u32 request_volumes[writes]      volume of each write request, if more than one volume
//! u64 trim_at[trim_ranges]         page writes before each trimmed range (discards)
//! u32 trim_first[trim_ranges]      its first page id
//! u32 trim_pages[trim_ranges]      its pages
//! u32 trim_volumes[trim_ranges]    its volume, if more than one volume
//! ```
//!
//! Volumes (devices) are kept apart: with ids kept, each volume's pages lie in a range of their
//! own (`first_page`, `address_pages` of [`VolumeMeta`]); renamed, each (volume, page) has its own
//! id. [`Trace::volume`] takes one volume out, as if converted alone.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::spill::Spill;
use super::{Format, ReadOptions, ReadReport, Stop, TraceReader};
use crate::error::{Error, Result};

pub use super::binary::{
    check_binary, encode_binary, is_binary, parse_binary, read_binary, write_binary, BinaryLayout,
};
pub use super::spill::SPILL_PAGES;
pub use super::volume::write_volumes;

/// Pages one request may cover (2^20: 4 GiB of 4 KiB pages). Real requests are at most a few
/// MiB; a larger one is a damaged length, refused before its pages are stored.
pub const MAX_REQUEST_PAGES: u64 = 1 << 20;

/// Magic bytes of a converted trace.
pub const MAGIC: &[u8; 8] = b"RCLMTRC1";

/// Layout version written: 2 adds the volumes (1 is read as one volume).
pub const VERSION: u32 = 2;

/// Metadata of a converted trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceMeta {
    /// Layout version.
    pub version: u32,
    /// The text file it came from.
    pub source: String,
    /// Its format.
    pub format: String,
    /// Page size [bytes] (1 for a page-id list).
    pub page_size: u64,
    /// Device kept, if one was selected.
    pub device: Option<String>,
    /// Requests kept (reads and writes).
    pub requests: u64,
    /// Read requests (counted, not replayed).
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Page writes (a request covering any part of a page writes that page).
    pub pages_written: u64,
    /// Distinct pages written.
    pub unique_pages: u64,
    /// Address space [pages]: largest page id + 1 (ids kept), or the unique pages (renamed).
    pub address_pages: u64,
    /// Whether page ids were renamed densely in first-write order (Stockmeyer §2.1).
    pub renamed: bool,
    /// Whether per-request times are stored.
    pub has_times: bool,
    /// What the reader skipped or set aside.
    pub report: ReadReportMeta,
    /// The volumes (devices), in first-seen order (layout 1: none listed, one volume).
    #[serde(default)]
    pub volumes: Vec<VolumeMeta>,
    /// Discard (TRIM) requests whose pages the trace writes, stored as ranges of page ids.
    #[serde(default)]
    pub trims: u64,
    /// Ranges of trimmed page ids (one per trim request with ids kept; renamed, runs of ids).
    #[serde(default)]
    pub trim_ranges: u64,
    /// Pages trimmed, over all ranges.
    #[serde(default)]
    pub pages_trimmed: u64,
}

/// One volume (device) of a converted trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolumeMeta {
    /// Its name, as the trace gives it (`hm_0`, a device number; `""` for a format without).
    pub name: String,
    /// First page id of its range (ids kept; 0 when renamed).
    pub first_page: u64,
    /// Pages of its range: its largest page + 1 (ids kept), or its unique pages (renamed).
    pub address_pages: u64,
    /// Requests kept (reads and writes).
    pub requests: u64,
    /// Write requests.
    pub writes: u64,
    /// Page writes.
    pub pages_written: u64,
    /// Distinct pages written.
    pub unique_pages: u64,
    /// Discard requests with pages the volume writes.
    #[serde(default)]
    pub trims: u64,
}

/// [`ReadReport`] as stored in the header.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadReportMeta {
    /// Lines read.
    pub lines: u64,
    /// Requests of other devices.
    pub other_devices: u64,
    /// Lines skipped per reason (`--skip-bad-lines`).
    pub skipped: std::collections::BTreeMap<String, u64>,
    /// Bytes of framing before the first record.
    pub leading_garbage_bytes: u64,
    /// Lines of framing before the first record.
    pub leading_garbage_lines: u64,
    /// NUL padding after the last record.
    pub trailing_padding_bytes: u64,
    /// Header lines (column names) before the first record, skipped.
    #[serde(default)]
    pub header_lines: u64,
    /// Records that are not requests (vSCSI commands other than READ and WRITE).
    #[serde(default)]
    pub non_requests: u64,
    /// Discard (TRIM) requests read.
    #[serde(default)]
    pub trims: u64,
}

impl From<&ReadReport> for ReadReportMeta {
    fn from(r: &ReadReport) -> Self {
        ReadReportMeta {
            lines: r.lines,
            other_devices: r.other_devices,
            skipped: r.skipped.clone(),
            leading_garbage_bytes: r.leading_garbage_bytes,
            leading_garbage_lines: r.leading_garbage_lines,
            trailing_padding_bytes: r.trailing_padding_bytes,
            header_lines: r.header_lines,
            non_requests: r.non_requests,
            trims: r.trims,
        }
    }
}

/// A trace in memory: the page writes and their request boundaries.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Metadata.
    pub meta: TraceMeta,
    /// Page ids written, in order.
    pub pages: Vec<u32>,
    /// Pages per write request.
    pub request_pages: Vec<u32>,
    /// Seconds since the first request, per write request (empty when the format has no times).
    pub times: Vec<f64>,
    /// The volume of each write request, an index into `meta.volumes` (empty: one volume).
    pub request_volumes: Vec<u32>,
    /// Discards: ranges of page ids that hold no data from a point of the write sequence on.
    pub trims: Trims,
}

/// The discards (TRIM) of a trace, as ranges of page ids, each at a point of the page writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trims {
    /// Page writes before each range takes effect (non-decreasing).
    pub at: Vec<u64>,
    /// First page id of each range.
    pub first: Vec<u32>,
    /// Pages of each range (≥ 1).
    pub pages: Vec<u32>,
    /// Volume of each range (empty: one volume).
    pub volumes: Vec<u32>,
}

impl Trims {
    /// Ranges.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Adds a range of `volume` (`None`: one volume), or extends the last one when it is at the
    /// same place, of the same volume, and ends where this one starts: the ranges of a trace
    /// are maximal, whichever way its ids came (renamed in one go or volume by volume).
    pub(super) fn push(&mut self, at: u64, first: u32, pages: u32, volume: Option<u32>) {
        let k = self.at.len();
        if k > 0
            && self.at[k - 1] == at
            && self.volumes.last().copied() == volume
            && self.first[k - 1] + self.pages[k - 1] == first
        {
            self.pages[k - 1] += pages;
            return;
        }
        self.at.push(at);
        self.first.push(first);
        self.pages.push(pages);
        if let Some(v) = volume {
            self.volumes.push(v);
        }
    }
}

/// Conversion options.
#[derive(Clone, Debug)]
pub struct ConvertOptions {
    /// Page size [bytes], ≥ 1 (4096; Stockmeyer's tracks: 32768). Ignored for page-id lists.
    pub page_size: u64,
    /// Rename page ids densely in first-write order.
    pub rename: bool,
    /// Reader options.
    pub read: ReadOptions,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            page_size: 4096,
            rename: false,
            read: ReadOptions::default(),
        }
    }
}

/// Converts a text trace step by step (so a caller can show progress).
pub struct Converter {
    reader: TraceReader,
    format: Format,
    options: ConvertOptions,
    source: String,
    /// New names of (volume, page), densely in first-write order over all volumes.
    rename: HashMap<(u32, u64), u32>,
    /// Per volume, in the reader's order: what it wrote so far.
    volumes: Vec<VolumeTally>,
    pages: Vec<u32>,
    request_pages: Vec<u32>,
    /// The volume of each write request.
    request_volumes: Vec<u32>,
    /// Discards as read, resolved to page ids at the end (a page may be written after it is
    /// trimmed, and only then has its id): (page writes before, volume, first page, pages).
    raw_trims: Vec<(u64, u32, u64, u64)>,
    /// With [`Converter::spilling`]: the arrays so far, written out in pieces to bound memory.
    spill: Option<Spill>,
    /// Discard requests with pages the trace writes (set by `resolve_trims`).
    trim_requests: u64,
    times: Vec<f64>,
    first_time: Option<f64>,
    done: bool,
}

impl Converter {
    /// Opens `path` for conversion.
    pub fn new(path: &Path, format: Format, options: ConvertOptions) -> Result<Self> {
        Self::check(&options)?;
        let reader = TraceReader::new(path, format, options.read.clone())?;
        Ok(Self::with_reader(path, format, options, reader))
    }

    /// Opens `path` for a conversion to the file `out` ([`Converter::finish_to`]) whose arrays
    /// are written, as they grow, to files beside `out` (`OUT.part-*`, removed at the end):
    /// memory holds at most [`SPILL_PAGES`] page writes, the volumes' page counts and, with
    /// `rename`, the names of the pages written.
    pub fn spilling(
        path: &Path,
        format: Format,
        options: ConvertOptions,
        out: &Path,
    ) -> Result<Self> {
        let mut c = Self::new(path, format, options)?;
        c.spill = Some(Spill::create(out)?);
        Ok(c)
    }

    /// A spilling conversion that writes out every `pages` page writes instead of every
    /// [`SPILL_PAGES`] (small pieces, to test the pieces' joins); no effect without spilling.
    #[must_use]
    pub fn spill_every(mut self, pages: usize) -> Self {
        if let Some(s) = &mut self.spill {
            s.every = pages.max(1);
        }
        self
    }

    /// Converts `format` read from `input` (already decoded); errors name `path`.
    pub fn with_input(
        path: &Path,
        format: Format,
        options: ConvertOptions,
        input: Box<dyn std::io::BufRead + Send>,
    ) -> Result<Self> {
        Self::check(&options)?;
        let reader = TraceReader::with_input(path, format, options.read.clone(), input)?;
        Ok(Self::with_reader(path, format, options, reader))
    }

    fn check(options: &ConvertOptions) -> Result<()> {
        if options.page_size == 0 {
            return Err(Error::param(
                "page_size",
                0,
                "a page size in bytes ≥ 1 (4096 for 4 KiB pages)",
            ));
        }
        Ok(())
    }

    fn with_reader(
        path: &Path,
        format: Format,
        options: ConvertOptions,
        reader: TraceReader,
    ) -> Self {
        Converter {
            reader,
            format,
            source: path.display().to_string(),
            options,
            rename: HashMap::new(),
            volumes: Vec::new(),
            pages: Vec::new(),
            request_pages: Vec::new(),
            request_volumes: Vec::new(),
            raw_trims: Vec::new(),
            spill: None,
            trim_requests: 0,
            times: Vec::new(),
            first_time: None,
            done: false,
        }
    }

    fn bad_request(&self, offset: u64, len: u64, expected: String) -> Error {
        Error::Trace {
            path: self.source.clone(),
            line: self.reader.report.lines,
            content: format!("offset {offset} length {len}"),
            expected,
        }
    }

    /// Sets the hook polled while the trace is read and written out ([`Stop`]): when it
    /// returns true the conversion stops with an error naming the file and the line.
    pub fn set_stop(&mut self, stop: Stop) {
        self.reader.set_stop(stop);
    }

    /// Lines read so far.
    pub fn lines(&self) -> u64 {
        self.reader.report.lines
    }

    /// Reads up to `max_requests` requests; returns whether more remain.
    pub fn step(&mut self, max_requests: u64) -> Result<bool> {
        let page_size = if self.format == Format::Pages {
            1
        } else {
            self.options.page_size
        };
        for _ in 0..max_requests {
            let Some(req) = self.reader.next_request()? else {
                self.done = true;
                return Ok(false);
            };
            let t0 = *self.first_time.get_or_insert(req.time.unwrap_or(0.0));
            let v = req.volume as usize;
            if v >= self.volumes.len() {
                self.volumes.resize_with(v + 1, VolumeTally::default);
            }
            self.volumes[v].requests += 1;
            if req.trim {
                let first = req.offset / page_size;
                let last = (req.offset + req.len - 1) / page_size;
                self.raw_trims
                    .push((self.pages_so_far(), req.volume, first, last - first + 1));
                continue;
            }
            if !req.write {
                continue;
            }
            let first = req.offset / page_size;
            let last = (req.offset + req.len - 1) / page_size;
            // Checked before any page is stored, so a damaged length is an error at once and
            // never a run through billions of pages.
            if last - first >= MAX_REQUEST_PAGES {
                return Err(self.bad_request(
                    req.offset,
                    req.len,
                    format!(
                        "a request of at most {MAX_REQUEST_PAGES} pages of {page_size} bytes ({} pages found)",
                        u128::from(last - first) + 1
                    ),
                ));
            }
            if !self.options.rename && last >= u64::from(u32::MAX) {
                return Err(self.bad_request(
                    req.offset,
                    req.len,
                    format!(
                        "page ids below {} (page {last} of {page_size} bytes is out of range; rename page ids or use larger pages)",
                        u32::MAX
                    ),
                ));
            }
            let key = req.volume;
            if self.options.rename {
                for page in first..=last {
                    let next = self.rename.len() as u64;
                    if next >= u64::from(u32::MAX) && !self.rename.contains_key(&(key, page)) {
                        return Err(self.bad_request(
                            req.offset,
                            req.len,
                            format!("at most {} distinct pages", u32::MAX),
                        ));
                    }
                    let next = next as u32;
                    let id = *self.rename.entry((key, page)).or_insert(next);
                    self.volumes[v].unique += u64::from(id == next);
                    self.pages.push(id);
                }
            } else {
                let tally = &mut self.volumes[v];
                for page in first..=last {
                    tally.see(page);
                    self.pages.push(page as u32);
                }
            }
            let tally = &mut self.volumes[v];
            tally.max_page = tally.max_page.max(last);
            tally.pages_written += last - first + 1;
            tally.writes += 1;
            self.request_pages.push((last - first + 1) as u32);
            self.request_volumes.push(req.volume);
            if let Some(t) = req.time {
                let since = t - t0;
                if !since.is_finite() {
                    return Err(self.bad_request(
                        req.offset,
                        req.len,
                        format!(
                            "a time within 1e308 s of the first request's {t0} s ({t} s found)"
                        ),
                    ));
                }
                self.times.push(since);
            }
        }
        if self
            .spill
            .as_ref()
            .is_some_and(|s| self.pages.len() >= s.every)
        {
            self.spill_out()?;
        }
        Ok(true)
    }

    /// The converted trace (reads to the end first), in memory.
    ///
    /// # Panics
    ///
    /// With [`Converter::spilling`], whose arrays are on disk: use [`Converter::finish_to`].
    pub fn finish(mut self) -> Result<Trace> {
        assert!(
            self.spill.is_none(),
            "a spilling conversion finishes to a file"
        );
        let (meta, trims) = self.finish_meta()?;
        if meta.volumes.len() <= 1 {
            self.request_volumes = Vec::new();
        } else {
            self.offset_pages(&meta.volumes);
        }
        let has_times = self.has_times();
        Ok(Trace {
            meta,
            pages: self.pages,
            request_pages: self.request_pages,
            times: if has_times { self.times } else { Vec::new() },
            request_volumes: self.request_volumes,
            trims,
        })
    }

    /// Reads to the end and writes the converted trace to `out`; returns its header. With
    /// [`Converter::spilling`] the arrays go from their pieces on disk to `out` a block at a
    /// time: memory stays bounded whatever the trace's length.
    pub fn finish_to(mut self, out: &Path) -> Result<TraceMeta> {
        if self.spill.is_none() {
            let trace = self.finish()?;
            write_binary(&trace, out)?;
            return Ok(trace.meta);
        }
        let (meta, trims) = self.finish_meta()?;
        self.spill_out()?;
        let has_times = self.has_times();
        let mut spill = self.spill.take().expect("spilling");
        let reader = &mut self.reader;
        spill.assemble(&meta, &trims, has_times, out, &mut || reader.check_stop())?;
        Ok(meta)
    }

    /// Page writes so far (those spilled included).
    fn pages_so_far(&self) -> u64 {
        self.spill.as_ref().map_or(0, |s| s.counts[0]) + self.pages.len() as u64
    }

    /// Whether every write request has its time.
    fn has_times(&self) -> bool {
        let (times, requests) = match &self.spill {
            Some(s) => (s.counts[2], s.counts[1]),
            None => (0, 0),
        };
        let (times, requests) = (
            times + self.times.len() as u64,
            requests + self.request_pages.len() as u64,
        );
        times > 0 && times == requests
    }

    /// Reads to the end; the header and the discards (pages not yet moved to their volumes'
    /// ranges: [`Self::offset_pages`]).
    fn finish_meta(&mut self) -> Result<(TraceMeta, Trims)> {
        while !self.done {
            self.step(1 << 16)?;
        }
        let r = &self.reader.report;
        if r.requests == 0 && r.other_devices == 0 {
            let reasons: Vec<String> = r
                .skipped
                .iter()
                .map(|(reason, n)| format!("{n} lines where {reason} was expected"))
                .collect();
            return Err(Error::NoRecords {
                path: self.source.clone(),
                format: self.format.to_string(),
                lines: r.lines,
                skipped: if reasons.is_empty() {
                    String::new()
                } else {
                    format!(" (skipped as bad: {})", reasons.join("; "))
                },
            });
        }
        let has_times = self.has_times();
        let names = self.reader.volumes().to_vec();
        let (mut volumes, address_pages) = self.place_volumes(&names)?;
        let trims = self.resolve_trims(&mut volumes);
        let unique = if self.options.rename {
            self.rename.len() as u64
        } else {
            self.volumes.iter().map(|v| v.unique).sum()
        };
        let r = &self.reader.report;
        let meta = TraceMeta {
            version: VERSION,
            source: self.source.clone(),
            format: self.format.to_string(),
            page_size: if self.format == Format::Pages {
                1
            } else {
                self.options.page_size
            },
            device: self.options.read.device.clone(),
            requests: r.requests,
            reads: r.reads,
            writes: r.writes,
            pages_written: self.pages_so_far(),
            unique_pages: unique,
            address_pages,
            renamed: self.options.rename,
            has_times,
            report: ReadReportMeta::from(r),
            volumes,
            trims: self.trim_requests,
            trim_ranges: trims.len() as u64,
            pages_trimmed: trims.pages.iter().map(|&n| u64::from(n)).sum(),
        };
        Ok((meta, trims))
    }

    /// Writes the arrays held in memory to the spill files and empties them (capacity kept).
    fn spill_out(&mut self) -> Result<()> {
        let spill = self.spill.as_mut().expect("spilling");
        spill.append(0, self.pages.iter().map(|p| p.to_le_bytes()))?;
        spill.append(1, self.request_pages.iter().map(|p| p.to_le_bytes()))?;
        spill.append(2, self.times.iter().map(|t| t.to_le_bytes()))?;
        spill.append(3, self.request_volumes.iter().map(|v| v.to_le_bytes()))?;
        self.pages.clear();
        self.request_pages.clear();
        self.times.clear();
        self.request_volumes.clear();
        Ok(())
    }

    /// The discards as ranges of page ids, each volume's pages as [`Self::place_volumes`] put
    /// them: ids kept, clipped to what its volume writes; renamed, the ids of the pages the trace
    /// writes, in runs. Pages the trace never writes hold nothing to trim and are left out.
    fn resolve_trims(&mut self, volumes: &mut [VolumeMeta]) -> Trims {
        let mut trims = Trims::default();
        let several = volumes.len() > 1;
        self.trim_requests = 0;
        for &(at, v, first, n) in &self.raw_trims {
            let mut pushed = 0u64;
            let volume = several.then_some(v);
            if self.options.rename {
                let mut run: Option<(u32, u32)> = None;
                for page in first..first.saturating_add(n) {
                    let Some(&id) = self.rename.get(&(v, page)) else {
                        continue;
                    };
                    run = match run {
                        Some((f, k)) if f + k == id => Some((f, k + 1)),
                        Some((f, k)) => {
                            trims.push(at, f, k, volume);
                            pushed += u64::from(k);
                            Some((id, 1))
                        }
                        None => Some((id, 1)),
                    };
                }
                if let Some((f, k)) = run {
                    trims.push(at, f, k, volume);
                    pushed += u64::from(k);
                }
            } else {
                let vol = &volumes[v as usize];
                let end = first.saturating_add(n).min(vol.address_pages);
                if first < end {
                    trims.push(
                        at,
                        (vol.first_page + first) as u32,
                        (end - first) as u32,
                        volume,
                    );
                    pushed += end - first;
                }
            }
            let kept = u64::from(pushed > 0);
            self.trim_requests += kept;
            volumes[v as usize].trims += kept;
        }
        trims
    }

    /// Moves each volume's pages (in memory) to its range ([`Self::place_volumes`]).
    fn offset_pages(&mut self, volumes: &[VolumeMeta]) {
        if volumes.iter().all(|v| v.first_page == 0) {
            return;
        }
        let mut at = 0usize;
        for (&n, &v) in self.request_pages.iter().zip(&self.request_volumes) {
            let first = volumes[v as usize].first_page as u32;
            for p in &mut self.pages[at..at + n as usize] {
                *p += first;
            }
            at += n as usize;
        }
    }

    /// Each volume's place in the one address space of the converted trace: with ids kept,
    /// volume after volume in first-seen order (each as large as its largest page + 1, so no two
    /// volumes share a page); renamed, ids are already apart. Returns the volumes and the
    /// address space; the pages are moved there by [`Self::offset_pages`] (in memory) or as they
    /// are copied from the spill files.
    fn place_volumes(&mut self, names: &[String]) -> Result<(Vec<VolumeMeta>, u64)> {
        let mut volumes = Vec::with_capacity(self.volumes.len());
        let mut next = 0u64;
        for (i, t) in self.volumes.iter().enumerate() {
            let extent = if t.writes == 0 { 0 } else { t.max_page + 1 };
            volumes.push(VolumeMeta {
                name: names.get(i).cloned().unwrap_or_default(),
                first_page: if self.options.rename { 0 } else { next },
                address_pages: if self.options.rename {
                    t.unique
                } else {
                    extent
                },
                requests: t.requests,
                writes: t.writes,
                pages_written: t.pages_written,
                unique_pages: t.unique,
                trims: 0,
            });
            next += extent;
        }
        if self.options.rename {
            return Ok((volumes, self.rename.len() as u64));
        }
        if next > u64::from(u32::MAX) {
            return Err(Error::param(
                "volumes",
                format!("{} volumes of {next} pages in all", volumes.len()),
                format!("at most {} pages over all volumes: rename page ids (`--rename`), keep one volume (`--device`) or write one trace per volume (`--volumes`)", u32::MAX),
            ));
        }
        Ok((volumes, next))
    }
}

/// What one volume wrote during a conversion.
#[derive(Default)]
struct VolumeTally {
    /// Requests (reads and writes) and write requests.
    requests: u64,
    writes: u64,
    pages_written: u64,
    unique: u64,
    max_page: u64,
    /// Pages written so far, one bit per page, in blocks of 2^16 pages allocated when first
    /// touched: memory follows the pages a trace writes, not its largest address.
    seen: Vec<Option<Box<[u64; 1024]>>>,
}

impl VolumeTally {
    /// Notes a write of `page` (ids kept), counting it when new.
    #[inline]
    fn see(&mut self, page: u64) {
        let (block, word, bit) = (
            (page >> 16) as usize,
            ((page >> 6) & 1023) as usize,
            page & 63,
        );
        if block >= self.seen.len() {
            self.seen.resize(block + 1, None);
        }
        let words = self.seen[block].get_or_insert_with(|| Box::new([0; 1024]));
        if words[word] & (1 << bit) == 0 {
            words[word] |= 1 << bit;
            self.unique += 1;
        }
    }
}

/// Distinct ids of `pages`, in memory that follows the list, not its largest id: a bit per id
/// up to the largest when that is at most 4 bytes per page (32 bits), else a sorted copy (4 bytes
/// per page). A hash set would take 10 or more bytes per page.
fn distinct(pages: &[u32], max: u32) -> u64 {
    let ids = u64::from(max) + 1;
    if ids <= 32 * pages.len() as u64 {
        let mut bits = vec![0u64; ids.div_ceil(64) as usize];
        let mut n = 0;
        for &p in pages {
            let (word, bit) = (p as usize >> 6, p & 63);
            n += u64::from(bits[word] >> bit & 1 == 0);
            bits[word] |= 1 << bit;
        }
        return n;
    }
    let mut sorted = pages.to_vec();
    sorted.sort_unstable();
    sorted.chunk_by(|a, b| a == b).count() as u64
}

/// A trace of single-page writes from a list of page ids, ids kept.
pub fn page_list_trace(pages: Vec<u32>, source: &str) -> Trace {
    let max = pages.iter().copied().max().unwrap_or(0);
    let unique = distinct(&pages, max);
    let n = pages.len() as u64;
    Trace {
        meta: TraceMeta {
            version: VERSION,
            source: source.to_string(),
            format: Format::Pages.to_string(),
            page_size: 1,
            device: None,
            requests: n,
            reads: 0,
            writes: n,
            pages_written: n,
            unique_pages: unique,
            address_pages: if pages.is_empty() {
                0
            } else {
                u64::from(max) + 1
            },
            renamed: false,
            has_times: false,
            report: ReadReportMeta {
                lines: n,
                ..ReadReportMeta::default()
            },
            volumes: Vec::new(),
            trims: 0,
            trim_ranges: 0,
            pages_trimmed: 0,
        },
        request_pages: vec![1; pages.len()],
        pages,
        times: Vec::new(),
        request_volumes: Vec::new(),
        trims: Trims::default(),
    }
}

/// Converts a text trace in one call.
pub fn convert(path: &Path, format: Format, options: ConvertOptions) -> Result<Trace> {
    Converter::new(path, format, options)?.finish()
}

pub(super) fn io_err(path: &Path, e: &std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Loads a trace: a converted file as it is, a text file through the reader of `format`.
pub fn load(path: &Path, format: Option<Format>, options: ConvertOptions) -> Result<Trace> {
    // Opened as the reader opens it: a FIFO waiting for its writer stops on a stop request.
    let mut magic = [0u8; 8];
    let starts_with_magic =
        super::open_file(path)?.read_exact(&mut magic).is_ok() && &magic == MAGIC;
    if starts_with_magic {
        return read_binary(path);
    }
    let format = format.ok_or_else(|| {
        Error::param(
            "format",
            format!("none for {}", path.display()),
            "a format for a text trace (msr, spc, fiu, …), or a converted trace",
        )
    })?;
    convert(path, format, options)
}
