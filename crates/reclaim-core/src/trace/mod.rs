//! Block-trace readers: streaming, gzip- and zstd-aware, one file per format, every bad line an error
//! that names the file, the line number, the line and what was expected.
//!
//! A request covering any part of a page writes that page (DESIGN "Traces"). Reads are kept in
//! trace order among the writes, their pages named as the writes name them, for a replay with
//! time ([`convert::Reads`]). Page ids are kept as addresses or renamed densely in first-write
//! order (Stockmeyer §2.1); see [`convert`].

pub mod alibaba;
pub mod binary;
pub mod biotracer;
pub mod blkparse;
pub mod convert;
pub mod csv;
pub mod disksim;
pub mod fiu;
pub mod libcachesim;
pub mod midas;
pub mod mqsim;
pub mod msr;
pub mod pages;
mod reader;
mod reads;
pub mod spc;
mod spill;
pub mod stand_in;
pub mod stand_in_files;
mod tally;
pub mod tectonic;
mod trims;
mod volume;

pub use reader::{Owned, TraceReader};

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::error::{Error, Result};

/// Longest text line a reader takes [bytes], its newline included: 1 MiB. A record of every text
/// format is under 200 bytes; the longest lines a reader passes over are archive framing, a tar
/// header (512 bytes) or the NUL padding after an archive's last member (up to a record of 10 KiB
/// by default). A longer line is damaged or binary input, and buffering it whole would take the
/// memory of the file (a gzip of zeros holds 1 GB in one "line" of 1 MB compressed): it is an error
/// naming the file and the line, or with `--skip-bad-lines` a bad line skipped without being kept.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Bytes before the first record that are not records a reader passes over (archive framing,
/// binary data) before it stops with "no record" [bytes]: 16 MiB. A tar archive's framing before
/// a trace is a 512-byte header per member; 16 MiB of anything else before a first record is
/// not a trace of this format (`/dev/urandom` ends here in a fraction of a second).
pub const MAX_LEADING_GARBAGE_BYTES: u64 = 1 << 24;

/// Lines (or records) a reader reads between two polls of its stop hook ([`Stop`]): 2^12, a few
/// microseconds of reading a plain file, so a stop is honoured at once however the lines fare.
pub const POLL_LINES: u64 = 1 << 12;

/// A caller's stop request, polled by a reader every [`POLL_LINES`] lines and by every loop over
/// a file's contents: true stops the reading with an error that says where (the Python bindings
/// poll Python's signal handlers, so Ctrl-C and SIGTERM stop a conversion as they stop a run).
pub type Stop = Box<dyn FnMut() -> bool + Send>;

/// The stop request of readers given no hook of their own ([`set_default_stop`]).
static DEFAULT_STOP: std::sync::OnceLock<fn() -> bool> = std::sync::OnceLock::new();

/// Sets, once for the process, the stop request polled by every reader not given a hook of its
/// own ([`TraceReader::set_stop`]): the readers the engine opens itself (a run's trace) are then
/// stopped as the caller's are. Later calls are ignored.
pub fn set_default_stop(stop: fn() -> bool) {
    let _ = DEFAULT_STOP.set(stop);
}

/// Whether the default stop ([`set_default_stop`]) asks to stop; false when none is set.
pub(crate) fn default_stop() -> bool {
    DEFAULT_STOP.get().is_some_and(|stop| stop())
}

/// The error of a read stopped by its [`Stop`] hook.
pub fn interrupted(path: &Path, line: u64) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: format!("interrupted after line {line}"),
    }
}

/// A trace format (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// UMass/SPC: `ASU,LBA,Size,Opcode,Timestamp[,…]`, LBA in 512-byte blocks.
    Spc,
    /// FIU `SRCMap`: `ts_ns pid process lba size W|R major minor md5`, sectors of 512 bytes.
    Fiu,
    /// Android `BIOtracer`: `sector nsectors bytes flags t1 t2 t3 t4`; odd flags write.
    Biotracer,
    /// `MQSim` ASCII: `arrival_ns device lba_sectors size_sectors type` (0 write, 1 read).
    Mqsim,
    /// `DiskSim` ASCII: `arrival_ms device blkno bcount flags` (float ms, hex flags, 0x1 read).
    Disksim,
    /// blkparse text: `dev cpu seq time pid action rwbs sector + count [proc]`, one stage.
    Blkparse,
    /// Alibaba block trace 2020: `device,opcode,offset,length,timestamp_us`.
    Alibaba,
    /// One logical page id per line, each a write.
    Pages,
    /// Column-mapped CSV (`csv:op=I,offset=I,size=I,…`, see [`csv`]).
    Csv(csv::Columns),
    /// libCacheSim's vSCSI binary records, version 1 or 2 (see [`libcachesim`]).
    Vscsi,
    /// libCacheSim's `oracleGeneral` binary records, each a write (see [`libcachesim`]).
    OracleGeneral,
    /// `MiDAS`-Simulation: `time type lba io_size`, 4 KiB pages, 1 write, 3 discard (see [`midas`]).
    Midas,
    /// Tectonic as SSD-iq reads it: `block_id io_offset io_size op_time op_name …` (see
    /// [`tectonic`]).
    Tectonic,
}

impl Format {
    /// Every format, by name.
    pub const ALL: [Format; 13] = [
        Format::Msr,
        Format::Spc,
        Format::Fiu,
        Format::Biotracer,
        Format::Mqsim,
        Format::Disksim,
        Format::Blkparse,
        Format::Alibaba,
        Format::Pages,
        Format::Vscsi,
        Format::OracleGeneral,
        Format::Midas,
        Format::Tectonic,
    ];

    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Msr => "msr",
            Format::Spc => "spc",
            Format::Fiu => "fiu",
            Format::Biotracer => "biotracer",
            Format::Mqsim => "mqsim",
            Format::Disksim => "disksim",
            Format::Blkparse => "blkparse",
            Format::Alibaba => "alibaba",
            Format::Pages => "pages",
            Format::Csv(_) => "csv",
            Format::Vscsi => "vscsi",
            Format::OracleGeneral => "oracle-general",
            Format::Midas => "midas",
            Format::Tectonic => "tectonic",
        }
    }

    /// Whether the format is binary records rather than text lines (then a "line" of an error
    /// or a report is a record).
    pub fn is_binary(self) -> bool {
        matches!(self, Format::Vscsi | Format::OracleGeneral)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Csv(c) => c.fmt(f),
            _ => f.write_str(self.name()),
        }
    }
}

impl FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim();
        if let Some(params) = s.strip_prefix("csv:") {
            return csv::Columns::parse(params, s).map(Format::Csv);
        }
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                Error::param(
                    "format",
                    format!("`{s}`"),
                    format!(
                        "one of {}, or csv:op=I,offset=I,size=I[,…] (docs/traces.md)",
                        names.join(", ")
                    ),
                )
            })
    }
}

/// One request of a trace, in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request<'a> {
    /// Time in seconds, as the trace gives it (its own origin).
    pub time: Option<f64>,
    /// Device or volume, as the trace names it.
    pub device: &'a str,
    /// First byte.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// Write (true) or read.
    pub write: bool,
    /// A discard (TRIM): its pages hold no data any more; `write` is false.
    pub trim: bool,
}

/// What a line parser makes of one line.
pub type Parsed<'a> = std::result::Result<Option<Request<'a>>, String>;

/// The fields of a line separated by the ASCII byte `sep`, as `str::split` gives them but
/// without its general pattern search (the converter's hot path).
pub(crate) fn fields(line: &str, sep: u8) -> impl Iterator<Item = &str> {
    debug_assert!(sep.is_ascii());
    let mut rest = Some(line);
    std::iter::from_fn(move || {
        let r = rest?;
        if let Some(i) = r.bytes().position(|b| b == sep) {
            rest = Some(&r[i + 1..]);
            Some(&r[..i])
        } else {
            rest = None;
            Some(r)
        }
    })
}

/// The first `N` whitespace-separated fields of a line (the rest `""`) and how many fields the
/// line has in all, without allocating (the converter's hot path).
pub(crate) fn ws_fields<const N: usize>(line: &str) -> ([&str; N], usize) {
    let mut f = [""; N];
    let mut n = 0;
    for x in line.split_ascii_whitespace() {
        if let Some(slot) = f.get_mut(n) {
            *slot = x;
        }
        n += 1;
    }
    (f, n)
}

/// Parses an unsigned integer field, naming it in the error.
pub(crate) fn uint(field: Option<&str>, name: &str) -> std::result::Result<u64, String> {
    let f = field.ok_or_else(|| format!("a field `{name}`"))?;
    // Fast path: plain decimal digits, no surrounding space, no overflow.
    let b = f.as_bytes();
    if !b.is_empty() && b.len() <= 19 && b.iter().all(u8::is_ascii_digit) {
        return Ok(b.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')));
    }
    let f = f.trim();
    if f.starts_with('-') {
        return Err(format!(
            "a non-negative `{name}` (negative address or size)"
        ));
    }
    f.parse::<u64>()
        .map_err(|_| format!("an unsigned integer `{name}`"))
}

/// Parses a float field, naming it in the error.
pub(crate) fn float(field: Option<&str>, name: &str) -> std::result::Result<f64, String> {
    let f = field.ok_or_else(|| format!("a field `{name}`"))?.trim();
    // `inf` and `nan` parse as floats but are no time a trace can hold.
    f.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("a finite number `{name}`"))
}

/// Options of a reader.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Skip malformed lines (counted per reason) instead of failing on the first.
    pub skip_bad_lines: bool,
    /// Keep only this device or volume (`hm_0` for MSR, the ASU for SPC, `major,minor` for FIU,
    /// the device number for `MQSim` and Alibaba, `8,16` for blkparse).
    pub device: Option<String>,
    /// blkparse: the one stage whose events are requests (`Q`, `D`, `C`, …).
    pub blkparse_action: String,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            skip_bad_lines: false,
            device: None,
            blkparse_action: "Q".into(),
        }
    }
}

/// What a reader saw besides requests.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReadReport {
    /// Lines read.
    pub lines: u64,
    /// Requests kept (reads and writes).
    pub requests: u64,
    /// Read requests kept.
    pub reads: u64,
    /// Write requests kept.
    pub writes: u64,
    /// Requests of other devices, left out by `device`.
    pub other_devices: u64,
    /// Lines skipped by `skip_bad_lines`, per reason.
    pub skipped: BTreeMap<String, u64>,
    /// Bytes before the first record that are not records (e.g. an archive header).
    pub leading_garbage_bytes: u64,
    /// Lines, wholly or partly, before the first record that are not records.
    pub leading_garbage_lines: u64,
    /// NUL bytes after the last record (archive padding).
    pub trailing_padding_bytes: u64,
    /// Header lines before the first record (see [`is_header`]), skipped.
    pub header_lines: u64,
    /// Records that are not requests (vSCSI commands other than READ and WRITE).
    pub non_requests: u64,
    /// Discard (TRIM) requests kept.
    pub trims: u64,
}

/// Whether a line that is not a record, met before the first record, is a header: column names,
/// every field (split at commas, tabs or spaces) a word with a letter in it and none a number.
/// Such a line is skipped and counted ([`ReadReport::header_lines`]); any other line that is not
/// a record is an error (or skipped as bad with `--skip-bad-lines`).
pub fn is_header(line: &str) -> bool {
    let mut fields = line
        .split([',', '\t', ' ', ';'])
        .map(|f| f.trim().trim_matches('"'))
        .filter(|f| !f.is_empty())
        .peekable();
    fields.peek().is_some()
        && fields.all(|f| f.parse::<f64>().is_err() && f.chars().any(|c| c.is_ascii_alphabetic()))
}

/// A device's name as reclaim gives it: as the trace writes it, but MSR's `Hostname,DiskNumber`
/// joined by `_` (`hm_0`, as the trace set names its volumes).
pub fn device_name(format: Format, device: &str) -> String {
    if format == Format::Msr {
        device.replace(',', "_")
    } else {
        device.to_string()
    }
}

/// Whether a request's `device`, as the line holds it, is the device named `name` (see
/// [`device_name`]), without allocating (the converter's hot path).
fn same_device(format: Format, device: &str, name: &str) -> bool {
    if format == Format::Msr {
        device.len() == name.len()
            && device
                .bytes()
                .zip(name.bytes())
                .all(|(d, n)| d == n || (d == b',' && n == b'_'))
    } else {
        device == name
    }
}

/// Opens a file, decompressing gzip or zstd when it starts with their magic bytes.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    decode(path, open_file(path)?)
}

/// Opens a file for reading; a wait for a FIFO's writer stops on the default stop.
pub(crate) fn open_file(path: &Path) -> Result<File> {
    open_stoppable(path).map_err(|e| match e {
        OpenError::Stopped => interrupted(path, 0),
        OpenError::Io(e) => Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        },
    })
}

enum OpenError {
    Stopped,
    Io(std::io::Error),
}

/// Opens `path` for reading as `File::open` does, but a signal that interrupts the wait (a FIFO
/// waits for its writer to open it) asks the default stop before the open is tried again, where
/// `File::open` would try again at once and wait forever.
#[cfg(unix)]
fn open_stoppable(path: &Path) -> std::result::Result<File, OpenError> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|e| OpenError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, e)))?;
    loop {
        // SAFETY: `name` is a NUL-terminated path that outlives the call.
        let fd = unsafe { libc::open(name.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        if fd >= 0 {
            // SAFETY: `fd` was just opened and is owned by nothing else.
            return Ok(unsafe { File::from_raw_fd(fd) });
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(OpenError::Io(e));
        }
        if default_stop() {
            return Err(OpenError::Stopped);
        }
    }
}

#[cfg(not(unix))]
fn open_stoppable(path: &Path) -> std::result::Result<File, OpenError> {
    File::open(path).map_err(OpenError::Io)
}

/// Wraps `input` in a buffer, and in a gzip or zstd decoder when it starts with a gzip member's
/// header (see [`is_gzip`]) or a zstd frame's magic (28 B5 2F FD, RFC 8878 §3.1.1); several
/// concatenated members or frames are read as one stream.
pub fn decode(path: &Path, input: impl Read + Send + 'static) -> Result<Box<dyn BufRead + Send>> {
    let mut buffered = BufReader::with_capacity(1 << 20, input);
    // Peeking at the buffer reads no byte twice (a pipe or a file alike). A pipe's writer may
    // keep it waiting: a signal then interrupts the read, and the default stop is asked.
    loop {
        match buffered.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                if default_stop() {
                    return Err(interrupted(path, 0));
                }
            }
            Err(e) => {
                return Err(Error::Io {
                    path: path.display().to_string(),
                    message: e.to_string(),
                })
            }
        }
    }
    let head = buffered.buffer();
    if is_gzip(head) {
        Ok(Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::read::MultiGzDecoder::new(buffered),
        )))
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        let decoder =
            zstd::stream::read::Decoder::with_buffer(buffered).map_err(|e| Error::Io {
                path: path.display().to_string(),
                message: format!("zstd: {e}"),
            })?;
        Ok(Box::new(BufReader::with_capacity(1 << 20, decoder)))
    } else {
        Ok(Box::new(buffered))
    }
}

/// True when `head` starts as a gzip member does (RFC 1952 §2.3.1): ID1 ID2 = 1F 8B, CM = 8
/// (deflate, the only method defined) and FLG with its reserved bits 5–7 clear. The two magic
/// bytes alone are not enough: a binary trace's first timestamp starts with them once in 65,536
/// files, and such a file must be read as records, not refused as a bad gzip stream. With the
/// method and flags checked, a false match is one in 2^27.
pub fn is_gzip(head: &[u8]) -> bool {
    head.len() >= 4 && head[..3] == [0x1f, 0x8b, 0x08] && head[3] & 0xe0 == 0
}

/// The lengths of a trace's write requests in slots of `slot_bytes` bytes, each rounded up, as
/// (slots, requests) in increasing order of slots: a page-size distribution taken from a trace
/// (Lomet & Luo §4.4; `sizes=choice:…`). Zero-length writes are left out and counted in the
/// report's `skipped` as `empty write`. `stop`, if given, is polled as the trace is read ([`Stop`]).
pub fn request_sizes(
    path: &Path,
    format: Format,
    options: ReadOptions,
    slot_bytes: u64,
    stop: Option<Stop>,
) -> Result<(Vec<(u64, u64)>, ReadReport)> {
    if slot_bytes == 0 {
        return Err(Error::param("slot_bytes", 0, "a whole number of bytes ≥ 1"));
    }
    let mut reader = TraceReader::new(path, format, options)?;
    if let Some(stop) = stop {
        reader.set_stop(stop);
    }
    let mut counts = BTreeMap::new();
    let mut empty = 0;
    while let Some(r) = reader.next_request()? {
        if !r.write {
            continue;
        }
        if r.len == 0 {
            empty += 1;
            continue;
        }
        *counts.entry(r.len.div_ceil(slot_bytes)).or_insert(0u64) += 1;
    }
    let mut report = reader.report;
    if empty > 0 {
        report.skipped.insert("empty write".to_string(), empty);
    }
    Ok((counts.into_iter().collect(), report))
}
