//! What every trace reader promises on any input, checked on one input: no panic, and either a
//! trace whose counts agree with each other and survive the binary round trip, or an error that
//! names the file and (for text) a line of it. Shared by `tests/fuzz_traces.rs` (proptest) and
//! the `cargo fuzz` targets in `fuzz/`.

#![allow(dead_code)] // each includer uses part of it

use std::io::Cursor;
use std::path::Path;

use reclaim_core::trace::convert::{encode_binary, parse_binary, ConvertOptions, Converter, Trace};
use reclaim_core::trace::{decode, is_gzip, Format, ReadOptions};
use reclaim_core::Error;

/// The name the inputs are read under; every error must carry it.
pub const LABEL: &str = "fuzz-input.trace";

/// Lines in `bytes` as a reader counts them (a last line without a newline counts).
pub fn line_count(bytes: &[u8]) -> u64 {
    let newlines = bytes.split(|&b| b == b'\n').count() as u64 - 1;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// Converts `bytes` as `format`; returns the error's line when it fails on one.
pub fn text(format: Format, bytes: &[u8], skip_bad_lines: bool) -> Option<u64> {
    let path = Path::new(LABEL);
    let options = ConvertOptions {
        read: ReadOptions {
            skip_bad_lines,
            ..ReadOptions::default()
        },
        ..ConvertOptions::default()
    };
    let input = decode(path, Cursor::new(bytes.to_vec())).expect("a cursor reads");
    let result = Converter::with_input(path, format, options, input).and_then(Converter::finish);
    // Line numbers of a gzip or zstd input count its decompressed lines; a binary format's
    // "lines" are its records.
    let lines =
        if format.is_binary() || is_gzip(bytes) || bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            u64::MAX
        } else {
            line_count(bytes)
        };
    match result {
        Ok(trace) => {
            consistent(&trace);
            round_trip(&trace);
            None
        }
        Err(Error::Trace {
            path: p,
            line,
            expected,
            content,
        }) => {
            assert_eq!(p, LABEL);
            assert!(line <= lines, "line {line} of {lines}");
            assert!(line >= 1, "line 0: {expected}");
            assert!(content.chars().count() <= 201, "the line is shown cut");
            if skip_bad_lines {
                // Skipping leaves only what no line can fix: a request's pages (no record at all is
                // `NoRecords`).
                assert!(
                    expected.contains("pages") || expected.contains("first request"),
                    "{expected}"
                );
            }
            Some(line)
        }
        Err(Error::BadFile {
            path: p,
            byte,
            expected,
        }) if format.is_binary() => {
            assert_eq!(p, LABEL);
            assert!(byte <= bytes.len() as u64, "byte {byte} of {}", bytes.len());
            assert!(!expected.is_empty());
            None
        }
        Err(Error::NoRecords {
            path: p, lines: n, ..
        }) => {
            assert_eq!(p, LABEL);
            assert!(n <= lines, "{n} lines of {lines}");
            None
        }
        Err(Error::Io { path: p, message }) => {
            assert_eq!(p, LABEL);
            assert!(
                message.contains("after line") || message.contains("after record"),
                "{message}"
            );
            None
        }
        Err(e) => panic!("an error of the wrong kind: {e}"),
    }
}

/// Parses `bytes` as a converted trace.
pub fn binary(bytes: &[u8]) {
    match parse_binary(Path::new(LABEL), bytes) {
        Ok(trace) => {
            replayable(&trace);
            round_trip(&trace);
        }
        Err(Error::BadFile { path, byte, .. }) => {
            assert_eq!(path, LABEL);
            assert!(
                byte as usize <= bytes.len(),
                "byte {byte} of {}",
                bytes.len()
            );
        }
        Err(e) => panic!("an error of the wrong kind: {e}"),
    }
}

/// What a replay relies on.
fn replayable(t: &Trace) {
    let m = &t.meta;
    assert_eq!(t.pages.len() as u64, m.pages_written);
    assert_eq!(t.request_pages.len() as u64, m.writes);
    assert_eq!(
        t.request_pages.iter().map(|&n| u64::from(n)).sum::<u64>(),
        m.pages_written
    );
    assert!(t.pages.iter().all(|&p| u64::from(p) < m.address_pages));
    assert!(t.times.is_empty() || t.times.len() == t.request_pages.len());
    assert!(t.times.iter().all(|x| x.is_finite()));
    let d = &t.trims;
    assert!(d.at.windows(2).all(|w| w[0] <= w[1]));
    assert!(d.at.iter().all(|&a| a <= m.pages_written));
    assert!(d
        .first
        .iter()
        .zip(&d.pages)
        .all(|(&f, &n)| n >= 1 && u64::from(f) + u64::from(n) <= m.address_pages));
    assert!(t.request_volumes.is_empty() || t.request_volumes.len() == t.request_pages.len());
}

/// What a conversion promises beyond a replay.
fn consistent(t: &Trace) {
    replayable(t);
    let m = &t.meta;
    assert_eq!(m.reads + m.writes + m.report.trims, m.requests);
    assert!(m.trims <= m.report.trims);
    assert!(m.unique_pages <= m.address_pages);
    assert_eq!(
        m.unique_pages,
        t.pages
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len() as u64
    );
    assert_eq!(
        m.address_pages,
        t.pages.iter().max().map_or(0, |&p| u64::from(p) + 1)
    );
}

/// A trace written and read back is the same trace.
fn round_trip(t: &Trace) {
    let mut bytes = Vec::new();
    encode_binary(t, &mut bytes).expect("a Vec takes every byte");
    let back = parse_binary(Path::new(LABEL), &bytes)
        .unwrap_or_else(|e| panic!("a written trace reads back: {e}"));
    assert_eq!(back.meta, t.meta);
    assert_eq!(back.pages, t.pages);
    assert_eq!(back.request_pages, t.request_pages);
    assert_eq!(back.request_volumes, t.request_volumes);
    assert_eq!(back.trims, t.trims);
    assert_eq!(
        back.times.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        t.times.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}
