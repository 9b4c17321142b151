//! Every trace reader fed arbitrary bytes and mutated valid lines (the errors issue's
//! acceptance): no panic, and every error names the file and the line it is about. The
//! properties are in `support/trace_fuzz.rs`, shared with the `cargo fuzz` targets in `fuzz/`.
//!
//! `RECLAIM_FUZZ_CASES=N` runs N cases per property instead of 4,096 (a long run).

mod support;

use proptest::prelude::*;
use reclaim_core::trace::convert::{encode_binary, page_list_trace, ConvertOptions, Converter};
use reclaim_core::trace::{decode, Format};
use support::trace_fuzz;

/// Valid record lines of each text format (from the formats' documentation and the samples in
/// `../shared/data/traces`).
fn records(format: Format) -> &'static [&'static str] {
    match format {
        Format::Msr => &[
            "128166372003061629,hm,0,Write,7014912,4096,26",
            "128166372003061630,hm,0,Read,0,512,3",
            "128166372003061631,hm,1,Write,4095,2,5",
        ],
        Format::Spc => &[
            "0,20941264,8192,W,0.551706",
            "1,20941280,4096,r,0.6",
            "0,8,4096,w,0.7,extra",
        ],
        Format::Fiu => &[
            "89966094061440 4318 syslogd 100399327 8 W 8 0 2e7e2ac2dc4d4cbb7dd00d21a06d9e0d",
            "89966094079468 4318 syslogd 100399335 8 R 8 0 7a1d0ba0b69d0ab1a73bd1e8ac4dc8ba",
        ],
        Format::Biotracer => &[
            "0\t\t8\t\t4096\t\t4\t\t1.0\t\t1.0\t\t1.0\t\t1.0",
            "7340032\t8\t4096\t1\t2.5\t2.6\t2.7\t2.8",
        ],
        Format::Mqsim => &["1 0 8 16 0", "2 0 64 8 1", "3 1 4096 8 0"],
        Format::Disksim => &[
            "13.191135\t30\t0\t5\t1",
            "25.911729 18 28601 12 0",
            "0.5 0 8 8 0x10",
        ],
        Format::Blkparse => &[
            "8,16 0 2 0.629226337 20246 Q W 935733770 + 8 [java]",
            "8,16 0 4 0.7 1 Q R 0 + 8 [cat]",
            "8,32 1 5 0.8 1 Q DS 935733760 + 2048 [fstrim]",
        ],
        Format::Alibaba => &[
            "1,W,19496058880,77824,1577808000000426",
            "1,R,0,4096,1577808000000427",
        ],
        Format::Pages => &["5", "7", "0"],
        Format::Midas => &[
            "0.5 1 100 8192",
            "0.6 0 7 4096",
            "0.7 3 12 12288",
            "0.8 2 0 4096",
            "LOAD_END",
        ],
        Format::Tectonic => &[
            "10 4096 8192 1577808000.25 3 1 2 3 1",
            "0 0 4096 2 6 1 2 3 1 host42",
            "5 0 65536 2.5 1 1 2 3 1",
        ],
        // Binary records: their own property below.
        Format::Vscsi | Format::OracleGeneral => &[],
        // Read as `FUZZ_CSV`.
        Format::Csv(_) => &[
            "1;w;19496058880;152;1577808000000.426",
            "2;R;0;8;1577808000001",
            "1; W ;8;1;0;extra",
            "2;T;0;64;1577808000002",
        ],
    }
}

/// The column-mapped CSV format the properties read: semicolons, sectors, milliseconds, every
/// optional column.
const FUZZ_CSV: &str = "csv:volume=0,op=1,offset=2,size=3,time=4,sep=semicolon,offset_unit=byte,size_unit=sector,time_unit=ms,trim=t";

/// Replacements for a whole field: the values a damaged or hostile line carries.
const FIELDS: [&str; 16] = [
    "",
    " ",
    "-1",
    "-0",
    "0",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "x",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "4294967295",
    "0x10",
    "1.5",
];

#[derive(Clone, Debug)]
enum Mutation {
    /// Byte `at` (modulo the length) becomes `to`.
    Replace { at: usize, to: u8 },
    /// `byte` is inserted at `at`.
    Insert { at: usize, byte: u8 },
    /// Byte `at` is removed.
    Delete { at: usize },
    /// The line is cut after `at` bytes.
    Truncate { at: usize },
    /// Field `index` (split on the line's separator) becomes `FIELDS[value]`.
    Field { index: usize, value: usize },
    /// A field is added at the end.
    Extra { value: usize },
}

/// Bytes that keep a line one line (no newline, no NUL: archive framing is the arbitrary
/// bytes' property).
fn line_byte() -> impl Strategy<Value = u8> {
    any::<u8>().prop_filter("one line", |b| !matches!(b, b'\n' | b'\r' | 0))
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), line_byte()).prop_map(|(at, to)| Mutation::Replace { at, to }),
        (any::<usize>(), line_byte()).prop_map(|(at, byte)| Mutation::Insert { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Delete { at }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (0..10usize, 0..FIELDS.len()).prop_map(|(index, value)| Mutation::Field { index, value }),
        (0..FIELDS.len()).prop_map(|value| Mutation::Extra { value }),
    ]
}

fn mutate(line: &str, m: &Mutation) -> Vec<u8> {
    let mut b = line.as_bytes().to_vec();
    let sep = if line.contains(',') {
        ","
    } else if line.contains(';') {
        ";"
    } else if line.contains('\t') {
        "\t"
    } else {
        " "
    };
    match *m {
        Mutation::Replace { at, to } => {
            let i = at % b.len();
            b[i] = to;
        }
        Mutation::Insert { at, byte } => b.insert(at % (b.len() + 1), byte),
        Mutation::Delete { at } => {
            b.remove(at % b.len());
        }
        Mutation::Truncate { at } => b.truncate(at % b.len()),
        Mutation::Field { index, value } => {
            let mut f: Vec<&str> = line.split(sep).collect();
            let i = index % f.len();
            f[i] = FIELDS[value];
            b = f.join(sep).into_bytes();
        }
        Mutation::Extra { value } => {
            b.extend_from_slice(sep.as_bytes());
            b.extend_from_slice(FIELDS[value].as_bytes());
        }
    }
    b
}

fn text_format() -> impl Strategy<Value = Format> {
    let mut formats: Vec<Format> = Format::ALL.into_iter().filter(|f| !f.is_binary()).collect();
    formats.push(FUZZ_CSV.parse().expect("a csv spec"));
    prop::sample::select(formats)
}

fn config() -> ProptestConfig {
    let cases = std::env::var("RECLAIM_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4096);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Arbitrary bytes, and arbitrary bytes after a valid record (so that the rest is read as
    /// records, not as leading framing), with and without skipping bad lines.
    #[test]
    fn arbitrary_bytes(format in text_format(), bytes in prop::collection::vec(any::<u8>(), 0..2048), lead in any::<bool>()) {
        let mut input = Vec::new();
        if lead {
            input.extend_from_slice(records(format)[0].as_bytes());
            input.push(b'\n');
        }
        input.extend_from_slice(&bytes);
        trace_fuzz::text(format, &input, false);
        trace_fuzz::text(format, &input, true);
    }

    /// Valid records with one of them damaged: the result is a trace, or an error on exactly
    /// the damaged line.
    #[test]
    fn one_mutated_line(
        format in text_format(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..8),
        damaged in any::<prop::sample::Index>(),
        m in mutation(),
        crlf in any::<bool>(),
    ) {
        let lines = records(format);
        let k = damaged.index(picks.len());
        let mut input = Vec::new();
        for (i, pick) in picks.iter().enumerate() {
            let line = pick.get(lines);
            if i == k {
                input.extend(mutate(line, &m));
            } else {
                input.extend_from_slice(line.as_bytes());
            }
            input.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        if let Some(line) = trace_fuzz::text(format, &input, false) {
            prop_assert_eq!(line, k as u64 + 1, "{}", String::from_utf8_lossy(&input));
        }
        trace_fuzz::text(format, &input, true);
    }

    /// libCacheSim's binary records (vSCSI 1 and 2, oracleGeneral) damaged, cut or lengthened
    /// anywhere: a request, a bad-record error naming a byte inside the input, or no record.
    #[test]
    fn damaged_binary_records(
        format in prop::sample::select(vec![Format::Vscsi, Format::OracleGeneral]),
        version in 1u16..=2,
        records in prop::collection::vec((any::<u32>(), 0u64..1 << 40, 1u32..1 << 20, prop::sample::select(vec![0x28u16, 0x2a, 0x08, 0x0a, 0x88, 0x8a, 0x35, 0x00])), 1..20),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let mut bytes = Vec::new();
        for (t, lbn, len, cmd) in records {
            match (format, version) {
                (Format::OracleGeneral, _) => {
                    bytes.extend(t.to_le_bytes());
                    bytes.extend(lbn.to_le_bytes());
                    bytes.extend(len.to_le_bytes());
                    bytes.extend((-1i64).to_le_bytes());
                }
                (_, 1) => {
                    bytes.extend(t.to_le_bytes());
                    bytes.extend(len.to_le_bytes());
                    bytes.extend(1u32.to_le_bytes());
                    bytes.extend(cmd.to_le_bytes());
                    bytes.extend(0x100u16.to_le_bytes());
                    bytes.extend(lbn.to_le_bytes());
                    bytes.extend(u64::from(t).to_le_bytes());
                }
                _ => {
                    bytes.extend(cmd.to_le_bytes());
                    bytes.extend(0x200u16.to_le_bytes());
                    bytes.extend(t.to_le_bytes());
                    bytes.extend(len.to_le_bytes());
                    bytes.extend(1u32.to_le_bytes());
                    bytes.extend(lbn.to_le_bytes());
                    bytes.extend(u64::from(t).to_le_bytes());
                    bytes.extend(7u64.to_le_bytes());
                }
            }
        }
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len()) + 1);
        }
        trace_fuzz::text(format, &bytes, false);
        trace_fuzz::text(format, &bytes, true);
    }

    /// Gzip and zstd streams cut or damaged anywhere: an error naming the file and the line
    /// reached.
    #[test]
    fn damaged_compressed(zstd in any::<bool>(), picks in prop::collection::vec(any::<prop::sample::Index>(), 1..50), cut in any::<prop::sample::Index>(), flip in any::<(prop::sample::Index, u8)>()) {
        use std::io::Write;
        let mut text = Vec::new();
        for p in &picks {
            text.extend_from_slice(p.get(records(Format::Mqsim)).as_bytes());
            text.push(b'\n');
        }
        let mut bytes = if zstd {
            zstd::encode_all(&text[..], 1).unwrap()
        } else {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(&text).unwrap();
            gz.finish().unwrap()
        };
        let i = flip.0.index(bytes.len());
        bytes[i] ^= flip.1;
        bytes.truncate(cut.index(bytes.len()) + 1);
        trace_fuzz::text(Format::Mqsim, &bytes, false);
    }

    /// Converted traces with bytes flipped, cut or appended.
    #[test]
    fn damaged_binary(
        pages in prop::collection::vec(0u32..1000, 0..64),
        with_times in any::<bool>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in prop::option::of(any::<prop::sample::Index>()),
        extra in prop::collection::vec(any::<u8>(), 0..3),
    ) {
        let mut bytes = Vec::new();
        if with_times && !pages.is_empty() {
            // A text conversion, which stores times (a text trace needs at least one record).
            use std::fmt::Write as _;
            let mut text = String::new();
            for (i, p) in pages.iter().enumerate() {
                writeln!(text, "{i} 0 {} 8 0", u64::from(*p) * 8).unwrap();
            }
            let path = std::path::Path::new(trace_fuzz::LABEL);
            let input = decode(path, std::io::Cursor::new(text.into_bytes())).unwrap();
            let t = Converter::with_input(path, Format::Mqsim, ConvertOptions::default(), input).and_then(Converter::finish).unwrap();
            encode_binary(&t, &mut bytes).unwrap();
        } else {
            encode_binary(&page_list_trace(pages, "fuzz"), &mut bytes).unwrap();
        }
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len()));
        }
        bytes.extend_from_slice(&extra);
        trace_fuzz::binary(&bytes);
    }
}

/// A time so far from the first that their distance overflows is named on its line, never
/// stored as inf (which the binary reader would refuse).
#[test]
fn times_stay_finite() {
    // SPC: ASU,LBA,Size,Opcode,Timestamp.
    let bytes = b"0,8,4096,W,-1.7e308\n0,16,4096,W,1.7e308\n";
    assert_eq!(trace_fuzz::text(Format::Spc, bytes, false), Some(2));
}

/// A request whose length would cover billions of pages is refused on its line at once.
#[test]
fn huge_requests_are_refused_up_front() {
    let line = trace_fuzz::text(
        Format::Mqsim,
        b"1 0 0 8 0\n2 0 0 18014398509481983 0\n",
        false,
    );
    assert_eq!(line, Some(2));
}

/// A vSCSI trace whose first timestamp starts with gzip's two magic bytes (1F 8B, little-endian
/// 1,184,729,887) is read as records: the input proptest once shrank to, kept as a plain test.
#[test]
fn a_binary_trace_starting_like_gzip_is_read_as_records() {
    let mut bytes = Vec::new();
    for t in [1_184_729_887u32, 1_184_729_888] {
        bytes.extend(t.to_le_bytes());
        bytes.extend(40u32.to_le_bytes()); // length, bytes
        bytes.extend(1u32.to_le_bytes());
        bytes.extend(0x2au16.to_le_bytes()); // WRITE(10)
        bytes.extend(0x100u16.to_le_bytes()); // version 1
        bytes.extend(0u64.to_le_bytes());
        bytes.extend(u64::from(t).to_le_bytes());
    }
    assert_eq!(&bytes[..2], &[0x1f, 0x8b]);
    assert!(!reclaim_core::trace::is_gzip(&bytes));
    assert_eq!(trace_fuzz::text(Format::Vscsi, &bytes, false), None);
    let path = std::path::Path::new(trace_fuzz::LABEL);
    let input = decode(path, std::io::Cursor::new(bytes)).expect("a cursor reads");
    let trace = Converter::with_input(path, Format::Vscsi, ConvertOptions::default(), input)
        .and_then(Converter::finish)
        .expect("two write records");
    assert_eq!(trace.meta.writes, 2);
}
