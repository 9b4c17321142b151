//! Column-mapped CSV: a block trace of one request per line in delimited columns, read as its
//! spec says, for the traces no built-in format knows:
//!
//! `csv:op=I,offset=I,size=I[,time=I][,volume=I][,sep=comma|tab|space|semicolon]`
//! `[,header=auto|skip|none][,time_unit=s|ms|us|ns][,offset_unit=byte|sector|kib]`
//! `[,size_unit=byte|sector|kib][,write=TOKEN][,read=TOKEN]`
//!
//! Columns are numbered from 0. An `op` field equal to the `write` token (default `W`), ignoring
//! ASCII case, is a write, one equal to the `read` token (default `R`) a read, anything else a bad
//! line. A sector is 512 bytes. `header=auto` (the default) skips a header line of column names
//! before the first record, as every reader does; `skip` skips the first line whatever it holds;
//! `none` skips nothing. With `sep=space` any run of spaces and tabs separates columns.

use std::fmt;

use super::{float, uint, Parsed, Request};
use crate::error::{Error, Result};

/// Columns of a line this reader looks at, at most.
pub const MAX_COLUMNS: usize = 64;

/// What a header line is to the reader (`header=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// A line of column names before the first record is skipped (as by every reader).
    Auto,
    /// The first line is skipped whatever it holds.
    Skip,
    /// Nothing is skipped: a first line that is not a record is a bad line.
    None,
}

/// A short token matched against the `op` column (up to 15 bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Token {
    bytes: [u8; 15],
    len: u8,
}

impl Token {
    fn new(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if b.is_empty() || b.len() > 15 || s.contains([',', ' ', '\t', ';']) {
            return None;
        }
        let mut bytes = [0; 15];
        bytes[..b.len()].copy_from_slice(b);
        Some(Token {
            bytes,
            len: b.len() as u8,
        })
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("made from a str")
    }

    fn matches(&self, field: &str) -> bool {
        field.eq_ignore_ascii_case(self.as_str())
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A column-mapped CSV format, as its spec gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Column of the operation.
    pub op: u8,
    /// Column of the first address.
    pub offset: u8,
    /// Column of the length.
    pub size: u8,
    /// Column of the time, if any.
    pub time: Option<u8>,
    /// Column of the volume (device), if any.
    pub volume: Option<u8>,
    /// Separator byte; `b' '` means any run of spaces and tabs.
    pub sep: u8,
    /// What a header line is.
    pub header: Header,
    /// Time units per second (1, 10³, 10⁶, 10⁹).
    pub time_per_second: u32,
    /// Bytes per unit of `offset`.
    pub offset_unit: u32,
    /// Bytes per unit of `size`.
    pub size_unit: u32,
    /// The `op` of a write.
    pub write: Token,
    /// The `op` of a read.
    pub read: Token,
    /// The `op` of a discard (TRIM), if the trace has them.
    pub trim: Option<Token>,
}

const SEPS: [(&str, u8); 4] = [
    ("comma", b','),
    ("tab", b'\t'),
    ("space", b' '),
    ("semicolon", b';'),
];
const TIME_UNITS: [(&str, u32); 4] = [
    ("s", 1),
    ("ms", 1_000),
    ("us", 1_000_000),
    ("ns", 1_000_000_000),
];
const SIZE_UNITS: [(&str, u32); 3] = [("byte", 1), ("sector", 512), ("kib", 1024)];

fn name_of<T: PartialEq + Copy>(table: &[(&'static str, T)], v: T) -> &'static str {
    table.iter().find(|(_, x)| *x == v).map_or("?", |(n, _)| n)
}

fn choice<T: Copy>(table: &[(&str, T)], key: &str, value: &str, spec: &str) -> Result<T> {
    table
        .iter()
        .find(|(n, _)| *n == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            Error::param(
                "format",
                format!("`{spec}`"),
                format!("`{key}` one of {} (found `{value}`)", names.join(", ")),
            )
        })
}

impl Columns {
    /// Parses the parameters of a `csv:…` spec (what follows `csv:`); `spec` names it in errors.
    pub fn parse(params: &str, spec: &str) -> Result<Self> {
        let bad = |what: String| Error::param("format", format!("`{spec}`"), what);
        let column = |key: &str, v: &str| -> Result<u8> {
            v.parse::<u8>()
                .ok()
                .filter(|&c| usize::from(c) < MAX_COLUMNS)
                .ok_or_else(|| {
                    bad(format!(
                        "`{key}` a column number from 0 to {} (found `{v}`)",
                        MAX_COLUMNS - 1
                    ))
                })
        };
        let (mut op, mut offset, mut size, mut time, mut volume) = (None, None, None, None, None);
        let mut c = Columns {
            op: 0,
            offset: 0,
            size: 0,
            time: None,
            volume: None,
            sep: b',',
            header: Header::Auto,
            time_per_second: 1,
            offset_unit: 1,
            size_unit: 1,
            write: Token::new("W").expect("a token"),
            read: Token::new("R").expect("a token"),
            trim: None,
        };
        let mut seen: Vec<&str> = Vec::new();
        for pair in params.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| bad(format!("`key=value` pairs (found `{pair}`)")))?;
            if seen.contains(&key) {
                return Err(bad(format!("`{key}` given once")));
            }
            seen.push(key);
            match key {
                "op" => op = Some(column(key, value)?),
                "offset" => offset = Some(column(key, value)?),
                "size" => size = Some(column(key, value)?),
                "time" => time = Some(column(key, value)?),
                "volume" => volume = Some(column(key, value)?),
                "sep" => c.sep = choice(&SEPS, key, value, spec)?,
                "header" => {
                    c.header = choice(
                        &[("auto", Header::Auto), ("skip", Header::Skip), ("none", Header::None)],
                        key,
                        value,
                        spec,
                    )?;
                }
                "time_unit" => c.time_per_second = choice(&TIME_UNITS, key, value, spec)?,
                "offset_unit" => c.offset_unit = choice(&SIZE_UNITS, key, value, spec)?,
                "size_unit" => c.size_unit = choice(&SIZE_UNITS, key, value, spec)?,
                "write" | "read" | "trim" => {
                    let t = Token::new(value).ok_or_else(|| {
                        bad(format!("`{key}` a token of 1 to 15 bytes without separators (found `{value}`)"))
                    })?;
                    match key {
                        "write" => c.write = t,
                        "read" => c.read = t,
                        _ => c.trim = Some(t),
                    }
                }
                _ => {
                    return Err(bad(format!(
                        "keys among op, offset, size, time, volume, sep, header, time_unit, offset_unit, size_unit, write, read, trim (found `{key}`)"
                    )))
                }
            }
        }
        let need = |v: Option<u8>, key: &str| {
            v.ok_or_else(|| {
                bad(format!(
                    "a column for `{key}` (e.g. csv:op=1,offset=2,size=3)"
                ))
            })
        };
        c.op = need(op, "op")?;
        c.offset = need(offset, "offset")?;
        c.size = need(size, "size")?;
        (c.time, c.volume) = (time, volume);
        let trim = c.trim.as_ref().map(Token::as_str);
        if c.write.matches(c.read.as_str())
            || trim.is_some_and(|t| c.write.matches(t) || c.read.matches(t))
        {
            return Err(bad(
                "different `write`, `read` and `trim` tokens".to_string()
            ));
        }
        Ok(c)
    }

    /// The highest column a line must have.
    fn last(&self) -> usize {
        [
            Some(self.op),
            Some(self.offset),
            Some(self.size),
            self.time,
            self.volume,
        ]
        .into_iter()
        .flatten()
        .map(usize::from)
        .max()
        .unwrap_or(0)
    }

    /// Parses one line.
    pub fn parse_line<'a>(&self, line: &'a str) -> Parsed<'a> {
        let mut f = [""; MAX_COLUMNS];
        let n = if self.sep == b' ' {
            fill(&mut f, line.split_ascii_whitespace())
        } else {
            fill(&mut f, line.split(char::from(self.sep)))
        };
        let last = self.last();
        if n <= last {
            return Err(format!("at least {} columns", last + 1));
        }
        let field = |c: u8| f[usize::from(c)].trim();
        let op = field(self.op);
        let (write, trim) = if self.write.matches(op) {
            (true, false)
        } else if self.read.matches(op) {
            (false, false)
        } else if self.trim.as_ref().is_some_and(|t| t.matches(op)) {
            (false, true)
        } else {
            let trim = self
                .trim
                .as_ref()
                .map_or(String::new(), |t| format!(" or {}", t.as_str()));
            return Err(format!(
                "`op` {} or {}{trim} (unknown opcode)",
                self.write.as_str(),
                self.read.as_str()
            ));
        };
        let offset = uint(Some(field(self.offset)), "offset")?
            .checked_mul(u64::from(self.offset_unit))
            .ok_or("an offset that fits in 64 bits")?;
        let len = uint(Some(field(self.size)), "size")?
            .checked_mul(u64::from(self.size_unit))
            .ok_or("a size that fits in 64 bits")?;
        let time = match self.time {
            Some(c) => Some(float(Some(field(c)), "time")? / f64::from(self.time_per_second)),
            None => None,
        };
        Ok(Some(Request {
            time,
            device: self.volume.map_or("", field),
            offset,
            len,
            write,
            trim,
        }))
    }
}

/// Puts the first `MAX_COLUMNS` items of `it` into `f`; returns how many there were in all.
fn fill<'a>(f: &mut [&'a str; MAX_COLUMNS], it: impl Iterator<Item = &'a str>) -> usize {
    let mut n = 0;
    for x in it {
        if let Some(slot) = f.get_mut(n) {
            *slot = x;
        }
        n += 1;
    }
    n
}

impl fmt::Display for Columns {
    /// The canonical spec: every key, so that a converted trace names how it was read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "csv:op={},offset={},size={}",
            self.op, self.offset, self.size
        )?;
        if let Some(t) = self.time {
            write!(f, ",time={t}")?;
        }
        if let Some(v) = self.volume {
            write!(f, ",volume={v}")?;
        }
        let header = match self.header {
            Header::Auto => "auto",
            Header::Skip => "skip",
            Header::None => "none",
        };
        write!(
            f,
            ",sep={},header={header},time_unit={},offset_unit={},size_unit={},write={},read={}",
            name_of(&SEPS, self.sep),
            name_of(&TIME_UNITS, self.time_per_second),
            name_of(&SIZE_UNITS, self.offset_unit),
            name_of(&SIZE_UNITS, self.size_unit),
            self.write.as_str(),
            self.read.as_str()
        )?;
        if let Some(t) = &self.trim {
            write!(f, ",trim={}", t.as_str())?;
        }
        Ok(())
    }
}
