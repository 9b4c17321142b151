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
//! ```

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Format, ReadOptions, ReadReport, TraceReader};
use crate::error::{Error, Result};

/// Magic bytes of a converted trace.
pub const MAGIC: &[u8; 8] = b"RCLMTRC1";

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
    rename: HashMap<u64, u32>,
    seen: Vec<u64>,
    unique: u64,
    max_page: u64,
    pages: Vec<u32>,
    request_pages: Vec<u32>,
    times: Vec<f64>,
    first_time: Option<f64>,
    done: bool,
}

impl Converter {
    /// Opens `path` for conversion.
    pub fn new(path: &Path, format: Format, options: ConvertOptions) -> Result<Self> {
        if options.page_size == 0 {
            return Err(Error::param(
                "page_size",
                0,
                "a page size in bytes ≥ 1 (4096 for 4 KiB pages)",
            ));
        }
        Ok(Converter {
            reader: TraceReader::new(path, format, options.read.clone())?,
            format,
            source: path.display().to_string(),
            options,
            rename: HashMap::new(),
            seen: Vec::new(),
            unique: 0,
            max_page: 0,
            pages: Vec::new(),
            request_pages: Vec::new(),
            times: Vec::new(),
            first_time: None,
            done: false,
        })
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
            if !req.write {
                continue;
            }
            let first = req.offset / page_size;
            let last = (req.offset + req.len - 1) / page_size;
            for page in first..=last {
                let id = if self.options.rename {
                    let next = self.rename.len() as u32;
                    let id = *self.rename.entry(page).or_insert(next);
                    if id == next {
                        self.unique += 1;
                    }
                    id
                } else {
                    if page >= u64::from(u32::MAX) {
                        return Err(Error::Trace {
                            path: self.source.clone(),
                            line: self.reader.report.lines,
                            content: format!("offset {} length {}", req.offset, req.len),
                            expected: format!(
                                "page ids below {} (page {page} of {page_size} bytes is out of range; rename page ids or use larger pages)",
                                u32::MAX
                            ),
                        });
                    }
                    let (word, bit) = ((page >> 6) as usize, page & 63);
                    if word >= self.seen.len() {
                        self.seen.resize(word + 1, 0);
                    }
                    if self.seen[word] & (1 << bit) == 0 {
                        self.seen[word] |= 1 << bit;
                        self.unique += 1;
                    }
                    page as u32
                };
                self.max_page = self.max_page.max(u64::from(id));
                self.pages.push(id);
            }
            self.request_pages.push((last - first + 1) as u32);
            if let Some(t) = req.time {
                self.times.push(t - t0);
            }
        }
        Ok(true)
    }

    /// The converted trace (reads to the end first).
    pub fn finish(mut self) -> Result<Trace> {
        while !self.done {
            self.step(1 << 16)?;
        }
        let r = &self.reader.report;
        if r.requests == 0 && r.other_devices == 0 {
            return Err(Error::Trace {
                path: self.source.clone(),
                line: r.lines,
                content: String::new(),
                expected: format!(
                    "at least one {} record; none found in {} lines",
                    self.format, r.lines
                ),
            });
        }
        let has_times = !self.times.is_empty() && self.times.len() == self.request_pages.len();
        let meta = TraceMeta {
            version: 1,
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
            pages_written: self.pages.len() as u64,
            unique_pages: self.unique,
            address_pages: if self.pages.is_empty() {
                0
            } else {
                self.max_page + 1
            },
            renamed: self.options.rename,
            has_times,
            report: ReadReportMeta::from(r),
        };
        Ok(Trace {
            meta,
            pages: self.pages,
            request_pages: self.request_pages,
            times: if has_times { self.times } else { Vec::new() },
        })
    }
}

/// A trace of single-page writes from a list of page ids, ids kept.
pub fn page_list_trace(pages: Vec<u32>, source: &str) -> Trace {
    let mut seen = std::collections::HashSet::with_capacity(pages.len());
    let mut max = 0u32;
    for &p in &pages {
        seen.insert(p);
        max = max.max(p);
    }
    let n = pages.len() as u64;
    Trace {
        meta: TraceMeta {
            version: 1,
            source: source.to_string(),
            format: Format::Pages.to_string(),
            page_size: 1,
            device: None,
            requests: n,
            reads: 0,
            writes: n,
            pages_written: n,
            unique_pages: seen.len() as u64,
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
        },
        request_pages: vec![1; pages.len()],
        pages,
        times: Vec::new(),
    }
}

/// Converts a text trace in one call.
pub fn convert(path: &Path, format: Format, options: ConvertOptions) -> Result<Trace> {
    Converter::new(path, format, options)?.finish()
}

fn io_err(path: &Path, e: &std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Writes a converted trace.
pub fn write_binary(trace: &Trace, path: &Path) -> Result<()> {
    let f = File::create(path).map_err(|e| io_err(path, &e))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let header = serde_json::to_vec(&trace.meta).expect("metadata serializes");
    let mut put = |bytes: &[u8]| w.write_all(bytes).map_err(|e| io_err(path, &e));
    put(MAGIC)?;
    put(&(header.len() as u64).to_le_bytes())?;
    put(&header)?;
    for chunk in trace.pages.chunks(1 << 16) {
        let bytes: Vec<u8> = chunk.iter().flat_map(|p| p.to_le_bytes()).collect();
        put(&bytes)?;
    }
    let bytes: Vec<u8> = trace
        .request_pages
        .iter()
        .flat_map(|p| p.to_le_bytes())
        .collect();
    put(&bytes)?;
    let bytes: Vec<u8> = trace.times.iter().flat_map(|t| t.to_le_bytes()).collect();
    put(&bytes)?;
    w.flush().map_err(|e| io_err(path, &e))
}

/// True when `path` starts with the magic bytes of a converted trace.
pub fn is_binary(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == MAGIC
}

/// Reads a converted trace.
pub fn read_binary(path: &Path) -> Result<Trace> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| io_err(path, &e))?;
    let bad = |what: &str| Error::Trace {
        path: path.display().to_string(),
        line: 0,
        content: String::new(),
        expected: format!("a converted trace ({what})"),
    };
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err(bad("magic bytes RCLMTRC1"));
    }
    let hlen = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")) as usize;
    let header = bytes
        .get(16..16 + hlen)
        .ok_or_else(|| bad("a complete header"))?;
    let meta: TraceMeta =
        serde_json::from_slice(header).map_err(|e| bad(&format!("a valid JSON header: {e}")))?;
    let mut at = 16 + hlen;
    let mut take = |n: usize, size: usize| -> Result<&[u8]> {
        let s = bytes
            .get(at..at + n * size)
            .ok_or_else(|| bad("arrays as long as the header says"))?;
        at += n * size;
        Ok(s)
    };
    let pages = take(meta.pages_written as usize, 4)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    let request_pages = take(meta.writes as usize, 4)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    let times = if meta.has_times {
        take(meta.writes as usize, 8)?
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8")))
            .collect()
    } else {
        Vec::new()
    };
    Ok(Trace {
        meta,
        pages,
        request_pages,
        times,
    })
}

/// Loads a trace: a converted file as it is, a text file through the reader of `format`.
pub fn load(path: &Path, format: Option<Format>, options: ConvertOptions) -> Result<Trace> {
    if is_binary(path) {
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
