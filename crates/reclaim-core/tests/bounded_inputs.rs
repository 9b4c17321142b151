//! Every reader bounded and stoppable whatever its input: a line longer than
//! `MAX_LINE_BYTES` is an error naming the file and the line (or a bad line skipped without
//! being kept), binary garbage before the first record ends in "no record" after
//! `MAX_LEADING_GARBAGE_BYTES`, a header's address space is checked before anything is sized
//! by it, and a stop hook ends an endless read.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use reclaim_core::trace::convert::{
    encode_binary, page_list_trace, parse_binary, ConvertOptions, Converter,
};
use reclaim_core::trace::{
    Format, ReadOptions, TraceReader, MAX_LEADING_GARBAGE_BYTES, MAX_LINE_BYTES, POLL_LINES,
};
use reclaim_core::Error;

const MSR_LINE: &str = "128166372000000000,hm,0,Write,4096,4096,10\n";

fn input(bytes: Vec<u8>) -> Box<dyn BufRead + Send> {
    Box::new(BufReader::new(std::io::Cursor::new(bytes)))
}

fn reader(bytes: Vec<u8>, format: Format, skip_bad_lines: bool) -> TraceReader {
    let options = ReadOptions {
        skip_bad_lines,
        ..ReadOptions::default()
    };
    TraceReader::with_input(Path::new("t.csv"), format, options, input(bytes)).unwrap()
}

/// Reads every request; the error if any.
fn read_all(r: &mut TraceReader) -> Result<u64, Error> {
    let mut n = 0;
    while r.next_request()?.is_some() {
        n += 1;
    }
    Ok(n)
}

#[test]
fn a_line_longer_than_the_limit_is_an_error_naming_file_and_line() {
    let mut bytes = MSR_LINE.as_bytes().to_vec();
    bytes.extend(std::iter::repeat_n(b'7', MAX_LINE_BYTES + 10));
    bytes.extend_from_slice(b"\n");
    bytes.extend_from_slice(MSR_LINE.as_bytes());
    let err = read_all(&mut reader(bytes, Format::Msr, false)).unwrap_err();
    match &err {
        Error::Trace { path, line, .. } => {
            assert_eq!(path, "t.csv");
            // The long line is the second.
            assert_eq!(*line, 2);
        }
        other => panic!("expected a trace error, got {other:?}"),
    }
    assert!(
        err.to_string()
            .contains(&format!("a line of at most {MAX_LINE_BYTES} bytes")),
        "{err}"
    );
}

#[test]
fn a_line_of_exactly_the_limit_is_read() {
    // A record padded with spaces to MAX_LINE_BYTES bytes, its newline included: the longest
    // line taken.
    let mut line = MSR_LINE.trim_end().as_bytes().to_vec();
    line.resize(MAX_LINE_BYTES - 1, b' ');
    line.push(b'\n');
    let mut bytes = line;
    bytes.extend_from_slice(MSR_LINE.as_bytes());
    assert_eq!(read_all(&mut reader(bytes, Format::Msr, false)).unwrap(), 2);
}

#[test]
fn with_skip_bad_lines_a_long_line_is_skipped_and_counted() {
    let mut bytes = MSR_LINE.as_bytes().to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 3 * MAX_LINE_BYTES));
    bytes.extend_from_slice(b"\n");
    bytes.extend_from_slice(MSR_LINE.as_bytes());
    let mut r = reader(bytes, Format::Msr, true);
    // The records on either side of the 3 MiB line are both read.
    assert_eq!(read_all(&mut r).unwrap(), 2);
    let skipped: u64 = r.report.skipped.values().sum();
    assert_eq!(skipped, 1, "{:?}", r.report.skipped);
    assert_eq!(r.report.lines, 3);
}

#[test]
fn a_gzip_of_zeros_is_an_error_at_its_first_line() {
    // 64 MiB of zeros, 64 KiB compressed: without a bound its one "line" is buffered whole.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        gz.write_all(&zeros).unwrap();
    }
    let compressed = gz.finish().unwrap();
    let decoded =
        reclaim_core::trace::decode(Path::new("zeros.gz"), std::io::Cursor::new(compressed))
            .unwrap();
    let mut r = TraceReader::with_input(
        Path::new("zeros.gz"),
        Format::Pages,
        ReadOptions::default(),
        decoded,
    )
    .unwrap();
    match read_all(&mut r).unwrap_err() {
        Error::Trace { path, line, .. } => assert_eq!((path.as_str(), line), ("zeros.gz", 1)),
        other => panic!("expected a trace error, got {other:?}"),
    }
}

/// Bytes of xorshift64 noise: binary, with NULs and newlines at random, like `/dev/urandom`.
fn noise(len: usize, mut x: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

#[test]
fn binary_noise_ends_in_no_record_after_the_leading_garbage_bound() {
    let len = (MAX_LEADING_GARBAGE_BYTES + (4 << 20)) as usize;
    for skip in [false, true] {
        let mut r = reader(noise(len, 0x9E37_79B9_7F4A_7C15), Format::Msr, skip);
        match read_all(&mut r).unwrap_err() {
            Error::NoRecords { path, .. } => assert_eq!(path, "t.csv"),
            other => panic!("expected no records (skip {skip}), got {other:?}"),
        }
        let garbage = r.report.leading_garbage_bytes;
        // Stopped at the first line past the bound, not at the end of the input.
        assert!(garbage > MAX_LEADING_GARBAGE_BYTES, "{garbage}");
        assert!(garbage < MAX_LEADING_GARBAGE_BYTES + (1 << 20), "{garbage}");
    }
}

/// Lines that are never a record of `spc` (an MSR line's second field is a host name), forever.
struct EndlessBadLines;

impl Read for EndlessBadLines {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let line = MSR_LINE.as_bytes();
        let n = buf.len() / line.len() * line.len();
        for chunk in buf[..n].chunks_mut(line.len()) {
            chunk.copy_from_slice(line);
        }
        Ok(n)
    }
}

/// A stop hook that asks to stop at its `n`-th poll, and the polls so far.
fn stop_at(n: u64) -> (reclaim_core::trace::Stop, Arc<AtomicU64>) {
    let polls = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&polls);
    (
        Box::new(move || seen.fetch_add(1, Ordering::Relaxed) + 1 >= n),
        polls,
    )
}

#[test]
fn a_stop_hook_ends_an_endless_skip_of_bad_lines() {
    let options = ConvertOptions {
        read: ReadOptions {
            skip_bad_lines: true,
            ..ReadOptions::default()
        },
        ..ConvertOptions::default()
    };
    let mut c = Converter::with_input(
        Path::new("endless.csv"),
        Format::Spc,
        options,
        Box::new(BufReader::new(EndlessBadLines)),
    )
    .unwrap();
    let (stop, polls) = stop_at(5);
    c.set_stop(stop);
    let err = c.step(1).unwrap_err();
    assert_eq!(polls.load(Ordering::Relaxed), 5);
    // Polled every POLL_LINES lines, from the first: stopped at line 4 × POLL_LINES.
    assert_eq!(c.lines(), 4 * POLL_LINES);
    assert_eq!(
        err.to_string(),
        format!("endless.csv: interrupted after line {}", 4 * POLL_LINES)
    );
}

#[test]
fn a_stop_hook_ends_an_endless_line_skipped() {
    // `/dev/zero` with --skip-bad-lines: one line without end, never kept, read until stopped.
    let mut r = TraceReader::with_input(
        Path::new("/dev/zero"),
        Format::Msr,
        ReadOptions {
            skip_bad_lines: true,
            ..ReadOptions::default()
        },
        Box::new(BufReader::new(std::io::repeat(0))),
    )
    .unwrap();
    let (stop, polls) = stop_at(100);
    r.set_stop(stop);
    let err = read_all(&mut r).unwrap_err();
    assert_eq!(polls.load(Ordering::Relaxed), 100);
    assert_eq!(err.to_string(), "/dev/zero: interrupted after line 1");
}

#[test]
fn a_stop_hook_ends_a_read_of_binary_records() {
    // oracleGeneral records of one page each, forever (24 bytes: time, id, size, next access).
    struct Records;
    impl Read for Records {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let mut rec = [0u8; 24];
            rec[12..16].copy_from_slice(&4096u32.to_le_bytes());
            let n = buf.len() / 24 * 24;
            for chunk in buf[..n].chunks_mut(24) {
                chunk.copy_from_slice(&rec);
            }
            Ok(n)
        }
    }
    let mut r = TraceReader::with_input(
        Path::new("records.bin"),
        Format::OracleGeneral,
        ReadOptions::default(),
        Box::new(BufReader::new(Records)),
    )
    .unwrap();
    let (stop, _) = stop_at(3);
    r.set_stop(stop);
    let err = read_all(&mut r).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("records.bin: interrupted after line {}", 2 * POLL_LINES)
    );
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bounded-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_header_address_space_beyond_32_bit_ids_is_refused_before_use() {
    let mut trace = page_list_trace(vec![0, 1, 1], "t");
    trace.meta.address_pages = 1 << 40;
    let mut bytes = Vec::new();
    encode_binary(&trace, &mut bytes).unwrap();
    let path = scratch("far.rtr");
    match parse_binary(&path, &bytes).unwrap_err() {
        Error::BadFile { byte, expected, .. } => {
            // The header starts after the 8 magic bytes and its 8-byte length.
            assert_eq!(byte, 16);
            assert!(expected.contains("address_pages"), "{expected}");
        }
        other => panic!("expected a bad file, got {other:?}"),
    }
}

#[test]
fn written_once_is_the_same_sparse_or_dense_and_small_for_a_far_address() {
    // Page 7 once, page 3 three times, page 9 twice: 1 page written once, 3 pages in all.
    let mut t = page_list_trace(vec![3, 7, 3, 9, 3, 9], "t");
    assert_eq!(t.meta.address_pages, 10);
    assert_eq!(t.written_once(), (1, 3));
    // The same writes in an address space 2^32 − 1 pages wide take the sorted path.
    t.meta.address_pages = u64::from(u32::MAX);
    assert_eq!(t.written_once(), (1, 3));
    // Two writes, one at the last id: counted without a byte per address (4 GiB).
    let far = page_list_trace(vec![0, u32::MAX - 1], "far");
    assert_eq!(far.meta.address_pages, u64::from(u32::MAX));
    assert_eq!(far.written_once(), (2, 2));
}

#[test]
fn a_header_count_beyond_the_file_is_refused_naming_byte_and_field() {
    let mut trace = page_list_trace(vec![0, 1, 1], "t");
    trace.meta.pages_written = 1 << 40;
    let mut bytes = Vec::new();
    encode_binary(&trace, &mut bytes).unwrap();
    let path = scratch("count.rtr");
    match parse_binary(&path, &bytes).unwrap_err() {
        Error::BadFile { byte, expected, .. } => {
            // The page ids start after the magic, the header's length and the header.
            let hlen = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
            assert_eq!(byte, 16 + hlen);
            assert!(
                expected.contains("1099511627776 page ids (`pages_written`)"),
                "{expected}"
            );
        }
        other => panic!("expected a bad file, got {other:?}"),
    }
}

#[test]
fn a_volume_range_that_does_not_hold_its_pages_is_refused() {
    // Two MSR volumes, each writing its pages 1 and 2 (4 KiB pages): hm_0 at ids [0, 3), hm_1
    // at [3, 6).
    let text =
        "128166372000000000,hm,0,Write,4096,8192,10\n128166372000000001,hm,1,Write,4096,8192,10\n";
    let c = Converter::with_input(
        Path::new("two.csv"),
        Format::Msr,
        ConvertOptions::default(),
        input(text.as_bytes().to_vec()),
    )
    .unwrap();
    let mut trace = c.finish().unwrap();
    assert_eq!(trace.pages, [1, 2, 4, 5]);
    assert_eq!(trace.meta.volumes[1].first_page, 3);
    let mut bytes = Vec::new();
    encode_binary(&trace, &mut bytes).unwrap();
    assert!(parse_binary(Path::new("two.rtr"), &bytes).is_ok());
    // The header says hm_1 starts at 5: its page 4 (its own page 1) lies outside.
    trace.meta.volumes[1].first_page = 5;
    trace.meta.volumes[1].address_pages = 1;
    let mut bytes = Vec::new();
    encode_binary(&trace, &mut bytes).unwrap();
    let hlen = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
    match parse_binary(Path::new("two.rtr"), &bytes).unwrap_err() {
        Error::BadFile { byte, expected, .. } => {
            // The third page id, after the magic, the header's length and the header.
            assert_eq!(byte, 16 + hlen + 8);
            assert!(
                expected.contains("volume `hm_1` in its range [5, 6)"),
                "{expected}"
            );
        }
        other => panic!("expected a bad file, got {other:?}"),
    }
}

#[test]
fn a_page_list_counts_its_distinct_pages_densely_or_sparsely_alike() {
    // 5 and 9 twice, 0 and 63 and 64 once: 5 distinct, with ids dense (a bit each) ...
    let dense = page_list_trace(vec![5, 9, 0, 5, 63, 64, 9], "t");
    assert_eq!(dense.meta.unique_pages, 5);
    // ... and with one far id (sorted): 5 distinct as well.
    let sparse = page_list_trace(vec![5, 9, 0, 5, u32::MAX - 1, 64, 9], "t");
    assert_eq!(sparse.meta.unique_pages, 5);
    assert_eq!(page_list_trace(Vec::new(), "t").meta.unique_pages, 0);
}
