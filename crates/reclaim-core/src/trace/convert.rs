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
//! u64 read_at[reads]               page writes before each read request        (layout 3 on)
//! u32 read_runs[reads]             runs of page ids of each read, if `read_runs` > `reads`
//! u32 read_first[read_runs]        first page id of each run (UNWRITTEN: pages without an id)
//! u32 read_pages[read_runs]        pages of each run
//! f64 read_times[reads]            seconds since the first request, if `read_times`
//! u32 read_volumes[reads]          volume of each read request, if more than one volume
//! ```
//!
//! Reads (layout 3) are kept in trace order among the writes: each read request is at the count
//! of page writes issued before it, and its pages are the ids the writes use for the same
//! addresses. A read's pages are stored as runs of consecutive ids (one run, as a rule; a read
//! whose pages were renamed apart, or that runs past its volume's range, has several). A page
//! that has no id in the converted trace is read as a run whose first id is [`Reads::UNWRITTEN`]:
//! with ids kept, a page past its volume's range (its largest written page + 1); renamed, a page
//! the trace never writes. A page inside the range that the trace never writes keeps its id: the
//! replay's store knows it holds nothing there. Files of layouts 1 and 2 load with no reads kept
//! (their `reads` were counted only).
//!
//! Volumes (devices) are kept apart: with ids kept, each volume's pages lie in a range of their
//! own (`first_page`, `address_pages` of [`VolumeMeta`]); renamed, each (volume, page) has its own
//! id. [`Trace::volume`] takes one volume out, as if converted alone.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::reads::{RawReads, ReadCounts};
use super::spill::Spill;
use super::tally::{distinct, VolumeTally};
use super::{Format, ReadOptions, ReadReport, Stop, TraceReader};
use crate::error::{Error, Result};

pub use super::binary::{
    check_binary, encode_binary, is_binary, parse_binary, read_binary, write_binary, BinaryLayout,
};
pub use super::reads::Reads;
pub use super::spill::SPILL_PAGES;
pub use super::trims::Trims;
pub use super::volume::write_volumes;

/// Pages one request may cover (2^20: 4 GiB of 4 KiB pages). Real requests are at most a few
/// MiB; a larger one is a damaged length, refused before its pages are stored.
pub const MAX_REQUEST_PAGES: u64 = 1 << 20;

/// Magic bytes of a converted trace.
pub const MAGIC: &[u8; 8] = b"RCLMTRC1";

/// Layout version written: 2 adds the volumes (1 is read as one volume), 3 the reads (1 and 2
/// are read with none kept).
pub const VERSION: u32 = 3;

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
    /// Read requests (layout 3: every one kept in [`Trace::reads`]; before: counted only).
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
    /// Runs of page ids over all read requests (layout 3; equal to `reads` when each read is
    /// one run, and then no `read_runs` array is stored).
    #[serde(default)]
    pub read_runs: u64,
    /// Pages read, over all read requests (those without an id included).
    #[serde(default)]
    pub pages_read: u64,
    /// Pages read that have no id ([`Reads::UNWRITTEN`]).
    #[serde(default)]
    pub pages_read_unwritten: u64,
    /// Whether per-read times are stored (the format has times).
    #[serde(default)]
    pub read_times: bool,
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
    /// Read requests, in trace order among the writes (empty before layout 3).
    pub reads: Reads,
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
    /// Reads as read, resolved to page ids at the end as the discards are.
    raw_reads: RawReads,
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
    /// memory holds at most [`SPILL_PAGES`] page writes and as many read requests, the volumes'
    /// page counts and, with `rename`, the names of the pages written.
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
            raw_reads: RawReads::default(),
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
            if !req.write {
                let time = match req.time {
                    Some(t) => Some(self.since_first(t, t0, &req)?),
                    None => None,
                };
                let pages = (last - first + 1) as u32;
                self.raw_reads
                    .push(self.pages_so_far(), req.volume, first, pages, time);
                continue;
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
                let since = self.since_first(t, t0, &req)?;
                self.times.push(since);
            }
        }
        if self
            .spill
            .as_ref()
            .is_some_and(|s| self.pages.len().max(self.raw_reads.at.len()) >= s.every)
        {
            self.spill_out()?;
        }
        Ok(true)
    }

    /// Seconds from the first request's time `t0` to `t`, finite.
    fn since_first(&self, t: f64, t0: f64, req: &super::Owned) -> Result<f64> {
        let since = t - t0;
        if !since.is_finite() {
            return Err(self.bad_request(
                req.offset,
                req.len,
                format!("a time within 1e308 s of the first request's {t0} s ({t} s found)"),
            ));
        }
        Ok(since)
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
        let (meta, trims, reads) = self.finish_meta()?;
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
            reads,
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
        let (meta, trims, _) = self.finish_meta()?;
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

    /// Reads to the end; the header, the discards and the reads (pages not yet moved to their
    /// volumes' ranges: [`Self::offset_pages`]). Spilling, every array is then on disk, the
    /// reads resolved there too, and the reads returned are none.
    fn finish_meta(&mut self) -> Result<(TraceMeta, Trims, Reads)> {
        while !self.done {
            self.step(1 << 16)?;
        }
        if self.spill.is_some() {
            self.spill_out()?;
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
        let (reads, counts) = if self.spill.is_some() {
            (Reads::default(), self.resolve_spilled_reads(&volumes)?)
        } else {
            let reads = self.resolve_reads(&volumes);
            let counts = ReadCounts::of(&reads);
            (reads, counts)
        };
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
            read_runs: counts.runs,
            pages_read: counts.pages,
            pages_read_unwritten: counts.unwritten,
            read_times: counts.timed,
        };
        Ok((meta, trims, reads))
    }

    /// Writes the arrays held in memory to the spill files and empties them (capacity kept).
    fn spill_out(&mut self) -> Result<()> {
        let spill = self.spill.as_mut().expect("spilling");
        spill.append(0, self.pages.iter().map(|p| p.to_le_bytes()))?;
        spill.append(1, self.request_pages.iter().map(|p| p.to_le_bytes()))?;
        spill.append(2, self.times.iter().map(|t| t.to_le_bytes()))?;
        spill.append(3, self.request_volumes.iter().map(|v| v.to_le_bytes()))?;
        spill.append(Spill::RAW_READS, self.raw_reads.records())?;
        self.raw_reads.clear();
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

    /// The reads as runs of page ids, each volume's pages as [`Self::place_volumes`] put them
    /// ([`Self::read_ids`]). The raw reads are freed at the end.
    fn resolve_reads(&mut self, volumes: &[VolumeMeta]) -> Reads {
        let raw = std::mem::take(&mut self.raw_reads);
        let several = volumes.len() > 1;
        let timed = raw.untimed == 0;
        let mut reads = Reads::default();
        for k in 0..raw.at.len() {
            let v = raw.volumes[k];
            reads.push(
                raw.at[k],
                timed.then_some(raw.times[k]),
                several.then_some(v),
                self.read_ids(volumes, v, raw.first[k], raw.pages[k]),
            );
        }
        reads
    }

    /// The reads of a spilling conversion resolved as [`Self::resolve_reads`] does, from their
    /// file to the files of their arrays, 2^16 at a time (or as many as the spill holds).
    fn resolve_spilled_reads(&mut self, volumes: &[VolumeMeta]) -> Result<ReadCounts> {
        let mut spill = self.spill.take().expect("spilling");
        let block_len = spill.every.clamp(1, 1 << 16);
        let several = volumes.len() > 1;
        let timed = self.raw_reads.untimed == 0;
        let mut counts = ReadCounts::default();
        let mut block = Reads::default();
        let mut raw = spill.open(Spill::RAW_READS)?;
        for k in 0..spill.counts[Spill::RAW_READS] {
            if k % (1 << 16) == 0 {
                self.reader.check_stop()?;
            }
            let (at, v, first, pages, time) = RawReads::read_record(&mut raw)
                .map_err(|e| io_err(spill.path(Spill::RAW_READS), &e))?;
            block.push(
                at,
                timed.then_some(time),
                several.then_some(v),
                self.read_ids(volumes, v, first, pages),
            );
            if block.len() == block_len {
                counts.add(&block);
                spill.append_reads(&block)?;
                block = Reads::default();
            }
        }
        counts.add(&block);
        spill.append_reads(&block)?;
        counts.timed = timed && counts.reads > 0;
        self.spill = Some(spill);
        Ok(counts)
    }

    /// The ids of a read of `pages` pages from `first` in volume `v`: ids kept, its volume's
    /// first page added, the pages past its range without id; renamed, the names of the pages the
    /// trace writes, the others without id.
    fn read_ids<'a>(
        &'a self,
        volumes: &'a [VolumeMeta],
        v: u32,
        first: u64,
        pages: u32,
    ) -> impl Iterator<Item = Option<u32>> + 'a {
        let vol = &volumes[v as usize];
        let rename = self.options.rename.then_some(&self.rename);
        (first..first + u64::from(pages)).map(move |p| match rename {
            Some(names) => names.get(&(v, p)).copied(),
            None => (p < vol.address_pages).then(|| (vol.first_page + p) as u32),
        })
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
            read_runs: 0,
            pages_read: 0,
            pages_read_unwritten: 0,
            read_times: false,
        },
        request_pages: vec![1; pages.len()],
        pages,
        times: Vec::new(),
        request_volumes: Vec::new(),
        trims: Trims::default(),
        reads: Reads::default(),
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const U: u32 = Reads::UNWRITTEN;

    /// An MSR trace of two volumes (times in 100 ns ticks: 1e7 a second): writes of `hm_0`
    /// pages 0-1 at 0 s, `src_1` page 1 at 2 s and `hm_0` page 4 at 5 s; reads of `hm_0`
    /// pages 1-2 at 1 s, `src_1` page 0 at 3 s, `hm_0` page 4 at 4 s (before its write),
    /// `src_1` pages 2-3 at 6 s and `hm_0` pages 3-5 at 7 s.
    pub(crate) const MSR: &str = "\
0,hm,0,Write,0,8192,0
10000000,hm,0,Read,4096,8192,0
20000000,src,1,Write,4096,4096,0
30000000,src,1,Read,0,4096,0
40000000,hm,0,Read,16384,4096,0
50000000,hm,0,Write,16384,4096,0
60000000,src,1,Read,8192,8192,0
70000000,hm,0,Read,12288,12288,0
";

    /// [`MSR`] converted, ids kept or renamed.
    pub(crate) fn msr(rename: bool) -> Trace {
        let input = Box::new(std::io::Cursor::new(MSR.as_bytes().to_vec()));
        let options = ConvertOptions {
            rename,
            ..ConvertOptions::default()
        };
        Converter::with_input(Path::new("t.csv"), Format::Msr, options, input)
            .unwrap()
            .finish()
            .unwrap()
    }

    fn round_trip(t: &Trace) -> Trace {
        let mut bytes = Vec::new();
        encode_binary(t, &mut bytes).unwrap();
        parse_binary(Path::new("t.rtr"), &bytes).unwrap()
    }

    #[test]
    fn reads_keep_their_place_time_and_the_ids_of_the_writes() {
        let t = msr(false);
        // Ids kept: hm_0 spans pages 0-4 (its largest write, 4), src_1 follows at 5 (2 pages).
        assert_eq!(t.pages, [0, 1, 6, 4]);
        let r = &t.reads;
        // Page writes before each read: 2, 3, 3, 4, 4.
        assert_eq!(r.at, [2, 3, 3, 4, 4]);
        // hm_0 page 2 is inside its range though never written: it keeps its id. src_1 pages
        // 2-3 and hm_0 page 5 lie past their volumes' ranges: no id.
        assert_eq!(r.runs, [1, 1, 1, 1, 2]);
        assert_eq!(r.first, [1, 5, 4, U, 3, U]);
        assert_eq!(r.pages, [2, 1, 1, 2, 2, 1]);
        assert_eq!(r.times, [1.0, 3.0, 4.0, 6.0, 7.0]);
        assert_eq!(r.volumes, [0, 1, 0, 1, 0]);
        let m = &t.meta;
        assert_eq!((m.reads, m.read_runs, m.pages_read), (5, 6, 9));
        assert_eq!((m.pages_read_unwritten, m.read_times), (3, true));
        let back = round_trip(&t);
        assert_eq!(back.reads, t.reads);
        assert_eq!(back.meta, t.meta);
    }

    #[test]
    fn renamed_reads_take_the_names_of_the_writes_and_unwritten_pages_have_none() {
        let t = msr(true);
        // Names in first-write order: hm_0 0, 1 → 0, 1; src_1 1 → 2; hm_0 4 → 3 (written after
        // it is first read). Every page the trace never writes has no id.
        assert_eq!(t.pages, [0, 1, 2, 3]);
        let r = &t.reads;
        assert_eq!(r.runs, [2, 1, 1, 1, 3]);
        assert_eq!(r.first, [1, U, U, 3, U, U, 3, U]);
        assert_eq!(r.pages, [1, 1, 1, 1, 2, 1, 1, 1]);
        assert_eq!((t.meta.read_runs, t.meta.pages_read), (8, 9));
        assert_eq!(t.meta.pages_read_unwritten, 6);
        assert_eq!(round_trip(&t).reads, t.reads);
        // Renaming a trace converted with ids kept gives the same reads.
        let mut kept = msr(false);
        kept.rename_densely();
        assert_eq!(kept.reads, t.reads);
        assert_eq!(kept.meta.pages_read_unwritten, 6);
    }

    #[test]
    fn a_volume_taken_out_keeps_its_reads_at_its_own_writes() {
        let t = msr(false);
        let src = t.volume(1).unwrap();
        // src_1 wrote one page (id 0 in its own space) before both of its reads.
        assert_eq!(src.pages, [1]);
        assert_eq!(src.reads.at, [1, 1]);
        assert_eq!(src.reads.first, [0, U]);
        assert_eq!(src.reads.pages, [1, 2]);
        assert_eq!(src.reads.times, [3.0, 6.0]);
        assert!(src.reads.volumes.is_empty());
        assert_eq!((src.meta.reads, src.meta.read_runs), (2, 2));
        let hm = t.volume(0).unwrap();
        assert_eq!(hm.reads.at, [2, 2, 3]);
        assert_eq!(hm.reads.runs, [1, 1, 2]);
        assert_eq!(hm.reads.first, [1, 4, 3, U]);
        assert_eq!(round_trip(&hm).reads, hm.reads);
    }

    #[test]
    fn a_spilled_conversion_writes_the_reads_as_one_in_memory() {
        let dir = std::env::temp_dir().join(format!("reclaim-reads-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (text, out) = (dir.join("t.csv"), dir.join("t.rtr"));
        std::fs::write(&text, MSR).unwrap();
        for rename in [false, true] {
            let options = ConvertOptions {
                rename,
                ..ConvertOptions::default()
            };
            let meta = Converter::spilling(&text, Format::Msr, options, &out)
                .unwrap()
                .spill_every(1)
                .finish_to(&out)
                .unwrap();
            let back = read_binary(&out).unwrap();
            let t = msr(rename);
            assert_eq!(meta.read_runs, t.meta.read_runs);
            assert_eq!(back.reads, t.reads);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file of layout 2 as it was written: its header without the reads' fields, no reads
    /// section after the discards.
    fn layout_2(t: &Trace) -> Vec<u8> {
        let mut header = serde_json::to_value(&t.meta).unwrap();
        let fields = header.as_object_mut().unwrap();
        for key in [
            "read_runs",
            "pages_read",
            "pages_read_unwritten",
            "read_times",
        ] {
            fields.remove(key).unwrap();
        }
        fields.insert("version".into(), 2.into());
        let header = serde_json::to_vec(&header).unwrap();
        let mut b = MAGIC.to_vec();
        b.extend((header.len() as u64).to_le_bytes());
        b.extend(header);
        b.extend(t.pages.iter().flat_map(|p| p.to_le_bytes()));
        b.extend(t.request_pages.iter().flat_map(|p| p.to_le_bytes()));
        b.extend(t.times.iter().flat_map(|x| x.to_le_bytes()));
        b.extend(t.request_volumes.iter().flat_map(|v| v.to_le_bytes()));
        b
    }

    #[test]
    fn every_format_with_reads_keeps_them() {
        // Per format: a write of bytes 8192-12287 (page 2 of 4 KiB), then a read of the same bytes
        // 1 s later: one read, after 1 page write, of id 2, 1 s after the first request.
        let cases = [
            ("msr", "0,hm,0,Write,8192,4096,0\n10000000,hm,0,Read,8192,4096,0\n"),
            ("spc", "0,16,4096,w,0.5\n0,16,4096,r,1.5\n"),
            ("fiu", "1000000000 1 p 16 8 W 6 0 x\n2000000000 1 p 16 8 R 6 0 x\n"),
            ("biotracer", "16\t\t8\t\t4096\t\t1\t\t0.5\t\t0\t\t0\t\t0\n16\t\t8\t\t4096\t\t0\t\t1.5\t\t0\t\t0\t\t0\n"),
            ("mqsim", "1000000000 0 16 8 0\n2000000000 0 16 8 1\n"),
            ("disksim", "500 0 16 8 0x0\n1500 0 16 8 0x1\n"),
            ("blkparse", "8,16 0 1 0.5 1 Q W 16 + 8 [p]\n8,16 0 2 1.5 1 Q R 16 + 8 [p]\n"),
            ("alibaba", "1,W,8192,4096,1000000\n1,R,8192,4096,2000000\n"),
            ("csv:op=0,offset=1,size=2,time=3", "W,8192,4096,1\nR,8192,4096,2\n"),
        ];
        for (format, text) in cases {
            let input = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
            let format: Format = format.parse().unwrap();
            let t = Converter::with_input(Path::new("t"), format, ConvertOptions::default(), input)
                .and_then(Converter::finish)
                .unwrap_or_else(|e| panic!("{format}: {e}"));
            let r = &t.reads;
            assert_eq!((t.meta.reads, t.meta.writes), (1, 1), "{format}");
            assert_eq!(
                (&r.at[..], &r.first[..], &r.pages[..]),
                (&[1][..], &[2][..], &[1][..]),
                "{format}"
            );
            assert_eq!(r.times.len(), 1, "{format}");
            assert!((r.times[0] - 1.0).abs() < 1e-9, "{format}: {:?}", r.times);
        }
    }

    #[test]
    fn a_file_of_layout_2_loads_with_its_reads_counted_and_none_kept() {
        let t = msr(false);
        let old = parse_binary(Path::new("old.rtr"), &layout_2(&t)).unwrap();
        assert_eq!(old.meta.version, 2);
        assert_eq!(old.meta.reads, 5);
        assert!(old.reads.is_empty());
        assert_eq!((&old.pages, &old.times), (&t.pages, &t.times));
        // Its volume taken out counts its reads as layout 2 did (requests less writes).
        assert_eq!(old.volume(1).unwrap().meta.reads, 2);
    }

    #[test]
    fn a_header_that_counts_more_reads_than_the_file_holds_is_refused() {
        let mut t = msr(false);
        // Two more (one more would take the 4 bytes of the runs per read, stored only while
        // runs outnumber reads, and be caught by the positions out of order instead).
        t.meta.reads += 2;
        let mut bytes = Vec::new();
        encode_binary(&t, &mut bytes).unwrap();
        let e = parse_binary(Path::new("t.rtr"), &bytes)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`reads`"), "{e}");
        // A layout newer than this reader knows is named.
        t.meta.reads -= 2;
        t.meta.version = VERSION + 1;
        let mut bytes = Vec::new();
        encode_binary(&t, &mut bytes).unwrap();
        let e = parse_binary(Path::new("t.rtr"), &bytes)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("layout version 1 to {VERSION}")), "{e}");
    }

    #[test]
    fn a_read_id_outside_its_volume_is_refused() {
        let mut t = msr(false);
        // src_1's read of page 0 (id 5) moved to id 4, hm_0's range.
        t.reads.first[1] = 4;
        let mut bytes = Vec::new();
        encode_binary(&t, &mut bytes).unwrap();
        let e = parse_binary(Path::new("t.rtr"), &bytes)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("read ids of volume `src_1` in its range [5, 7)"),
            "{e}"
        );
    }
}
