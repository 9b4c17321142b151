//! Block-trace readers: streaming, gzip- and zstd-aware, one file per format, every bad line an error
//! that names the file, the line number, the line and what was expected.
//!
//! A request covering any part of a page writes that page (DESIGN "Traces"). Reads are counted,
//! never replayed. Page ids are kept as addresses or renamed densely in first-write order
//! (Stockmeyer §2.1); see [`convert`].

pub mod alibaba;
pub mod binary;
pub mod biotracer;
pub mod blkparse;
pub mod convert;
pub mod csv;
pub mod disksim;
pub mod fiu;
pub mod libcachesim;
pub mod mqsim;
pub mod msr;
pub mod pages;
pub mod spc;
mod spill;
pub mod stand_in;
pub mod stand_in_files;
mod volume;

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
}

impl Format {
    /// Every format, by name.
    pub const ALL: [Format; 11] = [
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

/// The index of the first `\n` in `bytes`, eight bytes at a time (the converter's hot path; std's
/// `read_until` searches so too, but retries the reads a signal interrupts, which a stop must
/// see). A byte `b` of `x = word ^ 0x0a0a…` is zero where the word holds `\n`, and
/// `(x - 0x0101…) & !x & 0x8080…` flags the lowest such byte exactly (a borrow only flags bytes
/// above it).
fn newline(bytes: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().expect("8 bytes")) ^ NL;
        let found = x.wrapping_sub(LO) & !x & HI;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| at + i)
}

/// A streaming reader of one trace file.
pub struct TraceReader {
    path: PathBuf,
    format: Format,
    options: ReadOptions,
    input: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    line: u64,
    seen_record: bool,
    framing_seen: bool,
    pending_padding: u64,
    /// The vSCSI version, once detected (0 before).
    vscsi: u8,
    /// Volumes seen, in first-seen order (their names), and their indices by the device as the
    /// lines write it.
    volumes: Vec<String>,
    volume_index: std::collections::HashMap<String, u32>,
    last_volume: u32,
    /// The last volume's device as the line writes it.
    last_device: String,
    /// The caller's stop request, if any, polled every [`POLL_LINES`] lines.
    stop: Option<Stop>,
    /// Counts so far.
    pub report: ReadReport,
}

/// A request with owned fields, as the reader hands it out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Owned {
    /// Time in seconds, if the format has one.
    pub time: Option<f64>,
    /// First byte.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// Write or read.
    pub write: bool,
    /// A discard (TRIM); `write` is false.
    pub trim: bool,
    /// The request's volume: an index into [`TraceReader::volumes`], in first-seen order.
    pub volume: u32,
}

impl TraceReader {
    /// The volumes (devices) seen so far, as the trace names them, in first-seen order; one,
    /// named `""`, for a format without devices.
    pub fn volumes(&self) -> &[String] {
        &self.volumes
    }

    /// The index of the volume named `device`, registered when first seen. Requests of one
    /// volume come in runs, so the last volume is compared first and a lookup is rare.
    fn volume_of(&mut self, format: Format, device: &str) -> u32 {
        if self.volumes.len() > self.last_volume as usize && self.last_device == device {
            return self.last_volume;
        }
        // Keyed by the device as the line writes it: a lookup allocates nothing.
        let v = if let Some(&v) = self.volume_index.get(device) {
            v
        } else {
            let v = self.volumes.len() as u32;
            self.volume_index.insert(device.to_string(), v);
            self.volumes.push(device_name(format, device));
            v
        };
        self.last_device.clear();
        self.last_device.push_str(device);
        self.last_volume = v;
        v
    }

    /// Opens `path` as `format`.
    pub fn new(path: &Path, format: Format, options: ReadOptions) -> Result<Self> {
        Self::with_input(path, format, options, open(path)?)
    }

    /// Reads `format` from `input` (already decoded); errors name `path`.
    pub fn with_input(
        path: &Path,
        format: Format,
        options: ReadOptions,
        input: Box<dyn BufRead + Send>,
    ) -> Result<Self> {
        Ok(TraceReader {
            input,
            path: path.to_path_buf(),
            format,
            options,
            buf: Vec::with_capacity(256),
            line: 0,
            seen_record: false,
            framing_seen: false,
            pending_padding: 0,
            vscsi: 0,
            volumes: Vec::new(),
            volume_index: std::collections::HashMap::new(),
            last_volume: 0,
            last_device: String::new(),
            stop: DEFAULT_STOP.get().map(|&f| Box::new(f) as Stop),
            report: ReadReport::default(),
        })
    }

    /// Sets the hook polled every [`POLL_LINES`] lines (records) and while a long bad line is
    /// skipped: when it returns true the read stops with an error naming the file and the line.
    pub fn set_stop(&mut self, stop: Stop) {
        self.stop = Some(stop);
    }

    /// Polls the stop hook: an error when the caller asked to stop.
    pub fn check_stop(&mut self) -> Result<()> {
        if self.stop.as_mut().is_some_and(|stop| stop()) {
            return Err(interrupted(&self.path, self.line));
        }
        Ok(())
    }

    /// Reads the next line into `self.buf` (cleared first), at most [`MAX_LINE_BYTES`] bytes of
    /// it; returns the bytes read and whether the line was longer (then only its first
    /// [`MAX_LINE_BYTES`] bytes are in the buffer and the rest is still unread). A read that a
    /// signal interrupts (a pipe waiting for its writer) polls the stop hook before it resumes.
    fn read_line(&mut self) -> Result<(usize, bool)> {
        self.buf.clear();
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    self.check_stop()?;
                    continue;
                }
                Err(e) => {
                    return Err(Error::Io {
                        path: self.path.display().to_string(),
                        // A damaged gzip stream fails mid-file: say where.
                        message: format!("{e} (after line {})", self.line),
                    });
                }
            };
            if chunk.is_empty() {
                return Ok((self.buf.len(), false));
            }
            let window = &chunk[..chunk.len().min(MAX_LINE_BYTES - self.buf.len())];
            if let Some(i) = newline(window) {
                self.buf.extend_from_slice(&window[..=i]);
                self.input.consume(i + 1);
                return Ok((self.buf.len(), false));
            }
            let n = window.len();
            self.buf.extend_from_slice(window);
            self.input.consume(n);
            if self.buf.len() == MAX_LINE_BYTES {
                return Ok((self.buf.len(), true));
            }
        }
    }

    /// Reads past the rest of a line longer than [`MAX_LINE_BYTES`] without keeping it, polling
    /// the stop hook at every buffer (an endless line, `/dev/zero`, is read until stopped).
    fn skip_rest_of_line(&mut self) -> Result<()> {
        loop {
            self.check_stop()?;
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Error::Io {
                        path: self.path.display().to_string(),
                        message: format!("{e} (in line {})", self.line),
                    })
                }
            };
            if chunk.is_empty() {
                return Ok(());
            }
            if let Some(i) = chunk.iter().position(|&b| b == b'\n') {
                self.input.consume(i + 1);
                return Ok(());
            }
            let n = chunk.len();
            self.input.consume(n);
        }
    }

    /// A line longer than [`MAX_LINE_BYTES`]: an error, or with `skip_bad_lines` skipped (not
    /// kept) and counted.
    fn long_line(&mut self) -> Result<()> {
        self.line += 1;
        self.report.lines += 1;
        let expected =
            format!("a line of at most {MAX_LINE_BYTES} bytes (damaged or binary input?)");
        if !self.options.skip_bad_lines {
            let head = String::from_utf8_lossy(&self.buf[..self.buf.len().min(40)])
                .escape_debug()
                .to_string();
            return Err(self.error(&head, expected));
        }
        *self.report.skipped.entry(expected).or_insert(0) += 1;
        self.skip_rest_of_line()
    }

    /// Stops a read that has passed over more than [`MAX_LEADING_GARBAGE_BYTES`] before its
    /// first record.
    fn check_leading_garbage(&self) -> Result<()> {
        if self.seen_record || self.report.leading_garbage_bytes <= MAX_LEADING_GARBAGE_BYTES {
            return Ok(());
        }
        Err(Error::NoRecords {
            path: self.path.display().to_string(),
            format: self.format.to_string(),
            lines: self.report.lines,
            skipped: format!(
                " ({} bytes before any record are not text records; at most {MAX_LEADING_GARBAGE_BYTES} are passed over)",
                self.report.leading_garbage_bytes
            ),
        })
    }

    fn error(&self, content: &str, expected: String) -> Error {
        let mut shown: String = content.chars().take(200).collect();
        if shown.len() < content.len() {
            shown.push('…');
        }
        Error::Trace {
            path: self.path.display().to_string(),
            line: self.line,
            content: shown,
            expected,
        }
    }

    /// The next request, or `None` at the end of the file.
    pub fn next_request(&mut self) -> Result<Option<Owned>> {
        if self.format.is_binary() {
            return self.next_record();
        }
        loop {
            if self.line.is_multiple_of(POLL_LINES) {
                self.check_stop()?;
            }
            let (n, long) = self.read_line()?;
            if n == 0 {
                self.report.trailing_padding_bytes += self.pending_padding;
                return Ok(None);
            }
            if long {
                self.long_line()?;
                continue;
            }
            // The line is parsed in place (no copy per line): the buffer is lent out meanwhile.
            let buf = std::mem::take(&mut self.buf);
            let request = self.parse_line(&buf);
            self.buf = buf;
            if let Some(request) = request? {
                return Ok(Some(request));
            }
            self.check_leading_garbage()?;
        }
    }

    /// Bytes per record of a binary trace (the vSCSI version detected from the first records at
    /// the first call); `None` for an empty input.
    fn record_bytes(&mut self) -> Result<Option<usize>> {
        if self.format == Format::OracleGeneral {
            return Ok(Some(libcachesim::ORACLE_GENERAL_BYTES));
        }
        if self.vscsi == 0 {
            let path = || self.path.display().to_string();
            let head = self.input.fill_buf().map_err(|e| Error::Io {
                path: path(),
                // A damaged gzip or zstd stream can fail on its first bytes.
                message: format!("{e} (after record 0)"),
            })?;
            if head.is_empty() {
                return Ok(None);
            }
            self.vscsi =
                libcachesim::vscsi_version(&head[..head.len().min(80)]).ok_or_else(|| {
                    Error::BadFile {
                        path: path(),
                        byte: 0,
                        expected:
                            "vSCSI records of version 1 or 2 (`ver >> 8` of the first records)"
                                .into(),
                    }
                })?;
        }
        Ok(Some(libcachesim::vscsi_record_bytes(self.vscsi)))
    }

    /// The next request of a binary trace, or `None` at its end; a bad record is an error that
    /// names its first byte (or is skipped, counted per reason, with `skip_bad_lines`).
    fn next_record(&mut self) -> Result<Option<Owned>> {
        let Some(size) = self.record_bytes()? else {
            return Ok(None);
        };
        let path = |p: &Path| p.display().to_string();
        loop {
            if self.line.is_multiple_of(POLL_LINES) {
                self.check_stop()?;
            }
            let at = self.line * size as u64;
            self.buf.resize(size, 0);
            let mut got = 0;
            while got < size {
                match self.input.read(&mut self.buf[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => self.check_stop()?,
                    Err(e) => {
                        return Err(Error::Io {
                            path: path(&self.path),
                            message: format!("{e} (after record {})", self.line),
                        })
                    }
                }
            }
            if got == 0 {
                return Ok(None);
            }
            if got < size {
                return Err(Error::BadFile {
                    path: path(&self.path),
                    byte: at,
                    expected: format!(
                        "a whole {size}-byte {} record ({got} bytes left)",
                        self.format
                    ),
                });
            }
            self.line += 1;
            self.report.lines += 1;
            let record = match self.format {
                Format::OracleGeneral => libcachesim::oracle_general(&self.buf),
                _ => libcachesim::vscsi(&self.buf, self.vscsi),
            };
            let checked = record.and_then(|r| match r {
                libcachesim::Record::Request { len: 0, .. } => {
                    Err("a request of non-zero length (zero-length request)".to_string())
                }
                libcachesim::Record::Request { offset, len, .. }
                    if offset.checked_add(len).is_none() =>
                {
                    Err("an address that fits in 64 bits".to_string())
                }
                other => Ok(other),
            });
            match checked {
                Ok(libcachesim::Record::Other) => self.report.non_requests += 1,
                Ok(libcachesim::Record::Request {
                    time,
                    offset,
                    len,
                    write,
                }) => {
                    self.seen_record = true;
                    if self.options.device.as_ref().is_some_and(|d| !d.is_empty()) {
                        self.report.other_devices += 1;
                        continue;
                    }
                    self.report.requests += 1;
                    if write {
                        self.report.writes += 1;
                    } else {
                        self.report.reads += 1;
                    }
                    // libCacheSim's block records name no device: one volume.
                    let volume = self.volume_of(self.format, "");
                    return Ok(Some(Owned {
                        time: Some(time),
                        offset,
                        len,
                        write,
                        trim: false,
                        volume,
                    }));
                }
                Err(expected) if self.options.skip_bad_lines => {
                    *self.report.skipped.entry(expected).or_insert(0) += 1;
                }
                Err(expected) => {
                    return Err(Error::BadFile {
                        path: path(&self.path),
                        byte: at,
                        expected,
                    })
                }
            }
        }
    }

    /// The request on one raw line, `None` when the line holds none (blank, framing, another
    /// device, a stage or kind the format passes over, or a bad line skipped).
    #[allow(clippy::too_many_lines)] // one match over the formats, each arm a few lines
    fn parse_line(&mut self, raw: &[u8]) -> Result<Option<Owned>> {
        self.line += 1;
        self.report.lines += 1;
        // NUL bytes mean archive framing (a tar header before the first record, padding after
        // the last): only what follows the last NUL on the line can be a record.
        let mut start = 0;
        // `contains` on bytes searches a word at a time; most lines have no NUL at all.
        let last_nul = if raw.contains(&0) {
            raw.iter().rposition(|&c| c == 0)
        } else {
            None
        };
        if let Some(p) = last_nul {
            start = p + 1;
            if self.seen_record {
                self.pending_padding += start as u64;
            } else {
                self.framing_seen = true;
                self.report.leading_garbage_bytes += start as u64;
            }
        }
        let text = if let Ok(t) = std::str::from_utf8(&raw[start..]) {
            t.trim_end_matches(['\n', '\r'])
        } else {
            let shown = String::from_utf8_lossy(&raw[start..])
                .trim_end()
                .to_string();
            if !self.seen_record {
                self.report.leading_garbage_lines += 1;
                self.report.leading_garbage_bytes += (raw.len() - start) as u64;
                return Ok(None);
            }
            if self.options.skip_bad_lines {
                *self
                    .report
                    .skipped
                    .entry("not UTF-8 text".into())
                    .or_insert(0) += 1;
                return Ok(None);
            }
            return Err(self.error(&shown, "UTF-8 text".into()));
        };
        if text.trim().is_empty() {
            return Ok(None);
        }
        let header = match self.format {
            Format::Csv(c) => c.header,
            _ => csv::Header::Auto,
        };
        if header == csv::Header::Skip && self.report.lines == 1 {
            self.report.header_lines += 1;
            return Ok(None);
        }
        let parsed = match self.format {
            Format::Msr => msr::parse(text),
            Format::Spc => spc::parse(text),
            Format::Fiu => fiu::parse(text),
            Format::Biotracer => biotracer::parse(text),
            Format::Mqsim => mqsim::parse(text),
            Format::Disksim => disksim::parse(text),
            Format::Blkparse => blkparse::parse(text, &self.options.blkparse_action),
            Format::Alibaba => alibaba::parse(text),
            Format::Pages => pages::parse(text),
            Format::Csv(c) => c.parse_line(text),
            Format::Vscsi | Format::OracleGeneral => unreachable!("binary records are not lines"),
        };
        let checked = parsed.and_then(|r| match r {
            Some(q) if q.len == 0 => {
                Err("a request of non-zero length (zero-length request)".to_string())
            }
            Some(q) if q.offset.checked_add(q.len).is_none() => {
                Err("an address that fits in 64 bits".to_string())
            }
            other => Ok(other),
        });
        match checked {
            Ok(None) => Ok(None),
            Ok(Some(req)) => {
                if !self.seen_record && start > 0 {
                    self.report.leading_garbage_lines += 1;
                }
                self.seen_record = true;
                if self.pending_padding > 0 {
                    // NULs between records are not trailing padding: they are bad input.
                    let pad = self.pending_padding;
                    self.pending_padding = 0;
                    if !self.options.skip_bad_lines {
                        return Err(
                            self.error(text, format!("no NUL bytes between records ({pad} found)"))
                        );
                    }
                    *self
                        .report
                        .skipped
                        .entry("NUL bytes between records".into())
                        .or_insert(0) += 1;
                }
                if let Some(dev) = &self.options.device {
                    if !same_device(self.format, req.device, dev) {
                        self.report.other_devices += 1;
                        return Ok(None);
                    }
                }
                self.report.requests += 1;
                if req.write {
                    self.report.writes += 1;
                } else if req.trim {
                    self.report.trims += 1;
                } else {
                    self.report.reads += 1;
                }
                let volume = self.volume_of(self.format, req.device);
                Ok(Some(Owned {
                    time: req.time,
                    offset: req.offset,
                    len: req.len,
                    write: req.write,
                    trim: req.trim,
                    volume,
                }))
            }
            Err(expected) => {
                if !self.seen_record && header == csv::Header::Auto && is_header(text) {
                    self.report.header_lines += 1;
                    return Ok(None);
                }
                if !self.seen_record && self.framing_seen {
                    // Inside archive framing before the first record: reported as leading
                    // garbage, never dropped silently.
                    self.report.leading_garbage_lines += 1;
                    self.report.leading_garbage_bytes += (raw.len() - start) as u64;
                    return Ok(None);
                }
                if self.options.skip_bad_lines {
                    *self.report.skipped.entry(expected).or_insert(0) += 1;
                    return Ok(None);
                }
                Err(self.error(text, expected))
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::newline;

    #[test]
    fn newline_finds_the_first_newline_as_a_byte_search_does() {
        // Every length to 40 and every position of a first `\n`, around bytes that trip a
        // word-at-a-time search (0x0b = `\n` + 1, 0x8a, 0x09, 0x00, 0xff), and none at all.
        let fill = [0x0b, 0x8a, 0x09, 0x00, 0xff, b'a', 0x0a ^ 0x80];
        for len in 0..40 {
            let base: Vec<u8> = (0..len).map(|i| fill[i % fill.len()]).collect();
            assert_eq!(newline(&base), None, "{base:?}");
            for first in 0..len {
                let mut b = base.clone();
                b[first] = b'\n';
                if first + 3 < len {
                    b[first + 3] = b'\n';
                }
                assert_eq!(newline(&b), Some(first), "{b:?}");
            }
        }
    }
}
