//! Errors of the engine: bad parameters and runs that cannot make progress.

use thiserror::Error;

/// Everything that can go wrong in configuring or running a simulation.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A parameter has a value outside its valid range or of the wrong form.
    #[error("invalid value for `{param}`: {value} (expected {expected})")]
    Param {
        /// The parameter's name, as in the configuration and on the command line.
        param: String,
        /// The value given.
        value: String,
        /// The valid range or form.
        expected: String,
    },
    /// The cleaner frees no room: the victims the policy chooses are full of valid pages (the
    /// device is too full for its streams, or the policy keeps choosing full segments).
    ///
    /// The message counts where the segments beyond the data go, because many streams are a
    /// common cause: each open stream holds a segment and each GC stream beyond the first keeps
    /// one free, so 16 + 64 age-sorted streams on 1,500 segments at spare 0.1 leave the cleaner 7
    /// of the 150 (docs/design.md, "Triggers").
    #[error(
        "the cleaner makes no progress: {victims} victims in a row were cleaned without freeing room for a user write \
         ({logical_pages} logical pages on {segments} segments of {pages_per_segment} pages: {spare_segments} segments \
         beyond the data, of which the open streams hold up to {streams} and the cleaner's reserve {reserved}); \
         increase `spare`, open fewer streams, or choose a policy that takes the segments with room"
    )]
    NoProgress {
        /// Consecutive victims cleaned without progress.
        victims: u64,
        /// Logical pages of the geometry.
        logical_pages: u64,
        /// Physical segments of the geometry.
        segments: u32,
        /// Pages per segment.
        pages_per_segment: u32,
        /// Segments beyond those the logical pages fill: segments − ⌈logical pages / pages per
        /// segment⌉.
        spare_segments: u64,
        /// Streams of the placement (user, GC and cache streams, over every region), each of
        /// which holds a segment while it is open.
        streams: u32,
        /// Free segments held back for relocation: one per GC stream beyond the first, per region.
        reserved: u32,
    },
    /// A trace line that is not what its format says.
    #[error("{path}, line {line}: {expected} expected; found `{content}`")]
    Trace {
        /// The trace file.
        path: String,
        /// 1-based line number.
        line: u64,
        /// The offending line (up to 200 characters).
        content: String,
        /// What the format expects there.
        expected: String,
    },
    /// A text trace in which no line is a record of the format it was read as.
    #[error(
        "{path}: no {format} record in {lines} lines{skipped}; is `{format}` the trace's format?"
    )]
    NoRecords {
        /// The trace file.
        path: String,
        /// The format it was read as.
        format: String,
        /// Lines read.
        lines: u64,
        /// What `--skip-bad-lines` skipped, as ` (skipped as bad: N lines where … was expected; …)`,
        /// or empty.
        skipped: String,
    },
    /// A converted (binary) trace that is damaged or not a converted trace.
    #[error("{path}, byte {byte}: {expected} expected")]
    BadFile {
        /// The file.
        path: String,
        /// Offset of the first bad byte.
        byte: u64,
        /// What the layout expects there.
        expected: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
    /// Relocation needed a segment for a GC stream, and no segment was free nor any stream
    /// open that could take the page (the reserve ran out: several GC streams overflowed in one
    /// cycle).
    #[error(
        "relocation into stream {stream} found no free segment and no open stream of its region to take the page ({free} free segments)"
    )]
    NoRoom {
        /// The GC stream that overflowed.
        stream: usize,
        /// Free segments at the time.
        free: usize,
    },
    /// A scheme written outside the engine (in Python) failed: it raised, or returned what it
    /// may not (a segment that is not a candidate, a class out of range).
    #[error("the scheme `{scheme}` failed: {message}")]
    Outside {
        /// The scheme's spec.
        scheme: String,
        /// What went wrong: the host's traceback, or the value returned and what was expected.
        message: String,
    },
    /// The cleaner was triggered but no sealed segment exists.
    #[error("the cleaner found no sealed segment to clean ({free} free, {open} open segments)")]
    NoVictim {
        /// Free segments at the time.
        free: usize,
        /// Open segments at the time.
        open: usize,
    },
}

impl Error {
    /// A parameter error. A number printed in full by `{}` (`1e-300` as 300 digits) is shown
    /// in its shortest form ([`compact_numbers`]), whichever call site formatted it.
    #[allow(clippy::needless_pass_by_value)] // call sites pass numbers and fresh strings
    pub fn param(param: &str, value: impl ToString, expected: impl ToString) -> Self {
        Error::Param {
            param: param.to_string(),
            value: compact_numbers(&value.to_string()),
            expected: compact_numbers(&expected.to_string()),
        }
    }
}

/// A number as a message shows it: the shortest text that reads back as the same `f64`, with an
/// exponent outside [1e-5, 1e16) (`1e-300`, `1.5e20`, `0.1`, `65536`), never the full decimal
/// expansion that `{}` prints.
pub fn num(x: f64) -> String {
    let a = x.abs();
    if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `text` with every long numeral written by `{}` of an `f64` (more than 16 characters with a
/// decimal point, or more than 20 digits, beyond any `u64`) replaced by [`num`]'s form. Text
/// between backticks is the user's own and is kept as given, and so are digits that are part of
/// a word or a path.
pub fn compact_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quoted = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            quoted = !quoted;
        }
        let numeral = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .unwrap_or(rest.len());
        if quoted || numeral == 0 {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let (token, after) = rest.split_at(numeral);
        let digits = token.trim_start_matches('-');
        let long = if digits.contains('.') {
            digits.len() > 16
        } else {
            digits.len() > 20
        };
        // A numeral stands alone: digits inside a word or a path (`/tmp/123…/t.rtr`) are kept.
        let alone = out.chars().last().is_none_or(|c| " ([{,=:".contains(c))
            && after.chars().next().is_none_or(|c| " )]},;%".contains(c));
        match token.parse::<f64>() {
            Ok(x) if long && alone => out.push_str(&num(x)),
            _ => out.push_str(token),
        }
        rest = after;
    }
    out
}

/// Result type of the engine.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_shown_in_their_shortest_form() {
        assert_eq!(num(1e-300), "1e-300");
        assert_eq!(num(-1e300), "-1e300");
        assert_eq!(num(f64::MAX), "1.7976931348623157e308");
        assert_eq!(num(0.1), "0.1");
        assert_eq!(num(65536.0), "65536");
        assert_eq!(num(0.0), "0");
    }

    #[test]
    fn a_full_expansion_is_compacted_and_the_rest_kept() {
        let tiny = format!("{}", 1e-300);
        assert_eq!(tiny.len(), 302);
        let e = Error::param(
            "spare",
            format!("{tiny} (65536 logical pages)"),
            "a number in (0, 1)",
        );
        assert_eq!(
            e.to_string(),
            "invalid value for `spare`: 1e-300 (65536 logical pages) (expected a number in (0, 1))"
        );
        let big = format!("{}", f64::MAX);
        assert_eq!(
            compact_numbers(&format!("[0, {big}]")),
            "[0, 1.7976931348623157e308]"
        );
        // A u64, a version, a short decimal, a range and the user's text in backticks stay.
        for kept in [
            "18446744073709551615",
            "1.2.3",
            "2.00 passes",
            "[1.05, 100]",
            "-3",
            "`0.0000000000000000000000000001`",
            "2³² − 2",
            "/tmp/123456789012345678901234567890/t.rtr",
            "page 1234567890123456789012345x",
        ] {
            assert_eq!(compact_numbers(kept), kept);
        }
    }
}
