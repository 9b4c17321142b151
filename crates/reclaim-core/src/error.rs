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
    /// A parameter error.
    #[allow(clippy::needless_pass_by_value)] // call sites pass numbers and fresh strings
    pub fn param(param: &str, value: impl ToString, expected: impl ToString) -> Self {
        Error::Param {
            param: param.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }
}

/// Result type of the engine.
pub type Result<T> = std::result::Result<T, Error>;
