//! The compact binary file of a converted trace: writing it, and reading it back with every count,
//! page id, volume, discard and read checked against its header (the layout in
//! [`super::convert`]).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use super::convert::{io_err, Reads, Trace, TraceMeta, Trims, MAGIC, VERSION};
use crate::error::{Error, Result};

/// Writes a converted trace.
pub fn write_binary(trace: &Trace, path: &Path) -> Result<()> {
    let f = File::create(path).map_err(|e| io_err(path, &e))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    encode_binary(trace, &mut w)
        .and_then(|()| w.flush())
        .map_err(|e| io_err(path, &e))
}

/// Writes a converted trace's bytes to `w` (the layout in the module's documentation).
pub fn encode_binary(trace: &Trace, w: &mut impl Write) -> std::io::Result<()> {
    encode_header(&trace.meta, w)?;
    write_le(w, &trace.pages, u32::to_le_bytes)?;
    write_le(w, &trace.request_pages, u32::to_le_bytes)?;
    write_le(w, &trace.times, f64::to_le_bytes)?;
    write_le(w, &trace.request_volumes, u32::to_le_bytes)?;
    encode_trims(&trace.trims, w)?;
    encode_reads(&trace.reads, w)
}

/// The magic bytes, the header's length and the header.
pub(super) fn encode_header(meta: &TraceMeta, w: &mut impl Write) -> std::io::Result<()> {
    let header = serde_json::to_vec(meta).expect("metadata serializes");
    w.write_all(MAGIC)?;
    w.write_all(&(header.len() as u64).to_le_bytes())?;
    w.write_all(&header)
}

/// The discards' arrays, the last section of the file.
pub(super) fn encode_trims(t: &Trims, w: &mut impl Write) -> std::io::Result<()> {
    write_le(w, &t.at, u64::to_le_bytes)?;
    for a in [&t.first, &t.pages, &t.volumes] {
        write_le(w, a, u32::to_le_bytes)?;
    }
    Ok(())
}

/// The reads' arrays, after the discards (layout 3).
fn encode_reads(r: &Reads, w: &mut impl Write) -> std::io::Result<()> {
    write_le(w, &r.at, u64::to_le_bytes)?;
    for a in [&r.runs, &r.first, &r.pages] {
        write_le(w, a, u32::to_le_bytes)?;
    }
    write_le(w, &r.times, f64::to_le_bytes)?;
    write_le(w, &r.volumes, u32::to_le_bytes)
}

/// `items` as little-endian bytes, 2^16 at a time.
fn write_le<T: Copy, const N: usize>(
    w: &mut impl Write,
    items: &[T],
    bytes: fn(T) -> [u8; N],
) -> std::io::Result<()> {
    for chunk in items.chunks(1 << 16) {
        let b: Vec<u8> = chunk.iter().flat_map(|&x| bytes(x)).collect();
        w.write_all(&b)?;
    }
    Ok(())
}

/// True when `path` starts with the magic bytes of a converted trace.
pub fn is_binary(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == MAGIC
}

/// Bytes read, or page ids checked, between two polls of the default stop
/// ([`super::set_default_stop`]) while a converted trace is loaded: 64 MiB, a few hundredths of a
/// second.
const POLL_BYTES: usize = 1 << 26;

/// Reads a converted trace, polling the default stop every [`POLL_BYTES`].
pub fn read_binary(path: &Path) -> Result<Trace> {
    let mut f = super::open_file(path)?;
    let mut bytes = Vec::new();
    loop {
        if super::default_stop() {
            return Err(stopped_at(path, bytes.len()));
        }
        let n = (&mut f)
            .take(POLL_BYTES as u64)
            .read_to_end(&mut bytes)
            .map_err(|e| io_err(path, &e))?;
        if n == 0 {
            break;
        }
    }
    parse_binary(path, &bytes)
}

/// The error of a load stopped by the default stop at byte `at`.
fn stopped_at(path: &Path, at: usize) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: format!("interrupted at byte {at}"),
    }
}

/// Where the arrays of a converted trace start, its header checked against its arrays.
#[derive(Clone, Debug)]
pub struct BinaryLayout {
    /// The header.
    pub meta: TraceMeta,
    /// Byte offset of `pages`.
    pub pages_at: usize,
    /// Byte offset of `request_pages`.
    pub requests_at: usize,
    /// Byte offset of `times` (where `request_volumes` starts when there are none).
    pub times_at: usize,
    /// Byte offset of `request_volumes` (where the trims start when there are none).
    pub volumes_at: usize,
    /// Byte offset of `trim_at` (where the reads start when there are no trims).
    pub trims_at: usize,
    /// Byte offset of `read_at` (the end of the file when there are no reads kept).
    pub reads_at: usize,
}

fn le_u32s(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
}

fn le_f64s(b: &[u8]) -> impl Iterator<Item = f64> + '_ {
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
}

/// The header of a converted trace's bytes and where its arrays start (see [`check_binary`]).
fn read_header(bytes: &[u8], bad: &dyn Fn(usize, &str) -> Error) -> Result<(TraceMeta, usize)> {
    if !bytes.starts_with(MAGIC) {
        return Err(bad(0, "magic bytes RCLMTRC1"));
    }
    if bytes.len() < 16 {
        return Err(bad(
            8,
            &format!("a header length; truncated at {} bytes", bytes.len()),
        ));
    }
    let hlen = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
    let header = usize::try_from(hlen)
        .ok()
        .and_then(|h| bytes.get(16..16usize.checked_add(h)?))
        .ok_or_else(|| {
            bad(
                8,
                &format!(
                    "a header of {hlen} bytes; truncated at {} bytes",
                    bytes.len()
                ),
            )
        })?;
    let meta: TraceMeta = serde_json::from_slice(header)
        .map_err(|e| bad(16, &format!("a valid JSON header: {e}")))?;
    if !(1..=VERSION).contains(&meta.version) {
        return Err(bad(
            16,
            &format!("layout version 1 to {VERSION}, not {}", meta.version),
        ));
    }
    if meta.page_size == 0 {
        return Err(bad(16, "a page size ≥ 1"));
    }
    // Page ids are 32-bit: a larger address space is a damaged header, and what is sized by it
    // (a replay's logical pages, a count per page) must not be allocated from it.
    if meta.address_pages > 1 << 32 {
        return Err(bad(
            16,
            &format!(
                "`address_pages` of at most 2^32 (page ids are 32-bit), not {}",
                meta.address_pages
            ),
        ));
    }
    Ok((meta, 16 + header.len()))
}

/// Checks the bytes of a converted trace: every count and page id against the header, so that a
/// damaged file is an error naming the file and the byte, never a wrong replay. Allocates
/// nothing beside the header; polls the default stop every [`POLL_BYTES`] of page ids.
pub fn check_binary(path: &Path, bytes: &[u8]) -> Result<BinaryLayout> {
    let bad = |at: usize, what: &str| Error::BadFile {
        path: path.display().to_string(),
        byte: at as u64,
        expected: format!("a converted trace ({what})"),
    };
    let (meta, mut at) = read_header(bytes, &bad)?;
    let mut take = |n: u64, size: usize, what: &str| -> Result<(usize, &[u8])> {
        let start = at;
        let span = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(size))
            .and_then(|len| bytes.get(start..start.checked_add(len)?))
            .ok_or_else(|| {
                bad(
                    start,
                    &format!(
                        "{n} {what}, as the header says; truncated at {} bytes",
                        bytes.len()
                    ),
                )
            })?;
        at += span.len();
        Ok((start, span))
    };
    // Each array's length is the header's count (named), checked against the file's bytes
    // before anything is read or allocated from it.
    let (pages_at, pages) = take(meta.pages_written, 4, "page ids (`pages_written`)")?;
    let (requests_at, requests) = take(meta.writes, 4, "request sizes (`writes`)")?;
    let (times_at, times) = take(
        if meta.has_times { meta.writes } else { 0 },
        8,
        "request times (`writes`, `has_times`)",
    )?;
    let several = meta.volumes.len() > 1;
    let (volumes_at, volumes) = take(
        if several { meta.writes } else { 0 },
        4,
        "request volumes (`writes`)",
    )?;
    let ranges = meta.trim_ranges;
    let (trims_at, positions) = take(ranges, 8, "trim positions (`trim_ranges`)")?;
    let (_, trim_first) = take(ranges, 4, "trim first pages (`trim_ranges`)")?;
    let (trim_pages_at, trim_pages) = take(ranges, 4, "trim lengths (`trim_ranges`)")?;
    let (_, trim_volumes) = take(
        if several { ranges } else { 0 },
        4,
        "trim volumes (`trim_ranges`)",
    )?;
    let reads = take_reads(&mut take, &meta)?;
    if at != bytes.len() {
        return Err(bad(
            at,
            &format!("no bytes after the arrays ({} found)", bytes.len() - at),
        ));
    }
    check_arrays(
        &bad,
        &|byte| stopped_at(path, byte),
        &meta,
        (pages_at, pages),
        (requests_at, requests),
        (times_at, times),
        (volumes_at, volumes),
    )?;
    check_trims(
        &bad,
        &meta,
        (trims_at, positions),
        trim_first,
        (trim_pages_at, trim_pages),
        trim_volumes,
    )?;
    check_reads(&bad, &meta, reads)?;
    Ok(BinaryLayout {
        meta,
        pages_at,
        requests_at,
        times_at,
        volumes_at,
        trims_at,
        reads_at: reads.at.0,
    })
}

/// The reads' arrays, each taken by `take` (count, item size, what it is) as the header counts
/// them; none in layouts 1 and 2, which counted their reads without keeping them.
fn take_reads<'a>(
    take: &mut dyn FnMut(u64, usize, &str) -> Result<Span<'a>>,
    meta: &TraceMeta,
) -> Result<ReadArrays<'a>> {
    let (reads, runs) = if meta.version >= 3 {
        (meta.reads, meta.read_runs)
    } else {
        (0, 0)
    };
    let several = meta.volumes.len() > 1;
    Ok(ReadArrays {
        at: take(reads, 8, "read positions (`reads`)")?,
        runs: take(
            if runs > reads { reads } else { 0 },
            4,
            "runs per read (`reads`, `read_runs`)",
        )?,
        first: take(runs, 4, "read first pages (`read_runs`)")?.1,
        pages: take(runs, 4, "read lengths (`read_runs`)")?,
        times: take(
            if meta.read_times { reads } else { 0 },
            8,
            "read times (`reads`, `read_times`)",
        )?,
        volumes: take(if several { reads } else { 0 }, 4, "read volumes (`reads`)")?,
    })
}

/// An array of a converted trace: its byte offset (for an error) and its bytes.
type Span<'a> = (usize, &'a [u8]);

/// The reads' arrays of a converted trace, each with its byte offset (for the error) where a
/// check may name it.
#[derive(Clone, Copy)]
struct ReadArrays<'a> {
    at: (usize, &'a [u8]),
    runs: (usize, &'a [u8]),
    first: &'a [u8],
    pages: (usize, &'a [u8]),
    times: (usize, &'a [u8]),
    volumes: (usize, &'a [u8]),
}

/// Checks the reads of a converted trace: positions in order within the page writes, each read
/// of at least one run, runs of at least one page inside the address space (or without id),
/// pages adding up to the header's, finite times, volumes among the header's and, ids kept,
/// each read's ids inside its volume's range.
fn check_reads(bad: &dyn Fn(usize, &str) -> Error, meta: &TraceMeta, a: ReadArrays) -> Result<()> {
    let mut last = 0;
    for (i, p) in le_u64s(a.at.1).enumerate() {
        if p < last || p > meta.pages_written {
            return Err(bad(
                a.at.0 + 8 * i,
                &format!(
                    "read positions in order, at most the {} page writes",
                    meta.pages_written
                ),
            ));
        }
        last = p;
    }
    if let Some(i) = le_u32s(a.runs.1).position(|n| n == 0) {
        return Err(bad(a.runs.0 + 4 * i, "reads of at least one run"));
    }
    let reads = (a.at.1.len() / 8) as u64;
    let runs: u64 = if a.runs.1.is_empty() {
        reads
    } else {
        le_u32s(a.runs.1).map(u64::from).sum()
    };
    if runs != meta.read_runs {
        return Err(bad(
            a.runs.0,
            &format!(
                "reads of the {} runs of `read_runs` ({runs} found)",
                meta.read_runs
            ),
        ));
    }
    let (mut all, mut unwritten) = (0u64, 0u64);
    for (i, (f, n)) in le_u32s(a.first).zip(le_u32s(a.pages.1)).enumerate() {
        let outside = f != Reads::UNWRITTEN && u64::from(f) + u64::from(n) > meta.address_pages;
        if n == 0 || outside {
            return Err(bad(
                a.pages.0 + 4 * i,
                &format!(
                    "read runs of at least one page inside the {} pages of address space",
                    meta.address_pages
                ),
            ));
        }
        all += u64::from(n);
        unwritten += u64::from(n) * u64::from(f == Reads::UNWRITTEN);
    }
    if (all, unwritten) != (meta.pages_read, meta.pages_read_unwritten) {
        return Err(bad(
            a.pages.0,
            &format!(
                "read runs of the {} pages of `pages_read`, {} of them without id (`pages_read_unwritten`) ({all} and {unwritten} found)",
                meta.pages_read, meta.pages_read_unwritten
            ),
        ));
    }
    if let Some(i) = le_f64s(a.times.1).position(|t| !t.is_finite()) {
        return Err(bad(a.times.0 + 8 * i, "finite read times"));
    }
    let n = meta.volumes.len() as u64;
    if let Some(i) = le_u32s(a.volumes.1).position(|v| u64::from(v) >= n) {
        return Err(bad(
            a.volumes.0 + 4 * i,
            &format!("read volume indices below the {n} volumes of the header"),
        ));
    }
    if a.volumes.1.is_empty() || meta.renamed {
        return Ok(());
    }
    // Ids kept: a read's ids lie in its volume's range, which a volume taken out moves by its
    // first page.
    let mut run_counts = le_u32s(a.runs.1);
    let mut run_list = le_u32s(a.first).zip(le_u32s(a.pages.1)).enumerate();
    for v in le_u32s(a.volumes.1) {
        let vol = &meta.volumes[v as usize];
        let range = vol.first_page..vol.first_page.saturating_add(vol.address_pages);
        for (r, (f, k)) in run_list
            .by_ref()
            .take(run_counts.next().unwrap_or(1) as usize)
        {
            let (start, end) = (u64::from(f), u64::from(f) + u64::from(k));
            if f != Reads::UNWRITTEN && (start < range.start || end > range.end) {
                return Err(bad(
                    a.pages.0 + 4 * r,
                    &format!(
                        "read ids of volume `{}` in its range [{}, {})",
                        vol.name, range.start, range.end
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Checks the arrays of a converted trace against its header (see [`check_binary`]); each
/// array comes with its byte offset, for the error.
fn check_arrays(
    bad: &dyn Fn(usize, &str) -> Error,
    stopped: &dyn Fn(usize) -> Error,
    meta: &TraceMeta,
    (pages_at, pages): (usize, &[u8]),
    (requests_at, requests): (usize, &[u8]),
    (times_at, times): (usize, &[u8]),
    (volumes_at, volumes): (usize, &[u8]),
) -> Result<()> {
    // The page ids are most of a trace: checked a block at a time, the default stop polled.
    for (k, block) in pages.chunks(POLL_BYTES).enumerate() {
        let block_at = pages_at + k * POLL_BYTES;
        if k > 0 && super::default_stop() {
            return Err(stopped(block_at));
        }
        if let Some(i) = le_u32s(block).position(|p| u64::from(p) >= meta.address_pages) {
            return Err(bad(
                block_at + 4 * i,
                &format!(
                    "page ids below the address space of {} pages",
                    meta.address_pages
                ),
            ));
        }
    }
    if let Some(i) = le_u32s(requests).position(|n| n == 0) {
        return Err(bad(requests_at + 4 * i, "requests of at least one page"));
    }
    let covered: u64 = le_u32s(requests).map(u64::from).sum();
    if covered != meta.pages_written {
        return Err(bad(
            requests_at,
            &format!(
                "requests covering the {} page writes ({covered} covered)",
                meta.pages_written
            ),
        ));
    }
    if let Some(i) = le_f64s(times).position(|t| !t.is_finite()) {
        return Err(bad(times_at + 8 * i, "finite request times"));
    }
    let n = meta.volumes.len() as u64;
    if let Some(i) = le_u32s(volumes).position(|v| u64::from(v) >= n) {
        return Err(bad(
            volumes_at + 4 * i,
            &format!("volume indices below the {n} volumes of the header"),
        ));
    }
    if !volumes.is_empty() {
        check_volume_ranges(bad, meta, (pages_at, pages), requests, volumes)?;
    }
    Ok(())
}

/// Checks that each volume's range lies in the address space and, ids kept, that each request's
/// pages lie in its volume's range: a volume taken out of the trace ([`Trace::volume`]) moves
/// its pages by its first page, which a header that lies would make wrap.
fn check_volume_ranges(
    bad: &dyn Fn(usize, &str) -> Error,
    meta: &TraceMeta,
    (pages_at, pages): (usize, &[u8]),
    requests: &[u8],
    volumes: &[u8],
) -> Result<()> {
    for v in &meta.volumes {
        if v.first_page
            .checked_add(v.address_pages)
            .is_none_or(|end| end > meta.address_pages)
        {
            return Err(bad(
                16,
                &format!(
                    "volume `{}` (`first_page` {}, `address_pages` {}) inside the address space of {} pages",
                    v.name, v.first_page, v.address_pages, meta.address_pages
                ),
            ));
        }
    }
    if meta.renamed {
        return Ok(());
    }
    let mut at = 0usize;
    for (n, v) in le_u32s(requests).zip(le_u32s(volumes)) {
        let vol = &meta.volumes[v as usize];
        let range = vol.first_page..vol.first_page + vol.address_pages;
        let span = &pages[4 * at..4 * (at + n as usize)];
        if let Some(j) = le_u32s(span).position(|p| !range.contains(&u64::from(p))) {
            return Err(bad(
                pages_at + 4 * (at + j),
                &format!(
                    "page ids of volume `{}` in its range [{}, {})",
                    vol.name, range.start, range.end
                ),
            ));
        }
        at += n as usize;
    }
    Ok(())
}

/// Checks the discards of a converted trace: positions in order within the page writes, ranges
/// of at least one page inside the address space, volumes among the header's.
fn check_trims(
    bad: &dyn Fn(usize, &str) -> Error,
    meta: &TraceMeta,
    (at_at, at): (usize, &[u8]),
    first: &[u8],
    (pages_at, pages): (usize, &[u8]),
    volumes: &[u8],
) -> Result<()> {
    let mut last = 0;
    for (i, a) in le_u64s(at).enumerate() {
        if a < last || a > meta.pages_written {
            return Err(bad(
                at_at + 8 * i,
                &format!(
                    "trim positions in order, at most the {} page writes",
                    meta.pages_written
                ),
            ));
        }
        last = a;
    }
    for (i, (f, n)) in le_u32s(first).zip(le_u32s(pages)).enumerate() {
        if n == 0 || u64::from(f) + u64::from(n) > meta.address_pages {
            return Err(bad(
                pages_at + 4 * i,
                &format!(
                    "trimmed ranges of at least one page inside the {} pages of address space",
                    meta.address_pages
                ),
            ));
        }
    }
    let n = meta.volumes.len() as u64;
    if le_u32s(volumes).any(|v| u64::from(v) >= n) {
        return Err(bad(pages_at, "trim volumes among the header's"));
    }
    Ok(())
}

fn le_u64s(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
}

/// Parses the bytes of a converted trace (checked by [`check_binary`]).
pub fn parse_binary(path: &Path, bytes: &[u8]) -> Result<Trace> {
    let l = check_binary(path, bytes)?;
    Ok(Trace {
        pages: le_u32s(&bytes[l.pages_at..l.requests_at]).collect(),
        request_pages: le_u32s(&bytes[l.requests_at..l.times_at]).collect(),
        times: le_f64s(&bytes[l.times_at..l.volumes_at]).collect(),
        request_volumes: le_u32s(&bytes[l.volumes_at..l.trims_at]).collect(),
        trims: {
            let ranges = l.meta.trim_ranges as usize;
            let (at, rest) = bytes[l.trims_at..l.reads_at].split_at(8 * ranges);
            let (first, rest) = rest.split_at(4 * ranges);
            let (pages, volumes) = rest.split_at(4 * ranges);
            Trims {
                at: le_u64s(at).collect(),
                first: le_u32s(first).collect(),
                pages: le_u32s(pages).collect(),
                volumes: le_u32s(volumes).collect(),
            }
        },
        reads: parse_reads(&l.meta, &bytes[l.reads_at..]),
        meta: l.meta,
    })
}

/// The reads' arrays from their offset to the end of the file (checked by [`check_binary`]).
fn parse_reads(meta: &TraceMeta, bytes: &[u8]) -> Reads {
    if meta.version < 3 {
        return Reads::default();
    }
    let (reads, runs) = (meta.reads as usize, meta.read_runs as usize);
    let (at, rest) = bytes.split_at(8 * reads);
    let (counts, rest) = rest.split_at(if runs > reads { 4 * reads } else { 0 });
    let (first, rest) = rest.split_at(4 * runs);
    let (pages, rest) = rest.split_at(4 * runs);
    let (times, volumes) = rest.split_at(if meta.read_times { 8 * reads } else { 0 });
    Reads {
        at: le_u64s(at).collect(),
        runs: le_u32s(counts).collect(),
        first: le_u32s(first).collect(),
        pages: le_u32s(pages).collect(),
        times: le_f64s(times).collect(),
        volumes: le_u32s(volumes).collect(),
    }
}
