//! The streaming reader of one trace file: text lines read through a bounded, stoppable line
//! reader (at most [`MAX_LINE_BYTES`] a line, [`MAX_LEADING_GARBAGE_BYTES`] of non-records before
//! the first record, a stop polled every [`POLL_LINES`] lines), each parsed by its format's reader.

#[allow(clippy::wildcard_imports)] // the parsers and helpers of this module's parent
use super::*;

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
            Format::Midas => match midas::parse(text) {
                Ok(midas::Line::Request(r)) => Ok(Some(r)),
                Ok(midas::Line::NoOp) => {
                    self.report.non_requests += 1;
                    Ok(None)
                }
                Ok(midas::Line::LoadEnd) => Ok(None),
                Err(e) => Err(e),
            },
            Format::Tectonic => match tectonic::parse(text) {
                Ok(None) => {
                    self.report.non_requests += 1;
                    Ok(None)
                }
                other => other,
            },
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
